/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt v2: version negotiation in each pairing (v2-v2; a v2 client and
 * a v1 server, the fallback remembered across reconnects and connections;
 * a v1 client and a v2 server; a v1 client and a v2-only server: ERR_VERS,
 * rfc5666bis 5.5.1), crafted version 2 headers (ERR_VERS ranges,
 * BAD_HEADER, INVAL_OPTION, direction), RDMA2_OPTIONAL before and after a
 * version is settled (v2 draft 5).
 *
 * test_xprt xchar: transport characteristics (xcharext) through the
 * engine: both ROPT_INITXCH, requests done, rejected and pending completed
 * by ROPT_UPDXCH, the values changing inline thresholds and Send With
 * Invalidate, a server's optixch_nochg promise; hostile bodies from a bare
 * version 2 client.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

/* Reconnect a client whose connection was closed. */
static bool env_reconnect(struct env *e)
{
	if (rpcrdma_xprt_state(e->cli.xprt) == RPCRDMA_XPRT_ESTABLISHED)
		rpcrdma_xprt_disconnect(e->cli.xprt);
	if (!pump_until(e, both_closed, NULL)) {
		CHECK(0, "closed before reconnecting");
		return false;
	}
	return env_connect(e);
}

void test_v2_negotiation(void)
{
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_xprt_stats c0, c1, s1;
	struct rpcrdma_vers_peers peers;
	struct tcall t;
	struct env e;

	/*
	 * A version 2 requester, a responder of both versions: the first
	 * call is the probe, within 1024 bytes (a call of 2.8 KB goes as a
	 * Long Call), alone until its reply settles version 2; then the same
	 * call goes inline under the 4096-byte threshold.
	 */
	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 2 && !ci.vers_settled && ci.send_inline == 1024 && ci.grant == 1,
		      "probing: vers %u settled %d send_inline %u grant %u", ci.vers,
		      ci.vers_settled, ci.send_inline, ci.grant);
		memset(&t, 0, sizeof(t));
		t.proc = PROC_TEST;
		t.words = 700;
		t.rwords = 3;
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "the probe: %d", t.status);
		stats(&e.cli, &c0);
		CHECK(c0.vers_probes == 1 && c0.vers_fallbacks == 0 && c0.long_msgs == 1 &&
			      c0.short_msgs == 0,
		      "one probe, a Long Call: %lu %lu %lu", (unsigned long)c0.vers_probes,
		      (unsigned long)c0.vers_fallbacks, (unsigned long)c0.long_msgs);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(ci.vers == 2 && ci.vers_settled && ci.send_inline == 4096 && ci.grant == 32,
		      "client settled in version 2: %u %d %u %u", ci.vers, ci.vers_settled,
		      ci.send_inline, ci.grant);
		CHECK(si.vers == 2 && si.vers_settled && si.send_inline == 4096,
		      "server settled in version 2: %u %d %u", si.vers, si.vers_settled,
		      si.send_inline);
		memset(&t, 0, sizeof(t));
		t.proc = PROC_TEST;
		t.words = 700;
		t.rwords = 3;
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "2.8 KB call in version 2");
		stats(&e.cli, &c1);
		CHECK(c1.short_msgs == c0.short_msgs + 1 && c1.long_msgs == c0.long_msgs &&
			      c1.vers_probes == 1,
		      "inline at 4096 bytes, no second probe");
		/* a reconnect probes again: the peer is remembered as version 2 */
		CHECK(env_reconnect(&e), "reconnect");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call after reconnect");
		stats(&e.cli, &c1);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(c1.vers_probes == 2 && ci.vers == 2 && ci.vers_settled,
		      "version 2 again after reconnect: %lu probes", (unsigned long)c1.vers_probes);
	}
	env_close(&e);

	/*
	 * A version 2 requester, a version 1 responder: ERR_VERS to the
	 * probe, the call sent again in version 1 with its XID and answered;
	 * no probe on a reconnect, nor on a new connection sharing the peer
	 * memory (no negotiation loop, v2 draft 5.2).
	 */
	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!env_open(&e, NULL, NULL))
		return;
	rpcrdma_vers_peers_init(&peers);
	e.cli.params.vers_peers = &peers;
	if (env_connect(&e)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "fallback call: %d", t.status);
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.vers_probes == 1 && c1.vers_fallbacks == 1 && c1.calls == 2 &&
			      c1.replies == 1 && c1.failed == 0,
		      "the probe, then the call in version 1: probes %lu fallbacks %lu calls %lu",
		      (unsigned long)c1.vers_probes, (unsigned long)c1.vers_fallbacks,
		      (unsigned long)c1.calls);
		CHECK(s1.err_vers == 1 && s1.errors_sent == 1 && s1.replies == 1,
		      "the server answered ERR_VERS once: %lu", (unsigned long)s1.err_vers);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 1 && ci.vers_settled && ci.send_inline == 4096,
		      "client settled in version 1 (private data: 4096)");
		CHECK(rpcrdma_vers_peers_lookup(&peers, e.addr) == RPCRDMA_VERS_1,
		      "the peer remembered as version 1");
		CHECK(env_reconnect(&e), "reconnect");
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 1 && ci.vers_settled, "version 1 from the start after reconnect");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "call after reconnect");
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.vers_probes == 1 && s1.err_vers == 0, "no second probe: %lu",
		      (unsigned long)c1.vers_probes);
		/* another connection to the same peer, the same memory */
		rpcrdma_xprt_disconnect(e.cli.xprt);
		CHECK(pump_until(&e, both_closed, NULL), "closed");
		CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == 0, "destroy");
		e.cli.xprt = NULL;
		if (env_connect(&e)) {
			rpcrdma_xprt_info(e.cli.xprt, &ci);
			memset(&t, 0, sizeof(t));
			CHECK(run_call(&e, &t) && t.status == 0 && t.ok,
			      "call on the new connection");
			stats(&e.cli, &c1);
			CHECK(ci.vers == 1 && ci.vers_settled && c1.vers_probes == 0,
			      "a new connection starts in version 1: %u %lu", ci.vers,
			      (unsigned long)c1.vers_probes);
		}
	}
	env_close(&e);

	/* a version 1 requester, a responder of both versions: version 1 */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(!si.vers_settled, "server: not settled before the first call");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "v1 call to a v2 server");
		rpcrdma_xprt_info(e.srv.xprt, &si);
		stats(&e.srv, &s1);
		stats(&e.cli, &c1);
		CHECK(si.vers == 1 && si.vers_settled && s1.err_vers == 0 && c1.vers_probes == 0,
		      "server settled in version 1: %u", si.vers);
	}
	env_close(&e);

	/* a version 1 requester, a version 2 only responder: ERR_VERS (2, 2) */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == -EPROTONOSUPPORT,
		      "v1 call to a v2-only server: %d", t.status);
		stats(&e.srv, &s1);
		stats(&e.cli, &c1);
		CHECK(s1.err_vers == 1 && c1.errors_recv == 1, "ERR_VERS sent and received");
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

