/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared checks of the codec fuzz targets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_xchar.h>

#include "codec_cmp.h"
#include "fuzz_common.h"

/*
 * The codec library is built with -fsanitize=undefined in recover mode:
 * make every UBSan report fatal, so libFuzzer records it as a crash even
 * when the target is run without UBSAN_OPTIONS.
 */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

void fuzz_fail(const char *target, const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s%s%s\n", target, what, detail ? ": " : "", detail ? detail : "");
	abort();
}

void *fuzz_alloc(const char *target, size_t len)
{
	void *p = malloc(len ? len : 1);

	if (p == NULL)
		fuzz_fail(target, "out of memory", NULL);
	return p;
}

void fuzz_check_ret(const char *target, int ret)
{
	char msg[64];

	if (ret >= 0 || (-ret >= RPCRDMA_ERRNO_BASE && -ret < RPCRDMA_E_MAX))
		return;
	snprintf(msg, sizeof(msg), "%d", ret);
	fuzz_fail(target, "decode returned an undefined error", msg);
}

/* The formatter's return is the length of the full line (snprintf). */
static void check_format_len(const char *target, int n, const char *line, size_t size)
{
	if (n <= 0 || ((size_t)n < size && (size_t)n != strlen(line)))
		fuzz_fail(target, "formatter length", line);
}

int fuzz_check_xchar(const char *target, uint32_t opttype, const uint8_t *optinfo, uint32_t len)
{
	struct rpcrdma_xchar_msg a, b;
	uint8_t *enc, *enc2;
	char why[160], line[4096];
	int ret, n, m;

	ret = rpcrdma_xchar_decode(&a, opttype, optinfo, len);
	fuzz_check_ret(target, ret);
	if (ret != 0)
		return ret;
	check_format_len(target, rpcrdma_xchar_format(&a, line, sizeof(line)), line, sizeof(line));

	/* The canonical encoding is never longer: extra zero subset words drop. */
	enc = malloc(len);
	enc2 = malloc(len);
	if (!enc || !enc2)
		abort();
	n = rpcrdma_xchar_encode(&a, enc, len);
	if (n <= 0 || (uint32_t)n > len) {
		snprintf(why, sizeof(why), "%d for %u input bytes", n, len);
		fuzz_fail(target, "xchar re-encode", why);
	}
	m = rpcrdma_xchar_decode(&b, opttype, enc, (uint32_t)n);
	if (m != 0)
		fuzz_fail(target, "xchar decode of the re-encoding", rpcrdma_errname(m));
	if (codec_xchar_cmp(&a, &b, why, sizeof(why)))
		fuzz_fail(target, "xchar round trip", why);
	m = rpcrdma_xchar_encode(&b, enc2, len);
	if (m != n || memcmp(enc, enc2, (size_t)n) != 0)
		fuzz_fail(target, "xchar encoding not canonical", NULL);
	free(enc2);
	free(enc);
	return 0;
}
