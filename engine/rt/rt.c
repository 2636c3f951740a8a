/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcore runtime (rpcrdma_rt.h): role parsing, pollers, workers and the
 * ring handoff between them.
 *
 * Rings: for poller p and worker w, call[p][w] carries items from p to w and
 * ret[w][p] carries them back; each has one producer and one consumer
 * (RING_F_SP_ENQ | RING_F_SC_DEQ). A poller counts its items in flight per
 * worker itself (incremented on enqueue, decremented on return, both on the
 * poller), which picks the worker of each flush without reading another
 * lcore's cache lines. A worker keeps the items it could not return (the
 * return ring full) and retries them before it dequeues more from that
 * poller, so nothing is dropped and nothing blocks.
 *
 * Messages: each poller has one more ring, msgs, of struct msg {fn, arg}
 * elements (rte_ring_create_elem, multi-producer, single-consumer: the
 * poller). Any thread enqueues; the poller dequeues one burst per iteration,
 * after its poll functions and before it flushes its staged items (so items
 * a message queues leave in the same iteration), and empties the ring once
 * more when it stops. An idle poller pays one dequeue attempt on an empty
 * ring per iteration: two loads, no store.
 *
 * Placement: rt->place holds a connection count per poller and a round-robin
 * cursor, on their own cache lines (no poller's loop reads them), updated
 * with atomics from whichever thread accepts or closes a connection.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <rpcrdma/rpcrdma_rt.h>

#define LCORE_ID_LIMIT 1024
#define NAME_LEN       9

/* A counter written by its own lcore only: whole-value stores for readers. */
#define CTR_ADD(p, n) __atomic_store_n((p), *(p) + (n), __ATOMIC_RELAXED)
#define CTR_GET(p)    __atomic_load_n((p), __ATOMIC_RELAXED)

struct poll_ent {
	rpcrdma_rt_poll_t fn;
	void *arg;
};

/* An element of a poller's message ring. */
struct msg {
	rpcrdma_rt_msg_fn_t fn;
	void *arg;
};

static_assert(sizeof(struct msg) % 4 == 0, "rte_ring elements are multiples of 4 bytes");

struct rpcrdma_rt_poller {
	/* read on every iteration */
	struct rpcrdma_rt *rt;
	uint16_t id;
	uint16_t nstaged;
	uint32_t npolls; /* published with release by rpcrdma_rt_poller_add() */
	uint32_t outstanding;
	uint16_t nworkers;
	bool draining;			 /* stop seen: refuse new items */
	rpcrdma_rt_burst_fn_t run_burst; /* items_run unless the runtime has burst handlers */
	rpcrdma_rt_burst_fn_t done_burst;
	void *burst_arg;
	struct rte_ring *msgs; /* messages to this poller: any producer, this lcore consumes */
	struct rte_ring *call[RPCRDMA_RT_WORKERS_MAX];
	struct rte_ring *ret[RPCRDMA_RT_WORKERS_MAX];
	uint32_t inflight[RPCRDMA_RT_WORKERS_MAX];
	void *staged[RPCRDMA_RT_BURST];
	struct poll_ent polls[RPCRDMA_RT_POLLS_MAX];
	/* written by this lcore, read by telemetry */
	struct rpcrdma_rt_lcore_stats stats __rte_cache_aligned;
} __rte_cache_aligned;

struct rt_worker {
	struct rpcrdma_rt *rt;
	uint16_t id;
	uint16_t npollers;
	rpcrdma_rt_burst_fn_t run_burst;
	void *burst_arg;
	struct rte_ring *in[RPCRDMA_RT_POLLERS_MAX];
	struct rte_ring *out[RPCRDMA_RT_POLLERS_MAX];
	uint16_t npend[RPCRDMA_RT_POLLERS_MAX];
	void *pend[RPCRDMA_RT_POLLERS_MAX][RPCRDMA_RT_BURST];
	struct rpcrdma_rt_lcore_stats stats __rte_cache_aligned;
} __rte_cache_aligned;

struct rpcrdma_rt {
	char name[NAME_LEN];
	uint16_t npollers, nworkers;
	uint32_t ring_size;
	bool started;
	/* lcore id -> poller index + 1 (0: not a poller), for rpcrdma_rt_poller_self() */
	uint8_t lcore_poller[RTE_MAX_LCORE];
	/* stop flags, each on its own line: pollers read one, workers the other */
	uint32_t stop __rte_cache_aligned;
	uint32_t wstop __rte_cache_aligned;
	/* placement, apart from every poller's lines: written by accepting threads */
	struct {
		uint32_t count[RPCRDMA_RT_POLLERS_MAX]; /* connections placed per poller */
		uint32_t next; /* round robin: first poller a tie goes to */
	} place __rte_cache_aligned;
	struct rpcrdma_rt_poller pollers[RPCRDMA_RT_POLLERS_MAX];
	struct rt_worker workers[RPCRDMA_RT_WORKERS_MAX];
};

/* ------------------------------------------------------------ roles */

/* lcore list: "(1,3-4)"; *s points at '(' and is left after ')' */
static int parse_list(const char **s, uint16_t *ids, unsigned int max, uint16_t *n)
{
	const char *p = *s + 1;
	unsigned long a, b, i;
	char *end;

	*n = 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		p = end;
		b = a;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b || b >= LCORE_ID_LIMIT)
			return -EINVAL;
		for (i = a; i <= b; i++) {
			unsigned int k;

			if (*n >= max)
				return -E2BIG;
			for (k = 0; k < *n; k++)
				if (ids[k] == i)
					return -EINVAL;
			ids[(*n)++] = (uint16_t)i;
		}
		if (*p == ')')
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	*s = p + 1;
	return 0;
}

