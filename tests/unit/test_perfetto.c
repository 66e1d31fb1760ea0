// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfetto: the consumer fed by hand as the pass feeds it (start, begin events, pairs,
 * context events), its file read back: the exact slices worked out by hand (tracks, times
 * in us with every ns, args), interrupts and preemptions of vCPU tasks on the pCPU track,
 * switches of other tasks left out, and a valid JSON frame around an empty trace.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctxevent.h"
#include "perfetto.h"

static const struct vmt_clock ns_clock = { 1.0, 0, 0 };

struct feed {
	FILE *f;
	struct vmt_perfetto *p;
	struct vmt_consumer c;
	struct vmt_iter it;
	void *slot;
	char *text;
};

static void feed_start(struct feed *f)
{
	memset(f, 0, sizeof(*f));
	f->f = tmpfile();
	assert_non_null(f->f);
	assert_int_equal(vmt_perfetto_consumer(fileno(f->f), &f->p, &f->c), 0);
	f->it.clock = &ns_clock;
	f->it.start_ts = 1000;
	assert_int_equal(f->c.ops->start(f->c.state, &f->it), 0);
}

static void feed_exit(struct feed *f, int32_t pid, uint32_t cpu, uint64_t ts, uint64_t lat,
		      uint64_t reason)
{
	struct vmt_event b = { 0 }, e = { 0 };
	struct vmt_iter_event ie = { &b, NULL, true };
	struct vmt_pair p = { 0 };

	b.ts = 1000 + ts;
	b.cpu = e.cpu = cpu;
	b.pid = e.pid = pid;
	b.kind = VMT_EV_BEGIN;
	b.isa = 1;
	b.reason = reason;
	b.rip = 0xfff0;
	b.has = VMT_EVF_REASON | VMT_EVF_RIP;
	e.kind = VMT_EV_END;
	e.ts = b.ts + lat;
	e.vcpu = 3;
	e.has = VMT_EVF_VCPU;
	assert_int_equal(f->c.ops->event(f->c.state, &f->it, &ie), 0);
	p.begin = &b;
	p.end = &e;
	p.lat = lat;
	assert_int_equal(f->c.ops->pair(f->c.state, &f->it, &p, &f->slot), 0);
}

static void feed_ctx(struct feed *f, const struct vmt_ctxev *ev)
{
	struct vmt_ctxev c = *ev;

	c.ts += 1000;
	assert_int_equal(f->c.ops->context(f->c.state, &f->it, &c), 0);
}

static void feed_end(struct feed *f)
{
	long n;

	assert_int_equal(vmt_perfetto_finish(f->p), 0);
	n = ftell(f->f);
	assert_true(n > 0);
	f->text = calloc(1, (size_t)n + 1);
	assert_non_null(f->text);
	rewind(f->f);
	assert_int_equal(fread(f->text, 1, (size_t)n, f->f), (size_t)n);
	fclose(f->f);
}

static unsigned int count(const char *text, const char *s)
{
	unsigned int n = 0;

	for (text = strstr(text, s); text; text = strstr(text + 1, s))
		n++;
	return n;
}

static void test_exits(void **state)
{
	struct feed f;

	(void)state;
	feed_start(&f);
	feed_exit(&f, 4242, 1, 1500, 2345, 12);			/* no format: codes only */
	feed_exit(&f, 4242, 1, 1234567890, 7, 0x1234);
	feed_end(&f);
	assert_true(strncmp(f.text, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 38) == 0);
	assert_string_equal(f.text + strlen(f.text) - 3, "]}\n");
	assert_int_equal(count(f.text, "\"cat\":\"exit\""), 2);
	/* the task's track, named once by its vCPU */
	assert_int_equal(count(f.text, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,"
			       "\"tid\":4242,\"args\":{\"name\":\"vCPU 3 (task 4242)\"}}"), 1);
	assert_non_null(strstr(f.text, "{\"ph\":\"X\",\"cat\":\"exit\",\"name\":\"0xc\",\"pid\":2,"
			       "\"tid\":4242,\"ts\":1.500,\"dur\":2.345,\"args\":{\"latency_ns\":2345,"
			       "\"pcpu\":1,\"entry_pcpu\":1,\"vcpu\":3,\"reason_code\":12,"
			       "\"guest_rip\":\"0xfff0\"}}"));
	assert_non_null(strstr(f.text, "\"name\":\"0x1234\",\"pid\":2,\"tid\":4242,"
			       "\"ts\":1234567.890,\"dur\":0.007,"));
	/* no context events: no pCPU track */
	assert_int_equal(count(f.text, "\"cat\":\"context\""), 0);
	assert_int_equal(count(f.text, "\"name\":\"CPU "), 0);
	free(f.text);
}

