/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the codec tests.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_test.h"

const char *test_missing_token(const char *line, const char *const *tokens)
{
	for (; tokens && *tokens; tokens++)
		if (!strstr(line, *tokens))
			return *tokens;
	return NULL;
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
