/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3-server: an NFSv3 server over RPC-over-RDMA, memory backed: the
 * template of a file service on the engine, as blockstore-server is of a
 * block service. It serves one in-memory file system (fs.h) with the NFS
 * program (proc.c) over the engine on any PMD, and the MOUNT service on
 * TCP (mount.c), exporting "/".
 *
 * Reading guide: options; set-up (the data area registered with the
 * device, the file system over it, the pools, the dispatcher with the
 * glue, the listener, MOUNT); the poll loop or the lcore runtime
 * (--workers); shut-down, which checks that every buffer is back in its
 * pool and that no READ still pins the file system, and fails otherwise.
 *
 * One lcore polls every connection, through one poll group (a completion
 * queue and a shared receive queue for all of them, up to
 * --max-connections), and runs every procedure by default; with --workers
 * N the procedures run on N worker lcores and take the file system's lock
 * (nfs3d.h). What touches a connection runs on the polling lcore: READ's
 * reply_done (unpin, give a buffer back) runs there too.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "../app_common.h"
#include "nfs3d.h"

#define PROG	       "nfs3-server"
#define CONN_DEFAULT   64 /* --max-connections */
#define CONN_LIMIT     1024
#define SHARE_MIN      16	    /* receives of each connection, the server full (srv_recvs()) */
#define SIZE_MAX_      (1ull << 30) /* --size: one pool buffer holds the area */
#define CREDITS	       32	    /* calls each client may have outstanding (Linux asks 128) */
#define CLOSE_WAIT     5	    /* seconds to drain the connections at exit */
#define IDLE_SLEEP     100	    /* us slept per loop once idle */
#define IDLE_MS	       100	    /* ms without work before sleeping */
#define MAIN_SLEEP     10000	    /* us the main lcore sleeps per check with --workers */
#define CAPTURE_LARGE  256	    /* --capture: 64 KiB frames in flight */
#define MOUNT_PORT     20048	    /* mountd's usual port */
#define INODES_PER_MIB 1024	    /* inodes per MiB of --size */

