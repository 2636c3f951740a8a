/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD connection management through rdma_cm, and the device's
 * asynchronous events (the QP objects are verbs_ctrl.c's).
 *
 * Connections use rdma_cm with QPs the PMD creates itself ("manual" QPs:
 * rdma_connect and rdma_accept carry the QP number; the PMD moves the QP
 * through RTR and RTS with the attributes rdma_init_qp_attr returns):
 *
 *   client: connect       -> rdma_resolve_addr          RESOLVING
 *           ADDR_RESOLVED -> rdma_resolve_route
 *           ROUTE_RESOLVED-> rdma_connect               CONNECTING
 *           CONNECT_RESPONSE -> RTR, RTS, rdma_establish UP      => ESTABLISHED
 *   server: CONNECT_REQUEST                                       => CONNECT_REQUEST
 *           accept        -> RTR, RTS, rdma_accept      ACCEPTED
 *           ESTABLISHED                                 UP       => ESTABLISHED
 *
 * The event channel and the device's async fd are non-blocking: event_poll
 * reads whatever is there and never waits. Each rdma_cm event is copied and
 * acknowledged at once, so that rdma_destroy_id never waits for one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_pmd.h"

#define VERBS_RESOLVE_MS 2000 /* address and route resolution timeout */
#define VERBS_BACKLOG	 128

struct verbs_listener {
	struct rpcrdma_pmd_listener common;
	struct rdma_cm_id *id;
	struct verbs_ep ep;
	char addr[64];
};

/*
 * The connection of @qp is gone. A QP that was connecting goes back to
 * INIT (it may connect again, as on shm) with CONNECT_ERROR or REJECTED;
 * one that was accepted or up moves to error and reports DISCONNECTED once.
 * @local: we noticed it, not the peer: tell the peer (rdma_disconnect).
 */
static void conn_down(struct verbs_qp *qp, enum rpcrdma_pmd_event_type type, bool local,
		      const void *pdata, size_t pdata_len)
{
	struct verbs_dev *dev = qp->dev;

	switch (qp->conn) {
	case VERBS_CONN_RESOLVING:
	case VERBS_CONN_CONNECTING:
		if (qp->cm_id != NULL)
			rdma_destroy_id(qp->cm_id);
		qp->cm_id = NULL;
		if (qp->conn == VERBS_CONN_CONNECTING &&
		    !(dev->info.flags & RPCRDMA_PMD_DEV_QP_RECONNECT)) {
			/* iWARP: the attempt bound the QP to its stream for good */
			verbs_qp_to_err(qp);
			qp->conn = VERBS_CONN_DOWN;
			qp->disc_reported = true;
		} else {
			/* the QP never left INIT: it may connect again */
			qp->conn = VERBS_CONN_IDLE;
			qp->common.state = RPCRDMA_PMD_QPS_INIT;
		}
		verbs_ev_push(dev,
			      type == RPCRDMA_PMD_EVENT_REJECTED ? type
								 : RPCRDMA_PMD_EVENT_CONNECT_ERROR,
			      qp, NULL, pdata, pdata_len);
		return;
	case VERBS_CONN_ACCEPTED:
	case VERBS_CONN_UP:
		if (local && qp->cm_id != NULL)
			rdma_disconnect(qp->cm_id);
		verbs_qp_to_err(qp);
		qp->conn = VERBS_CONN_DOWN;
		/*
		 * Sends staged and not yet flushed complete with WR_FLUSH_ERR
		 * now, after those before them: a later flush is only for what
		 * is staged after this.
		 */
		if (qp->sq_head != qp->sq_db)
			qp->common.flush(&qp->common);
		if (!qp->disc_reported) {
			qp->disc_reported = true;
			verbs_ev_push(dev,
				      type == RPCRDMA_PMD_EVENT_CONNECT_ERROR
					      ? type
					      : RPCRDMA_PMD_EVENT_DISCONNECTED,
				      qp, NULL, NULL, 0);
		}
		return;
	default: /* IDLE, DOWN: no connection to lose */
		return;
	}
}

/*
 * The QP itself is broken (asynchronous QP, CQ or device error, or a flush
 * the provider refused): it is in error whatever its connection state. A
 * connection being set up fails with CONNECT_ERROR, one that was up is
 * reported DISCONNECTED, and the peer is told.
 */
static void qp_broken(struct verbs_qp *qp)
{
	switch (qp->conn) {
	case VERBS_CONN_RESOLVING:
	case VERBS_CONN_CONNECTING:
		if (qp->cm_id != NULL)
			rdma_destroy_id(qp->cm_id);
		qp->cm_id = NULL;
		verbs_qp_to_err(qp);
		qp->conn = VERBS_CONN_DOWN;
		qp->disc_reported = true;
		verbs_ev_push(qp->dev, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL, NULL, 0);
		return;
	case VERBS_CONN_ACCEPTED:
	case VERBS_CONN_UP:
		conn_down(qp, RPCRDMA_PMD_EVENT_DISCONNECTED, true, NULL, 0);
		return;
	default:
		verbs_qp_to_err(qp);
		qp->conn = VERBS_CONN_DOWN;
		return;
	}
}

/* QPs whose provider refused a flush (verbs_fp.c): to error on the device, and down. */
static void fatal_poll(struct verbs_dev *dev)
{
	struct verbs_qp *qp;

	while ((qp = TAILQ_FIRST(&dev->fatal_qps)) != NULL) {
		TAILQ_REMOVE(&dev->fatal_qps, qp, fatal_next);
		qp->fatal_queued = false;
		verbs_log("qp %u: the provider refused a flush (%s): the QP moves to error",
			  qp->common.qp_num, strerror(-qp->fatal_err));
		qp_broken(qp);
	}
}

/*
 * INIT -> RTR -> RTS with the attributes rdma_cm resolved for @id, and the
 * QP's own RNR settings. The QP was put in INIT on port dev->port with
 * P_Key index 0; a route through another port or P_Key moves it INIT ->
 * INIT first.
 */
static int qp_connect_states(struct verbs_qp *qp, struct rdma_cm_id *id)
{
	struct verbs_dev *dev = qp->dev;
	struct ibv_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	ret = verbs_err(rdma_init_qp_attr(id, &a, &mask));
	if (ret < 0)
		goto err;
	if (a.port_num != dev->port || a.pkey_index != 0) {
		ret = verbs_qp_modify(qp, &a, mask);
		if (ret < 0) {
			verbs_log("qp %u: the route uses port %u P_Key index %u, the QP is on "
				  "port %u (open the device with port=%u): %s",
				  qp->common.qp_num, a.port_num, a.pkey_index, dev->port,
				  a.port_num, strerror(-ret));
			return ret;
		}
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = verbs_err(rdma_init_qp_attr(id, &a, &mask));
	if (ret < 0)
		goto err;
	a.min_rnr_timer = qp->rnr_timer;
	mask |= IBV_QP_MIN_RNR_TIMER;
	if (dev->args.gid_index >= 0 && a.ah_attr.is_global)
		a.ah_attr.grh.sgid_index = (uint8_t)dev->args.gid_index;
	ret = verbs_qp_modify(qp, &a, mask);
	if (ret < 0)
		goto err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	ret = verbs_err(rdma_init_qp_attr(id, &a, &mask));
	if (ret < 0)
		goto err;
	a.rnr_retry = qp->rnr_retry;
	mask |= IBV_QP_RNR_RETRY;
	ret = verbs_qp_modify(qp, &a, mask);
	if (ret < 0)
		goto err;
	return 0;

err:
	verbs_log("qp %u: moving to %s: %s", qp->common.qp_num,
		  a.qp_state == IBV_QPS_RTS   ? "RTS"
		  : a.qp_state == IBV_QPS_RTR ? "RTR"
					      : "INIT",
		  strerror(-ret));
	return ret;
}

static void conn_param_fill(struct verbs_qp *qp, struct rdma_conn_param *cp, const void *pdata,
			    uint8_t pdata_len, uint8_t resp_res, uint8_t init_depth)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = pdata_len != 0 ? pdata : NULL;
	cp->private_data_len = pdata_len;
	cp->responder_resources = resp_res;
	cp->initiator_depth = init_depth;
	cp->flow_control = 1;
	cp->retry_count = 7;
	cp->rnr_retry_count = qp->rnr_retry;
	cp->qp_num = qp->qp->qp_num;
	cp->srq = qp->on_srq; /* the QP is ours, not rdma_cm's: it cannot tell */
}

static uint8_t min_u8(int a, int b)
{
	int m = a < b ? a : b;

	return (uint8_t)(m < 0 ? 0 : m > 255 ? 255 : m);
}

/* ---------------- connection manager ---------------- */

int verbs_listen(struct rpcrdma_pmd_dev *d, const char *addr, struct rpcrdma_pmd_listener **lp)
{
	struct verbs_dev *dev = to_verbs_dev(d);
	struct sockaddr_storage ss;
	struct verbs_listener *l;
	char err[96];
	int ret;

	ret = verbs_addr_parse(addr, true, RPCRDMA_VERBS_PORT_DEFAULT, &ss, err, sizeof(err));
	if (ret < 0) {
		verbs_log("listen \"%s\": %s", addr, err);
		return ret;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	l->ep.kind = VERBS_EP_LISTENER;
	l->ep.obj = l;
	verbs_addr_str((struct sockaddr *)&ss, l->addr, sizeof(l->addr));
	if (rdma_create_id(dev->cm, &l->id, &l->ep, RDMA_PS_TCP) != 0) {
		ret = verbs_err(-1);
		goto err_free;
	}
	if (rdma_bind_addr(l->id, (struct sockaddr *)&ss) != 0) {
		ret = verbs_err(-1);
		verbs_log("listen %s: rdma_bind_addr: %s", l->addr, strerror(-ret));
		goto err_id;
	}
	if (l->id->verbs != NULL && !verbs_same_device(dev, l->id->verbs)) {
		verbs_log("listen %s: the address is on %s, this device is %s", l->addr,
			  ibv_get_device_name(l->id->verbs->device), dev->name);
		ret = -EINVAL;
		goto err_id;
	}
	if (rdma_listen(l->id, VERBS_BACKLOG) != 0) {
		ret = verbs_err(-1);
		verbs_log("listen %s: rdma_listen: %s", l->addr, strerror(-ret));
		goto err_id;
	}
	verbs_info("%s: listening on %s", dev->name, l->addr);
	*lp = &l->common;
	return 0;

err_id:
	rdma_destroy_id(l->id);
err_free:
	free(l);
	return ret;
}

void verbs_listener_close(struct rpcrdma_pmd_listener *lp)
{
	struct verbs_listener *l = container_of(lp, struct verbs_listener, common);
	struct verbs_dev *dev = to_verbs_dev(lp->dev);
	struct verbs_req *req;

	/* requests not accepted yet are rejected; the user still holds them */
	TAILQ_FOREACH(req, &dev->reqs, next)
	{
		if (req->common.listener != lp)
			continue;
		req->common.listener = NULL;
		if (req->state == VERBS_REQ_REQUESTED)
			rdma_reject(req->id, NULL, 0);
		if (req->id != NULL)
			rdma_destroy_id(req->id);
		req->id = NULL;
		req->state = VERBS_REQ_DEAD;
	}
	rdma_destroy_id(l->id);
	free(l);
}

int verbs_connect(struct rpcrdma_pmd_qp *q, const char *addr, const void *pdata, uint8_t pdata_len)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	struct verbs_dev *dev = qp->dev;
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;
	char err[96];
	int ret;

	ret = verbs_addr_parse(addr, true, RPCRDMA_VERBS_PORT_DEFAULT, &dst, err, sizeof(err));
	if (ret < 0) {
		verbs_log("connect \"%s\": %s", addr, err);
		return ret;
	}
	if (dev->fatal)
		return -EIO;
	if (rdma_create_id(dev->cm, &id, &qp->ep, RDMA_PS_TCP) != 0)
		return verbs_err(-1);
	if (rdma_resolve_addr(id, dev->args.has_ip ? (struct sockaddr *)&dev->args.ip : NULL,
			      (struct sockaddr *)&dst, VERBS_RESOLVE_MS) != 0) {
		ret = verbs_err(-1);
		verbs_log("qp %u: rdma_resolve_addr %s: %s", q->qp_num, addr, strerror(-ret));
		rdma_destroy_id(id);
		return ret;
	}
	qp->cm_id = id;
	qp->pdata_len = pdata_len;
	if (pdata_len != 0)
		memcpy(qp->pdata, pdata, pdata_len);
	qp->conn = VERBS_CONN_RESOLVING;
	qp->disc_reported = false;
	q->state = RPCRDMA_PMD_QPS_CONNECTING;
	return 0;
}

int verbs_accept(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_qp *q, const void *pdata,
		 uint8_t pdata_len)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);
	struct verbs_qp *qp = to_verbs_qp(q);
	struct verbs_dev *dev = qp->dev;
	struct rdma_conn_param cp;
	struct rdma_cm_id *id;
	int ret;

	if (req->state != VERBS_REQ_REQUESTED) {
		verbs_req_free(dev, req);
		return -ENOTCONN;
	}
	id = req->id;
	ret = qp_connect_states(qp, id);
	if (ret < 0)
		goto err_reject;
	/*
	 * The request's values are already the server's view (the kernel's CM
	 * reports the client's initiator depth as our responder resources and
	 * its responder resources as our initiator depth): taken as they are.
	 * Crossing them again told a client that initiates no Read (Linux
	 * xprtrdma offers Reads but sets initiator_depth 0) that the server
	 * makes none either, and its QP refused the server's RDMA Reads.
	 */
	conn_param_fill(qp, &cp, pdata, pdata_len,
			min_u8(req->responder_resources, dev->attr.max_qp_rd_atom),
			min_u8(req->initiator_depth, dev->attr.max_qp_init_rd_atom));
	/* events of the id are the QP's from now on */
	id->context = &qp->ep;
	if (rdma_accept(id, &cp) != 0) {
		ret = verbs_err(-1);
		id->context = &req->ep;
		verbs_log("qp %u: rdma_accept: %s", q->qp_num, strerror(-ret));
		goto err_reject;
	}
	req->id = NULL;
	verbs_req_free(dev, req);
	qp->cm_id = id;
	qp->conn = VERBS_CONN_ACCEPTED;
	qp->disc_reported = false;
	q->state = RPCRDMA_PMD_QPS_RTS;
	return 0;