void test_v2_errors(void)
{
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_xprt_stats s1;
	struct rpcrdma_hdr *h = &hs.hdr;
	struct env e;
	int n;

	/*
	 * ---- a responder of both versions, crafted messages from a bare
	 * client; without the transport characteristics extension, so that
	 * every answer is the one to the message just sent (test_xchar() has
	 * the extension) ----
	 */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	e.srv.params.flags |= RPCRDMA_XPRT_F_NO_XCHAR;
	bare_client_up(&e);
	{
		/* version 7 first: ERR_VERS in version 1 with the range 1..2, nothing settled */
		const uint32_t v7[] = { 0, 7, 8, RPCRDMA_MSG, 0, 0, 0 };

		n = bare_ask_call(&e, v7, 7, 0x201, &hs, WAIT_MS);
		CHECK(n > 0 && h->xid == 0x201 && h->vers == 1 && h->proc == RPCRDMA_ERROR &&
			      h->error.code == RPCRDMA_ERR_VERS && h->error.low == 1 &&
			      h->error.high == 2,
		      "version 7: ERR_VERS (1, 2): %d", n);
	}
	/* a version 2 call settles version 2: answered RDMA2_MSG, direction REPLY */
	n = bare_ask_call(&e, v2call, 8, 0x202, &hs, WAIT_MS);
	CHECK(n == 32 && h->xid == 0x202 && h->vers == 2 && h->proc == RPCRDMA_MSG &&
		      h->chunks.direction == RPCRDMA_REPLY && h->credit >= 1,
	      "a version 2 call is answered in version 2, direction REPLY: %d", n);
	/* version 1 once version 2 is settled: ERR_VERS (2, 2) */
	n = bare_ask_call(&e, v1call, 7, 0x203, &hs, WAIT_MS);
	CHECK(n > 0 && h->xid == 0x203 && h->proc == RPCRDMA_ERROR &&
		      h->error.code == RPCRDMA_ERR_VERS && h->error.low == 2 && h->error.high == 2,
	      "version 1 after version 2: ERR_VERS (2, 2): %d", n);
	{
		/* an optional type nobody defined: RDMA2_ERR_INVAL_OPTION, same XID */
		const uint32_t opt[] = { 0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };

		n = bare_ask_call(&e, opt, 7, 0x204, &hs, WAIT_MS);
		CHECK(n > 0 && h->xid == 0x204 && h->vers == 2 && h->proc == RPCRDMA_ERROR &&
			      h->error.code == RPCRDMA2_ERR_INVAL_OPTION,
		      "RDMA2_OPTIONAL: RDMA2_ERR_INVAL_OPTION: %d code %u", n, h->error.code);
	}
	{
		/* malformed version 2 headers: RDMA2_ERR_BAD_HEADER */
		const uint32_t p2[] = { 0, 2, 8, 2, 0, 0, 0, 0 };
		const uint32_t dir[] = { 0, 2, 8, RPCRDMA_MSG, 5, 0, 0, 0 };
		const uint32_t *bad[] = { p2, dir };

		for (unsigned int i = 0; i < 2; i++) {
			n = bare_ask_call(&e, bad[i], 8, 0x205 + i, &hs, WAIT_MS);
			CHECK(n > 0 && h->xid == 0x205 + i && h->vers == 2 &&
				      h->proc == RPCRDMA_ERROR &&
				      h->error.code == RPCRDMA2_ERR_BAD_HEADER,
			      "bad version 2 header %u: RDMA2_ERR_BAD_HEADER: %d", i, n);
		}
	}
	{
		/* a backward-direction reply: this server sent no backward call, dropped */
		const uint32_t brep[] = { 0, 2, 8, RPCRDMA_MSG, RPCRDMA_REPLY, 0, 0, 0 };

		n = bare_ask_call(&e, brep, 8, 0x207, &hs, 300);
		CHECK(n == -ETIMEDOUT, "a backward reply is not answered: %d", n);
	}
	/* the connection still works, in version 2 */
	n = bare_ask_call(&e, v2call, 8, 0x208, &hs, WAIT_MS);
	CHECK(n == 32 && h->xid == 0x208 && h->vers == 2, "still answered: %d", n);
	stats(&e.srv, &s1);
	CHECK(s1.err_vers == 2 && s1.err_option == 1 && s1.options_recv == 1 && s1.err_hdr == 2 &&
		      s1.bad_direction == 1 && s1.errors_sent == 5,
	      "server counters: vers %lu option %lu hdr %lu direction %lu errors %lu",
	      (unsigned long)s1.err_vers, (unsigned long)s1.err_option, (unsigned long)s1.err_hdr,
	      (unsigned long)s1.bad_direction, (unsigned long)s1.errors_sent);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receive the unanswered message left posted flushes: its buffer back */
		uint64_t end = test_now_ms() + WAIT_MS;
		unsigned int back = 0;

		while (back == 0 && test_now_ms() < end) {
			back += bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
		}
		CHECK(back == 1, "the posted receive flushed: %u", back);
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/*
 * A server of versions 1 and 2 (v2 draft 5) takes RDMA2_OPTIONAL while no
 * version is settled, and answers it ERR_VERS (1, 1) once version 1 is
 * (rfc5666bis 5.5.1), as it answers a version 2 call then. Exact bytes from
 * a bare client.
 */
void test_v2_optional_v1(void)
{
	const uint32_t grant = 32; /* srv_params(): the target */
	const uint32_t opt[] = { 0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
	struct rpcrdma_xprt_stats s0, s1;
	uint8_t msg[512];
	struct env e;
	uint32_t len;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	{
		/* nothing settled: a version 2 message, an unknown type: RDMA2_ERR_INVAL_OPTION */
		const uint32_t want[] = { 0x601, 2, grant, RPCRDMA_ERROR,
					  RPCRDMA2_ERR_INVAL_OPTION };

		len = put_words(msg, 0x601, opt, 7);
		bare_expect(&e, msg, len, want, 5, "RDMA2_OPTIONAL first, server of 1..2");
	}
	{
		/* a version 1 call settles version 1 */
		const uint32_t want[] = { 0x602, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x602, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x602, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a version 1 call, server of 1..2");
	}
	{
		/* then every version 2 message: ERR_VERS (1, 1), in version 1 */
		const uint32_t want3[] = { 0x603, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t want4[] = { 0x604, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t want5[] = { 0x605, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		len = put_words(msg, 0x603, opt, 7);
		bare_expect(&e, msg, len, want3, 7,
			    "RDMA2_OPTIONAL after version 1, server of 1..2");
		len = put_words(msg, 0x604, initxch, sizeof(initxch) / 4);
		bare_expect(&e, msg, len, want4, 7, "ROPT_INITXCH after version 1, server of 1..2");
		len = craft(msg, 0x605, v2call, 8);
		bare_expect(&e, msg, len, want5, 7,
			    "a version 2 call after version 1, server of 1..2");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 3 && s1.options_recv == s0.options_recv &&
			      s1.xchar_recv == s0.xchar_recv,
		      "version 2 after version 1: ERR_VERS counted %lu, options taken %lu",
		      (unsigned long)(s1.err_vers - s0.err_vers),
		      (unsigned long)(s1.options_recv - s0.options_recv));
	}
	bare_client_down(&e);
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/* ------------------------------------------------------------ transport characteristics */

static void xval(struct rpcrdma_xcharval *v, uint32_t which, uint32_t value)
{
	static const uint8_t data[4] = { 0, 0, 0, 1 }; /* an unknown id's xchv_data */

	memset(v, 0, sizeof(*v));
	v->which = which;
	v->known = which == RPCRDMA_XCHAR_RBSIZ || which == RPCRDMA_XCHAR_REQREMINV ||
		   which == RPCRDMA_XCHAR_BRS;
	v->value = value;
	v->len = 4;
	v->data = v->known ? NULL : data;
}

/* A null call, or a call of @words words inline. */
static bool xcall(struct env *e, uint32_t words)
{
	struct tcall t;

	memset(&t, 0, sizeof(t));
	t.proc = words ? PROC_TEST : PROC_NULL;
	t.words = words;
	return run_call(e, &t) && t.status == 0 && t.ok;
}

static bool xchar_settled(struct env *e, void *arg)
{
	struct rpcrdma_xprt_xchar *xi = arg;

	rpcrdma_xprt_xchar_info(e->srv.xprt, xi);
	return !xi->req_outstanding;
}

void test_xchar(void)
{
	struct rpcrdma_xprt_xchar cx, sx;
	struct rpcrdma_xprt_stats c0, c1, s0, s1;
	struct rpcrdma_xcharspec want;
	struct env e;
	uint32_t i;
	bool remote_inv = flags_kept(test_side_dev_info(), DEF_FLAGS) & RPCRDMA_XPRT_F_REMOTE_INV;

	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	/* the client's receives are 2 KiB: its Receive Buffer Size */
	e.cli.params.recv_inline = 2048;
	if (!env_connect(&e) || !xcall(&e, 0)) {
		CHECK(0, "connected, first call");
		env_close(&e);
		return;
	}
	/* ---- ROPT_INITXCH both ways, before anything else ---- */
	CHECK(rpcrdma_xprt_xchar_info(e.cli.xprt, &cx) == 0 &&
		      rpcrdma_xprt_xchar_info(e.srv.xprt, &sx) == 0,
	      "the exchange runs on both ends");
	CHECK(cx.peer_init && sx.peer_init && !cx.peer_unsupported, "both ROPT_INITXCH arrived");
	CHECK(cx.local.rbsiz == 2048 && sx.peer.rbsiz == 2048 && cx.peer.rbsiz == 4096,
	      "Receive Buffer Sizes: client %u (server sees %u), server %u", cx.local.rbsiz,
	      sx.peer.rbsiz, cx.peer.rbsiz);
	/* where the device lets a peer invalidate our MRs (rpcrdma_xprt.h) */
	CHECK(cx.local.reqreminv == remote_inv && sx.peer.reqreminv == remote_inv &&
		      !cx.peer.reqreminv,
	      "the client asks for Send With Invalidate where its device allows (REQREMINV %d)",
	      remote_inv);
	CHECK(cx.peer.brs == RPCRDMA_BKREQSUP_NONE && sx.peer.brs == RPCRDMA_BKREQSUP_NONE,
	      "no backward requests served (BKREQSUP_NONE)");
	stats(&e.cli, &c1);
	stats(&e.srv, &s1);
	CHECK(c1.xchar_sent == 1 && c1.xchar_recv == 1 && s1.xchar_sent == 1 &&
		      s1.xchar_recv == 1 && c1.xchar_errors == 0 && s1.xchar_errors == 0,
	      "one ROPT_INITXCH each way: %lu %lu %lu %lu", (unsigned long)c1.xchar_sent,
	      (unsigned long)c1.xchar_recv, (unsigned long)s1.xchar_sent,
	      (unsigned long)s1.xchar_recv);
	/* the peer's Receive Buffer Size decides what goes inline */
	CHECK(sx.max_send == 2048 && cx.max_send == 4096, "max send: server %u, client %u",
	      sx.max_send, cx.max_send);

	/* ---- the client asks the server to lower its Receive Buffer Size: done ---- */
	stats(&e.cli, &c0);
	CHECK(xcall(&e, 375), "1.5 KB call inline");
	want.n = 1;
	xval(&want.vals[0], RPCRDMA_XCHAR_RBSIZ, 1024);
	CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == 0, "ROPT_REQXCH sent");
	CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == -EBUSY, "one request at a time");
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(cx.req_outstanding && cx.max_send == 1024,
	      "while asked, the client sends at most 1024 bytes: %u", cx.max_send);
	for (i = 0; i < 1000 && cx.req_outstanding; i++) {
		pump_once(&e);
		rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	}
	rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	CHECK(!cx.req_outstanding && cx.peer.rbsiz == 1024 && sx.local.rbsiz == 1024 &&
		      cx.max_send == 1024,
	      "done: the server's Receive Buffer Size is 1024 (%u, %u)", cx.peer.rbsiz,
	      sx.local.rbsiz);
	CHECK(xcall(&e, 375), "1.5 KB call as a Long Call");
	stats(&e.cli, &c1);
	CHECK(c1.short_msgs - c0.short_msgs == 1 && c1.long_msgs - c0.long_msgs == 1,
	      "inline before, Long Call after: short %lu long %lu",
	      (unsigned long)(c1.short_msgs - c0.short_msgs),
	      (unsigned long)(c1.long_msgs - c0.long_msgs));

	/*
	 * ---- the server asks the client: REQREMINV off (done), an
	 * experimental characteristic (rejected), RBSIZ 4096 (pending until
	 * the client's 2 KiB receives are gone), then ROPT_UPDXCH ----
	 */
	want.n = 3;
	xval(&want.vals[0], RPCRDMA_XCHAR_REQREMINV, 0);
	xval(&want.vals[1], RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + 5, 1);
	xval(&want.vals[2], RPCRDMA_XCHAR_RBSIZ, 4096);
	want.vals[1].data = NULL;
	CHECK(rpcrdma_xprt_xchar_request(e.srv.xprt, &want) == -EINVAL,
	      "an unknown id without its data");
	xval(&want.vals[1], RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + 5, 1);
	stats(&e.srv, &s0);
	CHECK(rpcrdma_xprt_xchar_request(e.srv.xprt, &want) == 0, "server ROPT_REQXCH");
	CHECK(pump_until(&e, xchar_settled, &sx), "its ROPT_RESPXCH");
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(!sx.peer.reqreminv && !cx.local.reqreminv, "REQREMINV done: false on both views");
	CHECK(sx.req_pend == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) &&
		      cx.peer_pend == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) &&
		      sx.peer.rbsiz == 2048,
	      "RBSIZ pending: %#x %#x, still %u", sx.req_pend, cx.peer_pend, sx.peer.rbsiz);
	/* the client's 2 KiB receives are consumed by replies and reposted at 4 KiB */
	for (i = 0; i < 64 && (sx.req_pend != 0); i++) {
		CHECK(xcall(&e, 0), "call %u while the raise waits", i);
		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	}
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(sx.req_pend == 0 && cx.peer_pend == 0 && sx.peer.rbsiz == 4096 &&
		      cx.local.rbsiz == 4096 && sx.max_send == 4096,
	      "ROPT_UPDXCH with pendclr after %u calls: RBSIZ %u, server sends %u", i,
	      sx.peer.rbsiz, sx.max_send);
	/* REQREMINV false: replies to calls with chunks no longer use Send With Invalidate */
	{
		struct tcall t = { .proc = PROC_TEST,
				   .words = 2,
				   .nres = 1,
				   .res_len = { 8000 },
				   .res_chunks = true };

		stats(&e.srv, &s0);
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "a reply through a write chunk");
		stats(&e.srv, &s1);
		CHECK(s1.send_inv == s0.send_inv, "no Send With Invalidate after REQREMINV false");
	}
	/* ---- our own change: the client announces BRS (ROPT_UPDXCH) ---- */
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_RBSIZ, 1024) == -EPERM,
	      "RBSIZ is lowered only when asked");
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_BRS, 7) == -EINVAL, "BRS 7");
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_INLINE) == 0,
	      "BRS INLINE announced");
	for (i = 0; i < 1000 && sx.peer.brs != RPCRDMA_BKREQSUP_INLINE; i++) {
		pump_once(&e);
		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	}
	CHECK(sx.peer.brs == RPCRDMA_BKREQSUP_INLINE, "the server sees BRS INLINE");
	stats(&e.cli, &c1);
	stats(&e.srv, &s1);
	CHECK(c1.xchar_errors == 0 && s1.xchar_errors == 0 && c1.ctrl_drops == 0 &&
		      s1.ctrl_drops == 0,
	      "no errors, no drops");
	env_close(&e);

	/* ---- a server without the extension: INVAL_OPTION, calls go on ---- */
	if (!env_open(&e, NULL, NULL))
		return;
	e.srv.params.flags |= RPCRDMA_XPRT_F_NO_XCHAR;
	if (env_connect(&e)) {
		CHECK(xcall(&e, 0) && xcall(&e, 0), "calls");
		rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
		stats(&e.srv, &s1);
		CHECK(cx.peer_unsupported && !cx.peer_init && s1.err_option == 1 &&
			      s1.xchar_sent == 0,
		      "the client's ROPT_INITXCH answered RDMA2_ERR_INVAL_OPTION: %d %lu",
		      cx.peer_unsupported, (unsigned long)s1.err_option);
		CHECK(rpcrdma_xprt_xchar_info(e.srv.xprt, &sx) == -ENOTCONN, "server: off");
	}
	env_close(&e);

	/*
	 * ---- a server that promises to keep REQREMINV and BRS (optixch_nochg):
	 * the client sees the promise, its request for one is rejected, the
	 * server cannot change them itself ----
	 */
	if (!env_open(&e, NULL, NULL))
		return;
	{
		const uint32_t keep = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV) |
				      RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS);
		struct rpcrdma_xprt_params bad = e.cli.params;
		struct rpcrdma_xprt *x = NULL;

		bad.xchar_nochg = 1u << 9; /* no known id */
		CHECK(rpcrdma_xprt_create(&bad, &x) == -EINVAL && x == NULL,
		      "an unknown id in xchar_nochg");
		e.srv.params.xchar_nochg = keep;
		if (env_connect(&e) && xcall(&e, 0)) {
			rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
			CHECK(cx.peer_nochg == keep && sx.nochg == keep && cx.nochg == 0 &&
				      sx.peer_nochg == 0,
			      "the server's ROPT_INITXCH carries its nochg: %#x %#x", cx.peer_nochg,
			      sx.nochg);
			want.n = 2;
			xval(&want.vals[0], RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_GENL);
			xval(&want.vals[1], RPCRDMA_XCHAR_RBSIZ, 2048);
			CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == 0,
			      "client ROPT_REQXCH");
			rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			for (i = 0; i < 1000 && cx.req_outstanding; i++) {
				pump_once(&e);
				rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			}
			rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
			CHECK(!cx.req_outstanding && cx.req_pend == 0 &&
				      cx.peer.brs == RPCRDMA_BKREQSUP_NONE &&
				      sx.local.brs == RPCRDMA_BKREQSUP_NONE &&
				      cx.peer.rbsiz == 2048 && sx.local.rbsiz == 2048,
			      "BRS rejected (%u), RBSIZ lowered (%u)", cx.peer.brs, cx.peer.rbsiz);
			CHECK(rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_BRS,
						     RPCRDMA_BKREQSUP_INLINE) == -EPERM &&
				      rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_REQREMINV,
							     1) == -EPERM,
			      "the server keeps its promise");
			CHECK(rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_BRS,
						     RPCRDMA_BKREQSUP_NONE) == 0,
			      "setting a kept one to its value");
			CHECK(xcall(&e, 0), "calls go on");
			stats(&e.cli, &c1);
			stats(&e.srv, &s1);
			CHECK(c1.xchar_errors == 0 && s1.xchar_errors == 0, "no errors: %lu %lu",
			      (unsigned long)c1.xchar_errors, (unsigned long)s1.xchar_errors);
		} else {
			CHECK(0, "connected, first call");
		}
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/*
 * Send a message from the bare client and gather what arrives for @ms
 * milliseconds (at most @max messages, each decoded into hs[]; the
 * receives' buffers go back, so optinfo pointers are not to be followed).
 * @return the number of messages.
 */
