/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's duplicate request cache (rpcrdma_svc.h, "duplicate request
 * cache"): what the responder owes a call its client sent again.
 *
 * A fixed table of entries, all allocated at creation: the key, a state, the
 * reply's length, and reply_max bytes for the reply in a second array. An
 * entry is on one of two structures besides its hash chain:
 *
 *   FREE      on the LRU list (at its tail: reused first), not hashed
 *   INPROG    hashed, off the LRU list: its call is being served; a copy of
 *             the call is dropped; never reused until store()
 *   DONE      hashed and on the LRU list: a copy replays its reply; moved to
 *             the head on each hit, reused from the tail (an eviction)
 *
 * The chains hang off a power-of-two bucket array at least as long as the
 * table, indexed by a hash of the key mixed with a seed drawn at creation
 * (the XID and the arguments are the client's: a fixed hash would let one
 * client lengthen a chain at will; with the seed it cannot aim).
 *
 * One pthread spinlock guards everything: only calls of non-idempotent
 * procedures come here, once to look up and once to store, each a hash
 * probe and at most one copy of reply_max bytes under the lock. The
 * counters are the lock's too, so rpcrdma_svc_drc_stats() reads them whole.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rpcrdma/rpcrdma_svc.h>

#define NIL UINT32_MAX

enum ent_state {
	ENT_FREE = 0, /* on the LRU list, not hashed */
	ENT_INPROG,   /* hashed, off the list: the call is being served */
	ENT_DONE,     /* hashed, on the list: the reply is cached */
};

struct drc_ent {
	struct rpcrdma_svc_drc_key key;
	uint32_t state;	     /* enum ent_state */
	uint32_t len;	     /* DONE: bytes of the cached reply */
	uint32_t bucket;     /* hashed: its bucket */
	uint32_t hnext;	     /* hashed: the next entry of the bucket's chain */
	uint32_t prev, next; /* on the LRU list: towards the head, towards the tail */
};

struct rpcrdma_svc_drc {
	pthread_spinlock_t lock;
	uint32_t n;	    /* entries */
	uint32_t reply_max; /* bytes per reply */
	uint32_t mask;	    /* buckets - 1 */
	uint64_t seed;
	uint32_t head, tail; /* the LRU list: most recently used at head */
	uint32_t *buckets;
	struct drc_ent *ents;
	uint8_t *replies; /* n * reply_max */
	struct rpcrdma_svc_drc_stats st;
};

void rpcrdma_svc_drc_params_init(struct rpcrdma_svc_drc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->entries = 1024;
	p->reply_max = 512;
}

/* ------------------------------------------------------------ the LRU list */

static void lru_unlink(struct rpcrdma_svc_drc *c, uint32_t i)
{
	struct drc_ent *e = &c->ents[i];

	if (e->prev != NIL)
		c->ents[e->prev].next = e->next;
	else
		c->head = e->next;
	if (e->next != NIL)
		c->ents[e->next].prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NIL;
}

static void lru_push_head(struct rpcrdma_svc_drc *c, uint32_t i)
{
	struct drc_ent *e = &c->ents[i];

	e->prev = NIL;
	e->next = c->head;
	if (c->head != NIL)
		c->ents[c->head].prev = i;
	else
		c->tail = i;
	c->head = i;
}

static void lru_push_tail(struct rpcrdma_svc_drc *c, uint32_t i)
{
	struct drc_ent *e = &c->ents[i];

	e->next = NIL;
	e->prev = c->tail;
	if (c->tail != NIL)
		c->ents[c->tail].next = i;
	else
		c->head = i;
	c->tail = i;
}

/* ------------------------------------------------------------ the hash */

static uint32_t key_hash(const struct rpcrdma_svc_drc *c, const struct rpcrdma_svc_drc_key *k)
{
	uint64_t h = c->seed;

	/* multiply-xorshift rounds over the key's words (a 64-bit mix, splitmix64's constants) */
	h ^= k->client;
	h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
	h ^= ((uint64_t)k->xid << 32) | k->csum;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= ((uint64_t)k->prog << 32) | k->vers;
	h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
	h ^= ((uint64_t)k->proc << 32) | k->args_len;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(h ^ (h >> 32)) & c->mask;
}

static bool key_eq(const struct rpcrdma_svc_drc_key *a, const struct rpcrdma_svc_drc_key *b)
{
	return a->xid == b->xid && a->client == b->client && a->csum == b->csum &&
	       a->proc == b->proc && a->prog == b->prog && a->vers == b->vers &&
	       a->args_len == b->args_len;
}

static uint32_t hash_find(const struct rpcrdma_svc_drc *c, uint32_t b,
			  const struct rpcrdma_svc_drc_key *k)
{
	uint32_t i;

	for (i = c->buckets[b]; i != NIL; i = c->ents[i].hnext)
		if (key_eq(&c->ents[i].key, k))
			return i;
	return NIL;
}

static void hash_del(struct rpcrdma_svc_drc *c, uint32_t i)
{
	uint32_t *pp = &c->buckets[c->ents[i].bucket];

	while (*pp != i)
		pp = &c->ents[*pp].hnext;
	*pp = c->ents[i].hnext;
	c->ents[i].hnext = NIL;
}

/* ------------------------------------------------------------ create, free */

static uint64_t draw_seed(const void *salt)
{
	struct timespec ts;
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed))
		return seed;
	/* no entropy yet (early boot): less unpredictable, still per cache */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)salt;
}