err_reject:
	/* the QP may be half way to RTS: error, so its receives flush back */
	rdma_reject(id, NULL, 0);
	verbs_req_free(dev, req);
	verbs_qp_to_err(qp);
	return ret == -EINVAL ? -ENOTCONN : ret;
}

int verbs_reject(struct rpcrdma_pmd_conn_req *r, const void *pdata, uint8_t pdata_len)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);
	struct verbs_dev *dev = to_verbs_dev(r->dev);

	if (req->state == VERBS_REQ_REQUESTED && rdma_reject(req->id, pdata, pdata_len) != 0)
		verbs_log("rdma_reject: %s", strerror(errno));
	verbs_req_free(dev, req);
	return 0;
}

/*
 * On the thread of the request's device: the request's rdma_cm id moves to
 * @to's event channel (rdma_migrate_id waits for no event: each is
 * acknowledged when read), so @to reads what comes of it from now on, and
 * the request leaves this device's list. An id gone already (the client
 * left) has nothing to move: the request arrives dead.
 */
int verbs_conn_req_handoff(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_dev *t)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);
	struct verbs_dev *dev = to_verbs_dev(r->dev), *to = to_verbs_dev(t);

	if (strcmp(dev->name, to->name) != 0)
		return -EXDEV;
	if (req->id != NULL && rdma_migrate_id(req->id, to->cm) != 0) {
		int ret = verbs_err(-1);

		verbs_log("%s: rdma_migrate_id: %s", dev->name, strerror(-ret));
		return ret;
	}
	TAILQ_REMOVE(&dev->reqs, req, next);
	verbs_ev_forget(dev, NULL, req);
	return 0;
}

