/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport characteristics state (xcharext draft): two endpoints
 * exchange every message through rpcrdma_xchar_encode() and
 * rpcrdma_xchar_decode(), walking each state and rule, and hostile
 * messages are refused with nothing changed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xchar_state.h>

#include "test_check.h"

#define EXPERIMENTAL (RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + 7)

static uint8_t wire_buf[4][1024];
static unsigned int wire_next;

/* Encode m and decode it again, as the peer receives it. */
static struct rpcrdma_xchar_msg wire(const struct rpcrdma_xchar_msg *m)
{
	uint8_t *buf = wire_buf[wire_next++ % 4];
	struct rpcrdma_xchar_msg d;
	int n;

	memset(&d, 0, sizeof(d));
	n = rpcrdma_xchar_encode(m, buf, sizeof(wire_buf[0]));
	CHECK(n >= 0, "encode %d", n);
	if (n < 0)
		return d;
	CHECK_EQ(rpcrdma_xchar_decode(&d, m->opttype, buf, (uint32_t)n), 0);
	return d;
}

static struct rpcrdma_xcharval kv(uint32_t id, uint32_t value)
{
	struct rpcrdma_xcharval x;

	memset(&x, 0, sizeof(x));
	x.which = id;
	x.known = true;
	x.value = value;
	x.len = 4;
	return x;
}

static struct rpcrdma_xcharval unk(uint32_t id)
{
	static const uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rpcrdma_xcharval x;

	memset(&x, 0, sizeof(x));
	x.which = id;
	x.len = sizeof(data);
	x.data = data;
	return x;
}

/* Two connected endpoints that have exchanged ROPT_INITXCH. */
static void pair(struct rpcrdma_xchar_state *a, const struct rpcrdma_xchar_cfg *ca,
		 struct rpcrdma_xchar_state *b, const struct rpcrdma_xchar_cfg *cb)
{
	struct rpcrdma_xchar_msg m, d, out;