static const char help_text[] =
	"NAME\n"
	"    " PROG " - an NFSv3 server over RPC-over-RDMA, memory backed\n"
	"\n"
	"SYNOPSIS\n"
	"    " PROG " --listen ADDRESS [--size BYTES] [--mount-port N] [--once]\n"
	"        [--io-max BYTES] [--drc-entries N] [--max-connections N] [--workers N]\n"
	"        [--capture FILE.pcapng]\n"
	"        [--pmd shm|verbs] "
	"[--devargs ARGS]\n"
	"        [--lcores LIST] [--quiet] [-- EAL ARGS]\n"
	"\n"
	"DESCRIPTION\n"
	"    Serves one in-memory file system (files, directories, symbolic\n"
	"    links) with NFS version 3 (program 100003) over RPC-over-RDMA, and\n"
	"    MOUNT version 3 (program 100005) on TCP, exporting \"/\". Every NFSv3\n"
	"    procedure but MKNOD and LINK (NFS3ERR_NOTSUPP); no NLM locking, no\n"
	"    NFSv4, nothing kept across a restart (its handles are then stale).\n"
	"    READ data goes to the client by RDMA Write straight from the file's\n"
	"    memory; WRITE data is copied once, from where the RDMA Read put it.\n"
	"    Linux mounts it with\n"
	"        mount -t nfs -o rdma,port=20049,vers=3,nolock,mountport=N,mountproto=tcp \\\n"
	"              SERVER:/ /mnt\n"
	"\n"
	"    It runs until SIGINT or SIGTERM (or, with --once, until its first\n"
	"    client disconnects), closes every connection, prints its counters\n"
	"    (the resident memory its connections took among them: with the\n"
	"    first and with the most at once, and per connection between), and\n"
	"    exits 1 if a buffer is not back in its pool. SIGUSR1\n"
	"    disconnects every client and serves on: a test of client recovery\n"
	"    (Linux connects again and sends its calls again).\n"
	"\n"
	"OPTIONS\n"
	"    --listen ADDRESS\n"
	"        Where to listen (shm PMD: a UNIX socket path, or @name in the\n"
	"        abstract namespace; verbs PMD: IP[:PORT], port 20049 by default).\n"
	"        Required.\n"
	"    --size BYTES\n"
	"        The file system's data, 1m..1g, a multiple of 1 MiB; suffixes k,\n"
	"        m, g (default 64m). 1024 inodes per MiB.\n"
	"    --mount-port N\n"
	"        The MOUNT service's TCP port (default 20048; 0: any free port,\n"
	"        printed at start). Registered with rpcbind when it runs.\n"
	"    --drc-entries N\n"
	"        The duplicate request cache: the replies of the last N calls of\n"
	"        SETATTR, WRITE, CREATE, MKDIR, SYMLINK, REMOVE, RMDIR and RENAME,\n"
	"        so that a copy a client sends again after a lost connection (as\n"
	"        Linux's does) is answered without running twice (default 1024;\n"
	"        0: none).\n"
	"    --io-max BYTES\n"
	"        The largest READ and WRITE (FSINFO rtmax and wtmax), 4k..1m, a\n"
	"        multiple of 4 KiB (default 1m). A longer READ returns that many\n"
	"        bytes; a longer WRITE writes that many and says so in its count.\n"
	"    --max-connections N\n"
	"        Clients connected at once, 1..1024 (default 64); one more is\n"
	"        refused (a reject, and a line on standard error). Every\n"
	"        connection is in one poll group: one completion queue and one\n"
	"        shared receive queue, whose receives the clients share (each is\n"
	"        granted an equal part, 32 credits at most, at least 16 while\n"
	"        there are at most 256 of them). A line says when a client\n"
	"        arrives and when it leaves (not with --quiet).\n"
	"    --once\n"
	"        Exit after the first client disconnects.\n"
	"    --workers N\n"
	"        Run the procedures on N worker lcores, 0..16 (default 0: on the\n"
	"        lcore that polls the connections), as blockstore-server does;\n"
	"        the file system then takes a lock.\n"
	"    --capture FILE.pcapng\n"
	"        Record every connection's traffic as RoCEv2 packets (Wireshark\n"
	"        decodes rpcordma, rpc and nfs). The connections then have\n"
	"        receive queues of their own (a capture does not see a shared\n"
	"        one's receives).\n"
	"    --pmd shm|verbs\n"
	"        The transport (default shm).\n"
	"    --devargs ARGS\n"
	"        PMD device arguments (\"key=value,...\"; see the README).\n"
	"    --lcores LIST\n"
	"        The EAL lcore to poll on (default the last CPU); with --workers,\n"
	"        N + 2 lcores as blockstore-server takes them.\n"
	"    --quiet\n"
	"        Print only errors.\n" APP_HELP_TAIL "\n"
	"EXIT STATUS\n"
	"    0 served and shut down cleanly; 1 set-up failed or buffers were not\n"
	"    back; 2 bad options.\n"
	"\n"
	"EXAMPLE\n"
	"    " PROG " --listen @nfs --size 256m --mount-port 0\n"
	"    " PROG " --pmd verbs --listen 192.0.2.1 --size 1g\n";

struct opts {
	struct app_opts com;
	const char *listen;
	const char *capture;
	uint64_t size;
	uint32_t mount_port;
	uint32_t workers;
	uint32_t io_max;
	uint32_t drc_entries; /* 0: no duplicate request cache */
	uint32_t max_conns;
	bool once, quiet;
};

struct server {
	struct opts o;
	char listen[256];
	struct app_ep ep;
	struct app_conn_mem mem; /* what the connections hold (the summary) */
	struct rpcrdma_mempool *data_pool;
	void *data;
	struct nfs3d nfs;
	struct nfs3d_mount *mount;
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_svc_registry *reg;
	struct rpcrdma_svc_drc *drc; /* the registry's duplicate request cache, or NULL */
	struct rpcrdma_xprt_svc glue;
	struct rpcrdma_xprt_params params;
	struct rpcrdma_xprt **conns;	/* max_conns slots; NULL: free */
	uint64_t *conn_no;		/* conns[i]'s number among the accepted, from 1 */
	uint32_t nconns;		/* written by the polling lcore, read by main */
	struct rpcrdma_xprt_group *grp; /* every connection's; NULL with --capture */
	struct rpcrdma_capture *cap;
	struct rpcrdma_rt *rt;
	uint64_t accepted;
	uint64_t closed;
	uint64_t long_replies; /* of the connections closed: through reply chunks */
	bool closing, disconnected, drained;
	uint64_t next_ev, last_work;
};

