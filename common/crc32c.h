/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc32c: the Castagnoli CRC (iSCSI, ext4, btrfs) protecting container headers and chunk
 * payloads. The table is built once on first use (thread-safe through pthread_once); on
 * x86-64 with SSE4.2 the crc32 instruction does the work.
 */
#ifndef VMT_CRC32C_H
#define VMT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc of buf, continuing from crc (start with 0); the CPU's crc32 instruction when it has one. */
uint32_t vmt_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same with tables only (every CPU; tests compare the two). */
uint32_t vmt_crc32c_portable(uint32_t crc, const void *buf, size_t len);

#endif
