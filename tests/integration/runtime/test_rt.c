/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcore runtime with a fake transport: each poller's poll function
 * issues calls from a table (at most MAX_INFLIGHT in flight, as credits
 * would allow), the item's run decodes and dispatches the call
 * (rpcrdma_svc_dispatch) on a worker or inline, and done collects the reply
 * bytes on the owning poller.
 *
 *   roles      the roles parser, pure
 *   modes      workers = 0 and workers > 0 give byte-identical replies, the
 *              same as dispatching on the main thread, with consistent
 *              counters (svc and runtime)
 *   stall      a handler spinning on one worker: both pollers keep
 *              completing calls through the other worker (progress
 *              counters, no timing asserts), then everything completes
 *   messages   rpcrdma_rt_poller_send(): driven with iterate (order, burst
 *              bound, ring full, bad input, counters), then on running
 *              pollers (the right lcore, poller to poller, none lost at stop)
 *   placement  rpcrdma_rt_place(): fewest first, ties round robin, unplace,
 *              and two lcores placing at once losing no count
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>

#include "rt_common.h"

#define NCALLS	     3000
#define MAX_INFLIGHT 256
#define CALL_CAP     128
#define REPLY_CAP    64
#define PER_ITER     16

struct fake_call {
	struct rpcrdma_rt_item item; /* first: container of the item */
	uint32_t idx;
	int ret;
	uint32_t reply_len;
	uint8_t reply[REPLY_CAP];
};

struct fake_poller {
	struct rpcrdma_rt_poller *p;
	uint32_t first, stride, count; /* calls first, first + stride, ... (count of them) */
	uint32_t next;		       /* next to issue */
	uint32_t inflight;
	uint32_t completed; /* written by the poller, read by main (relaxed) */
};

static uint8_t calls[NCALLS][CALL_CAP];
static uint32_t call_len[NCALLS];
static uint8_t ref_reply[NCALLS][REPLY_CAP];
static uint32_t ref_len[NCALLS];
static struct fake_call fcalls[NCALLS];
static struct fake_poller fpollers[RPCRDMA_RT_POLLERS_MAX];
static struct rpcrdma_svc_registry *reg;
static unsigned int nb_lcores_eal;

/* Decode and dispatch call idx into out; returns the dispatch result. */
static int serve(uint32_t idx, uint8_t *out, uint32_t *out_len)
{
	struct rpcrdma_svc_req req;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(out, REPLY_CAP, 0, 0);
	struct rpcrdma_xdr_dec dec;
	struct rpcrdma_xdr_enc enc;
	int hdr, ret;

	hdr = rpcrdma_rpc_decode(&msg, calls[idx], call_len[idx]);
	rpcrdma_xdr_dec_init(&dec, calls[idx] + (hdr > 0 ? hdr : 0),
			     call_len[idx] - (hdr > 0 ? (uint32_t)hdr : 0));
	rpcrdma_xdr_enc_init(&enc, &mem);
	memset(&req, 0, sizeof(req));
	req.slot = rte_lcore_id() < RTE_MAX_LCORE ? rte_lcore_id() : 0;
	ret = rpcrdma_svc_dispatch(reg, &req, &msg, hdr, &dec, &enc);
	*out_len = enc.len;
	return ret;
}

static void call_run(struct rpcrdma_rt_item *it)
{
	struct fake_call *fc = (struct fake_call *)it;

	fc->ret = serve(fc->idx, fc->reply, &fc->reply_len);
}

static void call_done(struct rpcrdma_rt_item *it)
{
	struct fake_poller *fp = &fpollers[it->poller];

	fp->inflight--;
	__atomic_store_n(&fp->completed, fp->completed + 1, __ATOMIC_RELAXED);
}

static int fake_poll(void *arg)
{
	struct fake_poller *fp = arg;
	int n = 0;

	while (n < PER_ITER && fp->next < fp->count && fp->inflight < MAX_INFLIGHT) {
		struct fake_call *fc = &fcalls[fp->first + fp->next * fp->stride];

		fc->item.run = call_run;
		fc->item.done = call_done;
		fp->inflight++; /* before queue: with no workers, done runs inside it */
		if (rpcrdma_rt_queue(fp->p, &fc->item)) {
			fp->inflight--;
			break;
		}
		fp->next++;
		n++;
	}
	return n;
}

static uint32_t completed_total(unsigned int np)
{
	uint32_t s = 0;
	unsigned int i;

	for (i = 0; i < np; i++)
		s += __atomic_load_n(&fpollers[i].completed, __ATOMIC_RELAXED);
	return s;
}

/* Wait (sleeping) until cond() or about seconds pass. */
static bool wait_for(bool (*cond)(void *), void *arg, unsigned int seconds)
{
	unsigned int i;

	for (i = 0; i < seconds * 1000; i++) {
		if (cond(arg))
			return true;
		usleep(1000);
	}
	return cond(arg);
}

struct want {
	unsigned int np;
	uint32_t n;
};

static bool reached(void *arg)
{
	const struct want *w = arg;

	return completed_total(w->np) >= w->n;
}

static struct rpcrdma_rt *make_rt(const char *name, const char *roles)
{
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt = NULL;
	unsigned int i, np;
	int ret;

