/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc32c: the Castagnoli CRC (iSCSI, ext4, btrfs) protecting container headers and chunk
 * payloads. The table is built once on first use (thread-safe through pthread_once).
 */
#ifndef VMT_CRC32C_H
#define VMT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc of buf, continuing from crc (start with 0). */
uint32_t vmt_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
