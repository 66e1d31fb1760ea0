// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonw and outbuf: nesting and commas, escaping of every control character, integers
 * around 2^53 (numbers below, strings above), hex strings, fixed-point numbers, NaN as
 * null, and a buffer larger than the outbuf (several flushes) written whole, checked
 * against expected text written out by hand and, for the escaping, against a decoder
 * written here from RFC 8259's grammar.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "jsonw.h"
#include "outbuf.h"

/* Everything written to a pipe, read back as one string. */
struct capture {
	int fds[2];
	struct vmt_outbuf o;
	struct vmt_jsonw w;
	char *text;
};

static void cap_open(struct capture *c)
{
	assert_int_equal(pipe(c->fds), 0);
	assert_int_equal(vmt_outbuf_init(&c->o, c->fds[1]), 0);
	vmt_jsonw_init(&c->w, &c->o);
}

static const char *cap_close(struct capture *c, size_t max)
{
	size_t len = 0;
	ssize_t n;

	assert_int_equal(vmt_outbuf_finish(&c->o), 0);
	close(c->fds[1]);
	c->text = malloc(max + 1);
	while ((n = read(c->fds[0], c->text + len, max - len)) > 0)
		len += (size_t)n;
	c->text[len] = '\0';
	close(c->fds[0]);
	return c->text;
}

static void test_nesting(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	vmt_jsonw_object_open(&c.w, NULL);
	vmt_jsonw_u64(&c.w, "a", 1);
	vmt_jsonw_array_open(&c.w, "b");
	vmt_jsonw_u64(&c.w, NULL, 2);
	vmt_jsonw_object_open(&c.w, NULL);
	vmt_jsonw_object_close(&c.w);
	vmt_jsonw_array_open(&c.w, NULL);
	vmt_jsonw_array_close(&c.w);
	vmt_jsonw_null(&c.w, NULL);
	vmt_jsonw_array_close(&c.w);
	vmt_jsonw_object_open(&c.w, "c");
	vmt_jsonw_bool(&c.w, "t", true);
	vmt_jsonw_bool(&c.w, "f", false);
	vmt_jsonw_object_close(&c.w);
	vmt_jsonw_i64(&c.w, "d", -5);
	vmt_jsonw_opt_u64(&c.w, "e", false, 7);
	vmt_jsonw_opt_u64(&c.w, "g", true, 7);
	vmt_jsonw_object_close(&c.w);
	assert_string_equal(cap_close(&c, 4096),
			    "{\"a\":1,\"b\":[2,{},[],null],\"c\":{\"t\":true,\"f\":false},"
			    "\"d\":-5,\"e\":null,\"g\":7}");
	free(c.text);
}

static void test_numbers(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	vmt_jsonw_array_open(&c.w, NULL);
	vmt_jsonw_u64(&c.w, NULL, 0);
	vmt_jsonw_u64(&c.w, NULL, (UINT64_C(1) << 53) - 1);
	vmt_jsonw_u64(&c.w, NULL, UINT64_C(1) << 53);
	vmt_jsonw_u64(&c.w, NULL, (UINT64_C(1) << 53) + 1);
	vmt_jsonw_u64(&c.w, NULL, UINT64_MAX);
	vmt_jsonw_i64(&c.w, NULL, INT64_MIN);
	vmt_jsonw_i64(&c.w, NULL, -(INT64_C(1) << 53));
	vmt_jsonw_hex(&c.w, NULL, 0);
	vmt_jsonw_hex(&c.w, NULL, UINT64_C(0xffffffff81000000));
	vmt_jsonw_fixed(&c.w, NULL, 82.25912, 4);
	vmt_jsonw_fixed(&c.w, NULL, 0.0 / 0.0, 2);
	vmt_jsonw_array_close(&c.w);
	assert_string_equal(cap_close(&c, 4096),
			    "[0,9007199254740991,9007199254740992,\"9007199254740993\","
			    "\"18446744073709551615\",\"-9223372036854775808\",-9007199254740992,"
			    "\"0x0\",\"0xffffffff81000000\",82.2591,null]");
	free(c.text);
}