	rpcrdma_rt_params_init(&prm);
	prm.name = name;
	prm.roles = roles;
	ret = rpcrdma_rt_create(&prm, &rt);
	CHECK(ret == 0, "create %s: %d", roles, ret);
	if (ret)
		return NULL;
	np = rpcrdma_rt_nb_pollers(rt);
	memset(fpollers, 0, sizeof(fpollers));
	memset(fcalls, 0, sizeof(fcalls));
	for (i = 0; i < NCALLS; i++)
		fcalls[i].idx = i;
	for (i = 0; i < np; i++) {
		fpollers[i].p = rpcrdma_rt_poller(rt, i);
		fpollers[i].first = i;
		fpollers[i].stride = np;
		fpollers[i].count = (NCALLS - i + np - 1) / np;
		CHECK(rpcrdma_rt_poller_add(fpollers[i].p, fake_poll, &fpollers[i]) == 0, "add");
	}
	return rt;
}

static void check_replies(const char *roles)
{
	unsigned int i, bad = 0;

	for (i = 0; i < NCALLS; i++)
		if (fcalls[i].reply_len != ref_len[i] ||
		    memcmp(fcalls[i].reply, ref_reply[i], ref_len[i]) != 0 || fcalls[i].ret != 0) {
			if (bad++ < 3)
				fprintf(stderr, "%s: call %u: %u bytes (want %u), ret %d\n", roles,
					i, fcalls[i].reply_len, ref_len[i], fcalls[i].ret);
		}
	CHECK(bad == 0, "%s: %u replies differ from the reference", roles, bad);
}

static void run_mode(const char *name, const char *roles, unsigned int want_p, unsigned int want_w)
{
	struct rpcrdma_svc_proc_stats before, after;
	struct rpcrdma_rt_lcore_stats st;
	uint64_t items = 0, returned = 0, inl = 0, run = 0;
	struct rpcrdma_rt *rt = make_rt(name, roles);
	struct want w;
	unsigned int i;

	if (rt == NULL)
		return;
	CHECK(rpcrdma_rt_nb_pollers(rt) == want_p && rpcrdma_rt_nb_workers(rt) == want_w,
	      "%s: %u pollers, %u workers", roles, rpcrdma_rt_nb_pollers(rt),
	      rpcrdma_rt_nb_workers(rt));
	rpcrdma_svc_proc_stats(reg, TPROG, 1, TP_ADD, &before);
	CHECK(rpcrdma_rt_start(rt) == 0, "%s: start", roles);
	w.np = want_p;
	w.n = NCALLS;
	CHECK(wait_for(reached, &w, 30), "%s: %u of %u calls completed", roles,
	      completed_total(want_p), NCALLS);
	CHECK(rpcrdma_rt_stop(rt) == 0, "%s: stop", roles);
	check_replies(roles);

	for (i = 0; i < want_p + want_w; i++) {
		CHECK(rpcrdma_rt_stats(rt, i, &st) == 0, "stats %u", i);
		/* a worker may get no item: the poller picks the least loaded one */
		CHECK(st.iterations > 0 &&
			      (st.role == RPCRDMA_RT_ROLE_WORKER || st.busy_cycles > 0),
		      "%s: lcore %u ran (%lu iterations)", roles, st.lcore,
		      (unsigned long)st.iterations);
		if (st.role == RPCRDMA_RT_ROLE_POLLER) {
			items += st.items;
			returned += st.returned;
			inl += st.inline_runs;
		} else {
			run += st.items;
		}
	}
	CHECK(rpcrdma_rt_stats(rt, want_p + want_w, &st) == -ENOENT, "stats past the end");
	if (want_w == 0)
		CHECK(inl == NCALLS && items == 0 && returned == 0,
		      "%s: run to completion: inline %lu, handed off %lu", roles,
		      (unsigned long)inl, (unsigned long)items);
	else
		CHECK(inl == 0 && items == NCALLS && returned == NCALLS && run == NCALLS,
		      "%s: handed off %lu, returned %lu, run %lu", roles, (unsigned long)items,
		      (unsigned long)returned, (unsigned long)run);
	/* ADD v1: calls i % 8 in 0..2 with i odd */
	rpcrdma_svc_proc_stats(reg, TPROG, 1, TP_ADD, &after);
	CHECK(after.success - before.success == 375, "%s: ADD v1 successes %lu", roles,
	      (unsigned long)(after.success - before.success));
	rpcrdma_rt_free(rt);
}

static bool slow_started(void *arg)
{
	return rt_slow_running != 0;
}

static bool each_half(void *arg)
{
	const struct want *w = arg;
	unsigned int i;

	for (i = 0; i < w->np; i++)
		if (__atomic_load_n(&fpollers[i].completed, __ATOMIC_RELAXED) <
		    fpollers[i].count / 2)
			return false;
	return true;
}

