// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "command.h"
#include "container.h"
#include "context.h"
#include "liveopt.h"
#include "log.h"
#include "outfile.h"
#include "recopt.h"
#include "tracefs.h"
#include "vmfind.h"

#define DEFAULT_EVENTS REC_DEFAULT_BEGIN "," REC_DEFAULT_END

enum { OPT_CLEANUP = 256, OPT_POLL, OPT_CONTEXT, OPT_VM };	/* the others: liveopt.h */

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char args_doc[] = "[-- COMMAND [ARGS...]]";

static const char doc[] =
	"Record KVM exit/entry tracepoints (or any begin/end tracepoint pair) on the given "
	"CPUs into a compressed, self-describing .vmt file, then print the summary."
	"\v"
	"Examples:\n"
	"  vmtrace-record -p 2,3 -c 0 -s 10 -o run1.vmt  # pCPUs 2, 3 for 10 s\n"
	"  vmtrace-record -p 5 -c 1 -s 30    # the original vm-trace command line\n"
	"  vmtrace-record -p 4-7 -c 0        # until Ctrl-C or SIGTERM\n"
	"  vmtrace-record -p 1 -s 2 \\\n"
	"      -e raw_syscalls:sys_enter,raw_syscalls:sys_exit   # no KVM needed\n"
	"  vmtrace-record -p 2 --context none   # the pair only\n"
	"  vmtrace-record -p 2 --context default,sched:sched_wakeup,-nmi:nmi_handler\n"
	"  vmtrace-record -p 2-5 --live --no-output   # watch only, every second\n"
	"  vmtrace-record -p 2-5 --metrics vm.prom --interval 15s   # for Prometheus\n"
	"  vmtrace-record -p 2-5 --on-threshold 5ms --keep 10s   # 10 s up to a spike\n"
	"  vmtrace-record -p 2-5 --on-threshold 5ms --continue 10 -o spike.vmt\n"
	"      # up to 10 spikes, into spike-001.vmt, spike-002.vmt, ...\n"
	"  vmtrace-record -p 2 -o boot.vmt -- virsh start web1   # while a command runs\n"
	"  vmtrace-record --vm web1 -s 10    # VM web1's vCPU threads on their CPUs\n"
	"\n"
	"Context events (what explains a long exit: scheduler switches and wake-ups, hard and "
	"soft interrupts, x86 vector handlers, NMIs, KVM's user-space exits, KVM_RUN) are "
	"recorded by default on the traced CPUs; those this kernel lacks are skipped and named.\n"
	"\n"
	"TIME takes ns, us, ms, s, m (or min) or h (a bare number is seconds); SIZE takes K, M "
	"or G (a bare number is KiB). Needs root. An existing output file is kept as FILE.old. "
	"Exit status: 0 when the file is finished, 1 on an error, 64 for a bad command line.\n"
	"\n"
	"With -- COMMAND [ARGS], the recording starts, then COMMAND runs (on the recorder's "
	"terminal and CPUs) and the recording stops when it exits; the exit status is then the "
	"command's (128+N when signal N killed it, 127 when it cannot be found, 126 when it cannot "
	"be run), or 1 when the "
	"recording failed. A stop signal sent to the recorder is passed on to the command and "
	"the recording goes on until the command exits; a second one stops it at once.";

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to record:", 1 },
	{ "cpu", 'p', "LIST", 0, "CPUs to trace, e.g. 2 or 2,4-7 (required without --vm)", 1 },
	{ "vm", OPT_VM, "VM[,VM...]", 0, "only these VMs' vCPU threads: a libvirt name, a QEMU "
	  "-name or a VMM pid; their online CPUs are traced unless -p is given", 1 },
	{ "events", 'e', "BEGIN,END", 0, "tracepoint pair (default " DEFAULT_EVENTS ")", 1 },
	{ "duration", 's', "TIME", 0, "stop after TIME (default: at Ctrl-C or SIGTERM)", 1 },
	{ "context", OPT_CONTEXT, "LIST", 0, "context events besides the pair (default: default): "
	  "none, or in order default, SYS:EVENT (add), -SYS:EVENT (out; first: from default)", 1 },
	{ NULL, 0, NULL, 0, "How to record:", 2 },
	{ "collector-cpu", 'c', "CPU", 0,
	  "CPU for the collecting threads (default: the first CPU not traced)", 2 },
	{ "buffer-size", 'b', "SIZE", 0, "ring buffer per traced CPU (default 8M)", 2 },
	{ "clock", 'C', "NAME", 0, "trace clock (local, global, mono, x86-tsc, ...; default "
	  "local, what a new ftrace instance starts with)", 2 },
	{ "poll-interval", OPT_POLL, "TIME", 0, "how often the collector reads (default 10ms)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "output file (default " REC_DEFAULT_OUTPUT ")", 3 },
	{ "level", 'l', "N", 0, "zstd level, 1-19, 0 stores uncompressed (default 1)", 3 },
	{ "quiet", 'q', NULL, 0, "no progress and no summary", 3 },
	{ "live", REC_OPT_LIVE, "TIME", OPTION_ARG_OPTIONAL, "every TIME (default 1s) print exits/s, "
	  "out-of-guest %, p99 and max per vCPU and per exit reason of the last interval, "
	  "while recording (a table redrawn on a terminal, else one line per interval)", 3 },
	{ "no-output", REC_OPT_NO_OUTPUT, NULL, 0, "with --live or --metrics: only watch, "
	  "write no recording", 3 },
	{ "metrics", REC_OPT_METRICS, "FILE", 0, "while recording, rewrite FILE atomically every "
	  "--interval with the metrics so far (Prometheus text, for node_exporter's textfile "
	  "collector)", 3 },
	{ "interval", REC_OPT_INTERVAL, "TIME", 0, "how often --metrics rewrites FILE (default 10s)", 3 },
	{ "label", REC_OPT_LABEL, "NAME=VALUE", 0, "with --metrics: add this label to every sample "
	  "(repeatable), e.g. to tell apart two recorders of one host", 3 },
	{ "on-threshold", REC_OPT_THRESHOLD, "TIME", 0, "flight recorder: keep only the last --keep "
	  "in memory; when an exit lasts TIME or more, write that and --after past it, then "
	  "stop", 3 },
	{ "keep", REC_OPT_KEEP, "TIME", 0, "with --on-threshold: what to keep before the exit "
	  "(default 10s)", 3 },
	{ "after", REC_OPT_AFTER, "TIME", 0, "with --on-threshold: what to write after the exit "
	  "(default 1s)", 3 },
	{ "continue", REC_OPT_CONTINUE, "N", 0, "with --on-threshold: go on after a trigger, each "
	  "into a new numbered file (FILE-001.vmt, ...), and stop after N", 3 },
	{ "trigger-reason", REC_OPT_TRIGGER_REASON, "LIST", 0, "with --on-threshold: only exits "
	  "of these reasons trigger, or with -NAME items (-hlt) all but those", 3 },
	{ "ring-size", REC_OPT_RING_SIZE, "SIZE", 0, "with --on-threshold: hold at most SIZE of "
	  "pages in memory, the oldest go first beyond it (default 512M)", 3 },
	{ NULL, 0, NULL, 0, "Maintenance:", 4 },
	{ "cleanup", OPT_CLEANUP, NULL, 0,
	  "only remove ftrace instances left by recorders that died, then exit (no other "
	  "option)", 4 },
	{ 0 }
};

