/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagecut: the flight recorder's cuts of a chunk (one CPU's whole sub-buffers) at a time
 * of the trace clock: its leading pages before --keep, and its records after the end of
 * --after, down to the record (a page that crosses the time is split in two). Works in
 * place on the caller's chunks; no state, any thread (the ring calls it on the collector's).
 */
#ifndef REC_PAGECUT_H
#define REC_PAGECUT_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"
#include "sink.h"

/*
 * Drop c's leading pages whose records all come before cutoff (a page ends where the next
 * begins): a page's worth of records before cutoff may stay. False when nothing of c is
 * left (every record before cutoff).
 */
bool rec_pagecut_front(const struct vmt_header_page *hp, struct rec_chunk *c, uint64_t cutoff);
/*
 * Keep in c the records at or before limit: the page that crosses it ends before its first
 * later record (its commit lowered, a stored count of lost events moved after the new
 * end), the pages after it go. When rest is not NULL (an empty chunk of the same capacity)
 * the records after limit go there, in order: the crossing page's later ones on a page of
 * their own (its time stamp the last kept record's, so they decode to the same times),
 * then the later pages. Returns the pages left in c (0: every record is after limit; c is
 * then unchanged and rest empty: the caller takes c whole as the rest).
 */
uint32_t rec_pagecut_back(const struct vmt_header_page *hp, struct rec_chunk *c, uint64_t limit,
			  struct rec_chunk *rest);

#endif
