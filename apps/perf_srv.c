/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's server (perf_srv.h): the test program's procedures, the
 * connections of any number of clients (up to --max-connections; one more
 * refused with a line), their arrivals and leaves, the poll of their poll
 * group; and the ends both sides open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_telemetry.h>

#include "perf_srv.h"

#define PROG "rpcrdma-perf"

void perf_ep_close(struct perf_ep *ep)
{
	if (ep->xprt && rpcrdma_xprt_destroy(ep->xprt) != 0)
		fprintf(stderr, PROG ": warning: a connection could not be destroyed\n");
	if (ep->grp && rpcrdma_xprt_group_destroy(ep->grp) != 0)
		fprintf(stderr, PROG ": warning: the poll group could not be destroyed\n");
	/* the listener first: a device with one open refuses to close */
	if (ep->listener)
		rpcrdma_pmd_listener_close(ep->listener);
	app_ep_close(&ep->base);
	memset(ep, 0, sizeof(*ep));
}

bool perf_xprt_gone(const struct rpcrdma_xprt *x)
{
	enum rpcrdma_xprt_state st = rpcrdma_xprt_state(x);

	return st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR;
}

/* ------------------------------------------------------------ server */

/* The payload's bytes: checked at three places per call, which costs nothing. */
static inline uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + 1);
}

void perf_pattern_fill(void *buf, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern(i);
}

bool perf_pattern_ok(const void *buf, uint32_t len)
{
	const uint8_t *b = buf;

	return b[0] == pattern(0) && b[len / 2] == pattern(len / 2) &&
	       b[len - 1] == pattern(len - 1);
}

/*
 * The test program's procedures: raw (each reads its arguments and writes
 * its results on the streams itself). Arguments that do not decode, or
 * bytes after them, are GARBAGE_ARGS; the dispatcher answers the wrong
 * version (PROG_MISMATCH 1..1) and an unknown procedure (PROC_UNAVAIL).
 */
static int srv_null(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return rpcrdma_xdr_dec_left(req->args) == 0 ? RPCRDMA_SVC_OK : RPCRDMA_SVC_GARBAGE;
}

/*
 * The shard that polls the lcore of counter slot @slot: with --pollers the
 * program's ctx is the lead (the shards share its registry), and a reply's
 * buffer must be registered on the device of the connection's shard.
 */
static const struct perf_srv *srv_shard(const struct perf_srv *s, uint32_t slot)
{
	for (uint32_t k = 0; s->shards != NULL && k < s->nshards; k++)
		if (s->shards[k].glue.slot == slot)
			return &s->shards[k];
	return s;
}

/* uint32 len -> opaque data<>, DDP-eligible: a write chunk, or inline */
static int srv_read(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const struct perf_srv *s = srv_shard(req->prog_ctx, req->slot);
	struct rpcrdma_xdr_region reg;
	uint32_t len;

	if (rpcrdma_xdr_get_u32(req->args, &len) || len > PERF_SIZE_MAX ||
	    rpcrdma_xdr_dec_left(req->args) != 0)
		return RPCRDMA_SVC_GARBAGE;
	reg = rpcrdma_xdr_region_va(s->src, len, s->src_pool->lkey, s->src_pool->rkey);
	return rpcrdma_xdr_put_ddp(req->reply, &reg);
}

/* opaque data<> (in place in the read chunk's buffer) -> uint32 len */
static int srv_write(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const void *p;
	uint32_t len;

	if (rpcrdma_xdr_get_ddp(req->args, PERF_SIZE_MAX, &p, &len) ||
	    (len > 0 && !perf_pattern_ok(p, len)) || rpcrdma_xdr_dec_left(req->args) != 0)
		return RPCRDMA_SVC_GARBAGE;
	return rpcrdma_xdr_put_u32(req->reply, len);
}

