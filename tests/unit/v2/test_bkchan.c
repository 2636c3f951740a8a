/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backward channel (bidirection draft / RFC 8167, xcharext 3.3): XID
 * spaces, direction of received messages in both versions, the forms a
 * backward message may take, backward credits and receives, readiness,
 * and backward calls kept across a reconnect.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_bkchan.h>
#include <rpcrdma/rpcrdma_xchar.h>

#include "test_check.h"

static struct rpcrdma_hdr mk(uint32_t xid, uint32_t vers, uint32_t proc, uint32_t dir)
{
	struct rpcrdma_hdr h;

	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.vers = vers;
	h.credit = 4;
	h.proc = proc;
	if (proc == RPCRDMA_OPTIONAL)
		h.optional.optdir = dir;
	else if (proc != RPCRDMA_ERROR)
		h.chunks.direction = dir;
	return h;
}

/* The first RPC words, big-endian: xid, msg_type. */
static void rpcw(uint8_t *b, uint32_t xid, uint32_t type)
{
	b[0] = (uint8_t)(xid >> 24);
	b[1] = (uint8_t)(xid >> 16);
	b[2] = (uint8_t)(xid >> 8);
	b[3] = (uint8_t)xid;
	b[4] = (uint8_t)(type >> 24);
	b[5] = (uint8_t)(type >> 16);
	b[6] = (uint8_t)(type >> 8);
	b[7] = (uint8_t)type;
}

static void check_xids(void)
{
	struct rpcrdma_bkchan_xids x;

	rpcrdma_bkchan_xids_init(&x, 100, 100);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_FORWARD), 100);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_FORWARD), 101);
	/* the backward space is untouched by the forward one: 100 again (1.3.4.1) */
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_BACKWARD), 100);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_FORWARD), 102);
	rpcrdma_bkchan_xids_init(&x, UINT32_MAX, 7);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_FORWARD), UINT32_MAX);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_FORWARD), 0);
	CHECK_EQ(rpcrdma_bkchan_xid_alloc(&x, RPCRDMA_BKCHAN_BACKWARD), 7);
}

static int cls(enum rpcrdma_bkchan_role role, const struct rpcrdma_hdr *h, const uint8_t *rpc,
	       uint32_t len, struct rpcrdma_bkchan_class *c)
{
	memset(c, 0xa5, sizeof(*c));
	return rpcrdma_bkchan_classify(role, h, rpc, len, c);
}