static struct server server;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t kick_signal; /* SIGUSR1: kick_conns() */

/* ------------------------------------------------------------ connections */

/* A READ's reply is gone: its pin or buffer goes (on the polling lcore). */
static void reply_done(void *arg, struct rpcrdma_svc_req *req, int status)
{
	struct server *s = arg;

	if (req->call->call.prog == RPCRDMA_NFS3_PROGRAM &&
	    req->call->call.proc == RPCRDMA_NFS3_READ)
		nfs3d_read_done(&s->nfs, req);
}

static void accept_conn(struct server *s, const struct rpcrdma_pmd_event *ev)
{
	int i = app_accept_slot(PROG, s->conns, s->o.max_conns, s->nconns, &s->params, ev);

	if (i < 0)
		return;
	__atomic_store_n(&s->nconns, s->nconns + 1, __ATOMIC_RELAXED);
	s->conn_no[i] = ++s->accepted;
	app_conn_mem_arrived(&s->mem, s->nconns, s->grp);
	if (!s->o.quiet)
		app_conn_arrived(stdout, PROG, s->accepted, s->conns[i], APP_NO_POLLER, s->nconns);
}

static void capture_qp(void *ctx, struct rpcrdma_pmd_qp *qp)
{
	struct server *s = ctx;
	int ret = rpcrdma_capture_qp(s->cap, qp, NULL);

	if (ret)
		fprintf(stderr, PROG ": --capture: %s\n", strerror(-ret));
}

static bool conn_gone(const struct rpcrdma_xprt *x)
{
	enum rpcrdma_xprt_state st = rpcrdma_xprt_state(x);

	return st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR;
}