static const struct rpcrdma_svc_proc perf_procs[] = {
	[PERF_PROC_NULL] = { .name = "NULL", .handler = srv_null, .raw = true },
	[PERF_PROC_READ] = { .name = "READ", .handler = srv_read, .raw = true },
	[PERF_PROC_WRITE] = { .name = "WRITE", .handler = srv_write, .raw = true },
};

static const struct rpcrdma_svc_version perf_versions[] = {
	{ .vers = PERF_RPC_VERS, .nprocs = 3, .procs = perf_procs },
};

/* Calls the server was given, and those not answered SUCCESS (every shard's). */
void perf_srv_counts(const struct perf_srv *s, uint64_t *calls, uint64_t *bad)
{
	struct rpcrdma_svc_proc_stats ps;
	uint64_t ok = 0, fails = 0;
	uint32_t n = s->shards != NULL ? s->nshards : 1;

	/* the shards share the lead's registry: a slot per poller lcore */
	for (uint32_t i = 0; i < 3; i++)
		if (s->reg &&
		    rpcrdma_svc_proc_stats(s->reg, PERF_RPC_PROG, PERF_RPC_VERS, i, &ps) == 0)
			ok += ps.success;
	*calls = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct perf_srv *sh = s->shards != NULL ? &s->shards[k] : s;

		*calls += sh->glue.st.calls;
		fails += sh->glue.st.reply_fails;
	}
	/* a SUCCESS the engine then refused to send is not answered either */
	*bad = *calls - (ok < *calls ? ok : *calls) + fails;
}

/*
 * The receives the server's connections share (its poll group's): a client
 * alone gets every credit it may use (PERF_SRV_CREDITS), and with many
 * clients each an equal share, at least PERF_SRV_CREDITS_MIN while the
 * server has at most 256 connections (4096 receives at most).
 */
static uint32_t srv_recvs(uint32_t max_conns)
{
	return app_group_recvs(max_conns, PERF_SRV_CREDITS_MIN, PERF_SRV_CREDITS);
}

/*
 * A client asks to connect (its request on this shard's device): accept it
 * in a free slot as connection number @no, or refuse it with a line.
 */
static void srv_accept(struct perf_srv *s, const struct rpcrdma_pmd_event *ev, uint64_t no)
{
	int i = app_accept_slot(PROG ": server", s->conns, s->max_conns, s->nconns, &s->params, ev);
	uint32_t now;

	if (i < 0) {
		if (s->rt != NULL)
			rpcrdma_rt_unplace(s->rt, s->poller);
		return;
	}
	s->nconns++;
	s->accepted++;
	s->conn_no[i] = no;
	now = __atomic_add_fetch(&s->lead->total, 1, __ATOMIC_RELAXED);
	if (s->rt == NULL) {
		app_conn_mem_arrived(&s->mem, now, s->ep.grp);
	} else {
		/* each shard makes its group's slots at its first connection: after all have */
		rte_spinlock_lock(&s->lead->mem_lock);
		if (!s->mem_ready) {
			s->mem_ready = true;
			s->lead->mem_groups++;
		}
		app_conn_mem_arrived_groups(&s->lead->mem, now, s->lead->mem_groups, s->nshards);
		rte_spinlock_unlock(&s->lead->mem_lock);
	}
	if (s->verbose)
		app_conn_arrived(stderr, PROG ": server", no, s->conns[i],
				 s->rt != NULL ? s->poller : APP_NO_POLLER, now);
}

/* A connect request the lead handed over to a shard's device (srv_place()). */
struct srv_handoff {
	struct perf_srv *shard;
	struct rpcrdma_pmd_event ev;
	uint64_t no;
};

