/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "bench_rt_shim.h"

#define BURST RPCRDMA_RT_BURST

static struct rpcrdma_rt *rt_st; /* single thread: not started */
static struct rpcrdma_rt *rt_lc; /* two lcores */
static struct rpcrdma_rt *rt_bu; /* single thread, burst handlers */
static struct rte_ring *ring_a, *ring_b;
static struct rpcrdma_rt_item items[BURST];
static void *ptrs[BURST];
static uint64_t done_count;

/* run and done do as little as an item can: the cost measured is the handoff */
static void item_run(struct rpcrdma_rt_item *it)
{
	(void)it;
}

static void item_done(struct rpcrdma_rt_item *it)
{
	(void)it;
	done_count++;
}

/*
 * The burst handlers: the same useful work as item_run and item_done for a
 * whole burst. The plain baseline calls them through these pointers, as the
 * runtime does (the compiler cannot inline either side).
 */
static void burst_run(struct rpcrdma_rt_item **it, unsigned int n, void *arg)
{
	(void)it;
	(void)n;
	(void)arg;
}

static void burst_done(struct rpcrdma_rt_item **it, unsigned int n, void *arg)
{
	(void)it;
	(void)arg;
	done_count += n;
}

static rpcrdma_rt_burst_fn_t volatile run_fn = burst_run;
static rpcrdma_rt_burst_fn_t volatile done_fn = burst_done;

int bench_rt_eal_init(const char *prog)
{
	char lcores[64], cpus[32] = "";
	char *argv[12];
	int argc = 0, found = 0, cpu;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
			if (CPU_ISSET(cpu, &set)) {
				size_t l = strlen(cpus);

				snprintf(cpus + l, sizeof(cpus) - l, "%s%d", found ? "," : "", cpu);
				found++;
			}
	snprintf(lcores, sizeof(lcores), "--lcores=(0-2)@(%s)", found ? cpus : "0");
	argv[argc++] = (char *)prog;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"--no-shconf";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"128";
	argv[argc++] = lcores;
	argv[argc++] = (char *)"--log-level=lib.eal:error";
	argv[argc] = NULL;
	return rte_eal_init(argc, argv) < 0 ? -rte_errno : 0;
}

