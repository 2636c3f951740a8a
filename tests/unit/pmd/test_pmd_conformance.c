/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: driver.
 *
 *   test_pmd_conformance <pmd> inproc   server half on this lcore, client on another
 *   test_pmd_conformance <pmd> xproc    client halves in a second process (re-exec)
 *
 * Addresses: shm listens on "@rpcrdma-conf-<pid>-<case>" (abstract UNIX
 * sockets). verbs needs a local address of an RDMA device, from the
 * environment:
 *
 *   RPCRDMA_TEST_VERBS_ADDR=IP[:PORT]  listen and connect there; case i uses
 *                                      PORT + i (default PORT 31049); IPv6
 *                                      as [ADDR]:PORT or ADDR
 *   RPCRDMA_TEST_VERBS_DEVARGS=...     device arguments (rpcrdma_verbs.h),
 *                                      e.g. "dev=mlx5_0" or "ip=192.0.2.1"
 *
 *   RPCRDMA_TEST_CASES=a,b,...         run only these cases (by name)
 *
 * Cases that only make sense on shm (its devargs, MR table limits, fault
 * injection, software RNR counters) and SEND_WITH_INV where dev_info says a
 * peer cannot invalidate an MR are skipped with the reason printed.
 *
 * Exit 77 when the PMD cannot run here (verbs: the variables unset, or no
 * RDMA device), 1 when any check of either half failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "conformance.h"

#define OOB_TAG	    48
#define OOB_TIMEOUT 20000 /* ms */
#define WAIT_MS	    5000

#define VERBS_ADDR_ENV	  "RPCRDMA_TEST_VERBS_ADDR"
#define VERBS_DEVARGS_ENV "RPCRDMA_TEST_VERBS_DEVARGS"
#define VERBS_PORT_DEF	  31049
#define CASES_ENV	  "RPCRDMA_TEST_CASES"

pid_t conformance_child_pid;

/* The device under test, as the probe found it; the same in both processes. */
static struct rpcrdma_pmd_dev_info conf_info;
static bool conf_verbs;
static const char *conf_devargs; /* verbs: every case opens with these */
static char conf_host[48];	 /* verbs: "192.0.2.1" or "[2001:db8::1]" */
static unsigned int conf_port;

bool pdata_is(const struct ep *ep, const struct rpcrdma_pmd_event *ev, const uint8_t *want,
	      unsigned int len)
{
	unsigned int i;

	if (ep_is_shm(ep) ? ev->private_data_len != len : ev->private_data_len < len)
		return false;
	if (len != 0 && memcmp(ev->private_data, want, len) != 0)
		return false;
	for (i = len; i < ev->private_data_len; i++)
		if (ev->private_data[i] != 0)
			return false;
	return true;
}

/*
 * RPCRDMA_TEST_VERBS_ADDR: "IP", "IP:PORT", "[IPv6]", "[IPv6]:PORT" or a
 * bare IPv6 address. The verbs PMD checks the address itself; this only
 * splits off the port. -1 with a message when malformed.
 */
