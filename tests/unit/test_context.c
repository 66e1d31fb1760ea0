// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context (record/): the --context grammar, its resolution against a fake tracefs tree
 * that has some of the default events (the rest must be reported missing, in the default
 * list's order; an event named in the list must exist), the pair left out, filters, and
 * the metadata keys: written into a .vmt and read back through the reader.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

#include "container.h"
#include "context.h"
#include "ctxevent.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "reader.h"

#define FORMATS TOP_SRCDIR "/tests/data/formats/linux-6.18-x86_64"

/* Of the default list, the fake kernel has these (real format files of Linux 6.18). */
static const char *const present[] = {
	"sched/sched_switch", "irq/irq_handler_entry", "irq/irq_handler_exit",
	"nmi/nmi_handler", "syscalls/sys_enter_ioctl",
};
#define NPRESENT (sizeof(present) / sizeof(present[0]))

struct fake {
	char root[64];
};

static void put(const char *root, const char *rel, const char *text, size_t len)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static char *real_format(const char *event, size_t *len)
{
	char path[PATH_MAX], *text;

	snprintf(path, sizeof(path), FORMATS "/%s/format", event);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, len), 0);
	return text;
}

static int fake_setup(void **state)
{
	struct fake *fk = calloc(1, sizeof(*fk));
	char rel[256], *text;
	unsigned int i;
	size_t len;

	if (!fk)
		return -1;
	strcpy(fk->root, "/tmp/vmt-context-XXXXXX");
	if (!mkdtemp(fk->root))
		return -1;
	for (i = 0; i < NPRESENT; i++) {
		text = real_format(present[i], &len);
		snprintf(rel, sizeof(rel), "events/%s/format", present[i]);
		put(fk->root, rel, text, len);
		free(text);
	}
	/* not in the default list, but on the kernel */
	text = real_format("sched/sched_wakeup", &len);
	put(fk->root, "events/sched/sched_wakeup/format", text, len);
	free(text);
	put(fk->root, "events/sched/enable", "0\n", 2);
	put(fk->root, "events/raw_syscalls/sys_enter/format", "name: sys_enter\nID: 443\n", 24);
	put(fk->root, "events/raw_syscalls/sys_exit/format", "name: sys_exit\nID: 442\n", 23);
	*state = fk;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *fk = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk->root);
	if (system(cmd) != 0)
		return -1;
	free(fk);
	return 0;
}

static bool is_present(const char *system, const char *name)
{
	char want[256];
	unsigned int i;

	snprintf(want, sizeof(want), "%s/%s", system, name);
	for (i = 0; i < NPRESENT; i++)
		if (strcmp(present[i], want) == 0)
			return true;
	return false;
}

static const char *names(const struct rec_context *c, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < c->n; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", c->ev[i].name);
	return buf;
}

/* The default list: the events the kernel has, in the list's order; the others missing. */
static void test_defaults(void **state)
{
	struct fake *fk = *state;
	struct rec_context c;
	char want_ev[4096] = "", want_miss[4096] = "", got[4096], why[256];
	size_t ne = 0, nm = 0;
	unsigned int i;

	for (i = 0; i < vmt_ctx_default_nevents; i++) {
		const struct vmt_ctxdefault *d = &vmt_ctx_default_events[i];

		if (is_present(d->system, d->name))
			ne += (size_t)snprintf(want_ev + ne, sizeof(want_ev) - ne, "%s%s:%s",
					       ne ? "," : "", d->system, d->name);
		else
			nm += (size_t)snprintf(want_miss + nm, sizeof(want_miss) - nm, "%s%s:%s",
					       nm ? "," : "", d->system, d->name);
	}
	assert_int_equal(rec_context_resolve(&c, NULL, fk->root, "raw_syscalls:sys_enter",
					     "raw_syscalls:sys_exit", why, sizeof(why)), 0);
	assert_int_equal(c.n, NPRESENT);
	assert_string_equal(names(&c, got, sizeof(got)), want_ev);
	assert_string_equal(c.missing, want_miss);
	for (i = 0; i < c.n; i++) {
		char rel[256], *colon, *text;
		size_t len;

		snprintf(rel, sizeof(rel), "%s", c.ev[i].name);
		colon = strchr(rel, ':');
		*colon = '/';
		text = real_format(rel, &len);
		assert_int_equal(c.ev[i].format_len, len);
		assert_memory_equal(c.ev[i].format, text, len);
		free(text);
		if (strcmp(c.ev[i].name, "syscalls:sys_enter_ioctl") == 0)
			assert_string_equal(c.ev[i].filter, "cmd == 0xae80");
		else
			assert_null(c.ev[i].filter);
	}
	rec_context_free(&c);
	/* "default" spelled out is the same */
	assert_int_equal(rec_context_resolve(&c, "default", fk->root, "a:b", "a:c", why,
					     sizeof(why)), 0);
	assert_string_equal(names(&c, got, sizeof(got)), want_ev);
	rec_context_free(&c);
}

