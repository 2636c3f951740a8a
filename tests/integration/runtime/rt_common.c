/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_pause.h>

#include "rt_common.h"

volatile int rt_slow_block;
volatile int rt_slow_running;

int rt_eal_init(const char *prog, unsigned int nb_lcores, const char *prefix)
{
	char lcores[64], cpus[32] = "", pfx[80];
	char *argv[16];
	int argc = 0, found = 0, cpu;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
			if (CPU_ISSET(cpu, &set)) {
				size_t l = strlen(cpus);

				snprintf(cpus + l, sizeof(cpus) - l, "%s%d", found ? "," : "", cpu);
				found++;
			}
	if (found == 0)
		snprintf(cpus, sizeof(cpus), "0");
	snprintf(lcores, sizeof(lcores), "--lcores=(0-%u)@(%s)", nb_lcores - 1, cpus);
	argv[argc++] = (char *)prog;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"128";
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = lcores;
	argv[argc++] = (char *)"--log-level=lib.eal:error";
	if (prefix) {
		/*
		 * --no-shconf still creates the runtime directory where the
		 * socket lives; --in-memory is refused with --no-huge.
		 */
		snprintf(pfx, sizeof(pfx), "--file-prefix=%s", prefix);
		argv[argc++] = pfx;
		argv[argc++] = (char *)"--no-shconf";
	} else {
		argv[argc++] = (char *)"--no-shconf";
		argv[argc++] = (char *)"--no-telemetry";
	}
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "SKIP: the EAL does not start here (%s)\n", lcores);
		return 77;
	}
	return 0;
}

/* ------------------------------------------------------------ test program */

struct add_args {
	uint32_t a, b;
};
struct u32_res {
	uint32_t v;
};

/* add_args: unsigned int a; unsigned int b; */
static int dec_add(struct rpcrdma_xdr_dec *dec, void *p)
{
	struct add_args *a = p;

	return rpcrdma_xdr_get_u32(dec, &a->a) || rpcrdma_xdr_get_u32(dec, &a->b) ? -1 : 0;
}

/* u32_res: unsigned int v; */
static int enc_u32(struct rpcrdma_xdr_enc *enc, const void *p)
{
	return rpcrdma_xdr_put_u32(enc, ((const struct u32_res *)p)->v);
}

static int h_add(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const struct add_args *a = args;

	((struct u32_res *)res)->v = a->a * 3 + a->b;
	return RPCRDMA_SVC_OK;
}

static int h_fail(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return -EIO;
}

static int h_who(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const struct rpcrdma_rpc_call *c = &req->call->call;

	((struct u32_res *)res)->v = c->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? c->sys.uid : 0xffff;
	return RPCRDMA_SVC_OK;
}

static int h_slow(struct rpcrdma_svc_req *req, void *args, void *res)
{
	rt_slow_running = 1;
	while (rt_slow_block)
		rte_pause();
	return RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc procs[TP_COUNT] = {
	[TP_ADD] = { .name = "ADD",
		     .decode = dec_add,
		     .handler = h_add,
		     .encode = enc_u32,
		     .args_size = sizeof(struct add_args),
		     .res_size = sizeof(struct u32_res) },
	[TP_FAIL] = { .name = "FAIL", .handler = h_fail },
	[TP_WHO] = { .name = "WHO",
		     .handler = h_who,
		     .encode = enc_u32,
		     .res_size = sizeof(struct u32_res) },
	[TP_SLOW] = { .name = "SLOW", .handler = h_slow },
};

static const struct rpcrdma_svc_version vers[] = {
	{ .vers = 1, .nprocs = TP_COUNT, .procs = procs },
	{ .vers = 3, .nprocs = TP_COUNT, .procs = procs },
};

int rt_register_prog(struct rpcrdma_svc_registry *reg)
{
	struct rpcrdma_svc_program p = {
		.name = "rttest", .prog = TPROG, .nvers = 2, .vers = vers
	};

	return rpcrdma_svc_register(reg, &p);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

uint32_t rt_build_call(uint32_t i, uint8_t *buf, uint32_t cap)
{
	struct rpcrdma_rpc_authsys sys = { .uid = 1000 + i, .gid = 7 };
	uint8_t cred[64];
	struct rpcrdma_rpc_msg m;
	uint32_t nargs = 0;
	int n;

	memset(&m, 0, sizeof(m));
	m.xid = 0x10000 + i;
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = 2;
	m.call.prog = TPROG;
	m.call.vers = (i & 1) ? 1 : 3;
	switch (i % 8) {
	case 0:
	case 1:
	case 2:
		m.call.proc = TP_ADD;
		nargs = 2;
		break;
	case 3:
		m.call.proc = TP_WHO;
		break;
	case 4:
		m.call.proc = TP_FAIL;
		break;
	case 5: /* PROG_MISMATCH, PROG_UNAVAIL or PROC_UNAVAIL */
		if (i % 3 == 0)
			m.call.vers = 2;
		else if (i % 3 == 1)
			m.call.prog = 7;
		else
			m.call.proc = 99;
		break;
	case 6: /* GARBAGE_ARGS */
		m.call.proc = TP_ADD;
		nargs = 1;
		break;
	default:
		m.call.proc = TP_NULL;
		break;
	}
	if (i % 4 == 3) {
		sys.machinename = "host";
		sys.machinename_len = 4;
		n = rpcrdma_rpc_authsys_encode(&sys, cred, sizeof(cred));
		if (n < 0)
			abort();
		m.call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
		m.call.cred.len = (uint32_t)n;
		m.call.cred.body = cred;
	}
	n = rpcrdma_rpc_encode(&m, buf, cap);
	if (n < 0 || (uint32_t)n + 8 > cap)
		abort();
	if (nargs > 0)
		put_be32(buf + n, i);
	if (nargs > 1)
		put_be32(buf + n + 4, i * 7);
	return (uint32_t)n + 4 * nargs;
}