static int poll_events(struct server *s)
{
	struct rpcrdma_pmd_event ev[8];
	int n = rpcrdma_pmd_event_poll(s->ep.dev, ev, 8);

	for (int i = 0; i < n; i++) {
		if (ev[i].type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			rpcrdma_xprt_event(&ev[i]);
		else if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
			rpcrdma_pmd_reject(ev[i].req, NULL, 0);
		else
			accept_conn(s, &ev[i]);
	}
	return n > 0 ? n : 0;
}

static int poll_conns(struct server *s)
{
	int work = 0;

	if (s->grp != NULL)
		return s->nconns > 0 ? rpcrdma_xprt_group_poll(s->grp) : 0;
	for (uint32_t i = 0; i < s->o.max_conns; i++)
		if (s->conns[i] != NULL)
			work += rpcrdma_xprt_poll(s->conns[i]);
	return work;
}

/* Destroy the connections that are closed, and say who left (once a millisecond). */
static void reap_conns(struct server *s)
{
	for (uint32_t i = 0; i < s->o.max_conns; i++) {
		struct rpcrdma_xprt_stats st;

		if (s->conns[i] == NULL || !conn_gone(s->conns[i]))
			continue;
		rpcrdma_xprt_stats(s->conns[i], &st);
		if (rpcrdma_xprt_destroy(s->conns[i]) != 0)
			continue; /* calls not given back yet: next time */
		s->long_replies += st.long_msgs;
		s->conns[i] = NULL;
		__atomic_store_n(&s->nconns, s->nconns - 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->closed, 1, __ATOMIC_RELAXED);
		if (!s->o.quiet)
			app_conn_left(stdout, PROG, s->conn_no[i], st.calls_recv, s->nconns);
	}
}

static uint32_t nb_conns(const struct server *s)
{
	return __atomic_load_n(&s->nconns, __ATOMIC_RELAXED);
}

/*
 * SIGUSR1: every established connection is disconnected, as a failed link
 * or a server failover would; the file system and the listener stay. A
 * client connects again and sends its calls without replies again (Linux
 * does), which is what this is for: a test of client recovery.
 */
static void kick_conns(struct server *s)
{
	int n = 0;

	kick_signal = 0;
	for (uint32_t i = 0; i < s->o.max_conns; i++) {
		if (s->conns[i] && rpcrdma_xprt_state(s->conns[i]) == RPCRDMA_XPRT_ESTABLISHED) {
			rpcrdma_xprt_disconnect(s->conns[i]);
			n++;
		}
	}
	if (!s->o.quiet) {
		printf(PROG ": SIGUSR1: %d connection(s) disconnected\n", n);
		fflush(stdout);
	}
}

/* One turn: connections every turn, events once a millisecond, a nap once idle. */
static int server_turn(struct server *s)
{
	uint64_t hz = rte_get_tsc_hz(), now;
	int work;

	if (unlikely(kick_signal))
		kick_conns(s);
	work = poll_conns(s);

	now = rte_rdtsc();
	if (now >= s->next_ev) {
		work += poll_events(s);
		reap_conns(s);
		s->next_ev = now + hz / 1000;
	}
	if (work) {
		s->last_work = now;
	} else if (now - s->last_work > hz / 1000 * IDLE_MS) {
		if (s->cap)
			rpcrdma_capture_flush(s->cap);
		usleep(IDLE_SLEEP);
	}
	return work;
}

static bool keep_serving(const struct server *s)
{
	return !stop_signal && !(s->o.once && __atomic_load_n(&s->closed, __ATOMIC_RELAXED) > 0);
}

static void disconnect_all(struct server *s)
{
	for (uint32_t i = 0; i < s->o.max_conns; i++)
		if (s->conns[i] && rpcrdma_xprt_state(s->conns[i]) != RPCRDMA_XPRT_DRAINING)
			rpcrdma_xprt_disconnect(s->conns[i]);
	s->disconnected = true;
}

static void close_conns(struct server *s)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * CLOSE_WAIT;

	__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
	disconnect_all(s);
	while (nb_conns(s) > 0 && rte_rdtsc() < end) {
		poll_conns(s);
		poll_events(s);
		reap_conns(s);
	}
	if (nb_conns(s) > 0)
		fprintf(stderr, PROG ": warning: %u connection(s) did not close\n", nb_conns(s));
}

