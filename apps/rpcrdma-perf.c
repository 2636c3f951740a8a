/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf: latency, IOPS and bandwidth of whole RPCs over the
 * RPC-over-RDMA engine, as perftest's ib_send_lat and ib_send_bw measure
 * verbs. A client sends calls of a small test program to a server, both
 * built on rpcrdma_xprt.h, and counts each call from submit to its reply
 * callback in a log-linear histogram. See --help, and the README.
 *
 * The test program (PERF_RPC_PROG, version 1):
 *
 *   NULL   (0)  void -> void
 *   READ   (1)  uint32 len -> opaque data<>   data DDP-eligible (a write chunk)
 *   WRITE  (2)  opaque data<> -> uint32 len   data DDP-eligible (a read chunk)
 *
 * The server registers it with the RPC dispatcher (rpcrdma_svc.h) and
 * answers through the engine's dispatch glue (rpcrdma_xprt_svc.h), as a
 * service built on the library does: its calls are counted per procedure
 * in telemetry (/rpcrdma/programs, /rpcrdma/program,536871248).
 *
 * Topologies: in one process (the server polled by a runtime poller lcore,
 * the client on the main lcore, each with its own device and pools), or
 * the server (--server) and the client (--client) in two processes.
 *
 * The client's calls are a program's (perf_prog.h): the test program here,
 * or NFSv3 against any NFS/RDMA server (perf_nfs3.c, --program nfs3, with
 * no server in this process). The options and --help are in perf_opts.c.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "app_common.h"
#include "perf_compare.h"
#include "perf_hist.h"
#include "perf_json.h"
#include "perf_opts.h"
#include "perf_plot.h"
#include "perf_prog.h"
#include "perf_report.h"
#include "perf_srv.h"
#include "perf_version.h"

#define PROG "rpcrdma-perf"

#define EXIT_FAIL	1 /* a run failed: setup, connection, calls */
#define EXIT_USAGE	2 /* bad options, or what is not supported */
#define EXIT_REGRESSION 3 /* --compare: a regression judged */

#define PERF_LISTING_MAX (64u << 10) /* nfs3 readdir: a slot's buffer for a reply chunk */
/* calls spread over connections in turn: how many calls ahead one is prefetched */
#define PERF_PREFETCH 4

static struct perf_json old_res; /* --compare OLD.json, read before anything runs */

/*
 * --compare and --plot, before anything runs (one line, EXIT_USAGE): OLD.json
 * is a result, a run measures its scenario, gnuplot is there.
 */
static int check_before_run(const struct perf_opts *o)
{
	const char *mode, *op, *pmd, *prog;
	uint32_t size = perf_op_has_payload(o->op) ? o->size : 0;

	if (o->plot && !perf_plot_have_gnuplot()) {
		fprintf(stderr, PROG ": --plot: gnuplot is not installed (apt-get install "
				     "gnuplot-nox)\n");
		return EXIT_USAGE;
	}
	if (o->compare == NULL)
		return 0;
	if (perf_report_load(&old_res, o->compare, "--compare") != 0)
		return EXIT_USAGE;
	if (o->input)
		return 0;
	mode = perf_json_str(&old_res, "mode");
	op = perf_json_str(&old_res, "op");
	pmd = perf_json_str(&old_res, "pmd");
	prog = perf_json_str(&old_res, "program");
	if (prog == NULL)
		prog = "test"; /* results from before --program */
	if (strcmp(prog, o->prog->name) != 0) {
		fprintf(stderr,
			PROG ": --compare: %s measured --program %s; this run would measure "
			     "--program %s\n",
			o->compare, prog, o->prog->name);
		return EXIT_USAGE;
	}
	if (strcmp(mode, perf_mode_names[o->mode]) != 0 || strcmp(op, perf_op_names[o->op]) != 0 ||
	    strcmp(pmd, o->com.pmd) != 0 || perf_report_num(&old_res, "size") != size ||
	    perf_report_num(&old_res, "depth") != o->depth ||
	    perf_report_num(&old_res, "version") != o->version) {
		fprintf(stderr,
			PROG ": --compare: %s measured --mode %s --op %s --size %.0f --depth %.0f "
			     "--version %.0f --pmd %s; this run would measure --mode %s --op %s "
			     "--size %u --depth %u --version %u --pmd %s (give the same, or "
			     "compare two results with --input)\n",
			o->compare, mode, op, perf_report_num(&old_res, "size"),
			perf_report_num(&old_res, "depth"), perf_report_num(&old_res, "version"),
			pmd, perf_mode_names[o->mode], perf_op_names[o->op], size, o->depth,
			o->version, o->com.pmd);
		return EXIT_USAGE;
	}
	return 0;
}

/* ------------------------------------------------------------ result */

/* ------------------------------------------------------------ endpoints */

static double ns_per_tsc;
static volatile sig_atomic_t stop_signal;
/*
 * What people read (the progress line, the table, the server's lines,
 * --compare's report): stdout, or stderr when --json - puts the result
 * there, so that stdout holds the JSON alone.
 */
static FILE *out;
static struct rpcrdma_capture *capture; /* --capture */

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ------------------------------------------------------------ client */

struct perf_cli;

struct perf_slot {
	struct perf_cli *cli;
	uint64_t t0;
	uint32_t index;
	uint32_t conn; /* the connection of its call: index mod N, or in turn (depth < N) */
};

/* One of the client's --connections. */
struct perf_conn {
	struct rpcrdma_xprt *xprt; /* the first one is ep.xprt */
	uint32_t inflight;
	struct perf_hist hist; /* its measured calls, every repetition */
};

struct perf_cli {
	const struct perf_opts *o;
	struct perf_ep ep;
	struct perf_srv *srv_inline; /* in-process server polled here (one lcore) */
	struct rpcrdma_mempool *chunk_pool;
	struct perf_prog_env env;   /* what the program sees of this client */
	void *bufs[PERF_DEPTH_MAX]; /* each slot's: READ's write chunk, WRITE's data */
	void *src;		    /* the test program's WRITE: the data every call sends */
	bool read_inline;
	uint32_t vers; /* the version settled on the connection */
	uint32_t inflight;
	uint64_t submitted, completed, target, measured;
	uint64_t rep_measured;	 /* calls of the current repetition */
	uint64_t stall_tsc;	 /* PERF_STALL_NS */
	uint64_t stalled;	 /* the repetition's stalls, TSC */
	uint64_t t_prev;	 /* the previous measured reply, or the repetition's start */
	struct perf_result *res; /* each repetition's figures, as it ends */
	uint64_t errors;
	int first_error;
	char first_msg[PERF_ERR_LEN]; /* the call that failed first, and why */
	bool stopping, measuring;
	uint64_t t_start, t_end, t_last_reply;
	struct perf_hist hist;
	struct perf_slot slots[PERF_DEPTH_MAX];
	struct perf_conn *conns; /* nconns of them */
	struct perf_conn_res *conn_res;
	uint32_t nconns;
	uint32_t next_conn; /* depth < nconns: the connection of the next call */
};