	CHECK_EQ(rpcrdma_xchar_state_init(a, ca), 0);
	CHECK_EQ(rpcrdma_xchar_state_init(b, cb), 0);
	rpcrdma_xchar_state_connect(a);
	rpcrdma_xchar_state_connect(b);
	CHECK_EQ(rpcrdma_xchar_state_initxch(a, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(b, 0, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_initxch(b, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(a, 0, &d, &out), 0);
}

static void check_init(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out;
	struct rpcrdma_xcharspec want;

	rpcrdma_xchar_cfg_init(&ca);
	CHECK_EQ(ca.local.rbsiz, 4096);
	CHECK_EQ(ca.local.reqreminv, false);
	CHECK_EQ(ca.local.brs, RPCRDMA_BKREQSUP_INLINE);
	cb = ca;
	cb.local.rbsiz = 512;
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &cb), -EINVAL);
	cb = ca;
	cb.local.rbsiz = 8192; /* above rbsiz_max 4096 */
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &cb), -EINVAL);
	cb = ca;
	cb.local.brs = 3;
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &cb), -EINVAL);
	cb = ca;
	cb.nochg = 1u << 9;
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &cb), -EINVAL);

	/* IDLE */
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &ca), 0);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_IDLE);
	CHECK_EQ(rpcrdma_xchar_state_initxch(&a, &m), -ENOTCONN);
	CHECK(!rpcrdma_xchar_state_may_send(&a));
	want.n = 1;
	want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 8192);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -ENOTCONN);
	m.opttype = RPCRDMA_ROPT_UPDXCH;
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 1, &m, &out), -ENOTCONN);
	/* the peer's values are the defaults before its INITXCH */
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096);
	CHECK(!rpcrdma_xchar_state_send_inv_ok(&a));
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&a), RPCRDMA_BKREQSUP_INLINE);

	/* IDLE -> NEED_INIT -> READY; INITXCH bytes carry our values and nochg */
	ca.local.reqreminv = true;
	ca.local.brs = RPCRDMA_BKREQSUP_GENL;
	ca.nochg = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &ca), 0);
	rpcrdma_xchar_state_connect(&a);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_NEED_INIT);
	CHECK(!rpcrdma_xchar_state_may_send(&a));
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -EAGAIN);
	CHECK_EQ(rpcrdma_xchar_state_initxch(&a, &m), 0);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_READY);
	CHECK(rpcrdma_xchar_state_may_send(&a));
	CHECK_EQ(rpcrdma_xchar_state_initxch(&a, &m), -EALREADY);
	d = wire(&m);
	CHECK_EQ(d.initxch.start.n, 3);
	CHECK_EQ(d.initxch.start.vals[0].which, RPCRDMA_XCHAR_RBSIZ);
	CHECK_EQ(d.initxch.start.vals[0].value, 4096);
	CHECK_EQ(d.initxch.start.vals[1].value, 1);
	CHECK_EQ(d.initxch.start.vals[2].value, RPCRDMA_BKREQSUP_GENL);
	CHECK_EQ(d.initxch.nochg.bits, 2);

	/* the peer takes them; a second INITXCH is refused */
	rpcrdma_xchar_cfg_init(&cb);
	CHECK_EQ(rpcrdma_xchar_state_init(&b, &cb), 0);
	rpcrdma_xchar_state_connect(&b);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), 0); /* before its own INITXCH */
	CHECK(rpcrdma_xchar_state_send_inv_ok(&b));
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&b), RPCRDMA_BKREQSUP_GENL);
	CHECK_EQ(b.peer_nochg, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV));
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), -EPROTO);
	CHECK_EQ(b.proto_errors, 1);

	/* INITXCH with unknown and experimental ids: skipped; ids known still apply */
	rpcrdma_xchar_state_connect(&b);
	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_INITXCH;
	m.initxch.start.n = 4;
	m.initxch.start.vals[0] = unk(EXPERIMENTAL);
	m.initxch.start.vals[1] = kv(RPCRDMA_XCHAR_RBSIZ, 16384);
	m.initxch.start.vals[2] = unk(77);
	m.initxch.start.vals[3] = kv(RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_NONE);
	m.initxch.nochg.bits = 0x9; /* the experimental one and BRS */
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&b), 16384);
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&b), RPCRDMA_BKREQSUP_NONE);
	CHECK(!rpcrdma_xchar_state_send_inv_ok(&b)); /* not sent: the default */
	CHECK_EQ(b.peer_nochg, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS));

	/* hostile INITXCH: nochg naming a missing element; RBSIZ below the minimum */
	rpcrdma_xchar_state_connect(&b);
	m.initxch.nochg.bits = 1u << 4;
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), -EPROTO);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&b), 4096);
	CHECK(!b.peer_init);
	m.initxch.nochg.bits = 0;
	m.initxch.start.vals[1] = kv(RPCRDMA_XCHAR_RBSIZ, 100);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), -EPROTO);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&b), 4096);
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&b), RPCRDMA_BKREQSUP_INLINE);

	/* reconnect: the peer's values go back to the defaults; disconnect -> IDLE */
	rpcrdma_xchar_state_disconnect(&b);
	CHECK_EQ(b.st, RPCRDMA_XCHAR_ST_IDLE);
	m.opttype = 9;
	rpcrdma_xchar_state_connect(&b);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &m, &out), -EINVAL);
	CHECK(strcmp(rpcrdma_xchar_st_name(RPCRDMA_XCHAR_ST_REQ_SENT), "REQ_SENT") == 0);
}

/*
 * The request partly done, partly rejected, partly pending, and the pending
 * part completed by ROPT_UPDXCH once the small receives are gone.
 */