/* --workers: the poller lcore's poll function (blockstore-server's server_poll()). */
static int server_poll(void *arg)
{
	struct server *s = arg;
	int work;

	if (!s->disconnected && __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
		disconnect_all(s);
	work = server_turn(s);
	if (s->disconnected && nb_conns(s) == 0)
		__atomic_store_n(&s->drained, true, __ATOMIC_RELEASE);
	return work;
}

static int workers_start(struct server *s)
{
	struct rpcrdma_rt_params rp;
	struct rpcrdma_rt_poller *poller;
	char roles[32];
	int ret;

	rpcrdma_rt_params_init(&rp);
	rp.name = "nfs3";
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
	poller = rpcrdma_rt_poller(s->rt, 0);
	ret = rpcrdma_xprt_svc_set_rt(&s->glue, poller);
	if (ret == 0)
		ret = rpcrdma_rt_poller_add(poller, server_poll, s);
	if (ret == 0) {
		if (rpcrdma_telemetry_rt_add(s->rt) != 0)
			fprintf(stderr, PROG ": warning: the runtime is not in telemetry\n");
		s->last_work = rte_rdtsc();
		ret = rpcrdma_rt_start(s->rt);
		if (ret)
			rpcrdma_telemetry_rt_del(s->rt);
	}
	if (ret) {
		fprintf(stderr, PROG ": runtime: %s\n", strerror(-ret));
		rpcrdma_xprt_svc_set_rt(&s->glue, NULL);
	}
	return ret;
}

static void serve_workers(struct server *s)
{
	uint64_t end;

	while (keep_serving(s))
		usleep(MAIN_SLEEP);
	__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
	end = rte_rdtsc() + rte_get_tsc_hz() * CLOSE_WAIT;
	while (!__atomic_load_n(&s->drained, __ATOMIC_ACQUIRE) && rte_rdtsc() < end)
		usleep(MAIN_SLEEP / 10);
	rpcrdma_rt_stop(s->rt);
	if (nb_conns(s) > 0)
		fprintf(stderr, PROG ": warning: %u connection(s) did not close\n", nb_conns(s));
	rpcrdma_telemetry_rt_del(s->rt);
	rpcrdma_xprt_svc_set_rt(&s->glue, NULL);
}

/* ------------------------------------------------------------ set-up */

/* The data area: one buffer of a registered pool, the file system over it. */
static int fs_open(struct server *s)
{
	struct rpcrdma_mempool_params mp;
	struct nfs3_fs_params fp = { 0 };
	struct timespec ts;
	int ret;

	rpcrdma_mempool_params_init(&mp);
	mp.name = "nfs3-data";
	mp.buf_size = (uint32_t)s->o.size;
	mp.count = 1;
	mp.cache_size = 0;
	mp.access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE; /* the peer never touches it */
	ret = rpcrdma_mempool_create(&mp, s->ep.pd, &s->data_pool);
	if (ret) {
		s->data_pool = NULL;
		fprintf(stderr, PROG ": data area of %lu bytes: %s\n", (unsigned long)s->o.size,
			strerror(-ret));
		return ret;
	}
	s->data = rpcrdma_mempool_get(s->data_pool);
	clock_gettime(CLOCK_REALTIME, &ts);
	fp.data = s->data;
	fp.size = s->o.size;
	fp.max_inodes = (uint32_t)(s->o.size >> 20) * INODES_PER_MIB;
	fp.instance = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	fp.fsid = 0x6e667333; /* "nfs3" */
	if (getrandom(&fp.secret, sizeof(fp.secret), 0) != sizeof(fp.secret))
		fp.secret = fp.instance * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	ret = nfs3_fs_create(&fp, &s->nfs.fs);
	if (ret) {
		fprintf(stderr, PROG ": file system: %s\n", strerror(-ret));
		return ret;
	}
	memcpy(s->nfs.verf, &fp.instance, sizeof(s->nfs.verf));
	s->nfs.data = s->data_pool;
	s->nfs.pools = s->ep.pools;
	s->nfs.locked = s->o.workers > 0;
	rte_spinlock_init(&s->nfs.lock);
	return 0;
}

static int register_program(struct server *s)
{
	struct rpcrdma_svc_program prog = {
		.name = "nfs",
		.prog = RPCRDMA_NFS3_PROGRAM,
		.ctx = &s->nfs,
		.nvers = 1,
		.vers = nfs3d_versions,
	};
	int ret = app_svc_registry(&prog, RTE_MAX_LCORE, &s->reg);

	if (ret)
		fprintf(stderr, PROG ": register the program: %s\n", strerror(-ret));
	return ret;
}

/*
 * The duplicate request cache of the non-idempotent procedures (proc.c).
 * Calls are told apart by the client (the glue's default key: its IP
 * address, its process on shm), XID, procedure and a checksum of their
 * arguments (file handles and names).
 * Replies: at most a RENAME's two wcc_data or a CREATE's handle and
 * attributes, under 512 bytes.
 */
static int drc_open(struct server *s)
{
	return app_svc_drc(s->reg, s->o.drc_entries, 512, &s->drc);
}

/*
 * The receives the connections share (their poll group's): a client alone
 * gets every credit it may use (CREDITS), and with many clients each an
 * equal share, at least SHARE_MIN while the server has at most 256
 * connections (4096 receives at most).
 */
static uint32_t srv_recvs(uint32_t max_conns)
{
	return app_group_recvs(max_conns, SHARE_MIN, 256);
}

static int server_open(struct server *s)
{
	struct rpcrdma_mempool_set_params sp;
	uint8_t fh[NFS3_FS_FH_LEN];
	uint32_t len, max = s->o.max_conns;
	int ret;

	s->conns = calloc(max, sizeof(*s->conns));
	s->conn_no = calloc(max, sizeof(*s->conn_no));
	if (s->conns == NULL || s->conn_no == NULL) {
		fprintf(stderr, PROG ": %u connections: %s\n", max, strerror(ENOMEM));
		return -ENOMEM;
	}
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = "nfs3-srv";
	/* the poll group's receives, slots and replies, or a QP's each with --capture */
	sp.inline_count = s->o.capture ? 1024 + max * (2 * CREDITS + 8)
				       : 1024 + app_group_bufs(max, srv_recvs(max));
	sp.nb_classes = 2;
	sp.classes[0].size = 64u << 10;
	sp.classes[0].count = 128;
	sp.classes[1].size = NFS3D_IO_MAX;
	sp.classes[1].count = 32;
	if (s->o.workers > 0)
		sp.cache_size = 0; /* taken on a worker, given back on the poller */
	ret = app_ep_open(&s->ep, s->o.com.pmd, s->o.com.devargs, &sp);
	/* --capture: connections of their own (a capture does not see an SRQ's receives) */
	if (ret == 0 && s->o.capture == NULL)
		ret = app_ep_group(&s->ep, max, srv_recvs(max), 0, &s->grp);
	if (ret)
		return ret;
	s->nfs.io_max = s->o.io_max;
	ret = fs_open(s);
	if (ret)
		return ret;
	ret = register_program(s);
	if (ret)
		return ret;
	ret = drc_open(s);
	if (ret)
		return ret;
	rpcrdma_xprt_svc_init(&s->glue, s->reg, 0);
	s->glue.reply_done = reply_done;
	s->glue.reply_done_arg = s;
	rpcrdma_xprt_params_init(&s->params, RPCRDMA_XPRT_SERVER);
	s->params.dev = s->ep.dev;
	s->params.pd = s->ep.pd;
	s->params.pools = s->ep.pools;
	/* at most; the poll group grants each connection its share (srv_recvs()) */
	s->params.max_credits = CREDITS;
	s->params.credits = CREDITS;
	s->params.group = s->grp;
	if (strcmp(s->o.com.pmd, "shm") != 0)
		s->params.flags &= ~(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV);
	rpcrdma_xprt_svc_bind(&s->glue, &s->params);
	if (s->o.capture) {
		struct rpcrdma_capture_params cp;

		rpcrdma_capture_params_init(&cp);
		cp.nb_large = CAPTURE_LARGE;
		ret = rpcrdma_capture_open(s->o.capture, &cp, &s->cap);
		if (ret) {
			s->cap = NULL;
			fprintf(stderr, PROG ": --capture %s: %s\n", s->o.capture, strerror(-ret));
			return ret;
		}
		s->params.qp_created = capture_qp;
		s->params.qp_ctx = s;
	}
	ret = rpcrdma_pmd_listen(s->ep.dev, s->listen, &s->listener);
	if (ret) {
		s->listener = NULL;
		fprintf(stderr, PROG ": listen on %s: %s\n", s->listen, strerror(-ret));
		return ret;
	}
	len = nfs3_fs_fh(s->nfs.fs, NFS3_FS_ROOT, fh);
	return nfs3d_mount_start((uint16_t)s->o.mount_port, fh, len, s->o.quiet, &s->mount);
}

/* The connections left and the poll group, whose receives and slots go back to the pools. */
static void conns_free(struct server *s)
{
	app_conns_destroy(s->conns, s->o.max_conns, s->grp);
	free(s->conns);
	free(s->conn_no);
	s->conns = NULL;
	s->conn_no = NULL;
	s->grp = NULL;
}

/*
 * Every buffer back: the engine's pools, the data area, no READ pinning
 * the file system. @return 0, or -EBUSY after a message.
 */
static int check_back(struct server *s)
{
	struct nfs3_fs_stats st = { 0 };
	int ret = 0;

	if (s->nfs.fs)
		nfs3_fs_stats(s->nfs.fs, &st);
	if (s->ep.pools && rpcrdma_mempool_set_check_all_back(s->ep.pools) != 0) {
		fprintf(stderr, PROG ": error: buffers not back in the engine's pools\n");
		ret = -EBUSY;
	}
	if (st.pinned || st.orphans || s->nfs.reads_out) {
		fprintf(stderr, PROG ": error: %u READ(s) still hold the file system\n",
			s->nfs.reads_out);
		ret = -EBUSY;
	}
	return ret;
}

static void server_close(struct server *s)
{
	struct rpcrdma_capture_stats cs;

	nfs3d_mount_stop(s->mount);
	if (s->listener)
		rpcrdma_pmd_listener_close(s->listener);
	if (s->cap) {
		rpcrdma_capture_flush(s->cap);
		rpcrdma_capture_stats(s->cap, &cs);
		if (rpcrdma_capture_close(s->cap) != 0)
			fprintf(stderr, PROG ": --capture: write error, the file is incomplete\n");
		else if (!s->o.quiet)
			printf(PROG ": capture: %lu frames, %lu bytes, %lu drops\n",
			       (unsigned long)cs.frames, (unsigned long)cs.bytes,
			       (unsigned long)cs.drops);
	}
	conns_free(s);
	nfs3_fs_free(s->nfs.fs);
	if (s->data)
		rpcrdma_mempool_put(s->data_pool, s->data);
	if (s->data_pool)
		rpcrdma_mempool_free(s->data_pool);
	rpcrdma_rt_free(s->rt);
	app_svc_registry_free(s->reg);
	rpcrdma_svc_drc_free(s->drc); /* after the registry that used it */
	app_ep_close(&s->ep);
}

/* ------------------------------------------------------------ options */

enum {
	O_LISTEN = APP_O_NEXT,
	O_SIZE,
	O_MOUNT_PORT,
	O_ONCE,
	O_CAPTURE,
	O_QUIET,
	O_WORKERS,
	O_IO_MAX,
	O_DRC_ENTRIES,
	O_MAX_CONNS,
};

static const struct option long_opts[] = {
	APP_LONG_OPTS,
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "size", required_argument, NULL, O_SIZE },
	{ "mount-port", required_argument, NULL, O_MOUNT_PORT },
	{ "once", no_argument, NULL, O_ONCE },
	{ "capture", required_argument, NULL, O_CAPTURE },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "workers", required_argument, NULL, O_WORKERS },
	{ "io-max", required_argument, NULL, O_IO_MAX },
	{ "drc-entries", required_argument, NULL, O_DRC_ENTRIES },
	{ "max-connections", required_argument, NULL, O_MAX_CONNS },
	{ NULL, 0, NULL, 0 },
};