static void cli_done(void *arg, struct rpcrdma_xprt_call *call, int status,
		     struct rpcrdma_xdr_dec *reply);

/*
 * A repetition ends at @p now: its figures go to the result and its calls
 * to the histogram of all; the next one starts there, with a histogram of
 * its own, on the same connection with the same calls in flight. After the
 * last, the run stops.
 */
static void rep_end(struct perf_cli *c, uint64_t now)
{
	struct perf_result *r = c->res;
	struct perf_rep *rep = &r->rep[r->nrep];

	c->t_end = now;
	perf_rep_fill(rep, &c->hist, (double)(now - c->t_start) / (double)rte_get_tsc_hz(),
		      (double)c->stalled / (double)rte_get_tsc_hz(),
		      perf_op_has_payload(c->o->op) ? c->o->size : 0);
	perf_hist_merge(&r->all, &c->hist);
	r->nrep++;
	if (c->o->repeat > 1 && !c->o->quiet)
		fprintf(stderr,
			PROG ": repetition %u/%u: %lu calls in %.3f s, %.0f calls/s, %.1f MB/s, "
			     "p50 %.2f us, p99 %.2f us, stalled %.1f %%\n",
			r->nrep, c->o->repeat, (unsigned long)rep->calls, rep->seconds,
			rep->calls_per_sec, rep->bytes_per_sec / 1e6, rep->lat[LAT_P50] / 1e3,
			rep->lat[LAT_P99] / 1e3, rep->stalled_pct);
	if (r->nrep == c->o->repeat) {
		c->stopping = true;
		return;
	}
	perf_hist_reset(&c->hist);
	c->rep_measured = 0;
	c->stalled = 0;
	c->t_start = c->t_prev = now;
}

/* The test program's calls: NULL, READ (uint32 len), WRITE (opaque data<>). */
static int test_put_args(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xprt_call *call)
{
	struct perf_cli *c = env->ctx;
	const struct perf_opts *o = c->o;
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xdr_region reg;
	struct rpcrdma_xdr_enc *x;
	int ret;

	x = rpcrdma_xprt_call_enc(call);
	ret = rpcrdma_xprt_call_put_header(call, PERF_RPC_PROG, PERF_RPC_VERS,
					   o->op == OP_READ    ? PERF_PROC_READ
					   : o->op == OP_WRITE ? PERF_PROC_WRITE
							       : PERF_PROC_NULL);
	spec = rpcrdma_xprt_call_reply_spec(call);
	spec->max_len = RPC_REPLY_HDR;
	if (ret == 0 && o->op == OP_READ) {
		ret = rpcrdma_xdr_put_u32(x, o->size);
		spec->max_len += 4 + rpcrdma_xdr_pad4(o->size);
		if (!c->read_inline) {
			spec->ddp[0] = rpcrdma_xdr_region_va(
				c->bufs[slot], o->size, c->chunk_pool->lkey, c->chunk_pool->rkey);
			spec->nddp = 1;
		}
	} else if (ret == 0 && o->op == OP_WRITE) {
		reg = rpcrdma_xdr_region_va(c->src, o->size, c->chunk_pool->lkey,
					    c->chunk_pool->rkey);
		ret = rpcrdma_xdr_put_ddp(x, &reg);
		spec->max_len += 4;
	}
	return ret;
}

/* The test program's results: READ's data is the server's pattern, WRITE's length. */
static int test_check(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xdr_dec *d,
		      char *err, size_t len)
{
	struct perf_cli *c = env->ctx;
	const void *p;
	uint32_t n;

	switch (c->o->op) {
	case OP_READ:
		if (rpcrdma_xdr_get_ddp(d, PERF_SIZE_MAX, &p, &n) || n != c->o->size)
			return -EBADMSG;
		/* the data landed where the write chunk was (zero copy), and is the server's */
		if ((!c->read_inline && p != c->bufs[slot]) || (n > 0 && !perf_pattern_ok(p, n)))
			return -EBADMSG;
		break;
	case OP_WRITE:
		if (rpcrdma_xdr_get_u32(d, &n) || n != c->o->size)
			return -EBADMSG;
		break;
	default:
		break;
	}
	return rpcrdma_xdr_dec_left(d) == 0 ? 0 : -EBADMSG;
}

static const struct perf_prog perf_prog_test = {
	.name = "test",
	.prog = PERF_RPC_PROG,
	.vers = PERF_RPC_VERS,
	.put_args = test_put_args,
	.check = test_check,
};

static int cli_submit(struct perf_cli *c, struct perf_slot *slot)
{
	struct rpcrdma_xprt_call *call;
	int ret;

	if (c->o->depth < c->nconns) {
		/* fewer calls in flight than connections: each call on the next one */
		slot->conn = c->next_conn;
		c->next_conn = (c->next_conn + 1) % c->nconns;
		/* the connections whose turns come a few calls from now: in three steps */
		rpcrdma_xprt_prefetch(
			c->conns[(c->next_conn + 2 * PERF_PREFETCH) % c->nconns].xprt);
		rpcrdma_xprt_prefetch_call(
			c->conns[(c->next_conn + PERF_PREFETCH) % c->nconns].xprt);
		rpcrdma_xprt_prefetch_send(
			c->conns[(c->next_conn + PERF_PREFETCH / 2) % c->nconns].xprt);
	}
	ret = rpcrdma_xprt_call_alloc(c->conns[slot->conn].xprt, &call);
	if (ret)
		return ret;
	ret = c->o->prog->put_args(&c->env, slot->index, call);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		return ret;
	}
	slot->t0 = rte_rdtsc();
	c->submitted++;
	c->inflight++;
	c->conns[slot->conn].inflight++;
	return rpcrdma_xprt_call_submit(call, 0, cli_done, slot);
}

/* The reply of a call: the RPC header, then the results of its procedure. */
static int cli_check(struct perf_cli *c, struct perf_slot *slot, struct rpcrdma_xprt_call *call,
		     struct rpcrdma_xdr_dec *d, char *err, size_t len)
{
	int ret = perf_prog_rpc_reply(call, d, err, len);

	if (ret == 0)
		ret = c->o->prog->check(&c->env, slot->index, d, err, len);
	return ret;
}

static void cli_done(void *arg, struct rpcrdma_xprt_call *call, int status,
		     struct rpcrdma_xdr_dec *reply)
{
	struct perf_slot *slot = arg;
	struct perf_cli *c = slot->cli;
	uint64_t now = rte_rdtsc();
	char err[PERF_ERR_LEN] = "";
	int ret;

