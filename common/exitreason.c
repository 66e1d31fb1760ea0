// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exitreason.h"
#include "exitreason_table.h"
#include "syscall_table.h"

struct entry {
	uint32_t isa;
	uint64_t code;
	const char *name;	/* points into names or the built-in tables */
};

struct vmt_exitreasons {
	struct entry *e;
	size_t n, cap;
	char *names;		/* storage for names parsed from the recording */
	const char *what;	/* what a name names: "exit reason", "system call" */
	uint64_t ends_task[2];	/* a system call pair: exit and exit_group's numbers */
	bool has_ends_task;
	bool from_recording;
	const char *whose;	/* whose exits a message names: "this recording" (default) */
	size_t longest;		/* the longest name's bytes */
};

#define VMX_ENTRY(c, s) { VMT_ISA_VMX, (uint64_t)(c), s },
#define SVM_ENTRY(c, s) { VMT_ISA_SVM, (uint64_t)(c), s },
static const struct entry builtin[] = {
	VMT_VMX_EXIT_REASONS(VMX_ENTRY)
	VMT_SVM_EXIT_REASONS(SVM_ENTRY)
};

#define SYSCALL_ENTRY(c, s) { VMT_ISA_ANY, (uint64_t)(c), s },
static const struct entry syscalls_x86_64[] = {
	VMT_SYSCALLS_X86_64(SYSCALL_ENTRY)
};

static int add(struct vmt_exitreasons *t, uint32_t isa, uint64_t code, const char *name)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct entry *bigger = realloc(t->e, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		t->e = bigger;
		t->cap = cap;
	}
	t->e[t->n].isa = isa;
	t->e[t->n].code = code;
	t->e[t->n].name = name;
	t->n++;
	if (strlen(name) > t->longest)
		t->longest = strlen(name);
	return 0;
}

/* "0x040 + 13", "-1", "72": the kernel's table keys after macro expansion. */
static bool eval(const char *s, const char *end, uint64_t *out)
{
	uint64_t sum = 0;
	bool any = false;

	while (s < end) {
		bool neg = false;
		char *e;
		unsigned long long v;

		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s < end && *s == '-') {
			neg = true;
			s++;
		}
		if (s >= end || !isdigit((unsigned char)*s))
			return false;
		v = strtoull(s, &e, 0);
		if (e > end)
			return false;
		/* the kernel's -1 lands in a 32-bit exit_reason field */
		sum += neg ? (uint64_t)(uint32_t)-(int64_t)v : v;
		any = true;
		s = e;
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s < end && *s != '+')
			return false;
		if (s < end)
			s++;
	}
	*out = sum;
	return any;
}

/*
 * Parse every __print_symbolic(REC-><reason field> ..., { N, "name" }, ...) of the print
 * format. A table right after "isa == 1) ?" is VMX and the next one SVM; a table without
 * an isa test applies to any.
 */
static int parse_print_fmt(struct vmt_exitreasons *t, const char *pf)
{
	const char *p = pf;
	int table = 0, ret;
	bool isa_split = strstr(pf, "isa == 1") != NULL;
	size_t len = strlen(pf);
	char *dst;

	t->names = malloc(len + 1);
	if (!t->names)
		return -ENOMEM;
	dst = t->names;
	while ((p = strstr(p, "__print_symbolic("))) {
		const char *arg = p + strlen("__print_symbolic("), *comma = strchr(arg, ',');
		uint32_t isa;

		p = arg;
		if (!comma)
			break;
		/* only tables of the reason field: not flags or other symbolic fields */
		if (!memmem(arg, (size_t)(comma - arg), "exit_reason", 11) &&
		    !memmem(arg, (size_t)(comma - arg), "esr_ec", 6))
			continue;
		isa = isa_split ? (table == 0 ? VMT_ISA_VMX : VMT_ISA_SVM) : VMT_ISA_ANY;
		table++;
		p = comma;
		/* entries until the closing parenthesis of this call */
		for (;;) {
			const char *open, *c2, *q1, *q2;
			uint64_t code;

			while (*p == ',' || isspace((unsigned char)*p))
				p++;
			if (*p != '{')
				break;
			open = p + 1;
			c2 = strchr(open, ',');
			q1 = c2 ? strchr(c2, '"') : NULL;
			q2 = q1 ? strchr(q1 + 1, '"') : NULL;
			if (!q2 || !strchr(q2, '}'))
				return 0;	/* malformed: keep what was parsed */
			p = strchr(q2, '}') + 1;
			if (!eval(open, c2, &code))
				continue;
			memcpy(dst, q1 + 1, (size_t)(q2 - q1 - 1));
			dst[q2 - q1 - 1] = '\0';
			ret = add(t, isa, code, dst);
			if (ret)
				return ret;
			dst += q2 - q1;
		}
	}
	return 0;
}

