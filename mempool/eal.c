/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One EAL start-up for every rpcrdma program, test and benchmark: hugepages
 * in --in-memory mode when enough are free, --no-huge otherwise, quiet logs,
 * no PCI scan, and the telemetry socket with the /rpcrdma/ commands unless
 * RPCRDMA_TELEMETRY=0.
 *
 * Telemetry: both modes create the socket at <runtime dir>/dpdk_telemetry.v2
 * (--in-memory and --no-shconf keep every other runtime file away; the
 * directory is still made). The prefix stays EAL's default "rte", so a
 * plain dpdk-telemetry.py finds the process; a second process with the same
 * prefix gets dpdk_telemetry.v2:1 (dpdk-telemetry.py -i 1), so processes
 * started in parallel never fail on the socket. Tests isolate themselves by
 * RUNTIME_DIRECTORY (set by meson test) rather than by prefix.
 *
 * The choice is made before rte_eal_init() because a failed rte_eal_init()
 * cannot be retried with other arguments in the same process.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <rpcrdma/rpcrdma_mempool.h>

/* Free 2 MiB pages needed to choose hugepages: 128 MiB. */
#define EAL_HUGEPAGES_MIN 64

static int eal_state; /* 0: not done, 1: done by us */
static bool eal_huge;
static bool eal_telemetry;

static long free_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* An environment switch: unset or "" gives dflt, "0" false, anything else true. */
static bool env_flag(const char *name, bool dflt)
{
	const char *v = getenv(name);

	if (v == NULL || v[0] == '\0')
		return dflt;
	return strcmp(v, "0") != 0;
}

/* "-l" list: the first two CPUs this thread may run on. */
static void default_lcores(char *buf, size_t len)
{
	cpu_set_t set;
	int cpu, found = 0;
	size_t off = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		off += snprintf(buf + off, len - off, "%s%d", found ? "," : "", cpu);
		found++;
	}
	if (found == 0)
		snprintf(buf, len, "0");
}

int rpcrdma_mempool_eal_init(const char *prog, const char *lcores)
{
	char lcore_buf[64];
	char *argv[16];
	int argc = 0;
	bool no_huge = env_flag("RPCRDMA_NO_HUGE", false);
	bool telemetry = env_flag("RPCRDMA_TELEMETRY", true);
	bool huge;
	int ret;

	if (eal_state == 1)
		return 0;

	huge = !no_huge && free_hugepages() >= EAL_HUGEPAGES_MIN;
	if (lcores == NULL) {
		default_lcores(lcore_buf, sizeof(lcore_buf));
		lcores = lcore_buf;
	}

	argv[argc++] = (char *)(prog != NULL ? prog : "rpcrdma");
	if (huge) {
		argv[argc++] = (char *)"--in-memory";
	} else {
		/* --in-memory implies hugepages; --no-shconf keeps runtime files away */
		argv[argc++] = (char *)"--no-huge";
		argv[argc++] = (char *)"--no-shconf";
	}
	argv[argc++] = (char *)"--no-pci";
	if (!telemetry)
		argv[argc++] = (char *)"--no-telemetry";
	/* "(0-2)@(1)": EAL's lcore-to-CPU map; "0-1": CPUs, one lcore each */
	argv[argc++] = (char *)(strpbrk(lcores, "@(") != NULL ? "--lcores" : "-l");
	argv[argc++] = (char *)lcores;
	argv[argc++] = (char *)"--log-level=lib.eal:error";
	/* its one warning on stdout ("No legacy callbacks...") on every start */
	argv[argc++] = (char *)"--log-level=lib.telemetry:error";
	argv[argc] = NULL;

	if (!huge)
		fprintf(stderr, "rpcrdma: warning: %s; running the EAL with --no-huge\n",
			no_huge ? "RPCRDMA_NO_HUGE is set" : "fewer than 64 free 2 MiB hugepages");

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return rte_errno == EALREADY ? -EALREADY : -rte_errno;
	eal_state = 1;
	eal_huge = huge;
	eal_telemetry = telemetry;
	return 0;
}

bool rpcrdma_mempool_eal_hugepages(void)
{
	return eal_huge;
}

bool rpcrdma_mempool_eal_telemetry(void)
{
	return eal_telemetry;
}
