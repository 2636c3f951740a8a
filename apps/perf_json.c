/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The small JSON reader of rpcrdma-perf (perf_json.h): recursive descent
 * over the RFC 8259 grammar
 *
 *   value  = object / array / string / number / "true" / "false" / "null"
 *   object = "{" [ string ":" value *( "," string ":" value ) ] "}"
 *   array  = "[" [ value *( "," value ) ] "]"
 *
 * Every read is bounded by the end of the text; the result files it reads
 * may come from anywhere.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_json.h"

struct parser {
	const char *p, *end;
	struct perf_json *j;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->err && ps->errlen && ps->err[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* string = quotation-mark *char quotation-mark; decoded into out (cap bytes) */
static int parse_string(struct parser *ps, char *out, size_t cap)
{
	size_t n = 0;

	if (ps->p >= ps->end || *ps->p != '"')
		return fail(ps, "expected a string");
	ps->p++;
	while (ps->p < ps->end && *ps->p != '"') {
		char c = *ps->p++;

		if ((unsigned char)c < 0x20)
			return fail(ps, "control character in a string");
		if (c == '\\') {
			if (ps->p >= ps->end)
				break;
			c = *ps->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'u': {
				char hex[5] = { 0 };
				unsigned long u;
				char *e;

				if (ps->end - ps->p < 4)
					return fail(ps, "short \\u escape");
				memcpy(hex, ps->p, 4);
				u = strtoul(hex, &e, 16);
				if (*e != '\0')
					return fail(ps, "bad \\u escape");
				ps->p += 4;
				c = u < 0x80 && u >= 0x20 ? (char)u : '?';
				break;
			}
			default:
				return fail(ps, "bad escape \\%c", c);
			}
		}
		if (n + 1 >= cap)
			return fail(ps, "string longer than %zu bytes", cap - 1);
		out[n++] = c;
	}
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	ps->p++;
	out[n] = '\0';
	return 0;
}

static struct perf_json_value *new_value(struct parser *ps, const char *path)
{
	struct perf_json_value *v;

	if (ps->j->n >= PERF_JSON_VALUES) {
		fail(ps, "more than %d values", PERF_JSON_VALUES);
		return NULL;
	}
	v = &ps->j->v[ps->j->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", path);
	return v;
}

static int parse_value(struct parser *ps, const char *path);

static int child_path(struct parser *ps, char *out, const char *path, const char *key)
{
	int n = snprintf(out, PERF_JSON_PATH, "%s%s%s", path, path[0] ? "." : "", key);

	if (n < 0 || n >= PERF_JSON_PATH)
		return fail(ps, "key path longer than %d bytes", PERF_JSON_PATH - 1);
	return 0;
}

/*
 * object = "{" [ member *( "," member ) ] "}", member = string ":" value
 * array  = "[" [ value *( "," value ) ] "]"
 *
 * One loop for both: they differ only in what names an entry in its path,
 * a member's key or an element's index.
 */
static int parse_container(struct parser *ps, const char *path, bool object)
{
	char key[PERF_JSON_STR], sub[PERF_JSON_PATH];
	char close = object ? '}' : ']';
	unsigned int i;
	int ret;

	ps->p++; /* '{' or '[' */
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (i = 0;; i++) {
		if (object) {
			skip_ws(ps);
			ret = parse_string(ps, key, sizeof(key));
			if (ret)
				return ret;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':' after \"%s\"", key);
			ps->p++;
		} else {
			snprintf(key, sizeof(key), "%u", i);
		}
		ret = child_path(ps, sub, path, key);
		if (ret)
			return ret;
		ret = parse_value(ps, sub);
		if (ret)
			return ret;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		return fail(ps, "expected ',' or '%c' in an %s", close,
			    object ? "object" : "array");
	}
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

/* number = [ minus ] int [ frac ] [ exp ] */
static int parse_number(struct parser *ps, const char *path)
{
	char buf[64];
	size_t n = 0;
	struct perf_json_value *v;
	char *e;

	while (ps->p + n < ps->end && n < sizeof(buf) - 1 && strchr("+-0123456789.eE", ps->p[n]))
		n++;
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	if (n == 0 || buf[0] == '+')
		/* At most 10 bytes, and never past the end: the input has no NUL. */
		return fail(ps, "bad value at \"%.*s\"",
			    (int)(ps->end - ps->p < 10 ? ps->end - ps->p : 10), ps->p);
	v = new_value(ps, path);
	if (v == NULL)
		return -EINVAL;
	v->type = PERF_JSON_NUMBER;
	v->num = strtod(buf, &e);
	if (*e != '\0')
		return fail(ps, "bad number \"%s\"", buf);
	ps->p += n;
	return 0;
}

static int parse_value(struct parser *ps, const char *path)
{
	struct perf_json_value *v;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of the document");
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > PERF_JSON_DEPTH)
			return fail(ps, "nested deeper than %d", PERF_JSON_DEPTH);
		ret = parse_container(ps, path, *ps->p == '{');
		ps->depth--;
		return ret;
	case '"':
		v = new_value(ps, path);
		if (v == NULL)
			return -EINVAL;
		v->type = PERF_JSON_STRING;
		return parse_string(ps, v->str, sizeof(v->str));
	default:
		break;
	}
	if (literal(ps, "true") || literal(ps, "false")) {
		v = new_value(ps, path);
		if (v == NULL)
			return -EINVAL;
		v->type = PERF_JSON_BOOL;
		v->num = ps->p[-1] == 'e' && ps->p[-2] == 'u' ? 1 : 0;
		return 0;
	}
	if (literal(ps, "null")) {
		v = new_value(ps, path);
		return v == NULL ? -EINVAL : 0;
	}
	return parse_number(ps, path);
}

int perf_json_parse(struct perf_json *j, const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .end = text + len, .j = j, .err = err, .errlen = errlen };
	int ret;

	if (err && errlen)
		err[0] = '\0';
	j->n = 0;
	ret = parse_value(&ps, "");
	if (ret)
		return ret;
	skip_ws(&ps);
	if (ps.p != ps.end)
		return fail(&ps, "trailing characters after the document");
	return 0;
}

int perf_json_load(struct perf_json *j, const char *file, char *err, size_t errlen)
{
	FILE *f = fopen(file, "r");
	char *buf;
	size_t n;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (f == NULL)
		return -errno;
	buf = malloc(1u << 20);
	if (buf == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, 1u << 20, f);
	if (ferror(f)) {
		ret = -EIO;
	} else if (!feof(f)) {
		snprintf(err, errlen, "larger than 1 MiB");
		ret = -EINVAL;
	} else {
		ret = perf_json_parse(j, buf, n, err, errlen);
	}
	free(buf);
	fclose(f);
	return ret;
}

const struct perf_json_value *perf_json_get(const struct perf_json *j, const char *path)
{
	unsigned int i;

	for (i = 0; i < j->n; i++)
		if (strcmp(j->v[i].path, path) == 0)
			return &j->v[i];
	return NULL;
}

bool perf_json_num(const struct perf_json *j, const char *path, double *v)
{
	const struct perf_json_value *x = perf_json_get(j, path);

	if (x == NULL || x->type != PERF_JSON_NUMBER)
		return false;
	*v = x->num;
	return true;
}

const char *perf_json_str(const struct perf_json *j, const char *path)
{
	const struct perf_json_value *x = perf_json_get(j, path);

	return x != NULL && x->type == PERF_JSON_STRING ? x->str : NULL;
}
