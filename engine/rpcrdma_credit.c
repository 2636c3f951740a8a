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

int rpcrdma_credit_req_acquire(struct rpcrdma_credit_req *c)
{
	/* "MUST NOT send unacknowledged requests in excess of this granted limit" (4.3) */
	if (c->outstanding >= c->grant) {
		c->stalls++;
		return -EAGAIN;
	}
	c->outstanding++;
	return 0;
}

int rpcrdma_credit_req_release(struct rpcrdma_credit_req *c)
{
	if (c->outstanding == 0)
		return -EINVAL;
	c->outstanding--;
	return 0;
}

uint32_t rpcrdma_credit_req_update(struct rpcrdma_credit_req *c, uint32_t granted)
{
	/* "The granted value MUST NOT be zero, since such a value would result in deadlock." */
	if (granted == 0)
		granted = 1;
	if (granted > c->max)
		granted = c->max;
	c->grant = granted;
	c->state = RPCRDMA_CREDIT_GRANTED;
	return granted;
}

uint32_t rpcrdma_credit_req_avail(const struct rpcrdma_credit_req *c)
{
	return c->outstanding >= c->grant ? 0 : c->grant - c->outstanding;
}

uint32_t rpcrdma_credit_req_request(const struct rpcrdma_credit_req *c)
{
	return c->max;
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

uint32_t rpcrdma_credit_resp_to_post(const struct rpcrdma_credit_resp *c)
{
	/* Calls that earlier grants still allow to arrive. */
	uint64_t need = c->limit > c->received ? c->limit - c->received : 0;

	/*
	 * Enough for the next reply to grant target: posted + active - 1
	 * >= target holds with posted >= target whenever a call is active.
	 */
	if (need < c->target)
		need = c->target;
	return need > c->posted ? (uint32_t)(need - c->posted) : 0;
}

void rpcrdma_credit_resp_posted(struct rpcrdma_credit_resp *c, uint32_t n)
{
	c->posted += n;
}

int rpcrdma_credit_resp_received(struct rpcrdma_credit_resp *c)
{
	if (c->posted == 0)
		return -EINVAL;
	c->posted--;
	c->active++;
	c->received++;
	if (c->received > c->limit) {
		c->excess++;
		return -EDQUOT;
	}
	return 0;
}

int rpcrdma_credit_resp_reply(struct rpcrdma_credit_resp *c)
{
	uint64_t room, g;

	if (c->active == 0)
		return -EINVAL;
	/*
	 * After this reply (number replies + 1) the requester may have sent
	 * replies + 1 + g calls in all; received + posted of them find a
	 * receive. So g <= posted + received - replies - 1 = posted + active - 1.
	 */
	room = (uint64_t)c->posted + c->active - 1;
	if (room == 0)
		return -EAGAIN;
	g = room < c->target ? room : c->target;
	c->active--;
	c->replies++;
	if (c->replies + g > c->limit)
		c->limit = c->replies + g;
	c->last = (uint32_t)g;
	return (int)g;
}

int rpcrdma_credit_resp_drop(struct rpcrdma_credit_resp *c)
{
	if (c->active == 0)
		return -EINVAL;
	c->active--;
	return 0;
}