static void test_context(void **state)
{
	struct vmt_ctxev sw = { .cpu = 2, .type = VMT_CTX_SWITCH }, irq = { .cpu = 2 };
	struct vmt_ctxev nmi = { .cpu = 2, .type = VMT_CTX_NMI };
	struct feed f;

	(void)state;
	feed_start(&f);
	feed_exit(&f, 100, 2, 0, 50, 10);			/* task 100 exits: a vCPU task */
	/* 100 preempted by hog at 1000, back at 4000; an interrupt inside */
	sw.ts = 1000;
	sw.u.sw.prev_pid = 100;
	sw.u.sw.next_pid = 300;
	sw.u.sw.prev_runnable = true;
	strcpy(sw.u.sw.next_comm, "hog");
	feed_ctx(&f, &sw);
	irq.type = VMT_CTX_IRQ_ENTRY;
	irq.ts = 2000;
	irq.u.irq.id = 24;
	strcpy(irq.u.irq.name, "eth0");
	feed_ctx(&f, &irq);
	irq.type = VMT_CTX_IRQ_EXIT;
	irq.ts = 2100;
	irq.u.irq.name[0] = '\0';
	feed_ctx(&f, &irq);
	sw.ts = 4000;
	sw.u.sw.prev_pid = 300;
	sw.u.sw.next_pid = 100;
	feed_ctx(&f, &sw);
	/* a switch between two other tasks: nothing to draw */
	sw.ts = 5000;
	sw.u.sw.prev_pid = 300;
	sw.u.sw.next_pid = 301;
	feed_ctx(&f, &sw);
	sw.ts = 6000;
	feed_ctx(&f, &sw);
	/* 100 sleeps at 7000, worker runs until 9500 */
	sw.ts = 7000;
	sw.u.sw.prev_pid = 100;
	sw.u.sw.next_pid = 200;
	sw.u.sw.prev_runnable = false;
	strcpy(sw.u.sw.next_comm, "worker");
	feed_ctx(&f, &sw);
	sw.ts = 9500;
	sw.u.sw.prev_pid = 200;
	sw.u.sw.next_pid = 100;
	feed_ctx(&f, &sw);
	/* an NMI is stamped at its end with its length */
	nmi.ts = 12000;
	nmi.u.nmi.delta_ns = 300;
	feed_ctx(&f, &nmi);
	/* an exit of an interrupt never entered: nothing */
	irq.ts = 13000;
	feed_ctx(&f, &irq);
	feed_end(&f);
	assert_int_equal(count(f.text, "\"cat\":\"context\""), 4);
	assert_non_null(strstr(f.text, "{\"ph\":\"X\",\"cat\":\"context\",\"name\":\"preempted by hog\","
			       "\"pid\":1,\"tid\":2,\"ts\":1.000,\"dur\":3.000,\"args\":{"
			       "\"vcpu_task\":100,\"next_pid\":300,\"preempted\":true}}"));
	assert_non_null(strstr(f.text, "\"name\":\"irq 24 eth0\",\"pid\":1,\"tid\":2,"
			       "\"ts\":2.000,\"dur\":0.100}"));
	assert_non_null(strstr(f.text, "\"name\":\"worker (vCPU task asleep)\",\"pid\":1,"
			       "\"tid\":2,\"ts\":7.000,\"dur\":2.500,\"args\":{\"vcpu_task\":100,"
			       "\"next_pid\":200,\"preempted\":false}}"));
	assert_non_null(strstr(f.text, "\"name\":\"nmi\",\"pid\":1,\"tid\":2,\"ts\":11.700,"
			       "\"dur\":0.300}"));
	assert_int_equal(count(f.text, "\"name\":\"thread_name\",\"pid\":1,\"tid\":2,"
			       "\"args\":{\"name\":\"CPU 2\"}"), 1);
	free(f.text);
}

static void test_empty(void **state)
{
	struct feed f;

	(void)state;
	feed_start(&f);
	feed_end(&f);
	assert_int_equal(count(f.text, "\"ph\":\"X\""), 0);
	assert_int_equal(count(f.text, "process_name"), 2);
	assert_string_equal(f.text + strlen(f.text) - 3, "]}\n");
	free(f.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exits),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