/* On the thread of @to: the request is @to's (an event of its id may have marked it dead). */
void verbs_conn_req_adopt(struct rpcrdma_pmd_dev *t, struct rpcrdma_pmd_conn_req *r)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);

	TAILQ_INSERT_TAIL(&to_verbs_dev(t)->reqs, req, next);
}

int verbs_disconnect(struct rpcrdma_pmd_qp *q)
{
	struct verbs_qp *qp = to_verbs_qp(q);

	if (qp->conn != VERBS_CONN_UP && qp->conn != VERBS_CONN_ACCEPTED)
		return -ENOTCONN;
	conn_down(qp, RPCRDMA_PMD_EVENT_DISCONNECTED, true, NULL, 0);
	return 0;
}

static enum verbs_cm_role qp_role(const struct verbs_qp *qp)
{
	switch (qp->conn) {
	case VERBS_CONN_RESOLVING:
		return VERBS_ROLE_RESOLVING;
	case VERBS_CONN_CONNECTING:
		return VERBS_ROLE_CONNECTING;
	case VERBS_CONN_ACCEPTED:
		return VERBS_ROLE_ACCEPTED;
	case VERBS_CONN_UP:
		return VERBS_ROLE_UP;
	default:
		return VERBS_ROLE_DOWN;
	}
}

