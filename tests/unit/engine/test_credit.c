/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credits (rfc5666bis 4.3): the requester's window against a reference
 * model over a seeded random sequence, and a requester and a responder
 * connected by a simulated wire while the responder's target grant shrinks
 * and grows and its receives are reposted lazily: no call ever arrives
 * without a posted receive, no acquire exceeds the grant, and everything
 * drains at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_credit.h>

#include "engine_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void check_req_basics(void)
{
	struct rpcrdma_credit_req c;

	CHECK(rpcrdma_credit_req_init(&c, 0) == -EINVAL, "max 0");
	CHECK(rpcrdma_credit_req_init(&c, 8) == 0, "init");
	CHECK(c.grant == 1 && c.state == RPCRDMA_CREDIT_INITIAL &&
		      rpcrdma_credit_req_avail(&c) == 1,
	      "one credit until the first reply");
	CHECK(rpcrdma_credit_req_request(&c) == 8, "requests its maximum");
	CHECK(rpcrdma_credit_req_acquire(&c) == 0, "first call");
	CHECK(rpcrdma_credit_req_acquire(&c) == -EAGAIN && c.outstanding == 1 && c.stalls == 1,
	      "second call waits for the first reply");
	CHECK(rpcrdma_credit_req_update(&c, 0) == 1 && c.state == RPCRDMA_CREDIT_GRANTED,
	      "grant 0 counts as 1");
	CHECK(rpcrdma_credit_req_update(&c, 1000) == 8 && c.grant == 8, "grant capped at 8");
	CHECK(rpcrdma_credit_req_release(&c) == 0 && c.outstanding == 0, "release");
	CHECK(rpcrdma_credit_req_release(&c) == -EINVAL && c.outstanding == 0, "release underflow");
	CHECK(rpcrdma_credit_req_update(&c, 3) == 3, "grant 3");
	CHECK(rpcrdma_credit_req_acquire(&c) == 0 && rpcrdma_credit_req_acquire(&c) == 0 &&
		      rpcrdma_credit_req_acquire(&c) == 0,
	      "three calls");
	CHECK(rpcrdma_credit_req_acquire(&c) == -EAGAIN, "not a fourth");
	CHECK(rpcrdma_credit_req_update(&c, 1) == 1 && rpcrdma_credit_req_avail(&c) == 0,
	      "shrunk below outstanding: nothing available");
	CHECK(rpcrdma_credit_req_release(&c) == 0 && rpcrdma_credit_req_release(&c) == 0 &&
		      rpcrdma_credit_req_acquire(&c) == -EAGAIN,
	      "one still outstanding of a grant of 1: wait");
	CHECK(rpcrdma_credit_req_release(&c) == 0 && rpcrdma_credit_req_acquire(&c) == 0,
	      "then one");
	rpcrdma_credit_req_reset(&c);
	CHECK(c.grant == 1 && c.outstanding == 0 && c.state == RPCRDMA_CREDIT_INITIAL,
	      "reset after reconnect");
}

/* The requester window against a reference model: 10,000 random operations. */
static void check_req_model(void)
{
	struct rpcrdma_credit_req c;
	uint32_t m_grant = 1, m_out = 0, max = 16, i;
	uint64_t m_stalls = 0;

	rpcrdma_credit_req_init(&c, max);
	for (i = 0; i < 10000; i++) {
		uint32_t op = rnd(10), g;
		int ret;

		if (op < 5) {
			ret = rpcrdma_credit_req_acquire(&c);
			if (m_out < m_grant) {
				m_out++;
				CHECK(ret == 0, "op %u: acquire with %u of %u", i, m_out, m_grant);
			} else {
				m_stalls++;
				CHECK(ret == -EAGAIN, "op %u: acquire at %u of %u", i, m_out,
				      m_grant);
			}
			CHECK(ret != 0 || c.outstanding <= c.grant,
			      "op %u: %u outstanding over a grant of %u", i, c.outstanding,
			      c.grant);
		} else if (op < 8) {
			ret = rpcrdma_credit_req_release(&c);
			CHECK(ret == (m_out ? 0 : -EINVAL), "op %u: release", i);
			if (m_out)
				m_out--;
		} else {
			/* Grants: often small, sometimes 0, sometimes above the cap. */
			g = rnd(4) == 0 ? rnd(3) * 20 : rnd(max + 1);
			ret = (int)rpcrdma_credit_req_update(&c, g);
			m_grant = g == 0 ? 1 : g > max ? max : g;
			CHECK(ret == (int)m_grant, "op %u: update %u gave %d", i, g, ret);
		}
		CHECK(c.grant == m_grant && c.outstanding == m_out && c.stalls == m_stalls,
		      "op %u: state %u/%u/%lu, model %u/%u/%lu", i, c.grant, c.outstanding,
		      (unsigned long)c.stalls, m_grant, m_out, (unsigned long)m_stalls);
		CHECK(rpcrdma_credit_req_avail(&c) == (m_out < m_grant ? m_grant - m_out : 0),
		      "op %u: avail", i);
	}
}