static void test_stall(void)
{
	struct rpcrdma_rt_lcore_stats w0a, w0b;
	struct rpcrdma_rt *rt;
	uint32_t slow_idx = 0, len;
	unsigned int slow_worker;
	struct want w = { .np = 2, .n = NCALLS };

	/* call 0 becomes a SLOW call (NULL-like reply once released) */
	struct rpcrdma_rpc_msg m;

	memset(&m, 0, sizeof(m));
	m.xid = 0x10000;
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = 2;
	m.call.prog = TPROG;
	m.call.vers = 3;
	m.call.proc = TP_SLOW;
	len = (uint32_t)rpcrdma_rpc_encode(&m, calls[slow_idx], CALL_CAP);
	call_len[slow_idx] = len;
	rt_slow_block = 0;
	serve(slow_idx, ref_reply[slow_idx], &ref_len[slow_idx]);

	rt = make_rt("stall", "pollers=2,workers=2");
	if (rt == NULL)
		return;
	rt_slow_running = 0;
	rt_slow_block = 1;
	CHECK(rpcrdma_rt_start(rt) == 0, "stall: start");
	CHECK(wait_for(slow_started, NULL, 10), "the SLOW call started");
	slow_worker = fcalls[slow_idx].item.worker;
	CHECK(slow_worker < 2, "SLOW runs on worker %u", slow_worker);
	rpcrdma_rt_stats(rt, 2 + slow_worker, &w0a);

	/* while SLOW spins: each poller completes at least half its calls */
	CHECK(wait_for(each_half, &w, 30), "progress while one worker is stuck: %u and %u done",
	      __atomic_load_n(&fpollers[0].completed, __ATOMIC_RELAXED),
	      __atomic_load_n(&fpollers[1].completed, __ATOMIC_RELAXED));
	rpcrdma_rt_stats(rt, 2 + slow_worker, &w0b);
	CHECK(w0b.items == w0a.items, "the stuck worker ran nothing more (%lu -> %lu)",
	      (unsigned long)w0a.items, (unsigned long)w0b.items);
	/*
	 * Not checked: how many items the other worker ran between the two
	 * snapshots. It may have run nearly all of them before SLOW started
	 * (seen under load), so that delta says nothing; the progress of both
	 * pollers while SLOW is stuck, above, is what shows there is no stall.
	 */
	CHECK(!fcalls[slow_idx].reply_len, "SLOW not replied yet");

	rt_slow_block = 0;
	CHECK(wait_for(reached, &w, 30), "all done after release: %u", completed_total(2));
	CHECK(rpcrdma_rt_stop(rt) == 0, "stall: stop");
	check_replies("stall");
	rpcrdma_rt_free(rt);
}

static void test_roles(void)
{
	struct rpcrdma_rt_roles r;

	CHECK(rpcrdma_rt_roles_parse(NULL, &r) == 0 && r.pollers_default && r.nb_workers == 0,
	      "default");
	CHECK(rpcrdma_rt_roles_parse("pollers=1,workers=2", &r) == 0 && r.nb_pollers == 1 &&
		      r.nb_workers == 2 && !r.pollers_explicit && !r.pollers_default,
	      "counts");
	CHECK(rpcrdma_rt_roles_parse("pollers=(1,3-4),workers=(2)", &r) == 0 &&
		      r.pollers_explicit && r.nb_pollers == 3 && r.pollers[0] == 1 &&
		      r.pollers[1] == 3 && r.pollers[2] == 4 && r.workers_explicit &&
		      r.nb_workers == 1 && r.workers[0] == 2,
	      "lists");
	CHECK(rpcrdma_rt_roles_parse("workers=2", &r) == 0 && r.pollers_default &&
		      r.nb_workers == 2,
	      "workers only");
	CHECK(rpcrdma_rt_roles_parse("pollers=1,pollers=2", &r) == -EINVAL, "twice");
	CHECK(rpcrdma_rt_roles_parse("pollers=(1,1)", &r) == -EINVAL, "an id twice");
	CHECK(rpcrdma_rt_roles_parse("pollers=(3-1)", &r) == -EINVAL, "backwards range");
	CHECK(rpcrdma_rt_roles_parse("pollers=(1", &r) == -EINVAL, "unclosed");
	CHECK(rpcrdma_rt_roles_parse("pollers=(0-1023)", &r) == -E2BIG, "too many");
	CHECK(rpcrdma_rt_roles_parse("pollers=(1024)", &r) == -EINVAL, "id too large");
	CHECK(rpcrdma_rt_roles_parse("pollers=x", &r) == -EINVAL, "not a number");
	CHECK(rpcrdma_rt_roles_parse("pollers=1,", &r) == -EINVAL, "trailing comma");
	CHECK(rpcrdma_rt_roles_parse("idlers=1", &r) == -EINVAL, "unknown key");
	CHECK(rpcrdma_rt_roles_parse("workers=17", &r) == -E2BIG, "too many workers");
}

static void test_create_errors(void)
{
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt;

	rpcrdma_rt_params_init(&prm);
	prm.roles = "pollers=(0)";
	CHECK(rpcrdma_rt_create(&prm, &rt) == -ENODEV, "the main lcore is refused");
	prm.roles = "pollers=(1),workers=(1)";
	CHECK(rpcrdma_rt_create(&prm, &rt) == -ENODEV, "an lcore in two roles");
	prm.roles = "pollers=(9)";
	CHECK(rpcrdma_rt_create(&prm, &rt) == -ENODEV, "an lcore the EAL does not have");
	prm.roles = "pollers=3,workers=3";
	CHECK(rpcrdma_rt_create(&prm, &rt) == -ENODEV, "more lcores than the EAL has");
	prm.roles = "pollers=0";
	CHECK(rpcrdma_rt_create(&prm, &rt) == -EINVAL, "no poller");
	prm.roles = NULL;
	prm.ring_size = 1000;
	CHECK(rpcrdma_rt_create(&prm, &rt) == -EINVAL, "ring size not a power of 2");
	/* the default: every worker lcore polls */
	prm.ring_size = 64;
	CHECK(rpcrdma_rt_create(&prm, &rt) == 0 && rpcrdma_rt_nb_pollers(rt) == nb_lcores_eal - 1 &&
		      rpcrdma_rt_nb_workers(rt) == 0,
	      "default roles");
	rpcrdma_rt_free(rt);
}

/* ------------------------------------------------------------ burst handlers */

