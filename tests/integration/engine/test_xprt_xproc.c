/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt xproc: the server in a second process (this program, execed
 * with --xproc-server ADDR), the client here: the forms checked end to end
 * across processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_xprt.h"

int xproc_server(const char *addr)
{
	struct env e;
	uint64_t end = test_now_ms() + 6 * WAIT_MS;

	memset(&e, 0, sizeof(e));
	memset(&sctx, 0, sizeof(sctx));
	snprintf(e.addr, sizeof(e.addr), "%s", addr);
	if (side_open(&e.srv, "ps", NULL, NULL))
		return 1;
	srv_pools = e.srv.pools;
	if (rpcrdma_pmd_listen(e.srv.dev, e.addr, &e.srv.listener))
		return 1;
	srv_params(&e, 32, 32);
	/* serve until the client has connected and gone */
	while (test_now_ms() < end) {
		pump_once(&e);
		if (e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CLOSED)
			break;
	}
	CHECK(e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CLOSED,
	      "server: the client came and went");
	CHECK(sctx.bad == 0, "server: every call's arguments checked out");
	if (e.srv.xprt)
		CHECK(rpcrdma_xprt_destroy(e.srv.xprt) == 0, "destroy");
	e.srv.xprt = NULL;
	side_close(&e.srv);
	printf("xproc server: %u calls, %lu failures\n", sctx.calls, test_failures);
	return test_failures ? 1 : 0;
}

int xproc_client(const char *prog)
{
	struct tcall cases[] = {
		{ .proc = PROC_NULL },
		{ .proc = PROC_TEST, .words = 3, .nitems = 2, .item_len = { 40000, 7 } },
		{ .proc = PROC_TEST,
		  .words = 2,
		  .nres = 3,
		  .res_len = { 3000, 2, 60000 },
		  .res_chunks = true },
		{ .proc = PROC_TEST, .words = 800, .rwords = 900 },
	};
	char addr[64];
	int status, ret;
	struct env e;
	pid_t pid;

	test_side_addr(addr, sizeof(addr), "xprt-x");
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", prog, "--xproc-server", addr, (char *)NULL);
		_exit(127);
	}
	ret = rpcrdma_mempool_eal_init(prog, NULL);
	if (ret < 0)
		return 1;
	memset(&e, 0, sizeof(e));
	snprintf(e.addr, sizeof(e.addr), "%s", addr);
	if (side_open(&e.cli, "pc", NULL, NULL))
		return 1;
	cli_params(&e, DEF_FLAGS);
	e.cli.params.send_inline = 2048;
	e.cli.params.recv_inline = 2048;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	{
		uint64_t end = test_now_ms() + 4 * WAIT_MS;

		while (rpcrdma_xprt_connect(e.cli.xprt, e.addr) != 0 && test_now_ms() < end)
			usleep(10000); /* the server process is starting */
		while (rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_ESTABLISHED &&
		       test_now_ms() < end) {
			pump_once(&e);
			if (rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ERROR)
				rpcrdma_xprt_connect(e.cli.xprt, e.addr);
		}
	}
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED, "xproc: established");
	for (unsigned int rep = 0; rep < 3; rep++)
		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct tcall t = cases[i];

			if (!run_call(&e, &t))
				break;
			CHECK(t.status == 0 && t.ok, "xproc call %u: %d", i, t.status);
		}
	rpcrdma_xprt_disconnect(e.cli.xprt);
	CHECK(pump_until(&e, both_closed, NULL), "closed");
	CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == 0, "destroy");
	e.cli.xprt = NULL;
	side_close(&e.cli);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "server process failed (status %#x)\n", status);
		test_failures++;
	}
	return test_failures ? 1 : 0;
}
