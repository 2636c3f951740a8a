/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry (rpcrdma_telemetry.h): the /rpcrdma/ commands of rte_telemetry
 * for the runtime's lcores, the pools and the connections of every
 * provider (the engine registers one). The programs' commands are the
 * dispatcher's (engine/svc/svc_telemetry.c), which sits above this layer.
 * Object tables are guarded by one mutex that only the control path and the
 * telemetry thread take.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_telemetry.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_telemetry.h>

#define OBJS_MAX RPCRDMA_TELEMETRY_OBJS_MAX

struct rpcrdma_telemetry_kv {
	struct rte_tel_data *d;
};

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tel_registered;
static struct rpcrdma_rt *tel_rts[OBJS_MAX];
static struct rpcrdma_mempool *tel_pools[OBJS_MAX];
static struct rpcrdma_telemetry_conn_provider tel_provs[OBJS_MAX];
static unsigned int tel_nprovs;

/* ------------------------------------------------------------ object tables */

static int obj_add(void **tab, void *obj)
{
	int i, free_slot = -1;

	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < OBJS_MAX; i++) {
		if (tab[i] == obj) {
			pthread_mutex_unlock(&tel_lock);
			return -EEXIST;
		}
		if (tab[i] == NULL && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0)
		tab[free_slot] = obj;
	pthread_mutex_unlock(&tel_lock);
	return free_slot >= 0 ? 0 : -ENOSPC;
}

static int obj_del(void **tab, void *obj)
{
	int i, ret = -ENOENT;

	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < OBJS_MAX; i++)
		if (obj != NULL && tab[i] == obj) {
			tab[i] = NULL;
			ret = 0;
		}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

int rpcrdma_telemetry_rt_add(struct rpcrdma_rt *rt)
{
	return obj_add((void **)tel_rts, rt);
}

int rpcrdma_telemetry_rt_del(struct rpcrdma_rt *rt)
{
	return obj_del((void **)tel_rts, rt);
}

int rpcrdma_telemetry_pool_add(struct rpcrdma_mempool *pool)
{
	return obj_add((void **)tel_pools, pool);
}

int rpcrdma_telemetry_pool_del(struct rpcrdma_mempool *pool)
{
	return obj_del((void **)tel_pools, pool);
}

int rpcrdma_telemetry_pool_set_add(struct rpcrdma_mempool_set *set)
{
	unsigned int i;
	int ret;

	ret = rpcrdma_telemetry_pool_add(set->inline_pool);
	for (i = 0; ret == 0 && i < set->nb_classes; i++)
		ret = rpcrdma_telemetry_pool_add(set->chunk[i]);
	if (ret)
		rpcrdma_telemetry_pool_set_del(set); /* nothing half registered */
	return ret;
}

void rpcrdma_telemetry_pool_set_del(struct rpcrdma_mempool_set *set)
{
	unsigned int i;

	rpcrdma_telemetry_pool_del(set->inline_pool);
	for (i = 0; i < set->nb_classes; i++)
		rpcrdma_telemetry_pool_del(set->chunk[i]);
}

