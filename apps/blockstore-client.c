/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blockstore-client: the client side of the example block store
 * (blockstore_proto.h, blockstore-server.c), written as a template.
 *
 * Reading guide:
 *
 *   1. bs_call(): one RPC, start to finish. Take a call slot from the
 *      engine, write the RPC header and the arguments into its stream,
 *      describe where the reply's DDP-eligible data goes (a write chunk:
 *      a registered buffer), submit, poll until the callback ran, decode
 *      the reply where it landed, release the slot.
 *   2. the procedures: GETATTR, READ (data comes back by RDMA Write into
 *      our registered buffer, zero copy), WRITE (data leaves from our
 *      registered buffer, read by the server with RDMA Read, zero copy).
 *   3. notifications (--watch): the client serves the callback program
 *      (CB_NOTIFY) to the server, which calls it in the backward direction
 *      of the same connection (RFC 8167); the engine hands those calls to
 *      the same dispatch glue a server uses (rpcrdma_xprt_svc.h);
 *   4. the actions of the command line, run in order on one connection.
 *
 * One call at a time, for clarity: a client that wants throughput keeps
 * many calls in flight (rpcrdma_xprt_call_submit() returns at once; the
 * callbacks run from rpcrdma_xprt_poll()), as apps/rpcrdma-perf.c does.
 * Backward calls are served from rpcrdma_xprt_poll() too, whichever call
 * the client is waiting for.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "app_common.h"
#include "blockstore_proto.h"

#define PROG	       "blockstore-client"
#define BS_ACTIONS_MAX 64
#define BS_VERIFY_MAX  100000000u
#define BS_WATCH_MAX   1000000u
#define BS_BK_CREDITS  4   /* NOTIFYs taken at once (the backward credits we grant) */
#define BS_IDLE_SLEEP  100 /* us slept per idle turn of --watch once idle for 100 ms */
#define RPC_REPLY_HDR  24  /* xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS */

static const char help_text[] =
	"NAME\n"
	"    " PROG " - talk to a block store server over RPC-over-RDMA\n"
	"\n"
	"SYNOPSIS\n"
	"    " PROG " --connect ADDRESS ACTION... [--capture FILE.pcapng]\n"
	"        [--pmd shm|verbs] [--devargs ARGS] [--timeout S] [--reconnect N] [--seed N]\n"
	"        [-- EAL ARGS]\n"
	"\n"
	"DESCRIPTION\n"
	"    Connects to blockstore-server (RPC program 0x2000b10c version 1),\n"
	"    checks the program with a NULL call, runs the actions in the order\n"
	"    given, one call at a time, and disconnects. READ data comes back\n"
	"    through a write chunk (RDMA Write into this client's registered\n"
	"    buffer); WRITE data goes out through a read chunk (the server pulls\n"
	"    it with RDMA Read), or inline when the call is small. Transfers\n"
	"    larger than 1 MiB are split into 1 MiB calls.\n"
	"\n"
	"    With --watch the client also serves the callback program 0x2000b10d\n"
	"    version 1: it calls SUBSCRIBE before its first action, and the server\n"
	"    then sends it a NOTIFY (a backward-direction call, RFC 8167, on the\n"
	"    same connection) after every WRITE of another client, never of its\n"
	"    own.\n"
	"\n"
	"ACTIONS\n"
	"    --getattr\n"
	"        Print the device size, block size and the server's counters.\n"
	"    --write OFFSET:FILE\n"
	"        Write the contents of FILE at byte OFFSET.\n"
	"    --read OFFSET:COUNT:FILE\n"
	"        Read COUNT bytes at OFFSET into FILE (\"-\": standard output; the\n"
	"        messages then go to standard error).\n"
	"    --verify N\n"
	"        N rounds of: write random bytes (1 byte to 1 MiB) at a random\n"
	"        offset, read them back, compare. Prints the counts; fails on any\n"
	"        mismatch or error.\n"
	"    --watch N\n"
	"        The last action, the only one when given alone: wait until N\n"
	"        NOTIFYs (1..1000000) have arrived since SUBSCRIBE, printing one\n"
	"        line for each, \"notify: COUNT bytes at OFFSET (write SEQ)\" (SEQ:\n"
	"        the server's write counter after that WRITE), after the line\n"
	"        \"subscribed: watching for N notifications\". Fails when fewer\n"
	"        arrive within --timeout seconds of its start. A NOTIFY beyond the\n"
	"        end of the device is refused (SYSTEM_ERR) with a warning.\n"
	"    OFFSET and COUNT are decimal or 0x hexadecimal, with an optional k, m\n"
	"    or g suffix.\n"
	"\n"
	"OPTIONS\n"
	"    --connect ADDRESS\n"
	"        The server (shm PMD: a UNIX socket path or @name; verbs PMD:\n"
	"        IP[:PORT]). Retried for --timeout seconds while it starts.\n"
	"    --capture FILE.pcapng\n"
	"        Record this connection's traffic as RoCEv2 packets, for Wireshark\n"
	"        and rpcrdma-decode --pcap. Capturing copies every payload: it\n"
	"        slows the calls down.\n"
	"    --seed N\n"
	"        Seed of --verify (default: from the clock; printed).\n"
	"    --timeout SECONDS\n"
	"        How long to wait for the connection, for each reply and for the\n"
	"        notifications of --watch, 1..3600 (default 10).\n"
	"    --reconnect N\n"
	"        When the connection is lost (the server restarted), connect again\n"
	"        by itself, up to N attempts in a row (0..1000; 1 ms after the loss,\n"
	"        then twice as long each time, at most 1 s apart), and send the call\n"
	"        in flight again with its XID: the server's duplicate request cache\n"
	"        answers a WRITE it already ran without running it twice. Default 0:\n"
	"        a lost connection fails the call. Not with --watch (a subscription\n"
	"        ends with its connection).\n"
	"    --lcores LIST\n"
	"        The EAL lcore to poll on (\"-l\" syntax; default the first CPU this\n"
	"        process may run on).\n"
	"    --pmd shm|verbs, --devargs ARGS\n"
	"        The transport and its device arguments (default shm).\n" APP_HELP_TAIL "\n"
	"EXIT STATUS\n"
	"    0 every action succeeded; 1 a call failed, the server answered an\n"
	"    error status (BS_ERR_RANGE, ...), --verify found a difference, or\n"
	"    --watch saw fewer than N notifications in time; 2 bad options.\n"
	"\n"
	"EXAMPLES\n"
	"    " PROG " --connect @bs --getattr\n"
	"    " PROG " --connect @bs --write 0:disk.img --read 0:1m:copy.img\n"
	"    " PROG " --connect @bs --verify 200 --seed 7\n"
	"    " PROG " --connect @bs --watch 3 --timeout 60\n";