int rpcrdma_svc_drc_create(const struct rpcrdma_svc_drc_params *p, struct rpcrdma_svc_drc **drcp)
{
	struct rpcrdma_svc_drc *c;
	uint32_t i, nb = 1;

	if (p == NULL || drcp == NULL || p->entries == 0 ||
	    p->entries > RPCRDMA_SVC_DRC_ENTRIES_MAX || p->reply_max < RPCRDMA_SVC_DRC_REPLY_MIN ||
	    p->reply_max > RPCRDMA_SVC_DRC_REPLY_MAX_MAX)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	while (nb < p->entries)
		nb <<= 1;
	c->n = p->entries;
	c->reply_max = p->reply_max;
	c->mask = nb - 1;
	c->buckets = malloc(sizeof(*c->buckets) * nb);
	if (c->buckets == NULL)
		goto err_buckets;
	c->ents = calloc(c->n, sizeof(*c->ents));
	if (c->ents == NULL)
		goto err_ents;
	c->replies = malloc((size_t)c->n * c->reply_max);
	if (c->replies == NULL)
		goto err_replies;
	if (pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE) != 0)
		goto err_lock;
	for (i = 0; i < nb; i++)
		c->buckets[i] = NIL;
	c->head = c->tail = NIL;
	for (i = 0; i < c->n; i++) {
		c->ents[i].hnext = NIL;
		lru_push_tail(c, i);
	}
	c->seed = draw_seed(c);
	c->st.entries = c->n;
	*drcp = c;
	return 0;

err_lock:
	free(c->replies);
err_replies:
	free(c->ents);
err_ents:
	free(c->buckets);
err_buckets:
	free(c);
	return -ENOMEM;
}

void rpcrdma_svc_drc_free(struct rpcrdma_svc_drc *c)
{
	if (c == NULL)
		return;
	pthread_spin_destroy(&c->lock);
	free(c->replies);
	free(c->ents);
	free(c->buckets);
	free(c);
}

/* ------------------------------------------------------------ lookup, store */

static int drc_lookup(void *arg, const struct rpcrdma_svc_drc_key *k, struct rpcrdma_xdr_enc *reply,
		      uint64_t *cookie)
{
	struct rpcrdma_svc_drc *c = arg;
	uint32_t b = key_hash(c, k), i;
	struct drc_ent *e;
	int ret;

	pthread_spin_lock(&c->lock);
	i = hash_find(c, b, k);
	if (i != NIL) {
		e = &c->ents[i];
		if (e->state == ENT_INPROG) {
			c->st.inprog_drops++;
			ret = RPCRDMA_SVC_DRC_DROP;
		} else if (rpcrdma_xdr_put_opaque_fixed(
				   reply, c->replies + (size_t)i * c->reply_max, e->len) != 0) {
			ret = -ENOSPC; /* counted by the registry (reply_nospc) */
		} else {
			c->st.hits++;
			lru_unlink(c, i);
			lru_push_head(c, i);
			ret = RPCRDMA_SVC_DRC_REPLAY;
		}
		pthread_spin_unlock(&c->lock);
		return ret;
	}
	c->st.misses++;
	i = c->tail;
	if (i == NIL) {
		/* every entry is in progress: run this call without one */
		c->st.bypass++;
		pthread_spin_unlock(&c->lock);
		return RPCRDMA_SVC_DRC_BYPASS;
	}
	e = &c->ents[i];
	lru_unlink(c, i);
	if (e->state == ENT_DONE) {
		hash_del(c, i);
		c->st.evictions++;
	}
	e->key = *k;
	e->state = ENT_INPROG;
	e->len = 0;
	e->bucket = b;
	e->hnext = c->buckets[b];
	c->buckets[b] = i;
	*cookie = i;
	pthread_spin_unlock(&c->lock);
	return RPCRDMA_SVC_DRC_MISS;
}

static void drc_store(void *arg, uint64_t cookie, const struct rpcrdma_svc_drc_key *k,
		      const void *reply, uint32_t len)
{
	struct rpcrdma_svc_drc *c = arg;
	struct drc_ent *e;
	uint32_t i = (uint32_t)cookie;

	pthread_spin_lock(&c->lock);
	/* only a cookie of lookup's for this key: anything else is a caller's bug, ignored */
	if (cookie >= c->n || c->ents[i].state != ENT_INPROG || !key_eq(&c->ents[i].key, k)) {
		pthread_spin_unlock(&c->lock);
		return;
	}
	e = &c->ents[i];
	if (reply != NULL && len <= c->reply_max) {
		memcpy(c->replies + (size_t)i * c->reply_max, reply, len);
		e->len = len;
		e->state = ENT_DONE;
		lru_push_head(c, i);
		c->st.stores++;
	} else {
		if (reply != NULL)
			c->st.too_big++;
		else
			c->st.uncacheable++;
		/* released: a later copy of the call is a miss and runs again */
		hash_del(c, i);
		e->state = ENT_FREE;
		lru_push_tail(c, i);
	}
	pthread_spin_unlock(&c->lock);
}

static void drc_stats_op(void *arg, struct rpcrdma_svc_drc_stats *st)
{
	rpcrdma_svc_drc_stats(arg, st);
}

void rpcrdma_svc_drc_stats(struct rpcrdma_svc_drc *c, struct rpcrdma_svc_drc_stats *st)
{
	pthread_spin_lock(&c->lock);
	*st = c->st;
	pthread_spin_unlock(&c->lock);
}

static const struct rpcrdma_svc_drc_ops builtin_ops = {
	.lookup = drc_lookup,
	.store = drc_store,
	.stats = drc_stats_op,
};

const struct rpcrdma_svc_drc_ops *rpcrdma_svc_drc_ops(void)
{
	return &builtin_ops;
}

int rpcrdma_svc_drc_attach(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_drc *drc)
{
	if (drc == NULL)
		return -EINVAL;
	return rpcrdma_svc_set_drc(reg, &builtin_ops, drc);
}
