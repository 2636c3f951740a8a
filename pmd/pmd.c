/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common PMD layer: the driver registry, and the control-path entry
 * points. Each checks its arguments, calls the driver, and keeps the counts
 * of live objects that let close/free return -EBUSY instead of leaving
 * dangling pointers. The fast path does not come here (rpcrdma_pmd.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_log.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>
#include <rpcrdma/rpcrdma_stamp.h>

static TAILQ_HEAD(, rpcrdma_pmd_ops) drivers = TAILQ_HEAD_INITIALIZER(drivers);
static rpcrdma_pmd_qp_destroy_hook_t qp_destroy_hook;

void rpcrdma_pmd_set_qp_destroy_hook(rpcrdma_pmd_qp_destroy_hook_t hook)
{
	qp_destroy_hook = hook;
}

void rpcrdma_pmd_register(struct rpcrdma_pmd_ops *ops)
{
	TAILQ_INSERT_TAIL(&drivers, ops, next);
}

/* "rpcrdma.pmd": errors and warnings shown, the rest on demand (--log-level) */
RTE_LOG_REGISTER(rpcrdma_pmd_logtype, rpcrdma.pmd, NOTICE);

void rpcrdma_pmd_vlog(uint32_t level, const char *driver, const char *fmt, va_list ap)
{
	char msg[256];

	if (!rte_log_can_log(rpcrdma_pmd_logtype, level))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	rte_log(level, rpcrdma_pmd_logtype, "rpcrdma pmd %s: %s\n", driver, msg);
}

void rpcrdma_pmd_log(const char *driver, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rpcrdma_pmd_vlog(RTE_LOG_ERR, driver, fmt, ap);
	va_end(ap);
}

void rpcrdma_pmd_info(const char *driver, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rpcrdma_pmd_vlog(RTE_LOG_INFO, driver, fmt, ap);
	va_end(ap);
}

unsigned int rpcrdma_pmd_driver_count(void)
{
	const struct rpcrdma_pmd_ops *ops;
	unsigned int n = 0;

	TAILQ_FOREACH(ops, &drivers, next)
	n++;
	return n;
}

const char *rpcrdma_pmd_driver_name(unsigned int i)
{
	const struct rpcrdma_pmd_ops *ops;

	TAILQ_FOREACH(ops, &drivers, next)
	if (i-- == 0)
		return ops->name;
	return NULL;
}

int rpcrdma_pmd_dev_open(const char *driver, const char *devargs, struct rpcrdma_pmd_dev **dev)
{
	const struct rpcrdma_pmd_ops *ops;
	int ret;

	if (driver == NULL || dev == NULL)
		return -EINVAL;
	TAILQ_FOREACH(ops, &drivers, next)
	{
		if (strcmp(ops->name, driver) != 0)
			continue;
		ret = ops->dev_open(devargs != NULL ? devargs : "", dev);
		if (ret < 0)
			return ret;
		(*dev)->ops = ops;
		(*dev)->nb_pds = 0;
		(*dev)->nb_cqs = 0;
		(*dev)->nb_listeners = 0;
		return 0;
	}
	return -ENOENT;
}

int rpcrdma_pmd_dev_close(struct rpcrdma_pmd_dev *dev)
{
	if (dev == NULL)
		return -EINVAL;
	if (dev->nb_pds != 0 || dev->nb_cqs != 0 || dev->nb_listeners != 0)
		return -EBUSY;
	dev->ops->dev_close(dev);
	return 0;
}

const char *rpcrdma_pmd_dev_driver(const struct rpcrdma_pmd_dev *dev)
{
	return dev->ops->name;
}

int rpcrdma_pmd_dev_info_get(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info)
{
	struct rpcrdma_pmd_qp_attr def;

	if (dev == NULL || info == NULL)
		return -EINVAL;
	rpcrdma_pmd_qp_attr_init(&def);
	memset(info, 0, sizeof(*info));
	info->driver = dev->ops->name;
	snprintf(info->dev_name, sizeof(info->dev_name), "%s", dev->ops->name);
	info->transport = RPCRDMA_PMD_TRANSPORT_OTHER;
	info->max_send_sge = def.max_send_sge;
	info->max_recv_sge = def.max_recv_sge;
	info->max_qp_wr = def.max_send_wr;
	info->max_cqe = def.max_send_wr + def.max_recv_wr;
	info->max_mr = 1;
	info->max_qp = 1;
	info->max_rdma_read_depth = 1;
	info->max_read_sge = 1;
	info->max_mr_size = UINT32_MAX;
	if (dev->ops->dev_info_get == NULL)
		return 0;
	return dev->ops->dev_info_get(dev, info);
}

int rpcrdma_pmd_pd_alloc(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_pd **pd)
{
	int ret;

	if (dev == NULL || pd == NULL)
		return -EINVAL;
	ret = dev->ops->pd_alloc(dev, pd);
	if (ret < 0)
		return ret;
	(*pd)->dev = dev;
	(*pd)->nb_mrs = 0;
	(*pd)->nb_qps = 0;
	(*pd)->nb_srqs = 0;
	dev->nb_pds++;
	return 0;
}

int rpcrdma_pmd_pd_free(struct rpcrdma_pmd_pd *pd)
{
	struct rpcrdma_pmd_dev *dev;

	if (pd == NULL)
		return -EINVAL;
	if (pd->nb_mrs != 0 || pd->nb_qps != 0 || pd->nb_srqs != 0)
		return -EBUSY;
	dev = pd->dev;
	dev->ops->pd_free(pd);
	dev->nb_pds--;
	return 0;
}

#define ACCESS_ALL                                                          \
	(RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE | \
	 RPCRDMA_PMD_ACCESS_REMOTE_READ)

int rpcrdma_pmd_mr_reg(struct rpcrdma_pmd_pd *pd, void *addr, size_t len, uint32_t access, int fd,
		       uint64_t fd_offset, struct rpcrdma_pmd_mr **mr)
{
	int ret;

	if (pd == NULL || addr == NULL || len == 0 || mr == NULL || (access & ~ACCESS_ALL) != 0 ||
	    fd < -1)
		return -EINVAL;
	/* verbs: remote write needs local write (ibv_reg_mr returns EINVAL) */
	if ((access & RPCRDMA_PMD_ACCESS_REMOTE_WRITE) &&
	    !(access & RPCRDMA_PMD_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	ret = pd->dev->ops->mr_reg(pd, addr, len, access, fd, fd_offset, mr);
	if (ret < 0)
		return ret;
	(*mr)->pd = pd;
	pd->nb_mrs++;
	return 0;
}

int rpcrdma_pmd_mr_dereg(struct rpcrdma_pmd_mr *mr)
{
	struct rpcrdma_pmd_pd *pd;

	if (mr == NULL)
		return -EINVAL;
	pd = mr->pd;
	pd->dev->ops->mr_dereg(mr);
	pd->nb_mrs--;
	return 0;
}

int rpcrdma_pmd_mr_invalidate(struct rpcrdma_pmd_pd *pd, uint32_t rkey)
{
	if (pd == NULL)
		return -EINVAL;
	return pd->dev->ops->mr_invalidate(pd, rkey);
}

int rpcrdma_pmd_mr_rekey(struct rpcrdma_pmd_mr *mr)
{
	if (mr == NULL)
		return -EINVAL;
	return mr->pd->dev->ops->mr_rekey(mr);
}

int rpcrdma_pmd_cq_create(struct rpcrdma_pmd_dev *dev, uint32_t cqe, struct rpcrdma_pmd_cq **cq)
{
	int ret;

	if (dev == NULL || cq == NULL || cqe == 0)
		return -EINVAL;
	ret = dev->ops->cq_create(dev, cqe, cq);
	if (ret < 0)
		return ret;
	(*cq)->dev = dev;
	(*cq)->nb_qps = 0;
	(*cq)->nb_wrs = 0;
	memset(&(*cq)->stats, 0, sizeof((*cq)->stats));
	dev->nb_cqs++;
	return 0;
}

int rpcrdma_pmd_cq_destroy(struct rpcrdma_pmd_cq *cq)
{
	struct rpcrdma_pmd_dev *dev;

	if (cq == NULL)
		return -EINVAL;
	if (cq->nb_qps != 0)
		return -EBUSY;
	dev = cq->dev;
	dev->ops->cq_destroy(cq);
	dev->nb_cqs--;
	return 0;
}

void rpcrdma_pmd_qp_attr_init(struct rpcrdma_pmd_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->max_send_wr = 128;
	attr->max_recv_wr = 128;
	attr->max_send_sge = 4;
	attr->max_recv_sge = 2;
	attr->rnr_retry = 7;
	attr->rnr_timer_us = 10;
}

/* ------------------------------------------------------------ SRQs */

/*
 * The CQs an SRQ's receives complete on (those of its QPs), each with the
 * number of its QPs there: the SRQ's max_wr counts once against each.
 */
struct srq_cq_ref {
	struct srq_cq_ref *next;
	struct rpcrdma_pmd_cq *cq;
	unsigned int qps;
};

static struct srq_cq_ref *srq_cq_ref_find(const struct rpcrdma_pmd_srq *srq,
					  const struct rpcrdma_pmd_cq *cq)
{
	struct srq_cq_ref *r;

	for (r = srq->cq_refs; r != NULL; r = r->next)
		if (r->cq == cq)
			return r;
	return NULL;
}

void rpcrdma_pmd_srq_attr_init(struct rpcrdma_pmd_srq_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->max_wr = 1024;
	attr->max_sge = 2;
}

int rpcrdma_pmd_srq_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
			   struct rpcrdma_pmd_srq **srq)
{
	struct rpcrdma_pmd_dev_info info;
	struct rpcrdma_pmd_srq *s;
	int ret;

	if (pd == NULL || attr == NULL || srq == NULL || attr->max_wr == 0 || attr->max_sge == 0 ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (pd->dev->ops->srq_create == NULL)
		return -ENOTSUP;
	ret = rpcrdma_pmd_dev_info_get(pd->dev, &info);
	if (ret < 0)
		return ret;
	if (info.max_srq == 0)
		return -ENOTSUP;
	if (attr->max_wr > info.max_srq_wr || attr->max_sge > info.max_srq_sge) {
		rpcrdma_pmd_log(pd->dev->ops->name,
				"srq_create: %u WRs of %u SGEs, the device allows %u of %u",
				attr->max_wr, attr->max_sge, info.max_srq_wr, info.max_srq_sge);
		return -EINVAL;
	}
	ret = pd->dev->ops->srq_create(pd, attr, &s);
	if (ret < 0)
		return ret;
	s->context = attr->context;
	s->dev = pd->dev;
	s->pd = pd;
	s->nb_qps = 0;
	s->recv_wrs = 0;
	s->cq_refs = NULL;
	pd->nb_srqs++;
	*srq = s;
	return 0;
}

int rpcrdma_pmd_srq_destroy(struct rpcrdma_pmd_srq *srq)
{
	struct rpcrdma_pmd_pd *pd;

	if (srq == NULL)
		return -EINVAL;
	if (srq->nb_qps != 0)
		return -EBUSY;
	pd = srq->pd;
	pd->dev->ops->srq_destroy(srq);
	pd->nb_srqs--;
	return 0;
}

int rpcrdma_pmd_srq_arm(struct rpcrdma_pmd_srq *srq, uint32_t limit)
{
	if (srq == NULL || limit > srq->max_wr)
		return -EINVAL;
	return srq->dev->ops->srq_arm(srq, limit);
}

/* The receive queue of a QP attached to an SRQ: there is none. */
static uint16_t srq_qp_post_recv(struct rpcrdma_pmd_qp *qp, const struct rpcrdma_pmd_recv_wr *wrs,
				 uint16_t n)
{
	(void)qp;
	(void)wrs;
	(void)n;
	return 0;
}

/* ------------------------------------------------------------ QPs */

/* What a QP of @attr counts against its receive CQ: its own receives, or its SRQ's once. */
static uint32_t recv_cq_wrs(const struct rpcrdma_pmd_qp_attr *attr)
{
	if (attr->srq == NULL)
		return attr->max_recv_wr;
	return srq_cq_ref_find(attr->srq, attr->recv_cq) != NULL ? 0 : attr->srq->max_wr;
}

/*
 * Would the QP of @attr overrun its CQ(s)? Every work request may complete
 * (a QP in error flushes all of them), so the sum over the QPs on a CQ must
 * fit; a verbs CQ that overruns is an asynchronous CQ error that takes down
 * every QP on it, a shm one stalls its requesters.
 */
static int cq_room_check(const struct rpcrdma_pmd_dev *dev, const struct rpcrdma_pmd_qp_attr *attr)
{
	const struct rpcrdma_pmd_cq *scq = attr->send_cq, *rcq = attr->recv_cq;
	uint32_t rwr = recv_cq_wrs(attr);
	uint64_t s = (uint64_t)scq->nb_wrs + attr->max_send_wr;
	uint64_t r = (uint64_t)rcq->nb_wrs + rwr;

	if (scq == rcq) {
		s += rwr;
		r = s;
	}
	if (s <= scq->cqe && r <= rcq->cqe)
		return 0;
	if (scq == rcq)
		rpcrdma_pmd_log(dev->ops->name,
				"qp_create: %u send + %u recv WRs overrun the CQ (%u entries, "
				"%u taken by the QPs on it)",
				attr->max_send_wr, rwr, scq->cqe, scq->nb_wrs);
	else
		rpcrdma_pmd_log(dev->ops->name,
				"qp_create: %u send WRs on a CQ of %u entries (%u taken), %u recv "
				"WRs on a CQ of %u entries (%u taken): one overruns",
				attr->max_send_wr, scq->cqe, scq->nb_wrs, rwr, rcq->cqe,
				rcq->nb_wrs);
	return -EINVAL;
}

int rpcrdma_pmd_qp_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			  struct rpcrdma_pmd_qp **qp)
{
	struct srq_cq_ref *ref = NULL;
	struct rpcrdma_pmd_qp *q;
	uint32_t rwr;
	int ret;

	if (pd == NULL || attr == NULL || qp == NULL || attr->send_cq == NULL ||
	    attr->recv_cq == NULL || attr->send_cq->dev != pd->dev ||
	    attr->recv_cq->dev != pd->dev || attr->max_send_wr == 0 || attr->max_send_sge == 0 ||
	    attr->rnr_retry > 7)
		return -EINVAL;
	if (attr->srq == NULL && (attr->max_recv_wr == 0 || attr->max_recv_sge == 0))
		return -EINVAL;
	if (attr->srq != NULL && attr->srq->pd != pd)
		return -EINVAL;
	ret = cq_room_check(pd->dev, attr);
	if (ret < 0)
		return ret;
	rwr = recv_cq_wrs(attr);
	if (attr->srq != NULL) {
		ref = srq_cq_ref_find(attr->srq, attr->recv_cq);
		if (ref == NULL) {
			ref = calloc(1, sizeof(*ref));
			if (ref == NULL)
				return -ENOMEM;
			ref->cq = attr->recv_cq;
			ref->next = attr->srq->cq_refs;
			attr->srq->cq_refs = ref;
		}
	}
	ret = pd->dev->ops->qp_create(pd, attr, &q);
	if (ret < 0) {
		if (ref != NULL && ref->qps == 0) {
			attr->srq->cq_refs = ref->next;
			free(ref);
		}
		return ret;
	}
	q->dev = pd->dev;
	q->pd = pd;
	q->send_cq = attr->send_cq;
	q->recv_cq = attr->recv_cq;
	q->context = attr->context;
	q->max_send_wr = attr->max_send_wr;
	q->max_recv_wr = attr->srq != NULL ? 0 : attr->max_recv_wr;
	q->srq = attr->srq;
	memset(&q->stats, 0, sizeof(q->stats));
	attr->send_cq->nb_qps++;
	attr->recv_cq->nb_qps++;
	attr->send_cq->nb_wrs += attr->max_send_wr;
	attr->recv_cq->nb_wrs += rwr;
	if (attr->srq != NULL) {
		q->post_recv_burst = srq_qp_post_recv;
		ref->qps++;
		attr->srq->nb_qps++;
	}
	pd->nb_qps++;
	*qp = q;
	return 0;
}

int rpcrdma_pmd_qp_destroy(struct rpcrdma_pmd_qp *qp)
{
	struct rpcrdma_pmd_cq *scq, *rcq;
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_pd *pd;
	uint32_t swr, rwr;

	if (qp == NULL)
		return -EINVAL;
	pd = qp->pd;
	scq = qp->send_cq;
	rcq = qp->recv_cq;
	swr = qp->max_send_wr;
	rwr = qp->max_recv_wr;
	srq = qp->srq;
	if (qp_destroy_hook != NULL)
		qp_destroy_hook(qp); /* the driver's fast path back before it goes */
	pd->dev->ops->qp_destroy(qp);
	if (srq != NULL) {
		struct srq_cq_ref **pp, *ref;

		for (pp = (struct srq_cq_ref **)&srq->cq_refs; *pp != NULL; pp = &(*pp)->next)
			if ((*pp)->cq == rcq)
				break;
		ref = *pp;
		if (ref != NULL && --ref->qps == 0) {
			rwr = srq->max_wr; /* the last of the SRQ's QPs on this CQ */
			*pp = ref->next;
			free(ref);
		}
		srq->nb_qps--;
	}
	scq->nb_qps--;
	rcq->nb_qps--;
	scq->nb_wrs -= swr;
	rcq->nb_wrs -= rwr;
	pd->nb_qps--;
	return 0;
}

int rpcrdma_pmd_listen(struct rpcrdma_pmd_dev *dev, const char *addr,
		       struct rpcrdma_pmd_listener **listener)
{
	int ret;

	if (dev == NULL || addr == NULL || listener == NULL)
		return -EINVAL;
	ret = dev->ops->listen(dev, addr, listener);
	if (ret < 0)
		return ret;
	(*listener)->dev = dev;
	dev->nb_listeners++;
	return 0;
}

int rpcrdma_pmd_listener_close(struct rpcrdma_pmd_listener *listener)
{
	struct rpcrdma_pmd_dev *dev;

	if (listener == NULL)
		return -EINVAL;
	dev = listener->dev;
	dev->ops->listener_close(listener);
	dev->nb_listeners--;
	return 0;
}

int rpcrdma_pmd_connect(struct rpcrdma_pmd_qp *qp, const char *addr, const void *pdata,
			uint8_t pdata_len)
{
	if (qp == NULL || addr == NULL || pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX ||
	    (pdata == NULL && pdata_len != 0))
		return -EINVAL;
	if (qp->state != RPCRDMA_PMD_QPS_INIT)
		return -EINVAL;
	return qp->dev->ops->connect(qp, addr, pdata, pdata_len);
}

int rpcrdma_pmd_accept(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_qp *qp,
		       const void *pdata, uint8_t pdata_len)
{
	if (req == NULL || qp == NULL || pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX ||
	    (pdata == NULL && pdata_len != 0) || qp->dev != req->dev)
		return -EINVAL;
	if (qp->state != RPCRDMA_PMD_QPS_INIT)
		return -EINVAL;
	return qp->dev->ops->accept(req, qp, pdata, pdata_len);
}

int rpcrdma_pmd_reject(struct rpcrdma_pmd_conn_req *req, const void *pdata, uint8_t pdata_len)
{
	if (req == NULL || req->dev == NULL || pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX ||
	    (pdata == NULL && pdata_len != 0))
		return -EINVAL;
	return req->dev->ops->reject(req, pdata, pdata_len);
}

int rpcrdma_pmd_conn_req_handoff(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_dev *to)
{
	int ret;

	if (req == NULL || to == NULL || req->dev == NULL || req->dev == to)
		return -EINVAL;
	if (req->dev->ops != to->ops)
		return -EXDEV;
	if (to->ops->conn_req_handoff == NULL)
		return -ENOTSUP;
	ret = to->ops->conn_req_handoff(req, to);
	if (ret < 0)
		return ret;
	req->dev = NULL;
	req->listener = NULL;
	req->to = to;
	return 0;
}

int rpcrdma_pmd_conn_req_adopt(struct rpcrdma_pmd_dev *to, struct rpcrdma_pmd_conn_req *req)
{
	if (req == NULL || to == NULL || req->dev != NULL || req->to != to)
		return -EINVAL;
	req->dev = to;
	req->to = NULL;
	to->ops->conn_req_adopt(to, req);
	return 0;
}

const struct rpcrdma_pmd_peer *rpcrdma_pmd_conn_req_peer(const struct rpcrdma_pmd_conn_req *req)
{
	return req != NULL ? &req->peer : NULL;
}

/* The kinds of key, in its top two bits: a host by its IPv4 or IPv6 address, a process. */
#define PEER_KEY_V4   (1ull << 62)
#define PEER_KEY_V6   (2ull << 62)
#define PEER_KEY_PROC (3ull << 62)

uint64_t rpcrdma_pmd_peer_key(const struct rpcrdma_pmd_peer *peer)
{
	const struct sockaddr_in6 *a6;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */

	if (peer == NULL)
		return 0;
	switch (peer->addr.ss_family) {
	case AF_INET:
		return PEER_KEY_V4 |
		       ntohl(((const struct sockaddr_in *)&peer->addr)->sin_addr.s_addr);
	case AF_INET6:
		a6 = (const struct sockaddr_in6 *)&peer->addr;
		/* a v4 client seen through a v6 listener is the same host */
		if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
			uint32_t v4;

			memcpy(&v4, &a6->sin6_addr.s6_addr[12], sizeof(v4));
			return PEER_KEY_V4 | ntohl(v4);
		}
		for (size_t i = 0; i < sizeof(a6->sin6_addr.s6_addr); i++)
			h = (h ^ a6->sin6_addr.s6_addr[i]) * 0x100000001b3ull;
		return PEER_KEY_V6 | (h & (PEER_KEY_V4 - 1));
	case AF_UNIX:
		return PEER_KEY_PROC | (uint64_t)(uint32_t)peer->uid << 32 | (uint32_t)peer->pid;
	default:
		return 0;
	}
}

int rpcrdma_pmd_peer_str(const struct rpcrdma_pmd_peer *peer, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (peer == NULL)
		return snprintf(buf, size, "unknown");
	switch (peer->addr.ss_family) {
	case AF_INET: {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&peer->addr;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		return snprintf(buf, size, "%s:%u", ip, ntohs(a->sin_port));
	}
	case AF_INET6: {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&peer->addr;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		return snprintf(buf, size, "[%s]:%u", ip, ntohs(a->sin6_port));
	}
	case AF_UNIX:
		return snprintf(buf, size, "pid %d", (int)peer->pid);
	default:
		return snprintf(buf, size, "unknown");
	}
}

int rpcrdma_pmd_disconnect(struct rpcrdma_pmd_qp *qp)
{
	if (qp == NULL)
		return -EINVAL;
	return qp->dev->ops->disconnect(qp);
}

int rpcrdma_pmd_event_poll(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_event *ev,
			   unsigned int n)
{
	if (dev == NULL || (ev == NULL && n != 0))
		return -EINVAL;
	return dev->ops->event_poll(dev, ev, n);
}

int rpcrdma_pmd_event_fd(struct rpcrdma_pmd_dev *dev)
{
	if (dev == NULL)
		return -EINVAL;
	if (dev->ops->event_fd == NULL)
		return -ENOTSUP;
	return dev->ops->event_fd(dev);
}

const char *rpcrdma_pmd_wc_status_str(unsigned int status)
{
	switch (status) {
	case RPCRDMA_PMD_WC_SUCCESS:
		return "SUCCESS";
	case RPCRDMA_PMD_WC_LOC_LEN_ERR:
		return "LOC_LEN_ERR";
	case RPCRDMA_PMD_WC_LOC_QP_OP_ERR:
		return "LOC_QP_OP_ERR";
	case RPCRDMA_PMD_WC_LOC_PROT_ERR:
		return "LOC_PROT_ERR";
	case RPCRDMA_PMD_WC_WR_FLUSH_ERR:
		return "WR_FLUSH_ERR";
	case RPCRDMA_PMD_WC_REM_INV_REQ_ERR:
		return "REM_INV_REQ_ERR";
	case RPCRDMA_PMD_WC_REM_ACCESS_ERR:
		return "REM_ACCESS_ERR";
	case RPCRDMA_PMD_WC_REM_OP_ERR:
		return "REM_OP_ERR";
	case RPCRDMA_PMD_WC_RETRY_EXC_ERR:
		return "RETRY_EXC_ERR";
	case RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR:
		return "RNR_RETRY_EXC_ERR";
	case RPCRDMA_PMD_WC_GENERAL_ERR:
		return "GENERAL_ERR";
	default:
		return "UNKNOWN";
	}
}

/* ------------------------------------------------------------ latency stamps */

struct rpcrdma_stamps rpcrdma_stamps[RTE_MAX_LCORE];

bool rpcrdma_stamps_enabled(void)
{
#ifdef RPCRDMA_LATENCY_STAMPS
	return true;
#else
	return false;
#endif
}

uint64_t rpcrdma_stamp_get(unsigned int lcore, enum rpcrdma_stamp_point point)
{
	if (lcore >= RTE_MAX_LCORE || (unsigned int)point >= RPCRDMA_STAMP_MAX)
		return 0;
	return rpcrdma_stamps[lcore].tsc[point];
}
