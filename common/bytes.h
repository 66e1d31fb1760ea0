/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytes: fixed-width little-endian loads and stores for on-disk and ring-buffer bytes.
 * Every access goes through memcpy, so unaligned input is never dereferenced as a wider
 * type. Header-only, no state, thread-safe.
 */
#ifndef VMT_BYTES_H
#define VMT_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t get_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)get_le32(b) | (uint64_t)get_le32(b + 4) << 32;
}

static inline void put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void put_le64(void *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

/* Little-endian unsigned load of 1, 2, 4 or 8 bytes (a tracepoint field); 0 otherwise. */
static inline uint64_t get_le_n(const void *p, unsigned int size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return get_le16(p);
	case 4:
		return get_le32(p);
	case 8:
		return get_le64(p);
	default:
		return 0;
	}
}

#endif