/* "N": a count */
static int parse_count(const char **s, unsigned int max, uint16_t *n)
{
	unsigned long v;
	char *end;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	v = strtoul(*s, &end, 10);
	if (v > max)
		return -E2BIG;
	*n = (uint16_t)v;
	*s = end;
	return 0;
}

int rpcrdma_rt_roles_parse(const char *spec, struct rpcrdma_rt_roles *r)
{
	bool seen_p = false, seen_w = false;
	const char *s = spec;
	int ret;

	memset(r, 0, sizeof(*r));
	if (s == NULL || *s == '\0') {
		r->pollers_default = true;
		return 0;
	}
	for (;;) {
		bool is_p;

		if (strncmp(s, "pollers=", 8) == 0) {
			is_p = true;
			s += 8;
		} else if (strncmp(s, "workers=", 8) == 0) {
			is_p = false;
			s += 8;
		} else {
			return -EINVAL;
		}
		if (is_p ? seen_p : seen_w)
			return -EINVAL;
		if (is_p) {
			seen_p = true;
			if (*s == '(') {
				r->pollers_explicit = true;
				ret = parse_list(&s, r->pollers, RPCRDMA_RT_POLLERS_MAX,
						 &r->nb_pollers);
			} else {
				ret = parse_count(&s, RPCRDMA_RT_POLLERS_MAX, &r->nb_pollers);
			}
		} else {
			seen_w = true;
			if (*s == '(') {
				r->workers_explicit = true;
				ret = parse_list(&s, r->workers, RPCRDMA_RT_WORKERS_MAX,
						 &r->nb_workers);
			} else {
				ret = parse_count(&s, RPCRDMA_RT_WORKERS_MAX, &r->nb_workers);
			}
		}
		if (ret)
			return ret;
		if (*s == '\0')
			break;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
	if (!seen_p)
		r->pollers_default = true;
	return 0;
}

/* ------------------------------------------------------------ create, free */

/* The burst handlers of a runtime without its own: each item's run and done. */
static void items_run(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	unsigned int i;

	RTE_SET_USED(arg);
	for (i = 0; i < n; i++)
		items[i]->run(items[i]);
}

static void items_done(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	unsigned int i;

	RTE_SET_USED(arg);
	for (i = 0; i < n; i++)
		items[i]->done(items[i]);
}

void rpcrdma_rt_params_init(struct rpcrdma_rt_params *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "rt";
	p->ring_size = 1024;
}

static bool lcore_usable(unsigned int lcore, const uint8_t *used)
{
	return lcore < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore) &&
	       lcore != rte_get_main_lcore() && !used[lcore];
}