static struct {
	unsigned int run_calls, done_calls, ran, done;
	unsigned int order_bad;
	unsigned int last_lcore;
} bh;

static void bh_run(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	unsigned int i;

	bh.run_calls++;
	bh.last_lcore = rte_lcore_id();
	for (i = 0; i < n; i++)
		if (items[i]->reserved != bh.ran + i || arg != &bh)
			bh.order_bad++;
	bh.ran += n;
}

static void bh_done(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	unsigned int i;

	bh.done_calls++;
	for (i = 0; i < n; i++)
		if (items[i]->reserved != bh.done + i || arg != &bh)
			bh.order_bad++;
	bh.done += n;
}

/* Driven on this thread: 70 items in bursts, in order, one call per burst. */
static void test_burst_handlers(const char *roles, bool workers)
{
	struct rpcrdma_rt_item its[70], *ptr[70];
	struct rpcrdma_rt_lcore_stats st;
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt_poller *p;
	struct rpcrdma_rt *rt;
	unsigned int i, guard, ncalls = workers ? 3 : 4;

	memset(&bh, 0, sizeof(bh));
	memset(its, 0, sizeof(its));
	for (i = 0; i < 70; i++) {
		its[i].reserved = i;
		its[i].poller = 77; /* not written with burst handlers */
		ptr[i] = &its[i];
	}
	rpcrdma_rt_params_init(&prm);
	prm.name = "bh";
	prm.roles = roles;
	prm.run_burst = bh_run;
	CHECK(rpcrdma_rt_create(&prm, &rt) == -EINVAL, "run_burst without done_burst");
	prm.done_burst = bh_done;
	prm.burst_arg = &bh;
	if (rpcrdma_rt_create(&prm, &rt)) {
		CHECK(0, "create with burst handlers (%s)", roles);
		return;
	}
	p = rpcrdma_rt_poller(rt, 0);
	CHECK(rpcrdma_rt_queue_burst(p, ptr, 40) == 40, "40 taken");
	CHECK(rpcrdma_rt_queue_burst(p, ptr + 40, 29) == 29, "29 taken");
	CHECK(rpcrdma_rt_queue(p, ptr[69]) == 0, "one taken");
	for (guard = 0; guard < 100 && bh.done < 70; guard++) {
		rpcrdma_rt_poller_iterate(p);
		if (workers)
			rpcrdma_rt_worker_iterate(rt, 0);
	}
	CHECK(bh.ran == 70 && bh.done == 70 && bh.order_bad == 0, "%s: ran %u done %u bad %u",
	      roles, bh.ran, bh.done, bh.order_bad);
	/* workers: 40 at once, then 29 + 1 staged in one flush; inline: 32+8, 29, 1 */
	CHECK(bh.run_calls == ncalls && bh.done_calls == ncalls, "%s: %u run and %u done calls",
	      roles, bh.run_calls, bh.done_calls);
	CHECK(its[5].poller == 77 && its[5].worker == 0, "item fields left alone");
	CHECK(rpcrdma_rt_stats(rt, 0, &st) == 0 && st.items == (workers ? 70 : 0) &&
		      st.returned == (workers ? 70 : 0) && st.inline_runs == (workers ? 0 : 70),
	      "%s: poller counters %lu %lu %lu", roles, (unsigned long)st.items,
	      (unsigned long)st.returned, (unsigned long)st.inline_runs);
	rpcrdma_rt_free(rt);
}

/* ------------------------------------------------------------ messages */

#define MSG_SEQ_MAX 256

static struct {
	uint32_t seq[MSG_SEQ_MAX]; /* the args of the messages run, in run order */
	unsigned int n;
} ms;

static void msg_record(void *arg)
{
	if (ms.n < MSG_SEQ_MAX)
		ms.seq[ms.n] = (uint32_t)(uintptr_t)arg;
	ms.n++;
}

/* Not started, driven here: order, at most a burst per iterate, ring full, bad input. */
static void test_msgs_iterate(void)
{
	struct rpcrdma_rt_lcore_stats st;
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt_poller *p;
	struct rpcrdma_rt *rt;
	unsigned int i, sent = 0, bad = 0;
	int ret;

	memset(&ms, 0, sizeof(ms));
	rpcrdma_rt_params_init(&prm);
	prm.name = "msg";
	prm.roles = "pollers=1";
	prm.ring_size = 64;
	if (rpcrdma_rt_create(&prm, &rt)) {
		CHECK(0, "create msg");
		return;
	}
	p = rpcrdma_rt_poller(rt, 0);
	CHECK(rpcrdma_rt_poller_index(p) == 0, "poller 0's index");
	CHECK(rpcrdma_rt_poller_self(rt) == NULL, "the main lcore is no poller");
	CHECK(rpcrdma_rt_poller_iterate(p) == 0, "an empty ring: idle");

	/* a ring of 64 without RING_F_EXACT_SZ holds 63 */
	for (i = 0; i < 63; i++)
		if (rpcrdma_rt_poller_send(p, msg_record, (void *)(uintptr_t)i) == 0)
			sent++;
	CHECK(sent == 63, "63 sent (%u)", sent);
	ret = rpcrdma_rt_poller_send(p, msg_record, (void *)(uintptr_t)999);
	CHECK(ret == -ENOBUFS, "ring full: %d", ret);
	CHECK(rpcrdma_rt_poller_send(p, NULL, NULL) == -EINVAL, "fn NULL");
	CHECK(ms.n == 0, "nothing runs before an iterate (%u ran)", ms.n);

	ret = rpcrdma_rt_poller_iterate(p);
	CHECK(ret == RPCRDMA_RT_BURST && ms.n == RPCRDMA_RT_BURST,
	      "one iterate runs one burst: returned %d, %u ran", ret, ms.n);
	CHECK(rpcrdma_rt_poller_send(p, msg_record, (void *)(uintptr_t)63) == 0,
	      "room again after an iterate");
	ret = rpcrdma_rt_poller_iterate(p);
	CHECK(ret == RPCRDMA_RT_BURST && ms.n == 2 * RPCRDMA_RT_BURST,
	      "the second burst: returned %d, %u ran", ret, ms.n);
	CHECK(rpcrdma_rt_poller_iterate(p) == 0 && ms.n == 64, "then idle, 64 ran (%u)", ms.n);
	for (i = 0; i < 64; i++)
		if (ms.seq[i] != i)
			bad++;
	CHECK(bad == 0, "64 messages in the order sent (%u out of place; the refused one is 999)",
	      bad);
	CHECK(rpcrdma_rt_stats(rt, 0, &st) == 0 && st.msgs == 64, "stats: %lu messages run",
	      (unsigned long)st.msgs);
	rpcrdma_rt_free(rt);
}