	if (status == 0)
		status = cli_check(c, slot, call, reply, err, sizeof(err));
	rpcrdma_xprt_call_release(call);
	c->inflight--;
	c->conns[slot->conn].inflight--;
	c->t_last_reply = now;
	if (status != 0) {
		c->errors++;
		if (c->first_error == 0) {
			c->first_error = status;
			snprintf(c->first_msg, sizeof(c->first_msg), "%s",
				 err[0] ? err : perf_prog_status_name(status));
		}
		c->stopping = true;
		return;
	}
	c->completed++;
	if (c->measuring) {
		/* after --duration, the calls in flight drain unrecorded */
		if (!c->stopping) {
			uint64_t ns = (uint64_t)((double)(now - slot->t0) * ns_per_tsc);

			perf_hist_record(&c->hist, ns);
			if (c->nconns > 1)
				perf_hist_record(&c->conns[slot->conn].hist, ns);
			c->measured++;
			c->rep_measured++;
			c->t_end = now;
			if (now - c->t_prev > c->stall_tsc)
				c->stalled += now - c->t_prev;
			c->t_prev = now;
			if (c->o->count && c->rep_measured == c->o->count)
				rep_end(c, now);
		}
	} else if (c->completed >= c->o->warmup) {
		/* measuring starts with the next reply */
		c->measuring = true;
		c->t_start = c->t_prev = now;
		c->t_end = now;
	}
	if (c->stopping || c->submitted >= c->target)
		return;
	ret = cli_submit(c, slot);
	if (ret) {
		c->errors++;
		if (c->first_error == 0)
			c->first_error = ret;
		c->stopping = true;
	}
}

