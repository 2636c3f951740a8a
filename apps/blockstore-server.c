/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blockstore-server: an example storage service on RPC-over-RDMA, written
 * as the template a storage-appliance developer starts from. It serves the
 * block store program (blockstore_proto.h) from a memory-backed device.
 *
 * Reading guide, top to bottom:
 *
 *   1. the store: one area of registered memory (--size bytes);
 *   2. the procedures: a decoder, a handler and an encoder each, in one
 *      table registered with the RPC dispatcher (rpcrdma_svc.h);
 *        READ   copies the range into a registered chunk-pool buffer and
 *               encodes it with rpcrdma_xdr_put_ddp(): the engine RDMA-Writes
 *               it straight into the client's write chunk, and gives the
 *               buffer back through the reply_done hook once the Write is
 *               done;
 *        WRITE  finds the data where the engine's RDMA Read put it (a
 *               chunk-pool buffer, or the receive buffer when it came
 *               inline) and copies it once, into the store;
 *        SUBSCRIBE  marks the connection as one that takes NOTIFY
 *               callbacks, and answers once the server can make them;
 *   3. notifications: after each WRITE, a CB_NOTIFY backward call (RFC
 *      8167) to every other subscribed connection, made with the
 *      requester API on the server's own connection;
 *   4. connections: the engine (rpcrdma_xprt.h) accepts clients, and the
 *      ready-made glue (rpcrdma_xprt_svc.h) runs the dispatcher on every
 *      call and sends the reply; the dispatcher's duplicate request cache
 *      answers a WRITE or SUBSCRIBE the client sent again (after a lost
 *      connection) from its reply, without running it twice;
 *   5. main: options, EAL, device, pools, the poll loop (or the lcore
 *      runtime with --workers), clean shut-down.
 *
 * By default one lcore polls everything and runs every handler (run to
 * completion): no locks anywhere. With --workers N, the lcore runtime
 * (rpcrdma_rt.h) polls the connections on one poller lcore and the glue
 * hands each decoded call through a ring to one of N worker lcores, which
 * runs the handler; the reply goes back through a ring to the poller, which
 * sends it (rpcrdma_xprt_svc_set_rt()). Handlers then run on several lcores
 * at once: the counters they share take relaxed atomic adds (a server at
 * scale keeps them per lcore, as the dispatcher does), and overlapping I/O
 * in flight at once has no defined order, as on a disk.
 *
 * What touches a connection (the engine) runs on the lcore that polls it,
 * in both modes, never in a handler: SUBSCRIBE's handler hands its request
 * to the poll loop through a ring, and a WRITE's notification is queued
 * by the glue's reply_done hook, which runs on that lcore; the poll loop
 * answers the one and sends the other between two polls (see
 * "notifications").
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "app_common.h"
#include "blockstore_proto.h"

#define PROG		 "blockstore-server"
#define BS_CONN_DEFAULT	 64   /* --max-connections: clients served at once */
#define BS_CONN_LIMIT	 1024 /* its largest value */
#define BS_CONN_INLINE	 128  /* inline buffers a connection of its own holds, about */
#define BS_SHARE_MIN	 16   /* receives of each connection, the server full (srv_recvs()) */
#define BS_SIZE_MAX	 (1ull << 30) /* --size: one pool buffer holds the store */
#define BS_CREDITS	 32	      /* calls each client may have outstanding */
#define BS_CLOSE_WAIT	 5	      /* seconds to drain the connections at exit */
#define BS_IDLE_SLEEP	 100	      /* us slept per loop once idle (see poll_loop) */
#define BS_IDLE_CYCLES	 100	      /* ms without work before sleeping */
#define BS_CAPTURE_LARGE 256	      /* --capture: 64 KiB frames in flight (16 MiB) */
#define BS_MAIN_SLEEP	 10000	      /* us the main lcore sleeps per check with --workers */
#define BS_BK_CREDITS	 8	      /* NOTIFY calls outstanding per client, at most */
#define BS_NOTIFY_QUEUE	 512	      /* WRITEs waiting to be notified (a power of two) */
#define BS_NOTIFY_TMO_S	 5	      /* --notify-timeout: seconds a NOTIFY waits, default */
#define BS_NOTIFY_MAX_S	 3600	      /* its largest value */
#define RPC_REPLY_HDR	 24	      /* xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS */

/* A counter or flag shared by the lcores (handlers on workers, the poller, main). */
#define BS_ADD(p, n) __atomic_fetch_add((p), (n), __ATOMIC_RELAXED)
#define BS_SUB(p, n) __atomic_fetch_sub((p), (n), __ATOMIC_RELAXED)
#define BS_GET(p)    __atomic_load_n((p), __ATOMIC_RELAXED)

