/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One EAL start-up for every rpcrdma program, test and benchmark: hugepages
 * in --in-memory mode when enough are free, --no-huge otherwise, quiet logs,
 * no PCI scan, no telemetry socket.
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
	const char *no_huge = getenv("RPCRDMA_NO_HUGE");
	bool huge;
	int ret;

	if (eal_state == 1)
		return 0;

	huge = (no_huge == NULL || no_huge[0] == '\0' || strcmp(no_huge, "0") == 0) &&
	       free_hugepages() >= EAL_HUGEPAGES_MIN;
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
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"-l";
	argv[argc++] = (char *)lcores;
	argv[argc++] = (char *)"--log-level=lib.eal:error";
	argv[argc] = NULL;

	if (!huge)
		fprintf(stderr, "rpcrdma: warning: %s; running the EAL with --no-huge\n",
			no_huge != NULL && no_huge[0] != '\0' && strcmp(no_huge, "0") != 0
				? "RPCRDMA_NO_HUGE is set"
				: "fewer than 64 free 2 MiB hugepages");

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return rte_errno == EALREADY ? -EALREADY : -rte_errno;
	eal_state = 1;
	eal_huge = huge;
	return 0;
}

bool rpcrdma_mempool_eal_hugepages(void)
{
	return eal_huge;
}
