/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport characteristics state (xcharext draft sections 3 and 4). See
 * rpcrdma_xchar_state.h for the rules and where they come from.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xchar_state.h>

static const struct rpcrdma_xchar_vals xchar_defaults = {
	.rbsiz = RPCRDMA_XCHAR_RBSIZ_DEFAULT,
	.reqreminv = false,
	.brs = RPCRDMA_BKREQSUP_INLINE,
};

static bool is_known(uint32_t id)
{
	return id == RPCRDMA_XCHAR_RBSIZ || id == RPCRDMA_XCHAR_REQREMINV ||
	       id == RPCRDMA_XCHAR_BRS;
}

/* The bit of an id in an id mask; 0 for an id not known (no shift past 31). */
static uint32_t id_bit(uint32_t id)
{
	return is_known(id) ? RPCRDMA_XCHAR_BIT(id) : 0;
}

static uint32_t val_get(const struct rpcrdma_xchar_vals *v, uint32_t id)
{
	switch (id) {
	case RPCRDMA_XCHAR_RBSIZ:
		return v->rbsiz;
	case RPCRDMA_XCHAR_REQREMINV:
		return v->reqreminv;
	default:
		return v->brs;
	}
}

static void val_set(struct rpcrdma_xchar_vals *v, uint32_t id, uint32_t value)
{
	switch (id) {
	case RPCRDMA_XCHAR_RBSIZ:
		v->rbsiz = value;
		break;
	case RPCRDMA_XCHAR_REQREMINV:
		v->reqreminv = value != 0;
		break;
	default:
		v->brs = value;
		break;
	}
}

/* A value of a known id we accept from anyone (the codec checked bool and enum). */
static bool val_ok(uint32_t id, uint32_t value)
{
	switch (id) {
	case RPCRDMA_XCHAR_RBSIZ:
		return value >= RPCRDMA_XCHAR_RBSIZ_MIN;
	case RPCRDMA_XCHAR_REQREMINV:
		return value <= 1;
	case RPCRDMA_XCHAR_BRS:
		return value <= RPCRDMA_BKREQSUP_GENL;
	default:
		return false;
	}
}

static void xcharval_known(struct rpcrdma_xcharval *x, uint32_t id, uint32_t value)
{
	memset(x, 0, sizeof(*x));
	x->which = id;
	x->known = true;
	x->value = value;
	x->len = 4;
}

static int proto_err(struct rpcrdma_xchar_state *s)
{
	s->proto_errors++;
	return -EPROTO;
}

static uint32_t all_positions(uint32_t n)
{
	return n >= 32 ? UINT32_MAX : (1u << n) - 1;
}

void rpcrdma_xchar_cfg_init(struct rpcrdma_xchar_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->local = xchar_defaults;
	cfg->nochg = 0;
	cfg->changeable =
		RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) | RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	cfg->rbsiz_max = RPCRDMA_XCHAR_RBSIZ_DEFAULT;
}

int rpcrdma_xchar_state_init(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_cfg *cfg)
{
	if (cfg->local.rbsiz < RPCRDMA_XCHAR_RBSIZ_MIN || cfg->local.rbsiz > cfg->rbsiz_max ||
	    cfg->local.brs > RPCRDMA_BKREQSUP_GENL || (cfg->nochg & ~RPCRDMA_XCHAR_KNOWN) ||
	    (cfg->changeable & ~RPCRDMA_XCHAR_KNOWN))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->local = cfg->local;
	s->peer = xchar_defaults;
	s->st = RPCRDMA_XCHAR_ST_IDLE;
	return 0;
}

void rpcrdma_xchar_state_connect(struct rpcrdma_xchar_state *s)
{
	s->st = RPCRDMA_XCHAR_ST_NEED_INIT;
	s->peer = xchar_defaults;
	s->peer_nochg = 0;
	s->peer_init = false;
	s->req_xid = 0;
	s->req_want.n = 0;
	s->req_pend = 0;
	s->rbsiz_limit = 0;
	s->peer_pend = 0;
}

void rpcrdma_xchar_state_disconnect(struct rpcrdma_xchar_state *s)
{
	s->st = RPCRDMA_XCHAR_ST_IDLE;
}