static int verbs_addr_env(const char *s)
{
	const char *colon, *port = NULL;
	size_t hlen;
	char *end;
	unsigned long p;

	if (s[0] == '[') {
		colon = strchr(s, ']');
		if (colon == NULL || (colon[1] != '\0' && colon[1] != ':'))
			goto bad;
		hlen = (size_t)(colon - s) + 1;
		if (colon[1] == ':')
			port = colon + 2;
		if (hlen >= sizeof(conf_host))
			goto bad;
		memcpy(conf_host, s, hlen);
		conf_host[hlen] = '\0';
	} else if ((colon = strchr(s, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		hlen = (size_t)(colon - s);
		if (hlen == 0 || hlen >= sizeof(conf_host))
			goto bad;
		memcpy(conf_host, s, hlen);
		conf_host[hlen] = '\0';
		port = colon + 1;
	} else if (colon != NULL) {
		if (snprintf(conf_host, sizeof(conf_host), "[%s]", s) >= (int)sizeof(conf_host))
			goto bad;
	} else {
		if (snprintf(conf_host, sizeof(conf_host), "%s", s) >= (int)sizeof(conf_host))
			goto bad;
	}
	conf_port = VERBS_PORT_DEF;
	if (port != NULL) {
		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno != 0 || end == port || *end != '\0' || p == 0 || p + nb_tcases > 65535)
			goto bad;
		conf_port = (unsigned int)p;
	}
	return 0;
bad:
	fprintf(stderr, "%s=\"%s\": expected IP[:PORT] (IPv6 as [ADDR]:PORT), PORT 1..%u\n",
		VERBS_ADDR_ENV, s, 65535 - nb_tcases);
	return -1;
}

/* Where case @idx listens, and where nobody does. */
static void conf_addrs(struct ep *ep, unsigned int idx, int parent_pid)
{
	if (conf_verbs) {
		snprintf(ep->addr, sizeof(ep->addr), "%s:%u", conf_host, conf_port + idx);
		snprintf(ep->noaddr, sizeof(ep->noaddr), "%s:%u", conf_host, conf_port + nb_tcases);
	} else {
		snprintf(ep->addr, sizeof(ep->addr), "@rpcrdma-conf-%d-%u", parent_pid, idx);
		snprintf(ep->noaddr, sizeof(ep->noaddr), "@rpcrdma-conf-nobody-listens-%d",
			 parent_pid);
	}
}

/* Why case @tc does not run on the device under test; NULL: it runs. */
static const char *case_skip(const struct tcase *tc)
{
	if (tc->shm_only != NULL && conf_info.transport != RPCRDMA_PMD_TRANSPORT_SHM)
		return tc->shm_only;
	if ((tc->needs & RPCRDMA_PMD_DEV_REMOTE_INV) &&
	    !(conf_info.flags & RPCRDMA_PMD_DEV_REMOTE_INV))
		return "dev_info: a peer's SEND_WITH_INV cannot invalidate an MR of this device "
		       "(whole-range registrations)";
	if (tc->broken_vendor != 0 && conf_info.vendor_id == tc->broken_vendor)
		return tc->broken_why;
	if ((tc->needs & RPCRDMA_PMD_DEV_RNR_RETRY) &&
	    !(conf_info.flags & RPCRDMA_PMD_DEV_RNR_RETRY))
		return "dev_info: no receiver-not-ready retry on this device (iWARP: a SEND "
		       "without a receive ends the connection)";
	return NULL;
}

static void oob_write(struct ep *ep, const void *v, size_t len)
{
	const char *p = v;

	while (len > 0) {
		ssize_t n = write(ep->oob, p, len);

		if (n <= 0) {
			fprintf(stderr, "[%s] out-of-band channel broken\n",
				ep->server ? "server" : "client");
			exit(1);
		}
		p += n;
		len -= (size_t)n;
	}
}

static void oob_read(struct ep *ep, void *v, size_t len)
{
	char *p = v;

	while (len > 0) {
		struct pollfd pfd = { .fd = ep->oob, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, OOB_TIMEOUT) != 1) {
			fprintf(stderr, "[%s] timeout waiting for the other half\n",
				ep->server ? "server" : "client");
			exit(1);
		}
		n = read(ep->oob, p, len);
		if (n <= 0) {
			fprintf(stderr, "[%s] the other half went away\n",
				ep->server ? "server" : "client");
			exit(1);
		}
		p += n;
		len -= (size_t)n;
	}
}

void oob_sync(struct ep *ep, const char *tag)
{
	char mine[OOB_TAG], theirs[OOB_TAG];

	memset(mine, 0, sizeof(mine));
	snprintf(mine, sizeof(mine), "%s", tag);
	oob_write(ep, mine, sizeof(mine));
	oob_read(ep, theirs, sizeof(theirs));
	if (memcmp(mine, theirs, sizeof(mine)) != 0) {
		fprintf(stderr, "[%s] out of step: at \"%s\", the other half at \"%.*s\"\n",
			ep->server ? "server" : "client", mine, OOB_TAG, theirs);
		exit(1);
	}
}

void oob_put(struct ep *ep, const void *v, size_t len)
{
	oob_write(ep, v, len);
}

void oob_get(struct ep *ep, void *v, size_t len)
{
	oob_read(ep, v, len);
}

void ep_qp_attr(struct ep *ep, struct rpcrdma_pmd_qp_attr *attr)
{
	rpcrdma_pmd_qp_attr_init(attr);
	attr->send_cq = ep->cq;
	attr->recv_cq = ep->cq;
	attr->max_send_wr = 64;
	attr->max_recv_wr = 64;
	attr->rnr_retry = 7;
	attr->rnr_timer_us = 5;
}

