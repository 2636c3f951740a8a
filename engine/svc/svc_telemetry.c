/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dispatcher's telemetry: /rpcrdma/programs (the registries' dispatch
 * counters and per program) and /rpcrdma/program,<prog> (per procedure),
 * as described in rpcrdma_telemetry.h, for the registries registered with
 * rpcrdma_telemetry_svc_add(). The commands are registered with
 * rte_telemetry at load, as DPDK's libraries register theirs; the table
 * is guarded by one mutex that only the control path and the telemetry
 * thread take.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>

#define OBJS_MAX RPCRDMA_TELEMETRY_OBJS_MAX

static pthread_mutex_t svc_tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rpcrdma_svc_registry *regs[OBJS_MAX];

int rpcrdma_telemetry_svc_add(struct rpcrdma_svc_registry *reg)
{
	int i, free_slot = -1;

	if (reg == NULL)
		return -EINVAL;
	pthread_mutex_lock(&svc_tel_lock);
	for (i = 0; i < OBJS_MAX; i++) {
		if (regs[i] == reg) {
			pthread_mutex_unlock(&svc_tel_lock);
			return -EEXIST;
		}
		if (regs[i] == NULL && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0)
		regs[free_slot] = reg;
	pthread_mutex_unlock(&svc_tel_lock);
	return free_slot >= 0 ? 0 : -ENOSPC;
}

int rpcrdma_telemetry_svc_del(struct rpcrdma_svc_registry *reg)
{
	int i, ret = -ENOENT;

	pthread_mutex_lock(&svc_tel_lock);
	for (i = 0; i < OBJS_MAX; i++)
		if (reg != NULL && regs[i] == reg) {
			regs[i] = NULL;
			ret = 0;
		}
	pthread_mutex_unlock(&svc_tel_lock);
	return ret;
}

/*
 * Service times (the registry's clock; zeros without one): the sum, the
 * mean per call answered and the longest, in nanoseconds.
 */
static void add_times(struct rte_tel_data *c, const struct rpcrdma_svc_proc_stats *st)
{
	uint64_t answered = st->success + st->garbage_args + st->system_err;

	rte_tel_data_add_dict_u64(c, "time_ns", st->time_ns);
	rte_tel_data_add_dict_u64(c, "mean_ns", answered ? st->time_ns / answered : 0);
	rte_tel_data_add_dict_u64(c, "max_ns", st->max_ns);
}

/* A program's procedure counters summed over its versions and procedures. */
static void prog_sum(struct rpcrdma_svc_registry *reg, const struct rpcrdma_svc_program *p,
		     struct rpcrdma_svc_proc_stats *sum)
{
	struct rpcrdma_svc_proc_stats st;

	memset(sum, 0, sizeof(*sum));
	for (uint32_t v = 0; v < p->nvers; v++) {
		uint32_t n = p->vers[v].nprocs ? p->vers[v].nprocs : 1;

		for (uint32_t k = 0; k < n; k++) {
			if (rpcrdma_svc_proc_stats(reg, p->prog, p->vers[v].vers, k, &st))
				continue;
			sum->success += st.success;
			sum->garbage_args += st.garbage_args;
			sum->system_err += st.system_err;
			sum->time_ns += st.time_ns;
			sum->max_ns = st.max_ns > sum->max_ns ? st.max_ns : sum->max_ns;
		}
	}
}

/* The registries' duplicate request caches, summed (flat keys: one level of nesting). */
static void add_drc(struct rte_tel_data *c, const struct rpcrdma_svc_drc_stats *t)
{
	rte_tel_data_add_dict_u64(c, "drc_entries", t->entries);
	rte_tel_data_add_dict_u64(c, "drc_hits", t->hits);
	rte_tel_data_add_dict_u64(c, "drc_misses", t->misses);
	rte_tel_data_add_dict_u64(c, "drc_inprog_drops", t->inprog_drops);
	rte_tel_data_add_dict_u64(c, "drc_evictions", t->evictions);
	rte_tel_data_add_dict_u64(c, "drc_stores", t->stores);
	rte_tel_data_add_dict_u64(c, "drc_too_big", t->too_big);
	rte_tel_data_add_dict_u64(c, "drc_uncacheable", t->uncacheable);
	rte_tel_data_add_dict_u64(c, "drc_bypass", t->bypass);
}

static int cmd_programs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rpcrdma_svc_drc_stats dtot = { 0 }, ds;
	struct rpcrdma_svc_stats tot = { 0 }, st;
	struct rpcrdma_svc_proc_stats sum;
	struct rpcrdma_svc_prog_stats ps;
	struct rte_tel_data *c;
	unsigned int r, i;
	char key[16];

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&svc_tel_lock);
	for (r = 0; r < OBJS_MAX; r++) {
		const struct rpcrdma_svc_program *p;
		struct rpcrdma_svc_registry *reg = regs[r];

		if (reg == NULL)
			continue;
		rpcrdma_svc_stats(reg, &st);
		tot.calls += st.calls;
		tot.rpc_mismatch += st.rpc_mismatch;
		tot.auth_badcred += st.auth_badcred;
		tot.prog_unavail += st.prog_unavail;
		tot.dropped += st.dropped;
		tot.reply_nospc += st.reply_nospc;
		if (rpcrdma_svc_registry_drc_stats(reg, &ds) == 0) {
			dtot.entries += ds.entries;
			dtot.hits += ds.hits;
			dtot.misses += ds.misses;
			dtot.inprog_drops += ds.inprog_drops;
			dtot.evictions += ds.evictions;
			dtot.stores += ds.stores;
			dtot.too_big += ds.too_big;
			dtot.uncacheable += ds.uncacheable;
			dtot.bypass += ds.bypass;
		}
		for (i = 0; (p = rpcrdma_svc_program_at(reg, i)) != NULL; i++) {
			uint32_t low = 0, high = 0;

			c = rte_tel_data_alloc();
			if (c == NULL)
				break;
			rpcrdma_svc_prog_stats(reg, p->prog, &ps);
			rpcrdma_svc_prog_versions(reg, p->prog, &low, &high);
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_string(c, "name", p->name);
			rte_tel_data_add_dict_u64(c, "low", low);
			rte_tel_data_add_dict_u64(c, "high", high);
			rte_tel_data_add_dict_u64(c, "calls", ps.calls);
			rte_tel_data_add_dict_u64(c, "prog_mismatch", ps.prog_mismatch);
			rte_tel_data_add_dict_u64(c, "proc_unavail", ps.proc_unavail);
			rte_tel_data_add_dict_u64(c, "auth_tooweak", ps.auth_tooweak);
			prog_sum(reg, p, &sum);
			add_times(c, &sum);
			snprintf(key, sizeof(key), "%u", p->prog);
			if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
				rte_tel_data_free(c);
		}
	}
	pthread_mutex_unlock(&svc_tel_lock);
	c = rte_tel_data_alloc();
	if (c == NULL)
		return 0;
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_u64(c, "calls", tot.calls);
	rte_tel_data_add_dict_u64(c, "rpc_mismatch", tot.rpc_mismatch);
	rte_tel_data_add_dict_u64(c, "auth_badcred", tot.auth_badcred);
	rte_tel_data_add_dict_u64(c, "prog_unavail", tot.prog_unavail);
	rte_tel_data_add_dict_u64(c, "dropped", tot.dropped);
	rte_tel_data_add_dict_u64(c, "reply_nospc", tot.reply_nospc);
	add_drc(c, &dtot);
	if (rte_tel_data_add_dict_container(d, "dispatch", c, 0) != 0)
		rte_tel_data_free(c);
	return 0;
}