static unsigned int bare_gather(struct env *e, const void *msg, uint32_t len,
				struct rpcrdma_hdr_storage *hs, unsigned int max, uint32_t ms)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + ms;
	unsigned int got = 0;
	void *sb;

	bare_post(&e->cli, max);
	sb = bare_cli_send(e, msg, len);
	while (test_now_ms() < end) {
		int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 4);

		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == 2)
				continue;
			if (wc[i].status == RPCRDMA_PMD_WC_SUCCESS && got < max) {
				int r = rpcrdma_hdr_decode(rpcrdma_hdr_storage_init(&hs[got]),
							   (void *)(uintptr_t)wc[i].wr_id,
							   wc[i].byte_len);

				CHECK(r > 0, "a decodable message: %d", r);
				got++;
			}
			/* only header fields are read afterwards, not optinfo */
			rpcrdma_mempool_put(ip, (void *)(uintptr_t)wc[i].wr_id);
		}
		test_side_poll(&e->srv, srv_accept);
	}
	rpcrdma_mempool_put(ip, sb);
	return got;
}

/* Hostile transport characteristics from a bare version 2 client. */
void test_xchar_errors(void)
{
	static struct rpcrdma_hdr_storage hs[4];
	uint8_t msg[512];
	struct rpcrdma_xprt_stats s1;
	unsigned int n, i;
	uint32_t len;
	struct env e;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	/* the first version 2 call: the server's ROPT_INITXCH, then the reply */
	len = craft(msg, 0x301, v2call, 8);
	n = bare_gather(&e, msg, len, hs, 2, 300);
	CHECK(n == 2 && hs[0].hdr.proc == RPCRDMA_OPTIONAL &&
		      hs[0].hdr.optional.opttype == RPCRDMA_ROPT_INITXCH &&
		      hs[1].hdr.proc == RPCRDMA_MSG && hs[1].hdr.xid == 0x301,
	      "ROPT_INITXCH first, then the reply: %u messages", n);
	{
		/*
		 * xcharext bodies that are malformed or break a rule:
		 * RDMA2_ERR_BAD_HEADER with the same XID, nothing applied
		 */
		const uint32_t bad_len[] = { 0,
					     2,
					     8,
					     RPCRDMA_OPTIONAL,
					     RPCRDMA_CALL,
					     RPCRDMA_ROPT_INITXCH,
					     16,
					     1,
					     RPCRDMA_XCHAR_RBSIZ,
					     8,
					     0,
					     0 }; /* RBSIZ with 8 bytes of data */
		const uint32_t upd_lower[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_UPDXCH,
					       16,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       1024,
					       0 };
		const uint32_t resp_none[] = {
			0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_REPLY, RPCRDMA_ROPT_RESPXCH, 12, 0, 0, 0
		};
		/* RBSIZ 2048, promised never to change (optixch_nochg: element 0) */
		const uint32_t init_keep[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_INITXCH,
					       24,
					       1,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       2048,
					       1,
					       1 };
		const uint32_t upd_raise[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_UPDXCH,
					       16,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       4096,
					       0 };
		struct {
			const uint32_t *w;
			unsigned int n;
			uint32_t code; /* 0: applied, nothing sent */
			const char *what;
		} cases[] = {
			{ bad_len, 12, RPCRDMA2_ERR_BAD_HEADER, "RBSIZ with 8 bytes of data" },
			{ init_keep, 13, 0, "the client's ROPT_INITXCH (RBSIZ 2048, kept)" },
			{ initxch, 12, RPCRDMA2_ERR_BAD_HEADER, "a second ROPT_INITXCH" },
			{ upd_lower, 11, RPCRDMA2_ERR_BAD_HEADER, "an unasked RBSIZ lowering" },
			{ upd_raise, 11, RPCRDMA2_ERR_BAD_HEADER, "a change of a kept RBSIZ" },
			{ resp_none, 10, RPCRDMA2_ERR_BAD_HEADER, "a ROPT_RESPXCH to nothing" },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			len = put_words(msg, 0x310 + i, cases[i].w, cases[i].n);
			n = bare_gather(&e, msg, len, hs, 1, 200);
			if (cases[i].code == 0)
				CHECK(n == 0, "%s: nothing answered (%u)", cases[i].what, n);
			else
				CHECK(n == 1 && hs[0].hdr.xid == 0x310 + i && hs[0].hdr.vers == 2 &&
					      hs[0].hdr.proc == RPCRDMA_ERROR &&
					      hs[0].hdr.error.code == cases[i].code,
				      "%s: RDMA2_ERROR %u (%u)", cases[i].what, cases[i].code, n);
		}
	}
	{
		struct rpcrdma_xprt_xchar sx;

		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
		CHECK(sx.peer_init && sx.peer.rbsiz == 2048 && sx.max_send == 2048 &&
			      sx.peer_nochg == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ),
		      "only the good ROPT_INITXCH applied: %u, nochg %#x", sx.peer.rbsiz,
		      sx.peer_nochg);
	}
	stats(&e.srv, &s1);
	CHECK(s1.xchar_errors == 5 && s1.xchar_recv == 1 && s1.errors_sent == 5,
	      "server: %lu xcharext errors, %lu applied, %lu RDMA2_ERROR",
	      (unsigned long)s1.xchar_errors, (unsigned long)s1.xchar_recv,
	      (unsigned long)s1.errors_sent);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receives left posted flush: their buffers back */
		uint64_t end = test_now_ms() + 2000;

		while (test_now_ms() < end) {
			bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
			if (rpcrdma_mempool_set_check_all_back(e.cli.pools) == 0)
				break;
		}
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}