/* An rdma_cm event, copied out of the channel (and acknowledged). */
struct cm_event {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	uint8_t initiator_depth;
	uint8_t responder_resources;
	uint8_t pdata_len;
	uint8_t pdata[RPCRDMA_PMD_PRIVATE_DATA_MAX];
};

/* The client's address, as the rdma_cm id of its request gives it. */
static void verbs_req_peer(struct verbs_req *req, struct rdma_cm_id *id)
{
	const struct sockaddr *sa = rdma_get_peer_addr(id);
	size_t len = 0;

	req->common.peer.pid = -1;
	req->common.peer.uid = -1;
	if (sa != NULL && sa->sa_family == AF_INET)
		len = sizeof(struct sockaddr_in);
	else if (sa != NULL && sa->sa_family == AF_INET6)
		len = sizeof(struct sockaddr_in6);
	if (len != 0)
		memcpy(&req->common.peer.addr, sa, len);
	else
		req->common.peer.addr.ss_family = AF_UNSPEC;
}

static void new_request(struct verbs_dev *dev, struct verbs_listener *l, const struct cm_event *e)
{
	struct verbs_req *req;

	if (!verbs_same_device(dev, e->id->verbs)) {
		verbs_log("%s: connect request on %s for device %s: rejected", l->addr,
			  e->id->verbs ? ibv_get_device_name(e->id->verbs->device) : "?",
			  dev->name);
		goto err_reject;
	}
	req = calloc(1, sizeof(*req));
	if (req == NULL)
		goto err_reject;
	req->common.dev = &dev->common;
	req->common.listener = &l->common;
	req->state = VERBS_REQ_REQUESTED;
	req->id = e->id;
	req->ep.kind = VERBS_EP_REQ;
	req->ep.obj = req;
	req->initiator_depth = e->initiator_depth;
	req->responder_resources = e->responder_resources;
	verbs_req_peer(req, e->id);
	e->id->context = &req->ep;
	TAILQ_INSERT_TAIL(&dev->reqs, req, next);
	verbs_ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, req, e->pdata, e->pdata_len);
	return;