static int add_table(struct vmt_exitreasons *t, const struct entry *e, size_t n)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = add(t, e[i].isa, e[i].code, e[i].name);
	return ret;
}

/*
 * exit and exit_group, which never return: x86-64's numbers, and the generic table's
 * (include/uapi/asm-generic/unistd.h) that arm64, riscv64 and loongarch64 use; 32-bit
 * tables differ again, and are not known here.
 */
static void set_ends_task(struct vmt_exitreasons *t, const char *machine)
{
	static const struct {
		const char *machine;
		uint64_t exit, exit_group;
	} nrs[] = {
		{ "x86_64", 60, 231 }, { "aarch64", 93, 94 }, { "arm64", 93, 94 },
		{ "riscv64", 93, 94 }, { "loongarch64", 93, 94 },
	};
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		if (strcmp(machine, nrs[i].machine) == 0) {
			t->ends_task[0] = nrs[i].exit;
			t->ends_task[1] = nrs[i].exit_group;
			t->has_ends_task = true;
		}
	}
}

bool vmt_exitreasons_ends_task(const struct vmt_exitreasons *t, uint64_t key)
{
	return t->has_ends_task && (key == t->ends_task[0] || key == t->ends_task[1]);
}

/*
 * The built-in names of a begin event without its own: kvm_exit's reasons, or the system
 * calls of raw_syscalls:sys_enter's id when the recording kernel's machine is x86-64 (the
 * numbers differ between architectures); other pairs keep numbers.
 */
static int add_builtin(struct vmt_exitreasons *t, const struct vmt_evformat *begin,
		       const char *machine)
{
	if (!begin)
		return 0;
	if (strcmp(begin->name, "sys_enter") == 0 && machine)
		set_ends_task(t, machine);
	if (strcmp(begin->name, "kvm_exit") == 0)
		return add_table(t, builtin, sizeof(builtin) / sizeof(builtin[0]));
	if (strcmp(begin->name, "sys_enter") == 0 && machine && strcmp(machine, "x86_64") == 0 &&
	    (!begin->system || strcmp(begin->system, "raw_syscalls") == 0)) {
		t->what = "system call";
		return add_table(t, syscalls_x86_64,
				 sizeof(syscalls_x86_64) / sizeof(syscalls_x86_64[0]));
	}
	return 0;
}

int vmt_exitreasons_new(const struct vmt_evformat *begin, const char *machine,
			struct vmt_exitreasons **out)
{
	struct vmt_exitreasons *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->what = "exit reason";
	if (begin && begin->print_fmt) {
		ret = parse_print_fmt(t, begin->print_fmt);
		if (ret) {
			vmt_exitreasons_free(t);
			return ret;
		}
	}
	t->from_recording = t->n > 0;
	if (!t->n) {
		ret = add_builtin(t, begin, machine);
		if (ret) {
			vmt_exitreasons_free(t);
			return ret;
		}
	}
	*out = t;
	return 0;
}

void vmt_exitreasons_free(struct vmt_exitreasons *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->names);
	free(t);
}

bool vmt_exitreasons_from_recording(const struct vmt_exitreasons *t)
{
	return t->from_recording;
}

void vmt_exitreasons_set_whose(struct vmt_exitreasons *t, const char *whose)
{
	t->whose = whose;
}

const char *vmt_exitreason_name(const struct vmt_exitreasons *t, uint32_t isa, uint64_t key)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->e[i].code == key && (t->e[i].isa == isa || t->e[i].isa == VMT_ISA_ANY ||
					    isa == VMT_ISA_ANY))
			return t->e[i].name;
	}
	return NULL;
}

