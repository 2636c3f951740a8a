/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * JSON reading for rpcrdma-perf --compare, --input and --summary, on
 * jansson: a whole document is parsed, and its values are looked up by
 * "a.b.c" paths (an array element as "a.0").
 */
#ifndef PERF_JSON_H
#define PERF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define PERF_JSON_PATH 128 /* the longest path looked up */

/** A parsed document; zero-initialised before the first parse. */
struct perf_json {
	json_t *root;
};

/**
 * Parse @p len bytes of @p text, replacing what @p j held.
 *
 * @return 0, or -EINVAL with jansson's message and the place in @p err
 *   (syntax, a key given twice).
 */
int perf_json_parse(struct perf_json *j, const char *text, size_t len, char *err, size_t errlen);

/** Read and parse a file. @return 0, -errno of the open, or -EINVAL (message in err). */
int perf_json_load(struct perf_json *j, const char *file, char *err, size_t errlen);

/** The value at @p path, or NULL. */
const json_t *perf_json_get(const struct perf_json *j, const char *path);

/** The number at @p path: true and *v, or false when absent or not a number. */
bool perf_json_num(const struct perf_json *j, const char *path, double *v);

/** The string at @p path, or NULL when absent or not a string. */
const char *perf_json_str(const struct perf_json *j, const char *path);

/** The boolean at @p path: true and *v, or false when absent or not a boolean. */
bool perf_json_bool(const struct perf_json *j, const char *path, bool *v);

#endif /* PERF_JSON_H */