err_reject:
	rdma_reject(e->id, NULL, 0);
	rdma_destroy_id(e->id);
}

static void qp_cm_event(struct verbs_dev *dev, struct verbs_qp *qp, const struct cm_event *e)
{
	struct rdma_conn_param cp;
	int ret;

	switch (verbs_cm_action(qp_role(qp), e->type,
				verbs_cm_status(dev->info.transport, e->type, e->status))) {
	case VERBS_CM_RESOLVE_ROUTE:
		if (!verbs_same_device(dev, e->id->verbs)) {
			verbs_log("qp %u: the peer is reached through %s, the QP is on %s",
				  qp->common.qp_num,
				  e->id->verbs ? ibv_get_device_name(e->id->verbs->device) : "?",
				  dev->name);
			conn_down(qp, RPCRDMA_PMD_EVENT_CONNECT_ERROR, true, NULL, 0);
			return;
		}
		if (rdma_resolve_route(e->id, VERBS_RESOLVE_MS) != 0) {
			verbs_log("qp %u: rdma_resolve_route: %s", qp->common.qp_num,
				  strerror(errno));
			conn_down(qp, RPCRDMA_PMD_EVENT_CONNECT_ERROR, true, NULL, 0);
		}
		return;
	case VERBS_CM_CONNECT:
		conn_param_fill(qp, &cp, qp->pdata, qp->pdata_len,
				min_u8(dev->attr.max_qp_rd_atom, 255),
				min_u8(dev->attr.max_qp_init_rd_atom, 255));
		if (rdma_connect(e->id, &cp) != 0) {
			/* iWARP: nobody listens there (yet); the consumer says what it does */
			if (errno == ECONNREFUSED)
				verbs_info("qp %u: rdma_connect: %s", qp->common.qp_num,
					   strerror(errno));
			else
				verbs_log("qp %u: rdma_connect: %s", qp->common.qp_num,
					  strerror(errno));
			conn_down(qp, RPCRDMA_PMD_EVENT_CONNECT_ERROR, true, NULL, 0);
			return;
		}
		qp->conn = VERBS_CONN_CONNECTING;
		return;
	case VERBS_CM_ESTABLISH:
		ret = qp_connect_states(qp, e->id);
		if (ret == 0 && rdma_establish(e->id) != 0) {
			ret = verbs_err(-1);
			verbs_log("qp %u: rdma_establish: %s", qp->common.qp_num, strerror(-ret));
		}
		if (ret < 0) {
			/* refuse the reply: the server, already in RTS, sees the failure now */
			rdma_reject(e->id, NULL, 0);
			verbs_qp_to_err(qp);
			qp->conn = VERBS_CONN_DOWN;
			qp->disc_reported = true;
			verbs_ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL, NULL, 0);
			return;
		}
		qp->conn = VERBS_CONN_UP;
		qp->common.state = RPCRDMA_PMD_QPS_RTS;
		verbs_ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, e->pdata, e->pdata_len);
		return;
	case VERBS_CM_ESTABLISHED:
		/* the server's RTU carries no private data; a client's accept does */
		ret = qp->conn == VERBS_CONN_CONNECTING;
		qp->conn = VERBS_CONN_UP;
		qp->common.state = RPCRDMA_PMD_QPS_RTS;
		verbs_ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, ret ? e->pdata : NULL,
			      e->pdata_len);
		return;
	case VERBS_CM_REJECTED:
		conn_down(qp, RPCRDMA_PMD_EVENT_REJECTED, false, e->pdata, e->pdata_len);
		return;
	case VERBS_CM_CONNECT_ERROR:
		if (qp->conn == VERBS_CONN_RESOLVING || qp->conn == VERBS_CONN_CONNECTING)
			verbs_info("qp %u: connecting: %s (status %d)", qp->common.qp_num,
				   rdma_event_str(e->type), e->status);
		conn_down(qp, RPCRDMA_PMD_EVENT_CONNECT_ERROR, false, NULL, 0);
		return;
	case VERBS_CM_DISCONNECTED:
		conn_down(qp, RPCRDMA_PMD_EVENT_DISCONNECTED, false, NULL, 0);
		return;
	default:
		return;
	}
}

