/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Version negotiation (version two draft section 5): every requester and
 * responder state and transition, the peer memory, and each requester
 * configuration against each responder configuration through real header
 * bytes (encode, then decode as the peer would).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_vers.h>

#include "test_check.h"

static struct rpcrdma_hdr mkhdr(uint32_t xid, uint32_t vers, uint32_t proc)
{
	struct rpcrdma_hdr h;

	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.vers = vers;
	h.credit = 8;
	h.proc = proc;
	return h;
}

static struct rpcrdma_hdr mkerr(uint32_t xid, uint32_t vers, uint32_t low, uint32_t high)
{
	struct rpcrdma_hdr h = mkhdr(xid, vers, RPCRDMA_ERROR);

	h.error.code = RPCRDMA_ERR_VERS;
	h.error.low = low;
	h.error.high = high;
	return h;
}

static void check_peers(void)
{
	struct rpcrdma_vers_peers m;
	char addr[80];
	unsigned int i;

	rpcrdma_vers_peers_init(&m);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "10.0.0.1:20049"), 0);
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, "10.0.0.1:20049", 1), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "10.0.0.1:20049"), 1);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "10.0.0.2:20049"), 0);
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, "10.0.0.1:20049", 2), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "10.0.0.1:20049"), 2);
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, "", 1), -EINVAL);
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, NULL, 1), -EINVAL);
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, "x", 3), -EINVAL);
	memset(addr, 'a', sizeof(addr) - 1);
	addr[sizeof(addr) - 1] = '\0';
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, addr, 1), -EINVAL);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, addr), 0);
	addr[RPCRDMA_VERS_ADDR_MAX - 1] = '\0'; /* 63 chars: the longest accepted */
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, addr, 1), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, addr), 1);
	CHECK_EQ(rpcrdma_vers_peers_forget(&m, addr), 0);
	CHECK_EQ(rpcrdma_vers_peers_forget(&m, addr), -ENOENT);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, addr), 0);

	/* full: the least recently used goes; a looked-up one stays */
	rpcrdma_vers_peers_init(&m);
	for (i = 0; i < RPCRDMA_VERS_PEERS_MAX; i++) {
		snprintf(addr, sizeof(addr), "peer%u", i);
		CHECK_EQ(rpcrdma_vers_peers_remember(&m, addr, 1), 0);
	}
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "peer0"), 1); /* peer1 is now the oldest */
	CHECK_EQ(rpcrdma_vers_peers_remember(&m, "new", 2), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "peer1"), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "peer0"), 1);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "peer2"), 1);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "new"), 2);
}

static void check_req_v1_only(void)
{
	struct rpcrdma_vers_req v;
	struct rpcrdma_hdr h;

	CHECK_EQ(rpcrdma_vers_req_init(&v, (enum rpcrdma_vers_req_cfg)7, NULL), -EINVAL);
	CHECK_EQ(rpcrdma_vers_req_init(&v, RPCRDMA_VERS_REQ_V1_ONLY, NULL), 0);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_IDLE);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), -ENOTCONN);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 1, 100), -ENOTCONN);
	h = mkhdr(1, 1, RPCRDMA_MSG);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -ENOTCONN);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 0);
	CHECK_EQ(rpcrdma_vers_req_inline_recv(&v), 0);

	/* IDLE -> V1 */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv"), RPCRDMA_VERS_REQ_V1);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), 1);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 1024);
	CHECK_EQ(rpcrdma_vers_req_inline_recv(&v), 1024);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 1, 1024), 0);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 2, 1024), 0); /* no probe: no one-message limit */
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_NONE);
	h = mkhdr(1, 2, RPCRDMA_MSG);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_V1);
	h = mkerr(2, 1, 1, 2);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_V1);
	/* V1 -> FAILED: a version 2 only responder answers ERR_VERS (2, 2) */
	h = mkerr(2, 1, 2, 2);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTONOSUPPORT);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_FAILED);
	CHECK_EQ(v.peer_low, 2);
	CHECK_EQ(v.peer_high, 2);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), -EPROTONOSUPPORT);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 3, 10), -EPROTONOSUPPORT);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTONOSUPPORT);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 0);
	/* FAILED -> IDLE */
	rpcrdma_vers_req_disconnect(&v);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_IDLE);
}