enum bs_action_kind {
	A_GETATTR,
	A_WRITE,
	A_READ,
	A_VERIFY,
	A_WATCH,
};

struct bs_action {
	enum bs_action_kind kind;
	uint64_t offset, count; /* READ; count is the rounds of VERIFY, the NOTIFYs of WATCH */
	const char *file;
};

struct bs_opts {
	struct app_opts com; /* --pmd, --devargs, --lcores, EAL arguments */
	const char *connect;
	const char *capture;
	uint32_t timeout;
	uint32_t reconnect; /* params.reconnect_max */
	uint64_t seed;
	bool seed_set;
	int nactions;
	struct bs_action actions[BS_ACTIONS_MAX];
};

/* What a call's callback found, for bs_call() to return. */
struct bs_pending {
	bool done;
	int status; /* 0, a negative errno, or -EREMOTEIO (an RPC-level error) */
	struct rpcrdma_rpc_msg rep;
	int (*decode)(struct rpcrdma_xdr_dec *d, void *arg);
	void *arg;
};

struct bs_client {
	const struct bs_opts *o;
	struct app_ep ep;
	struct rpcrdma_xprt *xprt;
	struct rpcrdma_capture *cap;
	struct rpcrdma_mempool *pool; /* BS_MAX_IO buffers */
	void *src, *dst;	      /* WRITE data leaves from src; READ data lands in dst */
	FILE *msg;		      /* where messages go: stdout, or stderr when data does */
	uint64_t dev_size;
	struct bs_pending pend; /* the call in flight (it outlives a timed-out bs_call) */
	/* --watch: the callback program's registry, the glue serving it, what came */
	uint64_t watch; /* NOTIFYs to wait for (0: no --watch) */
	struct rpcrdma_svc_registry *reg;
	struct rpcrdma_xprt_svc glue;
	uint64_t notifies;     /* NOTIFYs accepted */
	uint64_t bad_notifies; /* NOTIFYs refused: beyond the device */
};

static volatile sig_atomic_t stop_signal;

/* ------------------------------------------------------------ one call */

/*
 * The reply arrived (status 0) or the call failed. The reply stream points
 * into the receive buffer and our write-chunk buffer; it is valid until the
 * call is released, so the results are decoded here.
 */
static void call_done(void *arg, struct rpcrdma_xprt_call *call, int status,
		      struct rpcrdma_xdr_dec *reply)
{
	struct bs_pending *p = arg;

	p->done = true;
	p->status = status;
	if (status == 0) {
		if (rpcrdma_xprt_get_rpc(reply, &p->rep) != 0 ||
		    p->rep.xid != rpcrdma_xprt_call_xid(call) || p->rep.type != RPCRDMA_RPC_REPLY)
			p->status = -EBADMSG;
		else if (p->rep.reply.stat != RPCRDMA_RPC_MSG_ACCEPTED ||
			 p->rep.reply.accept_stat != RPCRDMA_RPC_SUCCESS)
			p->status = -EREMOTEIO;
		else if (p->decode && p->decode(reply, p->arg) != 0)
			p->status = -EBADMSG;
		else if (rpcrdma_xdr_dec_left(reply) != 0)
			p->status = -EBADMSG;
	}
	rpcrdma_xprt_call_release(call);
}