static void check_resp_basics(void)
{
	struct rpcrdma_credit_resp c;

	CHECK(rpcrdma_credit_resp_init(&c, 0, 8) == -EINVAL, "target 0");
	CHECK(rpcrdma_credit_resp_init(&c, 9, 8) == -EINVAL, "target over max");
	CHECK(rpcrdma_credit_resp_init(&c, 4, 8) == 0, "init");
	CHECK(rpcrdma_credit_resp_to_post(&c) == 4, "post the target first");
	CHECK(rpcrdma_credit_resp_received(&c) == -EINVAL && c.received == 0,
	      "a receive never posted");
	CHECK(rpcrdma_credit_resp_reply(&c) == -EINVAL, "a reply to nothing");
	rpcrdma_credit_resp_posted(&c, 1);
	CHECK(rpcrdma_credit_resp_received(&c) == 0 && c.posted == 0 && c.active == 1,
	      "first call");
	CHECK(rpcrdma_credit_resp_reply(&c) == -EAGAIN && c.active == 1 && c.replies == 0,
	      "no receive posted: no grant is safe, post first");
	rpcrdma_credit_resp_posted(&c, 2);
	CHECK(rpcrdma_credit_resp_reply(&c) == 2 && c.limit == 3, "grant 2: the receives posted");
	CHECK(rpcrdma_credit_resp_to_post(&c) == 2, "two more for the target");
	rpcrdma_credit_resp_posted(&c, 2);
	/* Reply 1 granted 2: the requester may send calls 2 and 3, no more. */
	CHECK(rpcrdma_credit_resp_received(&c) == 0 && rpcrdma_credit_resp_received(&c) == 0,
	      "calls 2 and 3");
	CHECK(rpcrdma_credit_resp_received(&c) == -EDQUOT && c.excess == 1 && c.active == 3,
	      "call 4 exceeds the grant, accounted");
	CHECK(rpcrdma_credit_resp_drop(&c) == 0 && c.active == 2, "dropped");
	CHECK(rpcrdma_credit_resp_set_target(&c, 0) == -EINVAL &&
		      rpcrdma_credit_resp_set_target(&c, 9) == -EINVAL && c.target == 4,
	      "bad targets refused");
	CHECK(rpcrdma_credit_resp_set_target(&c, 1) == 0, "shrink to 1");
	CHECK(c.posted == 1 && rpcrdma_credit_resp_reply(&c) == 1 && c.limit == 3,
	      "grant 1 (the target), though 1 + 2 - 1 would be safe");
	CHECK(rpcrdma_credit_resp_to_post(&c) == 0, "shrunk: one posted is enough");
	CHECK(rpcrdma_credit_resp_set_target(&c, 8) == 0 && rpcrdma_credit_resp_to_post(&c) == 7,
	      "grown: post 7 more");
	CHECK(rpcrdma_credit_resp_drop(&c) == 0 && rpcrdma_credit_resp_drop(&c) == -EINVAL,
	      "drop underflow");
}

struct sim {
	struct rpcrdma_credit_req req;
	struct rpcrdma_credit_resp resp;
	uint32_t to_resp;	/* calls on the wire */
	uint32_t replies[4096]; /* grants on the wire, FIFO */
	uint32_t rhead, rtail;
	uint64_t sent, done, stalls_eagain;
	uint32_t max_grant_seen, min_grant_seen;
};

static void sim_check(struct sim *s, uint32_t step)
{
	/* Every call on the wire finds a receive (else: RNR, connection lost). */
	CHECK(s->to_resp <= s->resp.posted, "step %u: %u calls in flight, %u receives posted", step,
	      s->to_resp, s->resp.posted);
	CHECK(s->resp.posted + s->resp.received >= s->resp.limit,
	      "step %u: posted %u + received %lu below limit %lu", step, s->resp.posted,
	      (unsigned long)s->resp.received, (unsigned long)s->resp.limit);
	CHECK(s->req.outstanding == s->to_resp + s->resp.active + (s->rtail - s->rhead),
	      "step %u: requester's outstanding is what is in flight", step);
}