/*
 * Resolve roles to lcore ids: explicit lists first; counts then take the
 * remaining EAL worker lcores in order, pollers first. Default pollers take
 * every remaining lcore that counted workers leave.
 */
static int resolve(const struct rpcrdma_rt_roles *r, uint16_t *pl, uint16_t *np, uint16_t *wl,
		   uint16_t *nw)
{
	uint16_t avail[RTE_MAX_LCORE];
	uint8_t used[RTE_MAX_LCORE] = { 0 };
	unsigned int i, lcore, navail = 0, want_p, want_w;

	*np = 0;
	*nw = 0;
	if (r->pollers_explicit)
		for (i = 0; i < r->nb_pollers; i++) {
			if (!lcore_usable(r->pollers[i], used))
				return -ENODEV;
			used[r->pollers[i]] = 1;
			pl[(*np)++] = r->pollers[i];
		}
	if (r->workers_explicit)
		for (i = 0; i < r->nb_workers; i++) {
			if (!lcore_usable(r->workers[i], used))
				return -ENODEV;
			used[r->workers[i]] = 1;
			wl[(*nw)++] = r->workers[i];
		}
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (!used[lcore])
			avail[navail++] = (uint16_t)lcore;
	}
	want_w = r->workers_explicit ? 0 : r->nb_workers;
	if (r->pollers_default)
		want_p = navail > want_w ? navail - want_w : 0;
	else
		want_p = r->pollers_explicit ? 0 : r->nb_pollers;
	if (want_p > RPCRDMA_RT_POLLERS_MAX)
		want_p = RPCRDMA_RT_POLLERS_MAX;
	if (want_p + want_w > navail)
		return -ENODEV;
	for (i = 0; i < want_p; i++)
		pl[(*np)++] = avail[i];
	for (i = 0; i < want_w; i++)
		wl[(*nw)++] = avail[want_p + i];
	if (*np == 0)
		return -EINVAL;
	return 0;
}

static void free_rings(struct rpcrdma_rt *rt)
{
	unsigned int p, w;

	for (p = 0; p < rt->npollers; p++) {
		for (w = 0; w < rt->nworkers; w++) {
			rte_ring_free(rt->pollers[p].call[w]);
			rte_ring_free(rt->pollers[p].ret[w]);
		}
		rte_ring_free(rt->pollers[p].msgs);
	}
}