static void poll_events(struct bs_client *c)
{
	struct rpcrdma_pmd_event ev[4];
	int n = rpcrdma_pmd_event_poll(c->ep.dev, ev, 4);

	for (int i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
}

/*
 * One RPC of the block store program. encode writes the arguments (may be
 * NULL); dst, when not NULL, is the write chunk the reply's DDP-eligible
 * data lands in; decode reads the results in the callback.
 */
static int bs_call(struct bs_client *c, uint32_t proc,
		   int (*encode)(struct rpcrdma_xdr_enc *e, const void *arg), const void *enc_arg,
		   const struct rpcrdma_xdr_region *dst, uint32_t max_results,
		   int (*decode)(struct rpcrdma_xdr_dec *d, void *arg), void *dec_arg)
{
	static const char *const procs[] = { "NULL", "GETATTR", "READ", "WRITE", "SUBSCRIBE" };
	struct bs_pending *p = &c->pend;
	uint64_t hz = rte_get_tsc_hz(), now, next_ev = 0, end;
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xprt_call *call;
	int ret;

	ret = rpcrdma_xprt_call_alloc(c->xprt, &call);
	if (ret) {
		fprintf(stderr, PROG ": no call slot: %s\n", strerror(-ret));
		return ret;
	}
	ret = rpcrdma_xprt_call_put_header(call, BLOCKSTORE_PROG, BLOCKSTORE_V1, proc);
	if (ret == 0 && encode)
		ret = encode(rpcrdma_xprt_call_enc(call), enc_arg);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		fprintf(stderr, PROG ": %s: cannot encode the call: %s\n", procs[proc],
			strerror(-ret));
		return ret;
	}
	/* the largest reply, and where DDP-eligible results go (one write chunk) */
	spec = rpcrdma_xprt_call_reply_spec(call);
	spec->max_len = RPC_REPLY_HDR + max_results;
	if (dst) {
		spec->ddp[0] = *dst;
		spec->nddp = 1;
	}
	memset(p, 0, sizeof(*p));
	p->decode = decode;
	p->arg = dec_arg;
	ret = rpcrdma_xprt_call_submit(call, 0, call_done, p);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		return ret;
	}
	/* the engine sends with the next poll; the callback runs from a later one */
	end = rte_rdtsc() + hz * c->o->timeout;
	while (!p->done) {
		rpcrdma_xprt_poll(c->xprt);
		now = rte_rdtsc();
		if (now < next_ev)
			continue;
		next_ev = now + hz / 1000;
		poll_events(c);
		if (now > end || stop_signal) {
			fprintf(stderr, PROG ": %s: no reply in %u seconds\n", procs[proc],
				c->o->timeout);
			/* the call stays submitted; disconnecting completes it, undecoded */
			p->decode = NULL;
			return -ETIMEDOUT;
		}
	}
	if (p->status == -EREMOTEIO)
		fprintf(stderr, PROG ": %s: the server answered %s %u\n", procs[proc],
			p->rep.reply.stat == RPCRDMA_RPC_MSG_ACCEPTED ? "accept_stat"
								      : "reject_stat",
			p->rep.reply.stat == RPCRDMA_RPC_MSG_ACCEPTED ? p->rep.reply.accept_stat
								      : p->rep.reply.reject_stat);
	else if (p->status)
		fprintf(stderr, PROG ": %s: %s\n", procs[proc], strerror(-p->status));
	return p->status;
}

/* ------------------------------------------------------------ procedures */

static int dec_attr(struct rpcrdma_xdr_dec *d, void *arg)
{
	return bs_get_attr(d, arg);
}

static int getattr(struct bs_client *c, struct bs_attr *a)
{
	return bs_call(c, BS_PROC_GETATTR, NULL, NULL, NULL, 64, dec_attr, a);
}

struct bs_read_out {
	uint32_t status;
	const void *data;
	uint32_t count;
};

static int enc_read(struct rpcrdma_xdr_enc *e, const void *arg)
{
	return bs_put_read_args(e, arg);
}

static int dec_read(struct rpcrdma_xdr_dec *d, void *arg)
{
	struct bs_read_out *r = arg;

	return bs_get_read_res(d, &r->status, &r->data, &r->count);
}

/*
 * READ count bytes at offset into c->dst. The buffer is offered as a write
 * chunk: the server's RDMA Write puts the data there, nothing is copied.
 * @return 0 with *status (BS_OK: the data is in c->dst), or a negative errno.
 */
static int bs_read(struct bs_client *c, uint64_t offset, uint32_t count, uint32_t *status)
{
	struct bs_read_args a = { .offset = offset, .count = count };
	struct rpcrdma_xdr_region dst;
	struct bs_read_out r = { 0 };
	int ret;

	dst = rpcrdma_xdr_region_va(c->dst, count, c->pool->lkey, c->pool->rkey);
	ret = bs_call(c, BS_PROC_READ, enc_read, &a, &dst, 8 + rpcrdma_xdr_pad4(count), dec_read,
		      &r);
	if (ret)
		return ret;
	*status = r.status;
	if (r.status == BS_OK && r.count != count) {
		fprintf(stderr, PROG ": READ: %u bytes returned, %u asked\n", r.count, count);
		return -EBADMSG;
	}
	/* a server that sent it inline instead: the one case that copies */
	if (r.status == BS_OK && count > 0 && r.data != c->dst)
		memcpy(c->dst, r.data, count);
	return 0;
}