#define MSG_N	 10000
#define MSG_HOPS 100

struct msg_target {
	struct rpcrdma_rt_poller *p;
	unsigned int lcore;
	uint32_t count; /* written by the poller; read after stop */
	uint32_t wrong_lcore, wrong_self, out_of_order;
	uint32_t hops_in, hop_fails; /* poller 1: hops arrived; poller 0: hop sends refused */
	uint32_t polled_in, polled_out_of_order; /* poller 1: sent by poller 0's poll function */
};

static struct rpcrdma_rt *mrt;
static struct msg_target mtg[2];
static uint32_t mseq[2][MSG_N];

static void msg_check_here(struct msg_target *t)
{
	struct rpcrdma_rt_poller *self = rpcrdma_rt_poller_self(mrt);

	if (rte_lcore_id() != t->lcore)
		t->wrong_lcore++;
	if (self != t->p || rpcrdma_rt_poller_index(self) != (unsigned int)(t - mtg))
		t->wrong_self++;
}

/* arg: &mseq[poller][i] holding i */
static void msg_count(void *arg)
{
	uint32_t *e = arg;
	unsigned int pi = e >= mseq[1] ? 1 : 0;
	struct msg_target *t = &mtg[pi];

	msg_check_here(t);
	if (*e != t->count)
		t->out_of_order++;
	__atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELAXED);
}

static void msg_hop_arrive(void *arg)
{
	RTE_SET_USED(arg);
	msg_check_here(&mtg[1]);
	__atomic_store_n(&mtg[1].hops_in, mtg[1].hops_in + 1, __ATOMIC_RELAXED);
}

/* On poller 0: send one on to poller 1. */
static void msg_hop(void *arg)
{
	RTE_SET_USED(arg);
	msg_check_here(&mtg[0]);
	if (rpcrdma_rt_poller_send(mtg[1].p, msg_hop_arrive, NULL))
		mtg[0].hop_fails++;
}

/* poller 0's poll function: once told, MSG_N to poller 1, a burst an iteration */
static uint32_t poll_go, poll_sent;

static void msg_polled_arrive(void *arg)
{
	uint32_t *e = arg;

	msg_check_here(&mtg[1]);
	if (*e != mtg[1].polled_in)
		mtg[1].polled_out_of_order++;
	mtg[1].polled_in++;
}

static int msg_poll_send(void *arg)
{
	int n = 0;

	RTE_SET_USED(arg);
	if (!__atomic_load_n(&poll_go, __ATOMIC_RELAXED))
		return 0;
	while (poll_sent < MSG_N && n < RPCRDMA_RT_BURST) {
		/* full: poller 1 drains it; try again next iteration */
		if (rpcrdma_rt_poller_send(mtg[1].p, msg_polled_arrive, &mseq[0][poll_sent]))
			break;
		__atomic_store_n(&poll_sent, poll_sent + 1, __ATOMIC_RELAXED);
		n++;
	}
	return n;
}

static bool poll_all_sent(void *arg)
{
	RTE_SET_USED(arg);
	return __atomic_load_n(&poll_sent, __ATOMIC_RELAXED) == MSG_N;
}

static bool hops_arrived(void *arg)
{
	RTE_SET_USED(arg);
	return __atomic_load_n(&mtg[1].hops_in, __ATOMIC_RELAXED) == MSG_HOPS;
}

/* set when a send gave up: the later ones try once (a broken poller fails the test, no hang) */
static uint32_t msg_gave_up;

/*
 * Send, retrying while the ring is full, for about 10 s at most. The lcores
 * share two CPUs: give the poller the CPU while its ring is full.
 */