static void check_classify(void)
{
	const enum rpcrdma_bkchan_role C = RPCRDMA_BKCHAN_CLIENT, S = RPCRDMA_BKCHAN_SERVER;
	struct rpcrdma_bkchan_class c;
	struct rpcrdma_hdr h;
	uint8_t rpc[16];

	/* v1: by the RPC msg_type */
	h = mk(9, 1, RPCRDMA_MSG, 0);
	rpcw(rpc, 9, RPCRDMA_CALL);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), 0);
	CHECK(c.msg_type == RPCRDMA_CALL && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	CHECK_EQ(cls(S, &h, rpc, 16, &c), 0);
	CHECK(c.msg_type == RPCRDMA_CALL && c.dir == RPCRDMA_BKCHAN_FORWARD);
	rpcw(rpc, 9, RPCRDMA_REPLY);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_FORWARD);
	CHECK_EQ(cls(S, &h, rpc, 16, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	rpcw(rpc, 9, 2);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), -RPCRDMA_E_ENUM);
	rpcw(rpc, 8, RPCRDMA_CALL);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), -EPROTO); /* RPC xid is not rdma_xid */
	rpcw(rpc, 9, RPCRDMA_CALL);
	CHECK_EQ(cls(C, &h, rpc, 7, &c), -RPCRDMA_E_TRUNC);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), -RPCRDMA_E_TRUNC);
	h = mk(9, 1, RPCRDMA_NOMSG, 0);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_FORWARD);
	CHECK_EQ(cls(S, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_CALL && c.dir == RPCRDMA_BKCHAN_FORWARD);
	h = mk(9, 1, RPCRDMA_ERROR, 0);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_FORWARD);
	CHECK_EQ(cls(S, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	h = mk(9, 1, RPCRDMA_DONE, 0);
	CHECK_EQ(cls(S, &h, NULL, 0, &c), -EPROTO);
	h = mk(9, 3, RPCRDMA_MSG, 0);
	CHECK_EQ(cls(S, &h, rpc, 16, &c), -EPROTO);

	/* v2: by rdma_direction, which must agree with the payload */
	h = mk(9, 2, RPCRDMA_MSG, RPCRDMA_CALL);
	rpcw(rpc, 9, RPCRDMA_CALL);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), 0);
	CHECK(c.msg_type == RPCRDMA_CALL && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	rpcw(rpc, 9, RPCRDMA_REPLY);
	CHECK_EQ(cls(C, &h, rpc, 16, &c), -EPROTO); /* direction CALL, msg_type REPLY */
	h = mk(9, 2, RPCRDMA_MSG, RPCRDMA_REPLY);
	rpcw(rpc, 9, RPCRDMA_CALL);
	CHECK_EQ(cls(S, &h, rpc, 16, &c), -EPROTO);
	rpcw(rpc, 9, 7);
	CHECK_EQ(cls(S, &h, rpc, 16, &c), -EPROTO);
	h = mk(9, 2, RPCRDMA_NOMSG, RPCRDMA_REPLY);
	CHECK_EQ(cls(S, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	h = mk(9, 2, RPCRDMA_NOMSG, RPCRDMA_CALL);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_CALL && c.dir == RPCRDMA_BKCHAN_BACKWARD);
	h = mk(9, 2, RPCRDMA_OPTIONAL, RPCRDMA_REPLY);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), 0);
	CHECK(c.msg_type == RPCRDMA_REPLY && c.dir == RPCRDMA_BKCHAN_FORWARD);
	h = mk(9, 2, RPCRDMA_OPTIONAL, 5);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), -RPCRDMA_E_ENUM);
	h = mk(9, 1, RPCRDMA_OPTIONAL, 0);
	CHECK_EQ(cls(C, &h, NULL, 0, &c), -EPROTO);
}

static void check_form(void)
{
	struct rpcrdma_read_segment rs;
	struct rpcrdma_hdr h;

	memset(&rs, 0, sizeof(rs));
	h = mk(1, 1, RPCRDMA_MSG, 0);
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 1024, 1024), 0);
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 1025, 1024), -EMSGSIZE);
	h.chunks.nreads = 1;
	h.chunks.reads = &rs;
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 100, 1024), -EPERM); /* chunks in v1 */
	CHECK_EQ(rpcrdma_bkchan_infer_brs(&h), RPCRDMA_BKREQSUP_GENL);
	h.chunks.nreads = 0;
	h.chunks.has_reply = true;
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 100, 1024), -EPERM);
	h.chunks.has_reply = false;
	h.chunks.nwrites = 1;
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 100, 1024), -EPERM);
	h = mk(1, 1, RPCRDMA_NOMSG, 0);
	h.chunks.has_reply = true;
	CHECK_EQ(rpcrdma_bkchan_check_send(1, 0, &h, 100, 1024), -EPERM);

	/* v2 by the peer's BRS */
	h = mk(1, 2, RPCRDMA_MSG, RPCRDMA_CALL);
	CHECK_EQ(rpcrdma_bkchan_infer_brs(&h), RPCRDMA_BKREQSUP_INLINE);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_NONE, &h, 100, 4096), -ECONNREFUSED);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_INLINE, &h, 4096, 4096), 0);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_INLINE, &h, 4097, 4096), -EMSGSIZE);
	h.chunks.nwrites = 1;
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_INLINE, &h, 100, 4096), -EPERM);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_GENL, &h, 100, 4096), 0);
	h = mk(1, 2, RPCRDMA_NOMSG, RPCRDMA_CALL);
	h.chunks.nreads = 1;
	h.chunks.reads = &rs;
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_GENL, &h, 100, 4096), 0);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_INLINE, &h, 100, 4096), -EPERM);
	h = mk(1, 2, RPCRDMA_OPTIONAL, RPCRDMA_CALL);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, RPCRDMA_BKREQSUP_GENL, &h, 100, 4096), -EPERM);
	CHECK_EQ(rpcrdma_bkchan_check_send(2, 3, &h, 100, 4096), -EINVAL);
	CHECK_EQ(rpcrdma_bkchan_check_send(3, 1, &h, 100, 4096), -EINVAL);
}