struct bs_write_in {
	uint64_t offset;
	struct rpcrdma_xdr_region data;
};

static int enc_write(struct rpcrdma_xdr_enc *e, const void *arg)
{
	const struct bs_write_in *w = arg;

	return bs_put_write_args(e, w->offset, &w->data);
}

static int dec_write(struct rpcrdma_xdr_dec *d, void *arg)
{
	return bs_get_write_res(d, arg);
}

/*
 * WRITE count bytes of c->src at offset. The data is DDP-eligible: the
 * engine sends it inline when the call fits the inline threshold, else as
 * a read chunk that the server pulls from c->src with RDMA Read.
 */
static int bs_write(struct bs_client *c, uint64_t offset, uint32_t count, uint32_t *status)
{
	struct bs_write_in w = { .offset = offset };
	struct bs_write_res r = { 0 };
	int ret;

	w.data = rpcrdma_xdr_region_va(c->src, count, c->pool->lkey, c->pool->rkey);
	ret = bs_call(c, BS_PROC_WRITE, enc_write, &w, NULL, 8, dec_write, &r);
	if (ret)
		return ret;
	*status = r.status;
	if (r.status == BS_OK && r.count != count) {
		fprintf(stderr, PROG ": WRITE: %u bytes written, %u sent\n", r.count, count);
		return -EBADMSG;
	}
	return 0;
}

static int dec_stat(struct rpcrdma_xdr_dec *d, void *arg)
{
	return bs_get_stat(d, arg);
}

/* SUBSCRIBE: NOTIFYs come from now on (served by the callback program below). */
static int bs_subscribe(struct bs_client *c, uint32_t *status)
{
	return bs_call(c, BS_PROC_SUBSCRIBE, NULL, NULL, NULL, 4, dec_stat, status);
}

/* ------------------------------------------------------------ notifications */

/*
 * The callback program, served as a server serves its program: a decoder,
 * a handler and a table registered with the dispatcher, which answers what
 * is not ours (PROG_UNAVAIL, PROC_UNAVAIL, GARBAGE_ARGS) by itself. CB_NULL
 * answers by default. The arguments come from the server: bs_get_notify()
 * checks their shape and count, the handler the range.
 */
static int dec_notify(struct rpcrdma_xdr_dec *d, void *args)
{
	return bs_dec_end(d, bs_get_notify(d, args));
}