int rpcrdma_xchar_state_initxch(struct rpcrdma_xchar_state *s, struct rpcrdma_xchar_msg *m)
{
	static const uint32_t ids[] = { RPCRDMA_XCHAR_RBSIZ, RPCRDMA_XCHAR_REQREMINV,
					RPCRDMA_XCHAR_BRS };
	unsigned int i;

	if (s->st == RPCRDMA_XCHAR_ST_IDLE)
		return -ENOTCONN;
	if (s->st != RPCRDMA_XCHAR_ST_NEED_INIT)
		return -EALREADY;
	memset(m, 0, sizeof(*m));
	m->opttype = RPCRDMA_ROPT_INITXCH;
	m->initxch.start.n = 3;
	for (i = 0; i < 3; i++) {
		xcharval_known(&m->initxch.start.vals[i], ids[i], val_get(&s->local, ids[i]));
		if (s->cfg.nochg & id_bit(ids[i]))
			m->initxch.nochg.bits |= 1u << i;
	}
	s->st = RPCRDMA_XCHAR_ST_READY;
	return 0;
}

bool rpcrdma_xchar_state_may_send(const struct rpcrdma_xchar_state *s)
{
	return s->st == RPCRDMA_XCHAR_ST_READY || s->st == RPCRDMA_XCHAR_ST_REQ_SENT;
}

int rpcrdma_xchar_state_request(struct rpcrdma_xchar_state *s, uint32_t xid,
				const struct rpcrdma_xcharspec *want, struct rpcrdma_xchar_msg *m)
{
	uint32_t seen = 0, limit = 0, i;

	if (s->st == RPCRDMA_XCHAR_ST_IDLE)
		return -ENOTCONN;
	if (s->st == RPCRDMA_XCHAR_ST_NEED_INIT)
		return -EAGAIN;
	if (s->st == RPCRDMA_XCHAR_ST_REQ_SENT)
		return -EBUSY;
	if (want->n == 0 || want->n > RPCRDMA_XCHAR_MAX)
		return -EINVAL;
	for (i = 0; i < want->n; i++) {
		const struct rpcrdma_xcharval *x = &want->vals[i];

		if (!is_known(x->which))
			continue;
		if (!val_ok(x->which, x->value) || (seen & id_bit(x->which)))
			return -EINVAL;
		if (s->req_pend & id_bit(x->which))
			return -EBUSY;
		seen |= id_bit(x->which);
		if (x->which == RPCRDMA_XCHAR_RBSIZ && x->value < s->peer.rbsiz)
			limit = x->value;
	}
	memset(m, 0, sizeof(*m));
	m->opttype = RPCRDMA_ROPT_REQXCH;
	m->reqxch.want = *want;
	for (i = 0; i < want->n; i++)
		if (is_known(want->vals[i].which)) {
			m->reqxch.want.vals[i].known = true;
			m->reqxch.want.vals[i].len = 4;
		} else {
			m->reqxch.want.vals[i].known = false;
		}
	s->req_want = m->reqxch.want;
	s->req_xid = xid;
	/* 3.1: "use that lower size as the send size limit until the request is rejected" */
	if (limit != 0)
		s->rbsiz_limit = limit;
	s->st = RPCRDMA_XCHAR_ST_REQ_SENT;
	return 0;
}

/* 4.1: the peer's initial values; unknown ids skipped (2.1). */
static int recv_initxch(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_msg *m)
{
	const struct rpcrdma_xcharspec *sp = &m->initxch.start;
	struct rpcrdma_xchar_vals v = xchar_defaults;
	uint32_t nochg = 0, i;

	if (s->peer_init)
		return proto_err(s); /* one per connection, first */
	if (m->initxch.nochg.bits & ~all_positions(sp->n))
		return proto_err(s); /* names an element that is not there */
	for (i = 0; i < sp->n; i++) {
		const struct rpcrdma_xcharval *x = &sp->vals[i];

		if (!x->known || !is_known(x->which))
			continue;
		if (!val_ok(x->which, x->value))
			return proto_err(s);
		val_set(&v, x->which, x->value);
		if (m->initxch.nochg.bits & (1u << i))
			nochg |= id_bit(x->which);
	}
	s->peer = v;
	s->peer_nochg = nochg;
	s->peer_init = true;
	return 0;
}

/* 4.2, 4.3: decide the peer's request; every element lands in exactly one subset. */
static int recv_reqxch(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_msg *m,
		       struct rpcrdma_xchar_msg *out)
{
	const struct rpcrdma_xcharspec *w = &m->reqxch.want;
	struct rpcrdma_xchar_vals nv = s->local;
	uint32_t done = 0, rej = 0, pend = 0, seen = 0, i;
	uint32_t rbsiz_target = s->rbsiz_target, peer_pend = s->peer_pend;

