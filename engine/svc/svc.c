/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC program dispatch (rpcrdma_svc.h): program lookup, the errors the
 * stack answers itself (RFC 5531 9), and per-slot counters.
 *
 * Counter layout: the registry's own counters are one cache line per slot;
 * each program has one block per slot, cache-line aligned, holding the
 * program counters followed by the procedure counters of every version in
 * table order. A slot is written by one thread, so an increment is a plain
 * load and store (relaxed atomics only so that readers on another thread
 * see whole values). The procedure counters keep service times in the
 * clock's ticks; rpcrdma_svc_proc_stats() gives them in nanoseconds.
 *
 * The duplicate request cache is the registry's hook (drc_ops): dispatch
 * builds the key of a non-idempotent call and asks it before the decoder
 * runs; finish() hands it the complete reply. The library's cache is in
 * svc_drc.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <rpcrdma/rpcrdma_svc.h>

#define CACHE_LINE    64
#define SLOTS_MAX     1024
#define PROG_NAME_LEN 32

/* Increment a counter owned by the calling thread's slot. */
#define CTR_INC(p) \
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED)
#define CTR_GET(p) __atomic_load_n((p), __ATOMIC_RELAXED)

struct reg_ctr {
	struct rpcrdma_svc_stats s;
} __attribute__((aligned(CACHE_LINE)));

/* A procedure's counters in one slot. */
struct proc_ctr {
	uint64_t calls, success, garbage_args, system_err, async;
	uint64_t ticks, ticks_max; /* service times */
};

struct prog_ent {
	struct rpcrdma_svc_program def;
	char name[PROG_NAME_LEN];
	uint32_t low, high;
	/* per version: first procedure counter index, and counters (>= 1: procedure 0) */
	uint32_t first[RPCRDMA_SVC_VERS_MAX];
	uint32_t nctr[RPCRDMA_SVC_VERS_MAX];
	size_t stride; /* bytes per slot block */
	uint8_t *ctr;  /* nb_slots blocks: struct rpcrdma_svc_prog_stats, then procedure counters */
};

struct rpcrdma_svc_registry {
	uint32_t nb_slots;
	rpcrdma_svc_clock_t clock; /* NULL: no service times */
	uint64_t clock_hz;
	unsigned int nprogs;
	struct prog_ent progs[RPCRDMA_SVC_PROGS_MAX];
	struct reg_ctr *ctr;
	const struct rpcrdma_svc_drc_ops *drc_ops; /* NULL: no DRC */
	void *drc;
};

static struct rpcrdma_svc_prog_stats *prog_ctr(const struct prog_ent *pe, uint32_t slot)
{
	return (struct rpcrdma_svc_prog_stats *)(pe->ctr + (size_t)slot * pe->stride);
}

static struct proc_ctr *proc_ctr(const struct prog_ent *pe, uint32_t slot, unsigned int vi,
				 uint32_t proc)
{
	struct proc_ctr *first = (struct proc_ctr *)(prog_ctr(pe, slot) + 1);

	return first + pe->first[vi] + proc;
}

void rpcrdma_svc_params_init(struct rpcrdma_svc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nb_slots = 1;
}

int rpcrdma_svc_registry_create(const struct rpcrdma_svc_params *p,
				struct rpcrdma_svc_registry **regp)
{
	struct rpcrdma_svc_registry *reg;

	if (p->nb_slots == 0 || p->nb_slots > SLOTS_MAX || (p->clock != NULL && p->clock_hz == 0))
		return -EINVAL;
	reg = calloc(1, sizeof(*reg));
	if (reg == NULL)
		return -ENOMEM;
	reg->nb_slots = p->nb_slots;
	reg->clock = p->clock;
	reg->clock_hz = p->clock_hz;
	reg->ctr = aligned_alloc(CACHE_LINE, sizeof(*reg->ctr) * p->nb_slots);
	if (reg->ctr == NULL)
		goto err_ctr;
	memset(reg->ctr, 0, sizeof(*reg->ctr) * p->nb_slots);
	*regp = reg;
	return 0;

err_ctr:
	free(reg);
	return -ENOMEM;
}

void rpcrdma_svc_registry_free(struct rpcrdma_svc_registry *reg)
{
	unsigned int i;

	if (reg == NULL)
		return;
	for (i = 0; i < reg->nprogs; i++)
		free(reg->progs[i].ctr);
	free(reg->ctr);
	free(reg);
}