const char *vmt_exitreason_label(const struct vmt_exitreasons *t, uint32_t isa, uint64_t key,
				 char *buf, size_t size)
{
	const char *name = t ? vmt_exitreason_name(t, isa, key) : NULL;

	if (name)
		snprintf(buf, size, "%s(0x%" PRIx64 ")", name, key);
	else
		snprintf(buf, size, "0x%" PRIx64, key);
	return buf;
}

size_t vmt_exitreasons_longest(const struct vmt_exitreasons *t)
{
	return t->longest;
}

bool vmt_exitreasons_empty(const struct vmt_exitreasons *t)
{
	return t->n == 0;
}

const char *vmt_exitreason_isa_name(uint32_t isa)
{
	return isa == VMT_ISA_VMX ? "Intel VMX" : isa == VMT_ISA_SVM ? "AMD SVM" : "unknown ISA";
}

/*
 * The same exits under the other vendor's names (Intel SDM vol. 3 appendix C, AMD APM vol.
 * 2 appendix C), so that a name of the wrong ISA gets its counterpart in the message. The
 * SVM side is an fnmatch() pattern: one VMX reason covers several SVM ones.
 */
static const struct counterpart {
	const char *vmx, *svm;
} counterparts[] = {
	{ "EXCEPTION_NMI", "nmi" }, { "EXCEPTION_NMI", "* excp" },
	{ "EXTERNAL_INTERRUPT", "interrupt" }, { "TRIPLE_FAULT", "shutdown" },
	{ "INIT_SIGNAL", "init" }, { "INTERRUPT_WINDOW", "vintr" },
	{ "TASK_SWITCH", "task_switch" }, { "CPUID", "cpuid" }, { "HLT", "hlt" },
	{ "HLT", "idle-halt" }, { "INVD", "invd" }, { "INVLPG", "invlpg" },
	{ "INVLPG", "invlpga" }, { "RDPMC", "rdpmc" }, { "RDTSC", "rdtsc" },
	{ "VMCALL", "hypercall" }, { "VMLAUNCH", "vmrun" }, { "VMRESUME", "vmrun" },
	{ "CR_ACCESS", "read_cr[0-9]" }, { "CR_ACCESS", "write_cr[0-9]" },
	{ "CR_ACCESS", "write_cr[0-9]_trap" }, { "CR_ACCESS", "cr0_sel_write" },
	{ "DR_ACCESS", "read_dr[0-9]" }, { "DR_ACCESS", "write_dr[0-9]" },
	{ "IO_INSTRUCTION", "io" }, { "MSR_READ", "msr" }, { "MSR_WRITE", "msr" },
	{ "MSR_WRITE", "write_efer_trap" }, { "MWAIT_INSTRUCTION", "mwait" },
	{ "MONITOR_INSTRUCTION", "monitor" }, { "PAUSE_INSTRUCTION", "pause" },
	{ "APIC_ACCESS", "avic_unaccelerated_access" }, { "GDTR_IDTR", "read_idtr" },
	{ "GDTR_IDTR", "read_gdtr" }, { "GDTR_IDTR", "write_idtr" },
	{ "GDTR_IDTR", "write_gdtr" }, { "LDTR_TR", "read_ldtr" }, { "LDTR_TR", "write_ldtr" },
	{ "LDTR_TR", "read_rt" }, { "LDTR_TR", "write_rt" }, { "EPT_VIOLATION", "npf" },
	{ "EPT_MISCONFIG", "npf" }, { "RDTSCP", "rdtscp" }, { "WBINVD", "wbinvd" },
	{ "XSETBV", "xsetbv" }, { "INVPCID", "invpcid" }, { "BUS_LOCK", "buslock" },
	{ "INVALID_STATE", "invalid_guest_state" },
};

/* A name list being written into a message: "a, b, c", cut with "..." when it is full. */
struct namelist {
	char *buf;
	size_t size, len;
	unsigned int n;
	bool full;
};