static int h_notify(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct bs_client *c = req->prog_ctx;
	const struct bs_notify *n = args;

	if (n->offset > c->dev_size || n->count > c->dev_size - n->offset) {
		/* the first one says so; all are counted (a server could send many) */
		if (c->bad_notifies++ == 0)
			fprintf(stderr,
				PROG ": warning: a NOTIFY of %u bytes at %lu lies beyond the "
				     "device (%lu bytes): refused\n",
				n->count, (unsigned long)n->offset, (unsigned long)c->dev_size);
		return -ERANGE; /* SYSTEM_ERR */
	}
	/* one line each, up to the count --watch waits for (later ones come while closing) */
	if (c->notifies++ < c->watch) {
		fprintf(c->msg, "notify: %u bytes at %lu (write %lu)\n", n->count,
			(unsigned long)n->offset, (unsigned long)n->seq);
		fflush(c->msg);
	}
	return RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc cb_procs[BS_CB_NPROCS] = {
	[BS_CB_NULL] = { .name = "CB_NULL" },
	[BS_CB_NOTIFY] = { .name = "CB_NOTIFY",
			   .decode = dec_notify,
			   .handler = h_notify,
			   .args_size = sizeof(struct bs_notify) },
};

static const struct rpcrdma_svc_version cb_versions[] = {
	{ .vers = BLOCKSTORE_CB_V1, .nprocs = BS_CB_NPROCS, .procs = cb_procs },
};

/*
 * --watch: register the callback program and make the connection's
 * parameters take backward calls: params.bk_credits receives posted for
 * them beyond the forward ones, and the glue as their recv_call. One
 * counter slot: the main lcore (index 0) polls the connection.
 */
static int watch_setup(struct bs_client *c, struct rpcrdma_xprt_params *xp)
{
	struct rpcrdma_svc_program prog = {
		.name = "blockstore-cb",
		.prog = BLOCKSTORE_CB_PROG,
		.ctx = c, /* req->prog_ctx in h_notify() */
		.nvers = 1,
		.vers = cb_versions,
	};
	int ret;

	ret = app_svc_registry(&prog, 1, &c->reg);
	if (ret) {
		fprintf(stderr, PROG ": register the callback program: %s\n", strerror(-ret));
		return ret;
	}
	rpcrdma_xprt_svc_init(&c->glue, c->reg, 0);
	xp->bk_credits = BS_BK_CREDITS;
	rpcrdma_xprt_svc_bind(&c->glue, xp);
	return 0;
}

/* ------------------------------------------------------------ actions */

static int status_error(const char *what, uint64_t count, uint64_t offset, uint32_t st)
{
	fprintf(stderr, PROG ": %s %lu bytes at %lu: %s (%s)\n", what, (unsigned long)count,
		(unsigned long)offset, bs_stat_name(st), bs_stat_text(st));
	return -EREMOTEIO;
}

static int do_getattr(struct bs_client *c)
{
	struct bs_attr a;
	int ret = getattr(c, &a);

	if (ret)
		return ret;
	fprintf(c->msg,
		"size %lu block_size %u max_io %u reads %lu writes %lu bytes_read %lu "
		"bytes_written %lu errors %lu\n",
		(unsigned long)a.size, a.block_size, a.max_io, (unsigned long)a.reads,
		(unsigned long)a.writes, (unsigned long)a.bytes_read,
		(unsigned long)a.bytes_written, (unsigned long)a.errors);
	return 0;
}

/* --write OFFSET:FILE: the file in calls of at most BS_MAX_IO bytes. */
static int do_write(struct bs_client *c, const struct bs_action *a)
{
	FILE *f = fopen(a->file, "rb");
	uint64_t off = a->offset, total = 0;
	uint32_t st;
	size_t n;
	int ret = 0, calls = 0;

	if (f == NULL) {
		fprintf(stderr, PROG ": --write: %s: %s\n", a->file, strerror(errno));
		return -errno;
	}
	/* read(2) into registered memory: the data leaves from there */
	while (ret == 0 && (n = fread(c->src, 1, BS_MAX_IO, f)) > 0) {
		ret = bs_write(c, off, (uint32_t)n, &st);
		if (ret == 0 && st != BS_OK)
			ret = status_error("write", n, off, st);
		off += n;
		total += n;
		calls++;
	}
	if (ret == 0 && ferror(f)) {
		fprintf(stderr, PROG ": --write: %s: read error\n", a->file);
		ret = -EIO;
	}
	fclose(f);
	if (ret == 0)
		fprintf(c->msg, "wrote %lu bytes at %lu from %s (%d calls)\n", (unsigned long)total,
			(unsigned long)a->offset, a->file, calls);
	return ret;
}

/* --read OFFSET:COUNT:FILE */
static int do_read(struct bs_client *c, const struct bs_action *a)
{
	bool out = strcmp(a->file, "-") == 0;
	FILE *f = out ? stdout : fopen(a->file, "wb");
	uint64_t off = a->offset, left = a->count;
	uint32_t st, n;
	int ret = 0, calls = 0;

	if (f == NULL) {
		fprintf(stderr, PROG ": --read: %s: %s\n", a->file, strerror(errno));
		return -errno;
	}
	do {
		n = left > BS_MAX_IO ? BS_MAX_IO : (uint32_t)left;
		ret = bs_read(c, off, n, &st);
		if (ret == 0 && st != BS_OK)
			ret = status_error("read", n, off, st);
		if (ret == 0 && n > 0 && fwrite(c->dst, 1, n, f) != n) {
			fprintf(stderr, PROG ": --read: %s: %s\n", a->file, strerror(errno));
			ret = -EIO;
		}
		off += n;
		left -= n;
		calls++;
	} while (ret == 0 && left > 0);
	if (out ? fflush(f) != 0 : fclose(f) != 0) {
		fprintf(stderr, PROG ": --read: %s: %s\n", a->file, strerror(errno));
		ret = ret ? ret : -EIO;
	}
	if (ret == 0)
		fprintf(c->msg, "read %lu bytes at %lu into %s (%d calls)\n",
			(unsigned long)a->count, (unsigned long)a->offset, a->file, calls);
	return ret;
}

/* xorshift64*: reproducible from --seed */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* --verify N: random write, read back, compare. */
static int do_verify(struct bs_client *c, const struct bs_action *a)
{
	/* lengths around the inline threshold and the chunk size classes */
	static const uint32_t caps[] = { 512, 4096, 8192, 65536, 65536 + 4096, BS_MAX_IO };
	uint64_t seed = c->o->seed_set ? c->o->seed : (uint64_t)time(NULL);
	uint64_t s = seed * 2 + 1, writes = 0, reads = 0, bytes = 0, bad = 0, errors = 0;
	uint32_t st;

	for (uint64_t i = 0; i < a->count && !stop_signal; i++) {
		uint32_t len = 1 + (uint32_t)(rnd(&s) % caps[rnd(&s) % 6]);
		uint64_t off;

		if (len > c->dev_size)
			len = (uint32_t)c->dev_size;
		off = rnd(&s) % (c->dev_size - len + 1);
		for (uint32_t j = 0; j < len; j += 8) {
			uint64_t v = rnd(&s);

			memcpy((uint8_t *)c->src + j, &v, len - j < 8 ? len - j : 8);
		}
		if (bs_write(c, off, len, &st) != 0 || st != BS_OK) {
			errors++;
			break;
		}
		writes++;
		memset(c->dst, 0, len);
		if (bs_read(c, off, len, &st) != 0 || st != BS_OK) {
			errors++;
			break;
		}
		reads++;
		bytes += len;
		if (memcmp(c->src, c->dst, len) != 0) {
			fprintf(stderr,
				PROG ": verify: round %lu: %u bytes at %lu read back differ\n",
				(unsigned long)i, len, (unsigned long)off);
			bad++;
		}
	}
	fprintf(c->msg,
		"verify: seed %lu, %lu rounds, %lu writes, %lu reads, %lu bytes, %lu mismatches, "
		"%lu errors\n",
		(unsigned long)seed, (unsigned long)a->count, (unsigned long)writes,
		(unsigned long)reads, (unsigned long)bytes, (unsigned long)bad,
		(unsigned long)errors);
	return bad || errors || reads != a->count ? -EIO : 0;
}

/*
 * --watch N: poll until N NOTIFYs have come (counting those that came
 * during the actions before it), for --timeout seconds at most. The
 * glue runs h_notify() from rpcrdma_xprt_poll(). Once idle for 100 ms the
 * loop sleeps a little per turn, as the server's does. At the end a NULL
 * call: the queue pair delivers in order, so its reply says the server
 * has received our answer to the last NOTIFY before we disconnect (it
 * would otherwise count it failed, had it seen the disconnect first).
 */
static int do_watch(struct bs_client *c, const struct bs_action *a)
{
	uint64_t hz = rte_get_tsc_hz(), now, next_ev = 0, last_work, end;

	now = rte_rdtsc();
	end = now + hz * c->o->timeout;
	last_work = now;
	while (c->notifies < a->count && !stop_signal && now < end) {
		if (rpcrdma_xprt_poll(c->xprt) > 0)
			last_work = now;
		else if (now - last_work > hz / 10)
			usleep(BS_IDLE_SLEEP);
		now = rte_rdtsc();
		if (now >= next_ev) {
			next_ev = now + hz / 1000;
			poll_events(c);
			if (rpcrdma_xprt_state(c->xprt) != RPCRDMA_XPRT_ESTABLISHED)
				break;
		}
	}
	if (c->notifies >= a->count)
		return bs_call(c, BS_PROC_NULL, NULL, NULL, NULL, 0, NULL, NULL);
	if (rpcrdma_xprt_state(c->xprt) != RPCRDMA_XPRT_ESTABLISHED)
		fprintf(stderr,
			PROG ": --watch: the connection was lost after %lu of %lu "
			     "notifications\n",
			(unsigned long)c->notifies, (unsigned long)a->count);
	else if (stop_signal)
		fprintf(stderr, PROG ": --watch: interrupted after %lu of %lu notifications\n",
			(unsigned long)c->notifies, (unsigned long)a->count);
	else if (c->bad_notifies == 0)
		fprintf(stderr, PROG ": --watch: %lu of %lu notifications in %u seconds\n",
			(unsigned long)c->notifies, (unsigned long)a->count, c->o->timeout);
	else
		fprintf(stderr,
			PROG ": --watch: %lu of %lu notifications in %u seconds (%lu refused)\n",
			(unsigned long)c->notifies, (unsigned long)a->count, c->o->timeout,
			(unsigned long)c->bad_notifies);
	return -ETIMEDOUT;
}

/* ------------------------------------------------------------ connection */

static int client_open(struct bs_client *c)
{
	struct rpcrdma_mempool_set_params sp;
	struct rpcrdma_xprt_params xp;
	int ret;

	/* a few inline buffers, and two BS_MAX_IO buffers: src and dst */
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = "bs-cli";
	sp.inline_count = 128;
	sp.nb_classes = 1;
	sp.classes[0].size = BS_MAX_IO;
	sp.classes[0].count = 2;
	sp.cache_size = 0;
	ret = app_ep_open(&c->ep, c->o->com.pmd, c->o->com.devargs, &sp);
	if (ret)
		return ret;
	c->pool = c->ep.pools->chunk[0];
	c->src = rpcrdma_mempool_get(c->pool);
	c->dst = rpcrdma_mempool_get(c->pool);
	rpcrdma_xprt_params_init(&xp, RPCRDMA_XPRT_CLIENT);
	xp.dev = c->ep.dev;
	xp.pd = c->ep.pd;
	xp.pools = c->ep.pools;
	xp.max_credits = 8;
	xp.max_calls = 8;
	xp.reconnect_max = c->o->reconnect;
	if (strcmp(c->o->com.pmd, "shm") != 0)
		xp.flags &= ~(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV);
	if (c->watch > 0) {
		ret = watch_setup(c, &xp);
		if (ret)
			return ret;
	}
	ret = rpcrdma_xprt_create(&xp, &c->xprt);
	if (ret) {
		c->xprt = NULL;
		fprintf(stderr, PROG ": connection: %s\n", strerror(-ret));
		return ret;
	}
	if (c->o->capture) {
		ret = rpcrdma_capture_open(c->o->capture, NULL, &c->cap);
		if (ret) {
			c->cap = NULL;
			fprintf(stderr, PROG ": --capture %s: %s\n", c->o->capture, strerror(-ret));
		}
	}
	return ret;
}

/* Connect, retrying while the server starts; capture the QP from its first packet. */
static int client_connect(struct bs_client *c)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_rdtsc() + hz * c->o->timeout;
	struct rpcrdma_xprt_info info;
	int ret;

	for (;;) {
		ret = rpcrdma_xprt_connect(c->xprt, c->o->connect);
		if (ret == 0 && c->cap) {
			/* the QP exists now, and no receive is posted before the first poll */
			rpcrdma_xprt_info(c->xprt, &info);
			ret = rpcrdma_capture_qp(c->cap, info.qp, NULL);
			if (ret) {
				fprintf(stderr, PROG ": --capture: %s\n", strerror(-ret));
				return ret;
			}
		}
		while (ret == 0 && rte_rdtsc() < end && !stop_signal) {
			poll_events(c);
			rpcrdma_xprt_poll(c->xprt);
			if (rpcrdma_xprt_state(c->xprt) == RPCRDMA_XPRT_ESTABLISHED)
				return 0;
			if (rpcrdma_xprt_state(c->xprt) == RPCRDMA_XPRT_ERROR)
				ret = -ECONNREFUSED;
		}
		if (rte_rdtsc() >= end || stop_signal)
			break;
		usleep(20000); /* the server is starting */
	}
	fprintf(stderr, PROG ": cannot connect to %s: %s\n", c->o->connect,
		ret ? strerror(-ret) : "timed out");
	return ret ? ret : -ETIMEDOUT;
}