static void check_client(void)
{
	struct rpcrdma_bkchan_cli c;

	CHECK_EQ(rpcrdma_bkchan_cli_init(&c, 0), -EINVAL);
	CHECK_EQ(rpcrdma_bkchan_cli_init(&c, 4), 0);
	rpcrdma_bkchan_cli_connect(&c);
	CHECK_EQ(rpcrdma_bkchan_cli_to_post(&c), 4);	   /* the advertised backward credits */
	CHECK_EQ(rpcrdma_bkchan_cli_call(&c, 1), -EINVAL); /* nothing posted */
	rpcrdma_bkchan_cli_posted(&c, 4);
	CHECK_EQ(rpcrdma_bkchan_cli_to_post(&c), 0);
	CHECK_EQ(rpcrdma_bkchan_cli_call(&c, 2), 0);
	CHECK_EQ(rpcrdma_bkchan_cli_to_post(&c), 1);
	CHECK_EQ(rpcrdma_bkchan_cli_reply(&c), 3); /* 3 posted + 0 other active, never 0 */
	CHECK_EQ(rpcrdma_bkchan_cli_reply(&c), -EINVAL);
	/* rdma_credit 0 in a backward call: dropped, receive consumed */
	CHECK_EQ(rpcrdma_bkchan_cli_call(&c, 0), -EPROTO);
	CHECK_EQ(c.zero_credit, 1);
	CHECK_EQ(c.credit.active, 0);
	CHECK_EQ(c.credit.posted, 2);
	CHECK_EQ(rpcrdma_bkchan_cli_reply(&c), -EINVAL);
	/* reconnect: every posted receive was flushed: a full set again */
	rpcrdma_bkchan_cli_connect(&c);
	CHECK_EQ(rpcrdma_bkchan_cli_to_post(&c), 4);
	rpcrdma_bkchan_cli_posted(&c, 4);
	CHECK_EQ(rpcrdma_bkchan_cli_call(&c, 1), 0);
	CHECK_EQ(rpcrdma_bkchan_cli_reply(&c), 3);
}

