// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the flight recorder's trigger selection (record/trigsel.h), resolved
 * against a real kvm_exit format (Linux 6.18, x86-64) as under a tracefs mount: a name
 * selects that reason of either ISA (VMX HLT 12, SVM hlt 0x78, whatever flags VMX sets
 * above its basic reason) and no other; "-NAME" selects all but it, exits without a
 * reason field included; a number selects that code; no list selects every exit; with
 * the host's vendor known, the other vendor's names are refused; wrong names, an empty
 * list, a list that leaves out all it lists, a pair without reasons, more than 64 reasons
 * and an unreadable format are refused with their exit status.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "trigsel.h"

static char root[PATH_MAX];

/* A tracefs-like root whose events/ is the committed formats. */
static int setup(void **state)
{
	char events[PATH_MAX + 8];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_trigsel.%d", (int)getpid());
	snprintf(events, sizeof(events), "%s/events", root);
	if (mkdir(root, 0700) ||
	    symlink(TOP_SRCDIR "/tests/data/formats/linux-6.18-x86_64", events))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char events[PATH_MAX + 8];

	(void)state;
	snprintf(events, sizeof(events), "%s/events", root);
	unlink(events);
	rmdir(root);
	return 0;
}

static struct vmt_event exit_of(uint32_t isa, uint64_t reason)
{
	struct vmt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = VMT_EV_BEGIN;
	ev.has = VMT_EVF_REASON | VMT_EVF_ISA;
	ev.isa = isa;
	ev.reason = reason;
	return ev;
}

static struct rec_trigsel *resolve(const char *list)
{
	struct rec_trigsel *s = NULL;

	assert_int_equal(rec_trigsel_resolve_isa(&s, list, root, "kvm:kvm_exit", 0), 0);
	assert_non_null(s);
	return s;
}

static void test_name(void **state)
{
	struct rec_trigsel *s = resolve("hlt");
	struct vmt_event vmx_hlt = exit_of(1, 12), svm_hlt = exit_of(2, 0x78);
	struct vmt_event vmx_cpuid = exit_of(1, 10), svm_io = exit_of(2, 0x7b);
	struct vmt_event flagged = exit_of(1, 0x8000000cULL), none = exit_of(1, 12);

	(void)state;
	none.has = 0;
	assert_true(rec_trigsel_keeps(s, &vmx_hlt));
	assert_true(rec_trigsel_keeps(s, &svm_hlt));
	assert_true(rec_trigsel_keeps(s, &flagged));
	assert_false(rec_trigsel_keeps(s, &vmx_cpuid));
	assert_false(rec_trigsel_keeps(s, &svm_io));
	/* SVM's code 12 is not HLT */
	svm_io.reason = 12;
	assert_false(rec_trigsel_keeps(s, &svm_io));
	assert_false(rec_trigsel_keeps(s, &none));
	rec_trigsel_free(s);
}

static void test_minus(void **state)
{
	struct rec_trigsel *s = resolve(" -hlt , -io");
	struct vmt_event vmx_hlt = exit_of(1, 12), svm_hlt = exit_of(2, 0x78);
	struct vmt_event vmx_cpuid = exit_of(1, 10), svm_io = exit_of(2, 0x7b);
	struct vmt_event vmx_io = exit_of(1, 30), none = exit_of(1, 12);

	(void)state;
	none.has = 0;
	assert_false(rec_trigsel_keeps(s, &vmx_hlt));
	assert_false(rec_trigsel_keeps(s, &svm_hlt));
	assert_false(rec_trigsel_keeps(s, &svm_io));
	assert_true(rec_trigsel_keeps(s, &vmx_io));	/* VMX calls it IO_INSTRUCTION */
	assert_true(rec_trigsel_keeps(s, &vmx_cpuid));
	assert_true(rec_trigsel_keeps(s, &none));
	rec_trigsel_free(s);
}

static void test_number_and_both(void **state)
{
	struct rec_trigsel *s = resolve("0x78,cpuid,-CPUID");
	struct vmt_event svm_hlt = exit_of(2, 0x78), vmx_cpuid = exit_of(1, 10);
	struct vmt_event svm_cpuid = exit_of(2, 0x72), vmx_hlt = exit_of(1, 12);

	(void)state;
	assert_true(rec_trigsel_keeps(s, &svm_hlt));
	/* listed, then left out: names ignore case, so both ISAs' */
	assert_false(rec_trigsel_keeps(s, &svm_cpuid));
	assert_false(rec_trigsel_keeps(s, &vmx_cpuid));
	assert_false(rec_trigsel_keeps(s, &vmx_hlt));
	rec_trigsel_free(s);
}

/*
 * A VMX code with its flags (0x80000021: a VM entry that failed on the guest's state) is
 * the basic reason, as the exits are counted: it was kept whole and matched no exit.
 */
static void test_number_flagged(void **state)
{
	struct rec_trigsel *s = resolve("0x80000021");
	struct vmt_event failed = exit_of(1, 0x80000021ULL), vmx_hlt = exit_of(1, 12);
	struct vmt_event svm = exit_of(2, 0x21);

	(void)state;
	assert_true(rec_trigsel_keeps(s, &failed));
	assert_false(rec_trigsel_keeps(s, &vmx_hlt));
	assert_false(rec_trigsel_keeps(s, &svm));	/* SVM codes have no flags: 0x21 is not it */
	rec_trigsel_free(s);
	s = resolve("-0x80000021");
	assert_false(rec_trigsel_keeps(s, &failed));
	assert_true(rec_trigsel_keeps(s, &vmx_hlt));
	rec_trigsel_free(s);
}