/* On the shard's poller: take the request on its device and accept it there. */
static void srv_adopt(void *arg)
{
	struct srv_handoff *h = arg;
	struct perf_srv *s = h->shard;
	int ret = rpcrdma_pmd_conn_req_adopt(s->ep.base.dev, h->ev.req);

	if (ret != 0) {
		fprintf(stderr, PROG ": server: client %lu lost on poller %u: %s\n",
			(unsigned long)h->no, s->poller, strerror(-ret));
		rpcrdma_rt_unplace(s->rt, s->poller);
	} else if (__atomic_load_n(&s->lead->closing, __ATOMIC_ACQUIRE)) {
		rpcrdma_pmd_reject(h->ev.req, NULL, 0);
		rpcrdma_rt_unplace(s->rt, s->poller);
	} else {
		srv_accept(s, &h->ev, h->no);
	}
	free(h);
}

/*
 * A connect request at the lead: refused over --max-connections (every
 * shard's, those on their way included), else placed on the shard with the
 * fewest and accepted there: here, or handed over to that shard's device
 * and sent to its poller (srv_adopt()).
 */
static void srv_place(struct perf_srv *s, const struct rpcrdma_pmd_event *ev)
{
	struct srv_handoff *h;
	uint32_t k, placed = 0;
	uint64_t no, end;
	int ret;

	if (s->rt == NULL) {
		srv_accept(s, ev, s->accepted + 1);
		return;
	}
	if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE)) {
		rpcrdma_pmd_reject(ev->req, NULL, 0);
		return;
	}
	for (k = 0; k < s->nshards; k++)
		placed += rpcrdma_rt_placed(s->rt, k);
	if (placed >= s->max_total) {
		fprintf(stderr,
			PROG ": server: %u clients connected (--max-connections %u): one more "
			     "refused\n",
			placed, s->max_total);
		rpcrdma_pmd_reject(ev->req, NULL, 0);
		return;
	}
	k = rpcrdma_rt_place(s->rt);
	no = ++s->numbered;
	if (k == s->poller) {
		srv_accept(s, ev, no);
		return;
	}
	h = malloc(sizeof(*h));
	ret = h == NULL ? -ENOMEM : rpcrdma_pmd_conn_req_handoff(ev->req, s->shards[k].ep.base.dev);
	if (ret != 0) {
		fprintf(stderr,
			PROG ": server: client %lu refused: cannot hand it to poller %u: %s\n",
			(unsigned long)no, k, strerror(-ret));
		free(h);
		rpcrdma_rt_unplace(s->rt, k);
		rpcrdma_pmd_reject(ev->req, NULL, 0);
		return;
	}
	h->shard = &s->shards[k];
	h->ev = *ev;
	h->no = no;
	/* in no device now: only that poller can take it, and it drains its ring every turn */
	end = rte_rdtsc() + rte_get_tsc_hz();
	while ((ret = rpcrdma_rt_poller_send(rpcrdma_rt_poller(s->rt, k), srv_adopt, h)) ==
		       -ENOBUFS &&
	       rte_rdtsc() < end)
		rte_pause();
	if (ret != 0) {
		fprintf(stderr, PROG ": server: client %lu lost: poller %u takes no message: %s\n",
			(unsigned long)no, k, strerror(-ret));
		free(h);
	}
}

/* Destroy the connection in slot i once it is closed, and free the slot. */
static void srv_reap(struct perf_srv *s, uint32_t i)
{
	struct perf_srv *lead = s->lead;
	struct rpcrdma_xprt_stats st;
	uint64_t left;
	uint32_t now;

	rpcrdma_xprt_stats(s->conns[i], &st);
	if (rpcrdma_xprt_destroy(s->conns[i]) != 0)
		return; /* calls not given back yet: next time */
	s->conns[i] = NULL;
	s->nconns--;
	s->left++;
	if (s->rt != NULL)
		rpcrdma_rt_unplace(s->rt, s->poller);
	now = __atomic_sub_fetch(&lead->total, 1, __ATOMIC_RELAXED);
	left = __atomic_add_fetch(&lead->total_left, 1, __ATOMIC_RELAXED);
	if (s->verbose)
		app_conn_left(stderr, PROG ": server", s->conn_no[i], st.calls_recv, now);
	if (lead->clients && left >= lead->clients && now == 0)
		__atomic_store_n(&lead->done, 1, __ATOMIC_RELEASE);
}

