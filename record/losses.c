// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "losses.h"

void rec_losses_sum(const struct rec_collector *col, struct rec_losses *l)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; col && i < rec_collector_ncpus(col); i++) {
		const struct rec_cpu_counts *c = rec_collector_counts(col, i);

		l->pages += c->pages;
		l->missed_pages += c->missed_pages;
		l->counted += c->missed_count;
		l->uncounted += c->missed_uncounted;
	}
}

/* The events the recorder left in the ring buffer, into buf ("" when none). */
static void unread_words(const struct rec_losses *l, char *buf, size_t size)
{
	const char *why = l->drain_cut ? "the final drain was cut short" :
			  "the final drain did not read them";

	buf[0] = '\0';
	if (l->drain_cut && !l->unread_known)
		snprintf(buf, size, "an unknown number left unread in the ring buffer (%s, its "
			 "statistics unreadable)", why);
	else if (l->unread)
		snprintf(buf, size, "%" PRIu64 " left unread in the ring buffer (%s)", l->unread,
			 why);
}

bool rec_losses_note(const struct rec_losses *l, char *buf, size_t size)
{
	static const char advice[] = "; try a larger --buffer-size or a shorter --poll-interval";
	const char *s = l->uncounted == 1 ? "" : "s";
	char also[96] = "", unread[160], tail[224];

	unread_words(l, unread, sizeof(unread));
	if (!l->stats && !l->counted && !l->uncounted) {
		if (!*unread)
			return false;
		snprintf(buf, size, "events were lost: %s", unread);
		return true;
	}
	/* what overwrote or dropped events, then what the recorder never read */
	snprintf(tail, sizeof(tail), "%s%s%s", *unread ? "; and " : "", unread, advice);
	if (l->stats || !l->uncounted) {
		/* statistics that saw losses counted those of the pages without a count too */
		if (l->uncounted)
			snprintf(also, sizeof(also), ", and %" PRIu64 " page%s flagged without a count",
				 l->uncounted, s);
		snprintf(buf, size, "events were lost: %" PRIu64 " (ring buffer stats), %" PRIu64
			 " (page flags%s)%s", l->stats, l->counted, also, tail);
	} else if (l->counted) {
		/* nobody counted what was lost before the pages without a count */
		snprintf(buf, size, "events were lost: %" PRIu64 " (page flags) and an unknown "
			 "number more, before %" PRIu64 " page%s flagged without a count%s",
			 l->counted, l->uncounted, s, tail);
	} else {
		snprintf(buf, size, "events were lost, how many is not known: %" PRIu64 " page%s "
			 "flagged without a count, none in the ring buffer stats%s", l->uncounted, s,
			 tail);
	}
	return true;
}
