// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evformat.h"

/* One line of input at a time, without copying the whole text. */
struct cursor {
	const char *p, *end;
	unsigned int lineno;
};

static bool next_line(struct cursor *c, const char **line, size_t *len)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*line = c->p;
	*len = nl ? (size_t)(nl - c->p) : (size_t)(c->end - c->p);
	c->p = nl ? nl + 1 : c->end;
	c->lineno++;
	return true;
}

static char *dup_trim(const char *s, size_t len)
{
	char *out;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	out = malloc(len + 1);
	if (out) {
		memcpy(out, s, len);
		out[len] = '\0';
	}
	return out;
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

/* Find "key:<uint>;" inside a field line and parse the number strictly. */
static int get_attr(const char *line, size_t len, const char *key, uint32_t *out)
{
	size_t klen = strlen(key);
	const char *p = line, *end = line + len;

	while (p + klen < end) {
		if (memcmp(p, key, klen) == 0 && (p == line || p[-1] == '\t' || p[-1] == ' ' ||
						  p[-1] == ';')) {
			uint64_t v = 0;
			const char *q = p + klen;

			if (q >= end || !isdigit((unsigned char)*q))
				return -EBADMSG;
			while (q < end && isdigit((unsigned char)*q)) {
				v = v * 10 + (uint64_t)(*q - '0');
				if (v > UINT32_MAX)
					return -EBADMSG;
				q++;
			}
			if (q >= end || *q != ';')
				return -EBADMSG;
			*out = (uint32_t)v;
			return 0;
		}
		p++;
	}
	return -ENOENT;
}

/*
 * "field:unsigned int vcpu_id;" -> name "vcpu_id", type "unsigned int".
 * "field:unsigned long args[6];" -> name "args", array. "__data_loc char[] name" -> array.
 */
static int parse_decl(const char *decl, size_t len, struct vmt_evfield *f)
{
	size_t end = len, name_end, name_start;

	while (end && isspace((unsigned char)decl[end - 1]))
		end--;
	if (end && decl[end - 1] == ']') {
		while (end && decl[end - 1] != '[')
			end--;
		if (!end)
			return -EBADMSG;
		end--;
		f->is_array = true;
	}
	name_end = end;
	while (end && (isalnum((unsigned char)decl[end - 1]) || decl[end - 1] == '_'))
		end--;
	name_start = end;
	if (name_start == name_end || name_end - name_start > 128)
		return -EBADMSG;
	f->name = dup_trim(decl + name_start, name_end - name_start);
	f->type = dup_trim(decl, name_start);
	if (!f->name || !f->type)
		return -ENOMEM;
	if (!*f->type)
		return -EBADMSG;	/* "field:int;" is a type without a name */
	if (strstr(f->type, "__data_loc") || strchr(f->type, '['))
		f->is_array = true;
	return 0;
}

static int parse_field_line(const char *line, size_t len, struct vmt_evfield *f)
{
	const char *decl = line, *semi;
	uint32_t sgn = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	while (len && isspace((unsigned char)*decl)) {
		decl++;
		len--;
	}
	if (!starts_with(decl, len, "field:"))
		return -EBADMSG;
	decl += 6;
	len -= 6;
	semi = memchr(decl, ';', len);
	if (!semi)
		return -EBADMSG;
	ret = parse_decl(decl, (size_t)(semi - decl), f);
	if (ret)
		return ret;
	if (get_attr(semi, len - (size_t)(semi - decl), "offset:", &f->offset) ||
	    get_attr(semi, len - (size_t)(semi - decl), "size:", &f->size))
		return -EBADMSG;
	/* "signed:" is missing in very old kernels; treat as unsigned then. */
	ret = get_attr(semi, len - (size_t)(semi - decl), "signed:", &sgn);
	if (ret && ret != -ENOENT)
		return ret;
	f->is_signed = sgn != 0;
	if (f->size == 0 || f->offset >= VMT_EVFORMAT_MAX_RECORD ||
	    f->size > VMT_EVFORMAT_MAX_RECORD - f->offset)
		return -EBADMSG;
	return 0;
}

static void free_field(struct vmt_evfield *f)
{
	free(f->name);
	free(f->type);
}

void vmt_evformat_free(struct vmt_evformat *fmt)
{
	unsigned int i;

	if (!fmt)
		return;
	for (i = 0; i < fmt->nfields; i++)
		free_field(&fmt->fields[i]);
	free(fmt->fields);
	free(fmt->system);
	free(fmt->name);
	free(fmt->print_fmt);
	free(fmt);
}

int vmt_evformat_parse(const char *text, size_t len, const char *system,
		       struct vmt_evformat **out, unsigned int *errline)
{
	struct cursor c = { text, text + len, 0 };
	struct vmt_evformat *fmt;
	bool have_id = false, in_format = false;
	const char *line;
	size_t llen;
	int ret = -EBADMSG;

	fmt = calloc(1, sizeof(*fmt));
	if (!fmt)
		return -ENOMEM;
	if (system && !(fmt->system = strdup(system))) {
		ret = -ENOMEM;
		goto out_free;
	}
	while (next_line(&c, &line, &llen)) {
		if (starts_with(line, llen, "name:")) {
			if (fmt->name)
				goto out_free;
			fmt->name = dup_trim(line + 5, llen - 5);
			if (!fmt->name || !*fmt->name || strlen(fmt->name) > 256)
				goto out_free;
		} else if (starts_with(line, llen, "ID:")) {
			char *num = dup_trim(line + 3, llen - 3), *end;
			unsigned long v;

			if (!num) {
				ret = -ENOMEM;
				goto out_free;
			}
			errno = 0;
			v = strtoul(num, &end, 10);
			/* The record stores the id in the 16-bit common_type. */
			if (!isdigit((unsigned char)num[0]) || *end || errno || v > 0xffff || have_id) {
				free(num);
				goto out_free;
			}
			free(num);
			fmt->id = (uint32_t)v;
			have_id = true;
		} else if (starts_with(line, llen, "format:")) {
			in_format = true;
		} else if (starts_with(line, llen, "print fmt:")) {
			if (fmt->print_fmt)
				goto out_free;
			fmt->print_fmt = dup_trim(line + 10, llen - 10);
			if (!fmt->print_fmt) {
				ret = -ENOMEM;
				goto out_free;
			}
			in_format = false;
		} else if (in_format) {
			struct vmt_evfield f, *bigger;
			size_t k;

			for (k = 0; k < llen && isspace((unsigned char)line[k]); k++)
				;
			if (k == llen)
				continue;	/* the blank line between common and own fields */
			if (fmt->nfields >= VMT_EVFORMAT_MAX_FIELDS)
				goto out_free;
			ret = parse_field_line(line, llen, &f);
			if (ret) {
				free_field(&f);
				goto out_free;
			}
			ret = -EBADMSG;
			if (vmt_evformat_field(fmt, f.name)) {
				free_field(&f);
				goto out_free;
			}
			bigger = realloc(fmt->fields, (fmt->nfields + 1) * sizeof(*bigger));
			if (!bigger) {
				free_field(&f);
				ret = -ENOMEM;
				goto out_free;
			}
			fmt->fields = bigger;
			fmt->fields[fmt->nfields++] = f;
		}
	}
	if (!fmt->name || !have_id || fmt->nfields == 0) {
		c.lineno = 0;
		goto out_free;
	}
	*out = fmt;
	return 0;

out_free:
	if (errline)
		*errline = c.lineno;
	vmt_evformat_free(fmt);
	return ret;
}

const struct vmt_evfield *vmt_evformat_field(const struct vmt_evformat *fmt, const char *name)
{
	unsigned int i;

	for (i = 0; i < fmt->nfields; i++) {
		if (strcmp(fmt->fields[i].name, name) == 0)
			return &fmt->fields[i];
	}
	return NULL;
}

int vmt_header_page_parse(const char *text, size_t len, struct vmt_header_page *hp)
{
	struct cursor c = { text, text + len, 0 };
	bool have_ts = false, have_commit = false, have_data = false;
	uint32_t ts_size = 0;
	const char *line;
	size_t llen;

	memset(hp, 0, sizeof(*hp));
	while (next_line(&c, &line, &llen)) {
		struct vmt_evfield f;
		size_t k;
		int ret;

		for (k = 0; k < llen && isspace((unsigned char)line[k]); k++)
			;
		if (k == llen)
			continue;
		ret = parse_field_line(line, llen, &f);
		if (ret) {
			free_field(&f);
			return ret == -ENOMEM ? ret : -EBADMSG;
		}
		if (strcmp(f.name, "timestamp") == 0 && !have_ts) {
			hp->ts_offset = f.offset;
			ts_size = f.size;
			have_ts = true;
		} else if (strcmp(f.name, "commit") == 0 && !have_commit) {
			hp->commit_offset = f.offset;
			hp->commit_size = f.size;
			have_commit = true;
		} else if (strcmp(f.name, "data") == 0 && !have_data) {
			hp->data_offset = f.offset;
			hp->data_size = f.size;
			have_data = true;
		} else if (strcmp(f.name, "overwrite") != 0) {
			free_field(&f);
			return -EBADMSG;	/* unknown or duplicate field */
		}
		free_field(&f);
	}
	if (!have_ts || !have_commit || !have_data || ts_size != 8 ||
	    (hp->commit_size != 4 && hp->commit_size != 8) ||
	    hp->ts_offset + 8 > hp->data_offset ||
	    hp->commit_offset + hp->commit_size > hp->data_offset ||
	    hp->data_size < 8 || hp->data_size > VMT_HEADER_PAGE_MAX_SUBBUF - hp->data_offset ||
	    hp->data_size > (1u << 27))
		return -EBADMSG;
	return 0;
}

void vmt_header_page_default(struct vmt_header_page *hp)
{
	hp->ts_offset = 0;
	hp->commit_offset = 8;
	hp->commit_size = 8;
	hp->data_offset = 16;
	hp->data_size = 4080;
}