static void test_none(void **state)
{
	struct rec_trigsel *s = (void *)1;
	struct vmt_event any = exit_of(2, 0x78);

	(void)state;
	assert_int_equal(rec_trigsel_resolve(&s, NULL, root, "kvm:kvm_exit"), 0);
	assert_null(s);
	assert_true(rec_trigsel_keeps(NULL, &any));
}

static void test_refused(void **state)
{
	struct rec_trigsel *s = (void *)1;

	(void)state;
	assert_int_equal(rec_trigsel_resolve_isa(&s, "hltt", root, "kvm:kvm_exit", 0), 64);
	assert_null(s);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "hlt,nosuch", root, "kvm:kvm_exit", 0), 64);
	assert_int_equal(rec_trigsel_resolve_isa(&s, " , ", root, "kvm:kvm_exit", 0), 64);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "0x", root, "kvm:kvm_exit", 0), 64);
	/* exit_reason is 32 bits */
	assert_int_equal(rec_trigsel_resolve_isa(&s, "0x100000000", root, "kvm:kvm_exit", 0), 64);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "hlt", root, "kvm:no_such_event", 0), 1);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "hlt", "/nonexistent", "kvm:kvm_exit", 0), 1);
	/* every reason listed is left out: nothing could trigger */
	assert_int_equal(rec_trigsel_resolve_isa(&s, "hlt,-HLT", root, "kvm:kvm_exit", 0), 64);
	/* the same reason as a VMX host counts it: the basic one, with or without its flags */
	assert_int_equal(rec_trigsel_resolve_isa(&s, "33,-0x80000021", root, "kvm:kvm_exit", 1),
			 64);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "0x80000021,-33", root, "kvm:kvm_exit", 1),
			 64);
	/* kvm_entry's format has no reason field: no list can select its pairs */
	assert_int_equal(rec_trigsel_resolve_isa(&s, "1", root, "kvm:kvm_entry", 0), 64);
	assert_null(s);
}

/*
 * rec_trigsel_resolve_isa()'s status, and in said (size bytes) what it printed on stderr,
 * unfolded (a message longer than 120 columns goes on lines indented by two spaces).
 */
static int resolve_saying(struct rec_trigsel **s, const char *list, uint32_t isa, char *said,
			  size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	assert_non_null(f);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(f), 2) == 2);
	ret = rec_trigsel_resolve_isa(s, list, root, "kvm:kvm_exit", isa);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(said, 1, size - 1, f);
	said[n] = '\0';
	fclose(f);
	/* "\n  " becomes the one space it was */
	for (char *fold; (fold = strstr(said, "\n  ")) != NULL;)
		memmove(fold, fold + 2, strlen(fold + 2) + 1);
	return ret;
}

/*
 * This host's vendor known: its names only, the other's refused (they would match
 * nothing), naming this host's (not "this recording": there is none yet) counterpart.
 */
static void test_vendor(void **state)
{
	struct rec_trigsel *s = NULL;
	struct vmt_event svm_io = exit_of(2, 0x7b), vmx_io = exit_of(1, 30);
	char said[1024];

	(void)state;
	assert_int_equal(resolve_saying(&s, "IO_INSTRUCTION", 2, said, sizeof(said)), 64);
	assert_non_null(strstr(said, "--trigger-reason: IO_INSTRUCTION is an Intel VMX exit "
				     "reason; this host is AMD SVM, whose name is io\n"));
	assert_int_equal(resolve_saying(&s, "io", 1, said, sizeof(said)), 64);
	assert_non_null(strstr(said, "--trigger-reason: io is an AMD SVM exit reason; this host "
				     "is Intel VMX, whose name is IO_INSTRUCTION\n"));
	assert_int_equal(resolve_saying(&s, "hltt", 2, said, sizeof(said)), 64);
	assert_non_null(strstr(said, "--trigger-reason: unknown exit reason 'hltt' for this host "
				     "(AMD SVM) (did you mean hlt?); give a number or one of: "));
	assert_null(s);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "-io", root, "kvm:kvm_exit", 2), 0);
	assert_false(rec_trigsel_keeps(s, &svm_io));
	rec_trigsel_free(s);
	assert_int_equal(rec_trigsel_resolve_isa(&s, "-IO_INSTRUCTION", root, "kvm:kvm_exit", 1),
			 0);
	assert_false(rec_trigsel_keeps(s, &vmx_io));
	assert_true(rec_trigsel_keeps(s, &svm_io));	/* 0x7b is no VMX I/O exit */
	rec_trigsel_free(s);
	/* the manual's advice for AMD's Idle HLT intercept: a name with a '-' in it */
	assert_int_equal(rec_trigsel_resolve_isa(&s, "-hlt,-idle-halt", root, "kvm:kvm_exit", 2),
			 0);
	svm_io.reason = 0xa6;
	assert_false(rec_trigsel_keeps(s, &svm_io));
	svm_io.reason = 0x78;
	assert_false(rec_trigsel_keeps(s, &svm_io));
	svm_io.reason = 0x7b;
	assert_true(rec_trigsel_keeps(s, &svm_io));
	rec_trigsel_free(s);
}

/* At most 64 reasons; the message says the limit (it said the room left: "at most 0"). */
static void test_limit(void **state)
{
	struct rec_trigsel *s = NULL;
	char list[1024] = "hlt";
	unsigned int i;

	(void)state;
	for (i = 0; i < 64; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%u", i);
	assert_int_equal(rec_trigsel_resolve_isa(&s, list, root, "kvm:kvm_exit", 2), 64);
	assert_null(s);
	list[strlen(list) - 3] = '\0';	/* ",63" off: 64 in all */
	assert_int_equal(rec_trigsel_resolve_isa(&s, list, root, "kvm:kvm_exit", 2), 0);
	rec_trigsel_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_minus),
		cmocka_unit_test(test_number_and_both),
		cmocka_unit_test(test_number_flagged),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
