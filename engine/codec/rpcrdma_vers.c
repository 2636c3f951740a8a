/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC-over-RDMA version negotiation (version two draft section 5;
 * rfc5666bis 5.5.1 and 9.1 for ERR_VERS). See rpcrdma_vers.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_vers.h>

/* ------------------------------------------------------------ peer memory */

static size_t addr_len(const char *addr)
{
	if (addr == NULL)
		return 0;
	return strnlen(addr, RPCRDMA_VERS_ADDR_MAX);
}

static bool addr_ok(const char *addr)
{
	size_t n = addr_len(addr);

	return n > 0 && n < RPCRDMA_VERS_ADDR_MAX;
}

static struct rpcrdma_vers_peer *peers_find(struct rpcrdma_vers_peers *m, const char *addr)
{
	unsigned int i;

	for (i = 0; i < RPCRDMA_VERS_PEERS_MAX; i++)
		if (m->ent[i].addr[0] != '\0' && strcmp(m->ent[i].addr, addr) == 0)
			return &m->ent[i];
	return NULL;
}

void rpcrdma_vers_peers_init(struct rpcrdma_vers_peers *m)
{
	memset(m, 0, sizeof(*m));
}

uint32_t rpcrdma_vers_peers_lookup(struct rpcrdma_vers_peers *m, const char *addr)
{
	struct rpcrdma_vers_peer *p;

	if (!addr_ok(addr))
		return 0;
	p = peers_find(m, addr);
	if (p == NULL)
		return 0;
	p->used = ++m->clock;
	return p->vers;
}

int rpcrdma_vers_peers_remember(struct rpcrdma_vers_peers *m, const char *addr, uint32_t vers)
{
	struct rpcrdma_vers_peer *p;
	unsigned int i;

	if (!addr_ok(addr) || (vers != RPCRDMA_VERS_1 && vers != RPCRDMA_VERS_2))
		return -EINVAL;
	p = peers_find(m, addr);
	if (p == NULL) {
		/* a free entry (used 0) or else the least recently used */
		p = &m->ent[0];
		for (i = 1; i < RPCRDMA_VERS_PEERS_MAX && p->addr[0] != '\0'; i++)
			if (m->ent[i].addr[0] == '\0' || m->ent[i].used < p->used)
				p = &m->ent[i];
		memcpy(p->addr, addr, addr_len(addr) + 1);
	}
	p->vers = vers;
	p->used = ++m->clock;
	return 0;
}

int rpcrdma_vers_peers_forget(struct rpcrdma_vers_peers *m, const char *addr)
{
	struct rpcrdma_vers_peer *p;

	if (!addr_ok(addr))
		return -ENOENT;
	p = peers_find(m, addr);
	if (p == NULL)
		return -ENOENT;
	memset(p, 0, sizeof(*p));
	return 0;
}

/* ------------------------------------------------------------ requester */

int rpcrdma_vers_req_init(struct rpcrdma_vers_req *v, enum rpcrdma_vers_req_cfg cfg,
			  struct rpcrdma_vers_peers *peers)
{
	if (cfg != RPCRDMA_VERS_REQ_V1_ONLY && cfg != RPCRDMA_VERS_REQ_V2_PREFERRED)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	v->cfg = cfg;
	v->peers = peers;
	v->state = RPCRDMA_VERS_REQ_IDLE;
	return 0;
}

static void req_remember(struct rpcrdma_vers_req *v, uint32_t vers)
{
	if (v->peers != NULL && v->addr[0] != '\0')
		(void)rpcrdma_vers_peers_remember(v->peers, v->addr, vers);
}

enum rpcrdma_vers_req_state rpcrdma_vers_req_connect(struct rpcrdma_vers_req *v, const char *addr)
{
	v->addr[0] = '\0';
	if (addr_ok(addr))
		memcpy(v->addr, addr, addr_len(addr) + 1);
	v->probe_xid = 0;
	v->peer_low = 0;
	v->peer_high = 0;
	if (v->cfg == RPCRDMA_VERS_REQ_V1_ONLY)
		v->state = RPCRDMA_VERS_REQ_V1;
	else if (v->peers != NULL && v->addr[0] != '\0' &&
		 rpcrdma_vers_peers_lookup(v->peers, v->addr) == RPCRDMA_VERS_1)
		/* 5.2: assume the responder does not support version 2 */
		v->state = RPCRDMA_VERS_REQ_V1;
	else
		v->state = RPCRDMA_VERS_REQ_PROBE;
	return v->state;
}

void rpcrdma_vers_req_disconnect(struct rpcrdma_vers_req *v)
{
	/* 5.2: "the same situation ... if the initial negotiation message is lost or dropped" */
	if (v->state == RPCRDMA_VERS_REQ_PROBE_SENT)
		req_remember(v, RPCRDMA_VERS_1);
	v->state = RPCRDMA_VERS_REQ_IDLE;
}