static const char help_text[] =
	"NAME\n"
	"    " PROG " - an example block store served over RPC-over-RDMA\n"
	"\n"
	"SYNOPSIS\n"
	"    " PROG " --listen ADDRESS [--size BYTES] [--block-size BYTES] [--once]\n"
	"        [--workers N] [--drc-entries N] [--max-connections N]\n"
	"        [--notify-timeout SECONDS] [--capture FILE.pcapng] [--pmd shm|verbs]\n"
	"        [--devargs ARGS] [--lcores LIST] [--quiet] [-- EAL ARGS]\n"
	"\n"
	"DESCRIPTION\n"
	"    Serves one memory-backed device to block store clients\n"
	"    (blockstore-client) with the RPC program 0x2000b10c version 1:\n"
	"    NULL, GETATTR (size, block size, counters), READ (data returned\n"
	"    through the client's write chunk by RDMA Write), WRITE (data\n"
	"    pulled from the client's read chunk by RDMA Read) and SUBSCRIBE. A\n"
	"    READ or WRITE beyond the end of the device is answered with\n"
	"    BS_ERR_RANGE.\n"
	"\n"
	"    Up to --max-connections clients (default 64) are served at once, all\n"
	"    polled by one lcore through one poll group (one completion queue and\n"
	"    one shared receive queue); after 100 ms without work the loop sleeps\n"
	"    100 us per turn. The procedures run on that lcore too, unless --workers\n"
	"    moves them to worker lcores.\n"
	"\n"
	"    The server runs until SIGINT or SIGTERM (or, with --once, until its\n"
	"    first client disconnects), then closes every connection and prints\n"
	"    its counters, and the resident memory its connections took: with the\n"
	"    first and with the most at once, and per connection between.\n"
	"\n"
	"    A client that called SUBSCRIBE serves the callback program\n"
	"    0x2000b10d version 1 on its connection: after every successful WRITE\n"
	"    of another client the server sends it a NOTIFY (offset, count, and\n"
	"    the server's write counter) as a backward-direction call (RFC 8167),\n"
	"    never to the writer itself. At most 8 NOTIFYs are outstanding per\n"
	"    client; one that finds all 8 busy is skipped and counted. NOTIFYs are\n"
	"    sent by the lcore that polls the connections, also with --workers.\n"
	"    A NOTIFY not answered within --notify-timeout fails; so do those\n"
	"    waiting behind it for the client's backward credit, which are never\n"
	"    sent.\n"
	"    The summary at exit counts the NOTIFYs sent, answered, failed and\n"
	"    skipped.\n"
	"\n"
	"    WRITE and SUBSCRIBE must not run twice for one call: a client that\n"
	"    loses its connection sends its unanswered calls again, with the same\n"
	"    XIDs, on the next one, and the first copy may have run. A duplicate\n"
	"    request cache remembers the replies of the last --drc-entries such\n"
	"    calls (by XID, procedure, and the length and first 256 bytes of the\n"
	"    arguments): a copy of a call already answered gets the same reply\n"
	"    again without running, and a copy of one still running is dropped.\n"
	"    A WRITE's copy counts once in GETATTR and is notified once. A\n"
	"    SUBSCRIBE's cached reply holds on its own connection only (the\n"
	"    subscription ends with it): on a new one SUBSCRIBE runs again. The\n"
	"    summary at exit counts the cache's hits, misses, copies dropped in\n"
	"    progress, evictions and replies stored.\n"
	"\n"
	"OPTIONS\n"
	"    --listen ADDRESS\n"
	"        Where to listen (shm PMD: a UNIX socket path, or @name in the\n"
	"        abstract namespace; verbs PMD: IP[:PORT]). Required.\n"
	"    --size BYTES\n"
	"        Device size, 4096..1g, a multiple of the block size; suffixes\n"
	"        k, m, g (default 64m). Zero-filled at start.\n"
	"    --block-size BYTES\n"
	"        The preferred I/O unit GETATTR reports, a power of two,\n"
	"        512..65536 (default 4096). I/O need not be aligned to it.\n"
	"    --once\n"
	"        Exit after the first client disconnects (for tests and scripts).\n"
	"    --max-connections N\n"
	"        Clients served at once, 1..1024 (default 64). One more is refused\n"
	"        (its connect request rejected) with a line on stderr; a client\n"
	"        whose connection cannot get its buffers is refused too. The\n"
	"        clients share 16 receives a connection (256 to 4096), each\n"
	"        granted an equal part, 32 credits at most. The pools grow with\n"
	"        N: per connection about 330 KiB of inline buffers (200 KiB at\n"
	"        1024; 512 KiB with --capture, whose connections have receive\n"
	"        queues of their own) and 128 KiB of 64 KiB chunk buffers. Each\n"
	"        client that arrives and leaves is said on stdout (unless\n"
	"        --quiet), with the connections open now and, on leaving, the\n"
	"        calls it made.\n"
	"    --workers N\n"
	"        Run the procedures on N worker lcores, 0..16 (default 0: each call\n"
	"        runs to completion on the lcore that polls the connections). With\n"
	"        N > 0 a poller lcore polls the connections and hands each decoded\n"
	"        call through a ring to the worker with the fewest of its calls in\n"
	"        flight; the worker runs the procedure and hands the reply back to\n"
	"        the poller, which sends it. A slow call then holds up one worker,\n"
	"        not the connections. Needs N + 2 EAL lcores (the main lcore only\n"
	"        waits); the workers busy-poll their rings. Default lcores: the\n"
	"        main lcore and the poller on the last CPU, the workers on every\n"
	"        other CPU this process may run on.\n"
	"    --drc-entries N\n"
	"        Calls the duplicate request cache remembers, 0..1048576 (default\n"
	"        1024; 0: no cache, a WRITE sent twice runs twice). Each entry\n"
	"        takes about 128 bytes.\n"
	"    --notify-timeout SECONDS\n"
	"        How long a NOTIFY waits for its answer from the time the WRITE\n"
	"        is done, 1..3600 (default 5), whether it waits on the wire or\n"
	"        for the client's backward credit. A client that stops reading\n"
	"        its connection (stopped, or debugged) for longer misses the\n"
	"        NOTIFYs of that time.\n"
	"    --capture FILE.pcapng\n"
	"        Record every connection's traffic as RoCEv2 packets (Wireshark,\n"
	"        rpcrdma-decode --pcap), from the moment each connection's queue\n"
	"        pair is created, so every message is in it.\n"
	"        Capturing copies every payload: it slows the server down.\n"
	"    --pmd shm|verbs\n"
	"        The transport (default shm).\n"
	"    --devargs ARGS\n"
	"        PMD device arguments (\"key=value,...\"; see the README).\n"
	"    --lcores LIST\n"
	"        The EAL lcore to poll on (\"-l\" syntax; default the last CPU this\n"
	"        process may run on, so that a client on the same host, on the\n"
	"        first CPU by default, does not share its core). With --workers,\n"
	"        the lcores for the main lcore, the poller and the workers: a \"-l\"\n"
	"        list of N + 2 CPUs, or an EAL --lcores map (\"(0-3)@(0,1)\").\n"
	"    --quiet\n"
	"        Print only errors.\n" APP_HELP_TAIL "\n"
	"EXIT STATUS\n"
	"    0 served and shut down cleanly; 1 set-up failed; 2 bad options.\n"
	"\n"
	"EXAMPLE\n"
	"    " PROG " --listen @bs --size 16m &\n"
	"    blockstore-client --connect @bs --getattr --verify 100\n"
	"    " PROG " --listen @bs --workers 2 &\n";

struct bs_opts {
	struct app_opts com; /* --pmd, --devargs, --lcores, EAL arguments */
	const char *listen;
	const char *capture;
	uint64_t size;
	uint32_t block_size;
	uint32_t workers;
	uint32_t drc_entries; /* 0: no duplicate request cache */
	uint32_t max_conns;   /* --max-connections: the size of the arrays of connections */
	uint32_t notify_tmo_s;
	bool once, quiet;
};

/* A WRITE to notify: queued by the reply_done hook, sent by the poll loop (the poller's). */
struct bs_notify_rec {
	const struct rpcrdma_xprt *writer; /* not notified; only compared, never used */
	struct bs_notify n;
};

/* NOTIFY counters, the poller's. At exit sent == answered + failed. */
struct bs_notify_stats {
	uint64_t sent;	   /* backward calls submitted */
	uint64_t answered; /* ... and answered SUCCESS */
	uint64_t failed;   /* ... and failed: no reply in time, connection lost, RPC error */
	uint64_t skipped;  /* not sent: every backward slot of the connection busy, no buffer */
};

/* ------------------------------------------------------------ the store */

/*
 * The device: --size bytes in one buffer of a registered pool (one memfd
 * on hugepages when the machine has them, registered with the PD once).
 * Registered so that a service that serialises overlapping I/O could send
 * READ data straight from here (rpcrdma_xdr_put_ddp() of store + offset with
 * the store's lkey). This template copies into a chunk buffer instead: a
 * reply is then a snapshot that a later WRITE cannot tear while the NIC is
 * still writing it to the client.
 */
struct bs_server {
	struct bs_opts o;
	struct app_ep ep;
	struct app_conn_mem mem; /* what the connections hold (the summary) */
	struct rpcrdma_mempool *store_pool;
	uint8_t *store;
	struct bs_attr attr; /* size, block size and the counters GETATTR returns */
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_svc_registry *reg;
	struct rpcrdma_svc_drc *drc; /* the registry's duplicate request cache, or NULL */
	struct rpcrdma_xprt_svc glue;
	struct rpcrdma_xprt_params params;
	/* the connections: o.max_conns slots each, allocated at start; NULL: a free slot */
	struct rpcrdma_xprt **conns;
	struct rpcrdma_xprt_group *grp; /* every connection's; NULL with --capture */
	bool *subscribed;		/* conns[i] called SUBSCRIBE (the poller's) */
	uint64_t *conn_seq;		/* conns[i]'s number among the accepted (the poller's) */
	uint32_t nconns;		/* slots in use (the poller's) */
	/* SUBSCRIBEs to answer: from the handlers (any lcore) to the poller, then per connection */
	struct rte_ring *sub_ring;
	struct rpcrdma_svc_req **sub_wait; /* conns[i]'s, waiting for ESTABLISHED */
	/* WRITEs to notify, a FIFO of the poller's: the hook adds at head, the loop takes at tail */
	struct bs_notify_rec nq[BS_NOTIFY_QUEUE];
	uint32_t nq_head, nq_tail;
	struct bs_notify_stats nst;
	struct rpcrdma_capture *cap;
	struct rpcrdma_rt *rt; /* --workers: the lcore runtime */
	uint64_t accepted;
	uint64_t closed;	     /* read by main with --workers (BS_GET) */
	uint32_t reads_out;	     /* READ bounce buffers not back yet (BS_ADD, BS_SUB) */
	bool closing;		     /* shutting down: new clients are refused (set by main) */
	bool disconnected;	     /* the poller has disconnected every client */
	bool drained;		     /* --workers: the poller saw every connection closed */
	uint64_t next_ev, last_work; /* the loop's event and idle clocks (TSC) */
};