/* RFC 8259 string decoding, just enough to check the escaping round-trips. */
static size_t decode(const char *s, char *out)
{
	size_t n = 0;

	assert_true(*s++ == '"');
	while (*s != '"') {
		unsigned int v;

		assert_true((unsigned char)*s >= 0x20);
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (*s == 'u') {
			assert_int_equal(sscanf(s + 1, "%4x", &v), 1);
			out[n++] = (char)v;
			s += 5;
		} else {
			assert_true(*s == '"' || *s == '\\');
			out[n++] = *s++;
		}
	}
	assert_true(s[1] == '\0');
	out[n] = '\0';
	return n;
}

#define FFFD "\xef\xbf\xbd"

static void test_escaping(void **state)
{
	/* UTF-8 kept whole; each byte of no valid sequence U+FFFD (RFC 3629's table) */
	static const struct {
		const char *in, *want;
	} utf8[] = {
		{ "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80" },
		{ "ev\xffil", "ev" FFFD "il" },
		{ "\xc2\x9b", "\xc2\x9b" },			/* U+009B: valid UTF-8 */
		{ "\x9b[31m", FFFD "[31m" },			/* a bare continuation byte */
		{ "\xc0\xaf", FFFD FFFD },			/* overlong '/' */
		{ "\xed\xa0\x80", FFFD FFFD FFFD },		/* a surrogate */
		{ "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD },	/* too large */
		{ "a\xe4\xb8", "a" FFFD FFFD },			/* cut at the end */
		{ "\xe4\xb8\"", FFFD FFFD "\"" },		/* cut before a quote */
	};
	char in[256], out[1024], want[1024];
	struct capture c;
	unsigned int i;

	(void)state;
	for (i = 1; i < 256; i++)
		in[i - 1] = (char)i;
	in[255] = '\0';
	memcpy(want, in, 127);
	for (i = 0; i < 128; i++)
		memcpy(want + 127 + i * 3, FFFD, 3);
	want[127 + 128 * 3] = '\0';
	cap_open(&c);
	vmt_jsonw_str(&c.w, NULL, in);
	assert_int_equal(decode(cap_close(&c, 4096), out), 127 + 128 * 3);
	assert_string_equal(out, want);
	free(c.text);
	for (i = 0; i < sizeof(utf8) / sizeof(utf8[0]); i++) {
		cap_open(&c);
		vmt_jsonw_str(&c.w, NULL, utf8[i].in);
		assert_int_equal(decode(cap_close(&c, 4096), out), strlen(utf8[i].want));
		assert_string_equal(out, utf8[i].want);
		free(c.text);
	}
	cap_open(&c);
	vmt_jsonw_object_open(&c.w, NULL);
	vmt_jsonw_str(&c.w, "k\"ey", "a\\b\"c\n");
	vmt_jsonw_str(&c.w, "n", NULL);
	vmt_jsonw_object_close(&c.w);
	assert_string_equal(cap_close(&c, 4096), "{\"k\\\"ey\":\"a\\\\b\\\"c\\u000a\",\"n\":null}");
	free(c.text);
}

/* More than the outbuf holds, through a pipe read concurrently: nothing lost or reordered. */
static void test_large(void **state)
{
	const size_t n = 3 * VMT_OUTBUF_SIZE / 8;
	struct vmt_outbuf o;
	int fds[2];
	pid_t pid;
	size_t i;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t want = 0, got;
		char buf[32];
		FILE *f;

		close(fds[1]);
		f = fdopen(fds[0], "r");
		while (fgets(buf, sizeof(buf), f)) {
			if (sscanf(buf, "%lu", &got) != 1 || got != want)
				_exit(1);
			want++;
		}
		_exit(want == n ? 0 : 2);
	}
	close(fds[0]);
	assert_int_equal(vmt_outbuf_init(&o, fds[1]), 0);
	for (i = 0; i < n; i++) {
		vmt_outbuf_u64(&o, i);
		vmt_outbuf_ch(&o, '\n');
	}
	assert_int_equal(vmt_outbuf_finish(&o), 0);
	close(fds[1]);
	{
		int status;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* A write error sticks: a closed pipe gives -EPIPE, later writes do nothing. */
static void test_error(void **state)
{
	struct vmt_outbuf o;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(vmt_outbuf_init(&o, fds[1]), 0);
	vmt_outbuf_str(&o, "x");
	assert_int_equal(vmt_outbuf_flush(&o), -EPIPE);
	vmt_outbuf_str(&o, "y");
	assert_int_equal(vmt_outbuf_finish(&o), -EPIPE);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