/* Read and handle one rdma_cm event. @return 1: one handled; 0: none waiting. */
static int cm_one(struct verbs_dev *dev)
{
	struct rdma_cm_event *ev;
	struct verbs_ep *ep;
	struct cm_event e;

	if (rdma_get_cm_event(dev->cm, &ev) != 0)
		return 0; /* EAGAIN: nothing; other errors: nothing we can act on */
	memset(&e, 0, sizeof(e));
	e.type = ev->event;
	e.status = ev->status;
	e.id = ev->id;
	/* every id here is RDMA_PS_TCP: param is the connection's */
	if (ev->param.conn.private_data != NULL) {
		size_t len = ev->param.conn.private_data_len;

		e.pdata_len = (uint8_t)(len < sizeof(e.pdata) ? len : sizeof(e.pdata));
		memcpy(e.pdata, ev->param.conn.private_data, e.pdata_len);
	}
	e.initiator_depth = ev->param.conn.initiator_depth;
	e.responder_resources = ev->param.conn.responder_resources;
	/* a CONNECT_REQUEST's new id carries the listener's context */
	ep = ev->id->context;
	rdma_ack_cm_event(ev);

	if (e.type == RDMA_CM_EVENT_DEVICE_REMOVAL && !dev->fatal) {
		verbs_log("%s: device removal: every connection goes down", dev->name);
		dev->fatal = true;
	}
	if (ep == NULL)
		return 1;
	switch (ep->kind) {
	case VERBS_EP_LISTENER:
		if (verbs_cm_action(VERBS_ROLE_LISTENER, e.type, e.status) == VERBS_CM_NEW_REQUEST)
			new_request(dev, ep->obj, &e);
		break;
	case VERBS_EP_REQ: {
		struct verbs_req *req = ep->obj;

		if (verbs_cm_action(VERBS_ROLE_REQ, e.type, e.status) == VERBS_CM_REQ_GONE &&
		    req->id != NULL) {
			/* the user holds it from CONNECT_REQUEST: accept/reject say -ENOTCONN */
			rdma_destroy_id(req->id);
			req->id = NULL;
			req->state = VERBS_REQ_DEAD;
		}
		break;
	}
	case VERBS_EP_QP:
		qp_cm_event(dev, ep->obj, &e);
		break;
	}
	return 1;
}

static const char *async_str(enum ibv_event_type t)
{
	return ibv_event_type_str(t);
}