struct rpcrdma_pmd_qp *ep_qp_create(struct ep *ep, const struct rpcrdma_pmd_qp_attr *attr)
{
	struct rpcrdma_pmd_qp_attr def;
	struct rpcrdma_pmd_qp *qp;
	int ret;

	if (attr == NULL) {
		ep_qp_attr(ep, &def);
		attr = &def;
	}
	ret = rpcrdma_pmd_qp_create(ep->pd, attr, &qp);
	CHECK(ep, ret == 0);
	if (ret != 0 || ep->nb_qps == EP_QPS_MAX)
		return NULL;
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_INIT);
	ep->qps[ep->nb_qps++] = qp;
	return qp;
}

void ep_qp_destroy(struct ep *ep, struct rpcrdma_pmd_qp *qp)
{
	unsigned int i;

	for (i = 0; i < ep->nb_qps; i++)
		if (ep->qps[i] == qp) {
			ep->qps[i] = ep->qps[--ep->nb_qps];
			CHECK(ep, rpcrdma_pmd_qp_destroy(qp) == 0);
			return;
		}
	CHECK(ep, !"qp not found");
}

bool wait_event(struct ep *ep, int type, struct rpcrdma_pmd_qp *qp, struct rpcrdma_pmd_event *out)
{
	uint64_t end = test_now_ms() + WAIT_MS;
	unsigned int spins = 0;

	while (test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;
		int n = rpcrdma_pmd_event_poll(ep->dev, &ev, 1);

		CHECK(ep, n >= 0);
		if (n == 1) {
			if ((int)ev.type == type && (qp == NULL || ev.qp == qp)) {
				if (out != NULL)
					*out = ev;
				return true;
			}
			fprintf(stderr, "[%s] note: skipped event %d while waiting for %d\n",
				ep->server ? "server" : "client", ev.type, type);
			continue;
		}
		if (++spins % 64 == 0)
			sched_yield();
	}
	fprintf(stderr, "[%s] timeout waiting for event %d\n", ep->server ? "server" : "client",
		type);
	return false;
}

bool srv_accept(struct ep *ep, struct rpcrdma_pmd_qp *qp)
{
	struct rpcrdma_pmd_event ev;

	if (!wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev))
		return false;
	CHECK(ep, ev.req != NULL && ev.listener == ep->listener);
	if (rpcrdma_pmd_accept(ev.req, qp, NULL, 0) != 0)
		return false;
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
	return wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL);
}

bool cli_connect(struct ep *ep, struct rpcrdma_pmd_qp *qp)
{
	int ret = rpcrdma_pmd_connect(qp, ep->addr, NULL, 0);

	CHECK(ep, ret == 0);
	if (ret != 0)
		return false;
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_CONNECTING);
	if (!wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL))
		return false;
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
	return true;
}

unsigned int poll_n(struct ep *ep, struct rpcrdma_pmd_wc *wc, unsigned int n, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	unsigned int got = 0, spins = 0;

	while (got < n) {
		uint16_t k = rpcrdma_pmd_poll_cq_burst(ep->cq, wc + got, (uint16_t)(n - got));

		got += k;
		if (k == 0) {
			if (test_now_ms() >= end)
				break;
			if (++spins % 64 == 0)
				sched_yield();
		}
	}
	return got;
}

void *inl_get(struct ep *ep)
{
	void *b = rpcrdma_mempool_get(ep->set->inline_pool);

	CHECK(ep, b != NULL);
	return b;
}

void inl_put(struct ep *ep, void *buf)
{
	rpcrdma_mempool_put(ep->set->inline_pool, buf);
}

struct rpcrdma_pmd_sge sge_of(struct rpcrdma_mempool *pool, void *buf, uint32_t len)
{
	struct rpcrdma_pmd_sge s = { .addr = (uintptr_t)buf, .length = len, .lkey = pool->lkey };

	return s;
}

bool post_inline_recv(struct ep *ep, struct rpcrdma_pmd_qp *qp, uint32_t len)
{
	void *b = inl_get(ep);
	struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, b, len);
	struct rpcrdma_pmd_recv_wr wr = { .wr_id = (uintptr_t)b, .sg_list = &s, .num_sge = 1 };

	if (b == NULL)
		return false;
	if (rpcrdma_pmd_post_recv_burst(qp, &wr, 1) != 1) {
		inl_put(ep, b);
		CHECK(ep, !"post_recv_burst");
		return false;
	}
	return true;
}

