/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A running rpcrdma process for the telemetry test: EAL with telemetry under
 * the file prefix argv[1], a runtime with one poller and one worker serving
 * calls from a table, a buffer pool with 3 buffers taken, the dispatcher's
 * counters after a known set of calls (and a duplicate request cache of 32
 * entries that none of them, all idempotent, touches), and a fake connection provider with
 * connections 7 and 9. Prints "READY" once the known calls are done and
 * runs until stdin closes.
 *
 * With FILE-PREFIX "-": the EAL of every rpcrdma program instead
 * (rpcrdma_mempool_eal_init(): default prefix, telemetry unless
 * RPCRDMA_TELEMETRY=0, two lcores) and one poller running the calls to
 * completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>

#include "rt_common.h"

#define NCALLS 64

struct tcall {
	struct rpcrdma_rt_item item;
	uint32_t idx;
	uint8_t reply[64];
};

static struct rpcrdma_svc_registry *reg;
static uint8_t calls[NCALLS][128];
static uint32_t call_len[NCALLS];
static struct tcall tcalls[NCALLS];
static uint32_t next_call, inflight, done_calls;

static void t_run(struct rpcrdma_rt_item *it)
{
	struct tcall *tc = (struct tcall *)it;
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(tc->reply, sizeof(tc->reply), 0, 0);
	struct rpcrdma_svc_req req;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_xdr_dec dec;
	struct rpcrdma_xdr_enc enc;
	int hdr;

	hdr = rpcrdma_rpc_decode(&msg, calls[tc->idx], call_len[tc->idx]);
	rpcrdma_xdr_dec_init(&dec, calls[tc->idx] + (hdr > 0 ? hdr : 0),
			     call_len[tc->idx] - (hdr > 0 ? (uint32_t)hdr : 0));
	rpcrdma_xdr_enc_init(&enc, &mem);
	memset(&req, 0, sizeof(req));
	req.slot = rte_lcore_id();
	rpcrdma_svc_dispatch(reg, &req, &msg, hdr, &dec, &enc);
}

static void t_done(struct rpcrdma_rt_item *it)
{
	inflight--;
	__atomic_store_n(&done_calls, done_calls + 1, __ATOMIC_RELEASE);
}

/* Issue the table once, then idle (so idle cycles grow too). */
static int t_poll(void *arg)
{
	struct rpcrdma_rt_poller *p = arg;
	int n = 0;

	while (next_call < NCALLS && inflight < 16) {
		struct tcall *tc = &tcalls[next_call];

		tc->idx = next_call;
		tc->item.run = t_run;
		tc->item.done = t_done;
		inflight++;
		if (rpcrdma_rt_queue(p, &tc->item)) {
			inflight--;
			break;
		}
		next_call++;
		n++;
	}
	return n;
}

static unsigned int conn_list(void *arg, uint64_t *ids, unsigned int max)
{
	static const uint64_t mine[] = { 7, 9 };
	unsigned int i;

	for (i = 0; i < 2 && i < max; i++)
		ids[i] = mine[i];
	return i;
}