static bool msg_send_retry(struct rpcrdma_rt_poller *p, rpcrdma_rt_msg_fn_t fn, void *arg)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	int ret;

	while ((ret = rpcrdma_rt_poller_send(p, fn, arg)) == -ENOBUFS &&
	       !__atomic_load_n(&msg_gave_up, __ATOMIC_RELAXED)) {
		if (rte_get_tsc_cycles() > end)
			__atomic_store_n(&msg_gave_up, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
	return ret == 0;
}

/* Two running pollers: the main lcore and poller 0 send; every message runs where sent. */
static void test_msgs_running(void)
{
	struct rpcrdma_rt_lcore_stats st0, st1;
	struct rpcrdma_rt_params prm;
	unsigned int i, j, unsent = 0;

	rpcrdma_rt_params_init(&prm);
	prm.name = "msgr";
	prm.roles = "pollers=2";
	if (rpcrdma_rt_create(&prm, &mrt)) {
		CHECK(0, "create msgr");
		return;
	}
	memset(mtg, 0, sizeof(mtg));
	msg_gave_up = 0;
	for (j = 0; j < 2; j++) {
		mtg[j].p = rpcrdma_rt_poller(mrt, j);
		mtg[j].lcore = rpcrdma_rt_poller_lcore(mtg[j].p);
		for (i = 0; i < MSG_N; i++)
			mseq[j][i] = i;
	}
	CHECK(mtg[0].lcore != mtg[1].lcore, "two lcores");
	poll_go = 0;
	poll_sent = 0;
	CHECK(rpcrdma_rt_poller_add(mtg[0].p, msg_poll_send, NULL) == 0, "add");
	CHECK(rpcrdma_rt_start(mrt) == 0, "msgr: start");
	CHECK(rpcrdma_rt_poller_self(mrt) == NULL, "the main lcore is no poller");

	/* poller to poller: each hop runs on poller 0, which sends one to poller 1 */
	for (i = 0; i < MSG_HOPS; i++)
		unsent += !msg_send_retry(mtg[0].p, msg_hop, NULL);
	CHECK(wait_for(hops_arrived, NULL, 30), "%u of %u hops arrived on poller 1",
	      __atomic_load_n(&mtg[1].hops_in, __ATOMIC_RELAXED), MSG_HOPS);

	/*
	 * Then MSG_N to each, interleaved: the first half while poller 0 sends
	 * MSG_N to poller 1 too (two producers on its ring), the second half
	 * after, and stop at once: the rings still hold some (this is what
	 * shows that a stopping poller runs them).
	 */
	__atomic_store_n(&poll_go, 1, __ATOMIC_RELAXED);
	for (i = 0; i < MSG_N / 2; i++)
		for (j = 0; j < 2; j++)
			unsent += !msg_send_retry(mtg[j].p, msg_count, &mseq[j][i]);
	CHECK(wait_for(poll_all_sent, NULL, 30), "poller 0 sent %u of %u",
	      __atomic_load_n(&poll_sent, __ATOMIC_RELAXED), MSG_N);
	for (; i < MSG_N; i++)
		for (j = 0; j < 2; j++)
			unsent += !msg_send_retry(mtg[j].p, msg_count, &mseq[j][i]);
	CHECK(rpcrdma_rt_stop(mrt) == 0, "msgr: stop");
	CHECK(unsent == 0, "%u messages could not be sent in 10 s", unsent);

	for (j = 0; j < 2; j++) {
		CHECK(mtg[j].count == MSG_N, "poller %u ran %u of %u messages sent before stop", j,
		      mtg[j].count, MSG_N);
		CHECK(mtg[j].wrong_lcore == 0 && mtg[j].wrong_self == 0,
		      "poller %u: %u messages on another lcore, %u with the wrong self", j,
		      mtg[j].wrong_lcore, mtg[j].wrong_self);
		CHECK(mtg[j].out_of_order == 0, "poller %u: %u messages out of order", j,
		      mtg[j].out_of_order);
	}
	CHECK(mtg[0].hop_fails == 0 && mtg[1].hops_in == MSG_HOPS, "hops: %u refused, %u arrived",
	      mtg[0].hop_fails, mtg[1].hops_in);
	CHECK(mtg[1].polled_in == MSG_N && mtg[1].polled_out_of_order == 0,
	      "from poller 0's poll function: %u of %u ran, %u out of order", mtg[1].polled_in,
	      MSG_N, mtg[1].polled_out_of_order);
	CHECK(rpcrdma_rt_stats(mrt, 0, &st0) == 0 && st0.msgs == MSG_N + MSG_HOPS,
	      "poller 0 stats: %lu messages", (unsigned long)st0.msgs);
	CHECK(rpcrdma_rt_stats(mrt, 1, &st1) == 0 && st1.msgs == 2 * MSG_N + MSG_HOPS,
	      "poller 1 stats: %lu messages", (unsigned long)st1.msgs);
	rpcrdma_rt_free(mrt);
	mrt = NULL;
}

/* Two EAL lcores send to one poller at once (its ring's two producers); main runs them. */
#define MP_N 50000

static struct {
	struct rpcrdma_rt_poller *p;
	uint32_t go, senders_done, unsent;
	uint32_t seq[2][MP_N];
	uint32_t ran[2], out_of_order; /* on the main lcore */
} mp;

static void msg_mp(void *arg)
{
	uint32_t *e = arg;
	unsigned int k = e >= mp.seq[1] ? 1 : 0;

	if (*e != mp.ran[k])
		mp.out_of_order++;
	mp.ran[k]++;
}

static int mp_sender(void *arg)
{
	uint32_t *seq = arg;
	unsigned int i;

	while (!__atomic_load_n(&mp.go, __ATOMIC_ACQUIRE))
		rte_pause();
	for (i = 0; i < MP_N; i++)
		if (!msg_send_retry(mp.p, msg_mp, &seq[i]))
			__atomic_fetch_add(&mp.unsent, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mp.senders_done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void test_msgs_producers(void)
{
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt;
	unsigned int i, k, lc[2];
	bool done;

	rpcrdma_rt_params_init(&prm);
	prm.name = "msgp";
	prm.roles = "pollers=1";
	prm.ring_size = 256;
	if (rpcrdma_rt_create(&prm, &rt)) {
		CHECK(0, "create msgp");
		return;
	}
	memset(&mp, 0, sizeof(mp));
	msg_gave_up = 0;
	mp.p = rpcrdma_rt_poller(rt, 0);
	for (k = 0; k < 2; k++)
		for (i = 0; i < MP_N; i++)
			mp.seq[k][i] = i;
	/* the runtime is not started: its poller's lcore is idle too */
	lc[0] = rte_get_next_lcore(-1, 1, 0);
	lc[1] = rte_get_next_lcore(lc[0], 1, 0);
	for (k = 0; k < 2; k++)
		if (rte_eal_remote_launch(mp_sender, mp.seq[k], lc[k])) {
			CHECK(0, "launch on lcore %u", lc[k]);
			__atomic_store_n(&mp.go, 1, __ATOMIC_RELEASE);
			if (k == 1)
				rte_eal_wait_lcore(lc[0]);
			rpcrdma_rt_free(rt);
			return;
		}
	__atomic_store_n(&mp.go, 1, __ATOMIC_RELEASE);
	/* run them until both senders are done and the ring is empty */
	for (;;) {
		done = __atomic_load_n(&mp.senders_done, __ATOMIC_ACQUIRE) == 2;
		if (rpcrdma_rt_poller_iterate(mp.p) == 0) {
			if (done)
				break;
			sched_yield();
		}
	}
	rte_eal_wait_lcore(lc[0]);
	rte_eal_wait_lcore(lc[1]);
	CHECK(mp.unsent == 0, "%u messages could not be sent in 10 s", mp.unsent);
	CHECK(mp.ran[0] == MP_N && mp.ran[1] == MP_N && mp.out_of_order == 0,
	      "two producers: %u and %u of %u ran, %u out of order", mp.ran[0], mp.ran[1], MP_N,
	      mp.out_of_order);
	rpcrdma_rt_free(rt);
}

/* ------------------------------------------------------------ placement */

#define PLACE_N 10000

struct placer {
	struct rpcrdma_rt *rt;
	uint32_t picks[RPCRDMA_RT_POLLERS_MAX];
	uint32_t bad_index;
	uint32_t placed_all; /* set (release) once the picks are counted */
};

/* 1: place; 2: unplace (set by the main lcore) */
static uint32_t place_go;

static void place_n(struct placer *pl)
{
	unsigned int i, k, n = rpcrdma_rt_nb_pollers(pl->rt);

	for (i = 0; i < PLACE_N; i++) {
		k = rpcrdma_rt_place(pl->rt);
		if (k < n)
			pl->picks[k]++;
		else
			pl->bad_index++;
	}
	__atomic_store_n(&pl->placed_all, 1, __ATOMIC_RELEASE);
}

static void unplace_all(struct placer *pl)
{
	unsigned int i, k, n = rpcrdma_rt_nb_pollers(pl->rt);

	for (k = 0; k < n; k++)
		for (i = 0; i < pl->picks[k]; i++)
			rpcrdma_rt_unplace(pl->rt, k);
}

/* On an EAL lcore: place PLACE_N times when told, then unplace them all when told. */
static int place_many(void *arg)
{
	struct placer *pl = arg;

	while (__atomic_load_n(&place_go, __ATOMIC_ACQUIRE) != 1)
		rte_pause();
	place_n(pl);
	while (__atomic_load_n(&place_go, __ATOMIC_ACQUIRE) != 2)
		rte_pause();
	unplace_all(pl);
	return 0;
}

static bool placed_agree(struct rpcrdma_rt *rt, unsigned int n)
{
	struct rpcrdma_rt_lcore_stats st;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rpcrdma_rt_stats(rt, i, &st) || st.placed != rpcrdma_rt_placed(rt, i))
			return false;
	return true;
}

static void test_placement(void)
{
	static const unsigned int want_order[7] = { 0, 1, 2, 0, 1, 2, 0 };
	struct placer a, b;
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt;
	unsigned int i, order_bad = 0, helper, sum = 0, n;
	bool each = true;

	rpcrdma_rt_params_init(&prm);
	prm.name = "place";
	prm.roles = "pollers=3";
	if (rpcrdma_rt_create(&prm, &rt)) {
		CHECK(0, "create place");
		return;
	}
	n = rpcrdma_rt_nb_pollers(rt);
	for (i = 0; i < 7; i++)
		if (rpcrdma_rt_place(rt) != want_order[i])
			order_bad++;
	CHECK(order_bad == 0, "7 places go 0,1,2,0,1,2,0 (%u differ)", order_bad);
	CHECK(rpcrdma_rt_placed(rt, 0) == 3 && rpcrdma_rt_placed(rt, 1) == 2 &&
		      rpcrdma_rt_placed(rt, 2) == 2,
	      "counts %u %u %u", rpcrdma_rt_placed(rt, 0), rpcrdma_rt_placed(rt, 1),
	      rpcrdma_rt_placed(rt, 2));
	CHECK(placed_agree(rt, n), "stats.placed is placed()");
	/* 3,2,2 -> 3,0,2: the fewest */
	rpcrdma_rt_unplace(rt, 1);
	rpcrdma_rt_unplace(rt, 1);
	CHECK(rpcrdma_rt_placed(rt, 1) == 0, "two left poller 1");
	i = rpcrdma_rt_place(rt);
	CHECK(i == 1, "3,0,2: poller 1 (%u)", i);
	/* 3,1,2 -> 1,1,1: a tie goes to the first after the last pick (1), not to 0 */
	rpcrdma_rt_unplace(rt, 0);
	rpcrdma_rt_unplace(rt, 0);
	rpcrdma_rt_unplace(rt, 2);
	i = rpcrdma_rt_place(rt);
	CHECK(i == 2, "1,1,1 after a pick of 1: poller 2 (%u)", i);
	/* 1,1,2 -> 1,0,2: the fewest, not the round robin's turn (0) */
	rpcrdma_rt_unplace(rt, 1);
	i = rpcrdma_rt_place(rt);
	CHECK(i == 1, "1,0,2 after a pick of 2: poller 1 (%u)", i);
	CHECK(rpcrdma_rt_placed(rt, 0) == 1 && rpcrdma_rt_placed(rt, 1) == 1 &&
		      rpcrdma_rt_placed(rt, 2) == 2,
	      "counts %u %u %u", rpcrdma_rt_placed(rt, 0), rpcrdma_rt_placed(rt, 1),
	      rpcrdma_rt_placed(rt, 2));
	rpcrdma_rt_unplace(rt, 1);
	rpcrdma_rt_unplace(rt, 1);
	CHECK(rpcrdma_rt_placed(rt, 1) == 0, "unplace at 0 stays 0 (%u)", rpcrdma_rt_placed(rt, 1));
	rpcrdma_rt_unplace(rt, n); /* past the end: ignored */
	CHECK(rpcrdma_rt_placed(rt, n) == 0, "placed past the end");
	CHECK(placed_agree(rt, n), "stats.placed is placed() after unplace");
	rpcrdma_rt_unplace(rt, 0);
	rpcrdma_rt_unplace(rt, 2);
	rpcrdma_rt_unplace(rt, 2);
	CHECK(rpcrdma_rt_placed(rt, 0) + rpcrdma_rt_placed(rt, 1) + rpcrdma_rt_placed(rt, 2) == 0,
	      "all left");

	/* two lcores at once: main and an EAL lcore (idle: the runtime is not started) */
	helper = rte_get_next_lcore(-1, 1, 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.rt = rt;
	b.rt = rt;
	__atomic_store_n(&place_go, 0, __ATOMIC_RELAXED);
	if (rte_eal_remote_launch(place_many, &b, helper)) {
		CHECK(0, "launch on lcore %u", helper);
		rpcrdma_rt_free(rt);
		return;
	}
	__atomic_store_n(&place_go, 1, __ATOMIC_RELEASE);
	place_n(&a);
	/* acquire: the helper's picks are read after it counted them all */
	while (!__atomic_load_n(&b.placed_all, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < n; i++) {
		sum += rpcrdma_rt_placed(rt, i);
		if (rpcrdma_rt_placed(rt, i) != a.picks[i] + b.picks[i] ||
		    rpcrdma_rt_placed(rt, i) == 0)
			each = false;
	}
	CHECK(a.bad_index == 0 && b.bad_index == 0, "indexes in range");
	CHECK(sum == 2 * PLACE_N, "two lcores placed %u times, counted %u", 2 * PLACE_N, sum);
	CHECK(each, "each poller's count is its picks, and not 0: %u %u %u",
	      rpcrdma_rt_placed(rt, 0), rpcrdma_rt_placed(rt, 1), rpcrdma_rt_placed(rt, 2));
	CHECK(placed_agree(rt, n), "stats.placed is placed() after the race");
	/* and both unplace theirs at once: nothing lost, nothing below 0 */
	__atomic_store_n(&place_go, 2, __ATOMIC_RELEASE);
	unplace_all(&a);
	rte_eal_wait_lcore(helper);
	sum = 0;
	for (i = 0; i < n; i++)
		sum += rpcrdma_rt_placed(rt, i);
	CHECK(sum == 0, "all unplaced from two lcores at once: %u left", sum);
	rpcrdma_rt_free(rt);
}

int main(int argc, char **argv)
{
	struct rpcrdma_svc_params sp;
	unsigned int i;
	int ret;

	test_roles();
	nb_lcores_eal = 5;
	ret = rt_eal_init(argv[0], nb_lcores_eal, NULL);
	if (ret)
		return ret;
	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = RTE_MAX_LCORE;
	if (rpcrdma_svc_registry_create(&sp, &reg) || rt_register_prog(reg)) {
		fprintf(stderr, "registry\n");
		return 1;
	}
	/* the reference: every call dispatched on the main thread */
	for (i = 0; i < NCALLS; i++) {
		call_len[i] = rt_build_call(i, calls[i], CALL_CAP);
		CHECK(serve(i, ref_reply[i], &ref_len[i]) == 0 && ref_len[i] >= 20, "reference %u",
		      i);
	}
	test_create_errors();
	run_mode("rtc", "pollers=2", 2, 0);
	run_mode("w1", "pollers=2,workers=1", 2, 1);
	run_mode("w2", "pollers=(2,1),workers=(3-4)", 2, 2);
	run_mode("w3", "pollers=1,workers=3", 1, 3);
	test_stall();
	test_burst_handlers("pollers=1,workers=1", true);
	test_burst_handlers("pollers=1", false);
	test_msgs_iterate();
	test_msgs_running();
	test_msgs_producers();
	test_placement();

	rpcrdma_svc_registry_free(reg);
	rte_eal_cleanup();
	return test_summary("runtime");
}