static void check_req_v2(void)
{
	struct rpcrdma_vers_peers m;
	struct rpcrdma_vers_req v;
	struct rpcrdma_hdr h;

	rpcrdma_vers_peers_init(&m);
	CHECK_EQ(rpcrdma_vers_req_init(&v, RPCRDMA_VERS_REQ_V2_PREFERRED, &m), 0);

	/* IDLE -> PROBE -> PROBE_SENT -> V2 */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv2"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), 2);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 1024);
	CHECK_EQ(rpcrdma_vers_req_inline_recv(&v), 4096);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x11, 1025), -EMSGSIZE);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_PROBE);
	h = mkerr(0x11, 1, 1, 1);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO); /* nothing was sent */
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x11, 1024), 0);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_PROBE_SENT);
	CHECK_EQ(v.probe_xid, 0x11);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), -EAGAIN);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x12, 100), -EAGAIN);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 1024);
	h = mkhdr(0x11, 1, RPCRDMA_MSG);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO); /* a v1 reply to a v2 call */
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_PROBE_SENT);
	h = mkerr(0x99, 1, 1, 1);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO); /* ERR_VERS for another XID */
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_PROBE_SENT);
	h = mkhdr(0x11, 2, RPCRDMA_MSG);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_V2);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_V2);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), 2);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 4096);
	CHECK_EQ(rpcrdma_vers_req_inline_recv(&v), 4096);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x12, 4096), 0);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv2"), 2);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_NONE);
	h = mkhdr(0x12, 1, RPCRDMA_MSG);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO);
	h = mkerr(0x12, 2, 1, 2);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTO);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_V2);
	rpcrdma_vers_req_disconnect(&v);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_IDLE);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv2"), 2);

	/* an RDMA2_OPTIONAL (the responder's INITXCH) settles version 2 too */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv2"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x21, 60), 0);
	h = mkhdr(0x5, 2, RPCRDMA_OPTIONAL);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_V2);
	rpcrdma_vers_req_disconnect(&v);

	/* PROBE_SENT -> V1 on ERR_VERS (1, 1), in either header version */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv1"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x31, 200), 0);
	h = mkerr(0x31, 1, 1, 1);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_RESEND_V1);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_V1);
	CHECK_EQ(rpcrdma_vers_req_send_vers(&v), 1);
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), 1024);
	CHECK_EQ(rpcrdma_vers_req_inline_recv(&v), 1024);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv1"), 1);
	rpcrdma_vers_req_disconnect(&v);
	/* the reconnect does not negotiate again: no loop */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv1"), RPCRDMA_VERS_REQ_V1);
	rpcrdma_vers_req_disconnect(&v);
	/* ... until forgotten */
	CHECK_EQ(rpcrdma_vers_peers_forget(&m, "srv1"), 0);
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv1"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x32, 200), 0);
	h = mkerr(0x32, 2, 1, 1);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), RPCRDMA_VERS_REQ_EV_RESEND_V1);
	rpcrdma_vers_req_disconnect(&v);

	/* PROBE_SENT -> IDLE: the probe lost counts as version 1 (5.2) */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv3"), RPCRDMA_VERS_REQ_PROBE);
	rpcrdma_vers_req_disconnect(&v); /* from PROBE: nothing sent, nothing learnt */
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv3"), 0);
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv3"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x41, 200), 0);
	rpcrdma_vers_req_disconnect(&v);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv3"), 1);
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv3"), RPCRDMA_VERS_REQ_V1);
	rpcrdma_vers_req_disconnect(&v);

	/* PROBE_SENT -> FAILED: ERR_VERS whose range has neither 1 nor usable 2 */
	CHECK_EQ(rpcrdma_vers_req_connect(&v, "srv4"), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x51, 200), 0);
	h = mkerr(0x51, 1, 3, 7);
	CHECK_EQ(rpcrdma_vers_req_recv(&v, &h), -EPROTONOSUPPORT);
	CHECK_EQ(v.state, RPCRDMA_VERS_REQ_FAILED);
	CHECK_EQ(v.peer_low, 3);
	CHECK_EQ(v.peer_high, 7);
	rpcrdma_vers_req_disconnect(&v);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "srv4"), 0);

	/* no memory: works, remembers nothing */
	CHECK_EQ(rpcrdma_vers_req_init(&v, RPCRDMA_VERS_REQ_V2_PREFERRED, NULL), 0);
	CHECK_EQ(rpcrdma_vers_req_connect(&v, NULL), RPCRDMA_VERS_REQ_PROBE);
	CHECK_EQ(rpcrdma_vers_req_sent(&v, 1, 10), 0);
	rpcrdma_vers_req_disconnect(&v);
	CHECK_EQ(rpcrdma_vers_req_connect(&v, NULL), RPCRDMA_VERS_REQ_PROBE);
	CHECK(strcmp(rpcrdma_vers_req_state_name(RPCRDMA_VERS_REQ_PROBE_SENT), "PROBE_SENT") == 0);
	CHECK(strcmp(rpcrdma_vers_req_state_name((enum rpcrdma_vers_req_state)99), "UNKNOWN") == 0);
}

