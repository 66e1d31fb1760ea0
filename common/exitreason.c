// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exitreason.h"
#include "exitreason_table.h"

struct entry {
	uint32_t isa;
	uint64_t code;
	const char *name;	/* points into names or the built-in tables */
};

struct vmt_exitreasons {
	struct entry *e;
	size_t n, cap;
	char *names;		/* storage for names parsed from the recording */
	bool from_recording;
};

#define VMX_ENTRY(c, s) { VMT_ISA_VMX, (uint64_t)(c), s },
#define SVM_ENTRY(c, s) { VMT_ISA_SVM, (uint64_t)(c), s },
static const struct entry builtin[] = {
	VMT_VMX_EXIT_REASONS(VMX_ENTRY)
	VMT_SVM_EXIT_REASONS(SVM_ENTRY)
};

uint64_t vmt_exitreason_key(uint32_t isa, uint64_t reason)
{
	/* VMX: bits 16+ are flags (FAILED_VMENTRY, ...), the basic reason is below */
	return isa == VMT_ISA_VMX ? reason & 0xffff : reason;
}

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

int vmt_exitreasons_new(const struct vmt_evformat *begin, struct vmt_exitreasons **out)
{
	struct vmt_exitreasons *t = calloc(1, sizeof(*t));
	size_t i;
	int ret;

	if (!t)
		return -ENOMEM;
	if (begin && begin->print_fmt) {
		ret = parse_print_fmt(t, begin->print_fmt);
		if (ret) {
			vmt_exitreasons_free(t);
			return ret;
		}
	}
	t->from_recording = t->n > 0;
	if (!t->n) {
		/* Only kvm_exit has these reasons: other event pairs get no names. */
		if (begin && strcmp(begin->name, "kvm_exit") == 0) {
			for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
				ret = add(t, builtin[i].isa, builtin[i].code, builtin[i].name);
				if (ret) {
					vmt_exitreasons_free(t);
					return ret;
				}
			}
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

unsigned int vmt_exitreason_find(const struct vmt_exitreasons *t, const char *name,
				 uint32_t *isa, uint64_t *key, unsigned int max)
{
	unsigned int n = 0, pass;
	size_t i;

	for (pass = 0; pass < 2 && n == 0; pass++) {
		for (i = 0; i < t->n && n < max; i++) {
			if (pass == 0 ? strcmp(t->e[i].name, name) != 0 :
					strcasecmp(t->e[i].name, name) != 0)
				continue;
			isa[n] = t->e[i].isa;
			key[n] = t->e[i].code;
			n++;
		}
	}
	return n;
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
