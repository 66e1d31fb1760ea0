/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io: whole-buffer read/write loops that retry on EINTR and short transfers, and a
 * bounded "slurp a small text file" helper for tracefs and /proc files, and the unlinked
 * temporary files of a copied pipe and of the report's lists.
 * Stateless and thread-safe; errors are returned as negative errno, nothing is printed.
 */
#ifndef VMT_IO_H
#define VMT_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Read up to len bytes, stopping early only at end of file. Returns bytes read or -errno. */
ssize_t vmt_io_read_full(int fd, void *buf, size_t len);
/* pread() variant of vmt_io_read_full(). */
ssize_t vmt_io_pread_full(int fd, void *buf, size_t len, off_t off);
/* Write all len bytes. Returns 0 or -errno (-ENOSPC for a full disk). */
int vmt_io_write_full(int fd, const void *buf, size_t len);
/*
 * Read a whole file of at most max_bytes into a NUL-terminated malloc'd buffer.
 * Returns 0 and sets *out / *len_out, or -errno (-EFBIG when larger than max_bytes).
 */
int vmt_io_read_file(const char *path, size_t max_bytes, char **out, size_t *len_out);
/* Write a short string to a control file (tracefs); returns 0 or -errno. */
int vmt_io_write_str(const char *path, const char *s);

/* The directory of temporary files: $TMPDIR, else /tmp. */
const char *vmt_io_tmpdir(void);
/*
 * An unlinked file for reading and writing in dir, gone when closed whatever happens
 * (O_TMPFILE, else a file named name.XXXXXX unlinked at once). Returns the fd or -errno.
 */
int vmt_io_tmpfile(const char *dir, const char *name);

#endif