static void check_partial(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out;
	struct rpcrdma_xcharspec want;
	struct rpcrdma_xchar_rcv rcv[2];

	rpcrdma_xchar_cfg_init(&ca);
	rpcrdma_xchar_cfg_init(&cb);
	cb.rbsiz_max = 16384;
	pair(&a, &ca, &b, &cb);

	want.n = 4;
	want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 8192);		     /* pend: receives to replace */
	want.vals[1] = kv(RPCRDMA_XCHAR_REQREMINV, 1);		     /* done */
	want.vals[2] = unk(EXPERIMENTAL);			     /* rej: unknown to b */
	want.vals[3] = kv(RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_NONE); /* rej: not changeable */
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 0x77, &want, &m), 0);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_REQ_SENT);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 0x78, &want, &m), -EBUSY);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096); /* a raise sets no limit */
	d = wire(&m);
	CHECK_EQ(d.reqxch.want.n, 4);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0x77, &d, &out), 1);
	CHECK_EQ(out.opttype, RPCRDMA_ROPT_RESPXCH);
	CHECK_EQ(out.respxch.done.bits, 0x2);
	CHECK_EQ(out.respxch.rej.bits, 0xc);
	CHECK_EQ(out.respxch.pend.bits, 0x1);
	CHECK_EQ(b.local.reqreminv, true);
	CHECK_EQ(b.local.rbsiz, 4096);
	CHECK_EQ(rpcrdma_xchar_state_post_size(&b), 8192);
	CHECK_EQ(b.peer_pend, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ));

	d = wire(&out);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0x77, &d, &out), 0);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_READY);
	CHECK(rpcrdma_xchar_state_send_inv_ok(&a));			     /* done */
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&a), RPCRDMA_BKREQSUP_INLINE); /* rejected */
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096);		     /* still pending */
	CHECK_EQ(a.req_pend, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ));
	/* a new request for the pending one waits */
	want.n = 1;
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 0x79, &want, &m), -EBUSY);

	/* b: 4096-byte receives still posted: no announcement yet */
	rcv[0].size = 4096;
	rcv[0].count = 3;
	rcv[1].size = 8192;
	rcv[1].count = 29;
	CHECK_EQ(rpcrdma_xchar_state_receives(&b, rcv, 2, &m), 0);
	CHECK_EQ(b.local.rbsiz, 4096);
	rcv[0].count = 0;
	CHECK_EQ(rpcrdma_xchar_state_receives(&b, rcv, 2, &m), 1);
	CHECK_EQ(b.local.rbsiz, 8192);
	CHECK_EQ(b.peer_pend, 0);
	CHECK_EQ(m.opttype, RPCRDMA_ROPT_UPDXCH);
	CHECK(m.updxch.pendclr);
	CHECK_EQ(rpcrdma_xchar_state_receives(&b, rcv, 2, &m), 0); /* once */

	d = wire(&m);
	CHECK_EQ(d.updxch.now.value, 8192);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 8192);
	CHECK_EQ(a.req_pend, 0);
	/* the same pendclr again: nothing is pending any more */
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0, &d, &out), -EPROTO);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 8192);
}