	for (i = 0; i < w->n; i++) {
		const struct rpcrdma_xcharval *x = &w->vals[i];
		uint32_t bit = id_bit(x->which), cur;

		if (!x->known || !is_known(x->which) || (seen & bit) || (s->cfg.nochg & bit) ||
		    !(s->cfg.changeable & bit) || (peer_pend & bit)) {
			rej |= 1u << i;
			continue;
		}
		seen |= bit;
		cur = val_get(&nv, x->which);
		if (x->value == cur) {
			done |= 1u << i;
		} else if (x->which == RPCRDMA_XCHAR_RBSIZ && x->value < cur) {
			/* 3.1: lowered only in answer to a request, as here */
			if (x->value < RPCRDMA_XCHAR_RBSIZ_MIN) {
				rej |= 1u << i;
			} else {
				nv.rbsiz = x->value;
				rbsiz_target = 0;
				done |= 1u << i;
			}
		} else if (x->which == RPCRDMA_XCHAR_RBSIZ) {
			/* 3.1: a raise waits for the smaller receives; partial up to our max */
			uint32_t t = x->value < s->cfg.rbsiz_max ? x->value : s->cfg.rbsiz_max;

			if (t <= cur) {
				rej |= 1u << i;
			} else {
				rbsiz_target = t;
				peer_pend |= bit;
				pend |= 1u << i;
			}
		} else if (x->which == RPCRDMA_XCHAR_REQREMINV) {
			nv.reqreminv = x->value != 0;
			done |= 1u << i;
		} else {
			/* BRS: the engine must prepare or drop backward resources first */
			peer_pend |= bit;
			pend |= 1u << i;
		}
	}
	s->local = nv;
	s->rbsiz_target = rbsiz_target;
	s->peer_pend = peer_pend;
	memset(out, 0, sizeof(*out));
	out->opttype = RPCRDMA_ROPT_RESPXCH;
	out->respxch.done.bits = done;
	out->respxch.rej.bits = rej;
	out->respxch.pend.bits = pend;
	return 1;
}

/* 4.3: the answer to our request. */
static int recv_respxch(struct rpcrdma_xchar_state *s, uint32_t xid,
			const struct rpcrdma_xchar_msg *m)
{
	uint32_t done = m->respxch.done.bits, rej = m->respxch.rej.bits;
	uint32_t pend = m->respxch.pend.bits, all = all_positions(s->req_want.n), i;

	if (s->st != RPCRDMA_XCHAR_ST_REQ_SENT || xid != s->req_xid)
		return proto_err(s); /* answers no request of ours */
	/* "should not overlap and ... should cover the entire set" */
	if ((done & rej) || (done & pend) || (rej & pend) || (done | rej | pend) != all)
		return proto_err(s);
	for (i = 0; i < s->req_want.n; i++) {
		const struct rpcrdma_xcharval *x = &s->req_want.vals[i];

		if (!is_known(x->which))
			continue;
		if (done & (1u << i)) {
			val_set(&s->peer, x->which, x->value);
			if (x->which == RPCRDMA_XCHAR_RBSIZ)
				s->rbsiz_limit = 0;
		} else if (rej & (1u << i)) {
			if (x->which == RPCRDMA_XCHAR_RBSIZ)
				s->rbsiz_limit = 0;
		} else {
			s->req_pend |= id_bit(x->which);
		}
	}
	s->st = RPCRDMA_XCHAR_ST_READY;
	return 0;
}

/* 4.4: a value now in force at the peer; pendclr ends our pending request. */
static int recv_updxch(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_msg *m)
{
	const struct rpcrdma_xcharval *x = &m->updxch.now;
	uint32_t bit = id_bit(x->which);
	bool pending;

	if (!x->known || !is_known(x->which))
		return 0; /* 2.1: unknown and experimental ids are skipped */
	pending = (s->req_pend & bit) != 0;
	if (m->updxch.pendclr && !pending)
		return proto_err(s); /* clears a request never made or already cleared */
	if (!val_ok(x->which, x->value))
		return proto_err(s);
	if ((s->peer_nochg & bit) && x->value != val_get(&s->peer, x->which))
		return proto_err(s); /* the peer said it would not change */
	if (x->which == RPCRDMA_XCHAR_RBSIZ && x->value < s->peer.rbsiz && !pending)
		return proto_err(s); /* 3.1: lowered only when asked */
	val_set(&s->peer, x->which, x->value);
	if (m->updxch.pendclr) {
		s->req_pend &= ~bit;
		if (x->which == RPCRDMA_XCHAR_RBSIZ)
			s->rbsiz_limit = 0;
	}
	return 0;
}