static void check_server(void)
{
	struct rpcrdma_bkchan_call calls[3];
	struct rpcrdma_bkchan_srv s;
	int a = 1, b = 2, d = 3, e = 4;
	uint32_t xid;
	void *ctx;

	CHECK_EQ(rpcrdma_bkchan_srv_init(&s, 0, calls, 3), -EINVAL);
	CHECK_EQ(rpcrdma_bkchan_srv_init(&s, 8, calls, 0), -EINVAL);
	CHECK_EQ(rpcrdma_bkchan_srv_init(&s, 8, calls, 3), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_may_call(&s), -ENOTCONN);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 1, &a), -ENOTCONN);

	/* v1: not before the client said it is ready */
	rpcrdma_bkchan_srv_connect(&s, 1);
	CHECK_EQ(rpcrdma_bkchan_srv_may_call(&s), -ECONNREFUSED);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 1, &a), -ECONNREFUSED);
	CHECK_EQ(rpcrdma_bkchan_srv_count(&s, RPCRDMA_BKCHAN_CALL_SENT), 0);
	rpcrdma_bkchan_srv_set_ready(&s, true);
	CHECK_EQ(rpcrdma_bkchan_srv_may_call(&s), 0);
	/* one backward credit until the first backward reply */
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 1, &a), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 2, &b), -EAGAIN);
	CHECK_EQ(rpcrdma_bkchan_srv_reply(&s, 7, 2, &ctx), -ENOENT);
	CHECK_EQ(rpcrdma_bkchan_srv_reply(&s, 1, 2, &ctx), 0);
	CHECK(ctx == &a);
	CHECK_EQ(s.credit.grant, 2);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 2, &b), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 2, &b), -EEXIST);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 3, &d), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_reply(&s, 3, 0, &ctx), -EPROTO); /* credit 0 */
	CHECK(ctx == &d);
	CHECK_EQ(s.credit.grant, 2);
	CHECK_EQ(s.zero_credit, 1);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 4, &d), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_count(&s, RPCRDMA_BKCHAN_CALL_SENT), 2);

	/* the connection is lost with calls 2 and 4 outstanding: kept for resend */
	rpcrdma_bkchan_srv_disconnect(&s);
	CHECK_EQ(rpcrdma_bkchan_srv_count(&s, RPCRDMA_BKCHAN_CALL_RESEND), 2);
	CHECK_EQ(rpcrdma_bkchan_srv_reply(&s, 2, 1, &ctx), -ENOENT); /* not on this connection */
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), -ENOTCONN);
	rpcrdma_bkchan_srv_connect(&s, 1);
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), -ECONNREFUSED);
	rpcrdma_bkchan_srv_set_ready(&s, true);
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), 1);
	CHECK(xid == 2 && ctx == &b);					   /* oldest first */
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), -EAGAIN); /* one credit */
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 5, &e), -EAGAIN);
	CHECK_EQ(rpcrdma_bkchan_srv_reply(&s, 2, 3, &ctx), 0);
	CHECK(ctx == &b);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 5, &e), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 6, &a), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_call(&s, 7, &a), -ENOBUFS);	     /* 4, 5, 6 kept */
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), 1); /* third of grant 3 */
	CHECK(xid == 4 && ctx == &d);
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), 0);
	CHECK_EQ(s.credit.outstanding, 3);
	CHECK_EQ(rpcrdma_bkchan_srv_cancel(&s, 6, &ctx), 0);
	CHECK(ctx == &a);
	CHECK_EQ(s.credit.outstanding, 2);
	CHECK_EQ(rpcrdma_bkchan_srv_cancel(&s, 6, &ctx), -ENOENT);
	CHECK_EQ(rpcrdma_bkchan_srv_count(&s, RPCRDMA_BKCHAN_CALL_RESEND), 0);
	CHECK_EQ(rpcrdma_bkchan_srv_count(&s, RPCRDMA_BKCHAN_CALL_SENT), 2);

	/* v2: the default BRS INLINE allows calls; NONE refuses them */
	rpcrdma_bkchan_srv_disconnect(&s);
	rpcrdma_bkchan_srv_connect(&s, 2);
	CHECK_EQ(rpcrdma_bkchan_srv_may_call(&s), 0);
	rpcrdma_bkchan_srv_set_peer_brs(&s, RPCRDMA_BKREQSUP_NONE);
	CHECK_EQ(rpcrdma_bkchan_srv_may_call(&s), -ECONNREFUSED);
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), -ECONNREFUSED);
	rpcrdma_bkchan_srv_set_peer_brs(&s, RPCRDMA_BKREQSUP_GENL);
	CHECK_EQ(rpcrdma_bkchan_srv_next_resend(&s, &xid, &ctx), 1);
	CHECK_EQ(xid, 4);
}

int main(void)
{
	check_xids();
	check_classify();
	check_form();
	check_client();
	check_server();
	return test_summary("v2_bkchan");
}