static void client_close(struct bs_client *c)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * c->o->timeout;
	struct rpcrdma_capture_stats cs;
	enum rpcrdma_xprt_state st;

	if (c->xprt) {
		if (rpcrdma_xprt_state(c->xprt) == RPCRDMA_XPRT_ESTABLISHED)
			rpcrdma_xprt_disconnect(c->xprt);
		for (;;) {
			st = rpcrdma_xprt_state(c->xprt);
			if (st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR ||
			    st == RPCRDMA_XPRT_IDLE || rte_rdtsc() > end)
				break;
			poll_events(c);
			rpcrdma_xprt_poll(c->xprt);
		}
		if (rpcrdma_xprt_destroy(c->xprt) != 0)
			fprintf(stderr, PROG ": warning: the connection did not close\n");
	}
	if (c->cap) {
		rpcrdma_capture_flush(c->cap); /* the counters then include every frame */
		rpcrdma_capture_stats(c->cap, &cs);
		if (rpcrdma_capture_close(c->cap) != 0)
			fprintf(stderr, PROG ": --capture: write error, the file is incomplete\n");
		else
			fprintf(c->msg,
				"capture: %lu frames, %lu bytes, %lu drops, %lu untracked\n",
				(unsigned long)cs.frames, (unsigned long)cs.bytes,
				(unsigned long)cs.drops, (unsigned long)cs.untracked);
	}
	if (c->src)
		rpcrdma_mempool_put(c->pool, c->src);
	if (c->dst)
		rpcrdma_mempool_put(c->pool, c->dst);
	app_svc_registry_free(c->reg);
	app_ep_close(&c->ep);
}

