/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small JSON reader for rpcrdma-perf --compare and --summary: it parses a
 * whole document (RFC 8259; nesting at most PERF_JSON_DEPTH) and flattens
 * its scalars into "a.b.c" paths (array elements as "a.0"), so a result
 * file's figures are looked up by name. Strings are kept with their escapes
 * decoded for the ASCII range; other \u escapes become '?'.
 */
#ifndef PERF_JSON_H
#define PERF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define PERF_JSON_DEPTH	 16
#define PERF_JSON_PATH	 128
#define PERF_JSON_STR	 256
#define PERF_JSON_VALUES 4096 /* a result of 100 repetitions holds about 1800 */

enum perf_json_type {
	PERF_JSON_NULL,
	PERF_JSON_BOOL,
	PERF_JSON_NUMBER,
	PERF_JSON_STRING,
};

struct perf_json_value {
	char path[PERF_JSON_PATH];
	enum perf_json_type type;
	double num; /**< NUMBER; BOOL as 0 or 1 */
	char str[PERF_JSON_STR];
};

struct perf_json {
	unsigned int n;
	struct perf_json_value v[PERF_JSON_VALUES];
};

/**
 * Parse @p len bytes of @p text.
 *
 * @return 0, or -EINVAL with a message in @p err (syntax, nesting, a path or
 *   string too long, more than PERF_JSON_VALUES scalars).
 */
int perf_json_parse(struct perf_json *j, const char *text, size_t len, char *err, size_t errlen);

/** Read and parse a file. @return 0, -errno of the read, or -EINVAL (message in err). */
int perf_json_load(struct perf_json *j, const char *file, char *err, size_t errlen);

/** The scalar at @p path, or NULL. */
const struct perf_json_value *perf_json_get(const struct perf_json *j, const char *path);

/** The number at @p path: true and *v, or false when absent or not a number. */
bool perf_json_num(const struct perf_json *j, const char *path, double *v);

/** The string at @p path, or NULL when absent or not a string. */
const char *perf_json_str(const struct perf_json *j, const char *path);

#endif /* PERF_JSON_H */