static struct bs_server server;
static volatile sig_atomic_t stop_signal;

/* The range [offset, offset + count) lies in the device: no overflow possible. */
static bool in_device(const struct bs_server *s, uint64_t offset, uint32_t count)
{
	return offset <= s->attr.size && count <= s->attr.size - offset;
}

/* ------------------------------------------------------------ procedures */

/*
 * Decoders turn the call's XDR stream into an argument struct; any error
 * (or bytes left over) makes the dispatcher answer GARBAGE_ARGS.
 */
static int dec_read(struct rpcrdma_xdr_dec *d, void *args)
{
	return bs_dec_end(d, bs_get_read_args(d, args));
}

static int dec_write(struct rpcrdma_xdr_dec *d, void *args)
{
	/* data<BS_MAX_IO>: a longer item is refused here, before anything is copied */
	return bs_dec_end(d, bs_get_write_args(d, args));
}

/* GETATTR: the device's size and the counters (each read whole: workers may add). */
static int h_getattr(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct bs_server *s = req->prog_ctx;
	struct bs_attr *a = res;

	a->size = s->attr.size;
	a->block_size = s->attr.block_size;
	a->max_io = s->attr.max_io;
	a->reads = BS_GET(&s->attr.reads);
	a->writes = BS_GET(&s->attr.writes);
	a->bytes_read = BS_GET(&s->attr.bytes_read);
	a->bytes_written = BS_GET(&s->attr.bytes_written);
	a->errors = BS_GET(&s->attr.errors);
	return RPCRDMA_SVC_OK;
}

static int enc_getattr(struct rpcrdma_xdr_enc *e, const void *res)
{
	return bs_put_attr(e, res);
}

/* READ's result: the status, and the chunk buffer holding the data. */
struct bs_read_res {
	uint32_t status;
	uint32_t count;
	void *buf;
	struct rpcrdma_mempool *pool;
};

static int h_read(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct bs_server *s = req->prog_ctx;
	const struct bs_read_args *a = args;
	struct bs_read_res *r = res;

	if (a->count > BS_MAX_IO)
		r->status = BS_ERR_TOOBIG;
	else if (!in_device(s, a->offset, a->count))
		r->status = BS_ERR_RANGE;
	if (r->status != BS_OK) {
		BS_ADD(&s->attr.errors, 1);
		return RPCRDMA_SVC_OK; /* an error status is a result, not an RPC error */
	}
	if (a->count > 0) {
		/* a registered buffer of the smallest size class that holds count */
		r->pool = rpcrdma_mempool_set_chunk_pool(s->ep.pools, a->count);
		r->buf = rpcrdma_mempool_get(r->pool);
		if (r->buf == NULL) {
			r->status = BS_ERR_BUSY;
			BS_ADD(&s->attr.errors, 1);
			return RPCRDMA_SVC_OK;
		}
		BS_ADD(&s->reads_out, 1);
		memcpy(r->buf, s->store + a->offset, a->count);
	}
	r->count = a->count;
	BS_ADD(&s->attr.reads, 1);
	BS_ADD(&s->attr.bytes_read, a->count);
	return RPCRDMA_SVC_OK;
}

static int enc_read(struct rpcrdma_xdr_enc *e, const void *res)
{
	const struct bs_read_res *r = res;
	struct rpcrdma_xdr_region data = { 0 };

	/*
	 * DDP-eligible: only the length word goes into the reply; the engine
	 * RDMA-Writes the buffer into the client's write chunk (or sends it
	 * inline, gathered by the Send, when the client offered none).
	 */
	if (r->buf != NULL)
		data = rpcrdma_xdr_region_va(r->buf, r->count, r->pool->lkey, r->pool->rkey);
	return bs_put_read_res(e, r->status, &data);
}

/* READ's reply is gone: its buffer is free again. */
static void read_done(struct bs_server *s, struct rpcrdma_svc_req *req)
{
	struct bs_read_res *r = rpcrdma_svc_req_res(req);

	if (r->buf == NULL)
		return;
	rpcrdma_mempool_put(r->pool, r->buf);
	r->buf = NULL;
	BS_SUB(&s->reads_out, 1);
}

/*
 * WRITE's result, and what the notification needs. notify is set by the
 * handler once the store has changed (the dispatcher zeroes the struct
 * before the decoder, so a WRITE answered GARBAGE_ARGS has it false).
 */
struct bs_write_out {
	struct bs_write_res res;
	bool notify;
	uint64_t offset;
	uint64_t seq; /* attr.writes after this one */
};

static int h_write(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct bs_server *s = req->prog_ctx;
	const struct bs_write_args *a = args;
	struct bs_write_out *w = res;

	if (!in_device(s, a->offset, a->count)) {
		w->res.status = BS_ERR_RANGE;
		BS_ADD(&s->attr.errors, 1);
		return RPCRDMA_SVC_OK;
	}
	/*
	 * a->data is where the data landed: the chunk buffer the engine RDMA-
	 * Read it into, or the receive buffer for a small WRITE sent inline.
	 * The one copy of the WRITE path is this one, into the store.
	 */
	if (a->count > 0)
		memcpy(s->store + a->offset, a->data, a->count);
	w->res.status = BS_OK;
	w->res.count = a->count;
	w->notify = true;
	w->offset = a->offset;
	w->seq = BS_ADD(&s->attr.writes, 1) + 1;
	BS_ADD(&s->attr.bytes_written, a->count);
	return RPCRDMA_SVC_OK;
}

static int enc_write(struct rpcrdma_xdr_enc *e, const void *res)
{
	const struct bs_write_out *w = res;

	return bs_put_write_res(e, &w->res);
}

/*
 * SUBSCRIBE: the client serves the callback program. What that does to
 * the connection (the engine's) is the poller's to do, and the answer
 * waits until NOTIFYs can go (subscribe_poll()): the handler, maybe on a
 * worker, hands the request to the poller through a ring and leaves it
 * pending; the poller completes it (rpcrdma_xprt_svc_complete()), which
 * the glue allows before the handler's lcore has handed the call back.
 */
static int h_subscribe(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct bs_server *s = req->prog_ctx;

	*(uint32_t *)res = BS_OK;
	/* the ring's enqueue publishes the result to the poller (release) */
	if (rte_ring_mp_enqueue(s->sub_ring, req) != 0) {
		*(uint32_t *)res = BS_ERR_BUSY; /* not expected: the ring holds every call */
		return RPCRDMA_SVC_OK;
	}
	return RPCRDMA_SVC_PENDING;
}

static int enc_stat(struct rpcrdma_xdr_enc *e, const void *res)
{
	return bs_put_stat(e, *(const uint32_t *)res);
}

/* ------------------------------------------------------------ notifications */