static void cli_events(struct perf_cli *c)
{
	struct rpcrdma_pmd_event ev[4];
	int n = rpcrdma_pmd_event_poll(c->ep.base.dev, ev, 4);

	for (int i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
}

static int cli_poll(struct perf_cli *c)
{
	int w = 0;

	if (c->ep.grp != NULL)
		w = rpcrdma_xprt_group_poll(c->ep.grp);
	else
		w = rpcrdma_xprt_poll(c->conns[0].xprt);

	if (c->srv_inline)
		w += perf_srv_poll(c->srv_inline);
	return w;
}

/* A call of a program's setup or teardown waits here. */
static void cli_poll_all(void *arg)
{
	struct perf_cli *c = arg;

	cli_events(c);
	cli_poll(c);
}

static int cli_open(struct perf_cli *c, const struct perf_opts *o)
{
	struct rpcrdma_mempool_set_params sp;
	struct rpcrdma_xprt_params xp;
	uint32_t buf = o->size < 4096 ? 4096 : o->size, n = o->connections;
	/* the calls in flight on one connection, at most */
	uint32_t per = o->depth < n ? o->depth : (o->depth + n - 1) / n;
	bool slot_bufs = perf_op_has_payload(o->op) || o->op == OP_READDIR;
	int ret;

	c->nconns = n;
	c->conns = calloc(n, sizeof(*c->conns));
	c->conn_res = calloc(n, sizeof(*c->conn_res));
	if (c->conns == NULL || c->conn_res == NULL) {
		fprintf(stderr, PROG ": %u connections: %s\n", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		perf_hist_reset(&c->conns[i].hist);

	if (o->op == OP_READDIR && buf < PERF_LISTING_MAX)
		buf = PERF_LISTING_MAX;
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = "perf-c";
	sp.nb_classes = 1;
	sp.classes[0].size = (buf + 4095) & ~4095u;
	sp.classes[0].count = slot_bufs ? o->depth + 2 : 2;
	sp.cache_size = 0;
	if (n > 1) {
		/*
		 * each connection's call buffers and header areas (see below),
		 * the receives of the poll group the connections share
		 */
		uint32_t cs = rte_align32pow2(RTE_MAX(per, 8u)), bufs;

		/*
		 * (version 2's control slots are the group's: app_group_bufs());
		 * the group's shared call slots (2 * depth, below): a buffer
		 * each, their header areas two a buffer
		 */
		bufs = n * (cs + cs / 2 + 2) + app_group_bufs(n, o->depth) + 3 * o->depth + 1;
		if (bufs > sp.inline_count)
			sp.inline_count = bufs;
	}
	ret = app_ep_open(&c->ep.base, o->com.pmd, o->com.devargs, &sp);
	/* many connections: one poll group, polled once a turn (cli_poll()) */
	if (ret == 0 && n > 1)
		/* the call slots shared too: the calls in flight go round them, warm */
		ret = app_ep_group(&c->ep.base, n, o->depth, 2 * o->depth, &c->ep.grp);
	if (ret)
		return ret;
	c->chunk_pool = c->ep.base.pools->chunk[0];
	c->src = rpcrdma_mempool_get(c->chunk_pool);
	for (uint32_t i = 0; i < o->depth; i++) {
		c->slots[i].cli = c;
		c->slots[i].index = i;
		c->slots[i].conn = i % n;
		if (slot_bufs)
			c->bufs[i] = rpcrdma_mempool_get(c->chunk_pool);
	}
	perf_pattern_fill(c->src, sp.classes[0].size);
	c->env = (struct perf_prog_env){
		.pool = c->chunk_pool,
		.buf_size = sp.classes[0].size,
		.op = o->op,
		.size = o->size,
		.depth = o->depth,
		.timeout = o->timeout,
		.verify = o->verify,
		.quiet = o->quiet,
		.addr = o->addr,
		.pmd = o->com.pmd,
		.bufs = c->bufs,
		.poll = cli_poll_all,
		.poll_arg = c,
		.opts = &o->popts,
		.ctx = o->prog == &perf_prog_test ? c : NULL,
	};
	rpcrdma_xprt_params_init(&xp, RPCRDMA_XPRT_CLIENT);
	xp.vers = o->version;
	xp.send_inline = xp.recv_inline = o->inline_size ? o->inline_size
					  : o->version == RPCRDMA_VERS_2
						  ? RPCRDMA_V2_INLINE_DEFAULT
						  : RPCRDMA_V1_INLINE_DEFAULT;
	xp.dev = c->ep.base.dev;
	xp.pd = c->ep.base.pd;
	xp.pools = c->ep.base.pools;
	xp.max_credits = o->depth > 32 ? o->depth : 32;
	xp.max_calls = RTE_MAX(rte_align32pow2(o->depth), 64u);
	if (n > 1) {
		/* many connections: each sized for its share of the calls in flight */
		xp.max_credits = per > 8 ? per : 8;
		xp.max_calls = rte_align32pow2(xp.max_credits);
	}
	xp.reconnect_max = o->reconnect;
	xp.group = c->ep.grp;
	if (strcmp(o->com.pmd, "shm") != 0)
		xp.flags &= ~(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV);
	for (uint32_t i = 0; i < n; i++) {
		ret = rpcrdma_xprt_create(&xp, &c->conns[i].xprt);
		if (ret) {
			c->conns[i].xprt = NULL;
			fprintf(stderr, PROG ": client connection%s: %s\n",
				n > 1 ? " (one of --connections)" : "", strerror(-ret));
			break;
		}
	}
	c->ep.xprt = c->conns[0].xprt;
	c->env.xprt = c->ep.xprt;
	return ret;
}

static void cli_close(struct perf_cli *c)
{
	/* the first connection is ep.xprt: perf_ep_close() destroys it */
	for (uint32_t i = 1; c->conns && i < c->nconns; i++)
		if (c->conns[i].xprt && rpcrdma_xprt_destroy(c->conns[i].xprt) != 0)
			fprintf(stderr, PROG ": warning: a connection could not be destroyed\n");
	if (c->chunk_pool) {
		for (uint32_t i = 0; i < c->o->depth; i++)
			if (c->bufs[i])
				rpcrdma_mempool_put(c->chunk_pool, c->bufs[i]);
		if (c->src)
			rpcrdma_mempool_put(c->chunk_pool, c->src);
	}
	perf_ep_close(&c->ep);
	free(c->conns);
	c->conns = NULL; /* conn_res is the result's (r->conns), freed by main() */
}

/* Connect connection k (retry: while the server process starts). */
static int cli_connect_one(struct perf_cli *c, uint32_t k, const char *addr, bool retry)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_rdtsc() + (uint64_t)c->o->timeout * hz;
	struct rpcrdma_xprt *x = c->conns[k].xprt;
	int ret;

	for (;;) {
		ret = rpcrdma_xprt_connect(x, addr);
		if (ret == 0 && capture && retry) {
			/* a client alone: capture before its first receive is posted */
			struct rpcrdma_xprt_info info;

			rpcrdma_xprt_info(x, &info);
			ret = rpcrdma_capture_qp(capture, info.qp, NULL);
		}
		while (ret == 0 && rte_rdtsc() < end) {
			cli_events(c);
			cli_poll(c);
			if (rpcrdma_xprt_state(x) == RPCRDMA_XPRT_ESTABLISHED)
				return 0;
			if (rpcrdma_xprt_state(x) == RPCRDMA_XPRT_ERROR)
				ret = -ECONNREFUSED;
		}
		if (!retry || rte_rdtsc() >= end)
			break;
		usleep(20000); /* the server process is starting */
	}
	if (c->nconns > 1)
		fprintf(stderr, PROG ": cannot connect to %s: %s (connection %u of %u)\n", addr,
			ret ? strerror(-ret) : "timed out", k + 1, c->nconns);
	else
		fprintf(stderr, PROG ": cannot connect to %s: %s\n", addr,
			ret ? strerror(-ret) : "timed out");
	return ret ? ret : -ETIMEDOUT;
}

/* Every connection, one after the other; only the first waits for the server to start. */
static int cli_connect(struct perf_cli *c, const char *addr, bool retry)
{
	int ret = 0;

	for (uint32_t k = 0; k < c->nconns && ret == 0; k++)
		ret = cli_connect_one(c, k, addr, retry && k == 0);
	return ret;
}

/*
 * Version 2: the connection's first call is the probe that settles the
 * version (v2 draft 5); a NULL call, not measured, so that the run uses the
 * settled version's thresholds from its first call.
 */
static int cli_negotiate_one(struct perf_cli *c, struct rpcrdma_xprt *x, uint32_t *vers)
{
	uint64_t end = rte_rdtsc() + (uint64_t)c->o->timeout * rte_get_tsc_hz();
	struct rpcrdma_xprt_info info;
	struct rpcrdma_xprt_call *call;
	int ret;

	rpcrdma_xprt_info(x, &info);
	if (!info.vers_settled) {
		ret = rpcrdma_xprt_call_alloc(x, &call);
		if (ret)
			return ret;
		/* procedure 0 of every ONC RPC program is NULL */
		ret = rpcrdma_xprt_call_put_header(call, c->o->prog->prog, c->o->prog->vers, 0);
		rpcrdma_xprt_call_reply_spec(call)->max_len = RPC_REPLY_HDR;
		if (ret == 0)
			ret = rpcrdma_xprt_call_set_timeout(call,
							    (uint64_t)c->o->timeout * 1000000);
		if (ret == 0)
			ret = rpcrdma_xprt_call_submit(call, 0, NULL, NULL);
		if (ret) {
			rpcrdma_xprt_call_release(call);
			return ret;
		}
		while ((ret = rpcrdma_xprt_call_test(call, NULL)) == -EINPROGRESS &&
		       rte_rdtsc() < end) {
			cli_events(c);
			cli_poll(c);
		}
		if (ret == -EINPROGRESS)
			return -ETIMEDOUT; /* the call's own timeout comes first */
		rpcrdma_xprt_call_release(call);
		if (ret) {
			fprintf(stderr, PROG ": version negotiation: %s\n", strerror(-ret));
			return ret;
		}
		rpcrdma_xprt_info(x, &info);
	}
	*vers = info.vers;
	return 0;
}

/* Each connection settles its version; the run's is the first one's. */
static int cli_negotiate(struct perf_cli *c)
{
	uint32_t vers;
	int ret;

	for (uint32_t k = 0; k < c->nconns; k++) {
		ret = cli_negotiate_one(c, c->conns[k].xprt, &vers);
		if (ret)
			return ret;
		if (k == 0)
			c->vers = vers;
	}
	if (c->vers != c->o->version)
		fprintf(stderr,
			PROG ": warning: the server does not support version %u: "
			     "running in version %u\n",
			c->o->version, c->vers);
	return 0;
}

static void progress(struct perf_cli *c, double secs, uint64_t calls_then, double dt)
{
	double cps = (double)(c->measured - calls_then) / dt;

	fprintf(out, "%6.1f s  %12.0f calls/s  %10.1f MB/s  p50 %8.2f us  p99 %8.2f us\n", secs,
		cps, cps * c->o->size / 1e6, perf_hist_percentile(&c->hist, 50) / 1e3,
		perf_hist_percentile(&c->hist, 99) / 1e3);
	fflush(out);
}

/*
 * After no reply for --timeout: each connection with calls in flight, and
 * its rpcrdma_xprt_dump(), whose counters tell a call never sent (calls,
 * the QP's send WRs and doorbells), one the server never answered (compare
 * its "client N left after K calls") and a reply lost on its way back
 * (replies, receives).
 */
static void cli_stall_report(const struct perf_cli *c)
{
	for (uint32_t i = 0; i < c->nconns; i++) {
		if (c->conns[i].inflight == 0)
			continue;
		fprintf(stderr, PROG ": connection %u of %u: %u in flight\n", i + 1, c->nconns,
			c->conns[i].inflight);
		rpcrdma_xprt_dump(stderr, c->conns[i].xprt);
	}
}

/* Run the calls: depth in flight until the count or the duration is reached. */
static int cli_run(struct perf_cli *c)
{
	const struct perf_opts *o = c->o;
	uint64_t hz = rte_get_tsc_hz(), ms = hz / 1000, now, next_check, next_progress = 0;
	uint64_t calls_then = 0, progress_tsc = 0;
	bool tty = !o->quiet && isatty(fileno(out));
	struct rpcrdma_xprt_info info;
	uint32_t i;
	int ret;

	rpcrdma_xprt_info(c->ep.xprt, &info);
	/* READ replies inline when the data and the headers fit the threshold */
	c->read_inline = o->size + RPC_REPLY_HDR + 4 + 64 <= info.recv_inline;
	/* --count: exactly warmup + count * repeat calls, the last ones measured */
	c->target = o->count ? o->warmup + o->count * o->repeat : UINT64_MAX;
	perf_hist_reset(&c->hist);
	c->measuring = o->warmup == 0;
	c->stall_tsc = (uint64_t)(PERF_STALL_NS / ns_per_tsc);
	c->t_start = c->t_end = c->t_last_reply = c->t_prev = rte_rdtsc();
	for (i = 0; i < o->depth && c->submitted < c->target; i++) {
		ret = cli_submit(c, &c->slots[i]);
		if (ret) {
			fprintf(stderr, PROG ": submit: %s\n", strerror(-ret));
			c->stopping = true;
			break;
		}
	}
	next_check = rte_rdtsc() + ms;
	while (c->inflight > 0) {
		cli_poll(c);
		now = rte_rdtsc();
		if (now < next_check)
			continue;
		next_check = now + ms;
		cli_events(c);
		if (stop_signal && !c->stopping) {
			/* what was measured stands, marked: the repetition ends at its last reply */
			c->res->interrupted = true;
			if (c->measuring && c->rep_measured > 0)
				rep_end(c, c->t_end);
			c->stopping = true;
		}
		if (c->measuring && o->duration > 0 && !c->stopping &&
		    now - c->t_start >= (uint64_t)(o->duration * (double)hz)) {
			/*
			 * The window ends now, not at its last reply: a server
			 * preempted at the end would otherwise shorten it (and
			 * after the last repetition the replies still due drain
			 * unrecorded).
			 */
			rep_end(c, now);
		}
		/* a callback in cli_events() may have stamped a reply after now */
		if (now > c->t_last_reply && now - c->t_last_reply > (uint64_t)o->timeout * hz) {
			fprintf(stderr, PROG ": no reply for %u seconds (%u calls in flight)\n",
				o->timeout, c->inflight);
			cli_stall_report(c);
			return -ETIMEDOUT;
		}
		/* with --reconnect, the calls wait for the engine's reconnect, or fail */
		for (i = 0; o->reconnect == 0 && i < c->nconns; i++) {
			if (perf_xprt_gone(c->conns[i].xprt) && c->conns[i].inflight > 0) {
				if (c->nconns > 1)
					fprintf(stderr,
						PROG ": the connection is lost (connection %u of "
						     "%u)\n",
						i + 1, c->nconns);
				else
					fprintf(stderr, PROG ": the connection is lost\n");
				return -ECONNRESET;
			}
		}
		if (tty && c->measuring) {
			if (next_progress == 0) {
				next_progress = c->t_start + hz;
				progress_tsc = c->t_start;
			} else if (now >= next_progress) {
				progress(c, (double)(now - c->t_start) / (double)hz, calls_then,
					 (double)(now - progress_tsc) / (double)hz);
				calls_then = c->measured;
				progress_tsc = now;
				next_progress += hz;
			}
		}
	}
	if (c->errors) {
		fprintf(stderr, PROG ": %lu call(s) failed: %s\n", (unsigned long)c->errors,
			c->first_msg[0] ? c->first_msg : perf_prog_status_name(c->first_error));
		return c->first_error;
	}
	if (c->res->nrep == 0) {
		fprintf(stderr, PROG ": no call measured (the warm-up did not finish)\n");
		return -ENODATA;
	}
	return 0;
}

/* Disconnect, and wait until both ends are closed. */
static void cli_disconnect(struct perf_cli *c, struct perf_srv *srv)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_rdtsc() + (uint64_t)c->o->timeout * hz;

	uint32_t i;

	for (i = 0; i < c->nconns; i++)
		if (rpcrdma_xprt_state(c->conns[i].xprt) == RPCRDMA_XPRT_ESTABLISHED)
			rpcrdma_xprt_disconnect(c->conns[i].xprt);
	while (rte_rdtsc() < end) {
		cli_events(c);
		cli_poll(c);
		for (i = 0; i < c->nconns && perf_xprt_gone(c->conns[i].xprt); i++)
			;
		if (i == c->nconns &&
		    (srv == NULL || __atomic_load_n(&srv->done, __ATOMIC_ACQUIRE)))
			return;
	}
	fprintf(stderr, PROG ": warning: the connection did not close in %u seconds\n",
		c->o->timeout);
}

/* Is one of the connections established? */
static bool cli_established(const struct perf_cli *c)
{
	for (uint32_t i = 0; i < c->nconns; i++)
		if (rpcrdma_xprt_state(c->conns[i].xprt) == RPCRDMA_XPRT_ESTABLISHED)
			return true;
	return false;
}

/* Where the EAL runs: "lcore@cpu[+cpu...],..." */
static void lcores_str(char *buf, size_t len)
{
	unsigned int lc;
	size_t n = 0;

	buf[0] = '\0';
	RTE_LCORE_FOREACH(lc)
	{
		rte_cpuset_t cs = rte_lcore_cpuset(lc);
		const char *sep = "@";

		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%u", n ? "," : "", lc);
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &cs)) {
				n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%d", sep,
						      cpu);
				sep = "+";
			}
	}
}

