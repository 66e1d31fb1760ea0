// SPDX-License-Identifier: GPL-2.0-or-later
/* evformat: real and historical layouts parse to the right offsets; bad text is refused. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "evformat.h"
#include "io.h"
#include "kvmevent.h"

static struct vmt_evformat *load(const char *rel)
{
	struct vmt_evformat *f = NULL;
	char path[512], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/formats/%s", TOP_SRCDIR, rel);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	assert_int_equal(vmt_evformat_parse(text, len, "kvm", &f, NULL), 0);
	free(text);
	return f;
}

struct layout {
	const char *dir;
	unsigned int exit_id, entry_id;
	int reason_off, rip_off, vcpu_exit_off, vcpu_entry_off, isa_off;
};

/* Where exit_reason, guest_rip, vcpu_id live on each kernel (tests/data/formats). -1: absent. */
static const struct layout layouts[] = {
	{ "linux-6.18-x86_64", 103, 115, 8, 16, 56, 8, 24 },
	{ "linux-6.1-x86_64", 1424, 1436, 8, 16, 56, 8, 24 },
	{ "rt-2015-x86_64", 886, 898, 16, 24, -1, 16, 32 },
	{ "arm64", 210, 211, 12, 16, -1, -1, -1 },
};

static void check_loc(struct vmt_fieldloc loc, int off)
{
	if (off < 0) {
		assert_int_equal(loc.size, 0);
	} else {
		assert_int_not_equal(loc.size, 0);
		assert_int_equal(loc.offset, off);
	}
}

static void test_layouts(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout *l = &layouts[i];
		struct vmt_evformat *ex, *en;
		struct vmt_evbind b;
		char rel[256];

		snprintf(rel, sizeof(rel), "%s/kvm/kvm_exit/format", l->dir);
		ex = load(rel);
		snprintf(rel, sizeof(rel), "%s/kvm/kvm_entry/format", l->dir);
		en = load(rel);
		assert_string_equal(ex->name, "kvm_exit");
		assert_int_equal(ex->id, l->exit_id);
		assert_int_equal(en->id, l->entry_id);
		assert_non_null(ex->print_fmt);
		assert_int_equal(vmt_evbind_init(&b, ex, en), 0);
		assert_int_equal(b.common_pid.offset, 4);
		check_loc(b.begin.reason, l->reason_off);
		check_loc(b.begin.rip, l->rip_off);
		check_loc(b.begin.vcpu, l->vcpu_exit_off);
		check_loc(b.end.vcpu, l->vcpu_entry_off);
		check_loc(b.begin.isa, l->isa_off);
		vmt_evformat_free(ex);
		vmt_evformat_free(en);
	}
}

static void test_fields(void **state)
{
	struct vmt_evformat *f = load("linux-6.18-x86_64/raw_syscalls/sys_enter/format");
	const struct vmt_evfield *args = vmt_evformat_field(f, "args");
	const struct vmt_evfield *id = vmt_evformat_field(f, "id");

	(void)state;
	assert_non_null(args);
	assert_true(args->is_array);
	assert_int_equal(args->offset, 16);
	assert_int_equal(args->size, 48);
	assert_string_equal(args->type, "unsigned long");
	assert_non_null(id);
	assert_true(id->is_signed);
	assert_string_equal(id->type, "long");
	assert_null(vmt_evformat_field(f, "nope"));
	vmt_evformat_free(f);
}

static void test_header_page(void **state)
{
	static const struct {
		const char *rel;
		unsigned int commit_size, data_offset, data_size;
	} hp_cases[] = {
		{ "linux-6.18-x86_64/header_page", 8, 16, 4080 },
		{ "32bit/header_page", 4, 12, 4084 },
		{ "header_page_16k", 8, 16, 16368 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct vmt_header_page hp;
		char path[512], *text;
		size_t len;

		snprintf(path, sizeof(path), "%s/tests/data/formats/%s", TOP_SRCDIR,
			 hp_cases[i].rel);
		assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
		assert_int_equal(vmt_header_page_parse(text, len, &hp), 0);
		assert_int_equal(hp.commit_size, hp_cases[i].commit_size);
		assert_int_equal(hp.data_offset, hp_cases[i].data_offset);
		assert_int_equal(hp.data_size, hp_cases[i].data_size);
		free(text);
	}
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"name: x\nformat:\n",					/* no ID, no field */
		"name: x\nID: 70000\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"
		"\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n",	/* duplicate */
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:99999999999;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:65535;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:0;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int ;\toffset:0;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a\toffset:0;\tsize:4;\n",
		"name: x\nID: -1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
		"name: x\nname: y\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\n",
	};
	static const char *const bad_hp[] = {
		"",
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n",
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:999999999;\tsigned:0;\n",
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:2;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:4;\tsize:4080;\tsigned:0;\n",	/* overlaps */
	};
	struct vmt_header_page hp;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vmt_evformat *f = NULL;

		assert_int_equal(vmt_evformat_parse(bad[i], strlen(bad[i]), NULL, &f, NULL),
				 -EBADMSG);
		assert_null(f);
	}
	for (i = 0; i < sizeof(bad_hp) / sizeof(bad_hp[0]); i++)
		assert_int_equal(vmt_header_page_parse(bad_hp[i], strlen(bad_hp[i]), &hp),
				 -EBADMSG);
}

/* Every prefix of a real format file: parse or refuse, never crash (ASan). */
static void test_prefixes(void **state)
{
	char path[512], *text;
	size_t len, i;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/formats/linux-6.18-x86_64/kvm/kvm_exit/format",
		 TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	for (i = 0; i <= len; i += 7) {
		struct vmt_evformat *f = NULL;
		char *copy = malloc(i + 1);

		memcpy(copy, text, i);
		if (vmt_evformat_parse(copy, i, NULL, &f, NULL) == 0)
			vmt_evformat_free(f);
		free(copy);
	}
	free(text);
}

static void test_bind_refuses(void **state)
{
	struct vmt_evformat *a = load("linux-6.18-x86_64/kvm/kvm_exit/format");
	struct vmt_evbind b;

	(void)state;
	assert_int_equal(vmt_evbind_init(&b, a, a), -EINVAL);	/* same id */
	vmt_evformat_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_header_page),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_bind_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
