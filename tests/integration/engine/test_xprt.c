/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine end to end over a PMD: shm, or verbs on a real RDMA device
 * (RPCRDMA_TEST_PMD=verbs, RPCRDMA_TEST_VERBS_ADDR=IP[:PORT],
 * RPCRDMA_TEST_VERBS_DEVARGS=...: test_side.h). Without the verbs
 * variables a verbs run skips (77); cases that need shm (its fault
 * injection devargs) skip on verbs with the reason printed.
 *
 *   test_xprt setup|forms|credits|errors|loss|client   both ends in this thread
 *   test_xprt v2forms       forms and credits again, both ends in version 2
 *   test_xprt v2            version negotiation, version 2 errors
 *   test_xprt xchar         transport characteristics (xcharext) through the engine
 *   test_xprt backward      backward-direction calls (RFC 8167) in versions 1 and 2
 *   test_xprt hostile       mutated messages at a server and at a client: no crash,
 *                           calls complete, pools full
 *                           (HOSTILE_ROUNDS=N HOSTILE_SEED=S: longer, other)
 *   test_xprt xproc                             the server in a second process
 *
 * In-process, one thread polls the two connections (and the two devices'
 * events) in turn: every run is the same. A test program (prog 0x20000099)
 * carries in its arguments the words, the DDP-eligible items and the shape
 * of the reply it wants, so the server checks every argument byte and the
 * client every result byte.
 *
 * Here: main() and the table of parts. The cases of each part are in
 * test_xprt_<part>.c (v2forms runs those of forms and credits; xchar's are
 * in test_xprt_v2.c), over the harness declared in test_xprt.h
 * (xprt_harness.c, xprt_bare.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "test_xprt.h"

/* The parts, in the order of their port ranges on verbs (test_side_env()'s slot). */
static const char *const parts[] = {
	"setup",   "forms", "credits", "errors",   "loss",    "client",
	"v2forms", "v2",    "xchar",   "backward", "hostile", "xproc"
};

/* The PMD from the environment, for @part: 0 go on, else the exit status (77: skip). */
static int pmd_env(const char *part)
{
	unsigned int slot;
	int ret;

	for (slot = 0; slot < sizeof(parts) / sizeof(parts[0]); slot++)
		if (strcmp(parts[slot], part) == 0)
			break;
	if (slot == sizeof(parts) / sizeof(parts[0])) {
		fprintf(stderr, "unknown part %s\n", part);
		return 1;
	}
	ret = test_side_env(slot);
	if (ret != 0)
		return ret;
	if (!test_side_shm()) {
		wait_ms = 60000;
		tmo_scale = 50;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char name[64];
	int ret;

	if (argc == 3 && strcmp(argv[1], "--xproc-server") == 0) {
		if (rpcrdma_mempool_eal_init(argv[0], NULL) < 0 || pmd_env("xproc") != 0)
			return 1;
		return xproc_server(argv[2]);
	}
	if (argc != 2) {
		fprintf(stderr,
			"usage: %s setup|forms|credits|errors|loss|client|v2forms|v2|xchar|"
			"backward|hostile|xproc\n",
			argv[0]);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* lines, so that what was printed survives a test killed by its timeout */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "xproc") == 0) {
		/* the server process is forked before this one starts its EAL */
		ret = pmd_env(argv[1]);
		return ret != 0 ? ret : xproc_client(argv[0]);
	}
	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-ret));
		return 1;
	}
	ret = pmd_env(argv[1]);
	if (ret != 0)
		return ret;
	if (strcmp(argv[1], "setup") == 0) {
		test_setup();
		test_dev_flags();
	} else if (strcmp(argv[1], "forms") == 0)
		test_forms();
	else if (strcmp(argv[1], "credits") == 0) {
		test_credits();
		test_grants();
		test_group_reserve();
		test_unsignaled();
	} else if (strcmp(argv[1], "errors") == 0) {
		test_errors();
		test_error_rules();
		test_errors_requester();
		test_errors_shared_slots();
	} else if (strcmp(argv[1], "loss") == 0) {
		test_loss();
		test_loss_peer();
		test_reconnect();
		test_faults();
	} else if (strcmp(argv[1], "v2forms") == 0) {
		cli_vers = srv_vers = srv_vers_min = RPCRDMA_VERS_2;
		test_forms();
		test_credits();
		test_unsignaled();
	} else if (strcmp(argv[1], "v2") == 0) {
		test_v2_negotiation();
		test_v2_errors();
		test_v2_optional_v1();
	} else if (strcmp(argv[1], "hostile") == 0) {
		test_hostile_server();
		test_hostile_client();
		test_v2_probe_lost();
	} else if (strcmp(argv[1], "backward") == 0) {
		test_backward_v1();
		test_backward_v2();
		test_backward_loss();
		test_backward_group();
	} else if (strcmp(argv[1], "xchar") == 0) {
		test_xchar();
		test_xchar_errors();
	} else if (strcmp(argv[1], "client") == 0) {
		test_timeout();
		test_polling();
		test_reply_rpc();
	}
	snprintf(name, sizeof(name), "test_xprt %s", argv[1]);
	return test_side_summary(name, test_checks, test_failures);
}