/*
 * The connections' counters added up; max_outstanding too (each one's most
 * at once, not at the same time), then bounded by --depth, which it cannot
 * pass.
 */
static void cli_stats(const struct perf_cli *c, struct rpcrdma_xprt_stats *st)
{
	static_assert(sizeof(*st) % sizeof(uint64_t) == 0, "counters of 64 bits");
	uint64_t *sum = (uint64_t *)st;
	struct rpcrdma_xprt_stats one;

	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < c->nconns; i++) {
		const uint64_t *v = (const uint64_t *)&one;

		rpcrdma_xprt_stats(c->conns[i].xprt, &one);
		for (size_t k = 0; k < sizeof(*st) / sizeof(uint64_t); k++)
			sum[k] += v[k];
	}
	if (c->nconns > 1 && st->max_outstanding > c->o->depth)
		st->max_outstanding = c->o->depth;
}

/* The rest of the result (the repetitions are in it already), and its warnings. */
static void cli_result(struct perf_cli *c, struct perf_result *r)
{
	const struct perf_opts *o = c->o;
	uint64_t fewest = UINT64_MAX;
	double shortest = INFINITY;

	r->program = o->prog->name;
	r->mode = o->mode;
	r->op = o->op;
	r->pmd = o->com.pmd;
	r->role = o->role;
	r->version = c->vers;
	r->size = perf_op_has_payload(o->op) ? o->size : 0;
	r->depth = o->depth;
	r->errors = c->errors;
	r->repeat = o->repeat;
	cli_stats(c, &r->xst);
	r->nconns = c->nconns;
	r->conns = c->conn_res;
	for (unsigned int i = 0; c->nconns > 1 && i < c->nconns; i++) {
		const struct perf_hist *h = &c->conns[i].hist;

		c->conn_res[i] = (struct perf_conn_res){
			.calls = h->count,
			.p50 = h->count ? (uint64_t)perf_hist_percentile(h, 50) : 0,
			.p99 = h->count ? (uint64_t)perf_hist_percentile(h, 99) : 0,
			.max = h->count ? h->max : 0,
		};
	}
	r->hugepages = rpcrdma_mempool_eal_hugepages();
	r->capture = capture != NULL;
	r->tsc_hz = rte_get_tsc_hz();
	lcores_str(r->lcores, sizeof(r->lcores));
	for (unsigned int i = 0; i < r->nrep; i++) {
		if (r->rep[i].calls < fewest)
			fewest = r->rep[i].calls;
		if (r->rep[i].seconds < shortest)
			shortest = r->rep[i].seconds;
	}
	if (r->nrep && o->depth > 1 && fewest < 20ull * o->depth)
		perf_result_warn(r,
				 "%lu calls measured with %u in flight: calls/s is overstated "
				 "(timing starts with calls in flight); measure %u calls or more",
				 (unsigned long)fewest, o->depth, 20 * o->depth);
	if (r->nrep && shortest < 0.1)
		perf_result_warn(r,
				 "a window of %.3f s is too short for steady figures: measure 1 s "
				 "or more (--duration)",
				 shortest);
}

