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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>

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

	rpcrdma_svc_registry_free(reg);
	rte_eal_cleanup();
	return test_summary("runtime");
}