/*
 * After each successful WRITE, every other subscribed connection gets a
 * CB_NOTIFY: a backward-direction call (RFC 8167) that the server makes
 * on its own connection with the requester API, as a client makes its
 * calls. The engine owns a connection on the lcore that polls it, so the
 * handler (maybe on a worker) only fills bs_write_out; the reply_done hook
 * (on the poller) queues the WRITE in s->nq, and the poll loop sends the
 * queued NOTIFYs between two polls (notify_drain()), outside the engine's
 * callbacks.
 *
 * The client's backward credits bound the NOTIFYs on the wire; beyond
 * them the engine queues calls on its BS_BK_CREDITS slots, and a NOTIFY
 * that finds every slot busy is skipped, never waited for: the poll loop
 * must not block on one slow client.
 */

/* The connection a call came on: its index in conns[], or -1. */
static int conn_index(const struct bs_server *s, struct rpcrdma_svc_req *req)
{
	const struct rpcrdma_xprt *x = rpcrdma_xprt_svc_call_xprt(req->done_arg);

	for (int i = 0; i < (int)s->o.max_conns; i++)
		if (s->conns[i] == x)
			return i;
	return -1;
}

/* Will the connection conns[i] be notified of a WRITE by writer? */
static bool notify_target(const struct bs_server *s, int i, const struct rpcrdma_xprt *writer)
{
	/* subscribed, and still up (bc_may_call(): established and said ready) */
	return s->conns[i] != NULL && s->conns[i] != writer && s->subscribed[i] &&
	       rpcrdma_xprt_bc_may_call(s->conns[i]) == 0;
}

/*
 * Answer SUBSCRIBE on conns[i] when it can be: 1 answered, 0 not yet.
 *
 * In version 1 the engine refuses backward calls until the upper layer
 * says the client is ready for them (as NFSv4.1's CREATE_SESSION does):
 * SUBSCRIBE is that statement. A server connection receives and answers
 * calls before the connection manager has told it ESTABLISHED, but makes
 * backward calls only from then on (rpcrdma_xprt_bc_may_call()); a client
 * answered BS_OK must miss no NOTIFY, so the answer waits for it. A
 * connection that goes away instead has the answer dropped by the engine.
 */
static int subscribe_answer(struct bs_server *s, int i, struct rpcrdma_svc_req *req)
{
	struct rpcrdma_xprt *x = s->conns[i];
	enum rpcrdma_xprt_state st = rpcrdma_xprt_state(x);

	if (rpcrdma_xprt_bc_set_ready(x, true) != 0) {
		/* only a connection made without bk_credits: not this server's */
		rpcrdma_xprt_svc_complete(req, -EOPNOTSUPP); /* SYSTEM_ERR */
		return 1;
	}
	if (st == RPCRDMA_XPRT_CONNECTING || st == RPCRDMA_XPRT_NEGOTIATING)
		return 0;
	if (st != RPCRDMA_XPRT_ESTABLISHED) {
		/* going away: the engine drops the answer */
		rpcrdma_xprt_svc_complete(req, RPCRDMA_SVC_OK);
		return 1;
	}
	if (rpcrdma_xprt_bc_may_call(x) != 0) {
		/* a version 2 client that said it serves no backward calls (not this server's) */
		rpcrdma_xprt_svc_complete(req, -EOPNOTSUPP);
		return 1;
	}
	s->subscribed[i] = true; /* before the answer: the next WRITE is notified */
	rpcrdma_xprt_svc_complete(req, RPCRDMA_SVC_OK);
	return 1;
}

/*
 * The poller's side of SUBSCRIBE: take what the handlers handed over,
 * answer each when its connection can take NOTIFYs, and keep the others
 * (one per connection; a second one meanwhile is answered BS_ERR_BUSY).
 */
static int subscribe_poll(struct bs_server *s)
{
	struct rpcrdma_svc_req *req;
	int i, n = 0;

	while (rte_ring_sc_dequeue(s->sub_ring, (void **)&req) == 0) {
		n++;
		i = conn_index(s, req);
		if (i < 0) {
			/* not expected: a connection is destroyed only once its calls are done */
			rpcrdma_xprt_svc_complete(req, -ENOTCONN);
		} else if (s->sub_wait[i] != NULL) {
			*(uint32_t *)rpcrdma_svc_req_res(req) = BS_ERR_BUSY;
			rpcrdma_xprt_svc_complete(req, RPCRDMA_SVC_OK);
		} else if (subscribe_answer(s, i, req) == 0) {
			s->sub_wait[i] = req;
		}
	}
	for (i = 0; i < (int)s->o.max_conns; i++) {
		if (s->sub_wait[i] != NULL && subscribe_answer(s, i, s->sub_wait[i]) == 1) {
			s->sub_wait[i] = NULL;
			n++;
		}
	}
	return n;
}

/* WRITE's reply is gone (sent or not: the store has changed): queue its notification. */
static void write_done(struct bs_server *s, struct rpcrdma_svc_req *req)
{
	const struct bs_write_out *w = rpcrdma_svc_req_res(req);
	const struct rpcrdma_xprt *writer = rpcrdma_xprt_svc_call_xprt(req->done_arg);
	struct bs_notify_rec *r;

	if (!w->notify)
		return;
	if (s->nq_head - s->nq_tail == BS_NOTIFY_QUEUE) {
		/* more WRITEs done between two drains than calls can be in flight: not expected */
		for (int i = 0; i < (int)s->o.max_conns; i++)
			s->nst.skipped += notify_target(s, i, writer);
		return;
	}
	r = &s->nq[s->nq_head++ & (BS_NOTIFY_QUEUE - 1)];
	r->writer = writer;
	r->n.offset = w->offset;
	r->n.count = w->res.count;
	r->n.seq = w->seq;
}

/*
 * The reply of a call was sent (status 0) or never will be (negative).
 * Every call that reached a procedure comes here, on the lcore that polls
 * its connection, also when the connection was lost.
 */
static void reply_done(void *arg, struct rpcrdma_svc_req *req, int status)
{
	struct bs_server *s = arg;

	switch (req->call->call.proc) {
	case BS_PROC_READ:
		read_done(s, req);
		break;
	case BS_PROC_WRITE:
		write_done(s, req);
		break;
	default:
		break;
	}
}

/* A NOTIFY completed: answered (a void SUCCESS reply), or not. */
static void notify_done(void *arg, struct rpcrdma_xprt_call *call, int status,
			struct rpcrdma_xdr_dec *reply)
{
	struct bs_server *s = arg;
	struct rpcrdma_rpc_msg m;

	if (status == 0 && rpcrdma_xprt_reply_rpc(reply, rpcrdma_xprt_call_xid(call), &m) == 0 &&
	    rpcrdma_xdr_dec_left(reply) == 0)
		s->nst.answered++;
	else
		s->nst.failed++;
	rpcrdma_xprt_call_release(call);
}

/* One CB_NOTIFY on connection x: a backward call, as bs_call() of the client makes one. */
static void notify_one(struct bs_server *s, struct rpcrdma_xprt *x, const struct bs_notify *n)
{
	struct rpcrdma_xprt_call *call;
	int ret;

	/* -EBUSY: BS_BK_CREDITS NOTIFYs already out; -ENOBUFS: no inline buffer */
	if (rpcrdma_xprt_call_alloc(x, &call) != 0) {
		s->nst.skipped++;
		return;
	}
	ret = rpcrdma_xprt_call_put_header(call, BLOCKSTORE_CB_PROG, BLOCKSTORE_CB_V1,
					   BS_CB_NOTIFY);
	if (ret == 0)
		ret = bs_put_notify(rpcrdma_xprt_call_enc(call), n);
	if (ret == 0) {
		/* a void result; room for PROG_MISMATCH's low and high too, to see it */
		rpcrdma_xprt_call_reply_spec(call)->max_len = RPC_REPLY_HDR + 8;
		ret = rpcrdma_xprt_call_set_timeout(call, (uint64_t)s->o.notify_tmo_s * 1000000);
	}
	/* a call refused at once (the connection going) completes here, in notify_done() */
	if (ret == 0)
		ret = rpcrdma_xprt_call_submit(call, 0, notify_done, s);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		s->nst.skipped++;
		return;
	}
	s->nst.sent++;
}