void perf_srv_disconnect(struct perf_srv *s)
{
	s->closed = true;
	for (uint32_t i = 0; i < s->max_conns; i++)
		if (s->conns[i] && !perf_xprt_gone(s->conns[i]) &&
		    rpcrdma_xprt_state(s->conns[i]) != RPCRDMA_XPRT_DRAINING)
			rpcrdma_xprt_disconnect(s->conns[i]);
}

/*
 * The server's poll: its poll group every time (the connections with
 * completions or work pending); connection events and closes once a
 * millisecond (every time while none is open, so that the first connects
 * at once).
 */
int perf_srv_poll(void *arg)
{
	struct perf_srv *s = arg;
	struct rpcrdma_pmd_event ev[8];
	uint64_t now;
	uint32_t i;
	int n, work = 0;

	if (s->nconns > 0 && s->ep.grp != NULL)
		work = rpcrdma_xprt_group_poll(s->ep.grp);
	for (i = 0; s->ep.grp == NULL && i < s->max_conns; i++)
		if (s->conns[i])
			work += rpcrdma_xprt_poll(s->conns[i]);
	now = rte_rdtsc();
	if (now < s->next_ev && s->nconns > 0)
		return work;
	s->next_ev = now + rte_get_tsc_hz() / 1000;
	if (s->rt != NULL && !s->closed && __atomic_load_n(&s->lead->closing, __ATOMIC_ACQUIRE))
		perf_srv_disconnect(s);
	n = rpcrdma_pmd_event_poll(s->ep.base.dev, ev, 8);
	for (int k = 0; k < n; k++) {
		if (ev[k].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			srv_place(s, &ev[k]);
		else
			rpcrdma_xprt_event(&ev[k]);
	}
	for (i = 0; i < s->max_conns; i++) {
		if (s->conns[i] == NULL)
			continue;
		work += rpcrdma_xprt_process(s->conns[i]);
		if (perf_xprt_gone(s->conns[i]))
			srv_reap(s, i);
	}
	return work + (n > 0 ? n : 0);
}

/* --server --capture: the engine hands over each QP before its first receive. */
static void srv_capture_qp(void *ctx, struct rpcrdma_pmd_qp *qp)
{
	if (rpcrdma_capture_qp(ctx, qp, NULL) != 0)
		fprintf(stderr, PROG ": --capture: cannot capture the QP\n");
}

/*
 * Open a server, or shard @idx of @lead's (@lead NULL: a server alone):
 * listening on @addr unless NULL, and with the lead's registry.
 */
static int srv_open(struct perf_srv *s, const struct perf_opts *o, const char *addr,
		    uint32_t max_conns, struct rpcrdma_capture *capture, struct perf_srv *lead,
		    uint32_t idx)
{
	char name[16];
	struct rpcrdma_svc_program prog = {
		.name = "rpcrdma-perf",
		.prog = PERF_RPC_PROG,
		.ctx = s,
		.nvers = 1,
		.vers = perf_versions,
	};
	struct rpcrdma_mempool_set_params sp;
	int ret;

	uint32_t bufs;

	memset(s, 0, sizeof(*s));
	s->lead = lead != NULL ? lead : s;
	s->poller = idx;
	s->max_total = max_conns;
	s->max_conns = max_conns;
	s->clients = o->role == ROLE_SERVER ? o->clients : 1;
	s->verbose = o->role == ROLE_SERVER && !o->quiet;
	s->conns = calloc(max_conns, sizeof(*s->conns));
	s->conn_no = calloc(max_conns, sizeof(*s->conn_no));
	if (s->conns == NULL || s->conn_no == NULL) {
		fprintf(stderr, PROG ": server: %u connections: %s\n", max_conns, strerror(ENOMEM));
		return -ENOMEM;
	}
	rpcrdma_mempool_set_params_init(&sp);
	snprintf(name, sizeof(name), idx == 0 ? "perf-s" : "perf-s%u", idx);
	sp.name = name;
	/* the poll group's receives, slots and replies (srv_recvs()) */
	bufs = app_group_bufs(max_conns, srv_recvs(max_conns));
	if (bufs > sp.inline_count)
		sp.inline_count = bufs;
	sp.nb_classes = 2;
	sp.classes[0].size = 64u << 10;
	sp.classes[0].count = 128 + 2 * max_conns;
	sp.classes[1].size = PERF_SIZE_MAX;
	sp.classes[1].count = 40;
	ret = app_ep_open(&s->ep.base, o->com.pmd, o->com.devargs, &sp);
	if (ret == 0)
		ret = capture && o->role == ROLE_SERVER
			      ? 0 /* each QP captured: receives of its own (an SRQ's are not seen) */
			      : app_ep_group(&s->ep.base, max_conns, srv_recvs(max_conns), 0,
					     &s->ep.grp);
	if (ret)
		return ret;
	s->src_pool = rpcrdma_mempool_set_chunk_pool(s->ep.base.pools, PERF_SIZE_MAX);
	s->src = s->src_pool ? rpcrdma_mempool_get(s->src_pool) : NULL;
	if (s->src == NULL) {
		fprintf(stderr, PROG ": server: no buffer for READ replies\n");
		return -ENOMEM;
	}
	perf_pattern_fill(s->src, PERF_SIZE_MAX);
	/* counters in the slot of the lcore that polls the server (srv_start()) */
	if (s->lead != s) {
		s->reg = s->lead->reg; /* the lead's, a slot per poller lcore */
	} else {
		ret = app_svc_registry(&prog, RTE_MAX_LCORE, &s->reg);
		if (ret) {
			fprintf(stderr, PROG ": server: the test program: %s\n", strerror(-ret));
			return ret;
		}
	}
	rpcrdma_xprt_svc_init(&s->glue, s->reg, (uint32_t)rte_lcore_index(-1));
	rpcrdma_xprt_params_init(&s->params, RPCRDMA_XPRT_SERVER);
	/* version 2: both versions (a version 2 responder serves version 1 requesters too) */
	s->params.vers = o->version;
	s->params.vers_min = RPCRDMA_VERS_1;
	s->params.dev = s->ep.base.dev;
	s->params.pd = s->ep.base.pd;
	s->params.pools = s->ep.base.pools;
	/* at most; the poll group grants each connection its share (srv_recvs()) */
	s->params.max_credits = PERF_SRV_CREDITS;
	s->params.credits = PERF_SRV_CREDITS;
	s->params.group = s->ep.grp;
	if (s->ep.grp == NULL) {
		/* --server --capture: connections of their own, each the share it would have */
		uint32_t share = srv_recvs(max_conns) / max_conns;

		s->params.max_credits = s->params.credits = max_conns == 1 ? PERF_SRV_CREDITS
							    : share < 16   ? 16
									   : share;
	}
	if (capture && o->role == ROLE_SERVER) {
		/* --server --capture: each QP is captured before its first receive */
		s->params.qp_created = srv_capture_qp;
		s->params.qp_ctx = capture;
	}
	rpcrdma_xprt_svc_bind(&s->glue, &s->params);
	if (strcmp(o->com.pmd, "shm") != 0)
		s->params.flags &= ~(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV);
	if (addr == NULL)
		return 0;
	ret = rpcrdma_pmd_listen(s->ep.base.dev, addr, &s->ep.listener);
	if (ret)
		fprintf(stderr, PROG ": server: listen on %s: %s\n", addr, strerror(-ret));
	return ret;
}

int perf_srv_open(struct perf_srv *s, const struct perf_opts *o, const char *addr,
		  uint32_t max_conns, struct rpcrdma_capture *capture)
{
	return srv_open(s, o, addr, max_conns, capture, NULL, 0);
}

void perf_srv_close(struct perf_srv *s)
{
	if (s->src)
		rpcrdma_mempool_put(s->src_pool, s->src);
	s->src = NULL;
	app_conns_destroy(s->conns, s->max_conns, NULL); /* the group: perf_ep_close() */
	perf_ep_close(&s->ep);
	if (s->lead == s)
		app_svc_registry_free(s->reg);
	s->reg = NULL;
	free(s->conns);
	free(s->conn_no);
	s->conns = NULL;
	s->conn_no = NULL;
}

/* ------------------------------------------------------------ --pollers */

int perf_srv_pollers_open(struct perf_srv *shards, uint32_t n, const struct perf_opts *o,
			  const char *addr, struct rpcrdma_rt **rtp)
{
	/* placement keeps the shards within one of each other: none holds more than its share */
	uint32_t per = (o->max_conns + n - 1) / n;
	struct rpcrdma_rt_params rp;
	struct perf_srv *lead = &shards[0];
	char roles[32];
	uint32_t k;
	int ret;

	*rtp = NULL;
	memset(shards, 0, n * sizeof(*shards));
	for (k = 0; k < n; k++) {
		ret = srv_open(&shards[k], o, k == 0 ? addr : NULL, per, NULL, lead, k);
		if (ret)
			return ret;
	}
	lead->shards = shards;
	lead->max_total = o->max_conns;
	rte_spinlock_init(&lead->mem_lock);
	rpcrdma_rt_params_init(&rp);
	rp.name = "perf";
	snprintf(roles, sizeof(roles), "pollers=%u,workers=0", n);
	rp.roles = roles;
	ret = rpcrdma_rt_create(&rp, rtp);
	if (ret) {
		fprintf(stderr,
			PROG ": server: %u pollers: %s (each needs an EAL lcore of its own: "
			     "--lcores)\n",
			n, ret == -ENODEV ? "not enough lcores" : strerror(-ret));
		*rtp = NULL;
		return ret;
	}
	for (k = 0; k < n && ret == 0; k++) {
		struct rpcrdma_rt_poller *p = rpcrdma_rt_poller(*rtp, k);

		shards[k].rt = *rtp;
		shards[k].nshards = n;
		shards[k].glue.slot = (uint32_t)rte_lcore_index((int)rpcrdma_rt_poller_lcore(p));
		ret = rpcrdma_rt_poller_add(p, perf_srv_poll, &shards[k]);
	}
	if (ret == 0)
		ret = rpcrdma_rt_start(*rtp);
	if (ret) {
		fprintf(stderr, PROG ": runtime: %s\n", strerror(-ret));
		return ret;
	}
	rpcrdma_telemetry_rt_add(*rtp); /* lcore busy/idle cycles, messages, placed */
	return 0;
}

uint32_t perf_srv_pollers_stop(struct perf_srv *shards, uint32_t timeout_s)
{
	struct perf_srv *lead = &shards[0];
	uint64_t end = rte_rdtsc() + (uint64_t)timeout_s * rte_get_tsc_hz();
	uint32_t open;

	__atomic_store_n(&lead->closing, 1, __ATOMIC_RELEASE);
	while ((open = __atomic_load_n(&lead->total, __ATOMIC_RELAXED)) > 0 && rte_rdtsc() < end)
		rte_delay_us_sleep(1000);
	rpcrdma_rt_stop(lead->rt);
	return open;
}

void perf_srv_pollers_close(struct perf_srv *shards, uint32_t n)
{
	struct rpcrdma_rt *rt = shards[0].rt;

	/* the lead last: the shards share its registry */
	for (uint32_t k = n; k-- > 0;)
		perf_srv_close(&shards[k]);
	if (rt != NULL) {
		rpcrdma_telemetry_rt_del(rt);
		rpcrdma_rt_free(rt);
	}
}