int bench_rt_setup(void)
{
	struct rpcrdma_rt_params p;
	unsigned int i;

	rpcrdma_rt_params_init(&p);
	p.name = "bst";
	p.roles = "pollers=1,workers=1";
	p.ring_size = 256;
	if (rpcrdma_rt_create(&p, &rt_st))
		return -1;
	p.name = "blc";
	if (rpcrdma_rt_create(&p, &rt_lc))
		return -1;
	p.name = "bbu";
	p.run_burst = burst_run;
	p.done_burst = burst_done;
	if (rpcrdma_rt_create(&p, &rt_bu))
		return -1;
	ring_a = rte_ring_create("bench_a", 256, rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	ring_b = rte_ring_create("bench_b", 256, rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ring_a == NULL || ring_b == NULL)
		return -1;
	for (i = 0; i < BURST; i++) {
		items[i].run = item_run;
		items[i].done = item_done;
		ptrs[i] = &items[i];
	}
	return 0;
}

void bench_rt_plain_round(void)
{
	void *tmp[BURST];
	unsigned int n;

	rte_ring_enqueue_burst(ring_a, ptrs, BURST, NULL);
	n = rte_ring_dequeue_burst(ring_a, tmp, BURST, NULL);
	rte_ring_enqueue_burst(ring_b, tmp, n, NULL);
	rte_ring_dequeue_burst(ring_b, tmp, BURST, NULL);
}

void bench_rt_plain_cb_round(void)
{
	struct rpcrdma_rt_item *tmp[BURST];
	unsigned int n, i;

	rte_ring_enqueue_burst(ring_a, ptrs, BURST, NULL);
	n = rte_ring_dequeue_burst(ring_a, (void **)tmp, BURST, NULL);
	for (i = 0; i < n; i++)
		tmp[i]->run(tmp[i]);
	rte_ring_enqueue_burst(ring_b, (void **)tmp, n, NULL);
	n = rte_ring_dequeue_burst(ring_b, (void **)tmp, BURST, NULL);
	for (i = 0; i < n; i++)
		tmp[i]->done(tmp[i]);
}

void bench_rt_plain_burst_cb_round(void)
{
	struct rpcrdma_rt_item *tmp[BURST];
	rpcrdma_rt_burst_fn_t run = run_fn, done = done_fn;
	unsigned int n;

	rte_ring_enqueue_burst(ring_a, ptrs, BURST, NULL);
	n = rte_ring_dequeue_burst(ring_a, (void **)tmp, BURST, NULL);
	run(tmp, n, NULL);
	rte_ring_enqueue_burst(ring_b, (void **)tmp, n, NULL);
	n = rte_ring_dequeue_burst(ring_b, (void **)tmp, BURST, NULL);
	done(tmp, n, NULL);
}

static void rt_round(struct rpcrdma_rt *rt)
{
	struct rpcrdma_rt_poller *p = rpcrdma_rt_poller(rt, 0);

	rpcrdma_rt_queue_burst(p, (struct rpcrdma_rt_item **)ptrs, BURST);
	rpcrdma_rt_flush(p);
	rpcrdma_rt_worker_iterate(rt, 0);
	rpcrdma_rt_poller_iterate(p);
}

void bench_rt_rt_round(void)
{
	rt_round(rt_st);
}

void bench_rt_rt_burst_round(void)
{
	rt_round(rt_bu);
}

/* ---------------------------------------------------------------- two lcores */

static uint64_t target_rounds, rounds, t_start, t_cycles;
static uint32_t stop_raw;

/* plain: the worker side on its lcore */
static int raw_worker(void *arg)
{
	void *tmp[BURST];
	unsigned int n;

	(void)arg;
	while (!__atomic_load_n(&stop_raw, __ATOMIC_RELAXED)) {
		n = rte_ring_dequeue_burst(ring_a, tmp, BURST, NULL);
		if (n)
			rte_ring_enqueue_burst(ring_b, tmp, n, NULL);
		else
			rte_pause();
	}
	return 0;
}

/* plain: the poller side, n rounds */
static int raw_poller(void *arg)
{
	void *tmp[BURST];
	uint64_t i, t0 = rte_rdtsc();
	unsigned int got;

	(void)arg;
	for (i = 0; i < target_rounds; i++) {
		rte_ring_enqueue_burst(ring_a, ptrs, BURST, NULL);
		for (got = 0; got < BURST;)
			got += rte_ring_dequeue_burst(ring_b, tmp, BURST - got, NULL);
	}
	t_cycles = rte_rdtsc() - t0;
	return 0;
}

/* runtime: a poll function issuing a round when the previous one is back */
static uint64_t issued_done;

static int rt_poll(void *arg)
{
	struct rpcrdma_rt_poller *p = arg;
	unsigned int i;

	if (rounds >= target_rounds)
		return 0;
	if (done_count - issued_done < BURST && rounds > 0)
		return 0;
	if (rounds == 0)
		t_start = rte_rdtsc();
	issued_done = done_count;
	for (i = 0; i < BURST; i++)
		rpcrdma_rt_queue(p, &items[i]);
	rounds++;
	return BURST;
}

static int rt_poll_end(void *arg)
{
	(void)arg;
	if (rounds == target_rounds && done_count - issued_done == BURST && t_cycles == 0) {
		__atomic_store_n(&t_cycles, rte_rdtsc() - t_start, __ATOMIC_RELEASE);
		return 1;
	}
	return 0;
}

uint64_t bench_rt_lcores_rounds(int use_rt, uint64_t n)
{
	static int added;
	unsigned int l1, l2;

	target_rounds = n;
	rounds = 0;
	t_cycles = 0;
	done_count = 0;
	issued_done = 0;
	if (!use_rt) {
		l1 = rte_get_next_lcore(-1, 1, 0);
		l2 = rte_get_next_lcore(l1, 1, 0);
		__atomic_store_n(&stop_raw, 0, __ATOMIC_RELAXED);
		if (rte_eal_remote_launch(raw_worker, NULL, l2))
			return 0;
		if (rte_eal_remote_launch(raw_poller, NULL, l1))
			return 0;
		rte_eal_wait_lcore(l1);
		__atomic_store_n(&stop_raw, 1, __ATOMIC_RELAXED);
		rte_eal_wait_lcore(l2);
		return t_cycles;
	}
	if (!added) {
		rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt_lc, 0), rt_poll,
				      rpcrdma_rt_poller(rt_lc, 0));
		rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt_lc, 0), rt_poll_end, NULL);
		added = 1;
	}
	if (rpcrdma_rt_start(rt_lc))
		return 0;
	/* the main lcore sleeps: this machine has two CPUs for three lcores */
	while (__atomic_load_n(&t_cycles, __ATOMIC_ACQUIRE) == 0)
		usleep(200);
	rpcrdma_rt_stop(rt_lc);
	return t_cycles;
}