/* Send a NOTIFY of every queued WRITE to every subscribed connection but the writer's. */
static int notify_drain(struct bs_server *s)
{
	int n = 0;

	while (s->nq_tail != s->nq_head) {
		const struct bs_notify_rec *r = &s->nq[s->nq_tail++ & (BS_NOTIFY_QUEUE - 1)];

		for (int i = 0; i < (int)s->o.max_conns; i++) {
			if (notify_target(s, i, r->writer)) {
				notify_one(s, s->conns[i], &r->n);
				n++;
			}
		}
	}
	return n;
}

/* The procedure table, indexed by procedure number. NULL answers by default. */
static const struct rpcrdma_svc_proc bs_procs[BS_NPROCS] = {
	[BS_PROC_NULL] = { .name = "NULL" },
	[BS_PROC_GETATTR] = { .name = "GETATTR",
			      .handler = h_getattr,
			      .encode = enc_getattr,
			      .res_size = sizeof(struct bs_attr) },
	[BS_PROC_READ] = { .name = "READ",
			   .decode = dec_read,
			   .handler = h_read,
			   .encode = enc_read,
			   .args_size = sizeof(struct bs_read_args),
			   .res_size = sizeof(struct bs_read_res) },
	/* not idempotent: run twice, a WRITE counts and is notified twice (the DRC) */
	[BS_PROC_WRITE] = { .name = "WRITE",
			    .decode = dec_write,
			    .handler = h_write,
			    .encode = enc_write,
			    .args_size = sizeof(struct bs_write_args),
			    .res_size = sizeof(struct bs_write_out),
			    .flags = RPCRDMA_SVC_PROC_F_NONIDEMPOTENT },
	/* a copy on the same connection while the first waits is dropped, not BS_ERR_BUSY */
	[BS_PROC_SUBSCRIBE] = { .name = "SUBSCRIBE",
				.handler = h_subscribe,
				.encode = enc_stat,
				.res_size = sizeof(uint32_t),
				.flags = RPCRDMA_SVC_PROC_F_NONIDEMPOTENT },
};

static const struct rpcrdma_svc_version bs_versions[] = {
	{ .vers = BLOCKSTORE_V1, .nprocs = BS_NPROCS, .procs = bs_procs },
};

/*
 * The duplicate request cache: WRITE and SUBSCRIBE are not idempotent, and
 * a client that reconnects sends its unanswered calls again with their
 * XIDs. The dispatcher looks such a call up before it runs: the reply of a
 * copy already answered is sent again, a copy still running is dropped.
 * The largest reply it caches is WRITE's (32 bytes); the cache locks
 * itself, for handlers on several workers at once.
 */
static int drc_open(struct bs_server *s)
{
	return app_svc_drc(s->reg, s->o.drc_entries, 64, &s->drc);
}

/*
 * The client a call came from, for the cache's key (the glue's client_key
 * hook, on the poller). A WRITE's key is the client's (its address on
 * verbs, its process on shm: rpcrdma_xprt_peer()), the same on each of its
 * connections, so a reconnected client's copy finds its first, and two
 * clients' equal XIDs do not meet. A subscription ends with its
 * connection, so SUBSCRIBE's key is the connection's number: on a new
 * connection it runs again.
 */
static uint64_t client_key(void *arg, const struct rpcrdma_xprt *xprt,
			   const struct rpcrdma_rpc_msg *msg)
{
	const struct bs_server *s = arg;

	if (msg->call.proc != BS_PROC_SUBSCRIBE)
		return rpcrdma_xprt_peer_key(xprt);
	for (int i = 0; i < (int)s->o.max_conns; i++)
		if (s->conns[i] == xprt)
			return s->conn_seq[i];
	return 0;
}

/*
 * Register the program. The dispatcher answers what is not ours by itself:
 * PROG_UNAVAIL, PROG_MISMATCH (1..1), PROC_UNAVAIL, GARBAGE_ARGS (a
 * decoder failed), SYSTEM_ERR (a handler or encoder failed), and the
 * RPC-level errors (RPC_MISMATCH, AUTH_BADCRED).
 */
static int register_program(struct bs_server *s)
{
	struct rpcrdma_svc_program prog = {
		.name = "blockstore",
		.prog = BLOCKSTORE_PROG,
		.ctx = s, /* req->prog_ctx in every handler */
		.nvers = 1,
		.vers = bs_versions,
	};
	int ret;

	/* a counter slot for every lcore: workers count in theirs */
	ret = app_svc_registry(&prog, RTE_MAX_LCORE, &s->reg);
	if (ret) {
		fprintf(stderr, PROG ": register the program: %s\n", strerror(-ret));
		return ret;
	}
	return drc_open(s);
}

/* ------------------------------------------------------------ connections */

/* A client asks to connect: accept it with the glue as its call handler. */
static void accept_conn(struct bs_server *s, const struct rpcrdma_pmd_event *ev)
{
	int i = app_accept_slot(PROG, s->conns, s->o.max_conns, s->nconns, &s->params, ev);

	if (i < 0)
		return;
	s->subscribed[i] = false;
	s->accepted++;
	s->nconns++;
	s->conn_seq[i] = s->accepted; /* never 0: the key of calls from no connection we know */
	app_conn_mem_arrived(&s->mem, s->nconns, s->grp);
	if (!s->o.quiet)
		app_conn_arrived(stdout, PROG, s->accepted, s->conns[i], APP_NO_POLLER, s->nconns);
}

/*
 * --capture: the engine hands us each new connection's queue pair before it
 * posts a receive on it, so the capture sees every message.
 */
static void capture_qp(void *ctx, struct rpcrdma_pmd_qp *qp)
{
	struct bs_server *s = ctx;
	int ret;

	ret = rpcrdma_capture_qp(s->cap, qp, NULL);
	if (ret)
		fprintf(stderr, PROG ": --capture: %s\n", strerror(-ret));
}

static bool conn_gone(const struct rpcrdma_xprt *x)
{
	enum rpcrdma_xprt_state st = rpcrdma_xprt_state(x);

	return st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR;
}