static int cmd_program(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rpcrdma_svc_program *p = NULL;
	struct rpcrdma_svc_registry *reg = NULL;
	struct rpcrdma_svc_proc_stats st;
	char key[64], name[40];
	unsigned int r, i, v, k;
	uint64_t prog;

	if (rpcrdma_telemetry_param_u64(params, &prog) || prog > UINT32_MAX)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&svc_tel_lock);
	for (r = 0; r < OBJS_MAX && p == NULL; r++) {
		reg = regs[r];
		for (i = 0; reg != NULL && (p = rpcrdma_svc_program_at(reg, i)) != NULL; i++)
			if (p->prog == prog)
				break;
	}
	if (p == NULL) {
		pthread_mutex_unlock(&svc_tel_lock);
		return -EINVAL;
	}
	for (v = 0; v < p->nvers; v++) {
		const struct rpcrdma_svc_version *ver = &p->vers[v];
		unsigned int n = ver->nprocs ? ver->nprocs : 1;

		for (k = 0; k < n; k++) {
			const char *pn = k < ver->nprocs ? ver->procs[k].name : NULL;
			struct rte_tel_data *c;

			if (k < ver->nprocs && ver->procs[k].handler == NULL && k != 0)
				continue;
			if (rpcrdma_svc_proc_stats(reg, p->prog, ver->vers, k, &st))
				continue;
			c = rte_tel_data_alloc();
			if (c == NULL)
				break;
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_u64(c, "calls", st.calls);
			rte_tel_data_add_dict_u64(c, "success", st.success);
			rte_tel_data_add_dict_u64(c, "garbage_args", st.garbage_args);
			rte_tel_data_add_dict_u64(c, "system_err", st.system_err);
			rte_tel_data_add_dict_u64(c, "async", st.async);
			add_times(c, &st);
			rpcrdma_telemetry_key(name, sizeof(name),
					      pn ? pn : (k == 0 ? "NULL" : "proc"));
			snprintf(key, sizeof(key), "v%u_%u_%s", ver->vers, k, name);
			if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
				rte_tel_data_free(c);
		}
	}
	pthread_mutex_unlock(&svc_tel_lock);
	return 0;
}

RTE_INIT(rpcrdma_svc_telemetry_ctor)
{
	rte_telemetry_register_cmd("/rpcrdma/programs", cmd_programs,
				   "RPC programs and dispatch error counters. No parameters");
	rte_telemetry_register_cmd(
		"/rpcrdma/program", cmd_program,
		"Per procedure counters of a program. Parameters: program number");
}