static void list_add(struct namelist *l, const char *name)
{
	size_t room = l->size - l->len;
	int w;

	if (l->full || !l->size)
		return;
	/* keep room for ", ..." after any name */
	w = snprintf(l->buf + l->len, room, "%s%s", l->n ? ", " : "", name);
	if (w < 0 || (size_t)w + 6 >= room) {
		l->buf[l->len] = '\0';
		snprintf(l->buf + l->len, room, "%s...", l->n ? ", " : "");
		l->len += strlen(l->buf + l->len);
		l->full = true;
		return;
	}
	l->len += (size_t)w;
	l->n++;
}

static bool isa_fits(uint32_t want, uint32_t have)
{
	return want == VMT_ISA_ANY || have == VMT_ISA_ANY || want == have;
}

/*
 * Case-insensitive edit distance, for "did you mean": insertions, deletions, substitutions
 * and two neighbours swapped ("mrs" for msr) count one each (the optimal string alignment
 * distance); names are short (bounded at 64).
 */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int rows[3][65], i, j, la = (unsigned int)strlen(a), lb = (unsigned int)strlen(b);

	if (la > 64 || lb > 64)
		return 1000;
	for (j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int *row = rows[i % 3], *prev = rows[(i - 1) % 3];
		unsigned int *prev2 = rows[(i + 1) % 3];	/* i - 2's */
		int ca = tolower((unsigned char)a[i - 1]);

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned int best = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			row[j] = best;
		}
	}
	return rows[la % 3][lb];
}

/*
 * Whether a name d edits away from the one given is close enough to suggest: at most two
 * edits, and at most one per three characters of the longer name, so that "hltt" suggests
 * hlt and "getpppid" getppid while "foo" (two edits from io, of three characters) suggests
 * nothing.
 */
static bool close_enough(unsigned int d, const char *given, const char *name)
{
	size_t la = strlen(given), lb = strlen(name);

	return d <= 2 && 3 * (size_t)d <= (la > lb ? la : lb);
}

/* The names of the other ISA's reasons (from t when it has them, else built in). */
static const struct entry *other_isa_entry(const struct vmt_exitreasons *t, uint32_t other,
					   const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->e[i].isa == other && strcasecmp(t->e[i].name, name) == 0)
			return &t->e[i];
	}
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		if (builtin[i].isa == other && strcasecmp(builtin[i].name, name) == 0)
			return &builtin[i];
	}
	return NULL;
}

/*
 * "X is an Intel VMX exit reason; this recording is AMD SVM, whose name is x" ("this
 * host" when the recorder resolves names before there is a recording).
 */
static void say_other_isa(const struct vmt_exitreasons *t, uint32_t isa, const char *given,
			  const struct entry *other, char *msg, size_t size)
{
	char names[256];
	struct namelist l = { names, sizeof(names), 0, 0, false };
	size_t i, k;
	int n;

	names[0] = '\0';
	for (k = 0; k < sizeof(counterparts) / sizeof(counterparts[0]); k++) {
		const struct counterpart *c = &counterparts[k];

		if (isa == VMT_ISA_SVM && strcmp(c->vmx, other->name) == 0) {
			/* every name of this recording's table the pattern covers */
			for (i = 0; i < t->n; i++) {
				if (t->e[i].isa == VMT_ISA_SVM &&
				    fnmatch(c->svm, t->e[i].name, 0) == 0)
					list_add(&l, t->e[i].name);
			}
		} else if (isa == VMT_ISA_VMX && fnmatch(c->svm, other->name, 0) == 0) {
			for (i = 0; i < t->n; i++) {
				if (t->e[i].isa == VMT_ISA_VMX && strcmp(t->e[i].name, c->vmx) == 0)
					list_add(&l, t->e[i].name);
			}
		}
	}
	n = snprintf(msg, size, "%s is an %s exit reason; %s is %s", given,
		     vmt_exitreason_isa_name(other->isa), t->whose ? t->whose : "this recording",
		     vmt_exitreason_isa_name(isa));
	if (n < 0 || (size_t)n >= size)
		return;
	if (!l.n)
		snprintf(msg + n, size - (size_t)n, ", which has no such exit");
	else
		snprintf(msg + n, size - (size_t)n, ", whose name%s %s", l.n > 1 ? "s are" : " is",
			 names);
}