static void check_resp(void)
{
	struct rpcrdma_vers_answer a;
	struct rpcrdma_vers_resp r;
	struct rpcrdma_hdr h;

	CHECK_EQ(rpcrdma_vers_resp_init(&r, (enum rpcrdma_vers_resp_cfg)3), -EINVAL);

	/* version 1 only: WAIT -> V1; v2 gets ERR_VERS (1, 1) in version 1 */
	CHECK_EQ(rpcrdma_vers_resp_init(&r, RPCRDMA_VERS_RESP_V1_ONLY), 0);
	CHECK_EQ(rpcrdma_vers_resp_inline_recv(&r), 1024);
	CHECK_EQ(rpcrdma_vers_resp_inline_send(&r), 1024);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 2, &a), 0);
	CHECK(!a.accept && a.reply_vers == 1 && a.low == 1 && a.high == 1);
	CHECK_EQ(r.state, RPCRDMA_VERS_RESP_WAIT);
	CHECK_EQ(r.err_vers, 1);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 1, &a), 0);
	CHECK(a.accept && a.reply_vers == 1);
	CHECK_EQ(r.state, RPCRDMA_VERS_RESP_V1);

	/* version 2 only: v1 gets ERR_VERS (2, 2) in version 1; WAIT -> V2 */
	CHECK_EQ(rpcrdma_vers_resp_init(&r, RPCRDMA_VERS_RESP_V2_ONLY), 0);
	CHECK_EQ(rpcrdma_vers_resp_inline_recv(&r), 4096);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 1, &a), 0);
	CHECK(!a.accept && a.reply_vers == 1 && a.low == 2 && a.high == 2);
	CHECK_EQ(r.state, RPCRDMA_VERS_RESP_WAIT);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 2, &a), 0);
	CHECK(a.accept && a.reply_vers == 2);
	CHECK_EQ(r.state, RPCRDMA_VERS_RESP_V2);
	CHECK_EQ(rpcrdma_vers_resp_inline_send(&r), 4096);

	/* both: either; the first settles; the other one afterwards: ERR_VERS */
	CHECK_EQ(rpcrdma_vers_resp_init(&r, RPCRDMA_VERS_RESP_BOTH), 0);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 7, &a), 0);
	CHECK(!a.accept && a.reply_vers == 1 && a.low == 1 && a.high == 2);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 0, &a), 0);
	CHECK(!a.accept && a.low == 1 && a.high == 2);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 1, &a), 0);
	CHECK(a.accept && a.reply_vers == 1);
	CHECK_EQ(r.state, RPCRDMA_VERS_RESP_V1);
	CHECK_EQ(rpcrdma_vers_resp_inline_send(&r), 1024);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 2, &a), 0);
	CHECK(!a.accept && a.reply_vers == 1 && a.low == 1 && a.high == 1);
	CHECK_EQ(rpcrdma_vers_resp_init(&r, RPCRDMA_VERS_RESP_BOTH), 0);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 2, &a), 0);
	CHECK(a.accept && a.reply_vers == 2 && r.state == RPCRDMA_VERS_RESP_V2);
	CHECK_EQ(rpcrdma_vers_resp_recv(&r, 1, &a), 0);
	CHECK(!a.accept && a.low == 2 && a.high == 2);
	CHECK_EQ(r.err_vers, 1);

	memset(&h, 0xee, sizeof(h));
	a.accept = true;
	CHECK_EQ(rpcrdma_vers_resp_err_hdr(&a, 1, 1, &h), -EINVAL);
	CHECK_EQ(h.xid, 0xeeeeeeee);
	CHECK(strcmp(rpcrdma_vers_resp_state_name(RPCRDMA_VERS_RESP_V2), "V2") == 0);
}

