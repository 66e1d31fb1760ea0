// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "liveopt.h"
#include "log.h"
#include "outfile.h"
#include "output.h"
#include "tclock.h"

/*
 * --live[=TIME], --no-output, --metrics, --interval, --on-threshold, --keep, --after,
 * --continue, --ring-size, --trigger-reason, --label, and what they need from the other options at the end.
 */
void rec_liveopt_parse(struct argp_state *state, struct record_opts *o, int key, const char *arg)
{
	uint64_t v = REC_DEFAULT_LIVE_NS;
	char msg[PATH_MAX + 160];
	struct stat st;

	switch (key) {
	case REC_OPT_LIVE:
		if (arg && (vmt_cli_parse_duration_ns(arg, &v) || v < 10000000ULL ||
			    v > 3600000000000ULL))
			argp_error(state, "invalid --live interval '%s' (10ms to 1h)", arg);
		o->live_ns = v;
		break;
	case REC_OPT_NO_OUTPUT:
		o->no_output = 1;
		break;
	case REC_OPT_METRICS:
		if (!*arg)
			argp_error(state, "empty --metrics file name");
		o->metrics = arg;
		break;
	case REC_OPT_LABEL:
		if (vmt_openmetrics_extra_add(o->labels, &o->nlabels, arg, msg, sizeof(msg)))
			argp_error(state, "--label %s", msg);
		break;
	case REC_OPT_INTERVAL:
		if (vmt_cli_parse_duration_ns(arg, &v) || v < 1000000000ULL || v > 3600000000000ULL)
			argp_error(state, "invalid --interval '%s' (1s to 1h)", arg);
		o->metrics_interval_ns = v;
		break;
	case REC_OPT_THRESHOLD:
	case REC_OPT_KEEP:
	case REC_OPT_AFTER:
		if (vmt_cli_parse_duration_ns(arg, &v) || v > 3600000000000ULL || v == 0)
			argp_error(state, "invalid --%s '%s' (1ns to 1h)", key == REC_OPT_THRESHOLD ?
				   "on-threshold" : key == REC_OPT_KEEP ? "keep" : "after", arg);
		*(key == REC_OPT_THRESHOLD ? &o->threshold_ns : key == REC_OPT_KEEP ? &o->keep_ns :
		  &o->after_ns) = v;
		break;
	case REC_OPT_CONTINUE:
		if (vmt_cli_parse_u64(arg, &v) || v == 0 || v > 99999)
			argp_error(state, "invalid --continue '%s' (1 to 99999 files)", arg);
		o->continue_n = (unsigned int)v;
		break;
	case REC_OPT_RING_SIZE:
		if (vmt_cli_parse_size(arg, 1024, &v) || v < (1u << 20) || v > (64ULL << 30))
			argp_error(state, "invalid --ring-size '%s' (1M to 64G)", arg);
		o->ring_bytes = v;
		break;
	case REC_OPT_TRIGGER_REASON:
		o->trigger_reasons = rec_trigsel_check_list(state, arg);
		break;
	case ARGP_KEY_END:
		if ((o->keep_ns || o->after_ns || o->continue_n || o->ring_bytes ||
		     o->trigger_reasons) && !o->threshold_ns)
			argp_error(state, "--keep, --after, --continue, --ring-size and "
				   "--trigger-reason need --on-threshold TIME");
		if (o->continue_n && !stat(o->output, &st) && S_ISDIR(st.st_mode))
			argp_error(state, "--continue: -o %s is a directory", o->output);
		/* /dev/stdout too: written through the descriptor (outfile.h), no names to number */
		if (o->continue_n && (o->no_output || strcmp(o->output, "-") == 0 ||
				      (!stat(o->output, &st) && !S_ISREG(st.st_mode)) ||
				      vmt_outfile_tmp_name(o->output, msg, sizeof(msg)) == 1))
			argp_error(state, "--continue writes numbered files: not with -o -, a "
				   "device or --no-output");
		o->ring_bytes = o->ring_bytes ? o->ring_bytes : REC_DEFAULT_RING_BYTES;
		o->keep_ns = o->keep_ns ? o->keep_ns : REC_DEFAULT_KEEP_NS;
		o->after_ns = o->after_ns ? o->after_ns : REC_DEFAULT_AFTER_NS;
		if (o->metrics_interval_ns && !o->metrics)
			argp_error(state, "--interval needs --metrics FILE");
		if (o->nlabels && !o->metrics)
			argp_error(state, "--label needs --metrics FILE");
		o->metrics_interval_ns = o->metrics_interval_ns ? o->metrics_interval_ns :
					 REC_DEFAULT_METRICS_NS;
		if (o->no_output && !o->live_ns && !o->metrics)
			argp_error(state, "--no-output needs --live or --metrics (there would be "
				   "nothing to see)");
		if (o->no_output && strcmp(o->output, REC_DEFAULT_OUTPUT) != 0)
			argp_error(state, "--no-output and -o together");
		if (o->metrics && !o->no_output && (strcmp(o->metrics, o->output) == 0 ||
						    vmt_outfile_same_output(o->metrics, o->output) == 1))
			argp_error(state, "--metrics %s is the recording's output (-o)", o->metrics);
		if (o->live_ns && strcmp(o->output, "-") == 0)
			argp_error(state, "--live prints on standard output: not with -o -");
		if (rec_output_stdout_clash(o->no_output ? NULL : o->output, o->metrics,
					    o->live_ns != 0, o->quiet != 0, msg, sizeof(msg))) {
			vmt_err("%s", msg);
			exit(64);
		}
		/* The live figures are in ns while recording: a counter clock's rate is known
		 * only at the end. */
		if ((o->live_ns || o->metrics || o->threshold_ns) && o->clock &&
		    !vmt_clock_is_ns(o->clock))
			argp_error(state, "--%s needs a nanosecond trace clock (local, global, "
				   "mono, ...), not '%s'", o->live_ns ? "live" : o->metrics ?
				   "metrics" : "on-threshold", o->clock);
		if (o->no_output) {
			/* the pages still flow through the writer, stored, to nowhere */
			o->output = "/dev/null";
			o->level = 0;
		}
		break;
	}
}