static int parse_opts(struct opts *o, int argc, char **argv)
{
	int c, nopts, ret = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->size = 64ull << 20;
	o->mount_port = MOUNT_PORT;
	o->io_max = NFS3D_IO_MAX;
	o->drc_entries = 1024;
	o->max_conns = CONN_DEFAULT;
	nopts = app_opts_init(&o->com, argc, argv);
	while ((c = getopt_long(nopts, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_LISTEN:
			ret = app_parse_address("--listen", optarg, &o->listen);
			break;
		case O_SIZE:
			ret = app_parse_u64("--size", optarg, 1u << 20, SIZE_MAX_, true, &o->size);
			if (ret == 0 && o->size % (1u << 20))
				return app_usage_error("--size %s is not a multiple of 1 MiB",
						       optarg);
			break;
		case O_MOUNT_PORT:
			ret = app_parse_u64("--mount-port", optarg, 0, 65535, false, &v);
			o->mount_port = (uint32_t)v;
			break;
		case O_IO_MAX:
			ret = app_parse_u64("--io-max", optarg, NFS3_FS_PAGE, NFS3D_IO_MAX, true,
					    &v);
			if (ret == 0 && v % NFS3_FS_PAGE)
				return app_usage_error("--io-max %s is not a multiple of 4 KiB",
						       optarg);
			o->io_max = (uint32_t)v;
			break;
		case O_DRC_ENTRIES:
			ret = app_parse_u64("--drc-entries", optarg, 0, RPCRDMA_SVC_DRC_ENTRIES_MAX,
					    false, &v);
			o->drc_entries = (uint32_t)v;
			break;
		case O_MAX_CONNS:
			ret = app_parse_u64("--max-connections", optarg, 1, CONN_LIMIT, false, &v);
			o->max_conns = (uint32_t)v;
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
		default:
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
	return 0;
}

/* verbs: IP without a port listens on 20049 (an IPv6 address in brackets, too). */
static void listen_address(struct server *s)
{
	const char *a = s->o.listen, *colon = strrchr(a, ':');
	bool has_port = colon && (a[0] != '[' || colon > strchr(a, ']'));

	if (strcmp(s->o.com.pmd, "verbs") == 0 && !has_port)
		snprintf(s->listen, sizeof(s->listen), "%s:%u", a, NFS3D_PORT);
	else
		snprintf(s->listen, sizeof(s->listen), "%s", a);
}

/*
 * --workers N without --lcores: the main lcore, the poller and the N
 * workers as an EAL --lcores map over every CPU this process may run on
 * ("(0-3)@(0,1)"); the threads float over them.
 */
static void worker_lcores(char *buf, size_t len, unsigned int workers)
{
	char cpus[160] = "";
	size_t off = 0;
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int cpu = 0; cpu < CPU_SETSIZE && off + 8 < sizeof(cpus); cpu++)
			if (CPU_ISSET(cpu, &set))
				off += (size_t)snprintf(cpus + off, sizeof(cpus) - off, "%s%d",
							n++ ? "," : "", cpu);
	snprintf(buf, len, "(0-%u)@(%s)", workers + 1, n ? cpus : "0");
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_kick(int sig)
{
	kick_signal = 1;
}

int main(int argc, char **argv)
{
	struct server *s = &server;
	struct rpcrdma_svc_stats ss;
	char lcores[200];
	int ret;

	app_init(PROG);
	ret = parse_opts(&s->o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	listen_address(s);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_kick);
	if (s->o.com.lcores == NULL && s->o.workers > 0)
		worker_lcores(lcores, sizeof(lcores), s->o.workers);
	else if (s->o.com.lcores == NULL)
		app_one_cpu(true, lcores, sizeof(lcores));
	if (s->o.com.lcores == NULL)
		s->o.com.lcores = lcores;
	ret = app_eal_start(argv[0], s->o.com.lcores, s->o.com.eal_argc, s->o.com.eal_argv);
	if (ret)
		return ret;
	ret = server_open(s);
	if (ret == 0 && s->o.workers > 0)
		ret = workers_start(s);
	if (ret == 0) {
		if (!s->o.quiet) {
			printf(PROG ": serving %lu bytes on %s, NFS version 3; MOUNT on TCP port "
				    "%u\n",
			       (unsigned long)s->o.size, s->listen, nfs3d_mount_port(s->mount));
			fflush(stdout);
		}
		if (s->o.workers == 0) {
			s->last_work = rte_rdtsc();
			while (keep_serving(s))
				server_turn(s);
			close_conns(s);
		} else {
			serve_workers(s);
		}
		rpcrdma_svc_stats(s->reg, &ss);
		if (!s->o.quiet) {
			struct rpcrdma_svc_drc_stats d;

			memset(&d, 0, sizeof(d));
			if (s->drc != NULL)
				rpcrdma_svc_drc_stats(s->drc, &d);
			printf(PROG ": %lu connection(s); %lu calls, %lu replies, %lu through "
				    "reply chunks; %lu READs answered JUKEBOX; DRC %lu hits, %lu "
				    "dropped in progress, %lu stored\n",
			       (unsigned long)s->accepted, (unsigned long)ss.calls,
			       (unsigned long)s->glue.st.replies, (unsigned long)s->long_replies,
			       (unsigned long)s->nfs.jukebox, (unsigned long)d.hits,
			       (unsigned long)d.inprog_drops, (unsigned long)d.stores);
			app_conn_mem_report(stdout, PROG, &s->mem);
		}
		conns_free(s);
		ret = check_back(s);
	}
	server_close(s);
	rte_eal_cleanup();
	return ret ? APP_EXIT_FAIL : 0;
}
