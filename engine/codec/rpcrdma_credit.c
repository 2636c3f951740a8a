/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC-over-RDMA credits (rfc5666bis 4.3, 4.3.1). See rpcrdma_credit.h for
 * the argument that the responder's grant never strands a call.
 */
#include <errno.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_credit.h>

/* ------------------------------------------------------------ requester */

int rpcrdma_credit_req_init(struct rpcrdma_credit_req *c, uint32_t max)
{
	if (max == 0)
		return -EINVAL;
	c->max = max;
	c->stalls = 0;
	rpcrdma_credit_req_reset(c);
	return 0;
}

void rpcrdma_credit_req_reset(struct rpcrdma_credit_req *c)
{
	/* "a requester MUST NOT assume more than one credit is available" (4.3.1) */
	c->grant = 1;
	c->outstanding = 0;
	c->state = RPCRDMA_CREDIT_INITIAL;
}

uint32_t rpcrdma_credit_req_avail(const struct rpcrdma_credit_req *c)
{
	return c->outstanding >= c->grant ? 0 : c->grant - c->outstanding;
}

/* ------------------------------------------------------------ responder */

int rpcrdma_credit_resp_init(struct rpcrdma_credit_resp *c, uint32_t target, uint32_t max)
{
	if (target == 0 || target > max || max > INT32_MAX)
		return -EINVAL;
	c->target = target;
	c->max = max;
	c->posted = 0;
	c->active = 0;
	c->last = 0;
	c->received = 0;
	c->replies = 0;
	c->limit = 1; /* one call before the first reply (4.3.1) */
	c->excess = 0;
	return 0;
}

int rpcrdma_credit_resp_set_target(struct rpcrdma_credit_resp *c, uint32_t target)
{
	if (target == 0 || target > c->max)
		return -EINVAL;
	c->target = target;
	return 0;
}
