/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv: the container's metadata encoding, a flat list of (key, value) byte strings:
 * <4 bytes> key length, <4 bytes> value length, key, value; repeated, little-endian.
 * A struct vmt_kvbuf is a growable buffer owned by its user; lookups work on any bytes
 * (untrusted input: every length is checked against what remains).
 */
#ifndef VMT_KV_H
#define VMT_KV_H

#include <stddef.h>
#include <stdint.h>

#define VMT_KV_MAX_KEY 256

struct vmt_kvbuf {
	uint8_t *buf;
	size_t len, cap;
	int error;		/* sticky: first -ENOMEM or -EINVAL, reported by the user once */
};

void vmt_kv_init(struct vmt_kvbuf *kb);
void vmt_kv_free(struct vmt_kvbuf *kb);
void vmt_kv_add(struct vmt_kvbuf *kb, const char *key, const void *val, size_t len);
void vmt_kv_add_str(struct vmt_kvbuf *kb, const char *key, const char *val);
void vmt_kv_addf(struct vmt_kvbuf *kb, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One entry, pointing into the encoded bytes. */
struct vmt_kv {
	const char *key;
	uint32_t key_len;
	const uint8_t *val;
	uint32_t val_len;
};

/*
 * Walk entries: *pos starts at 0. Returns 1 with *kv filled, 0 at the end, -EBADMSG when
 * an entry does not fit.
 */
int vmt_kv_next(const uint8_t *buf, size_t len, size_t *pos, struct vmt_kv *kv);
/* Check the whole encoding once; returns 0 or -EBADMSG. */
int vmt_kv_validate(const uint8_t *buf, size_t len);
/* First entry named key (of a validated buffer), or NULL. */
const uint8_t *vmt_kv_get(const uint8_t *buf, size_t len, const char *key, uint32_t *val_len);
/* The value as a malloc'd NUL-terminated string, or NULL (missing or no memory). */
char *vmt_kv_get_str(const uint8_t *buf, size_t len, const char *key);
/* The value parsed as an unsigned decimal number; returns 0 or -ENOENT / -EBADMSG. */
int vmt_kv_get_u64(const uint8_t *buf, size_t len, const char *key, uint64_t *out);

#endif
