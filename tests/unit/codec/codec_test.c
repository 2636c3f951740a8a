/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the codec tests.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_test.h"

unsigned long test_checks;
unsigned long test_failures;

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	test_failures++;
	fprintf(stderr, "%s:%d: FAIL (%s): ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *test_malloc(size_t len)
{
	/* malloc(0) under ASan returns a chunk that has no valid byte. */
	void *p = malloc(len);

	if (!p && len) {
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		abort();
	}
	return p;
}

uint8_t *test_heap_copy(const void *p, size_t len)
{
	uint8_t *q = test_malloc(len);

	if (len)
		memcpy(q, p, len);
	return q;
}

void test_hexdump(const char *title, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	fprintf(stderr, "%s (%zu bytes):", title, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 16 ? (i % 4 ? "" : " ") : "\n  ", p[i]);
	fputc('\n', stderr);
}

const char *test_missing_token(const char *line, const char *const *tokens)
{
	for (; tokens && *tokens; tokens++)
		if (!strstr(line, *tokens))
			return *tokens;
	return NULL;
}

int test_summary(const char *name)
{
	printf("%s: %lu checks, %lu failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

int test_vector_hdr(const struct codec_vector *v, struct rpcrdma_hdr *hdr, uint8_t *optinfo,
		    size_t size)
{
	int ret;

	*hdr = *v->hdr;
	if (v->kind != CODEC_OPT || !v->xchar)
		return 0;
	ret = rpcrdma_xchar_encode(v->xchar, optinfo, (uint32_t)size);
	hdr->optional.optinfo = optinfo;
	return ret;
}

int test_vector_rpc(const struct codec_vector *v, struct rpcrdma_rpc_msg *msg, uint8_t *body,
		    size_t size)
{
	int ret;

	*msg = *v->rpc;
	if (msg->type != RPCRDMA_RPC_CALL || msg->call.cred.flavor != RPCRDMA_RPC_AUTH_SYS)
		return 0;
	ret = rpcrdma_rpc_authsys_encode(&msg->call.sys, body, (uint32_t)size);
	msg->call.cred.body = body;
	return ret;
}
