/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A running process for the engine's telemetry test
 * (xprt_telemetry_test.py): EAL with telemetry under the file prefix
 * argv[1], a client and a server connection over the shm PMD in this
 * thread, the server answering through the dispatch glue. It makes NCALLS
 * NULL calls, prints "READY <client id> <server id>" and stops polling (the
 * counters hold still); on a line "close" on stdin it closes and destroys
 * both connections and prints "CLOSED"; it exits when stdin closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "rt_common.h"
#include "test_side.h"

#define PROG	0x20000102u
#define NCALLS	10
#define WAIT_MS 10000

static struct test_side cli, srv;
static unsigned int replies;

static int side_open(struct test_side *s, const char *name)
{
	const struct test_side_pools p = { name, 128, 2, 1, 32, true };

	return test_side_create(s, NULL, &p);
}

static void pump(void)
{
	test_side_pump_pair(&cli, &srv, test_side_accept);
}

static bool until(bool (*cond)(void *))
{
	return test_side_until(pump, cond, NULL, WAIT_MS);
}

static bool established(void *arg)
{
	return test_side_in(&srv, RPCRDMA_XPRT_ESTABLISHED) &&
	       test_side_in(&cli, RPCRDMA_XPRT_ESTABLISHED);
}

static bool all_replied(void *arg)
{
	return replies == NCALLS;
}

static bool closed(void *arg)
{
	return test_side_in(&cli, RPCRDMA_XPRT_CLOSED) && test_side_in(&srv, RPCRDMA_XPRT_CLOSED);
}

static void null_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		    struct rpcrdma_xdr_dec *d)
{
	struct rpcrdma_rpc_msg m;

	if (status == 0 && rpcrdma_xprt_get_rpc(d, &m) == 0 &&
	    m.reply.accept_stat == RPCRDMA_RPC_SUCCESS)
		replies++;
	rpcrdma_xprt_call_release(call);
}

static int null_call(void)
{
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_rpc_msg m;
	int ret;

	ret = rpcrdma_xprt_call_alloc(cli.xprt, &c);
	if (ret)
		return ret;
	memset(&m, 0, sizeof(m));
	m.xid = rpcrdma_xprt_call_xid(c);
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = RPCRDMA_RPC_VERS;
	m.call.prog = PROG;
	m.call.vers = 1;
	rpcrdma_xprt_put_rpc(rpcrdma_xprt_call_enc(c), &m);
	rpcrdma_xprt_call_reply_spec(c)->max_len = 64;
	return rpcrdma_xprt_call_submit(c, 0, null_cb, NULL);
}

int main(int argc, char **argv)
{
	static const struct rpcrdma_svc_version vers = { 1, 0, NULL };
	struct rpcrdma_svc_program prog = {
		.name = "tel", .prog = PROG, .nvers = 1, .vers = &vers
	};
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_svc_registry *reg;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_xprt_svc glue;
	char line[32], addr[64];
	unsigned int bad;
	int ret, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-PREFIX\n", argv[0]);
		return 1;
	}
	if (rpcrdma_telemetry_init())
		return 1;
	ret = rt_eal_init(argv[0], 1, argv[1]);
	if (ret)
		return ret;
	rpcrdma_svc_params_init(&sp);
	if (rpcrdma_svc_registry_create(&sp, &reg) || rpcrdma_svc_register(reg, &prog))
		return 1;
	rpcrdma_xprt_svc_init(&glue, reg, 0);
	if (side_open(&cli, "tc") || side_open(&srv, "ts"))
		return 1;
	snprintf(addr, sizeof(addr), "@rpcrdma-xtel-%d", getpid());
	if (rpcrdma_pmd_listen(srv.dev, addr, &srv.listener))
		return 1;
	test_side_params(&cli, RPCRDMA_XPRT_CLIENT);
	test_side_params(&srv, RPCRDMA_XPRT_SERVER);
	srv.params.max_credits = 16;
	rpcrdma_xprt_svc_bind(&glue, &srv.params);
	if (rpcrdma_xprt_create(&cli.params, &cli.xprt) || rpcrdma_xprt_connect(cli.xprt, addr) ||
	    !until(established))
		return 1;
	for (i = 0; i < NCALLS; i++)
		if (null_call())
			return 1;
	if (!until(all_replied))
		return 1;
	for (i = 0; i < 100; i++) /* the last Send completions, receives reposted */
		pump();
	rpcrdma_xprt_info(cli.xprt, &ci);
	rpcrdma_xprt_info(srv.xprt, &si);
	printf("READY %lu %lu\n", (unsigned long)ci.id, (unsigned long)si.id);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "close", 5) != 0)
			continue;
		rpcrdma_xprt_disconnect(cli.xprt);
		if (!until(closed))
			return 1;
		if (rpcrdma_xprt_destroy(cli.xprt) || rpcrdma_xprt_destroy(srv.xprt))
			return 1;
		printf("CLOSED\n");
		fflush(stdout);
	}
	bad = test_side_destroy(&cli) + test_side_destroy(&srv);
	rpcrdma_svc_registry_free(reg);
	rte_eal_cleanup();
	return bad ? 1 : 0;
}