int rpcrdma_vers_req_send_vers(const struct rpcrdma_vers_req *v)
{
	switch (v->state) {
	case RPCRDMA_VERS_REQ_PROBE:
	case RPCRDMA_VERS_REQ_V2:
		return RPCRDMA_VERS_2;
	case RPCRDMA_VERS_REQ_V1:
		return RPCRDMA_VERS_1;
	case RPCRDMA_VERS_REQ_PROBE_SENT:
		return -EAGAIN;
	case RPCRDMA_VERS_REQ_FAILED:
		return -EPROTONOSUPPORT;
	case RPCRDMA_VERS_REQ_IDLE:
	default:
		return -ENOTCONN;
	}
}

int rpcrdma_vers_req_sent(struct rpcrdma_vers_req *v, uint32_t xid, uint32_t len)
{
	int vers = rpcrdma_vers_req_send_vers(v);

	if (vers < 0)
		return vers;
	if (v->state == RPCRDMA_VERS_REQ_PROBE) {
		/* 5: "this initial message can be no larger than ... 1024 bytes" */
		if (len > RPCRDMA_VERS_PROBE_MAX)
			return -EMSGSIZE;
		v->probe_xid = xid;
		v->state = RPCRDMA_VERS_REQ_PROBE_SENT;
	}
	return 0;
}

static bool is_err_vers(const struct rpcrdma_hdr *h)
{
	/* RDMA_ERROR/ERR_VERS and RDMA2_ERROR/RDMA2_ERR_VERS share values and offsets */
	return h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS;
}

static bool range_has(const struct rpcrdma_hdr *h, uint32_t vers)
{
	return h->error.low <= vers && vers <= h->error.high;
}

int rpcrdma_vers_req_recv(struct rpcrdma_vers_req *v, const struct rpcrdma_hdr *h)
{
	switch (v->state) {
	case RPCRDMA_VERS_REQ_IDLE:
		return -ENOTCONN;
	case RPCRDMA_VERS_REQ_FAILED:
		return -EPROTONOSUPPORT;
	case RPCRDMA_VERS_REQ_PROBE:
	case RPCRDMA_VERS_REQ_PROBE_SENT:
		if (is_err_vers(h)) {
			if (v->state != RPCRDMA_VERS_REQ_PROBE_SENT || h->xid != v->probe_xid)
				return -EPROTO; /* answers nothing we sent */
			v->peer_low = h->error.low;
			v->peer_high = h->error.high;
			if (!range_has(h, RPCRDMA_VERS_1)) {
				v->state = RPCRDMA_VERS_REQ_FAILED;
				return -EPROTONOSUPPORT;
			}
			/* 5.2: continue in a version in the responder's range */
			v->state = RPCRDMA_VERS_REQ_V1;
			req_remember(v, RPCRDMA_VERS_1);
			return RPCRDMA_VERS_REQ_EV_RESEND_V1;
		}
		/* 5.3: a responder answers in the version it was sent */
		if (h->vers != RPCRDMA_VERS_2)
			return -EPROTO;
		/* 5.1: any version 2 message but ERR_VERS shows version 2 support */
		v->state = RPCRDMA_VERS_REQ_V2;
		req_remember(v, RPCRDMA_VERS_2);
		return RPCRDMA_VERS_REQ_EV_V2;
	case RPCRDMA_VERS_REQ_V1:
		if (is_err_vers(h)) {
			v->peer_low = h->error.low;
			v->peer_high = h->error.high;
			if (range_has(h, RPCRDMA_VERS_1))
				return -EPROTO; /* rejects version 1 while claiming it */
			v->state = RPCRDMA_VERS_REQ_FAILED;
			return -EPROTONOSUPPORT;
		}
		return h->vers == RPCRDMA_VERS_1 ? RPCRDMA_VERS_REQ_EV_NONE : -EPROTO;
	case RPCRDMA_VERS_REQ_V2:
		if (is_err_vers(h) || h->vers != RPCRDMA_VERS_2)
			return -EPROTO;
		return RPCRDMA_VERS_REQ_EV_NONE;
	}
	return -EINVAL;
}

uint32_t rpcrdma_vers_req_inline_send(const struct rpcrdma_vers_req *v)
{
	switch (v->state) {
	case RPCRDMA_VERS_REQ_PROBE:
	case RPCRDMA_VERS_REQ_PROBE_SENT:
	case RPCRDMA_VERS_REQ_V1:
		return RPCRDMA_V1_INLINE_DEFAULT;
	case RPCRDMA_VERS_REQ_V2:
		return RPCRDMA_V2_INLINE_DEFAULT;
	default:
		return 0;
	}
}