/* ------------------------------------------------------------ output */

/* The result as JSON in memory, read back as every result file is. */
static int result_parse(const struct perf_result *r, struct perf_json *j)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (f == NULL)
		return -errno;
	ret = perf_report_json(f, r, NULL, NULL);
	if (fclose(f) != 0 && ret == 0)
		ret = -EIO;
	if (ret == 0)
		ret = perf_report_parse(j, text, len, "the result");
	free(text);
	return ret;
}

/* --json: the result (with the comparison), or with --input the comparison alone. */
static int write_json(const char *file, const struct perf_result *r, const struct perf_cmp *cmp)
{
	FILE *f = strcmp(file, "-") == 0 ? stdout : fopen(file, "w");
	int ret = 0;

	if (f == NULL) {
		fprintf(stderr, PROG ": --json %s: %s\n", file, strerror(errno));
		return -errno;
	}
	if (r) {
		ret = perf_report_json(f, r, cmp ? perf_compare_json : NULL, cmp);
	} else {
		fprintf(f, "{\"compare\": ");
		perf_compare_json(f, cmp);
		fprintf(f, "}\n");
		ret = ferror(f) ? -EIO : 0;
	}
	if (f != stdout && fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret)
		fprintf(stderr, PROG ": --json %s: %s\n", file, strerror(-ret));
	return ret;
}

/* --hist: HdrHistogram's percentile distribution in microseconds, or CSV of buckets. */
static int write_hist(const char *file, const struct perf_hist *h)
{
	size_t n = strlen(file);
	FILE *f = fopen(file, "w");
	int ret;

	if (f == NULL) {
		fprintf(stderr, PROG ": --hist %s: %s\n", file, strerror(errno));
		return -errno;
	}
	if (n > 4 && strcmp(file + n - 4, ".csv") == 0)
		ret = perf_hist_write_csv(h, f);
	else
		ret = perf_hist_write_hdr(h, f, 1000, PERF_HDR_TICKS);
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret)
		fprintf(stderr, PROG ": --hist %s: %s\n", file, strerror(-ret));
	return ret;
}

