/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt setup: a connection's life from parameters to close (bad
 * parameters refused; IDLE, CONNECTING, NEGOTIATING, ESTABLISHED walked one
 * step at a time; the RFC 8797 private data each end sees, with and without
 * it; the flags the device decides; a null call), and the engine's choices
 * from dev_info over "shm-plain", a driver registered by the test that
 * says what a verbs device says (no cheap registration, no remote
 * invalidation, 2 SGEs a Send, 1 an RDMA Read).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_pmd_driver.h>

#include "test_xprt.h"

void test_setup(void)
{
	struct rpcrdma_xprt_info ci, si;
	const struct rpcrdma_pmd_peer *peer;
	uint64_t key;
	struct rpcrdma_xprt_stats st;
	struct env e;
	struct tcall t = { .proc = PROC_NULL };
	uint32_t kept = flags_kept(test_side_dev_info(), DEF_FLAGS);
	uint64_t end;
	bool up;
	int n;

	if (!env_open(&e, NULL, NULL))
		return;
	/* bad parameters */
	e.cli.params.max_calls = 3;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == -EINVAL, "max_calls pow2");
	cli_params(&e, DEF_FLAGS);
	e.cli.params.send_inline = 1u << 20;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == -EINVAL, "inline > buffer");
	cli_params(&e, DEF_FLAGS);
	e.cli.xprt = NULL;

	/* IDLE -> CONNECTING -> NEGOTIATING -> ESTABLISHED, one step at a time */
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_IDLE, "IDLE");
	CHECK(rpcrdma_xprt_process(e.cli.xprt) == 0, "IDLE is stable");
	CHECK(rpcrdma_xprt_call_alloc(e.cli.xprt, &t.call) == 0, "alloc while idle");
	CHECK(rpcrdma_xprt_call_submit(t.call, 0, tcall_cb, &t) == 0 && t.done &&
		      t.status == -ENOTCONN,
	      "a call while IDLE fails at once: %d", t.status);
	CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == 0, "connect");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_CONNECTING, "CONNECTING");
	CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == -EISCONN, "connect twice");
	/* the client's device resolves the address and route first (rdma_cm) */
	for (end = test_now_ms() + WAIT_MS; e.srv.xprt == NULL && test_now_ms() < end;) {
		test_side_events(&e.cli, NULL);
		test_side_events(&e.srv, srv_accept);
	}
	CHECK(e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CONNECTING,
	      "server CONNECTING after accept");
	/* the client's ESTABLISHED carries the server's private data */
	for (end = test_now_ms() + WAIT_MS; test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(e.cli.dev, &ev, 1) != 1)
			continue;
		CHECK(ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED && ev.private_data_len >= 8,
		      "ESTABLISHED with private data");
		/* walk the transition by hand: event, then process */
		rpcrdma_xprt_event(&ev);
		break;
	}
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED,
	      "client ESTABLISHED after NEGOTIATING: %s",
	      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e.cli.xprt)));
	CHECK(pump_until(&e, both_established, NULL), "server ESTABLISHED");
	/* the server knows its client (this process on shm; an IP on verbs), the client no peer */
	peer = rpcrdma_xprt_peer(e.srv.xprt);
	key = rpcrdma_pmd_peer_key(peer);
	CHECK(peer != NULL && (peer->addr.ss_family == AF_UNIX
				       ? peer->pid == getpid() && peer->uid == (int32_t)getuid()
				       : (peer->addr.ss_family == AF_INET ||
					  peer->addr.ss_family == AF_INET6) &&
						 peer->pid == -1),
	      "the server connection's peer: family %d pid %d", peer ? peer->addr.ss_family : -1,
	      peer ? peer->pid : 0);
	CHECK(key != 0 && rpcrdma_xprt_peer_key(e.srv.xprt) == (uint32_t)(key ^ key >> 32),
	      "its key, folded: %#lx %#lx", (unsigned long)key,
	      (unsigned long)rpcrdma_xprt_peer_key(e.srv.xprt));
	CHECK(rpcrdma_xprt_peer(e.cli.xprt) == NULL && rpcrdma_xprt_peer_key(e.cli.xprt) == 0,
	      "a client connection names no peer");
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	CHECK(ci.peer_pdata && si.peer_pdata, "both sent RFC 8797 data");
	CHECK(ci.send_inline == 4096 && ci.recv_inline == 4096 && si.send_inline == 4096,
	      "4 KiB thresholds negotiated: %u %u", ci.send_inline, ci.recv_inline);
	/* the device decides (rpcrdma_xprt.h): what the params asked, less what it cannot do */
	CHECK(ci.flags == kept && si.flags == kept, "flags in force %#x %#x, want %#x", ci.flags,
	      si.flags, kept);
	CHECK(si.peer_remote_inv == ((kept & RPCRDMA_XPRT_F_REMOTE_INV) != 0) &&
		      !ci.peer_remote_inv,
	      "the client offered SWI where the device allows: %d", si.peer_remote_inv);
	CHECK(ci.grant == 1, "one credit before the first reply: %u", ci.grant);

	/* a null call */
	memset(&t, 0, sizeof(t));
	t.proc = PROC_NULL;
	CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call: %d", t.status);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	/* the reply goes before its receive is reposted: the spare receives keep the target */
	CHECK(ci.grant == 32, "the grant after the first reply: %u", ci.grant);
	stats(&e.cli, &st);
	CHECK(st.calls == 1 && st.replies == 1 && st.short_msgs == 1, "counters");
	CHECK(st.doorbells >= 1 && st.wrs == 1, "one WR, one doorbell: %lu %lu",
	      (unsigned long)st.wrs, (unsigned long)st.doorbells);

	/* ESTABLISHED -> DRAINING -> CLOSED, and a reconnect */
	CHECK(rpcrdma_xprt_disconnect(e.cli.xprt) == 0, "disconnect");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_DRAINING, "DRAINING");
	CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == -EBUSY, "no destroy while draining");
	CHECK(pump_until(&e, both_closed, NULL), "CLOSED");
	CHECK(rpcrdma_xprt_disconnect(e.cli.xprt) == -ENOTCONN, "disconnect when closed");
	CHECK(env_connect(&e), "reconnect");
	memset(&t, 0, sizeof(t));
	CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call after reconnect");
	env_close(&e);

	/* nobody listening: ERROR at once (shm) or after the event (rdma_cm's REJECTED) */
	if (!env_open(&e, NULL, NULL))
		return;
	rpcrdma_pmd_listener_close(e.srv.listener);
	e.srv.listener = NULL;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	n = rpcrdma_xprt_connect(e.cli.xprt, e.addr);
	if (n == 0)
		pump_until(&e, both_closed, NULL);
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ERROR, "refused: %d, state %s", n,
	      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e.cli.xprt)));
	env_close(&e);

	/* a bare client without private data: the server uses 1024 bytes */
	if (!env_open(&e, NULL, NULL))
		return;
	bare_qp(&e.cli);
	CHECK(rpcrdma_pmd_connect(e.cli.qp, e.addr, NULL, 0) == 0, "bare connect");
	/*
	 * Both ends up: the client's ESTABLISHED may come after the server's
	 * (siw), and a QP still connecting cannot be disconnected.
	 */
	up = false;
	for (end = test_now_ms() + WAIT_MS;
	     !(up && e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_ESTABLISHED) &&
	     test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		/* the server's side only: the client's events are read here */
		test_side_poll(&e.srv, srv_accept);
		if (rpcrdma_pmd_event_poll(e.cli.dev, &ev, 1) == 1 &&
		    ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			up = true;
	}
	CHECK(up, "the bare client ESTABLISHED");
	CHECK(e.srv.xprt != NULL, "accepted");
	if (e.srv.xprt) {
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(!si.peer_pdata && si.send_inline == 1024 && si.recv_inline == 1024 &&
			      !si.peer_remote_inv,
		      "defaults without private data: %u %u", si.send_inline, si.recv_inline);
	}
	CHECK(rpcrdma_pmd_disconnect(e.cli.qp) == 0, "the bare client disconnects");
	env_close(&e);
}