static void parse_events(struct argp_state *state, struct record_opts *o, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char tmp[PATH_MAX];

	if (!comma || strchr(comma + 1, ','))
		argp_error(state, "--events takes BEGIN,END, e.g. " DEFAULT_EVENTS);
	free(o->begin);
	free(o->end);
	o->begin = strndup(arg, (size_t)(comma - arg));
	o->end = strdup(comma + 1);
	if (!o->begin || !o->end)
		argp_failure(state, 1, ENOMEM, "options");
	if (vmt_tracefs_event_path(o->begin, NULL, tmp, sizeof(tmp)) ||
	    vmt_tracefs_event_path(o->end, NULL, tmp, sizeof(tmp)) ||
	    strcmp(o->begin, o->end) == 0)
		argp_error(state, "invalid event pair '%s' (expected two different "
			   "system:event names)", arg);
	/* every figure would call each vCPU's time in the guest time out of it */
	if (strcmp(arg, REC_DEFAULT_END "," REC_DEFAULT_BEGIN) == 0)
		argp_error(state, "-e %s measures the time in the guest (from each entry to "
			   "the next exit); the out-of-guest pair is " DEFAULT_EVENTS, arg);
}

/*
 * --cleanup removes the instances of recorders that died and uses nothing else of the
 * command line: an option given with it would be ignored without a word (-p 1 cleans up
 * every CPU's), so it is refused, as conflicting options are.
 */
static void check_cleanup(struct argp_state *state, const struct record_opts *o)
{
	const struct argp_option *opt;

	if (!o->cleanup_only || !o->other_key)
		return;
	for (opt = options; opt->name || opt->doc; opt++)
		if (opt->name && opt->key == o->other_key)
			break;
	if (o->other_key < 256)
		argp_error(state, "--cleanup takes no other option: not with -%c (--%s)",
			   o->other_key, opt->name);
	argp_error(state, "--cleanup takes no other option: not with --%s", opt->name);
}

