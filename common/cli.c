// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int vmt_cli_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Split "<decimal><unit>" and scale by the unit's factor; the number may have a fraction
 * ("1.5s"). Integers are parsed exactly; fractions go through long double, which is exact
 * to well below a nanosecond for any sane duration.
 */
static int parse_scaled(const char *s, const char *const *units, const uint64_t *factors,
			unsigned int nunits, uint64_t default_factor, uint64_t *out)
{
	const char *p = s;
	uint64_t factor = default_factor;
	unsigned long long ip;
	long double v;
	char *end;
	unsigned int i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	ip = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	v = (long double)ip;
	if (*end == '.') {
		long double frac = 0, scale = 1;

		for (p = end + 1; isdigit((unsigned char)*p); p++) {
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
		if (p == end + 1)
			return -EINVAL;
		v += frac / scale;
		end = (char *)p;
	}
	if (*end != '\0') {
		for (i = 0; i < nunits; i++) {
			if (strcmp(end, units[i]) == 0)
				break;
		}
		if (i == nunits)
			return -EINVAL;
		factor = factors[i];
	}
	if (v * factor > (long double)UINT64_MAX)
		return -ERANGE;
	if (v == (long double)ip && (factor == 0 || ip <= UINT64_MAX / factor))
		*out = (uint64_t)ip * factor;
	else
		*out = (uint64_t)llroundl(v * factor);
	return 0;
}

int vmt_cli_parse_duration_ns(const char *s, uint64_t *out_ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "min", "h" };
	static const uint64_t factors[] = { 1, 1000, 1000000, 1000000000ULL, 60000000000ULL,
					    60000000000ULL, 3600000000000ULL };

	return parse_scaled(s, units, factors, 7, 1000000000ULL, out_ns);
}

int vmt_cli_parse_size(const char *s, uint64_t default_unit, uint64_t *out_bytes)
{
	static const char *const units[] = { "B", "K", "KB", "KiB", "k", "M", "MB", "MiB",
					     "G", "GB", "GiB" };
	static const uint64_t factors[] = { 1, 1ULL << 10, 1ULL << 10, 1ULL << 10, 1ULL << 10,
					    1ULL << 20, 1ULL << 20, 1ULL << 20, 1ULL << 30,
					    1ULL << 30, 1ULL << 30 };

	return parse_scaled(s, units, factors, 11, default_unit, out_bytes);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static int parse_cpu(const char *s, const char **end, unsigned int max, unsigned int *cpu)
{
	unsigned long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno == ERANGE || v >= max)
		return -ERANGE;
	*cpu = (unsigned int)v;
	*end = e;
	return 0;
}

int vmt_cli_parse_cpulist(const char *s, struct vmt_cpulist *out)
{
	return vmt_cli_parse_idlist(s, VMT_CLI_MAX_CPUS, out);
}

int vmt_cli_parse_idlist(const char *s, unsigned int max, struct vmt_cpulist *out)
{
	unsigned int *cpus = NULL, n = 0, cap = 0, i, j;
	const char *p = s;
	int ret;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		unsigned int lo, hi;

		ret = parse_cpu(p, &p, max, &lo);
		if (ret)
			goto out_free;
		hi = lo;
		if (*p == '-') {
			ret = parse_cpu(p + 1, &p, max, &hi);
			if (ret)
				goto out_free;
			if (hi < lo) {
				ret = -EINVAL;
				goto out_free;
			}
		}
		if (*p == ',') {
			p++;
			if (!*p) {
				ret = -EINVAL;
				goto out_free;
			}
		} else if (*p) {
			ret = -EINVAL;
			goto out_free;
		}
		for (i = lo; i <= hi; i++) {
			if (n == cap) {
				unsigned int *bigger;

				cap = cap ? cap * 2 : 16;
				bigger = realloc(cpus, cap * sizeof(*cpus));
				if (!bigger) {
					ret = -ENOMEM;
					goto out_free;
				}
				cpus = bigger;
			}
			cpus[n++] = i;
		}
	}
	qsort(cpus, n, sizeof(*cpus), cmp_uint);
	for (i = 0, j = 0; i < n; i++) {
		if (j == 0 || cpus[j - 1] != cpus[i])
			cpus[j++] = cpus[i];
	}
	out->n = j;
	out->cpu = cpus;
	return 0;

out_free:
	free(cpus);
	return ret;
}

void vmt_cpulist_free(struct vmt_cpulist *l)
{
	free(l->cpu);
	l->cpu = NULL;
	l->n = 0;
}

int vmt_cpulist_has(const struct vmt_cpulist *l, unsigned int cpu)
{
	unsigned int lo = 0, hi = l->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (l->cpu[mid] == cpu)
			return 1;
		if (l->cpu[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

char *vmt_cpulist_format(const struct vmt_cpulist *l, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i = 0;

	if (size)
		buf[0] = '\0';
	while (i < l->n && len < size) {
		unsigned int j = i;
		int n;

		while (j + 1 < l->n && l->cpu[j + 1] == l->cpu[j] + 1)
			j++;
		if (j == i)
			n = snprintf(buf + len, size - len, "%s%u", len ? "," : "", l->cpu[i]);
		else
			n = snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", l->cpu[i],
				     l->cpu[j]);
		if (n < 0)
			break;
		len += (size_t)n;
		i = j + 1;
	}
	return buf;
}

char *vmt_format_ns(uint64_t ns, char *buf, size_t size)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	uint64_t scale = 1, whole;
	unsigned int u = 0, decimals;

	if (ns < 1000) {
		snprintf(buf, size, "%" PRIu64 " ns", ns);
		return buf;
	}
	while (ns / scale >= 1000 && u < 3) {
		scale *= 1000;
		u++;
	}
	/* four significant digits, cut (never rounded up: 999999 ns is 999.9 us, not 1000) */
	whole = ns / scale;
	if (whole >= 1000000) {
		/* 11.5 days or more, damaged timestamps: a mantissa, as short as "999999.9 s" */
		unsigned int e = 0;

		while (whole >= 10000) {
			whole /= 10;
			e++;
		}
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64 "e%u s", whole / 1000, whole % 1000,
			 e + 3);
		return buf;
	}
	decimals = whole >= 100 ? 1 : whole >= 10 ? 2 : 3;
	{
		uint64_t div = scale / (decimals == 1 ? 10 : decimals == 2 ? 100 : 1000);

		snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64 " %s", whole, (int)decimals,
			 (ns % scale) / (div ? div : 1), unit[u]);
	}
	return buf;
}
