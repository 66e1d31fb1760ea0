/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmtpool: text output formatted on other cores and written in order. One producer thread
 * fills batches of fixed-size binary records in output order; worker threads format whole
 * batches into text, and whichever finishes the oldest batch writes it (and the finished
 * ones after it) to the fd, so the bytes are those of formatting every record in turn on
 * one thread. A bounded ring of batches: memory does not grow with the output. The pool
 * belongs to the producer thread; each worker, and the producer, has its own context.
 */
#ifndef VMT_FMTPOOL_H
#define VMT_FMTPOOL_H

#include <stddef.h>

/*
 * Format n records (rec_size bytes apart) into out, which has n * row_max bytes of room;
 * returns the bytes written. Called on a worker thread with that worker's context.
 */
typedef size_t (*vmt_fmtpool_fn)(void *wctx, const void *recs, size_t n, char *out);

/* Records per batch. */
#define VMT_FMTPOOL_BATCH 1024u
/* Workers at most. */
#define VMT_FMTPOOL_MAX_WORKERS 4u

struct vmt_fmtpool;

/*
 * How many workers are worth starting: half the CPUs this thread may run on (its affinity,
 * so taskset counts), at most VMT_FMTPOOL_MAX_WORKERS; 0 (format on the producer thread)
 * with one CPU or VMTRACE_NO_THREADS set, as for decompression (readahead.h).
 */
unsigned int vmt_fmtpool_auto_workers(void);

/*
 * Start nworkers (>= 1) threads, wctx[i] the context of worker i; wctx[nworkers] is the
 * producer's own, for the batches it formats itself when every place is taken and no
 * worker has started the oldest (rather than sleep). Returns 0, -ENOMEM, or the -errno of
 * pthread_create.
 */
int vmt_fmtpool_new(int fd, size_t rec_size, size_t row_max, unsigned int nworkers,
		    vmt_fmtpool_fn fn, void *const *wctx, struct vmt_fmtpool **out);
/* Room for the first batch's VMT_FMTPOOL_BATCH records. */
void *vmt_fmtpool_records(struct vmt_fmtpool *p);
/*
 * Hand the current batch's first n records over, and get room for the next batch (waits
 * while every batch is still being formatted or written). Returns 0 or the first write
 * error (-errno, sticky: later batches are formatted but not written).
 */
int vmt_fmtpool_submit(struct vmt_fmtpool *p, size_t n, void **next);
/*
 * Hand the last n records over, wait until everything is written, stop the workers and
 * free the pool. Returns 0 or the first write error. NULL is a no-op.
 */
int vmt_fmtpool_finish(struct vmt_fmtpool *p, size_t n);

#endif