/* ------------------------------------------------------------ options */

enum {
	O_CONNECT = APP_O_NEXT,
	O_GETATTR,
	O_WRITE,
	O_READ,
	O_VERIFY,
	O_WATCH,
	O_CAPTURE,
	O_SEED,
	O_TIMEOUT,
	O_RECONNECT,
};

static const struct option long_opts[] = {
	APP_LONG_OPTS,
	{ "connect", required_argument, NULL, O_CONNECT },
	{ "getattr", no_argument, NULL, O_GETATTR },
	{ "write", required_argument, NULL, O_WRITE },
	{ "read", required_argument, NULL, O_READ },
	{ "verify", required_argument, NULL, O_VERIFY },
	{ "watch", required_argument, NULL, O_WATCH },
	{ "capture", required_argument, NULL, O_CAPTURE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "reconnect", required_argument, NULL, O_RECONNECT },
	{ NULL, 0, NULL, 0 },
};

/*
 * Split "A:B[:REST]" of option @p opt: parse @p nnum numbers, then the
 * rest (a file name, which may itself contain ':').
 */
static int parse_spec(const char *opt, char *s, int nnum, uint64_t *num, const char **file)
{
	char *p = s;

	for (int i = 0; i < nnum; i++) {
		char *colon = strchr(p, ':');
		int ret;

		if (colon == NULL)
			return app_usage_error("%s: '%s' is not %s", opt, s,
					       nnum == 1 ? "OFFSET:FILE" : "OFFSET:COUNT:FILE");
		*colon = '\0';
		ret = app_parse_u64(opt, p, 0, UINT64_MAX / 2, true, &num[i]);
		*colon = ':';
		if (ret)
			return ret;
		p = colon + 1;
	}
	if (*p == '\0')
		return app_usage_error("%s: '%s' names no file", opt, s);
	*file = p;
	return 0;
}