static void sim_send(struct sim *s, uint32_t step)
{
	if (rpcrdma_credit_req_acquire(&s->req) == 0) {
		CHECK(s->req.outstanding <= s->req.grant, "step %u: %u outstanding, grant %u", step,
		      s->req.outstanding, s->req.grant);
		s->to_resp++;
		s->sent++;
	}
}

static void sim_arrive(struct sim *s, uint32_t step)
{
	if (!s->to_resp)
		return;
	s->to_resp--;
	CHECK(rpcrdma_credit_resp_received(&s->resp) == 0, "step %u: arrival", step);
}

static void sim_reply(struct sim *s, uint32_t step)
{
	int g;

	if (!s->resp.active)
		return;
	g = rpcrdma_credit_resp_reply(&s->resp);
	if (g == -EAGAIN) {
		s->stalls_eagain++;
		return;
	}
	CHECK(g >= 1 && (uint32_t)g <= s->resp.target, "step %u: grant %d, target %u", step, g,
	      s->resp.target);
	if (g < 1)
		return;
	if ((uint32_t)g > s->max_grant_seen)
		s->max_grant_seen = (uint32_t)g;
	if ((uint32_t)g < s->min_grant_seen)
		s->min_grant_seen = (uint32_t)g;
	s->replies[s->rtail++ % 4096] = (uint32_t)g;
}

static void sim_complete(struct sim *s)
{
	if (s->rhead == s->rtail)
		return;
	rpcrdma_credit_req_update(&s->req, s->replies[s->rhead++ % 4096]);
	rpcrdma_credit_req_release(&s->req);
	s->done++;
}

static void sim_post(struct sim *s, bool all)
{
	uint32_t n = rpcrdma_credit_resp_to_post(&s->resp);

	rpcrdma_credit_resp_posted(&s->resp, all || !n ? n : rnd(n + 1));
}

/* Requester and responder over a wire: random steps, then a drain. */
static void check_sim(void)
{
	static struct sim s;
	uint32_t step, i, max = 32;

	memset(&s, 0, sizeof(s));
	s.min_grant_seen = UINT32_MAX;
	rpcrdma_credit_req_init(&s.req, max);
	rpcrdma_credit_resp_init(&s.resp, 8, max);
	sim_post(&s, true); /* receives are posted before the connection is accepted */
	for (step = 0; step < 20000; step++) {
		switch (rnd(12)) {
		case 0:
		case 1:
		case 2:
			sim_send(&s, step);
			break;
		case 3:
		case 4:
			sim_arrive(&s, step);
			break;
		case 5:
		case 6:
			sim_reply(&s, step);
			break;
		case 7:
		case 8:
			sim_complete(&s);
			break;
		case 9:
		case 10:
			sim_post(&s, false);
			break;
		default:
			/* Shrink under pressure, grow back; sometimes to 1. */
			if (rnd(8) == 0)
				rpcrdma_credit_resp_set_target(&s.resp, rnd(4) ? 1 + rnd(max) : 1);
			break;
		}
		sim_check(&s, step);
	}
	CHECK(s.min_grant_seen == 1 && s.max_grant_seen >= 16,
	      "grants ranged %u..%u: the target moved", s.min_grant_seen, s.max_grant_seen);
	CHECK(s.sent > 1000 && s.req.stalls > 0, "%lu calls sent, %lu credit stalls",
	      (unsigned long)s.sent, (unsigned long)s.req.stalls);

	/* Drain: an eager engine completes everything, no deadlock. */
	rpcrdma_credit_resp_set_target(&s.resp, max);
	for (i = 0; i < 100000 && (s.req.outstanding || s.sent < 20000); i++) {
		if (s.sent < 20000)
			sim_send(&s, step);
		sim_arrive(&s, step);
		sim_post(&s, true);
		sim_reply(&s, step);
		sim_complete(&s);
		sim_check(&s, step);
	}
	CHECK(s.req.outstanding == 0 && s.sent == 20000 && s.done == s.sent,
	      "drained: %lu sent, %lu done, %u outstanding", (unsigned long)s.sent,
	      (unsigned long)s.done, s.req.outstanding);
	CHECK(s.req.grant == max && s.resp.last == max, "grown back to %u: grant %u", max,
	      s.req.grant);
	CHECK(s.resp.excess == 0, "the requester never exceeded its grant");
	printf("credit sim: %lu calls, %lu credit stalls, %lu responder -EAGAIN, grants %u..%u\n",
	       (unsigned long)s.sent, (unsigned long)s.req.stalls, (unsigned long)s.stalls_eagain,
	       s.min_grant_seen, s.max_grant_seen);
}

int main(void)
{
	check_req_basics();
	check_req_model();
	check_resp_basics();
	check_sim();
	return test_summary("test_credit");
}