/*
 * A requester against a responder through the wire: the requester's
 * first message is encoded, the responder decodes it and answers (an
 * ERR_VERS encoded from rpcrdma_vers_resp_err_hdr(), or a reply in the
 * same version), the requester decodes the answer.
 */
static int negotiate(enum rpcrdma_vers_req_cfg rc, enum rpcrdma_vers_resp_cfg sc,
		     struct rpcrdma_vers_peers *m, const char *peer)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *d = rpcrdma_hdr_storage_init(&st);
	struct rpcrdma_vers_answer a;
	struct rpcrdma_vers_resp r;
	struct rpcrdma_vers_req v;
	struct rpcrdma_hdr h;
	uint8_t buf[64];
	int n, vers, i, ret = 0;

	CHECK_EQ(rpcrdma_vers_req_init(&v, rc, m), 0);
	rpcrdma_vers_req_connect(&v, peer);
	CHECK_EQ(rpcrdma_vers_resp_init(&r, sc), 0);
	for (i = 0; i < 2; i++) { /* the call, and once more after ERR_VERS */
		vers = rpcrdma_vers_req_send_vers(&v);
		if (vers < 0)
			return vers;
		h = mkhdr(0x100, (uint32_t)vers, RPCRDMA_MSG);
		n = rpcrdma_hdr_encode(&h, buf, sizeof(buf));
		CHECK(n > 0);
		CHECK_EQ(rpcrdma_vers_req_sent(&v, 0x100, (uint32_t)n + 100), 0);
		CHECK(rpcrdma_hdr_decode(d, buf, (uint32_t)n) == n);
		CHECK_EQ(rpcrdma_vers_resp_recv(&r, d->vers, &a), 0);
		if (a.accept) {
			CHECK_EQ(a.reply_vers, d->vers);
			h = mkhdr(d->xid, a.reply_vers, RPCRDMA_MSG);
		} else {
			CHECK_EQ(rpcrdma_vers_resp_err_hdr(&a, d->xid, 1, &h), 0);
		}
		n = rpcrdma_hdr_encode(&h, buf, sizeof(buf));
		CHECK(n > 0);
		CHECK(rpcrdma_hdr_decode(d, buf, (uint32_t)n) == n);
		if (!a.accept) /* ERR_VERS is always in version 1 on the wire */
			CHECK(buf[7] == 1 && buf[15] == RPCRDMA_ERROR && buf[19] == 1);
		ret = rpcrdma_vers_req_recv(&v, d);
		if (ret != RPCRDMA_VERS_REQ_EV_RESEND_V1)
			break;
	}
	if (ret < 0)
		return ret;
	CHECK_EQ(rpcrdma_vers_req_inline_send(&v), rpcrdma_vers_resp_inline_send(&r));
	return rpcrdma_vers_req_send_vers(&v);
}

static void check_matrix(void)
{
	struct rpcrdma_vers_peers m;

	rpcrdma_vers_peers_init(&m);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V1_ONLY, RPCRDMA_VERS_RESP_V1_ONLY, &m, "a"), 1);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V1_ONLY, RPCRDMA_VERS_RESP_BOTH, &m, "b"), 1);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V1_ONLY, RPCRDMA_VERS_RESP_V2_ONLY, &m, "c"),
		 -EPROTONOSUPPORT);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V2_PREFERRED, RPCRDMA_VERS_RESP_V1_ONLY, &m, "d"), 1);
	CHECK_EQ(rpcrdma_vers_peers_lookup(&m, "d"), 1);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V2_PREFERRED, RPCRDMA_VERS_RESP_BOTH, &m, "e"), 2);
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V2_PREFERRED, RPCRDMA_VERS_RESP_V2_ONLY, &m, "f"), 2);
	/* "d" upgraded but remembered as version 1: stays on version 1 */
	CHECK_EQ(negotiate(RPCRDMA_VERS_REQ_V2_PREFERRED, RPCRDMA_VERS_RESP_BOTH, &m, "d"), 1);
}

int main(void)
{
	check_peers();
	check_req_v1_only();
	check_req_v2();
	check_resp();
	check_matrix();
	return test_summary("v2_vers");
}