/* 0: run; -1: --help printed; else an exit status. */
static int parse_opts(struct bs_opts *o, int argc, char **argv)
{
	int c, nopts, ret = 0;
	uint64_t v[2];
	struct bs_action *a;

	memset(o, 0, sizeof(*o));
	o->timeout = 10;
	nopts = app_opts_init(&o->com, argc, argv);
	while ((c = getopt_long(nopts, argv, ":h", long_opts, NULL)) != -1) {
		a = &o->actions[o->nactions];
		if ((c == O_GETATTR || c == O_WRITE || c == O_READ || c == O_VERIFY ||
		     c == O_WATCH) &&
		    o->nactions == BS_ACTIONS_MAX)
			return app_usage_error("more than %d actions", BS_ACTIONS_MAX);
		switch (c) {
		case O_CONNECT:
			ret = app_parse_address("--connect", optarg, &o->connect);
			break;
		case O_GETATTR:
			a->kind = A_GETATTR;
			o->nactions++;
			break;
		case O_WRITE:
			a->kind = A_WRITE;
			ret = parse_spec("--write", optarg, 1, v, &a->file);
			a->offset = v[0];
			o->nactions += ret == 0;
			break;
		case O_READ:
			a->kind = A_READ;
			ret = parse_spec("--read", optarg, 2, v, &a->file);
			a->offset = v[0];
			a->count = v[1];
			o->nactions += ret == 0;
			break;
		case O_VERIFY:
			a->kind = A_VERIFY;
			ret = app_parse_u64("--verify", optarg, 1, BS_VERIFY_MAX, false, &a->count);
			o->nactions += ret == 0;
			break;
		case O_WATCH:
			a->kind = A_WATCH;
			ret = app_parse_u64("--watch", optarg, 1, BS_WATCH_MAX, false, &a->count);
			o->nactions += ret == 0;
			break;
		case O_CAPTURE:
			o->capture = optarg;
			break;
		case O_SEED:
			ret = app_parse_u64("--seed", optarg, 0, UINT64_MAX, false, &o->seed);
			o->seed_set = true;
			break;
		case O_TIMEOUT:
			ret = app_parse_u64("--timeout", optarg, 1, 3600, false, v);
			o->timeout = (uint32_t)v[0];
			break;
		case O_RECONNECT:
			ret = app_parse_u64("--reconnect", optarg, 0, 1000, false, v);
			o->reconnect = (uint32_t)v[0];
			break;
		default: /* --pmd, --devargs, --lcores, --help, or an error */
			ret = app_opts_common(&o->com, c, argv, help_text);
			break;
		}
		if (ret)
			return ret;
	}
	ret = app_opts_end(nopts, argv);
	if (ret)
		return ret;
	if (o->connect == NULL)
		return app_usage_error("--connect ADDRESS is required");
	if (o->nactions == 0)
		return app_usage_error(
			"no action: give --getattr, --write, --read, --verify or --watch");
	/* --watch waits at the end: an action after it would never run while it waits */
	for (int i = 0; i < o->nactions - 1; i++)
		if (o->actions[i].kind == A_WATCH)
			return app_usage_error("--watch must be the last action, and given once");
	if (o->reconnect && o->actions[o->nactions - 1].kind == A_WATCH)
		return app_usage_error("--reconnect and --watch: a subscription ends with its "
				       "connection");
	return 0;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

int main(int argc, char **argv)
{
	static struct bs_opts o;
	struct bs_client c = { .o = &o, .msg = stdout };
	struct bs_attr attr;
	int ret, i;

	app_init(PROG);
	ret = parse_opts(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	for (i = 0; i < o.nactions; i++)
		if (o.actions[i].kind == A_READ && strcmp(o.actions[i].file, "-") == 0)
			c.msg = stderr; /* standard output carries data */
	if (o.actions[o.nactions - 1].kind == A_WATCH)
		c.watch = o.actions[o.nactions - 1].count;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = app_eal_start(argv[0], o.com.lcores, o.com.eal_argc, o.com.eal_argv);
	if (ret)
		return ret;
	ret = client_open(&c);
	if (ret == 0)
		ret = client_connect(&c);
	/* NULL: is the program there? Then the device's size, for --verify. */
	if (ret == 0)
		ret = bs_call(&c, BS_PROC_NULL, NULL, NULL, NULL, 0, NULL, NULL);
	if (ret == 0)
		ret = getattr(&c, &attr);
	if (ret == 0)
		c.dev_size = attr.size;
	/* --watch: NOTIFYs from now on, the other actions' time included */
	if (ret == 0 && c.watch > 0) {
		uint32_t st;

		ret = bs_subscribe(&c, &st);
		if (ret == 0 && st != BS_OK) {
			fprintf(stderr, PROG ": SUBSCRIBE: %s (%s)\n", bs_stat_name(st),
				bs_stat_text(st));
			ret = -EREMOTEIO;
		}
		if (ret == 0) {
			fprintf(c.msg, "subscribed: watching for %lu notifications\n",
				(unsigned long)c.watch);
			fflush(c.msg);
		}
	}
	for (i = 0; ret == 0 && i < o.nactions && !stop_signal; i++) {
		switch (o.actions[i].kind) {
		case A_GETATTR:
			ret = do_getattr(&c);
			break;
		case A_WRITE:
			ret = do_write(&c, &o.actions[i]);
			break;
		case A_READ:
			ret = do_read(&c, &o.actions[i]);
			break;
		case A_VERIFY:
			ret = do_verify(&c, &o.actions[i]);
			break;
		case A_WATCH:
			ret = do_watch(&c, &o.actions[i]);
			break;
		}
	}
	if (o.reconnect && c.xprt != NULL)
		app_xprt_reconnects(c.xprt);
	client_close(&c);
	rte_eal_cleanup();
	return ret || stop_signal ? APP_EXIT_FAIL : 0;
}