/* Read and handle one asynchronous event. @return 1: one handled; 0: none. */
static int async_one(struct verbs_dev *dev)
{
	struct ibv_async_event ae;
	enum verbs_async_action act;
	struct verbs_qp *qp;
	struct verbs_cq *cq = NULL;
	struct verbs_srq *srq = NULL;
	enum ibv_event_type type;
	uint8_t port = 0;

	if (ibv_get_async_event(dev->ctx, &ae) != 0)
		return 0;
	type = ae.event_type;
	act = verbs_async_action(type);
	qp = NULL;
	if (act == VERBS_ASYNC_QP_ERROR || act == VERBS_ASYNC_COMM_EST)
		qp = ae.element.qp->qp_context;
	else if (act == VERBS_ASYNC_CQ_ERROR)
		cq = ae.element.cq->cq_context;
	else if (act == VERBS_ASYNC_SRQ_LIMIT || act == VERBS_ASYNC_SRQ_ERROR)
		srq = ae.element.srq->srq_context;
	else if (act == VERBS_ASYNC_PORT_DOWN || act == VERBS_ASYNC_LOG)
		port = (uint8_t)ae.element.port_num;
	/* acknowledged at once: ibv_destroy_qp/cq wait for their events to be */
	ibv_ack_async_event(&ae);

	switch (act) {
	case VERBS_ASYNC_QP_ERROR:
		/* after a disconnect (siw: the peer's TCP abort as it closes), expected */
		if (qp->conn == VERBS_CONN_DOWN)
			verbs_info("qp %u: %s, disconnected already", qp->common.qp_num,
				   async_str(type));
		else
			verbs_log("qp %u: %s", qp->common.qp_num, async_str(type));
		qp_broken(qp);
		break;
	case VERBS_ASYNC_COMM_EST:
		/* data arrived before the RTU: let rdma_cm complete the connection */
		if (qp->cm_id != NULL)
			rdma_notify(qp->cm_id, IBV_EVENT_COMM_EST);
		break;
	case VERBS_ASYNC_CQ_ERROR:
		verbs_log("%s: CQ error (overrun? size CQs for every QP on them)", dev->name);
		TAILQ_FOREACH(qp, &dev->qp_list, next)
		if (qp->scq == cq || qp->rcq == cq)
			qp_broken(qp);
		break;
	case VERBS_ASYNC_PORT_DOWN:
		verbs_log("%s port %u: %s", dev->name, port, async_str(type));
		if (port != dev->port)
			break;
		/* connections on the port go down; idle QPs stay usable */
		TAILQ_FOREACH(qp, &dev->qp_list, next)
		if (qp->conn != VERBS_CONN_IDLE && qp->conn != VERBS_CONN_DOWN)
			qp_broken(qp);
		break;
	case VERBS_ASYNC_DEVICE_FATAL:
		verbs_log("%s: %s: every connection goes down", dev->name, async_str(type));
		dev->fatal = true;
		TAILQ_FOREACH(qp, &dev->qp_list, next)
		qp_broken(qp);
		break;
	case VERBS_ASYNC_LOG:
		verbs_log("%s port %u: %s", dev->name, port, async_str(type));
		break;
	case VERBS_ASYNC_SRQ_LIMIT:
		/* the device disarmed it (one-shot): rpcrdma_pmd_srq_arm() arms it again */
		{
			unsigned int len = dev->evq_len;

			verbs_ev_push(dev, RPCRDMA_PMD_EVENT_SRQ_LIMIT, NULL, NULL, NULL, 0);
			if (dev->evq_len != len)
				dev->evq[(dev->evq_head + len) % dev->evq_cap].srq = &srq->common;
			break;
		}
	case VERBS_ASYNC_SRQ_ERROR:
		verbs_log("%s: SRQ %u: %s", dev->name, srq->common.srq_num, async_str(type));
		break;
	default:
		break;
	}
	return 1;
}

int verbs_event_poll(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_event *ev, unsigned int n)
{
	struct verbs_dev *dev = to_verbs_dev(d);

	fatal_poll(dev);
	/* turn raw events into PMD events until n are ready or none is left */
	while (dev->evq_len < n) {
		if (cm_one(dev) != 0)
			continue;
		if (async_one(dev) != 0)
			continue;
		break;
	}
	return (int)verbs_ev_pop(dev, ev, n);
}