void put_recv_bufs(struct ep *ep, const struct rpcrdma_pmd_wc *wc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (wc[i].opcode == RPCRDMA_PMD_WC_RECV)
			inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
}

bool post_send1(struct rpcrdma_pmd_qp *qp, const struct rpcrdma_pmd_send_wr *wr)
{
	if (rpcrdma_pmd_queue_send_burst(qp, wr, 1) != 1)
		return false;
	return rpcrdma_pmd_flush(qp) == 1;
}

/* ---------------- running halves ---------------- */

static int ep_open(struct ep *ep, const char *devargs, const char *pool_name)
{
	struct rpcrdma_mempool_set_params sp;
	int ret;

	ret = rpcrdma_pmd_dev_open(ep->pmd, devargs, &ep->dev);
	if (ret != 0) {
		fprintf(stderr, "[%s] dev_open(%s, %s): %s\n", ep->server ? "server" : "client",
			ep->pmd, devargs ? devargs : "", strerror(-ret));
		return ret;
	}
	CHECK(ep, rpcrdma_pmd_pd_alloc(ep->dev, &ep->pd) == 0);
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = pool_name;
	sp.inline_count = 256;
	sp.classes[0].count = 16;
	sp.classes[1].count = 2;
	sp.cache_size = 8;
	ret = rpcrdma_mempool_set_create(&sp, ep->pd, &ep->set);
	CHECK(ep, ret == 0);
	CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, 2048, &ep->cq) == 0); /* qp100: 100 x 16 */
	if (ep->server)
		CHECK(ep, rpcrdma_pmd_listen(ep->dev, ep->addr, &ep->listener) == 0);
	return ret;
}

/* A second device of the same driver and arguments, with pools and a CQ, listening nowhere. */
int ep_open_more(const struct ep *ep, struct ep *b)
{
	*b = *ep;
	b->nb_qps = 0;
	b->nb_scratch = 0;
	b->failures = 0;
	b->listener = NULL;
	b->server = false; /* no listener */
	if (ep_open(b, ep->devargs, ep->server ? "srv2" : "cli2") != 0)
		return -1;
	b->server = ep->server;
	return 0;
}

static void ep_close(struct ep *ep);

void ep_close_more(struct ep *ep, struct ep *b)
{
	ep_close(b);
	ep->failures += b->failures;
}

static void ep_close(struct ep *ep)
{
	while (ep->nb_qps > 0)
		ep_qp_destroy(ep, ep->qps[ep->nb_qps - 1]);
	if (ep->listener != NULL)
		CHECK(ep, rpcrdma_pmd_listener_close(ep->listener) == 0);
	ep->listener = NULL;
	CHECK(ep, rpcrdma_pmd_cq_destroy(ep->cq) == 0);
	if (ep->set != NULL) {
		/* every case gives back every buffer */
		CHECK(ep, rpcrdma_mempool_set_check_all_back(ep->set) == 0);
		rpcrdma_mempool_set_free(ep->set);
	}
	ep->set = NULL;
	CHECK(ep, rpcrdma_pmd_pd_free(ep->pd) == 0);
	CHECK(ep, rpcrdma_pmd_dev_close(ep->dev) == 0);
}

static void run_half(struct ep *ep, const struct tcase *tc, unsigned int idx, int parent_pid)
{
	char tag[OOB_TAG];
	int before = ep->failures;

	conf_addrs(ep, idx, parent_pid);
	ep->info = conf_info;
	ep->nb_qps = 0;
	ep->nb_scratch = 0;
	ep->listener = NULL;
	ep->devargs = conf_verbs   ? conf_devargs
		      : ep->server ? tc->server_devargs
				   : tc->client_devargs;
	if (ep_open(ep, ep->devargs, ep->server ? "srv" : "cli") != 0) {
		ep->failures++;
		return;
	}
	snprintf(tag, sizeof(tag), "open %s", tc->name);
	oob_sync(ep, tag);
	if (ep->server)
		tc->server(ep);
	else
		tc->client(ep);
	snprintf(tag, sizeof(tag), "done %s", tc->name);
	if (!tc->kills_peer)
		oob_sync(ep, tag);
	ep_close(ep);
	printf("%-4s %-24s (%s, %s)\n", ep->failures == before ? "ok" : "FAIL", tc->name,
	       ep->server ? "server" : "client", ep->xproc ? "cross-process" : "in-process");
	fflush(stdout);
}