/* pendclr (4.4): an update without it keeps the request pending. */
static void check_pendclr(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out;
	struct rpcrdma_xcharspec want;

	rpcrdma_xchar_cfg_init(&ca);
	rpcrdma_xchar_cfg_init(&cb);
	cb.changeable |= RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS);
	pair(&a, &ca, &b, &cb);

	want.n = 1;
	want.vals[0] = kv(RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_GENL);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 5, &want, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 5, &d, &out), 1);
	CHECK_EQ(out.respxch.pend.bits, 1);
	d = wire(&out);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 5, &d, &out), 0);
	CHECK_EQ(a.req_pend, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS));

	/* an intermediate update without pendclr: the value changes, still pending */
	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_UPDXCH;
	m.updxch.now = kv(RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_NONE);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 9, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&a), RPCRDMA_BKREQSUP_NONE);
	CHECK_EQ(a.req_pend, RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS));

	/* b completes it through local_set: UPDXCH with pendclr */
	CHECK_EQ(rpcrdma_xchar_state_local_set(&b, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_GENL, &m),
		 1);
	CHECK(m.updxch.pendclr);
	CHECK_EQ(b.peer_pend, 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 10, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&a), RPCRDMA_BKREQSUP_GENL);
	CHECK_EQ(a.req_pend, 0);

	/* unsolicited: no pendclr */
	CHECK_EQ(rpcrdma_xchar_state_local_set(&b, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_INLINE, &m),
		 1);
	CHECK(!m.updxch.pendclr);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 11, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_peer_brs(&a), RPCRDMA_BKREQSUP_INLINE);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&b, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_INLINE, &m),
		 0); /* same value: nothing to say */

	/* hostile: pendclr for a characteristic never requested; unknown and experimental ids */
	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_UPDXCH;
	m.updxch.now = kv(RPCRDMA_XCHAR_REQREMINV, 1);
	m.updxch.pendclr = true;
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 12, &d, &out), -EPROTO);
	CHECK(!rpcrdma_xchar_state_send_inv_ok(&a));
	m.updxch.now = unk(EXPERIMENTAL);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 13, &d, &out), 0);
	m.updxch.now = unk(1000);
	m.updxch.pendclr = false;
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 14, &d, &out), 0);
	CHECK_EQ(a.peer.rbsiz, 4096);
	CHECK(!a.peer.reqreminv);
	CHECK_EQ(a.peer.brs, RPCRDMA_BKREQSUP_INLINE);
	/* hostile: an unsolicited lowering of RBSIZ */
	m.updxch.now = kv(RPCRDMA_XCHAR_RBSIZ, 2048);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 15, &d, &out), -EPROTO);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096);
	/* an unsolicited raise is fine */
	m.updxch.now = kv(RPCRDMA_XCHAR_RBSIZ, 65536);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 16, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 65536);
}

/* Lowering the peer's RBSIZ: the send limit drops at once, lifted by rejection. */
static void check_lower(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out;
	struct rpcrdma_xcharspec want;

	rpcrdma_xchar_cfg_init(&ca);
	rpcrdma_xchar_cfg_init(&cb);
	pair(&a, &ca, &b, &cb);
	want.n = 1;
	want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 2048);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 2048);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 1, &d, &out), 1);
	CHECK_EQ(out.respxch.done.bits, 1);
	CHECK_EQ(b.local.rbsiz, 2048);
	CHECK_EQ(rpcrdma_xchar_state_post_size(&b), 2048);
	d = wire(&out);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 1, &d, &out), 0);
	CHECK_EQ(a.peer.rbsiz, 2048);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 2048);

	/* rejected: not changeable at b; the limit goes */
	cb.changeable = 0;
	pair(&a, &ca, &b, &cb);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 2, &want, &m), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 2048);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 2, &d, &out), 1);
	CHECK_EQ(out.respxch.rej.bits, 1);
	CHECK_EQ(b.local.rbsiz, 4096);
	d = wire(&out);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 2, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096);

	/* b: RBSIZ raise beyond rbsiz_max is partial; beyond nothing: rejected */
	rpcrdma_xchar_cfg_init(&cb);
	cb.rbsiz_max = 6144;
	pair(&a, &ca, &b, &cb);
	want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 1u << 20);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 3, &want, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 3, &d, &out), 1);
	CHECK_EQ(out.respxch.pend.bits, 1);
	CHECK_EQ(rpcrdma_xchar_state_post_size(&b), 6144);
	CHECK_EQ(rpcrdma_xchar_state_receives(&b, NULL, 0, &m), 1);
	CHECK_EQ(m.updxch.now.value, 6144);
	CHECK(m.updxch.pendclr);
	cb.rbsiz_max = 4096;
	pair(&a, &ca, &b, &cb);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 4, &want, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 4, &d, &out), 1);
	CHECK_EQ(out.respxch.rej.bits, 1);

	/* b's REQXCH rules: below the minimum, duplicates, nochg, unknown */
	rpcrdma_xchar_cfg_init(&cb);
	cb.nochg = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	pair(&a, &ca, &b, &cb);
	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_REQXCH;
	m.reqxch.want.n = 5;
	m.reqxch.want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 512);	/* rej: below minimum */
	m.reqxch.want.vals[1] = kv(RPCRDMA_XCHAR_REQREMINV, 1); /* rej: nochg */
	m.reqxch.want.vals[2] = unk(1234);			/* rej: unknown */
	m.reqxch.want.vals[3] = kv(RPCRDMA_XCHAR_RBSIZ, 4096);	/* rej: twice */
	m.reqxch.want.vals[4] = kv(RPCRDMA_XCHAR_RBSIZ, 2048);	/* rej: three times */
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 8, &d, &out), 1);
	CHECK_EQ(out.respxch.done.bits, 0);
	CHECK_EQ(out.respxch.rej.bits, 0x1f);
	CHECK_EQ(out.respxch.pend.bits, 0);
	CHECK_EQ(b.local.rbsiz, 4096);
	CHECK(!b.local.reqreminv);
	/* the value it has already: done */
	m.reqxch.want.n = 2;
	m.reqxch.want.vals[0] = unk(RPCRDMA_XCHAR_EXPERIMENTAL_LAST);
	m.reqxch.want.vals[1] = kv(RPCRDMA_XCHAR_RBSIZ, 4096);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 9, &d, &out), 1);
	CHECK_EQ(out.respxch.done.bits, 0x2);
	CHECK_EQ(out.respxch.rej.bits, 0x1);
}