int rpcrdma_telemetry_conn_provider_add(const struct rpcrdma_telemetry_conn_provider *p)
{
	int ret = 0;

	if (p->list == NULL || p->info == NULL)
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	if (tel_nprovs == OBJS_MAX)
		ret = -ENOSPC;
	else
		tel_provs[tel_nprovs++] = *p;
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

int rpcrdma_telemetry_conn_provider_del(const struct rpcrdma_telemetry_conn_provider *p)
{
	unsigned int i;
	int ret = -ENOENT;

	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < tel_nprovs; i++)
		if (tel_provs[i].arg == p->arg && tel_provs[i].info == p->info) {
			memmove(&tel_provs[i], &tel_provs[i + 1],
				(tel_nprovs - i - 1) * sizeof(tel_provs[0]));
			tel_nprovs--;
			ret = 0;
			break;
		}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

/* ------------------------------------------------------------ key/value sets */

/* rte_telemetry accepts names of letters, digits, '_' and '/'. */
static bool key_ok(const char *k)
{
	if (k == NULL || *k == '\0' || strlen(k) >= RTE_TEL_MAX_STRING_LEN)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	return true;
}

void rpcrdma_telemetry_key(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++) {
		char c = src[i];

		dst[i] =
			((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
				? c
				: '_';
	}
	dst[i] = '\0';
	if (i == 0 && len > 1)
		snprintf(dst, len, "_");
}

int rpcrdma_telemetry_kv_u64(struct rpcrdma_telemetry_kv *kv, const char *key, uint64_t v)
{
	int ret;

	if (!key_ok(key))
		return -EINVAL;
	ret = rte_tel_data_add_dict_u64(kv->d, key, v);
	return ret < 0 ? -ENOSPC : 0;
}

int rpcrdma_telemetry_kv_str(struct rpcrdma_telemetry_kv *kv, const char *key, const char *v)
{
	int ret;

	if (!key_ok(key) || v == NULL)
		return -EINVAL;
	ret = rte_tel_data_add_dict_string(kv->d, key, v);
	/* E2BIG (positive): truncated but added */
	return ret < 0 ? -ENOSPC : 0;
}

/* ------------------------------------------------------------ commands */

static const char *role_name(uint32_t role)
{
	return role == RPCRDMA_RT_ROLE_POLLER ? "poller" : "worker";
}

static int cmd_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rpcrdma_rt_lcore_stats st;
	unsigned int r, i;
	char key[16];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	pthread_mutex_lock(&tel_lock);
	for (r = 0; r < OBJS_MAX; r++) {
		struct rpcrdma_rt *rt = tel_rts[r];

		if (rt == NULL)
			continue;
		for (i = 0; rpcrdma_rt_stats(rt, i, &st) == 0; i++) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			if (c == NULL)
				break;
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_string(c, "runtime", rpcrdma_rt_name(rt));
			rte_tel_data_add_dict_string(c, "role", role_name(st.role));
			rte_tel_data_add_dict_u64(c, "iterations", st.iterations);
			rte_tel_data_add_dict_u64(c, "busy_cycles", st.busy_cycles);
			rte_tel_data_add_dict_u64(c, "idle_cycles", st.idle_cycles);
			rte_tel_data_add_dict_u64(c, "items", st.items);
			if (st.role == RPCRDMA_RT_ROLE_POLLER) {
				rte_tel_data_add_dict_u64(c, "returned", st.returned);
				rte_tel_data_add_dict_u64(c, "inline_runs", st.inline_runs);
				rte_tel_data_add_dict_u64(c, "ring_full", st.ring_full);
				rte_tel_data_add_dict_u64(c, "msgs", st.msgs);
				rte_tel_data_add_dict_u64(c, "placed", st.placed);
			}
			snprintf(key, sizeof(key), "%u", st.lcore);
			if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
				rte_tel_data_free(c);
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int cmd_pools(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rpcrdma_mempool_stats st;
	char key[48];
	unsigned int i;

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < OBJS_MAX; i++) {
		struct rte_tel_data *c;

		if (tel_pools[i] == NULL)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rpcrdma_mempool_stats(tel_pools[i], &st);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "size", st.size);
		rte_tel_data_add_dict_u64(c, "in_use", st.in_use);
		rte_tel_data_add_dict_u64(c, "free", st.free);
		rte_tel_data_add_dict_u64(c, "high_water", st.high_water);
		rte_tel_data_add_dict_u64(c, "mem_bytes", st.mem_bytes);
		rte_tel_data_add_dict_u64(c, "buf_size", tel_pools[i]->buf_size);
		rte_tel_data_add_dict_u64(c, "hugepages", st.hugepages);
		rpcrdma_telemetry_key(key, sizeof(key), tel_pools[i]->name);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
			rte_tel_data_free(c);
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

int rpcrdma_telemetry_param_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end != '\0')
		return -EINVAL;
	return 0;
}

static int cmd_conns(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static uint64_t ids[RPCRDMA_TELEMETRY_CONNS_MAX]; /* under tel_lock */
	unsigned int i, n, total = 0;

	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < tel_nprovs && total < RPCRDMA_TELEMETRY_CONNS_MAX; i++) {
		n = tel_provs[i].list(tel_provs[i].arg, ids + total,
				      RPCRDMA_TELEMETRY_CONNS_MAX - total);
		total += n < RPCRDMA_TELEMETRY_CONNS_MAX - total
				 ? n
				 : RPCRDMA_TELEMETRY_CONNS_MAX - total;
	}
	for (i = 0; i < total; i++)
		rte_tel_data_add_array_u64(d, ids[i]);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int cmd_conn(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rpcrdma_telemetry_kv kv = { .d = d };
	unsigned int i;
	uint64_t id;
	int ret = -EINVAL;

	if (rpcrdma_telemetry_param_u64(params, &id))
		return -EINVAL;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < tel_nprovs; i++) {
		if (tel_provs[i].info(tel_provs[i].arg, id, &kv) == 0) {
			rte_tel_data_add_dict_string(d, "provider",
						     tel_provs[i].name ? tel_provs[i].name : "");
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

int rpcrdma_telemetry_init(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/rpcrdma/lcores", cmd_lcores,
		  "Per role lcore: role, iterations, busy and idle TSC cycles, items; pollers: "
		  "messages run and connections placed. No parameters" },
		{ "/rpcrdma/pools", cmd_pools,
		  "Per buffer pool: size, in use, free, high water. No parameters" },
		{ "/rpcrdma/conns", cmd_conns, "Connection ids. No parameters" },
		{ "/rpcrdma/conn", cmd_conn,
		  "Counters and credit state of a connection. Parameters: connection id" },
	};
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&tel_lock);
	if (!tel_registered) {
		for (i = 0; i < RTE_DIM(cmds) && ret == 0; i++)
			ret = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help);
		tel_registered = ret == 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

/* The commands exist before the EAL answers on its socket, as DPDK's libraries register theirs. */
RTE_INIT(rpcrdma_telemetry_ctor)
{
	rpcrdma_telemetry_init();
}