static void test_lists(void **state)
{
	static const struct {
		const char *list, *begin, *events, *missing;
	} t[] = {
		{ "none", "a:b", "", NULL },
		/* the pair is never a context event too */
		{ "sched:sched_switch,irq:irq_handler_entry", "sched:sched_switch",
		  "irq:irq_handler_entry", NULL },
		{ "default,-sched:sched_switch,sched:sched_wakeup,-irq:irq_handler_exit", "a:b",
		  "irq:irq_handler_entry,nmi:nmi_handler,syscalls:sys_enter_ioctl,"
		  "sched:sched_wakeup", "kvm:kvm_vcpu_wakeup" },
		/* applied in order: removed, added again at the end; repeats once */
		{ "sched:sched_switch,nmi:nmi_handler,-sched:sched_switch,+sched:sched_switch,"
		  "nmi:nmi_handler", "a:b", "nmi:nmi_handler,sched:sched_switch", NULL },
		/* a list that begins with a removal starts from the default list */
		{ "-sched:sched_switch", "a:b", "irq:irq_handler_entry,irq:irq_handler_exit,"
		  "nmi:nmi_handler,syscalls:sys_enter_ioctl", "kvm:kvm_vcpu_wakeup" },
		{ "-sched:sched_switch,-irq:irq_handler_exit,sched:sched_wakeup", "a:b",
		  "irq:irq_handler_entry,nmi:nmi_handler,syscalls:sys_enter_ioctl,"
		  "sched:sched_wakeup", "kvm:kvm_vcpu_wakeup" },
		/* a default named again must exist; leaving out what is absent is fine */
		{ "nmi:nmi_handler,-kvm:kvm_vcpu_wakeup,-no:such", "a:b", "nmi:nmi_handler", NULL },
	};
	struct fake *fk = *state;
	struct rec_context c;
	char got[4096], why[256];
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(rec_context_check(t[i].list, why, sizeof(why)), 0);
		assert_int_equal(rec_context_resolve(&c, t[i].list, fk->root, t[i].begin, "x:y",
						     why, sizeof(why)), 0);
		assert_string_equal(names(&c, got, sizeof(got)), t[i].events);
		/* missing: one of the defaults the fake kernel lacks, or none asked for */
		if (t[i].missing)
			assert_non_null(strstr(c.missing, t[i].missing));
		else
			assert_null(c.missing);
		rec_context_free(&c);
	}
	/* the filter goes with the event when it is named */
	assert_int_equal(rec_context_resolve(&c, "syscalls:sys_enter_ioctl", fk->root, "a:b",
					     "a:c", why, sizeof(why)), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.ev[0].filter, "cmd == 0xae80");
	rec_context_free(&c);
}