/*
 * "shm-plain": the shm driver under another name, whose dev_info says what
 * a verbs device says: registration is not cheap, a peer cannot
 * invalidate our MRs; and that a Send gathers 2 entries at most, which
 * its QPs then enforce (a QP asked for more is refused, as verbs refuses
 * one beyond the device's max_sge; a WR with more fails). Registered by
 * the test, so that the engine's choices from dev_info are checked on
 * every machine.
 */
#define PLAIN_SGE 2

static struct rpcrdma_pmd_ops plain_ops;
static int (*shm_info_get)(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info);
static int (*shm_qp_create)(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			    struct rpcrdma_pmd_qp **qp);

static int plain_info_get(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info)
{
	int ret = shm_info_get(dev, info);

	info->flags &= ~(RPCRDMA_PMD_DEV_CHEAP_MR_REG | RPCRDMA_PMD_DEV_REMOTE_INV);
	info->max_send_sge = PLAIN_SGE;
	info->max_read_sge = 1;
	return ret;
}

/* RDMA Reads queued on shm-plain QPs, and those with more SGEs than its max_read_sge (1) */
static rpcrdma_pmd_queue_send_burst_t shm_queue_send;
static unsigned long plain_reads, plain_reads_over;

static uint16_t plain_queue_send(struct rpcrdma_pmd_qp *qp, const struct rpcrdma_pmd_send_wr *wrs,
				 uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		if (wrs[i].opcode == RPCRDMA_PMD_WR_RDMA_READ) {
			plain_reads++;
			plain_reads_over += wrs[i].num_sge > 1;
		}
	return shm_queue_send(qp, wrs, n);
}

