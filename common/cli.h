/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli: strict parsers for command-line numbers (end pointer and ERANGE checked), durations
 * with units, sizes with units and CPU lists, plus readable formatting of nanoseconds.
 * Stateless and thread-safe; parsers return 0 or -EINVAL / -ERANGE and never print.
 */
#ifndef VMT_CLI_H
#define VMT_CLI_H

#include <stddef.h>
#include <stdint.h>

/*
 * CPU numbers: Linux's largest NR_CPUS (x86-64's MAXSMP), for CPU lists and for the chunks
 * of a recording that does not list its CPUs (source_vmt.c).
 */
#define VMT_CLI_MAX_CPUS 8192
/*
 * vCPU ids: KVM_MAX_VCPU_IDS is 4096 * 4 on x86 (ids follow APIC ids, sparse on large
 * VMs), with room above; a list's numbers are held one by one, so the bound keeps it small.
 */
#define VMT_CLI_MAX_VCPUS 65536

int vmt_cli_parse_u64(const char *s, uint64_t *out);
/* "10" (seconds), "500ms", "250us", "100ns", "2m", "1h", "1.5s". */
int vmt_cli_parse_duration_ns(const char *s, uint64_t *out_ns);
/* "64M", "512K", "1G", "4096B"; a bare number is in default_unit bytes. */
int vmt_cli_parse_size(const char *s, uint64_t default_unit, uint64_t *out_bytes);

/* A sorted, duplicate-free list of CPU numbers parsed from "2", "2,4-7", "0-3,8". */
struct vmt_cpulist {
	unsigned int n;
	unsigned int *cpu;
};

int vmt_cli_parse_cpulist(const char *s, struct vmt_cpulist *out);
/* The same for numbers below max (a vCPU list: VMT_CLI_MAX_VCPUS). */
int vmt_cli_parse_idlist(const char *s, unsigned int max, struct vmt_cpulist *out);
void vmt_cpulist_free(struct vmt_cpulist *l);
int vmt_cpulist_has(const struct vmt_cpulist *l, unsigned int cpu);
/* Render as "2,4-7" into buf; returns buf. */
char *vmt_cpulist_format(const struct vmt_cpulist *l, char *buf, size_t size);

/* "1.234 us", "12.0 ms", "850 ns": three significant digits and a unit. */
char *vmt_format_ns(uint64_t ns, char *buf, size_t size);

#endif