uint32_t rpcrdma_svc_nb_slots(const struct rpcrdma_svc_registry *reg)
{
	return reg->nb_slots;
}

static struct prog_ent *prog_find(const struct rpcrdma_svc_registry *reg, uint32_t prog)
{
	unsigned int i;

	for (i = 0; i < reg->nprogs; i++)
		if (reg->progs[i].def.prog == prog)
			return (struct prog_ent *)&reg->progs[i];
	return NULL;
}

static int vers_find(const struct prog_ent *pe, uint32_t vers)
{
	unsigned int i;

	for (i = 0; i < pe->def.nvers; i++)
		if (pe->def.vers[i].vers == vers)
			return (int)i;
	return -1;
}

static int check_program(const struct rpcrdma_svc_program *def)
{
	unsigned int i, j;

	if (def->nvers == 0 || def->nvers > RPCRDMA_SVC_VERS_MAX || def->vers == NULL)
		return -EINVAL;
	for (i = 0; i < def->nvers; i++) {
		const struct rpcrdma_svc_version *v = &def->vers[i];

		if (v->nprocs > RPCRDMA_SVC_PROCS_MAX || (v->nprocs > 0 && v->procs == NULL))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (def->vers[j].vers == v->vers)
				return -EINVAL;
		for (j = 0; j < v->nprocs; j++)
			if (v->procs[j].args_size > RPCRDMA_SVC_ARGS_MAX ||
			    v->procs[j].res_size > RPCRDMA_SVC_RES_MAX)
				return -E2BIG;
	}
	return 0;
}