/* Connection events: new clients, and the engine's own (established, gone). */
static int poll_events(struct bs_server *s)
{
	struct rpcrdma_pmd_event ev[8];
	int n = rpcrdma_pmd_event_poll(s->ep.dev, ev, 8);

	for (int i = 0; i < n; i++) {
		if (ev[i].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST &&
		    !__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
			accept_conn(s, &ev[i]);
		else if (ev[i].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			rpcrdma_pmd_reject(ev[i].req, NULL, 0);
		else
			rpcrdma_xprt_event(&ev[i]);
	}
	return n > 0 ? n : 0;
}

/*
 * Poll every connection once; destroy the ones that are closed. The
 * NOTIFYs of the WRITEs done in a poll go right after it (and those of
 * replies the runtime handed back between two turns, first); SUBSCRIBEs
 * are answered before the destroys (a connection is destroyed only once
 * every call it received is answered or dropped).
 */
static int poll_conns(struct bs_server *s)
{
	int work = notify_drain(s);

	if (s->grp != NULL && s->nconns > 0) {
		work += rpcrdma_xprt_group_poll(s->grp);
		work += notify_drain(s);
	}
	for (int i = 0; s->grp == NULL && i < (int)s->o.max_conns; i++) {
		struct rpcrdma_xprt *x = s->conns[i];

		if (x == NULL)
			continue;
		work += rpcrdma_xprt_poll(x);
		work += notify_drain(s);
	}
	work += subscribe_poll(s);
	for (int i = 0; i < (int)s->o.max_conns; i++) {
		struct rpcrdma_xprt *x = s->conns[i];
		struct rpcrdma_xprt_stats st;

		if (x == NULL || !conn_gone(x))
			continue;
		rpcrdma_xprt_stats(x, &st);
		if (rpcrdma_xprt_destroy(x) != 0)
			continue;
		s->conns[i] = NULL;
		s->subscribed[i] = false;
		s->nconns--;
		BS_ADD(&s->closed, 1);
		if (!s->o.quiet)
			app_conn_left(stdout, PROG, s->conn_seq[i], st.calls_recv, s->nconns);
	}
	return work;
}

static int nb_conns(const struct bs_server *s)
{
	int n = 0;

	for (int i = 0; i < (int)s->o.max_conns; i++)
		n += s->conns[i] != NULL;
	return n;
}

/*
 * One turn of the loop: connections every turn, connection events once a
 * millisecond (an event poll may be a system call). A storage server
 * usually busy-polls a dedicated core; this example sleeps a little once it
 * has been idle for 100 ms so it can sit on a shared machine.
 */
static int server_turn(struct bs_server *s)
{
	uint64_t hz = rte_get_tsc_hz(), now;
	int work = poll_conns(s);

	now = rte_rdtsc();
	if (now >= s->next_ev) {
		work += poll_events(s);
		s->next_ev = now + hz / 1000;
	}
	if (work) {
		s->last_work = now;
	} else if (now - s->last_work > hz / 1000 * BS_IDLE_CYCLES) {
		if (s->cap)
			rpcrdma_capture_flush(s->cap);
		usleep(BS_IDLE_SLEEP);
	}
	return work;
}

/* Until a signal, or with --once until the first client has gone. */
static bool keep_serving(const struct bs_server *s)
{
	return !stop_signal && !(s->o.once && BS_GET(&s->closed) > 0);
}

/* Run to completion: this lcore polls everything and runs every procedure. */
static void poll_loop(struct bs_server *s)
{
	s->last_work = rte_rdtsc();
	while (keep_serving(s))
		server_turn(s);
}

/* Ask every client to go (the lcore that polls the connections does this). */
static void disconnect_all(struct bs_server *s)
{
	for (int i = 0; i < (int)s->o.max_conns; i++)
		if (s->conns[i] && rpcrdma_xprt_state(s->conns[i]) != RPCRDMA_XPRT_DRAINING)
			rpcrdma_xprt_disconnect(s->conns[i]);
	s->disconnected = true;
}

/* Disconnect every client and wait until every connection is closed. */
static void close_conns(struct bs_server *s)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * BS_CLOSE_WAIT;

	__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
	disconnect_all(s);
	while (nb_conns(s) > 0 && rte_rdtsc() < end) {
		poll_conns(s);
		poll_events(s);
	}
	if (nb_conns(s) > 0)
		fprintf(stderr, PROG ": warning: %d connection(s) did not close\n", nb_conns(s));
}

/*
 * --workers: the poller lcore's poll function. The turn of the loop above;
 * once main sets closing, it disconnects every client and says when every
 * connection is closed (drained). The calls go to the workers from the
 * glue's recv_call, and their replies come back through the runtime.
 */
static int server_poll(void *arg)
{
	struct bs_server *s = arg;
	int work;

	if (!s->disconnected && __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
		disconnect_all(s);
	work = server_turn(s);
	if (s->disconnected && nb_conns(s) == 0)
		__atomic_store_n(&s->drained, true, __ATOMIC_RELEASE);
	return work;
}

/* Items the workers ran (the calls they dispatched), from the runtime's counters. */
static uint64_t worker_calls(const struct bs_server *s)
{
	struct rpcrdma_rt_lcore_stats st;
	uint64_t n = 0;

	for (unsigned int i = 1; rpcrdma_rt_stats(s->rt, i, &st) == 0; i++)
		n += st.items;
	return n;
}

/*
 * --workers: start the lcore runtime. One poller lcore runs server_poll(),
 * N worker lcores run the procedures (the glue's burst handlers: every item
 * of this runtime is a call), and the main lcore only waits (serve_workers()).
 * Nothing is left started on error.
 */
static int workers_start(struct bs_server *s)
{
	struct rpcrdma_rt_params rp;
	struct rpcrdma_rt_poller *poller;
	char roles[32];
	int ret;

	rpcrdma_rt_params_init(&rp);
	rp.name = "bs";
	snprintf(roles, sizeof(roles), "pollers=1,workers=%u", s->o.workers);
	rp.roles = roles;
	rpcrdma_xprt_svc_rt_bind(&rp);
	ret = rpcrdma_rt_create(&rp, &s->rt);
	if (ret) {
		s->rt = NULL;
		if (ret == -ENODEV)
			fprintf(stderr,
				PROG ": --workers %u needs %u EAL lcores besides the main one "
				     "(see --lcores)\n",
				s->o.workers, s->o.workers + 1);
		else
			fprintf(stderr, PROG ": runtime: %s\n", strerror(-ret));
		return ret;
	}
	/* before the first call: the glue queues every call to this poller's workers */
	poller = rpcrdma_rt_poller(s->rt, 0);
	ret = rpcrdma_xprt_svc_set_rt(&s->glue, poller);
	if (ret == 0)
		ret = rpcrdma_rt_poller_add(poller, server_poll, s);
	if (ret) {
		fprintf(stderr, PROG ": runtime: %s\n", strerror(-ret));
		goto err_glue;
	}
	if (rpcrdma_telemetry_rt_add(s->rt) != 0)
		fprintf(stderr, PROG ": warning: the runtime is not in telemetry\n");
	s->last_work = rte_rdtsc();
	ret = rpcrdma_rt_start(s->rt);
	if (ret) {
		fprintf(stderr, PROG ": runtime start: %s\n", strerror(-ret));
		goto err_telemetry;
	}
	return 0;

err_telemetry:
	rpcrdma_telemetry_rt_del(s->rt);
err_glue:
	rpcrdma_xprt_svc_set_rt(&s->glue, NULL);
	return ret;
}

/*
 * --workers: wait for the end on the main lcore, have the poller close
 * every connection, then stop the runtime (server_close() frees it, after
 * main has printed its counters).
 */
static void serve_workers(struct bs_server *s)
{
	uint64_t end;

	while (keep_serving(s))
		usleep(BS_MAIN_SLEEP);
	__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
	end = rte_rdtsc() + rte_get_tsc_hz() * BS_CLOSE_WAIT;
	while (!__atomic_load_n(&s->drained, __ATOMIC_ACQUIRE) && rte_rdtsc() < end)
		usleep(BS_MAIN_SLEEP / 10);
	rpcrdma_rt_stop(s->rt); /* the poller returns once the workers gave every call back */
	if (nb_conns(s) > 0)
		fprintf(stderr, PROG ": warning: %d connection(s) did not close\n", nb_conns(s));
	rpcrdma_telemetry_rt_del(s->rt);
	rpcrdma_xprt_svc_set_rt(&s->glue, NULL);
}

/* ------------------------------------------------------------ set-up */

/*
 * The receives the connections share (their poll group's): a client alone
 * gets every credit it may use (BS_CREDITS), and with many clients each an
 * equal share, at least BS_SHARE_MIN while the server has at most 256
 * connections (4096 receives at most), beyond the receives kept for the
 * replies of their NOTIFYs.
 */
static uint32_t srv_recvs(uint32_t max_conns)
{
	return app_group_recvs(max_conns, BS_SHARE_MIN, 256) + max_conns * BS_BK_CREDITS;
}

static int server_open(struct bs_server *s)
{
	struct rpcrdma_mempool_set_params sp;
	struct rpcrdma_mempool_params mp;
	int ret;

	/* inline buffers (and one per backward slot), chunk buffers for READ replies and WRITE data */
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = "bs-srv";
	sp.inline_count =
		s->o.capture ? 1024 + s->o.max_conns * BS_CONN_INLINE
			     : 1024 + app_group_bufs(s->o.max_conns, srv_recvs(s->o.max_conns)) +
				       s->o.max_conns * (BS_BK_CREDITS + 8);
	sp.nb_classes = 2;
	sp.classes[0].size = 64u << 10;
	sp.classes[0].count = 128 + 2 * s->o.max_conns;
	sp.classes[1].size = BS_MAX_IO;
	sp.classes[1].count = 32;
	/*
	 * With --workers a READ buffer is taken on a worker and given back on
	 * the poller (reply_done): per-lcore caches would strand the buffers
	 * in the poller's cache (a cache flushes back only past 1.5 times its
	 * size), and the workers would find the pool empty. No caches then.
	 */
	if (s->o.workers > 0)
		sp.cache_size = 0;
	ret = app_ep_open(&s->ep, s->o.com.pmd, s->o.com.devargs, &sp);
	/* --capture: connections of their own (a capture does not see an SRQ's receives) */
	if (ret == 0 && s->o.capture == NULL)
		ret = app_ep_group(&s->ep, s->o.max_conns, srv_recvs(s->o.max_conns), 0, &s->grp);
	if (ret)
		return ret;
	s->conns = calloc(s->o.max_conns, sizeof(*s->conns));
	s->subscribed = calloc(s->o.max_conns, sizeof(*s->subscribed));
	s->conn_seq = calloc(s->o.max_conns, sizeof(*s->conn_seq));
	s->sub_wait = calloc(s->o.max_conns, sizeof(*s->sub_wait));
	if (!s->conns || !s->subscribed || !s->conn_seq || !s->sub_wait) {
		fprintf(stderr, PROG ": %u connections: %s\n", s->o.max_conns, strerror(ENOMEM));
		return -ENOMEM;
	}

	/* the store: one buffer of --size bytes in registered memory */
	rpcrdma_mempool_params_init(&mp);
	mp.name = "bs-store";
	mp.buf_size = (uint32_t)s->o.size;
	mp.count = 1;
	mp.cache_size = 0;
	mp.access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE; /* the peer never touches it */
	ret = rpcrdma_mempool_create(&mp, s->ep.pd, &s->store_pool);
	if (ret) {
		s->store_pool = NULL;
		fprintf(stderr, PROG ": store of %lu bytes: %s\n", (unsigned long)s->o.size,
			strerror(-ret));
		return ret;
	}
	s->store = rpcrdma_mempool_get(s->store_pool);
	memset(s->store, 0, s->o.size);
	s->attr.size = s->o.size;
	s->attr.block_size = s->o.block_size;
	s->attr.max_io = BS_MAX_IO;

	/* SUBSCRIBEs from the handlers (any lcore) to the poller: every call could be one */
	s->sub_ring = rte_ring_create("bs-sub", rte_align32pow2(s->o.max_conns * BS_CREDITS + 1),
				      (int)rte_socket_id(), RING_F_SC_DEQ);
	if (s->sub_ring == NULL) {
		fprintf(stderr, PROG ": ring: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	ret = register_program(s);
	if (ret)
		return ret;
	/* the glue: every call a connection receives goes to the dispatcher */
	rpcrdma_xprt_svc_init(&s->glue, s->reg, 0);
	s->glue.reply_done = reply_done;
	s->glue.reply_done_arg = s;
	s->glue.client_key = client_key;
	s->glue.client_key_arg = s;
	rpcrdma_xprt_params_init(&s->params, RPCRDMA_XPRT_SERVER);
	s->params.dev = s->ep.dev;
	s->params.pd = s->ep.pd;
	s->params.pools = s->ep.pools;
	s->params.max_credits = BS_CREDITS;
	s->params.credits = BS_CREDITS;
	/* NOTIFY: backward calls on every connection, sent once the client SUBSCRIBEd */
	s->params.bk_credits = BS_BK_CREDITS;
	/* at most; the poll group grants each connection its share (srv_recvs()) */
	s->params.group = s->grp;
	if (strcmp(s->o.com.pmd, "shm") != 0) /* per-call MRs: the shm PMD only, for now */
		s->params.flags &= ~(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV);
	rpcrdma_xprt_svc_bind(&s->glue, &s->params);

	if (s->o.capture) {
		struct rpcrdma_capture_params cp;

		/* 1 MiB transfers are 16 large frames each, staged until a flush */
		rpcrdma_capture_params_init(&cp);
		cp.nb_large = BS_CAPTURE_LARGE;
		ret = rpcrdma_capture_open(s->o.capture, &cp, &s->cap);
		if (ret) {
			s->cap = NULL;
			fprintf(stderr, PROG ": --capture %s: %s\n", s->o.capture, strerror(-ret));
			return ret;
		}
		s->params.qp_created = capture_qp;
		s->params.qp_ctx = s;
	}
	ret = rpcrdma_pmd_listen(s->ep.dev, s->o.listen, &s->listener);
	if (ret) {
		s->listener = NULL;
		fprintf(stderr, PROG ": listen on %s: %s\n", s->o.listen, strerror(-ret));
	}
	return ret;
}

static void server_close(struct bs_server *s)
{
	struct rpcrdma_capture_stats cs;

	if (s->listener)
		rpcrdma_pmd_listener_close(s->listener);
	/* the connections that did not close, then their group: its buffers go back */
	app_conns_destroy(s->conns, s->o.max_conns, s->grp);
	if (s->cap) {
		rpcrdma_capture_flush(s->cap); /* the counters then include every frame */
		rpcrdma_capture_stats(s->cap, &cs);
		if (rpcrdma_capture_close(s->cap) != 0)
			fprintf(stderr, PROG ": --capture: write error, the file is incomplete\n");
		else if (!s->o.quiet)
			printf(PROG ": capture: %lu frames, %lu bytes, %lu drops, %lu untracked\n",
			       (unsigned long)cs.frames, (unsigned long)cs.bytes,
			       (unsigned long)cs.drops, (unsigned long)cs.untracked);
	}
	if (s->store)
		rpcrdma_mempool_put(s->store_pool, s->store);
	if (s->store_pool)
		rpcrdma_mempool_free(s->store_pool);
	rpcrdma_rt_free(s->rt);
	rte_ring_free(s->sub_ring);
	app_svc_registry_free(s->reg);
	rpcrdma_svc_drc_free(s->drc); /* after the registry that used it */
	app_ep_close(&s->ep);
	free(s->conns);
	free(s->subscribed);
	free(s->conn_seq);
	free(s->sub_wait);
}

/* ------------------------------------------------------------ options */

enum {
	O_LISTEN = APP_O_NEXT,
	O_SIZE,
	O_BLOCK_SIZE,
	O_ONCE,
	O_CAPTURE,
	O_QUIET,
	O_WORKERS,
	O_DRC_ENTRIES,
	O_MAX_CONNECTIONS,
	O_NOTIFY_TIMEOUT,
};

static const struct option long_opts[] = {
	APP_LONG_OPTS,
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "size", required_argument, NULL, O_SIZE },
	{ "block-size", required_argument, NULL, O_BLOCK_SIZE },
	{ "once", no_argument, NULL, O_ONCE },
	{ "capture", required_argument, NULL, O_CAPTURE },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "workers", required_argument, NULL, O_WORKERS },
	{ "drc-entries", required_argument, NULL, O_DRC_ENTRIES },
	{ "max-connections", required_argument, NULL, O_MAX_CONNECTIONS },
	{ "notify-timeout", required_argument, NULL, O_NOTIFY_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

/* 0: run; -1: --help printed; else an exit status. */
static int parse_opts(struct bs_opts *o, int argc, char **argv)
{
	int c, nopts, ret = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->size = 64ull << 20;
	o->block_size = 4096;
	o->drc_entries = 1024;
	o->max_conns = BS_CONN_DEFAULT;
	o->notify_tmo_s = BS_NOTIFY_TMO_S;
	nopts = app_opts_init(&o->com, argc, argv);
	while ((c = getopt_long(nopts, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_LISTEN:
			ret = app_parse_address("--listen", optarg, &o->listen);
			break;
		case O_SIZE:
			ret = app_parse_u64("--size", optarg, 4096, BS_SIZE_MAX, true, &o->size);
			break;
		case O_BLOCK_SIZE:
			ret = app_parse_u64("--block-size", optarg, 512, 65536, true, &v);
			if (ret == 0 && (v & (v - 1)) != 0)
				return app_usage_error("--block-size: %s is not a power of two",
						       optarg);
			o->block_size = (uint32_t)v;
			break;
		case O_ONCE:
			o->once = true;
			break;
		case O_CAPTURE:
			o->capture = optarg;
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case O_WORKERS:
			ret = app_parse_u64("--workers", optarg, 0, RPCRDMA_RT_WORKERS_MAX, false,
					    &v);
			o->workers = (uint32_t)v;
			break;
		case O_DRC_ENTRIES:
			ret = app_parse_u64("--drc-entries", optarg, 0, RPCRDMA_SVC_DRC_ENTRIES_MAX,
					    false, &v);
			o->drc_entries = (uint32_t)v;
			break;
		case O_MAX_CONNECTIONS:
			ret = app_parse_u64("--max-connections", optarg, 1, BS_CONN_LIMIT, false,
					    &v);
			o->max_conns = (uint32_t)v;
			break;
		case O_NOTIFY_TIMEOUT:
			ret = app_parse_u64("--notify-timeout", optarg, 1, BS_NOTIFY_MAX_S, false,
					    &v);
			o->notify_tmo_s = (uint32_t)v;
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
	if (o->listen == NULL)
		return app_usage_error("--listen ADDRESS is required");
	if (o->size % o->block_size != 0)
		return app_usage_error("--size %lu is not a multiple of the block size %u",
				       (unsigned long)o->size, o->block_size);
	return 0;
}

/* The end of the summary line: the duplicate request cache's counters. */
static void print_drc(const struct bs_server *s)
{
	struct rpcrdma_svc_drc_stats d;

	if (s->drc == NULL) {
		printf("; no duplicate request cache\n");
		return;
	}
	rpcrdma_svc_drc_stats(s->drc, &d);
	printf("; DRC %lu hits, %lu misses, %lu dropped in progress, %lu evictions, %lu stored\n",
	       (unsigned long)d.hits, (unsigned long)d.misses, (unsigned long)d.inprog_drops,
	       (unsigned long)d.evictions, (unsigned long)d.stores);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * --workers N without --lcores, as an EAL --lcores map: the main lcore 0
 * and the poller 1 on the last CPU this process may run on (where the
 * server polls without workers), the workers 2..N+1 on every other one (on
 * the last one too when it is the only one): "(0-1)@3,(2-3)@(0,1,2)".
 * @return buf, or NULL when the affinity cannot be read.
 */
static const char *worker_lcores(char *buf, size_t len, unsigned int workers)
{
	char cpus[160] = "";
	size_t off = 0;
	int cpu, last = -1, n = 0;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return NULL;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			last = cpu;
	if (last < 0)
		return NULL;
	for (cpu = 0; cpu < last && off + 8 < sizeof(cpus); cpu++)
		if (CPU_ISSET(cpu, &set))
			off += (size_t)snprintf(cpus + off, sizeof(cpus) - off, "%s%d",
						n++ ? "," : "", cpu);
	if (n == 0)
		snprintf(cpus, sizeof(cpus), "%d", last);
	if (workers == 1)
		snprintf(buf, len, "(0-1)@%d,2@(%s)", last, cpus);
	else
		snprintf(buf, len, "(0-1)@%d,(2-%u)@(%s)", last, workers + 1, cpus);
	return buf;
}

int main(int argc, char **argv)
{
	struct bs_server *s = &server;
	char lcores[200];
	int ret;

	app_init(PROG);
	ret = parse_opts(&s->o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* by default on the last CPU: blockstore-client's default is the first */
	if (s->o.com.lcores == NULL && s->o.workers > 0)
		s->o.com.lcores = worker_lcores(lcores, sizeof(lcores), s->o.workers);
	else if (s->o.com.lcores == NULL)
		s->o.com.lcores = app_one_cpu(true, lcores, sizeof(lcores));
	ret = app_eal_start(argv[0], s->o.com.lcores, s->o.com.eal_argc, s->o.com.eal_argv);
	if (ret)
		return ret;
	ret = server_open(s);
	if (ret == 0 && s->o.workers > 0)
		ret = workers_start(s);
	if (ret == 0) {
		if (!s->o.quiet) {
			printf(PROG ": serving %lu bytes (block size %u) on %s, program 0x%08x "
				    "version %u\n",
			       (unsigned long)s->o.size, s->o.block_size, s->o.listen,
			       BLOCKSTORE_PROG, BLOCKSTORE_V1);
			fflush(stdout);
		}
		if (s->o.workers == 0) {
			poll_loop(s);
			close_conns(s);
		} else {
			serve_workers(s);
		}
		if (!s->o.quiet) {
			printf(PROG ": %lu connection(s); %lu reads (%lu bytes), %lu writes "
				    "(%lu bytes), %lu errors; %lu calls",
			       (unsigned long)s->accepted, (unsigned long)s->attr.reads,
			       (unsigned long)s->attr.bytes_read, (unsigned long)s->attr.writes,
			       (unsigned long)s->attr.bytes_written, (unsigned long)s->attr.errors,
			       (unsigned long)s->glue.st.calls);
			if (s->o.workers > 0)
				printf(", %lu run on %u worker(s)", (unsigned long)worker_calls(s),
				       s->o.workers);
			printf("; %lu notifies sent (%lu answered, %lu failed), %lu skipped",
			       (unsigned long)s->nst.sent, (unsigned long)s->nst.answered,
			       (unsigned long)s->nst.failed, (unsigned long)s->nst.skipped);
			print_drc(s);
			app_conn_mem_report(stdout, PROG, &s->mem);
		}
		if (s->reads_out != 0)
			fprintf(stderr, PROG ": warning: %u READ buffers not back\n", s->reads_out);
	}
	server_close(s);
	rte_eal_cleanup();
	return ret ? APP_EXIT_FAIL : 0;
}
