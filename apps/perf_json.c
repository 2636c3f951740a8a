/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's JSON reading (perf_json.h) on jansson: a document is
 * parsed whole (result files may come from anywhere: jansson bounds every
 * read, and nesting), then figures are looked up by "a.b.c" paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_json.h"

static int parsed(struct perf_json *j, json_t *root, const json_error_t *e, char *err,
		  size_t errlen)
{
	json_decref(j->root);
	j->root = root;
	if (root != NULL)
		return 0;
	snprintf(err, errlen, "%s (line %d, column %d)", e->text, e->line, e->column);
	return -EINVAL;
}

int perf_json_parse(struct perf_json *j, const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t e;

	return parsed(j, json_loadb(text, len, JSON_REJECT_DUPLICATES, &e), &e, err, errlen);
}

int perf_json_load(struct perf_json *j, const char *file, char *err, size_t errlen)
{
	FILE *f = fopen(file, "r");
	json_error_t e;
	json_t *root;

	if (f == NULL)
		return -errno;
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
	fclose(f);
	return parsed(j, root, &e, err, errlen);
}

const json_t *perf_json_get(const struct perf_json *j, const char *path)
{
	const json_t *v = j->root;
	char key[PERF_JSON_PATH];
	const char *p = path;

	while (v != NULL && *p != '\0') {
		size_t n = strcspn(p, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		p += n + (p[n] == '.');
		if (json_is_object(v)) {
			v = json_object_get(v, key);
		} else if (json_is_array(v) && n > 0 && strspn(key, "0123456789") == n) {
			v = json_array_get(v, strtoul(key, NULL, 10));
		} else {
			return NULL;
		}
	}
	return v;
}

bool perf_json_num(const struct perf_json *j, const char *path, double *v)
{
	const json_t *x = perf_json_get(j, path);

	if (!json_is_number(x))
		return false;
	*v = json_number_value(x);
	return true;
}

const char *perf_json_str(const struct perf_json *j, const char *path)
{
	const json_t *x = perf_json_get(j, path);

	return json_is_string(x) ? json_string_value(x) : NULL;
}

bool perf_json_bool(const struct perf_json *j, const char *path, bool *v)
{
	const json_t *x = perf_json_get(j, path);

	if (!json_is_boolean(x))
		return false;
	*v = json_is_true(x);
	return true;
}