/* A RESPXCH must answer our request exactly (4.3). */
static void check_respxch_hostile(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out, r;
	struct rpcrdma_xcharspec want;
	static const uint32_t bad[][3] = {
		{ 0x3, 0x2, 0x4 },	  /* done and rej overlap */
		{ 0x1, 0x0, 0x7 },	  /* done and pend overlap */
		{ 0x0, 0x6, 0x3 },	  /* rej and pend overlap */
		{ 0x1, 0x2, 0x0 },	  /* element 2 not covered */
		{ 0x1, 0x2, 0xc },	  /* position 3: not in the request */
		{ 0x1, 0x2, 0x80000004 }, /* position 31 */
	};
	unsigned int i;

	rpcrdma_xchar_cfg_init(&ca);
	rpcrdma_xchar_cfg_init(&cb);
	pair(&a, &ca, &b, &cb);
	memset(&r, 0, sizeof(r));
	r.opttype = RPCRDMA_ROPT_RESPXCH;
	r.respxch.done.bits = 0x1;
	r.respxch.rej.bits = 0x6;
	d = wire(&r);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0x40, &d, &out), -EPROTO); /* no request */

	want.n = 3;
	want.vals[0] = kv(RPCRDMA_XCHAR_REQREMINV, 1);
	want.vals[1] = kv(RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_GENL);
	want.vals[2] = kv(RPCRDMA_XCHAR_RBSIZ, 1024);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 0x40, &want, &m), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 1024);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r.respxch.done.bits = bad[i][0];
		r.respxch.rej.bits = bad[i][1];
		r.respxch.pend.bits = bad[i][2];
		d = wire(&r);
		CHECK(rpcrdma_xchar_state_recv(&a, 0x40, &d, &out) == -EPROTO, "case %u", i);
		CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_REQ_SENT);
		CHECK(!a.peer.reqreminv && a.req_pend == 0, "case %u changed state", i);
	}
	r.respxch.done.bits = 0x1;
	r.respxch.rej.bits = 0x6;
	r.respxch.pend.bits = 0;
	d = wire(&r);
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0x41, &d, &out), -EPROTO); /* another XID */
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0x40, &d, &out), 0);
	CHECK(a.peer.reqreminv);
	CHECK_EQ(a.peer.brs, RPCRDMA_BKREQSUP_INLINE);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&a), 4096);		 /* lowering rejected */
	CHECK_EQ(rpcrdma_xchar_state_recv(&a, 0x40, &d, &out), -EPROTO); /* answered already */
	CHECK_EQ(a.proto_errors, 9);

	/* requests the module refuses to send */
	want.n = 0;
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -EINVAL);
	want.n = 2;
	want.vals[0] = kv(RPCRDMA_XCHAR_BRS, 1);
	want.vals[1] = kv(RPCRDMA_XCHAR_BRS, 2);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -EINVAL);
	want.n = 1;
	want.vals[0] = kv(RPCRDMA_XCHAR_REQREMINV, 2);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -EINVAL);
	want.vals[0] = kv(RPCRDMA_XCHAR_RBSIZ, 10);
	CHECK_EQ(rpcrdma_xchar_state_request(&a, 1, &want, &m), -EINVAL);
	CHECK_EQ(a.st, RPCRDMA_XCHAR_ST_READY);
}

