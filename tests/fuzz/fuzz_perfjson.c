/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the JSON reader of rpcrdma-perf (apps/perf_json.c),
 * which reads the result files users give to --compare, --input and
 * --summary. The input is the whole file; the parser must accept or refuse
 * it with a message, never read outside it, and every value it returns
 * must be one of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "perf_json.h"

#define TARGET "fuzz_perfjson"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perf_json j;
	char err[256];
	char *text;
	int ret;

	/* an exact-size copy: no NUL after it, as when read from a file */
	text = malloc(size ? size : 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	err[0] = '\0';
	ret = perf_json_parse(&j, text, size, err, sizeof(err));
	if (ret < 0 && err[0] == '\0')
		fuzz_fail(TARGET, "refused without a message", NULL);
	if (ret == 0 && j.n > PERF_JSON_VALUES)
		fuzz_fail(TARGET, "more values than the table holds", NULL);
	if (ret == 0 && j.n > 0)
		(void)perf_json_get(&j, j.v[0].path);
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzz_fail(TARGET, "message not terminated", NULL);
	free(text);
	return 0;
}
