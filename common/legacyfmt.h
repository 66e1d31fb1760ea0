/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * legacyfmt: the on-disk layout of the original vm-trace's trace.bin, for its loader
 * (source_legacy.c) and for vmtrace-convert's trace.bin writer: <4 bytes> signature
 * 0xcce96d01, <2 bytes> kvm_entry id, <2 bytes> kvm_exit id, then 4 KiB pages of one CPU.
 * Header-only constants.
 */
#ifndef VMT_LEGACYFMT_H
#define VMT_LEGACYFMT_H

#define VMT_LEGACY_SIGNATURE	0xcce96d01u
#define VMT_LEGACY_HEADER_SIZE	8
#define VMT_LEGACY_PAGE_SIZE	4096

#endif