/* --plot: the new result's distribution, and the old one's with --compare. */
static int plot(const struct perf_opts *o, const struct perf_json *cur, const char *cur_name)
{
	char title[256], new_title[PATH_MAX + 8], old_title[PATH_MAX + 8];
	int ret;

	snprintf(title, sizeof(title),
		 PROG " --mode %s --op %s --size %.0f --depth %.0f (%s): latency by percentile",
		 perf_json_str(cur, "mode"), perf_json_str(cur, "op"), perf_report_num(cur, "size"),
		 perf_report_num(cur, "depth"), perf_json_str(cur, "pmd"));
	snprintf(new_title, sizeof(new_title), "%s%s", o->compare ? "new: " : "", cur_name);
	snprintf(old_title, sizeof(old_title), "old: %s", o->compare ? o->compare : "");
	ret = perf_plot(o->plot, title, cur, new_title, o->compare ? &old_res : NULL, old_title);
	if (ret)
		fprintf(stderr, PROG ": --plot %s: %s\n", o->plot,
			ret == -ENODATA ? "no latency_distribution in a result"
			: ret == -EIO	? "gnuplot failed"
					: strerror(-ret));
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * --connections N, after the table: the spread of the calls measured per
 * connection in one line, or with --per-connection a line for each.
 */
static void conn_report(const struct perf_opts *o, const struct perf_result *r)
{
	uint64_t *calls;

	if (o->per_connection) {
		for (uint32_t i = 0; i < r->nconns; i++)
			fprintf(out,
				"connection %u: %lu calls, p50 %.2f us, p99 %.2f us, max %.2f us\n",
				i + 1, (unsigned long)r->conns[i].calls, r->conns[i].p50 / 1e3,
				r->conns[i].p99 / 1e3, r->conns[i].max / 1e3);
		return;
	}
	calls = malloc(r->nconns * sizeof(*calls));
	if (calls == NULL)
		return;
	for (uint32_t i = 0; i < r->nconns; i++)
		calls[i] = r->conns[i].calls;
	qsort(calls, r->nconns, sizeof(*calls), cmp_u64);
	fprintf(out,
		"%u connections: calls per connection min %lu, median %lu, max %lu "
		"(--per-connection for each)\n",
		r->nconns, (unsigned long)calls[0], (unsigned long)calls[r->nconns / 2],
		(unsigned long)calls[r->nconns - 1]);
	free(calls);
}

static int summary(const struct perf_opts *o)
{
	static struct perf_json j;
	int ret = 0;

	perf_report_table_header(out);
	for (int i = 0; i < o->nfiles; i++) {
		if (perf_report_load(&j, o->files[i], NULL) != 0) {
			ret = EXIT_FAIL;
			continue;
		}
		perf_report_table_rows(out, &j);
	}
	return ret;
}

/* --compare: the warnings, the report; EXIT_REGRESSION or 0. */
static int judge(const struct perf_opts *o, const struct perf_json *cur, const char *cur_name,
		 struct perf_cmp *cmp)
{
	perf_compare(&old_res, o->compare, cur, cur_name, o->threshold, o->alpha, cmp);
	perf_compare_warnings(stderr, cmp);
	perf_compare_print(out, cmp);
	return cmp->regression ? EXIT_REGRESSION : 0;
}

/* --compare OLD.json --input NEW.json: nothing runs. */
static int compare_files(const struct perf_opts *o)
{
	static struct perf_json cur;
	static struct perf_cmp cmp;
	int ret, status;

	if (perf_report_load(&cur, o->input, "--input") != 0)
		return EXIT_USAGE;
	status = judge(o, &cur, o->input, &cmp);
	ret = o->json ? write_json(o->json, NULL, &cmp) : 0;
	if (ret == 0 && o->plot)
		ret = plot(o, &cur, o->input);
	return ret ? EXIT_FAIL : status;
}
/* ------------------------------------------------------------ main */

/*
 * Without --lcores, a server or a client alone takes one CPU (app_one_cpu()),
 * so that the two on one host do not busy-poll the same core.
 */
static int eal_start(const struct perf_opts *o, const char *prog)
{
	const char *lcores = o->com.lcores;
	char cpu[256];

	if (lcores == NULL && o->role == ROLE_SERVER && o->pollers > 1)
		lcores = app_all_cpus(o->pollers, cpu, sizeof(cpu));
	else if (lcores == NULL && o->role != ROLE_BOTH)
		lcores = app_one_cpu(o->role == ROLE_SERVER, cpu, sizeof(cpu));
	return app_eal_start(prog, lcores, o->com.eal_argc, o->com.eal_argv);
}

/* The server's first line: where, how many, until when. */
static void srv_banner(const struct perf_opts *o)
{
	if (o->quiet)
		return;
	fprintf(out, PROG ": server on %s (%s PMD), up to %u connections", o->addr, o->com.pmd,
		o->max_conns);
	if (o->pollers > 1)
		fprintf(out, " on %u pollers", o->pollers);
	if (o->clients == 0)
		fprintf(out, "; until SIGINT or SIGTERM\n");
	else if (o->clients == 1)
		fprintf(out, "; exits when its client leaves\n");
	else
		fprintf(out, "; exits after %u connections\n", o->clients);
	fflush(out);
}

/*
 * The server's closing lines: the connections that did not close, each
 * poller's connections and calls (--pollers), every call and those answered
 * with an error, and what its connections held in memory.
 */
static void srv_report(const struct perf_opts *o, const struct perf_srv *s, uint32_t open)
{
	uint64_t calls, bad;

	if (open > 0)
		fprintf(stderr, PROG ": server: warning: %u connection(s) did not close\n", open);
	if (o->quiet)
		return;
	for (uint32_t k = 0; s->shards != NULL && k < s->nshards; k++)
		fprintf(out, PROG ": server: poller %u: %lu connections, %lu calls\n", k,
			(unsigned long)s->shards[k].accepted,
			(unsigned long)s->shards[k].glue.st.calls);
	perf_srv_counts(s, &calls, &bad);
	fprintf(out, PROG ": server: %lu calls, %lu answered with an error\n", (unsigned long)calls,
		(unsigned long)bad);
	app_conn_mem_report(out, PROG ": server", &s->mem);
}

/* --server --pollers N: the shards poll on the runtime's lcores; this one waits. */
static int run_server_pollers(const struct perf_opts *o)
{
	static struct perf_srv shards[RPCRDMA_RT_POLLERS_MAX];
	struct rpcrdma_rt *rt;
	uint32_t open;
	int ret;

	ret = perf_srv_pollers_open(shards, o->pollers, o, o->addr, &rt);
	if (ret)
		goto out;
	srv_banner(o);
	while (!stop_signal && !__atomic_load_n(&shards[0].done, __ATOMIC_ACQUIRE))
		rte_delay_us_sleep(1000);
	open = perf_srv_pollers_stop(shards, o->timeout);
	srv_report(o, &shards[0], open);
out:
	perf_srv_pollers_close(shards, o->pollers);
	return ret ? EXIT_FAIL : 0;
}

static int run_server(const struct perf_opts *o)
{
	static struct perf_srv srv;
	int ret;

	if (o->pollers > 1)
		return run_server_pollers(o);
	ret = perf_srv_open(&srv, o, o->addr, o->max_conns, capture);
	if (ret)
		goto err_open;
	srv_banner(o);
	while (!stop_signal && !srv.done)
		perf_srv_poll(&srv);
	/* the connections still open: close them, and wait for each to drain */
	perf_srv_disconnect(&srv);
	for (uint64_t end = rte_rdtsc() + (uint64_t)o->timeout * rte_get_tsc_hz();
	     srv.nconns > 0 && rte_rdtsc() < end;)
		perf_srv_poll(&srv);
	srv_report(o, &srv, srv.nconns);
	perf_srv_close(&srv);
	return 0;
err_open:
	perf_srv_close(&srv);
	return EXIT_FAIL;
}

/* In one process: the server's poll on a runtime poller lcore, or on ours with one lcore. */
static int srv_start(struct perf_srv *srv, struct perf_cli *cli, struct rpcrdma_rt **rtp)
{
	struct rpcrdma_rt_params rp;
	struct rpcrdma_rt *rt;
	int ret;

	*rtp = NULL;
	if (capture) {
		/* one capture is written by one thread: poll both ends here */
		cli->srv_inline = srv;
		return 0;
	}
	rpcrdma_rt_params_init(&rp);
	rp.name = "perf";
	rp.roles = "pollers=1,workers=0";
	if (rpcrdma_rt_create(&rp, &rt) != 0) {
		if (!cli->o->quiet)
			fprintf(stderr, PROG ": note: one lcore: the server is polled on the "
					     "client's lcore\n");
		cli->srv_inline = srv;
		return 0;
	}
	/* the dispatcher's counters go to the poller's slot */
	srv->glue.slot =
		(uint32_t)rte_lcore_index((int)rpcrdma_rt_poller_lcore(rpcrdma_rt_poller(rt, 0)));
	ret = rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt, 0), perf_srv_poll, srv);
	if (ret == 0)
		ret = rpcrdma_rt_start(rt);
	if (ret) {
		fprintf(stderr, PROG ": runtime: %s\n", strerror(-ret));
		rpcrdma_rt_free(rt);
		return ret;
	}
	*rtp = rt;
	rpcrdma_telemetry_rt_add(rt); /* lcore busy/idle cycles: /rpcrdma/lcores */
	return 0;
}

