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

#include <rpcrdma/rpcrdma_rt.h>

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