static int conn_info(void *arg, uint64_t id, struct rpcrdma_telemetry_kv *kv)
{
	if (id != 7 && id != 9)
		return -ENOENT;
	rpcrdma_telemetry_kv_str(kv, "state", "CONNECTED");
	rpcrdma_telemetry_kv_u64(kv, "credits_granted", id == 7 ? 32 : 8);
	rpcrdma_telemetry_kv_u64(kv, "credits_outstanding", id == 7 ? 3 : 0);
	rpcrdma_telemetry_kv_u64(kv, "sends", id * 100);
	/* a key rte_telemetry would refuse is refused here */
	return rpcrdma_telemetry_kv_u64(kv, "bad key", 1) == -EINVAL ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	struct rpcrdma_telemetry_conn_provider prov = { .name = "fake",
							.list = conn_list,
							.info = conn_info };
	struct rpcrdma_mempool_params mp;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_drc_params dp;
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_rt_params rp;
	struct rpcrdma_mempool *pool;
	struct rpcrdma_rt *rt;
	void *bufs[3];
	char line[16];
	bool eal_default;
	unsigned int i;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-PREFIX|-\n", argv[0]);
		return 1;
	}
	eal_default = strcmp(argv[1], "-") == 0;
	if (eal_default) {
		ret = rpcrdma_mempool_eal_init(argv[0], NULL);
		if (ret) {
			fprintf(stderr, "SKIP: the EAL does not start here (%d)\n", ret);
			return 77;
		}
		if (rte_lcore_count() < 2) {
			fprintf(stderr, "SKIP: one CPU\n");
			return 77;
		}
	} else {
		ret = rpcrdma_telemetry_init(); /* before rte_eal_init(), as DPDK libraries do */
		if (ret) {
			fprintf(stderr, "telemetry init: %d\n", ret);
			return 1;
		}
		ret = rt_eal_init(argv[0], 3, argv[1]);
		if (ret)
			return ret;
	}
	CHECK(rpcrdma_telemetry_init() == 0, "init twice");

	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = RTE_MAX_LCORE;
	if (rpcrdma_svc_registry_create(&sp, &reg) || rt_register_prog(reg))
		return 1;
	/* a duplicate request cache: in telemetry, untouched by the idempotent calls */
	rpcrdma_svc_drc_params_init(&dp);
	dp.entries = 32;
	if (rpcrdma_svc_drc_create(&dp, &drc) || rpcrdma_svc_drc_attach(reg, drc))
		return 1;
	for (i = 0; i < NCALLS; i++)
		call_len[i] = rt_build_call(i, calls[i], sizeof(calls[i]));

	rpcrdma_mempool_params_init(&mp);
	mp.name = "tel_inline";
	mp.count = 64;
	mp.buf_size = 1024;
	mp.cache_size = 0;
	mp.no_hugepages = true;
	ret = rpcrdma_mempool_create(&mp, NULL, &pool);
	if (ret) {
		fprintf(stderr, "pool: %d\n", ret);
		return 1;
	}
	if (rpcrdma_mempool_get_bulk(pool, bufs, 3))
		return 1;

	rpcrdma_rt_params_init(&rp);
	rp.roles = eal_default ? "pollers=1" : "pollers=1,workers=1";
	if (rpcrdma_rt_create(&rp, &rt))
		return 1;
	rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt, 0), t_poll, rpcrdma_rt_poller(rt, 0));

	CHECK(rpcrdma_telemetry_rt_add(rt) == 0, "rt_add");
	CHECK(rpcrdma_telemetry_rt_add(rt) == -EEXIST, "rt_add twice");
	CHECK(rpcrdma_telemetry_pool_add(pool) == 0, "pool_add");
	CHECK(rpcrdma_telemetry_svc_add(reg) == 0, "svc_add");
	CHECK(rpcrdma_telemetry_conn_provider_add(&prov) == 0, "provider_add");

	if (rpcrdma_rt_start(rt))
		return 1;
	while (__atomic_load_n(&done_calls, __ATOMIC_ACQUIRE) < NCALLS)
		usleep(1000);
	usleep(20000); /* some idle iterations */
	printf("READY\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		;

	rpcrdma_rt_stop(rt);
	CHECK(rpcrdma_telemetry_conn_provider_del(&prov) == 0, "provider_del");
	CHECK(rpcrdma_telemetry_rt_del(rt) == 0 && rpcrdma_telemetry_rt_del(rt) == -ENOENT,
	      "rt_del");
	CHECK(rpcrdma_telemetry_pool_del(pool) == 0, "pool_del");
	CHECK(rpcrdma_telemetry_svc_del(reg) == 0, "svc_del");
	rpcrdma_rt_free(rt);
	rpcrdma_mempool_put_bulk(pool, bufs, 3);
	rpcrdma_mempool_free(pool);
	rpcrdma_svc_registry_free(reg);
	rpcrdma_svc_drc_free(drc);
	rte_eal_cleanup();
	return test_failures ? 1 : 0;
}