double bench_rt_ns_per_cycle(void)
{
	return 1e9 / (double)rte_get_tsc_hz();
}

/* ------------------------------------------------------- null RPC, run to completion */

/*
 * A fake transport polled by a runtime poller with no workers: each
 * iteration "receives" a burst of NULL calls (AUTH_NONE, prepared once) and
 * queues them; run decodes the RPC header and dispatches (the stack answers
 * procedure 0 itself), done checks the reply length and counts it, where
 * the engine would post the Send.
 */
#define NULL_PROG 0x20000099u

struct ncall {
	struct rpcrdma_rt_item item;
	uint32_t reply_len;
	uint8_t reply[64];
};

static struct rpcrdma_svc_registry *null_reg;
static struct rpcrdma_rt *rt_null;
static struct ncall ncalls[BURST];
static uint8_t null_call[64];
static uint32_t null_call_len;
static uint64_t null_replies, null_bad;

static void null_run(struct rpcrdma_rt_item *it)
{
	struct ncall *c = (struct ncall *)it;
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(c->reply, sizeof(c->reply), 0, 0);
	struct rpcrdma_svc_req req;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_xdr_dec dec;
	struct rpcrdma_xdr_enc enc;
	int hdr;

	hdr = rpcrdma_rpc_decode(&msg, null_call, null_call_len);
	rpcrdma_xdr_dec_init(&dec, null_call + (hdr > 0 ? hdr : 0),
			     null_call_len - (hdr > 0 ? (uint32_t)hdr : 0));
	rpcrdma_xdr_enc_init(&enc, &mem);
	memset(&req, 0, sizeof(req));
	req.slot = 0;
	c->reply_len = rpcrdma_svc_dispatch(null_reg, &req, &msg, hdr, &dec, &enc) == RPCRDMA_SVC_OK
			       ? rpcrdma_xdr_enc_pos(&enc)
			       : 0;
}

static void null_done(struct rpcrdma_rt_item *it)
{
	/* xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS: 24 bytes */
	if (((struct ncall *)it)->reply_len == 24)
		null_replies++;
	else
		null_bad++;
}

static int null_poll(void *arg)
{
	struct rpcrdma_rt_poller *p = arg;
	unsigned int i;

	for (i = 0; i < BURST; i++)
		if (rpcrdma_rt_queue(p, &ncalls[i].item))
			break;
	return (int)i;
}

int bench_rt_null_setup(void)
{
	static const struct rpcrdma_svc_version v = { .vers = 1, .nprocs = 0, .procs = NULL };
	struct rpcrdma_svc_program prog = {
		.name = "null", .prog = NULL_PROG, .nvers = 1, .vers = &v
	};
	struct rpcrdma_svc_params sp;
	struct rpcrdma_rt_params p;
	struct rpcrdma_rpc_msg m;
	unsigned int i;
	int n;

	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = 1;
	if (rpcrdma_svc_registry_create(&sp, &null_reg) || rpcrdma_svc_register(null_reg, &prog))
		return -1;
	memset(&m, 0, sizeof(m));
	m.xid = 0x1234;
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = 2;
	m.call.prog = NULL_PROG;
	m.call.vers = 1;
	m.call.proc = 0;
	n = rpcrdma_rpc_encode(&m, null_call, sizeof(null_call));
	if (n < 0)
		return -1;
	null_call_len = (uint32_t)n;
	rpcrdma_rt_params_init(&p);
	p.name = "bnu";
	p.roles = "pollers=1";
	if (rpcrdma_rt_create(&p, &rt_null))
		return -1;
	for (i = 0; i < BURST; i++) {
		ncalls[i].item.run = null_run;
		ncalls[i].item.done = null_done;
	}
	return rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt_null, 0), null_poll,
				     rpcrdma_rt_poller(rt_null, 0));
}

int bench_rt_null_iterate(void)
{
	return rpcrdma_rt_poller_iterate(rpcrdma_rt_poller(rt_null, 0));
}

uint64_t bench_rt_null_replies(uint64_t *bad)
{
	*bad = null_bad;
	return null_replies;
}