static int plain_qp_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			   struct rpcrdma_pmd_qp **qp)
{
	int ret;

	if (attr->max_send_sge > PLAIN_SGE)
		return -EINVAL;
	ret = shm_qp_create(pd, attr, qp);
	if (ret == 0) {
		shm_queue_send = (*qp)->queue_send_burst;
		(*qp)->queue_send_burst = plain_queue_send;
	}
	return ret;
}

static bool plain_register(void)
{
	struct rpcrdma_pmd_dev *dev;

	if (plain_ops.name != NULL)
		return true;
	if (rpcrdma_pmd_dev_open("shm", NULL, &dev) != 0)
		return false;
	plain_ops = *dev->ops;
	rpcrdma_pmd_dev_close(dev);
	shm_info_get = plain_ops.dev_info_get;
	shm_qp_create = plain_ops.qp_create;
	if (shm_info_get == NULL)
		return false;
	plain_ops.name = "shm-plain";
	plain_ops.dev_info_get = plain_info_get;
	plain_ops.qp_create = plain_qp_create;
	rpcrdma_pmd_register(&plain_ops);
	return true;
}

/*
 * The engine takes its registration and invalidation flags from the
 * device, whatever the params ask (the defaults ask for both): a client on
 * a device without cheap registration registers nothing per call and
 * offers no Send With Invalidate; a server on such a device still sends
 * it when the client offered it (sending is not what the flag is about).
 * And its Sends and Writes gather no more entries than the device's
 * max_send_sge, its RDMA Reads no more than max_read_sge (iWARP: 1): every
 * form goes through, on either end.
 */
void test_dev_flags(void)
{
	const uint32_t both = RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV;
	struct rpcrdma_xprt_params dflt;
	struct rpcrdma_xprt_stats cs, ss;
	struct rpcrdma_xprt_info ci, si;
	struct env e;

	rpcrdma_xprt_params_init(&dflt, RPCRDMA_XPRT_CLIENT);
	CHECK((dflt.flags & both) == both, "the defaults ask for both: %#x", dflt.flags);
	if (!test_side_case_runs(test_side_shm(), "dev_flags (shm-plain)",
				 "registers a driver over shm's; the device under test's own "
				 "flags are checked by setup"))
		return;
	CHECK(plain_register(), "register shm-plain");
	for (int plain_cli = 1; plain_cli >= 0; plain_cli--) {
		struct tcall t = TCALL_WRITE1;

		if (!env_open_on(&e, plain_cli ? "shm-plain" : NULL, NULL,
				 plain_cli ? NULL : "shm-plain", NULL))
			return;
		if (!env_connect(&e)) {
			env_close(&e);
			return;
		}
		const struct tcall more[] = {
			{ .proc = PROC_TEST, .words = 10, .nitems = 1, .item_len = { 100 } },
			{ .proc = PROC_TEST,
			  .words = 3,
			  .nitems = 3,
			  .item_len = { 40000, 1, 7001 } },
			TCALL_WRITE3,
			{ .proc = PROC_TEST, .words = 800, .rwords = 900 },
			{ .proc = PROC_TEST, .words = 2, .nres = 3, .res_len = { 100, 33, 7 } },
		};

		rpcrdma_xprt_info(e.cli.xprt, &ci);
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK((ci.flags & both) == (plain_cli ? 0 : both) &&
			      (si.flags & both) == (plain_cli ? both : 0),
		      "flags in force: client %#x, server %#x", ci.flags, si.flags);
		CHECK(si.peer_remote_inv == !plain_cli, "SWI offered: %d", si.peer_remote_inv);
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "write chunk call: %d", t.status);
		stats(&e.cli, &cs);
		stats(&e.srv, &ss);
		CHECK(cs.mr_regs == (plain_cli ? 0 : 1) && ss.send_inv == (plain_cli ? 0 : 1),
		      "plain %s: %lu registrations, %lu SWI", plain_cli ? "client" : "server",
		      (unsigned long)cs.mr_regs, (unsigned long)ss.send_inv);
		for (unsigned int i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
			t = more[i];
			CHECK(run_call(&e, &t) && t.status == 0 && t.ok && sctx.bad == 0,
			      "plain %s, call %u: %d", plain_cli ? "client" : "server", i,
			      t.status);
		}
		CHECK(plain_cli || (plain_reads >= 3 && plain_reads_over == 0),
		      "a plain server's Reads: %lu, %lu over max_read_sge", plain_reads,
		      plain_reads_over);
		/* the last reply's 3 results inline: 8 entries, copied into one on 2 */
		stats(&e.srv, &ss);
		CHECK(ss.inline_pullups == (plain_cli ? 0 : 1), "results copied inline: %lu",
		      (unsigned long)ss.inline_pullups);
		env_close(&e);
	}
}