int rpcrdma_svc_register(struct rpcrdma_svc_registry *reg, const struct rpcrdma_svc_program *def)
{
	struct prog_ent *pe;
	uint32_t nctr = 0;
	unsigned int i;
	size_t bytes;
	int ret;

	ret = check_program(def);
	if (ret)
		return ret;
	if (prog_find(reg, def->prog))
		return -EEXIST;
	if (reg->nprogs == RPCRDMA_SVC_PROGS_MAX)
		return -ENOSPC;

	pe = &reg->progs[reg->nprogs];
	memset(pe, 0, sizeof(*pe));
	pe->def = *def;
	snprintf(pe->name, sizeof(pe->name), "%s", def->name ? def->name : "");
	pe->def.name = pe->name;
	pe->low = UINT32_MAX;
	for (i = 0; i < def->nvers; i++) {
		uint32_t v = def->vers[i].vers;

		pe->low = v < pe->low ? v : pe->low;
		pe->high = v > pe->high ? v : pe->high;
		pe->first[i] = nctr;
		/* procedure 0 always has counters: the default NULL procedure */
		pe->nctr[i] = def->vers[i].nprocs ? def->vers[i].nprocs : 1;
		nctr += pe->nctr[i];
	}
	bytes = sizeof(struct rpcrdma_svc_prog_stats) + nctr * sizeof(struct proc_ctr);
	pe->stride = (bytes + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	pe->ctr = aligned_alloc(CACHE_LINE, pe->stride * reg->nb_slots);
	if (pe->ctr == NULL)
		return -ENOMEM;
	memset(pe->ctr, 0, pe->stride * reg->nb_slots);
	reg->nprogs++;
	return 0;
}

/* ------------------------------------------------------------ replies */

/* Append an RPC reply header built from msg; -ENOSPC leaves the stream as it was. */
static int put_reply_hdr(struct rpcrdma_xdr_enc *reply, const struct rpcrdma_rpc_msg *msg)
{
	uint8_t hdr[32];
	int n = rpcrdma_rpc_encode(msg, hdr, sizeof(hdr));

	if (n < 0)
		return n;
	return rpcrdma_xdr_put_opaque_fixed(reply, hdr, (uint32_t)n);
}

static void reply_init(struct rpcrdma_rpc_msg *msg, uint32_t xid, uint32_t stat)
{
	memset(msg, 0, sizeof(*msg));
	msg->xid = xid;
	msg->type = RPCRDMA_RPC_REPLY;
	msg->reply.stat = stat;
	msg->reply.verf.flavor = RPCRDMA_RPC_AUTH_NONE;
}

/*
 * accepted_reply (RFC 5531 9):
 *   xid REPLY MSG_ACCEPTED verf(flavor 0) accept_stat [low high]
 */
static int put_accepted(struct rpcrdma_xdr_enc *reply, uint32_t xid, uint32_t stat, uint32_t low,
			uint32_t high)
{
	struct rpcrdma_rpc_msg msg;

	reply_init(&msg, xid, RPCRDMA_RPC_MSG_ACCEPTED);
	msg.reply.accept_stat = stat;
	msg.reply.low = low;
	msg.reply.high = high;
	return put_reply_hdr(reply, &msg);
}

/*
 * rejected_reply (RFC 5531 9):
 *   xid REPLY MSG_DENIED RPC_MISMATCH low high
 *   xid REPLY MSG_DENIED AUTH_ERROR auth_stat
 */
static int put_denied(struct rpcrdma_xdr_enc *reply, uint32_t xid, uint32_t reject,
		      uint32_t auth_stat)
{
	struct rpcrdma_rpc_msg msg;

	reply_init(&msg, xid, RPCRDMA_RPC_MSG_DENIED);
	msg.reply.reject_stat = reject;
	msg.reply.low = RPCRDMA_RPC_VERS;
	msg.reply.high = RPCRDMA_RPC_VERS;
	msg.reply.auth_stat = auth_stat;
	return put_reply_hdr(reply, &msg);
}

static void stream_mark(struct rpcrdma_svc_req *req, const struct rpcrdma_xdr_enc *reply)
{
	req->mark_len = reply->len;
	req->mark_pos = reply->pos;
	req->mark_nddp = reply->nddp;
}

static void stream_rewind(const struct rpcrdma_svc_req *req, struct rpcrdma_xdr_enc *reply)
{
	reply->len = req->mark_len;
	reply->pos = req->mark_pos;
	reply->nddp = req->mark_nddp;
}

static int reply_nospc(struct rpcrdma_svc_registry *reg, uint32_t slot)
{
	CTR_INC(&reg->ctr[slot].s.reply_nospc);
	return -ENOSPC;
}

/* ------------------------------------------------------------ the DRC hook */

/*
 * The key's argument length and checksum: every byte of the arguments
 * from the stream's cursor (the inline pieces and the read chunks' data,
 * a chunk's missing pad excluded), the first RPCRDMA_SVC_DRC_CSUM_LEN of
 * them summed. The stream is not moved.
 */
static void args_sum(const struct rpcrdma_xdr_dec *d, uint32_t *len, uint32_t *csum)
{
	uLong crc = crc32_z(0, Z_NULL, 0);
	uint32_t left = RPCRDMA_SVC_DRC_CSUM_LEN;
	unsigned int i;

	*len = rpcrdma_xdr_dec_left(d);
	for (i = d->cur; i < d->npieces && left > 0; i++) {
		const struct rpcrdma_xdr_piece *pc = &d->pieces[i];
		uint32_t off = i == d->cur ? d->off : 0;
		uint32_t n;

		if (off >= pc->len)
			continue;
		n = pc->len - off < left ? pc->len - off : left;
		crc = crc32_z(crc, pc->p + off, n);
		left -= n;
	}
	*csum = (uint32_t)crc;
}

/*
 * Ask the DRC about a non-idempotent call: the lookup's verdict, or
 * -ENOSPC (a cached reply that does not fit the stream).
 */
static int drc_lookup(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_req *req,
		      const struct rpcrdma_rpc_msg *call, const struct rpcrdma_xdr_dec *args,
		      struct rpcrdma_xdr_enc *reply)
{
	struct rpcrdma_svc_drc_key *k = &req->drc_key;
	int ret;

	memset(k, 0, sizeof(*k));
	k->client = req->client_key;
	k->xid = call->xid;
	k->prog = call->call.prog;
	k->vers = call->call.vers;
	k->proc = call->call.proc;
	args_sum(args, &k->args_len, &k->csum);
	ret = reg->drc_ops->lookup(reg->drc, k, reply, &req->drc_cookie);
	req->drc_held = ret == RPCRDMA_SVC_DRC_MISS;
	return ret;
}

/*
 * The reply of a call that holds a DRC entry is complete (ok) or was not
 * written: cache it when it can be replayed as bytes, else release the
 * entry. The reply runs from the mark to the stream's end.
 */
static void drc_store(struct rpcrdma_svc_req *req, bool ok)
{
	const struct rpcrdma_xdr_enc *reply = req->reply;
	const void *bytes = NULL;
	uint32_t len = 0;

	if (!req->drc_held)
		return;
	req->drc_held = false;
	if (ok && reply->nddp == req->mark_nddp) {
		bytes = (const uint8_t *)reply->mem.addr + req->mark_len;
		len = reply->len - req->mark_len;
	}
	req->reg->drc_ops->store(req->reg->drc, req->drc_cookie, &req->drc_key, bytes, len);
}

int rpcrdma_svc_set_drc(struct rpcrdma_svc_registry *reg, const struct rpcrdma_svc_drc_ops *ops,
			void *drc)
{
	if (ops != NULL && (ops->lookup == NULL || ops->store == NULL))
		return -EINVAL;
	reg->drc_ops = ops;
	reg->drc = ops != NULL ? drc : NULL;
	return 0;
}

int rpcrdma_svc_registry_drc_stats(const struct rpcrdma_svc_registry *reg,
				   struct rpcrdma_svc_drc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (reg->drc_ops == NULL || reg->drc_ops->stats == NULL)
		return -ENOENT;
	reg->drc_ops->stats(reg->drc, st);
	return 0;
}

/*
 * Finish a call whose SUCCESS header is in the stream: encode the results,
 * or rewind and answer GARBAGE_ARGS or SYSTEM_ERR.
 */
static int finish(struct rpcrdma_svc_req *req, int status)
{
	struct proc_ctr *pc = proc_ctr(req->pent, req->slot, req->vidx, req->call->call.proc);
	const struct rpcrdma_svc_proc *proc = req->proc;
	struct rpcrdma_xdr_enc *reply = req->reply;
	uint32_t xid = req->call->xid;
	uint32_t stat;

	if (req->reg->clock != NULL) {
		/* the service time ends here, with the reply or the error reply */
		uint64_t d = req->reg->clock() - req->t0;

		__atomic_store_n(&pc->ticks, CTR_GET(&pc->ticks) + d, __ATOMIC_RELAXED);
		if (d > CTR_GET(&pc->ticks_max))
			__atomic_store_n(&pc->ticks_max, d, __ATOMIC_RELAXED);
	}
	if (status == RPCRDMA_SVC_OK) {
		if (proc == NULL || proc->encode == NULL || proc->raw ||
		    proc->encode(reply, req->res_buf) == 0) {
			CTR_INC(&pc->success);
			drc_store(req, true);
			return 0;
		}
		status = -EIO;
	}
	if (status == RPCRDMA_SVC_GARBAGE) {
		stat = RPCRDMA_RPC_GARBAGE_ARGS;
		CTR_INC(&pc->garbage_args);
	} else {
		stat = RPCRDMA_RPC_SYSTEM_ERR;
		CTR_INC(&pc->system_err);
	}
	stream_rewind(req, reply);
	if (put_accepted(reply, xid, stat, 0, 0)) {
		drc_store(req, false);
		return reply_nospc(req->reg, req->slot);
	}
	/* an error reply is the call's answer too: a copy gets the same */
	drc_store(req, true);
	return 0;
}

static bool badcred_error(int err)
{
	return err == -RPCRDMA_E_OPAQUE_BOUND || err == -RPCRDMA_E_GIDS ||
	       err == -RPCRDMA_E_AUTH_LEN;
}

int rpcrdma_svc_dispatch(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_req *req,
			 const struct rpcrdma_rpc_msg *call, int decode_ret,
			 struct rpcrdma_xdr_dec *args, struct rpcrdma_xdr_enc *reply)
{
	const struct rpcrdma_svc_proc *proc = NULL;
	struct rpcrdma_svc_stats *rc;
	struct rpcrdma_svc_prog_stats *gc;
	struct proc_ctr *pc;
	const struct rpcrdma_svc_version *v;
	uint32_t flavor, xid = call->xid;
	struct prog_ent *pe;
	void *argp, *resp;
	int vi, ret;

	if (req->slot >= reg->nb_slots)
		return -EINVAL;
	req->drc_held = false;
	rc = &reg->ctr[req->slot].s;
	CTR_INC(&rc->calls);
	stream_mark(req, reply);

	/* rpcvers first: nothing else of a call of another version is known */
	if (decode_ret == -RPCRDMA_E_RPCVERS ||
	    (decode_ret >= 0 && call->type == RPCRDMA_RPC_CALL &&
	     call->call.rpcvers != RPCRDMA_RPC_VERS)) {
		CTR_INC(&rc->rpc_mismatch);
		if (put_denied(reply, xid, RPCRDMA_RPC_RPC_MISMATCH, 0))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	flavor = call->call.cred.flavor;
	if (badcred_error(decode_ret) ||
	    (decode_ret >= 0 && call->type == RPCRDMA_RPC_CALL && flavor != RPCRDMA_RPC_AUTH_NONE &&
	     flavor != RPCRDMA_RPC_AUTH_SYS)) {
		CTR_INC(&rc->auth_badcred);
		if (put_denied(reply, xid, RPCRDMA_RPC_AUTH_ERROR, RPCRDMA_RPC_AUTH_BADCRED))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	if (decode_ret < 0 || call->type != RPCRDMA_RPC_CALL) {
		CTR_INC(&rc->dropped);
		return -EPROTO;
	}

	pe = prog_find(reg, call->call.prog);
	if (pe == NULL) {
		CTR_INC(&rc->prog_unavail);
		if (put_accepted(reply, xid, RPCRDMA_RPC_PROG_UNAVAIL, 0, 0))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	gc = prog_ctr(pe, req->slot);
	CTR_INC(&gc->calls);
	vi = vers_find(pe, call->call.vers);
	if (vi < 0) {
		CTR_INC(&gc->prog_mismatch);
		if (put_accepted(reply, xid, RPCRDMA_RPC_PROG_MISMATCH, pe->low, pe->high))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	v = &pe->def.vers[vi];
	if ((pe->def.flags & RPCRDMA_SVC_F_AUTH_SYS) && flavor != RPCRDMA_RPC_AUTH_SYS &&
	    call->call.proc != 0) {
		CTR_INC(&gc->auth_tooweak);
		if (put_denied(reply, xid, RPCRDMA_RPC_AUTH_ERROR, RPCRDMA_RPC_AUTH_TOOWEAK))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	if (call->call.proc < v->nprocs && v->procs[call->call.proc].handler != NULL)
		proc = &v->procs[call->call.proc];
	else if (call->call.proc != 0) {
		CTR_INC(&gc->proc_unavail);
		if (put_accepted(reply, xid, RPCRDMA_RPC_PROC_UNAVAIL, 0, 0))
			return reply_nospc(reg, req->slot);
		return RPCRDMA_SVC_OK;
	}
	if (reg->drc_ops != NULL && proc != NULL &&
	    (proc->flags & RPCRDMA_SVC_PROC_F_NONIDEMPOTENT)) {
		/* before anything runs: a copy of a call already served runs nothing */
		ret = drc_lookup(reg, req, call, args, reply);
		if (ret == RPCRDMA_SVC_DRC_REPLAY || ret == RPCRDMA_SVC_DRC_DROP || ret < 0) {
			/* no procedure reached: nothing for reply_done to give back */
			req->proc = NULL;
			if (ret == RPCRDMA_SVC_DRC_REPLAY)
				return RPCRDMA_SVC_OK;
			if (ret == RPCRDMA_SVC_DRC_DROP)
				return -EALREADY;
			return reply_nospc(reg, req->slot);
		}
	}

	pc = proc_ctr(pe, req->slot, (unsigned int)vi, call->call.proc);
	CTR_INC(&pc->calls);
	if (reg->clock != NULL)
		req->t0 = reg->clock();
	req->reg = reg;
	req->call = call;
	req->args = args;
	req->reply = reply;
	req->prog_ctx = pe->def.ctx;
	req->proc = proc;
	req->pent = pe;
	req->vidx = (uint32_t)vi;

	/* the SUCCESS header goes first; failures rewind to the mark */
	if (put_accepted(reply, xid, RPCRDMA_RPC_SUCCESS, 0, 0)) {
		/* no handler ran: nothing for reply_done to give back (res_buf is stale) */
		req->proc = NULL;
		drc_store(req, false);
		return reply_nospc(req->reg, req->slot);
	}
	if (proc == NULL) /* the default NULL procedure: no results */
		return finish(req, RPCRDMA_SVC_OK);

	argp = NULL;
	resp = NULL;
	if (!proc->raw) {
		argp = req->args_buf;
		resp = req->res_buf;
		memset(argp, 0, proc->args_size);
		memset(resp, 0, proc->res_size);
		if (proc->decode != NULL && proc->decode(args, argp) != 0)
			return finish(req, RPCRDMA_SVC_GARBAGE);
	}
	ret = proc->handler(req, argp, resp);
	if (ret == RPCRDMA_SVC_PENDING) {
		CTR_INC(&pc->async);
		return RPCRDMA_SVC_PENDING;
	}
	ret = finish(req, ret);
	return ret < 0 ? ret : RPCRDMA_SVC_OK;
}

void rpcrdma_svc_complete(struct rpcrdma_svc_req *req, int status)
{
	int ret;

	ret = finish(req, status);
	req->done(req, ret < 0 ? ret : 0);
}

/* ------------------------------------------------------------ counters */

void rpcrdma_svc_stats(const struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_stats *st)
{
	uint32_t s;

	memset(st, 0, sizeof(*st));
	for (s = 0; s < reg->nb_slots; s++) {
		const struct rpcrdma_svc_stats *c = &reg->ctr[s].s;

		st->calls += CTR_GET(&c->calls);
		st->rpc_mismatch += CTR_GET(&c->rpc_mismatch);
		st->auth_badcred += CTR_GET(&c->auth_badcred);
		st->prog_unavail += CTR_GET(&c->prog_unavail);
		st->dropped += CTR_GET(&c->dropped);
		st->reply_nospc += CTR_GET(&c->reply_nospc);
	}
}

int rpcrdma_svc_prog_stats(const struct rpcrdma_svc_registry *reg, uint32_t prog,
			   struct rpcrdma_svc_prog_stats *st)
{
	const struct prog_ent *pe = prog_find(reg, prog);
	uint32_t s;

	if (pe == NULL)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	for (s = 0; s < reg->nb_slots; s++) {
		const struct rpcrdma_svc_prog_stats *c = prog_ctr(pe, s);

		st->calls += CTR_GET(&c->calls);
		st->prog_mismatch += CTR_GET(&c->prog_mismatch);
		st->proc_unavail += CTR_GET(&c->proc_unavail);
		st->auth_tooweak += CTR_GET(&c->auth_tooweak);
	}
	return 0;
}

int rpcrdma_svc_proc_stats(const struct rpcrdma_svc_registry *reg, uint32_t prog, uint32_t vers,
			   uint32_t proc, struct rpcrdma_svc_proc_stats *st)
{
	const struct prog_ent *pe = prog_find(reg, prog);
	uint32_t s;
	int vi;

	if (pe == NULL)
		return -ENOENT;
	vi = vers_find(pe, vers);
	if (vi < 0 || proc >= pe->nctr[vi])
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	for (s = 0; s < reg->nb_slots; s++) {
		const struct proc_ctr *c = proc_ctr(pe, s, (unsigned int)vi, proc);
		uint64_t m = CTR_GET(&c->ticks_max);

		st->calls += CTR_GET(&c->calls);
		st->success += CTR_GET(&c->success);
		st->garbage_args += CTR_GET(&c->garbage_args);
		st->system_err += CTR_GET(&c->system_err);
		st->async += CTR_GET(&c->async);
		st->time_ns += CTR_GET(&c->ticks); /* in ticks until below */
		st->max_ns = m > st->max_ns ? m : st->max_ns;
	}
	if (reg->clock != NULL) {
		st->time_ns = (uint64_t)((double)st->time_ns * 1e9 / (double)reg->clock_hz);
		st->max_ns = (uint64_t)((double)st->max_ns * 1e9 / (double)reg->clock_hz);
	}
	return 0;
}

const struct rpcrdma_svc_program *rpcrdma_svc_program_at(const struct rpcrdma_svc_registry *reg,
							 unsigned int i)
{
	return i < reg->nprogs ? &reg->progs[i].def : NULL;
}

int rpcrdma_svc_prog_versions(const struct rpcrdma_svc_registry *reg, uint32_t prog, uint32_t *low,
			      uint32_t *high)
{
	const struct prog_ent *pe = prog_find(reg, prog);

	if (pe == NULL)
		return -ENOENT;
	*low = pe->low;
	*high = pe->high;
	return 0;
}
