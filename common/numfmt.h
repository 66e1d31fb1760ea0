/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numfmt: decimal and hexadecimal numbers written in place, for the row writers whose
 * work is mostly numbers. Each returns the end of what it wrote; the caller makes room
 * first (24 bytes: some write a fixed-size block past the number). No locale, no padding.
 */
#ifndef VMT_NUMFMT_H
#define VMT_NUMFMT_H

#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

static const char vmt_digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

#define VMT_NUMFMT_INLINE static inline __attribute__((always_inline))

/* The number of decimal digits of v (1 for 0). */
VMT_NUMFMT_INLINE unsigned int vmt_u64_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* log10 from the bit length (1233 / 4096 ~ log10(2)), then one correction */
	unsigned int t = ((64 - (unsigned int)__builtin_clzll(v | 1)) * 1233) >> 12;

	return v < 10 ? 1 : t + 1 - (v < pow10[t]);
}

/* v < 10^8, without leading zeros: 32-bit arithmetic, two digits a step. */
VMT_NUMFMT_INLINE char *vmt_put_u32_small(char *p, uint32_t v)
{
	char *end;

	/* CPU and vCPU numbers, flags: one digit, without counting digits first */
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	end = p + vmt_u64_digits(v);

	p = end;
	while (v >= 100) {
		uint32_t i = (v % 100) * 2;

		v /= 100;
		p -= 2;
		memcpy(p, vmt_digits2 + i, 2);
	}
	if (v >= 10)
		memcpy(p - 2, vmt_digits2 + v * 2, 2);
	else
		p[-1] = (char)('0' + v);
	return end;
}

/* Exactly eight digits, leading zeros kept: four independent pairs. */
VMT_NUMFMT_INLINE char *vmt_put_u32_8(char *p, uint32_t v)
{
	uint32_t a = v / 10000, b = v % 10000;

	memcpy(p, vmt_digits2 + (a / 100) * 2, 2);
	memcpy(p + 2, vmt_digits2 + (a % 100) * 2, 2);
	memcpy(p + 4, vmt_digits2 + (b / 100) * 2, 2);
	memcpy(p + 6, vmt_digits2 + (b % 100) * 2, 2);
	return p + 8;
}

/*
 * Decimal. Trace timestamps have 16 digits: blocks of eight in 32-bit arithmetic rather
 * than eight dependent 64-bit divisions.
 */
VMT_NUMFMT_INLINE char *vmt_put_u64(char *p, uint64_t v)
{
	uint64_t hi;

	if (v < 100000000)
		return vmt_put_u32_small(p, (uint32_t)v);
	if (v >= 10000000000000000ull) {
		p = vmt_put_u32_small(p, (uint32_t)(v / 10000000000000000ull));
		v %= 10000000000000000ull;
		hi = v / 100000000;
		p = vmt_put_u32_8(p, (uint32_t)hi);
	} else {
		hi = v / 100000000;
		p = vmt_put_u32_small(p, (uint32_t)hi);
	}
	return vmt_put_u32_8(p, (uint32_t)(v - hi * 100000000));
}

/*
 * For a column of increasing numbers (timestamps): the digits above the last eight
 * change rarely, so they are kept as text and copied while they stay the same.
 */
struct vmt_hicache {
	uint64_t hi;
	unsigned int len;	/* 0: empty */
	char text[24];
};

VMT_NUMFMT_INLINE char *vmt_put_u64_cached(char *p, uint64_t v, struct vmt_hicache *c)
{
	uint64_t hi;

	if (v < 100000000)
		return vmt_put_u32_small(p, (uint32_t)v);
	hi = v / 100000000;
	if (hi != c->hi || !c->len) {
		c->len = (unsigned int)(vmt_put_u64(c->text, hi) - c->text);
		c->hi = hi;
	}
	memcpy(p, c->text, 16);		/* fixed size: at most 12 digits, the room is there */
	p += c->len;
	return vmt_put_u32_8(p, (uint32_t)(v - hi * 100000000));
}

/* The two hex digits of each byte value. */
static const char vmt_hex2[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/*
 * Eight hex digits of v as ASCII, most significant first in memory: a pair of digits per
 * byte from a table (about half the instructions of spreading the nibbles arithmetically).
 */
VMT_NUMFMT_INLINE uint64_t vmt_hex8(uint32_t v)
{
	uint16_t d[4];

	memcpy(&d[0], vmt_hex2 + (v >> 24) * 2, 2);
	memcpy(&d[1], vmt_hex2 + (v >> 16 & 0xff) * 2, 2);
	memcpy(&d[2], vmt_hex2 + (v >> 8 & 0xff) * 2, 2);
	memcpy(&d[3], vmt_hex2 + (v & 0xff) * 2, 2);
	return (uint64_t)d[0] | (uint64_t)d[1] << 16 | (uint64_t)d[2] << 32 |
	       (uint64_t)d[3] << 48;
}

/*
 * 0x and lowercase hex digits, no leading zeros ("0x0" for 0). Writes up to 18 bytes
 * whatever the value (the caller's room), of which it returns the end of the number.
 * Portable form: the digit pairs from the table.
 */
VMT_NUMFMT_INLINE char *vmt_put_hex_portable(char *p, uint64_t v)
{
	unsigned int n = (64 - (unsigned int)__builtin_clzll(v | 1) + 3) / 4;
	uint64_t hi, lo;

	p[0] = '0';
	p[1] = 'x';
	if (n <= 8) {
		/* the common 32-bit fields: one half, shifted the same way */
		lo = vmt_hex8((uint32_t)v) >> (8 * (8 - n));
		memcpy(p + 2, &lo, 8);
		return p + 2 + n;
	}
	hi = vmt_hex8((uint32_t)(v >> 32));
	lo = vmt_hex8((uint32_t)v);
	/*
	 * The 16 digits in memory order as one little-endian 128-bit value; dropping the
	 * leading zeros is a shift in registers (through memory, the unaligned reload of
	 * two fresh 8-byte stores stalled on store forwarding).
	 */
	{
		unsigned __int128 all = ((unsigned __int128)lo << 64 | hi) >> (8 * (16 - n));

		memcpy(p + 2, &all, 16);	/* the n digits, then zeros */
	}
	return p + 2 + n;
}

#ifdef __x86_64__
/*
 * The same with SSE2 (every x86-64 has it): the leading zero digits shifted out first, the
 * bytes put most significant first, each byte split into its two nibbles side by side and
 * the sixteen nibbles made digits at once: a dozen instructions for any length, where the
 * table takes 40 for 32 bits and 60 for 64 (callgrind, five hex columns a CSV row).
 */
VMT_NUMFMT_INLINE char *vmt_put_hex(char *p, uint64_t v)
{
	unsigned int zeros = (unsigned int)__builtin_clzll(v | 1) & ~3u;
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v << zeros));
	__m128i low4 = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi64(x, 4), low4),
				      _mm_and_si128(x, low4));
	__m128i letters = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)),
					_mm_set1_epi8('a' - '0' - 10));

	p[0] = '0';
	p[1] = 'x';
	_mm_storeu_si128((__m128i *)(void *)(p + 2),
			 _mm_add_epi8(d, _mm_add_epi8(letters, _mm_set1_epi8('0'))));
	return p + 2 + 16 - zeros / 4;	/* the digits, then zeros */
}
#else
#define vmt_put_hex vmt_put_hex_portable
#endif

#endif