static int run_client(const struct perf_opts *o, struct perf_result *r)
{
	static struct perf_srv srv;
	static struct perf_cli cli;
	struct rpcrdma_rt *rt = NULL;
	bool inproc = o->role == ROLE_BOTH, set_up = false;
	char addr[96];
	int ret;

	memset(&cli, 0, sizeof(cli));
	cli.o = o;
	memset(r, 0, sizeof(*r));
	perf_hist_reset(&r->all);
	cli.res = r;
	if (o->addr)
		snprintf(addr, sizeof(addr), "%s", o->addr);
	else
		snprintf(addr, sizeof(addr), "@rpcrdma-perf-%d", getpid());
	if (inproc) {
		ret = perf_srv_open(&srv, o, addr, o->connections, capture);
		if (ret == 0)
			ret = srv_start(&srv, &cli, &rt);
		if (ret)
			goto err_srv;
	}
	ret = cli_open(&cli, o);
	if (ret)
		goto err_cli;
	ret = cli_connect(&cli, addr, o->role == ROLE_CLIENT);
	if (ret == 0 && capture && inproc) {
		/* both ends in this process: one connection in the capture */
		struct rpcrdma_xprt_info ci, si;

		rpcrdma_xprt_info(cli.ep.xprt, &ci);
		rpcrdma_xprt_info(srv.conns[0], &si);
		ret = rpcrdma_capture_qp(capture, ci.qp, si.qp);
		if (ret)
			fprintf(stderr, PROG ": --capture: %s\n", strerror(-ret));
	}
	/* after the capture starts: the version 2 probe is in it */
	if (ret == 0)
		ret = cli_negotiate(&cli);
	if (ret) {
		/* the connections made before one failed (--connections) close first */
		if (cli_established(&cli))
			cli_disconnect(&cli, inproc ? &srv : NULL);
		goto err_cli;
	}
	if (o->prog->setup) {
		ret = o->prog->setup(&cli.env);
		set_up = ret == 0;
	}
	if (ret) {
		cli_disconnect(&cli, inproc ? &srv : NULL);
		goto err_cli;
	}
	ret = cli_run(&cli);
	if (set_up && o->prog->teardown) {
		/* the calls still in flight of a failed run are given up */
		int t = o->prog->teardown(&cli.env, ret == 0);

		if (ret == 0)
			ret = t;
	}
	cli_result(&cli, r);
	if (o->reconnect) {
		struct rpcrdma_xprt_stats st;

		cli_stats(&cli, &st); /* every connection's reconnects */
		app_reconnects(&st, cli.nconns);
	}
	cli_disconnect(&cli, inproc ? &srv : NULL);
err_cli:
	if (rt) {
		rpcrdma_rt_stop(rt);
		rpcrdma_telemetry_rt_del(rt);
		rpcrdma_rt_free(rt);
	}
	cli_close(&cli);
	if (r->conns != cli.conn_res)
		free(cli.conn_res); /* not in a result: the run failed before it */
err_srv:
	if (inproc)
		perf_srv_close(&srv);
	return ret;
}

/* --capture: open the file (after the EAL), or write what is left and close it. */
static int capture_start(const struct perf_opts *o)
{
	int ret = rpcrdma_capture_open(o->capture, NULL, &capture);

	if (ret) {
		capture = NULL;
		fprintf(stderr, PROG ": --capture %s: %s\n", o->capture, strerror(-ret));
	}
	return ret;
}

static int capture_end(void)
{
	struct rpcrdma_capture_stats st;

	if (capture == NULL)
		return 0;
	rpcrdma_capture_flush(capture);
	rpcrdma_capture_stats(capture, &st);
	fprintf(stderr, PROG ": capture: %lu frames, %lu bytes, %lu drops, %lu untracked\n",
		(unsigned long)st.frames, (unsigned long)st.bytes, (unsigned long)st.drops,
		(unsigned long)st.untracked);
	if (rpcrdma_capture_close(capture) != 0) {
		fprintf(stderr, PROG ": --capture: write error, the file is incomplete\n");
		return -EIO;
	}
	capture = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	static struct perf_result r;
	static struct perf_json cur;
	static struct perf_cmp cmp;
	struct perf_opts o;
	int ret, status = 0;

	app_init(PROG); /* the name in app_common's messages */
	out = stdout;
	ret = perf_opts_parse(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	o.prog = o.program == PERF_PROGRAM_NFS3 ? &perf_prog_nfs3 : &perf_prog_test;
	if (o.json && strcmp(o.json, "-") == 0)
		out = stderr;
	if (o.summary)
		return summary(&o);
	ret = check_before_run(&o);
	if (ret)
		return ret;
	if (o.input)
		return compare_files(&o);

	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = eal_start(&o, argv[0]);
	if (ret)
		return ret;
	ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	if (o.capture && capture_start(&o) != 0) {
		rte_eal_cleanup();
		return EXIT_FAIL;
	}
	if (o.role == ROLE_SERVER) {
		ret = run_server(&o);
		if (capture_end() != 0)
			ret = EXIT_FAIL;
		rte_eal_cleanup();
		return ret;
	}
	ret = run_client(&o, &r);
	if (capture_end() != 0)
		ret = EXIT_FAIL;
	if (ret == 0)
		ret = result_parse(&r, &cur);
	rte_eal_cleanup();
	if (ret) {
		free(r.conns);
		return EXIT_FAIL;
	}
	for (unsigned int i = 0; i < r.nwarn; i++)
		fprintf(stderr, PROG ": warning: %s\n", r.warn[i]);
	if (!o.quiet) {
		perf_report_table_header(out);
		perf_report_table_rows(out, &cur);
		if (r.nconns > 1)
			conn_report(&o, &r);
	}
	if (o.compare)
		status = judge(&o, &cur, "this run", &cmp);
	if (o.json && write_json(o.json, &r, o.compare ? &cmp : NULL) != 0)
		ret = EXIT_FAIL;
	if (o.hist && write_hist(o.hist, &r.all) != 0)
		ret = EXIT_FAIL;
	if (o.plot && plot(&o, &cur, "this run") != 0)
		ret = EXIT_FAIL;
	free(r.conns);
	return ret ? ret : status;
}