uint32_t rpcrdma_vers_req_inline_recv(const struct rpcrdma_vers_req *v)
{
	switch (v->state) {
	case RPCRDMA_VERS_REQ_PROBE:
	case RPCRDMA_VERS_REQ_PROBE_SENT:
	case RPCRDMA_VERS_REQ_V2:
		return RPCRDMA_V2_INLINE_DEFAULT;
	case RPCRDMA_VERS_REQ_V1:
		return RPCRDMA_V1_INLINE_DEFAULT;
	default:
		return 0;
	}
}

const char *rpcrdma_vers_req_state_name(enum rpcrdma_vers_req_state s)
{
	switch (s) {
	case RPCRDMA_VERS_REQ_IDLE:
		return "IDLE";
	case RPCRDMA_VERS_REQ_PROBE:
		return "PROBE";
	case RPCRDMA_VERS_REQ_PROBE_SENT:
		return "PROBE_SENT";
	case RPCRDMA_VERS_REQ_V2:
		return "V2";
	case RPCRDMA_VERS_REQ_V1:
		return "V1";
	case RPCRDMA_VERS_REQ_FAILED:
		return "FAILED";
	}
	return "UNKNOWN";
}

/* ------------------------------------------------------------ responder */

int rpcrdma_vers_resp_init(struct rpcrdma_vers_resp *r, enum rpcrdma_vers_resp_cfg cfg)
{
	if (cfg != RPCRDMA_VERS_RESP_V1_ONLY && cfg != RPCRDMA_VERS_RESP_V2_ONLY &&
	    cfg != RPCRDMA_VERS_RESP_BOTH)
		return -EINVAL;
	r->cfg = cfg;
	r->state = RPCRDMA_VERS_RESP_WAIT;
	r->err_vers = 0;
	return 0;
}

int rpcrdma_vers_resp_recv(struct rpcrdma_vers_resp *r, uint32_t vers,
			   struct rpcrdma_vers_answer *ans)
{
	uint32_t low, high;

	switch (r->state) {
	case RPCRDMA_VERS_RESP_V1:
		low = high = RPCRDMA_VERS_1;
		break;
	case RPCRDMA_VERS_RESP_V2:
		low = high = RPCRDMA_VERS_2;
		break;
	case RPCRDMA_VERS_RESP_WAIT:
	default:
		low = r->cfg == RPCRDMA_VERS_RESP_V2_ONLY ? RPCRDMA_VERS_2 : RPCRDMA_VERS_1;
		high = r->cfg == RPCRDMA_VERS_RESP_V1_ONLY ? RPCRDMA_VERS_1 : RPCRDMA_VERS_2;
		break;
	}
	if (vers >= low && vers <= high) {
		/* rfc5666bis via 5.3: replies in the version the requester uses */
		ans->accept = true;
		ans->reply_vers = vers;
		ans->low = 0;
		ans->high = 0;
		if (r->state == RPCRDMA_VERS_RESP_WAIT)
			r->state = vers == RPCRDMA_VERS_2 ? RPCRDMA_VERS_RESP_V2
							  : RPCRDMA_VERS_RESP_V1;
		return 0;
	}
	/*
	 * rfc5666bis 5.5.1: ERR_VERS with the range we support. In version 1:
	 * 5.5 wants a version "otherwise valid at the receiver", and 9.1 keeps
	 * the header's first fields at fixed offsets, so any requester reads it.
	 */
	ans->accept = false;
	ans->reply_vers = RPCRDMA_VERS_1;
	ans->low = low;
	ans->high = high;
	r->err_vers++;
	return 0;
}

int rpcrdma_vers_resp_err_hdr(const struct rpcrdma_vers_answer *ans, uint32_t xid, uint32_t credit,
			      struct rpcrdma_hdr *h)
{
	if (ans->accept)
		return -EINVAL;
	h->xid = xid;
	h->vers = ans->reply_vers;
	h->credit = credit;
	h->proc = RPCRDMA_ERROR;
	h->hdr_len = 0;
	h->error.code = RPCRDMA_ERR_VERS;
	h->error.low = ans->low;
	h->error.high = ans->high;
	return 0;
}

uint32_t rpcrdma_vers_resp_inline_send(const struct rpcrdma_vers_resp *r)
{
	return r->state == RPCRDMA_VERS_RESP_V2 ? RPCRDMA_V2_INLINE_DEFAULT
						: RPCRDMA_V1_INLINE_DEFAULT;
}

uint32_t rpcrdma_vers_resp_inline_recv(const struct rpcrdma_vers_resp *r)
{
	return r->cfg == RPCRDMA_VERS_RESP_V1_ONLY ? RPCRDMA_V1_INLINE_DEFAULT
						   : RPCRDMA_V2_INLINE_DEFAULT;
}

const char *rpcrdma_vers_resp_state_name(enum rpcrdma_vers_resp_state s)
{
	switch (s) {
	case RPCRDMA_VERS_RESP_WAIT:
		return "WAIT";
	case RPCRDMA_VERS_RESP_V1:
		return "V1";
	case RPCRDMA_VERS_RESP_V2:
		return "V2";
	}
	return "UNKNOWN";
}
