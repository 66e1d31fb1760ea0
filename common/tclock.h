/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tclock: a recording's trace clock and its unit. Nanosecond clocks (local, global, mono,
 * ...) convert as they are; x86-tsc converts with the rate the recorder measured, or with
 * trace-cmd's tsc2nsec (mult, shift) exactly as trace-cmd does. A struct vmt_clock is a
 * plain value, filled once by the reader and read-only afterwards (threads may share it).
 */
#ifndef VMT_TCLOCK_H
#define VMT_TCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct vmt_clock {
	double ns_per_tick;		/* 1 for ns clocks; 0 when the rate is unknown */
	uint32_t tsc_mult, tsc_shift;	/* trace.dat tsc2nsec (mult 0: not used) */
};

/* Whether a trace clock counts nanoseconds (local, global, mono, ...). */
bool vmt_clock_is_ns(const char *clock);
/* Whether a clock that is not ns ticks at a constant rate (x86-tsc): one that converts. */
bool vmt_clock_has_rate(const char *clock);

/* An interval of ticks in ns (ticks as they are when the rate is unknown). */
static inline uint64_t vmt_clock_ns(const struct vmt_clock *c, uint64_t ticks)
{
	if (c->ns_per_tick == 1.0 || c->ns_per_tick == 0)
		return ticks;
	if (c->tsc_mult)
		return (uint64_t)(((unsigned __int128)ticks * c->tsc_mult) >> c->tsc_shift);
	return (uint64_t)((double)ticks * c->ns_per_tick + 0.5);
}

/* The other way: ns as ticks (rounded), for options given in time units. */
static inline uint64_t vmt_clock_ticks(const struct vmt_clock *c, uint64_t ns)
{
	if (c->ns_per_tick > 0 && c->ns_per_tick != 1.0)
		return (uint64_t)((double)ns / c->ns_per_tick + 0.5);
	return ns;
}

/*
 * The fewest ticks that last at least ns (a window asked for in ns must not come out
 * shorter: 1 ms under tsc2nsec would otherwise be 999999 ns).
 */
static inline uint64_t vmt_clock_ticks_ceil(const struct vmt_clock *c, uint64_t ns)
{
	uint64_t t = vmt_clock_ticks(c, ns);

	if (c->ns_per_tick == 0 || c->ns_per_tick == 1.0)
		return ns;
	while (t && vmt_clock_ns(c, t - 1) >= ns)
		t--;
	while (vmt_clock_ns(c, t) < ns)
		t++;
	return t;
}

/* True when the clock's unit is nanoseconds or its rate is known. */
static inline bool vmt_clock_in_ns(const struct vmt_clock *c)
{
	return c->ns_per_tick != 0;
}

#endif