int rpcrdma_rt_create(const struct rpcrdma_rt_params *prm, struct rpcrdma_rt **rtp)
{
	uint16_t pl[RPCRDMA_RT_POLLERS_MAX], wl[RPCRDMA_RT_WORKERS_MAX];
	struct rpcrdma_rt_roles roles;
	char rname[RTE_RING_NAMESIZE];
	struct rpcrdma_rt *rt;
	unsigned int p, w;
	uint16_t np, nw;
	int ret;

	if (prm->name == NULL || strlen(prm->name) >= NAME_LEN || prm->ring_size < 2 ||
	    (prm->ring_size & (prm->ring_size - 1)) != 0 ||
	    (prm->run_burst == NULL) != (prm->done_burst == NULL))
		return -EINVAL;
	ret = rpcrdma_rt_roles_parse(prm->roles, &roles);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	ret = resolve(&roles, pl, &np, wl, &nw);
	if (ret)
		return ret;

	rt = rte_zmalloc("rpcrdma_rt", sizeof(*rt), RTE_CACHE_LINE_SIZE);
	if (rt == NULL)
		return -ENOMEM;
	snprintf(rt->name, sizeof(rt->name), "%s", prm->name);
	rt->npollers = np;
	rt->nworkers = nw;
	rt->ring_size = prm->ring_size;
	for (p = 0; p < np; p++) {
		struct rpcrdma_rt_poller *po = &rt->pollers[p];

		po->rt = rt;
		po->id = (uint16_t)p;
		po->nworkers = nw;
		po->run_burst = prm->run_burst != NULL ? prm->run_burst : items_run;
		po->done_burst = prm->done_burst != NULL ? prm->done_burst : items_done;
		po->burst_arg = prm->burst_arg;
		po->stats.lcore = pl[p];
		po->stats.role = RPCRDMA_RT_ROLE_POLLER;
		rt->lcore_poller[pl[p]] = (uint8_t)(p + 1);
	}
	for (w = 0; w < nw; w++) {
		struct rt_worker *wo = &rt->workers[w];

		wo->rt = rt;
		wo->id = (uint16_t)w;
		wo->npollers = np;
		wo->run_burst = prm->run_burst != NULL ? prm->run_burst : items_run;
		wo->burst_arg = prm->burst_arg;
		wo->stats.lcore = wl[w];
		wo->stats.role = RPCRDMA_RT_ROLE_WORKER;
	}
	/* each poller's message ring, then the pairs' rings; rt->npollers bounds free_rings() */
	for (p = 0; p < np; p++) {
		snprintf(rname, sizeof(rname), "%s_m%u", rt->name, p);
		rt->pollers[p].msgs = rte_ring_create_elem(
			rname, sizeof(struct msg), prm->ring_size, rte_socket_id(), RING_F_SC_DEQ);
		if (rt->pollers[p].msgs == NULL) {
			ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
			goto err_rings;
		}
	}
	for (p = 0; p < np; p++)
		for (w = 0; w < nw; w++) {
			struct rte_ring *c, *r;

			snprintf(rname, sizeof(rname), "%s_c%u_%u", rt->name, p, w);
			c = rte_ring_create(rname, prm->ring_size, rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(rname, sizeof(rname), "%s_r%u_%u", rt->name, w, p);
			r = rte_ring_create(rname, prm->ring_size, rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
			rt->pollers[p].call[w] = c;
			rt->pollers[p].ret[w] = r;
			rt->workers[w].in[p] = c;
			rt->workers[w].out[p] = r;
			if (c == NULL || r == NULL) {
				ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
				goto err_rings;
			}
		}
	*rtp = rt;
	return 0;

err_rings:
	free_rings(rt);
	rte_free(rt);
	return ret;
}

void rpcrdma_rt_free(struct rpcrdma_rt *rt)
{
	if (rt == NULL)
		return;
	free_rings(rt);
	rte_free(rt);
}

unsigned int rpcrdma_rt_nb_pollers(const struct rpcrdma_rt *rt)
{
	return rt->npollers;
}

unsigned int rpcrdma_rt_nb_workers(const struct rpcrdma_rt *rt)
{
	return rt->nworkers;
}

struct rpcrdma_rt_poller *rpcrdma_rt_poller(struct rpcrdma_rt *rt, unsigned int i)
{
	return i < rt->npollers ? &rt->pollers[i] : NULL;
}

unsigned int rpcrdma_rt_poller_lcore(const struct rpcrdma_rt_poller *p)
{
	return p->stats.lcore;
}

unsigned int rpcrdma_rt_poller_index(const struct rpcrdma_rt_poller *p)
{
	return p->id;
}

struct rpcrdma_rt_poller *rpcrdma_rt_poller_self(struct rpcrdma_rt *rt)
{
	unsigned int lcore = rte_lcore_id();

	/* LCORE_ID_ANY (a non-EAL thread) is past the table */
	if (lcore >= RTE_MAX_LCORE || rt->lcore_poller[lcore] == 0)
		return NULL;
	return &rt->pollers[rt->lcore_poller[lcore] - 1];
}

unsigned int rpcrdma_rt_worker_lcore(const struct rpcrdma_rt *rt, unsigned int i)
{
	return i < rt->nworkers ? rt->workers[i].stats.lcore : RTE_MAX_LCORE;
}

const char *rpcrdma_rt_name(const struct rpcrdma_rt *rt)
{
	return rt->name;
}

int rpcrdma_rt_poller_add(struct rpcrdma_rt_poller *p, rpcrdma_rt_poll_t fn, void *arg)
{
	uint32_t n = p->npolls;

	if (n == RPCRDMA_RT_POLLS_MAX)
		return -ENOSPC;
	p->polls[n].fn = fn;
	p->polls[n].arg = arg;
	/* the entry is visible before the count that covers it (poller: acquire) */
	__atomic_store_n(&p->npolls, n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* ------------------------------------------------------------ messages */

int rpcrdma_rt_poller_send(struct rpcrdma_rt_poller *p, rpcrdma_rt_msg_fn_t fn, void *arg)
{
	struct msg m = { .fn = fn, .arg = arg };

	if (fn == NULL)
		return -EINVAL;
	/*
	 * The ring's enqueue publishes the element with a release store of the
	 * producer tail and the poller's dequeue loads it with acquire: what the
	 * sender wrote before this call (*arg) is visible to fn.
	 */
	return rte_ring_mp_enqueue_elem(p->msgs, &m, sizeof(m));
}

/* Run one burst of messages (up to RPCRDMA_RT_BURST); return how many ran. */
static unsigned int msgs_run(struct rpcrdma_rt_poller *p)
{
	struct msg m[RPCRDMA_RT_BURST];
	unsigned int i, k;

	k = rte_ring_sc_dequeue_burst_elem(p->msgs, m, sizeof(m[0]), RPCRDMA_RT_BURST, NULL);
	if (k == 0)
		return 0;
	for (i = 0; i < k; i++)
		m[i].fn(m[i].arg);
	CTR_ADD(&p->stats.msgs, k);
	return k;
}

/* ------------------------------------------------------------ placement */

unsigned int rpcrdma_rt_place(struct rpcrdma_rt *rt)
{
	unsigned int n = rt->npollers, start, i, j, best;
	uint32_t c, min;

	/* relaxed: two threads may pick alike (a choice, not a count, races) */
	start = __atomic_load_n(&rt->place.next, __ATOMIC_RELAXED) % n;
	best = start;
	min = __atomic_load_n(&rt->place.count[start], __ATOMIC_RELAXED);
	for (i = 1; i < n && min > 0; i++) {
		j = (start + i) % n;
		c = __atomic_load_n(&rt->place.count[j], __ATOMIC_RELAXED);
		if (c < min) {
			min = c;
			best = j;
		}
	}
	/* the count itself is one atomic add: concurrent places never lose one */
	__atomic_fetch_add(&rt->place.count[best], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&rt->place.next, (best + 1) % n, __ATOMIC_RELAXED);
	return best;
}

void rpcrdma_rt_unplace(struct rpcrdma_rt *rt, unsigned int i)
{
	uint32_t c;

	if (i >= rt->npollers)
		return;
	c = __atomic_load_n(&rt->place.count[i], __ATOMIC_RELAXED);
	/* never below 0, even against another unplace: decrement only what is there */
	while (c > 0 && !__atomic_compare_exchange_n(&rt->place.count[i], &c, c - 1, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

unsigned int rpcrdma_rt_placed(const struct rpcrdma_rt *rt, unsigned int i)
{
	return i < rt->npollers ? __atomic_load_n(&rt->place.count[i], __ATOMIC_RELAXED) : 0;
}

/* ------------------------------------------------------------ data path */

/*
 * Enqueue n items to the worker with the fewest of our items in flight
 * (with one worker: that one), the rest to the next when its ring is full.
 * Per burst: one ring enqueue and three counter stores; nothing per item.
 */
static unsigned int send_items(struct rpcrdma_rt_poller *p, void *const *objs, unsigned int n)
{
	unsigned int moved = 0, tries, w, k, best;
	uint32_t tried = 0;

	for (tries = 0; tries < p->nworkers && moved < n; tries++) {
		best = 0;
		if (p->nworkers > 1) {
			best = RPCRDMA_RT_WORKERS_MAX;
			for (w = 0; w < p->nworkers; w++)
				if (!(tried & (1u << w)) && (best == RPCRDMA_RT_WORKERS_MAX ||
							     p->inflight[w] < p->inflight[best]))
					best = w;
			tried |= 1u << best;
		}
		k = rte_ring_enqueue_burst(p->call[best], objs + moved, n - moved, NULL);
		p->inflight[best] += k;
		moved += k;
	}
	p->outstanding += moved;
	CTR_ADD(&p->stats.items, moved);
	return moved;
}

unsigned int rpcrdma_rt_flush(struct rpcrdma_rt_poller *p)
{
	unsigned int moved;

	if (p->nstaged == 0)
		return 0;
	moved = send_items(p, p->staged, p->nstaged);
	p->nstaged -= (uint16_t)moved;
	if (p->nstaged) {
		memmove(p->staged, p->staged + moved, p->nstaged * sizeof(void *));
		CTR_ADD(&p->stats.ring_full, 1);
	}
	return moved;
}

int rpcrdma_rt_queue(struct rpcrdma_rt_poller *p, struct rpcrdma_rt_item *item)
{
	if (unlikely(p->draining))
		return -ESHUTDOWN;
	if (p->run_burst == items_run)
		item->poller = p->id; /* burst handlers: no item field written */
	if (p->nworkers == 0) {
		if (p->run_burst == items_run)
			item->worker = RPCRDMA_RT_INLINE;
		p->run_burst(&item, 1, p->burst_arg);
		p->done_burst(&item, 1, p->burst_arg);
		CTR_ADD(&p->stats.inline_runs, 1);
		return 0;
	}
	if (p->nstaged == RPCRDMA_RT_BURST) {
		rpcrdma_rt_flush(p);
		if (p->nstaged == RPCRDMA_RT_BURST)
			return -ENOBUFS;
	}
	p->staged[p->nstaged++] = item;
	return 0;
}

/* Run to completion: per item with item->run/done, per burst with handlers. */
static int queue_inline(struct rpcrdma_rt_poller *p, struct rpcrdma_rt_item **items, unsigned int n)
{
	unsigned int i, k;

	if (p->run_burst == items_run) {
		for (i = 0; i < n; i++)
			rpcrdma_rt_queue(p, items[i]);
		return (int)n;
	}
	for (i = 0; i < n; i += k) {
		k = RTE_MIN(n - i, (unsigned int)RPCRDMA_RT_BURST);
		p->run_burst(items + i, k, p->burst_arg);
		p->done_burst(items + i, k, p->burst_arg);
	}
	CTR_ADD(&p->stats.inline_runs, n);
	return (int)n;
}

int rpcrdma_rt_queue_burst(struct rpcrdma_rt_poller *p, struct rpcrdma_rt_item **items,
			   unsigned int n)
{
	unsigned int i, k, taken = 0;

	if (unlikely(p->draining))
		return -ESHUTDOWN;
	if (p->nworkers == 0)
		return queue_inline(p, items, n);
	if (p->run_burst == items_run)
		for (i = 0; i < n; i++)
			items[i]->poller = p->id;
	/* a full burst with nothing staged before it: straight to a ring */
	if (p->nstaged == 0 && n >= RPCRDMA_RT_BURST)
		taken = send_items(p, (void *const *)items, n);
	while (taken < n) {
		if (p->nstaged == RPCRDMA_RT_BURST) {
			rpcrdma_rt_flush(p);
			if (p->nstaged == RPCRDMA_RT_BURST)
				break;
		}
		k = RTE_MIN(n - taken, (unsigned int)(RPCRDMA_RT_BURST - p->nstaged));
		memcpy(p->staged + p->nstaged, items + taken, k * sizeof(void *));
		p->nstaged += (uint16_t)k;
		taken += k;
	}
	return (int)taken;
}

int rpcrdma_rt_poller_iterate(struct rpcrdma_rt_poller *p)
{
	struct rpcrdma_rt_item *items[RPCRDMA_RT_BURST];
	uint32_t n = __atomic_load_n(&p->npolls, __ATOMIC_ACQUIRE);
	unsigned int i, w, k;
	int work = 0;

	for (i = 0; i < n; i++)
		work += p->polls[i].fn(p->polls[i].arg);
	work += (int)msgs_run(p);
	for (w = 0; w < p->nworkers; w++) {
		if (p->inflight[w] == 0)
			continue;
		k = rte_ring_dequeue_burst(p->ret[w], (void **)items, RPCRDMA_RT_BURST, NULL);
		if (k == 0)
			continue;
		p->done_burst(items, k, p->burst_arg);
		p->inflight[w] -= k;
		p->outstanding -= k;
		CTR_ADD(&p->stats.returned, k);
		work += (int)k;
	}
	if (p->nstaged)
		work += (int)rpcrdma_rt_flush(p);
	return work;
}

/* Return the items pending for poller pi; true when none is left. */
static bool worker_return(struct rt_worker *wo, unsigned int pi)
{
	uint16_t n = wo->npend[pi];
	unsigned int k;

	k = rte_ring_enqueue_burst(wo->out[pi], wo->pend[pi], n, NULL);
	if (k < n)
		memmove(wo->pend[pi], wo->pend[pi] + k, (n - k) * sizeof(void *));
	wo->npend[pi] = (uint16_t)(n - k);
	return wo->npend[pi] == 0;
}

static int worker_iterate(struct rt_worker *wo)
{
	unsigned int pi, i, k;
	int work = 0;

	for (pi = 0; pi < wo->npollers; pi++) {
		if (wo->npend[pi] && !worker_return(wo, pi))
			continue;
		k = rte_ring_dequeue_burst(wo->in[pi], wo->pend[pi], RPCRDMA_RT_BURST, NULL);
		if (k == 0)
			continue;
		if (wo->run_burst == items_run)
			for (i = 0; i < k; i++)
				((struct rpcrdma_rt_item *)wo->pend[pi][i])->worker = wo->id;
		wo->run_burst((struct rpcrdma_rt_item **)wo->pend[pi], k, wo->burst_arg);
		wo->npend[pi] = (uint16_t)k;
		worker_return(wo, pi);
		CTR_ADD(&wo->stats.items, k);
		work += (int)k;
	}
	return work;
}

int rpcrdma_rt_worker_iterate(struct rpcrdma_rt *rt, unsigned int i)
{
	return i < rt->nworkers ? worker_iterate(&rt->workers[i]) : 0;
}

/* ------------------------------------------------------------ lcore loops */

/* Account one iteration: busy or idle cycles since *prev. */
static inline void account(struct rpcrdma_rt_lcore_stats *st, uint64_t *prev, int work)
{
	uint64_t now = rte_rdtsc();

	if (work)
		CTR_ADD(&st->busy_cycles, now - *prev);
	else
		CTR_ADD(&st->idle_cycles, now - *prev);
	CTR_ADD(&st->iterations, 1);
	*prev = now;
}

static int poller_main(void *arg)
{
	struct rpcrdma_rt_poller *p = arg;
	struct rpcrdma_rt *rt = p->rt;
	uint64_t prev = rte_rdtsc();
	int work;

	for (;;) {
		/* relaxed: the loop re-reads it each iteration; the fence below orders the rest */
		if (unlikely(__atomic_load_n(&rt->stop, __ATOMIC_RELAXED))) {
			/*
			 * Pairs with the release store of rpcrdma_rt_stop(): every
			 * message enqueued before stop was called is in the ring
			 * when we empty it below, not lost to a stale tail.
			 */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			p->draining = true;
			if (p->outstanding == 0 && p->nstaged == 0)
				break;
		}
		work = rpcrdma_rt_poller_iterate(p);
		account(&p->stats, &prev, work);
		if (!work)
			rte_pause();
	}
	/* the messages still in the ring run before the lcore returns */
	while (msgs_run(p))
		;
	return 0;
}

static int worker_main(void *arg)
{
	struct rt_worker *wo = arg;
	struct rpcrdma_rt *rt = wo->rt;
	uint64_t prev = rte_rdtsc();
	int work;

	/* wstop is set after every poller returned, with nothing left in flight */
	while (!__atomic_load_n(&rt->wstop, __ATOMIC_RELAXED)) {
		work = worker_iterate(wo);
		account(&wo->stats, &prev, work);
		if (!work)
			rte_pause();
	}
	return 0;
}

int rpcrdma_rt_stop(struct rpcrdma_rt *rt)
{
	unsigned int i;

	if (!rt->started)
		return -EALREADY;
	/* release: the messages sent before this call are seen by each poller's last drain */
	__atomic_store_n(&rt->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < rt->npollers; i++)
		rte_eal_wait_lcore(rt->pollers[i].stats.lcore);
	__atomic_store_n(&rt->wstop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < rt->nworkers; i++)
		rte_eal_wait_lcore(rt->workers[i].stats.lcore);
	rt->started = false;
	return 0;
}

int rpcrdma_rt_start(struct rpcrdma_rt *rt)
{
	unsigned int i, j;
	int ret;

	if (rt->started)
		return -EALREADY;
	rt->stop = 0;
	rt->wstop = 0;
	for (i = 0; i < rt->npollers; i++)
		rt->pollers[i].draining = false;
	for (i = 0; i < rt->nworkers; i++) {
		ret = rte_eal_remote_launch(worker_main, &rt->workers[i],
					    rt->workers[i].stats.lcore);
		if (ret)
			goto err_workers;
	}
	for (j = 0; j < rt->npollers; j++) {
		ret = rte_eal_remote_launch(poller_main, &rt->pollers[j],
					    rt->pollers[j].stats.lcore);
		if (ret)
			goto err_pollers;
	}
	rt->started = true;
	return 0;

err_pollers:
	__atomic_store_n(&rt->stop, 1, __ATOMIC_RELAXED);
	while (j-- > 0)
		rte_eal_wait_lcore(rt->pollers[j].stats.lcore);
err_workers:
	__atomic_store_n(&rt->wstop, 1, __ATOMIC_RELAXED);
	while (i-- > 0)
		rte_eal_wait_lcore(rt->workers[i].stats.lcore);
	return -EBUSY;
}

int rpcrdma_rt_stats(const struct rpcrdma_rt *rt, unsigned int i, struct rpcrdma_rt_lcore_stats *st)
{
	const struct rpcrdma_rt_lcore_stats *s;

	if (i < rt->npollers)
		s = &rt->pollers[i].stats;
	else if (i < (unsigned int)rt->npollers + rt->nworkers)
		s = &rt->workers[i - rt->npollers].stats;
	else
		return -ENOENT;
	st->lcore = s->lcore;
	st->role = s->role;
	st->iterations = CTR_GET(&s->iterations);
	st->busy_cycles = CTR_GET(&s->busy_cycles);
	st->idle_cycles = CTR_GET(&s->idle_cycles);
	st->items = CTR_GET(&s->items);
	st->returned = CTR_GET(&s->returned);
	st->inline_runs = CTR_GET(&s->inline_runs);
	st->ring_full = CTR_GET(&s->ring_full);
	st->msgs = CTR_GET(&s->msgs);
	st->placed = i < rt->npollers ? __atomic_load_n(&rt->place.count[i], __ATOMIC_RELAXED) : 0;
	return 0;
}
