/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RPC-over-RDMA credits (rfc5666bis 4.3): the requester's window of
 * outstanding calls and the responder's grant, as plain counters.
 *
 * Requester: one credit until the first reply (4.3.1); then the grant of
 * the latest reply, where a grant of 0 counts as 1 (a responder MUST NOT
 * grant 0; this avoids the deadlock) and grants above the configured
 * maximum are capped. Never more calls outstanding than the grant: after a
 * grant shrinks, no call is sent until enough complete.
 *
 * Responder: the grant it advertises never lets the requester send a call
 * for which no receive is posted. Replies are numbered k = 1, 2, ...; after
 * processing reply k the requester may have sent at most k + grant_k calls,
 * so the requester can never send more than limit = max over replies of
 * (k + grant_k) calls (1 before the first reply). The responder keeps
 * posted >= limit - received by granting at most
 * posted + (active - 1): the receives posted, plus the calls in progress
 * other than the one being answered, which the requester counts as
 * outstanding. The target grant can shrink (under memory pressure) and grow
 * while the connection runs: a shrink takes effect in the next reply and
 * only stops reposting; calls already permitted by earlier grants always
 * find their receive.
 *
 * No locks: one lcore owns a connection. A backward channel (RFC 8167
 * 2.1.2) has its own pair of counters.
 */
#ifndef RPCRDMA_CREDIT_H
#define RPCRDMA_CREDIT_H

#include <errno.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a requester's window stands. */
enum rpcrdma_credit_state {
	/** No reply yet: one credit (rfc5666bis 4.3.1). */
	RPCRDMA_CREDIT_INITIAL,
	/** The grant of the latest reply applies. */
	RPCRDMA_CREDIT_GRANTED,
};

/** A requester's credit window. */
struct rpcrdma_credit_req {
	uint32_t max;			 /**< configured maximum: grants are capped here */
	uint32_t grant;			 /**< calls that may be outstanding */
	uint32_t outstanding;		 /**< calls sent and not completed */
	enum rpcrdma_credit_state state; /**< INITIAL until the first reply */
	uint64_t stalls;		 /**< acquires refused for want of a credit */
};

/**
 * Start a window: one credit, none in use.
 *
 * @return
 *   0, or -EINVAL: max is 0.
 */
int rpcrdma_credit_req_init(struct rpcrdma_credit_req *c, uint32_t max);

/**
 * Take a credit for a call about to be sent.
 *
 * @return
 *   0, or -EAGAIN: as many calls are outstanding as granted (NEED_CREDIT);
 *   nothing taken, stalls counted.
 */
static inline int rpcrdma_credit_req_acquire(struct rpcrdma_credit_req *c)
{
	/* "MUST NOT send unacknowledged requests in excess of this granted limit" (4.3) */
	if (c->outstanding >= c->grant) {
		c->stalls++;
		return -EAGAIN;
	}
	c->outstanding++;
	return 0;
}

/**
 * Return the credit of a completed call (replied, failed or cancelled).
 *
 * @return
 *   0, or -EINVAL: no call is outstanding; nothing changed.
 */
static inline int rpcrdma_credit_req_release(struct rpcrdma_credit_req *c)
{
	if (c->outstanding == 0)
		return -EINVAL;
	c->outstanding--;
	return 0;
}

/**
 * Apply the rdma_credit of a valid reply: 0 counts as 1, values above max
 * are capped. Call it before releasing the reply's call.
 *
 * @return
 *   The grant now in force, 1..max.
 */
static inline uint32_t rpcrdma_credit_req_update(struct rpcrdma_credit_req *c, uint32_t granted)
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

/** Calls that may be sent now: grant minus outstanding, 0 when not positive. */
uint32_t rpcrdma_credit_req_avail(const struct rpcrdma_credit_req *c);

/**
 * The rdma_credit a call carries: the most replies the requester can
 * handle at once (rfc5666bis 4.3), its configured maximum.
 */
static inline uint32_t rpcrdma_credit_req_request(const struct rpcrdma_credit_req *c)
{
	return c->max;
}

/** After a reconnect: one credit again, none outstanding (resent calls acquire anew). */
void rpcrdma_credit_req_reset(struct rpcrdma_credit_req *c);

/** A responder's receive and grant accounting. */
struct rpcrdma_credit_resp {
	uint32_t target;   /**< the grant wanted, 1..max; changeable at run time */
	uint32_t max;	   /**< the largest target: receive queue depth */
	uint32_t posted;   /**< receives posted and not consumed */
	uint32_t active;   /**< calls received and not answered */
	uint32_t last;	   /**< the grant of the latest reply */
	uint64_t received; /**< messages that consumed a receive */
	uint64_t replies;  /**< replies sent */
	uint64_t limit;	   /**< the most calls the requester may have sent, in total */
	uint64_t excess;   /**< calls that arrived beyond limit */
};

/**
 * Start accounting: nothing posted, the requester allowed one call.
 *
 * @return
 *   0, or -EINVAL: target is 0 or above max, or max above INT32_MAX.
 */
int rpcrdma_credit_resp_init(struct rpcrdma_credit_resp *c, uint32_t target, uint32_t max);

/**
 * Change the target grant (shrink under memory pressure, grow back).
 *
 * @return
 *   0, or -EINVAL: target is 0 or above max; nothing changed.
 */
int rpcrdma_credit_resp_set_target(struct rpcrdma_credit_resp *c, uint32_t target);

/**
 * Receives to post now: enough for the target grant and for every call
 * earlier grants allow; 0 after a shrink until the surplus is consumed.
 */
static inline uint32_t rpcrdma_credit_resp_to_post(const struct rpcrdma_credit_resp *c)
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

/** Account n receives posted. */
static inline void rpcrdma_credit_resp_posted(struct rpcrdma_credit_resp *c, uint32_t n)
{
	c->posted += n;
}

/**
 * Account a receive consumed by a message (a call).
 *
 * @return
 *   0; -EDQUOT: the requester exceeded its grant (the call is accounted
 *   and may be answered, rfc5666bis 4.3); -EINVAL: no receive was posted,
 *   nothing changed.
 */
static inline int rpcrdma_credit_resp_received(struct rpcrdma_credit_resp *c)
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

/**
 * The grant for a reply about to be sent, which answers one active call:
 * min(target, posted + active - 1); the reply is accounted.
 *
 * @return
 *   The grant, at least 1; -EAGAIN: no receive is posted, so any grant
 *   could strand a call: post receives first, nothing changed; -EINVAL:
 *   no call is active.
 */
static inline int rpcrdma_credit_resp_reply(struct rpcrdma_credit_resp *c)
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

/**
 * Account an active call that gets no reply (dropped), or a received
 * message that was not a call (a reply, an RDMA2_OPTIONAL).
 *
 * @return
 *   0, or -EINVAL: no call is active.
 */
static inline int rpcrdma_credit_resp_drop(struct rpcrdma_credit_resp *c)
{
	if (c->active == 0)
		return -EINVAL;
	c->active--;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_CREDIT_H */
