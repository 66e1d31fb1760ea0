/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitreason: exit reason names. Read from the recording's own kvm_exit print format (its
 * __print_symbolic tables: VMX when "isa == 1", SVM otherwise, or one table for arm64's
 * esr_ec), else from the built-in VMX/SVM tables (exitreason_table.h), or for a system call
 * pair the x86-64 system calls (syscall_table.h); and a name given by the user resolved
 * against one ISA's table, with the other vendor's counterparts for the message when it
 * is the other ISA's. A table is built once and then read-only (safe to share between
 * threads).
 */
#ifndef VMT_EXITREASON_H
#define VMT_EXITREASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evformat.h"

#define VMT_ISA_ANY 0
#define VMT_ISA_VMX 1
#define VMT_ISA_SVM 2

struct vmt_exitreasons;

/*
 * Build the table for a begin event's format, recorded on a kernel of machine (uname -m,
 * or NULL when not known: a system call's names depend on it); never fails but for -ENOMEM.
 */
int vmt_exitreasons_new(const struct vmt_evformat *begin, const char *machine,
			struct vmt_exitreasons **out);
void vmt_exitreasons_free(struct vmt_exitreasons *t);
/*
 * Whose exits the messages name, e.g. "this host" (the recorder, before there is a
 * recording); "this recording" by default. whose must outlive t.
 */
void vmt_exitreasons_set_whose(struct vmt_exitreasons *t, const char *whose);
/* Whether the names came from the recording itself (else the built-in tables). */
bool vmt_exitreasons_from_recording(const struct vmt_exitreasons *t);
/*
 * The reason as counted: VMX keeps the basic reason (low 16 bits), others the whole code.
 * VMX: bits 16+ are flags (FAILED_VMENTRY, ...), the basic reason is below.
 */
static inline uint64_t vmt_exitreason_key(uint32_t isa, uint64_t reason)
{
	return isa == VMT_ISA_VMX ? reason & 0xffff : reason;
}
/* The name, or NULL when the table does not know the code. */
const char *vmt_exitreason_name(const struct vmt_exitreasons *t, uint32_t isa, uint64_t key);
/* "NAME(0xCODE)", or "0xCODE" when no table knows it (t may be NULL); into buf. */
const char *vmt_exitreason_label(const struct vmt_exitreasons *t, uint32_t isa, uint64_t key,
				 char *buf, size_t size);
/*
 * A system call pair recorded on a machine whose numbering is known (x86-64, and the
 * generic table of arm64, riscv64, loongarch64): whether key is exit or exit_group, the
 * calls that end their task and so never return.
 */
bool vmt_exitreasons_ends_task(const struct vmt_exitreasons *t, uint64_t key);
/* The bytes of the table's longest name (what a row of names must make room for). */
size_t vmt_exitreasons_longest(const struct vmt_exitreasons *t);
/* Whether the table has any name (a pair such as raw_syscalls has numbers only). */
bool vmt_exitreasons_empty(const struct vmt_exitreasons *t);
/* "Intel VMX", "AMD SVM", or "unknown ISA" for VMT_ISA_ANY. */
const char *vmt_exitreason_isa_name(uint32_t isa);
/*
 * A --reason name for a recording whose exits are of isa (VMT_ISA_ANY when not known):
 * the reasons of that ISA's table (and of tables for any ISA) spelled so, ignoring case.
 * Fills up to max (isa, key) pairs and returns how many (> 0). Else -EINVAL with msg
 * (size bytes): a name of the other ISA says so and names this ISA's counterpart
 * ("HLT is an Intel VMX exit reason; this recording is AMD SVM, whose name is hlt"); an
 * unknown name lists the names this ISA has. -ENOSPC when more than max match.
 */
int vmt_exitreason_resolve(const struct vmt_exitreasons *t, uint32_t isa, const char *name,
			   uint32_t *isas, uint64_t *keys, unsigned int max, char *msg,
			   size_t size);

#endif