int rpcrdma_xchar_state_recv(struct rpcrdma_xchar_state *s, uint32_t xid,
			     const struct rpcrdma_xchar_msg *m, struct rpcrdma_xchar_msg *out)
{
	if (s->st == RPCRDMA_XCHAR_ST_IDLE)
		return -ENOTCONN;
	switch (m->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		return recv_initxch(s, m);
	case RPCRDMA_ROPT_REQXCH:
		return recv_reqxch(s, m, out);
	case RPCRDMA_ROPT_RESPXCH:
		return recv_respxch(s, xid, m);
	case RPCRDMA_ROPT_UPDXCH:
		return recv_updxch(s, m);
	default:
		return -EINVAL;
	}
}

static int announce(struct rpcrdma_xchar_state *s, uint32_t id, struct rpcrdma_xchar_msg *upd)
{
	uint32_t bit = id_bit(id);

	if (!rpcrdma_xchar_state_may_send(s))
		return 0; /* the ROPT_INITXCH to come carries it */
	memset(upd, 0, sizeof(*upd));
	upd->opttype = RPCRDMA_ROPT_UPDXCH;
	xcharval_known(&upd->updxch.now, id, val_get(&s->local, id));
	/* 4.4: pendclr only when completing the peer's request */
	upd->updxch.pendclr = (s->peer_pend & bit) != 0;
	s->peer_pend &= ~bit;
	return 1;
}

int rpcrdma_xchar_state_local_set(struct rpcrdma_xchar_state *s, uint32_t id, uint32_t value,
				  struct rpcrdma_xchar_msg *upd)
{
	uint32_t cur;

	if (!is_known(id) || !val_ok(id, value) ||
	    (id == RPCRDMA_XCHAR_RBSIZ && value > s->cfg.rbsiz_max))
		return -EINVAL;
	cur = val_get(&s->local, id);
	if (value != cur && (s->cfg.nochg & id_bit(id)))
		return -EPERM;
	if (id == RPCRDMA_XCHAR_RBSIZ) {
		if (value < cur)
			return -EPERM; /* 3.1: only in answer to a request */
		if (value == cur) {
			s->rbsiz_target = 0;
			return 0;
		}
		if (s->st == RPCRDMA_XCHAR_ST_IDLE) {
			s->local.rbsiz = value; /* no receive is posted */
			s->rbsiz_target = 0;
			return 0;
		}
		s->rbsiz_target = value;
		return 0;
	}
	if (value == cur && !(s->peer_pend & id_bit(id)))
		return 0;
	val_set(&s->local, id, value);
	return announce(s, id, upd);
}

int rpcrdma_xchar_state_receives(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_rcv *rcv,
				 unsigned int n, struct rpcrdma_xchar_msg *upd)
{
	unsigned int i;

	if (s->rbsiz_target == 0 || s->st == RPCRDMA_XCHAR_ST_IDLE)
		return 0;
	/* 3.1: "not be informed ... until all pending receives using the older value" are gone */
	for (i = 0; i < n; i++)
		if (rcv[i].count != 0 && rcv[i].size < s->rbsiz_target)
			return 0;
	s->local.rbsiz = s->rbsiz_target;
	s->rbsiz_target = 0;
	return announce(s, RPCRDMA_XCHAR_RBSIZ, upd);
}

uint32_t rpcrdma_xchar_state_post_size(const struct rpcrdma_xchar_state *s)
{
	return s->rbsiz_target > s->local.rbsiz ? s->rbsiz_target : s->local.rbsiz;
}

uint32_t rpcrdma_xchar_state_max_send(const struct rpcrdma_xchar_state *s)
{
	if (s->rbsiz_limit != 0 && s->rbsiz_limit < s->peer.rbsiz)
		return s->rbsiz_limit;
	return s->peer.rbsiz;
}

bool rpcrdma_xchar_state_send_inv_ok(const struct rpcrdma_xchar_state *s)
{
	return s->peer.reqreminv;
}

uint32_t rpcrdma_xchar_state_peer_brs(const struct rpcrdma_xchar_state *s)
{
	return s->peer.brs;
}

const char *rpcrdma_xchar_st_name(enum rpcrdma_xchar_st st)
{
	switch (st) {
	case RPCRDMA_XCHAR_ST_IDLE:
		return "IDLE";
	case RPCRDMA_XCHAR_ST_NEED_INIT:
		return "NEED_INIT";
	case RPCRDMA_XCHAR_ST_READY:
		return "READY";
	case RPCRDMA_XCHAR_ST_REQ_SENT:
		return "REQ_SENT";
	}
	return "UNKNOWN";
}