/* Our own values: raise after the small receives, no unsolicited lowering, nochg. */
static void check_local(void)
{
	struct rpcrdma_xchar_state a, b;
	struct rpcrdma_xchar_cfg ca, cb;
	struct rpcrdma_xchar_msg m, d, out;
	struct rpcrdma_xchar_rcv rcv = { .size = 4096, .count = 1 };

	rpcrdma_xchar_cfg_init(&ca);
	ca.rbsiz_max = 32768;
	ca.nochg = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	CHECK_EQ(rpcrdma_xchar_state_init(&a, &ca), 0);
	/* IDLE: no receive posted, in force at once */
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 8192, &m), 0);
	CHECK_EQ(a.local.rbsiz, 8192);
	/* NEED_INIT: deferred while smaller receives exist, then carried by INITXCH */
	rpcrdma_xchar_state_connect(&a);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 16384, &m), 0);
	CHECK_EQ(a.local.rbsiz, 8192);
	CHECK_EQ(rpcrdma_xchar_state_post_size(&a), 16384);
	rcv.size = 8192;
	CHECK_EQ(rpcrdma_xchar_state_receives(&a, &rcv, 1, &m), 0);
	rcv.count = 0;
	CHECK_EQ(rpcrdma_xchar_state_receives(&a, &rcv, 1, &m), 0); /* applied, INITXCH to say */
	CHECK_EQ(a.local.rbsiz, 16384);
	CHECK_EQ(rpcrdma_xchar_state_initxch(&a, &m), 0);
	CHECK_EQ(m.initxch.start.vals[0].value, 16384);

	/* READY */
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 8192, &m), -EPERM);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 65536, &m), -EINVAL);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 512, &m), -EINVAL);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_REQREMINV, 1, &m), -EPERM);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_REQREMINV, 0, &m), 0);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_BRS, 3, &m), -EINVAL);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, 99, 1, &m), -EINVAL);
	CHECK_EQ(rpcrdma_xchar_state_local_set(&a, RPCRDMA_XCHAR_RBSIZ, 32768, &m), 0);
	rcv.size = 16384;
	rcv.count = 2;
	CHECK_EQ(rpcrdma_xchar_state_receives(&a, &rcv, 1, &m), 0);
	CHECK_EQ(a.local.rbsiz, 16384);
	rcv.count = 0;
	CHECK_EQ(rpcrdma_xchar_state_receives(&a, &rcv, 1, &m), 1);
	CHECK(!m.updxch.pendclr);
	CHECK_EQ(m.updxch.now.value, 32768);

	/* the peer sees it; the peer said REQREMINV is fixed, and it changes: refused */
	rpcrdma_xchar_cfg_init(&cb);
	CHECK_EQ(rpcrdma_xchar_state_init(&b, &cb), 0);
	rpcrdma_xchar_state_connect(&b);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), 0);
	CHECK_EQ(rpcrdma_xchar_state_max_send(&b), 32768);
	rpcrdma_xchar_state_connect(&b);
	rpcrdma_xchar_state_connect(&a);
	CHECK_EQ(rpcrdma_xchar_state_initxch(&a, &m), 0);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), 0);
	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_UPDXCH;
	m.updxch.now = kv(RPCRDMA_XCHAR_REQREMINV, 1);
	d = wire(&m);
	CHECK_EQ(rpcrdma_xchar_state_recv(&b, 0, &d, &out), -EPROTO);
	CHECK(!rpcrdma_xchar_state_send_inv_ok(&b));
}

int main(void)
{
	check_init();
	check_partial();
	check_pendclr();
	check_lower();
	check_respxch_hostile();
	check_local();
	return test_summary("v2_xchar_state");
}