static void test_errors(void **state)
{
	static const char *const syntax[] = {
		"", ",", "sched", "none,sched:sched_switch", "sched:sched_switch,none",
		"default,,nmi:nmi_handler", "a:b:c", "../x:y", "x/y:z", "+", "-", ":x", "x:",
		"+default",
	};
	static const struct {
		const char *list, *named;
	} absent[] = {
		{ "sched:no_such_event", "sched:no_such_event" },
		{ "default,kvm:kvm_vcpu_wakeup", "kvm:kvm_vcpu_wakeup" },
		{ "no_system:x", "no_system:x" },
		{ "sched:enable", "sched:enable" },	/* a file, not an event */
	};
	struct fake *fk = *state;
	struct rec_context c;
	char why[512], many[REC_CONTEXT_MAX * 16 + 64];
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++) {
		why[0] = '\0';
		assert_int_equal(rec_context_check(syntax[i], why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
		assert_int_equal(rec_context_resolve(&c, syntax[i], fk->root, "a:b", "a:c", why,
						     sizeof(why)), -EINVAL);
		assert_null(c.ev);
	}
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		assert_int_equal(rec_context_check(absent[i].list, why, sizeof(why)), 0);
		assert_int_equal(rec_context_resolve(&c, absent[i].list, fk->root, "a:b", "a:c",
						     why, sizeof(why)), -ENOENT);
		assert_non_null(strstr(why, absent[i].named));
		assert_non_null(strstr(why, "not an event on this kernel"));
		assert_null(c.ev);
		assert_null(c.missing);
	}
	for (i = 0; i <= REC_CONTEXT_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%ss:e%u", i ? "," : "", i);
	assert_int_equal(rec_context_check(many, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "more than"));
}

/* The keys, then a .vmt with them read back by the reader: what the recorder promises. */
static void test_meta_roundtrip(void **state)
{
	struct fake *fk = *state;
	const struct vmt_evformat *const *f;
	struct vmt_kvbuf kb, end;
	struct rec_context c;
	struct vmt_writer *w;
	struct vmt_reader *r;
	char why[256], file[64], *s, *hp, *exitf, *entryf;
	size_t hplen, xlen, nlen;
	unsigned int n, i;
	int fd;

	assert_int_equal(rec_context_resolve(&c, "default,sched:sched_wakeup", fk->root, "a:b",
					     "a:c", why, sizeof(why)), 0);
	vmt_kv_init(&kb);
	rec_context_meta(&c, &kb);
	assert_int_equal(kb.error, 0);
	s = vmt_kv_get_str(kb.buf, kb.len, VMT_META_CONTEXT_EVENTS);
	assert_string_equal(s, "sched:sched_switch,irq:irq_handler_entry,irq:irq_handler_exit,"
			    "nmi:nmi_handler,syscalls:sys_enter_ioctl,sched:sched_wakeup");
	free(s);
	s = vmt_kv_get_str(kb.buf, kb.len, VMT_META_CONTEXT_MISSING);
	assert_string_equal(s, c.missing);
	assert_non_null(strstr(s, "kvm:kvm_vcpu_wakeup"));
	free(s);
	s = vmt_kv_get_str(kb.buf, kb.len, VMT_META_FILTER_CTX "syscalls:sys_enter_ioctl");
	assert_string_equal(s, "cmd == 0xae80");
	free(s);
	assert_null(vmt_kv_get(kb.buf, kb.len, VMT_META_FILTER_CTX "nmi:nmi_handler", NULL));

	/* the rest of a minimal META, then the reader */
	assert_int_equal(vmt_io_read_file(FORMATS "/header_page", 1 << 20, &hp, &hplen), 0);
	assert_int_equal(vmt_io_read_file(FORMATS "/kvm/kvm_exit/format", 1 << 20, &exitf,
					  &xlen), 0);
	assert_int_equal(vmt_io_read_file(FORMATS "/kvm/kvm_entry/format", 1 << 20, &entryf,
					  &nlen), 0);
	vmt_kv_add(&kb, VMT_META_HEADER_PAGE, hp, hplen);
	vmt_kv_add(&kb, VMT_META_FORMAT_BEGIN, exitf, xlen);
	vmt_kv_add(&kb, VMT_META_FORMAT_END, entryf, nlen);
	vmt_kv_add_str(&kb, VMT_META_EVENT_BEGIN, "kvm:kvm_exit");
	vmt_kv_add_str(&kb, VMT_META_EVENT_END, "kvm:kvm_entry");
	free(hp);
	free(exitf);
	free(entryf);
	snprintf(file, sizeof(file), "/tmp/vmt-context-%d.vmt", (int)getpid());
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(vmt_writer_open(fd, &kb, 1, &w), 0);
	vmt_kv_init(&end);
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	close(fd);
	assert_int_equal(vmt_reader_open(file, NULL, &r, why, sizeof(why)), 0);
	f = vmt_reader_context_formats(r, &n);
	assert_int_equal(n, c.n);
	assert_int_equal(vmt_reader_context_skipped(r), 0);
	for (i = 0; i < n; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%s:%s", f[i]->system, f[i]->name);
		assert_string_equal(name, c.ev[i].name);
	}
	assert_string_equal(vmt_reader_context_missing(r), c.missing);
	vmt_reader_close(r);
	unlink(file);
	vmt_kv_free(&end);
	vmt_kv_free(&kb);

	/* nothing enabled, nothing missing: no key at all ("not recorded") */
	rec_context_free(&c);
	assert_int_equal(rec_context_resolve(&c, "none", fk->root, "a:b", "a:c", why,
					     sizeof(why)), 0);
	vmt_kv_init(&kb);
	rec_context_meta(&c, &kb);
	assert_int_equal(kb.len, 0);
	vmt_kv_free(&kb);
	rec_context_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_lists, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_errors, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_meta_roundtrip, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
