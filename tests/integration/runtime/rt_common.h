/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the runtime tests and the telemetry tests: the EAL start-up
 * with several lcores on the CPUs this process may use, and a test RPC
 * program. Checks are the common ones (test_check.h).
 */
#ifndef RPCRDMA_TEST_RT_COMMON_H
#define RPCRDMA_TEST_RT_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_svc.h>

#include "test_check.h"

/**
 * Start the EAL with lcores 0..nb_lcores-1 (0 the main lcore) all mapped to
 * the first two CPUs this process may run on (EAL --lcores "(0-N)@(a,b)"),
 * no hugepages, no PCI. With telemetry, under file prefix @p prefix (the
 * socket is <runtime dir>/dpdk/<prefix>/dpdk_telemetry.v2).
 * @return 0, or 77 when the EAL cannot start (the caller skips).
 */
int rt_eal_init(const char *prog, unsigned int nb_lcores, const char *prefix);

#define TPROG 0x20000010u
enum {
	TP_NULL,
	TP_ADD,
	TP_FAIL,
	TP_WHO,
	TP_SLOW,
	TP_COUNT
};

/** A SLOW call spins while this is set (release it from the test). */
extern volatile int rt_slow_block;
/** Set by a SLOW call when it starts. */
extern volatile int rt_slow_running;

/** Register the test program (TPROG versions 1 and 3). */
int rt_register_prog(struct rpcrdma_svc_registry *reg);

/** Call i of a deterministic mix of good and bad calls; returns its length. */
uint32_t rt_build_call(uint32_t i, uint8_t *buf, uint32_t cap);

#endif
