// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "kv.h"

void vmt_kv_init(struct vmt_kvbuf *kb)
{
	memset(kb, 0, sizeof(*kb));
}

void vmt_kv_free(struct vmt_kvbuf *kb)
{
	free(kb->buf);
	vmt_kv_init(kb);
}

void vmt_kv_add(struct vmt_kvbuf *kb, const char *key, const void *val, size_t len)
{
	size_t klen = strlen(key), need;

	if (kb->error)
		return;
	if (klen == 0 || klen > VMT_KV_MAX_KEY || len > UINT32_MAX) {
		kb->error = -EINVAL;
		return;
	}
	need = kb->len + 8 + klen + len;
	if (need > kb->cap) {
		size_t cap = kb->cap ? kb->cap : 1024;
		uint8_t *bigger;

		while (cap < need)
			cap *= 2;
		bigger = realloc(kb->buf, cap);
		if (!bigger) {
			kb->error = -ENOMEM;
			return;
		}
		kb->buf = bigger;
		kb->cap = cap;
	}
	put_le32(kb->buf + kb->len, (uint32_t)klen);
	put_le32(kb->buf + kb->len + 4, (uint32_t)len);
	memcpy(kb->buf + kb->len + 8, key, klen);
	if (len)
		memcpy(kb->buf + kb->len + 8 + klen, val, len);
	kb->len = need;
}

void vmt_kv_add_str(struct vmt_kvbuf *kb, const char *key, const char *val)
{
	vmt_kv_add(kb, key, val, strlen(val));
}

void vmt_kv_addf(struct vmt_kvbuf *kb, const char *key, const char *fmt, ...)
{
	char small[256], *s = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		kb->error = kb->error ? kb->error : -EINVAL;
		return;
	}
	if ((size_t)n >= sizeof(small)) {
		s = malloc((size_t)n + 1);
		if (!s) {
			kb->error = kb->error ? kb->error : -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	vmt_kv_add(kb, key, s, (size_t)n);
	if (s != small)
		free(s);
}

int vmt_kv_next(const uint8_t *buf, size_t len, size_t *pos, struct vmt_kv *kv)
{
	size_t p = *pos;
	uint32_t klen, vlen;

	if (p == len)
		return 0;
	if (p > len || len - p < 8)
		return -EBADMSG;
	klen = get_le32(buf + p);
	vlen = get_le32(buf + p + 4);
	if (klen == 0 || klen > VMT_KV_MAX_KEY || len - p - 8 < klen ||
	    len - p - 8 - klen < vlen)
		return -EBADMSG;
	kv->key = (const char *)buf + p + 8;
	kv->key_len = klen;
	kv->val = buf + p + 8 + klen;
	kv->val_len = vlen;
	*pos = p + 8 + klen + vlen;
	return 1;
}

int vmt_kv_validate(const uint8_t *buf, size_t len)
{
	struct vmt_kv kv;
	size_t pos = 0;
	int ret;

	while ((ret = vmt_kv_next(buf, len, &pos, &kv)) > 0)
		;
	return ret;
}

const uint8_t *vmt_kv_get(const uint8_t *buf, size_t len, const char *key, uint32_t *val_len)
{
	size_t klen = strlen(key), pos = 0;
	struct vmt_kv kv;

	while (vmt_kv_next(buf, len, &pos, &kv) > 0) {
		if (kv.key_len == klen && memcmp(kv.key, key, klen) == 0) {
			*val_len = kv.val_len;
			return kv.val;
		}
	}
	return NULL;
}

char *vmt_kv_get_str(const uint8_t *buf, size_t len, const char *key)
{
	const uint8_t *v;
	uint32_t vlen;
	char *s;

	v = vmt_kv_get(buf, len, key, &vlen);
	if (!v)
		return NULL;
	s = malloc((size_t)vlen + 1);
	if (!s)
		return NULL;
	memcpy(s, v, vlen);
	s[vlen] = '\0';
	return s;
}

int vmt_kv_get_u64(const uint8_t *buf, size_t len, const char *key, uint64_t *out)
{
	const uint8_t *v;
	uint64_t n = 0;
	uint32_t vlen, i;

	v = vmt_kv_get(buf, len, key, &vlen);
	if (!v)
		return -ENOENT;
	if (vlen == 0 || vlen > 20)
		return -EBADMSG;
	for (i = 0; i < vlen; i++) {
		if (v[i] < '0' || v[i] > '9' || n > (UINT64_MAX - (v[i] - '0')) / 10)
			return -EBADMSG;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	*out = n;
	return 0;
}