/* The exits that dominate KVM recordings, both ISAs' names: listed first when one is unknown. */
static bool is_usual(const char *name)
{
	static const char *const usual[] = {
		"hlt", "io", "io_instruction", "cpuid", "msr", "msr_read", "msr_write", "npf",
		"ept_violation", "ept_misconfig", "interrupt", "external_interrupt", "vintr",
		"interrupt_window", "pause", "pause_instruction", "vmmcall", "vmcall",
		"apic_access", "apic_write", "preemption_timer", "nmi", "exception_nmi",
	};
	size_t i;

	for (i = 0; i < sizeof(usual) / sizeof(usual[0]); i++) {
		if (strcasecmp(name, usual[i]) == 0)
			return true;
	}
	return false;
}

/*
 * "unknown exit reason 'x' in this AMD SVM recording (did you mean y?); its names: ..."
 * ("for this host (AMD SVM)" before there is a recording); "unknown system call 'x' (did
 * you mean y?); ..." (a system call pair's ISA is "any").
 */
static void say_unknown(const struct vmt_exitreasons *t, uint32_t isa, const char *given,
			char *msg, size_t size)
{
	const char *best = NULL;
	unsigned int best_d = 1000;
	struct namelist l;
	size_t i;
	int n;

	for (i = 0; i < t->n; i++) {
		unsigned int d;

		if (!isa_fits(isa, t->e[i].isa))
			continue;
		d = distance(given, t->e[i].name);
		if (d < best_d && close_enough(d, given, t->e[i].name)) {
			best_d = d;
			best = t->e[i].name;
		}
	}
	if (isa == VMT_ISA_ANY)
		n = snprintf(msg, size, "unknown %s '%s'", t->what, given);
	else if (t->whose)
		n = snprintf(msg, size, "unknown exit reason '%s' for %s (%s)", given, t->whose,
			     vmt_exitreason_isa_name(isa));
	else
		n = snprintf(msg, size, "unknown exit reason '%s' in this %s recording", given,
			     vmt_exitreason_isa_name(isa));
	if (n < 0 || (size_t)n >= size)
		return;
	if (best)
		n += snprintf(msg + n, size - (size_t)n, " (did you mean %s?)", best);
	if ((size_t)n >= size)
		return;
	if (strcmp(t->what, "exit reason") != 0) {
		/* some 360 names: the manual lists them, not a line */
		snprintf(msg + n, size - (size_t)n, "; give a number or a name of syscalls(2)");
		return;
	}
	n += snprintf(msg + n, size - (size_t)n, "; give a number or one of: ");
	if ((size_t)n >= size)
		return;
	l = (struct namelist){ msg + n, size - (size_t)n, 0, 0, false };
	/* the reasons people filter on first, so that the line's cut leaves those */
	for (i = 0; i < t->n; i++) {
		if (isa_fits(isa, t->e[i].isa) && is_usual(t->e[i].name))
			list_add(&l, t->e[i].name);
	}
	for (i = 0; i < t->n; i++) {
		if (isa_fits(isa, t->e[i].isa) && !is_usual(t->e[i].name))
			list_add(&l, t->e[i].name);
	}
}

int vmt_exitreason_resolve(const struct vmt_exitreasons *t, uint32_t isa, const char *name,
			   uint32_t *isas, uint64_t *keys, unsigned int max, char *msg,
			   size_t size)
{
	const struct entry *other;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (!isa_fits(isa, t->e[i].isa) || strcasecmp(t->e[i].name, name) != 0)
			continue;
		if (n == max) {
			snprintf(msg, size, "too many exit reasons (at most %u)", max);
			return -ENOSPC;
		}
		isas[n] = t->e[i].isa;
		keys[n] = t->e[i].code;
		n++;
	}
	if (n)
		return (int)n;
	other = isa == VMT_ISA_ANY ? NULL :
		other_isa_entry(t, isa == VMT_ISA_VMX ? VMT_ISA_SVM : VMT_ISA_VMX, name);
	if (other)
		say_other_isa(t, isa, name, other, msg, size);
	else
		say_unknown(t, isa, name, msg, size);
	return -EINVAL;
}