static void check_command(struct argp_state *state, const struct record_opts *o)
{
	if (!o->command)
		return;
	if (!o->command[0])
		argp_error(state, "no command after --");
	if (o->duration_ns)
		argp_error(state, "-s and a command exclude each other: the command's end stops "
			   "the recording");
	if (o->cleanup_only)
		argp_error(state, "--cleanup runs no command");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	if (key > 0 && key < 0x1000 && key != OPT_CLEANUP && !o->other_key)
		o->other_key = key;	/* an option of ours (argp's own keys are above) */
	switch (key) {
	case 'p':
		vmt_cpulist_free(&o->cpus);
		if (vmt_cli_parse_cpulist(arg, &o->cpus))
			argp_error(state, "invalid CPU list '%s' (expected e.g. 2 or 2,4-7)", arg);
		break;
	case 'c':
		if (vmt_cli_parse_u64(arg, &v) || v >= VMT_CLI_MAX_CPUS)
			argp_error(state, "invalid collector CPU '%s'", arg);
		o->collector = (int)v;
		break;
	case 's':
		if (vmt_cli_parse_duration_ns(arg, &v) || v == 0)
			argp_error(state, "invalid duration '%s' (expected e.g. 10, 500ms, 2m)",
				   arg);
		o->duration_ns = v;
		break;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		o->output = arg;
		break;
	case 'b':
		if (vmt_cli_parse_size(arg, 1024, &v) || v < 4096 || v > (64ULL << 30))
			argp_error(state, "invalid buffer size '%s' (expected 4K to 64G)", arg);
		o->buffer_bytes = v;
		break;
	case 'e':
		parse_events(state, o, arg);
		break;
	case 'C':
		if (!*arg || strchr(arg, '/') || strlen(arg) > 32)
			argp_error(state, "invalid clock name '%s'", arg);
		o->clock = arg;
		break;
	case 'l':
		if (vmt_cli_parse_u64(arg, &v) || v > 19)
			argp_error(state, "invalid zstd level '%s' (0-19)", arg);
		o->level = (int)v;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case OPT_CLEANUP:
		o->cleanup_only = 1;
		break;
	case OPT_CONTEXT: {
		char why[256];

		if (rec_context_check(arg, why, sizeof(why)))
			argp_error(state, "invalid --context: %s", why[0] ? why : "out of memory");
		o->context = arg;
		break;
	}
	case OPT_VM: {
		char why[160];

		/* its form here, as every option's; whether the VMs exist once /proc is read */
		if (!*arg)
			argp_error(state, "empty --vm");
		if (vmt_vmfind_check_specs(arg, why, sizeof(why)))
			argp_error(state, "--vm: %s", why);
		/* the second would silently replace the first */
		if (o->vm)
			argp_error(state, "--vm given twice: name the VMs in one list (--vm %s,%s)",
				   o->vm, arg);
		o->vm = arg;
		break;
	}
	case OPT_POLL:
		if (vmt_cli_parse_duration_ns(arg, &v) || v < 100000 || v > 1000000000ULL)
			argp_error(state, "invalid poll interval '%s' (100us to 1s)", arg);
		o->poll_ns = v;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s' (a command to run goes after --)",
			   arg);
		break;
	case REC_OPT_LIVE:
	case REC_OPT_NO_OUTPUT:
	case REC_OPT_METRICS:
	case REC_OPT_INTERVAL:
	case REC_OPT_THRESHOLD:
	case REC_OPT_KEEP:
	case REC_OPT_AFTER:
	case REC_OPT_CONTINUE:
	case REC_OPT_RING_SIZE:
	case REC_OPT_LABEL:
	case REC_OPT_TRIGGER_REASON:
		rec_liveopt_parse(state, o, key, arg);
		break;
	case ARGP_KEY_END:
		if (!o->cleanup_only && !o->cpus.n && !o->vm)
			argp_error(state, "no CPU to trace: give -p LIST or --vm VM");
		check_cleanup(state, o);
		check_command(state, o);
		rec_liveopt_parse(state, o, key, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int rec_opts_parse(int argc, char **argv, struct record_opts *o)
{
	struct argp_child children[] = {
		{ &vmt_cmdline_argp, 0, NULL, 0 },
		{ 0 }
	};
	struct argp argp = { options, parse_opt, args_doc, doc, children, NULL, NULL };
	char msg[160];
	int i, len = 0;

	memset(o, 0, sizeof(*o));
	o->collector = -1;
	o->output = REC_DEFAULT_OUTPUT;
	o->buffer_bytes = REC_DEFAULT_BUFFER_KB * 1024ULL;
	o->level = VMT_DEFAULT_LEVEL;
	o->poll_ns = REC_DEFAULT_POLL_NS;
	for (i = 0; i < argc && len < (int)sizeof(o->cmdline) - 1; i++)
		len += snprintf(o->cmdline + len, sizeof(o->cmdline) - (size_t)len, "%s%s",
				i ? " " : "", argv[i]);
	argc = rec_command_split(argc, argv, &o->command);
	vmt_cmdline_parse(&argp, argc, argv, o);
	/* the pages would garble the terminal and be lost: said before anything is traced */
	if (vmt_outfile_binary_on_tty(o->output, ".vmt", msg, sizeof(msg))) {
		vmt_err("%s", msg);
		exit(64);
	}
	vmt_log_set_quiet(o->quiet);
	if (!o->begin) {
		o->begin = strdup(REC_DEFAULT_BEGIN);
		o->end = strdup(REC_DEFAULT_END);
		if (!o->begin || !o->end)
			return -ENOMEM;
	}
	return 0;
}

void rec_opts_free(struct record_opts *o)
{
	vmt_cpulist_free(&o->cpus);
	free(o->begin);
	free(o->end);
	o->begin = o->end = NULL;
	rec_trigsel_free(o->trigsel);
	o->trigsel = NULL;
}