/*
 * RPCRDMA_TEST_CASES=a,b,...: run only the cases named (both processes read
 * it); unset or empty: every case.
 */
static bool case_selected(const struct tcase *tc)
{
	const char *sel = getenv(CASES_ENV), *p;
	size_t len = strlen(tc->name);

	if (sel == NULL || sel[0] == '\0')
		return true;
	for (p = sel; p != NULL; p = strchr(p, ','), p = p != NULL ? p + 1 : NULL)
		if (strncmp(p, tc->name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

static bool case_runs(const struct tcase *tc, bool xproc, bool server)
{
	const char *why = case_skip(tc);

	if (!case_selected(tc))
		return false;

	if (why != NULL) {
		if (server) {
			printf("skip %-24s (%s)\n", tc->name, why);
			fflush(stdout);
		}
		return false;
	}
	return xproc ? !tc->inproc_only : !tc->xproc_only;
}

struct inproc_arg {
	struct ep *ep;
	const struct tcase *tc;
	unsigned int idx;
};

static int client_lcore(void *a)
{
	struct inproc_arg *arg = a;

	run_half(arg->ep, arg->tc, arg->idx, getpid());
	return 0;
}

static int run_inproc(const char *pmd)
{
	struct ep srv, cli;
	unsigned int i, lcore = rte_get_next_lcore(-1, 1, 0);
	int sv[2];

	if (lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "in-process mode needs two lcores\n");
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	srv.server = true;
	srv.pmd = cli.pmd = pmd;
	srv.oob = sv[0];
	cli.oob = sv[1];
	for (i = 0; i < nb_tcases; i++) {
		struct inproc_arg arg = { .ep = &cli, .tc = &tcases[i], .idx = i };

		if (!case_runs(&tcases[i], false, true))
			continue;
		if (rte_eal_remote_launch(client_lcore, &arg, lcore) != 0)
			return 1;
		run_half(&srv, &tcases[i], i, getpid());
		rte_eal_wait_lcore(lcore);
	}
	close(sv[0]);
	close(sv[1]);
	if (srv.failures + cli.failures != 0) {
		fprintf(stderr, "%d check(s) failed\n", srv.failures + cli.failures);
		return 1;
	}
	return 0;
}

static int run_peer(const char *pmd, int oob, int parent_pid)
{
	struct ep cli;
	unsigned int i;

	memset(&cli, 0, sizeof(cli));
	cli.pmd = pmd;
	cli.oob = oob;
	cli.xproc = true;
	for (i = 0; i < nb_tcases; i++)
		if (case_runs(&tcases[i], true, false))
			run_half(&cli, &tcases[i], i, parent_pid);
	return cli.failures != 0 ? 1 : 0;
}

static int run_xproc(const char *prog, const char *pmd, const char *child_lcores)
{
	struct ep srv;
	char fdarg[16], pidarg[16];
	bool killed = false;
	unsigned int i;
	int sv[2], status;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	snprintf(pidarg, sizeof(pidarg), "%d", getpid());
	conformance_child_pid = fork();
	if (conformance_child_pid < 0)
		return 1;
	if (conformance_child_pid == 0) {
		/* a fresh process: its own EAL, pools and devices (no fork after EAL state) */
		execl("/proc/self/exe", prog, "--peer", pmd, fdarg, pidarg, child_lcores,
		      (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	memset(&srv, 0, sizeof(srv));
	srv.server = true;
	srv.xproc = true;
	srv.pmd = pmd;
	srv.oob = sv[0];
	for (i = 0; i < nb_tcases; i++) {
		if (!case_runs(&tcases[i], true, true))
			continue;
		run_half(&srv, &tcases[i], i, getpid());
	}
	close(sv[0]);
	if (waitpid(conformance_child_pid, &status, 0) != conformance_child_pid)
		return 1;
	for (i = 0; i < nb_tcases; i++)
		if (strcmp(tcases[i].name, "peer_killed") == 0 && case_selected(&tcases[i]) &&
		    case_skip(&tcases[i]) == NULL)
			killed = true;
	if (killed ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		   : !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "client process failed (status 0x%x)\n", status);
		return 1;
	}
	if (srv.failures != 0) {
		fprintf(stderr, "%d check(s) failed\n", srv.failures);
		return 1;
	}
	return 0;
}

/* The first two CPUs this process may use, for the two halves. */
static void pick_cpus(int *a, int *b)
{
	cpu_set_t set;
	int cpu;

	*a = *b = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (*a < 0)
			*a = cpu;
		else if (*b < 0)
			*b = cpu;
	}
	if (*a < 0)
		*a = 0;
	if (*b < 0)
		*b = *a;
}

/*
 * The verbs PMD's address and device arguments from the environment.
 * 0: go on; 77: skip (said why); 1: malformed.
 */
static int verbs_env(void)
{
	const char *addr = getenv(VERBS_ADDR_ENV);

	conf_verbs = true;
	conf_devargs = getenv(VERBS_DEVARGS_ENV);
	if (addr == NULL || addr[0] == '\0') {
		printf("SKIP: the verbs conformance run needs a local address of an RDMA device: "
		       "set %s=IP[:PORT] (and %s=dev=NAME or ip=IP to choose the device)\n",
		       VERBS_ADDR_ENV, VERBS_DEVARGS_ENV);
		return 77;
	}
	return verbs_addr_env(addr) < 0 ? 1 : 0;
}

/* Open the PMD once: does it run here, and what can its device do. 0, 77 or 1. */
static int probe(const char *pmd)
{
	struct rpcrdma_pmd_dev *dev;
	int ret;

	ret = rpcrdma_pmd_dev_open(pmd, conf_devargs, &dev);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (ret == -ENOENT)
			printf("SKIP: PMD \"%s\" is not built in\n", pmd);
		else if (conf_verbs)
			printf("SKIP: PMD \"%s\" has no device here (%s=\"%s\"; set %s to "
			       "dev=NAME or ip=IP of an RDMA device, and %s=IP[:PORT])\n",
			       pmd, VERBS_DEVARGS_ENV, conf_devargs ? conf_devargs : "",
			       VERBS_DEVARGS_ENV, VERBS_ADDR_ENV);
		else
			printf("SKIP: PMD \"%s\" has no device on this machine\n", pmd);
		return 77;
	}
	if (ret < 0) {
		fprintf(stderr, "dev_open(%s, \"%s\"): %s\n", pmd, conf_devargs ? conf_devargs : "",
			strerror(-ret));
		return 1;
	}
	ret = rpcrdma_pmd_dev_info_get(dev, &conf_info);
	rpcrdma_pmd_dev_close(dev);
	if (ret < 0) {
		fprintf(stderr, "dev_info_get(%s): %s\n", pmd, strerror(-ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char lcores[32], child_lcores[16];
	int a, b, ret;
	bool xproc;

	pick_cpus(&a, &b);
	if (argc == 6 && strcmp(argv[1], "--peer") == 0) {
		if (strcmp(argv[2], "verbs") == 0 && verbs_env() != 0)
			return 1;
		ret = rpcrdma_mempool_eal_init(argv[0], argv[5]);
		if (ret < 0 || probe(argv[2]) != 0)
			return 1;
		return run_peer(argv[2], atoi(argv[3]), atoi(argv[4]));
	}
	if (argc != 3 || (strcmp(argv[2], "inproc") != 0 && strcmp(argv[2], "xproc") != 0)) {
		fprintf(stderr, "usage: %s <pmd> inproc|xproc\n", argv[0]);
		return 1;
	}
	if (strcmp(argv[1], "verbs") == 0) {
		ret = verbs_env();
		if (ret != 0)
			return ret;
	}
	xproc = strcmp(argv[2], "xproc") == 0;
	if (xproc) {
		snprintf(lcores, sizeof(lcores), "%d", a);
		snprintf(child_lcores, sizeof(child_lcores), "%d", b);
	} else if (a == b) {
		printf("SKIP: in-process mode needs two CPUs\n");
		return 77;
	} else {
		snprintf(lcores, sizeof(lcores), "%d,%d", a, b);
	}
	ret = rpcrdma_mempool_eal_init(argv[0], lcores);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s\n", strerror(-ret));
		return 1;
	}
	ret = probe(argv[1]);
	if (ret != 0)
		return ret;
	printf("%s: device %s, transport %u, flags 0x%x, inline %u, read depth %u\n", argv[1],
	       conf_info.dev_name, conf_info.transport, conf_info.flags, conf_info.max_inline_data,
	       conf_info.max_rdma_read_depth);
	signal(SIGPIPE, SIG_IGN);
	return xproc ? run_xproc(argv[0], argv[1], child_lcores) : run_inproc(argv[1]);
}
