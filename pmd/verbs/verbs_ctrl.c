/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD control path: devices, PDs, MRs, CQs, QPs, connection
 * management through rdma_cm, and the device's asynchronous events.
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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "verbs_config.h"
#ifdef RPCRDMA_VERBS_HAVE_MLX5DV
#include <infiniband/mlx5dv.h>
#endif

#include "verbs_pmd.h"

#define VERBS_RESOLVE_MS 2000 /* address and route resolution timeout */
#define VERBS_BACKLOG	 128

struct verbs_listener {
	struct rpcrdma_pmd_listener common;
	struct rdma_cm_id *id;
	struct verbs_ep ep;
	char addr[64];
};

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static const char *path_name(enum verbs_send_path p)
{
	switch (p) {
	case VERBS_SEND_MLX5DV:
		return "mlx5dv";
	case VERBS_SEND_WR_API:
		return "verbs ibv_wr";
	default:
		return "verbs ibv_post_send";
	}
}

static bool same_device(const struct verbs_dev *dev, const struct ibv_context *ctx)
{
	return ctx != NULL && strcmp(ibv_get_device_name(ctx->device), dev->name) == 0;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* ---------------- events ---------------- */

static void ev_push(struct verbs_dev *dev, enum rpcrdma_pmd_event_type type, struct verbs_qp *qp,
		    struct verbs_req *req, const void *pdata, size_t pdata_len)
{
	struct rpcrdma_pmd_event *ev;

	if (dev->evq_len == dev->evq_cap) {
		unsigned int cap = dev->evq_cap ? dev->evq_cap * 2 : 16, i;
		struct rpcrdma_pmd_event *q = calloc(cap, sizeof(*q));

		if (q == NULL) {
			verbs_log("out of memory: event %d lost", type);
			return;
		}
		for (i = 0; i < dev->evq_len; i++)
			q[i] = dev->evq[(dev->evq_head + i) % dev->evq_cap];
		free(dev->evq);
		dev->evq = q;
		dev->evq_cap = cap;
		dev->evq_head = 0;
	}
	ev = &dev->evq[(dev->evq_head + dev->evq_len) % dev->evq_cap];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->qp = qp != NULL ? &qp->common : NULL;
	ev->req = req != NULL ? &req->common : NULL;
	ev->listener = req != NULL ? req->common.listener : NULL;
	/*
	 * rdma_cm reports the size of the transport's private data field (56
	 * bytes in an IB/RoCE connect request, more in a reply or a reject),
	 * not what the peer wrote: the rest is zero. Keep what the PMD carries.
	 */
	if (pdata == NULL)
		pdata_len = 0;
	if (pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX)
		pdata_len = RPCRDMA_PMD_PRIVATE_DATA_MAX;
	ev->private_data_len = (uint8_t)pdata_len;
	if (pdata_len != 0)
		memcpy(ev->private_data, pdata, pdata_len);
	dev->evq_len++;
}

/* Drop queued events that refer to @qp or @req (being destroyed). */
static void ev_forget(struct verbs_dev *dev, struct verbs_qp *qp, struct verbs_req *req)
{
	unsigned int i;

	for (i = 0; i < dev->evq_len; i++) {
		struct rpcrdma_pmd_event *ev = &dev->evq[(dev->evq_head + i) % dev->evq_cap];

		if ((qp != NULL && ev->qp == &qp->common) ||
		    (req != NULL && ev->req == &req->common))
			ev->type = 0;
	}
}

static unsigned int ev_pop(struct verbs_dev *dev, struct rpcrdma_pmd_event *ev, unsigned int n)
{
	unsigned int k = 0;

	while (k < n && dev->evq_len != 0) {
		struct rpcrdma_pmd_event *e = &dev->evq[dev->evq_head];

		dev->evq_head = (dev->evq_head + 1) % dev->evq_cap;
		dev->evq_len--;
		if (e->type != 0)
			ev[k++] = *e;
	}
	return k;
}

/* ---------------- devices ---------------- */

static struct ibv_device *find_device(struct ibv_device **list, int num, const char *name)
{
	int i;

	for (i = 0; i < num; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

/* The device and port that own a local address, as rdma_cm binds it. */
static int device_of_ip(struct verbs_dev *dev, char *name, size_t len, uint8_t *port)
{
	struct rdma_cm_id *id;
	char a[64];
	int ret;

	if (rdma_create_id(dev->cm, &id, NULL, RDMA_PS_TCP) != 0)
		return verbs_err(-1);
	if (rdma_bind_addr(id, (struct sockaddr *)&dev->args.ip) != 0) {
		ret = verbs_err(-1);
		verbs_log("ip=%s: rdma_bind_addr: %s (not an address of an RDMA device here?)",
			  verbs_addr_str((struct sockaddr *)&dev->args.ip, a, sizeof(a)),
			  strerror(-ret));
		rdma_destroy_id(id);
		return ret == -EADDRNOTAVAIL || ret == -ENODEV ? -ENODEV : ret;
	}
	if (id->verbs == NULL) {
		verbs_log("ip=%s: the address is not on an RDMA device",
			  verbs_addr_str((struct sockaddr *)&dev->args.ip, a, sizeof(a)));
		rdma_destroy_id(id);
		return -ENODEV;
	}
	snprintf(name, len, "%s", ibv_get_device_name(id->verbs->device));
	*port = id->port_num;
	rdma_destroy_id(id);
	return 0;
}

/*
 * Which send path and CQ kind this build, the device and the devargs give.
 *
 * auto takes the ibv_wr API and extended CQs on mlx5 devices only, whose
 * provider is the one those interfaces were written for, and plain
 * ibv_post_send and ibv_poll_cq everywhere else, which every provider
 * implements. Others' extended paths were found broken: rdma-core 44's rxe
 * provider (Debian 12) leaves IBV_SEND_INLINE unset in ibv_wr_set_inline_data
 * (the kernel then reads the inline bytes as an SGE: IBV_WC_LOC_QP_OP_ERR),
 * counts an ibv_wr_set_inline_data_list as 0 bytes and an
 * ibv_wr_set_sge_list as num_sge times its first length, and moves its CQ's
 * consumer index past the producer when ibv_next_poll returns ENOENT (stale
 * completions read again). wr_api=on and cq_ex=on still force them.
 */
static int choose_paths(struct verbs_dev *dev, struct ibv_device *device)
{
	const struct verbs_devargs *a = &dev->args;
	bool mlx5 = false;

#ifdef RPCRDMA_VERBS_HAVE_MLX5DV
	mlx5 = mlx5dv_is_supported(device);
#else
	(void)device;
	if (a->mlx5dv == VERBS_MODE_ON) {
		verbs_log("mlx5dv=on: this build has no mlx5dv (infiniband/mlx5dv.h or "
			  "mlx5dv_create_qp missing at configure time)");
		return -ENOTSUP;
	}
#endif
#ifndef RPCRDMA_VERBS_HAVE_WR_API
	if (a->wr_api == VERBS_MODE_ON || a->mlx5dv == VERBS_MODE_ON) {
		verbs_log("%s=on: this build's rdma-core has no ibv_wr_start",
			  a->wr_api == VERBS_MODE_ON ? "wr_api" : "mlx5dv");
		return -ENOTSUP;
	}
#endif
#ifndef RPCRDMA_VERBS_HAVE_CQ_EX
	if (a->cq_ex == VERBS_MODE_ON) {
		verbs_log("cq_ex=on: this build's rdma-core has no ibv_create_cq_ex");
		return -ENOTSUP;
	}
#endif
	if (a->mlx5dv == VERBS_MODE_ON && a->wr_api == VERBS_MODE_OFF) {
		verbs_log("mlx5dv=on needs the ibv_wr API: wr_api=off contradicts it");
		return -EINVAL;
	}
	if (a->mlx5dv == VERBS_MODE_ON && !mlx5) {
		verbs_log("mlx5dv=on: %s is not an mlx5 device (mlx5dv_is_supported)", dev->name);
		return -ENOTSUP;
	}
#ifdef RPCRDMA_VERBS_HAVE_WR_API
	if (mlx5 && a->mlx5dv != VERBS_MODE_OFF && a->wr_api != VERBS_MODE_OFF)
		dev->send_path = VERBS_SEND_MLX5DV;
	else if (a->wr_api == VERBS_MODE_ON || (mlx5 && a->wr_api == VERBS_MODE_AUTO))
		dev->send_path = VERBS_SEND_WR_API;
	else
		dev->send_path = VERBS_SEND_POST_WR;
#else
	dev->send_path = VERBS_SEND_POST_WR;
#endif
#ifdef RPCRDMA_VERBS_HAVE_CQ_EX
	dev->cq_ex = a->cq_ex == VERBS_MODE_ON || (mlx5 && a->cq_ex == VERBS_MODE_AUTO);
#else
	dev->cq_ex = false;
#endif
	return 0;
}

static void dev_free(struct verbs_dev *dev)
{
	if (dev->epfd >= 0)
		close(dev->epfd);
	if (dev->cm != NULL)
		rdma_destroy_event_channel(dev->cm);
	if (dev->ctx != NULL)
		ibv_close_device(dev->ctx);
	free(dev->qps);
	free(dev->qp_gen);
	verbs_srq_dev_free(dev);
	free(dev->evq);
	free(dev);
}

static int verbs_dev_open(const char *devargs, struct rpcrdma_pmd_dev **devp)
{
	struct ibv_device **list = NULL, *device;
	struct ibv_port_attr pattr;
	struct epoll_event eev;
	struct verbs_dev *dev;
	char err[160], ipdev[64];
	uint8_t ipport = 0;
	int num = 0, ret;

	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return -ENOMEM;
	dev->epfd = -1;
	TAILQ_INIT(&dev->qp_list);
	TAILQ_INIT(&dev->fatal_qps);
	TAILQ_INIT(&dev->reqs);
	if (verbs_devargs_parse(devargs, &dev->args, err, sizeof(err)) < 0) {
		verbs_log("bad device arguments: %s", err);
		ret = -EINVAL;
		goto err_dev;
	}

	errno = 0;
	list = ibv_get_device_list(&num);
	if (list == NULL || num <= 0) {
		int e = errno;

		verbs_log("no RDMA device found (ibv_get_device_list returned 0 devices)%s%s%s",
			  list == NULL && e != 0 ? ": " : "",
			  list == NULL && e != 0 ? strerror(e) : "",
			  e == ENOSYS ? " (the kernel has no RDMA support: load ib_uverbs and a "
					"driver such as mlx5_ib, rdma_rxe or siw)"
				      : "");
		ret = -ENODEV;
		goto err_list;
	}
	dev->cm = rdma_create_event_channel();
	if (dev->cm == NULL) {
		ret = verbs_err_null();
		verbs_log("rdma_cm is not available (rdma_create_event_channel: %s; is rdma_ucm "
			  "loaded?)",
			  strerror(-ret));
		ret = -ENODEV;
		goto err_list;
	}
	ret = set_nonblock(dev->cm->fd);
	if (ret < 0)
		goto err_list;

	if (dev->args.has_ip) {
		ret = device_of_ip(dev, ipdev, sizeof(ipdev), &ipport);
		if (ret < 0)
			goto err_list;
		if (dev->args.dev[0] != '\0' && strcmp(ipdev, dev->args.dev) != 0) {
			verbs_log("dev=%s but ip= is an address of %s", dev->args.dev, ipdev);
			ret = -EINVAL;
			goto err_list;
		}
		device = find_device(list, num, ipdev);
	} else if (dev->args.dev[0] != '\0') {
		device = find_device(list, num, dev->args.dev);
	} else {
		device = list[0];
	}
	if (device == NULL) {
		char have[128] = "";
		size_t off = 0;
		int i;

		for (i = 0; i < num && off < sizeof(have); i++)
			off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%s",
						i ? ", " : "", ibv_get_device_name(list[i]));
		verbs_log("no RDMA device named \"%s\" (there are: %s)",
			  dev->args.has_ip ? ipdev : dev->args.dev, have);
		ret = -ENODEV;
		goto err_list;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(device));
	ret = choose_paths(dev, device);
	if (ret < 0)
		goto err_list;
	dev->ctx = ibv_open_device(device);
	if (dev->ctx == NULL) {
		ret = verbs_err_null();
		verbs_log("%s: ibv_open_device: %s", dev->name, strerror(-ret));
		goto err_list;
	}
	ibv_free_device_list(list);
	list = NULL;

	ret = verbs_err(ibv_query_device(dev->ctx, &dev->attr));
	if (ret < 0) {
		verbs_log("%s: ibv_query_device: %s", dev->name, strerror(-ret));
		goto err_dev;
	}
	dev->port = dev->args.port != 0 ? dev->args.port : ipport != 0 ? ipport : 1;
	if (dev->port > dev->attr.phys_port_cnt ||
	    ibv_query_port(dev->ctx, dev->port, &pattr) != 0) {
		verbs_log("%s has no port %u (it has %u)", dev->name, dev->port,
			  dev->attr.phys_port_cnt);
		ret = -EINVAL;
		goto err_dev;
	}
	dev->link_layer = pattr.link_layer;
	dev->flush_in_modify = dev->attr.vendor_id == VERBS_VENDOR_SIW;
	verbs_dev_info_fill(&dev->attr, dev->ctx->device->node_type,
			    dev->ctx->device->transport_type, pattr.link_layer,
			    dev->args.inline_max, dev->name, &dev->info);
	ret = set_nonblock(dev->ctx->async_fd);
	if (ret < 0)
		goto err_dev;

	dev->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (dev->epfd < 0) {
		ret = -errno;
		goto err_dev;
	}
	memset(&eev, 0, sizeof(eev));
	eev.events = EPOLLIN;
	if (epoll_ctl(dev->epfd, EPOLL_CTL_ADD, dev->cm->fd, &eev) != 0 ||
	    epoll_ctl(dev->epfd, EPOLL_CTL_ADD, dev->ctx->async_fd, &eev) != 0) {
		ret = -errno;
		goto err_dev;
	}
	verbs_info("%s port %u (%s, %s): send path %s, cq %s, inline %u bytes, rdma-core %s",
		   dev->name, dev->port,
		   pattr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
		   ibv_port_state_str(pattr.state), path_name(dev->send_path),
		   dev->cq_ex ? "ex (ibv_start_poll)" : "ibv_poll_cq", dev->args.inline_max,
		   RPCRDMA_VERBS_RDMA_CORE);
	if (pattr.state != IBV_PORT_ACTIVE)
		verbs_log("%s port %u is not active: connections will fail until it is", dev->name,
			  dev->port);
	*devp = &dev->common;
	return 0;

err_list:
	if (list != NULL)
		ibv_free_device_list(list);
err_dev:
	dev_free(dev);
	return ret;
}

static void req_free(struct verbs_dev *dev, struct verbs_req *req)
{
	if (req->id != NULL)
		rdma_destroy_id(req->id);
	TAILQ_REMOVE(&dev->reqs, req, next);
	ev_forget(dev, NULL, req);
	free(req);
}

static void verbs_dev_close(struct rpcrdma_pmd_dev *d)
{
	struct verbs_dev *dev = to_verbs_dev(d);

	/* requests the user never answered: reject them */
	while (!TAILQ_EMPTY(&dev->reqs)) {
		struct verbs_req *req = TAILQ_FIRST(&dev->reqs);

		if (req->state == VERBS_REQ_REQUESTED)
			rdma_reject(req->id, NULL, 0);
		req_free(dev, req);
	}
	dev_free(dev);
}

/* ---------------- protection domains and memory ---------------- */

static int verbs_pd_alloc(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_pd **pdp)
{
	struct verbs_dev *dev = to_verbs_dev(d);
	struct verbs_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return -ENOMEM;
	pd->pd = ibv_alloc_pd(dev->ctx);
	if (pd->pd == NULL) {
		ret = verbs_err_null();
		free(pd);
		return ret;
	}
	TAILQ_INIT(&pd->mrs);
	pd->common.pd_id = ++dev->next_pd_id;
	*pdp = &pd->common;
	return 0;
}

static void verbs_pd_free(struct rpcrdma_pmd_pd *p)
{
	struct verbs_pd *pd = to_verbs_pd(p);

	ibv_dealloc_pd(pd->pd);
	free(pd);
}

static int verbs_mr_reg(struct rpcrdma_pmd_pd *p, void *addr, size_t len, uint32_t access, int fd,
			uint64_t fd_offset, struct rpcrdma_pmd_mr **mrp)
{
	struct verbs_pd *pd = to_verbs_pd(p);
	struct verbs_mr *mr;
	int flags, ret;

	(void)fd; /* the NIC reaches the memory through its pinned pages, not a file */
	(void)fd_offset;
	flags = verbs_access_to_ibv(access);
	if (flags < 0)
		return flags;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return -ENOMEM;
	mr->mr = ibv_reg_mr(pd->pd, addr, len, flags);
	if (mr->mr == NULL) {
		ret = verbs_err_null();
		if (ret == -ENOMEM || ret == -EAGAIN)
			verbs_log(
				"ibv_reg_mr of %zu bytes: %s (locked memory limit? see ulimit -l)",
				len, strerror(-ret));
		free(mr);
		return ret;
	}
	mr->ibv_access = flags;
	mr->common.addr = addr;
	mr->common.length = len;
	mr->common.lkey = mr->mr->lkey;
	mr->common.rkey = mr->mr->rkey;
	mr->common.access = access;
	TAILQ_INSERT_TAIL(&pd->mrs, mr, next);
	*mrp = &mr->common;
	return 0;
}

static void verbs_mr_dereg(struct rpcrdma_pmd_mr *m)
{
	struct verbs_mr *mr = to_verbs_mr(m);
	struct verbs_pd *pd = to_verbs_pd(m->pd);

	if (mr->mr != NULL)
		ibv_dereg_mr(mr->mr);
	TAILQ_REMOVE(&pd->mrs, mr, next);
	free(mr);
}

/*
 * Invalidation of a whole registration: deregister it. When ibv_dereg_mr
 * returns the keys are invalid on the device; the MR object stays, without
 * a registration, until it is rekeyed or deregistered.
 */
static int verbs_mr_invalidate(struct rpcrdma_pmd_pd *p, uint32_t rkey)
{
	struct verbs_pd *pd = to_verbs_pd(p);
	struct verbs_mr *mr;
	int ret;

	TAILQ_FOREACH(mr, &pd->mrs, next)
	{
		if (mr->mr == NULL || mr->mr->rkey != rkey)
			continue;
		ret = verbs_err(ibv_dereg_mr(mr->mr));
		if (ret < 0)
			return ret;
		mr->mr = NULL;
		return 0;
	}
	return -ENOENT;
}

/*
 * A new registration of the same memory; the old keys end. The new one is
 * made before the old is released, so the device cannot hand the old rkey
 * back; an invalidated MR whose fresh registration repeats its last rkey is
 * registered once more for the same reason.
 */
static int verbs_mr_rekey(struct rpcrdma_pmd_mr *m)
{
	struct verbs_mr *mr = to_verbs_mr(m);
	struct verbs_pd *pd = to_verbs_pd(m->pd);
	struct ibv_mr *fresh, *again;

	fresh = ibv_reg_mr(pd->pd, m->addr, m->length, mr->ibv_access);
	if (fresh == NULL)
		return verbs_err_null();
	if (mr->mr == NULL && fresh->rkey == m->rkey) {
		again = ibv_reg_mr(pd->pd, m->addr, m->length, mr->ibv_access);
		ibv_dereg_mr(fresh);
		if (again == NULL)
			return verbs_err_null();
		fresh = again;
	}
	if (mr->mr != NULL)
		ibv_dereg_mr(mr->mr);
	mr->mr = fresh;
	m->lkey = fresh->lkey;
	m->rkey = fresh->rkey;
	return 0;
}

/* ---------------- completion queues ---------------- */

static int verbs_cq_create(struct rpcrdma_pmd_dev *d, uint32_t cqe, struct rpcrdma_pmd_cq **cqp)
{
	struct verbs_dev *dev = to_verbs_dev(d);
	struct verbs_cq *cq;
	int ret;

	if (cqe > (uint32_t)dev->attr.max_cqe)
		return -EINVAL;
	cq = aligned_alloc(64, sizeof(*cq));
	if (cq == NULL)
		return -ENOMEM;
	memset(cq, 0, sizeof(*cq));
	cq->dev = dev;
	TAILQ_INIT(&cq->sq_flush);
	TAILQ_INIT(&cq->rq_flush);
#ifdef RPCRDMA_VERBS_HAVE_CQ_EX
	if (dev->cq_ex) {
		struct ibv_cq_init_attr_ex ca;

		memset(&ca, 0, sizeof(ca));
		ca.cqe = cqe;
		ca.cq_context = cq;
		/* IMM: the invalidated rkey of a SEND_WITH_INV is read through it */
		ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM;
		cq->cqx = ibv_create_cq_ex(dev->ctx, &ca);
		if (cq->cqx != NULL) {
			cq->cq = ibv_cq_ex_to_cq(cq->cqx);
		} else if (dev->args.cq_ex == VERBS_MODE_ON) {
			ret = verbs_err_null();
			verbs_log("ibv_create_cq_ex: %s (cq_ex=on)", strerror(-ret));
			goto err_cq;
		} else {
			verbs_log("ibv_create_cq_ex: %s: using ibv_create_cq and ibv_poll_cq",
				  strerror(errno));
			dev->cq_ex = false;
		}
	}
#endif
	if (cq->cq == NULL) {
		cq->cq = ibv_create_cq(dev->ctx, (int)cqe, cq, NULL, 0);
		if (cq->cq == NULL) {
			ret = verbs_err_null();
			goto err_cq;
		}
	}
	cq->common.cqe = (uint32_t)cq->cq->cqe;
	verbs_cq_set_fast_path(cq);
	*cqp = &cq->common;
	return 0;

err_cq:
	free(cq);
	return ret;
}

static void verbs_cq_destroy(struct rpcrdma_pmd_cq *c)
{
	struct verbs_cq *cq = to_verbs_cq(c);

	ibv_destroy_cq(cq->cq);
	free(cq);
}

/* ---------------- queue pairs ---------------- */

/* A free index of the device's QP table, growing it if needed. */
static int tag_alloc(struct verbs_dev *dev, uint32_t *tag)
{
	uint32_t i, cap;

	for (i = 0; i < dev->qp_cap; i++) {
		uint32_t idx = (dev->qp_hint + i) % dev->qp_cap;

		if (dev->qps[idx] == NULL) {
			dev->qp_hint = idx + 1;
			*tag = (uint32_t)dev->qp_gen[idx] << 16 | idx;
			return 0;
		}
	}
	if (dev->qp_cap == VERBS_QP_INDEX_MAX)
		return -ENOSPC;
	cap = dev->qp_cap ? dev->qp_cap * 2 : 64;
	{
		struct verbs_qp **q = realloc(dev->qps, cap * sizeof(*q));
		uint16_t *g;

		if (q == NULL)
			return -ENOMEM;
		dev->qps = q;
		g = realloc(dev->qp_gen, cap * sizeof(*g));
		if (g == NULL)
			return -ENOMEM;
		dev->qp_gen = g;
	}
	for (i = dev->qp_cap; i < cap; i++) {
		dev->qps[i] = NULL;
		dev->qp_gen[i] = 0;
	}
	i = dev->qp_cap;
	dev->qp_cap = cap;
	dev->qp_hint = i + 1;
	*tag = i;
	return 0;
}

static void tag_free(struct verbs_dev *dev, uint32_t tag)
{
	uint16_t idx = verbs_tag_index(tag);

	dev->qps[idx] = NULL;
	dev->qp_gen[idx]++; /* a late completion of the old QP no longer matches */
}

static struct ibv_qp *qp_create_path(struct verbs_dev *dev, struct verbs_pd *pd,
				     enum verbs_send_path path, struct ibv_qp_init_attr_ex *ia)
{
	switch (path) {
#ifdef RPCRDMA_VERBS_HAVE_WR_API
	case VERBS_SEND_MLX5DV:
#ifdef RPCRDMA_VERBS_HAVE_MLX5DV
	{
		struct mlx5dv_qp_init_attr dv;

		memset(&dv, 0, sizeof(dv));
		ia->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		return mlx5dv_create_qp(dev->ctx, ia, &dv);
	}
#else
		errno = EOPNOTSUPP;
		return NULL;
#endif
	case VERBS_SEND_WR_API:
		ia->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		return ibv_create_qp_ex(dev->ctx, ia);
#endif
	default: {
		struct ibv_qp_init_attr a;
		struct ibv_qp *qp;

		(void)dev;
		memset(&a, 0, sizeof(a));
		a.qp_context = ia->qp_context;
		a.send_cq = ia->send_cq;
		a.recv_cq = ia->recv_cq;
		a.srq = ia->srq;
		a.cap = ia->cap;
		a.qp_type = IBV_QPT_RC;
		qp = ibv_create_qp(pd->pd, &a);
		if (qp != NULL)
			ia->cap = a.cap;
		return qp;
	}
	}
}

/*
 * Create the verbs QP on the device's send path, falling back (auto modes)
 * from mlx5dv to the ibv_wr API to ibv_post_send when the provider refuses.
 */
static struct ibv_qp *qp_create_ibv(struct verbs_dev *dev, struct verbs_pd *pd,
				    struct verbs_qp *vqp, struct ibv_qp_init_attr_ex *ia)
{
	for (;;) {
		struct ibv_qp_init_attr_ex try = *ia;
		enum verbs_send_path next;
		struct ibv_qp *qp;
		int e;

		qp = qp_create_path(dev, pd, dev->send_path, &try);
		if (qp != NULL) {
			*ia = try;
			vqp->path = dev->send_path;
			if (!dev->path_logged) {
				verbs_info("%s: first QP %u created on the %s send path", dev->name,
					   qp->qp_num, path_name(vqp->path));
				dev->path_logged = true;
			}
			return qp;
		}
		e = errno;
		if (dev->send_path == VERBS_SEND_MLX5DV && dev->args.mlx5dv == VERBS_MODE_AUTO)
			next = VERBS_SEND_WR_API;
		else if (dev->send_path == VERBS_SEND_WR_API &&
			 dev->args.wr_api == VERBS_MODE_AUTO && dev->args.mlx5dv != VERBS_MODE_ON &&
			 (e == EOPNOTSUPP || e == ENOSYS))
			next = VERBS_SEND_POST_WR;
		else
			return NULL;
		verbs_log("%s: QP creation on the %s path failed (%s): trying %s", dev->name,
			  path_name(dev->send_path), strerror(e), path_name(next));
		dev->send_path = next;
	}
}

static int qp_modify(struct verbs_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return verbs_err(ibv_modify_qp(qp->qp, attr, mask));
}

static void qp_to_err(struct verbs_qp *qp)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	qp_modify(qp, &attr, IBV_QP_STATE);
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	verbs_qp_flush_watch(qp);
	verbs_qp_drain_mark(qp);
}

static void qp_free_rings(struct verbs_qp *qp)
{
	free(qp->sq);
	free(qp->rq);
	free(qp->pwr);
	free(qp->psge);
}

static int verbs_qp_create(struct rpcrdma_pmd_pd *p, const struct rpcrdma_pmd_qp_attr *attr,
			   struct rpcrdma_pmd_qp **qpp)
{
	struct verbs_pd *pd = to_verbs_pd(p);
	struct verbs_dev *dev = to_verbs_dev(p->dev);
	struct verbs_cq *scq = to_verbs_cq(attr->send_cq), *rcq = to_verbs_cq(attr->recv_cq);
	uint32_t max_wr = (uint32_t)dev->attr.max_qp_wr, max_sge = (uint32_t)dev->attr.max_sge;
	/* with an SRQ: no receive queue of its own (its sizes are ignored) */
	uint32_t max_recv_wr = attr->srq != NULL ? 0 : attr->max_recv_wr;
	uint16_t max_recv_sge = attr->srq != NULL ? 0 : attr->max_recv_sge;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr qa;
	struct verbs_qp *qp;
	uint32_t sq_size, rq_size;
	int ret;

	if (attr->max_send_wr > max_wr || max_recv_wr > max_wr || attr->max_send_sge > max_sge ||
	    attr->max_send_sge > VERBS_SGE_MAX || max_recv_sge > max_sge)
		return -EINVAL;
	if (dev->fatal)
		return -EIO;
	qp = aligned_alloc(64, sizeof(*qp));
	if (qp == NULL)
		return -ENOMEM;
	memset(qp, 0, sizeof(*qp));
	qp->dev = dev;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->ep.kind = VERBS_EP_QP;
	qp->ep.obj = qp;
	ret = tag_alloc(dev, &qp->tag);
	if (ret < 0)
		goto err_qp;

	sq_size = pow2_at_least(attr->max_send_wr);
	rq_size = pow2_at_least(max_recv_wr);
	qp->sq = calloc(sq_size, sizeof(*qp->sq));
	qp->rq = calloc(rq_size, sizeof(*qp->rq));
	if (qp->sq == NULL || qp->rq == NULL) {
		ret = -ENOMEM;
		goto err_rings;
	}
	qp->sq_mask = sq_size - 1;
	qp->rq_mask = rq_size - 1;
	qp->max_send_wr = attr->max_send_wr;
	qp->max_recv_wr = max_recv_wr;
	qp->max_send_sge = attr->max_send_sge;
	qp->max_read_sge =
		(uint16_t)(attr->max_send_sge < dev->info.max_read_sge ? attr->max_send_sge
								       : dev->info.max_read_sge);
	qp->max_recv_sge = max_recv_sge;
	qp->rnr_retry = attr->rnr_retry;
	qp->rnr_timer = verbs_rnr_timer_code(attr->rnr_timer_us);

	memset(&ia, 0, sizeof(ia));
	ia.qp_context = qp;
	ia.send_cq = scq->cq;
	ia.recv_cq = rcq->cq;
	ia.cap.max_send_wr = attr->max_send_wr;
	ia.cap.max_recv_wr = max_recv_wr;
	ia.cap.max_send_sge = attr->max_send_sge;
	ia.cap.max_recv_sge = max_recv_sge;
	ia.srq = attr->srq != NULL ? to_verbs_srq(attr->srq)->srq : NULL;
	ia.cap.max_inline_data = dev->args.inline_max;
	ia.qp_type = IBV_QPT_RC;
	ia.pd = pd->pd;
#ifdef RPCRDMA_VERBS_HAVE_WR_API
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |
			    IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ;
#endif
	qp->qp = qp_create_ibv(dev, pd, qp, &ia);
	if (qp->qp == NULL) {
		ret = verbs_err_null();
		verbs_log("%s: QP creation (send %u x %u sge, recv %u x %u sge, inline %u): %s",
			  dev->name, attr->max_send_wr, attr->max_send_sge, max_recv_wr,
			  max_recv_sge, dev->args.inline_max, strerror(-ret));
		goto err_rings;
	}
	/* the provider may give more inline room than asked, never use more than asked */
	qp->max_inline = ia.cap.max_inline_data < dev->args.inline_max ? ia.cap.max_inline_data
								       : dev->args.inline_max;
#ifdef RPCRDMA_VERBS_HAVE_WR_API
	if (qp->path != VERBS_SEND_POST_WR) {
		qp->qpx = ibv_qp_to_qp_ex(qp->qp);
		if (qp->qpx == NULL) {
			ret = -ENOTSUP;
			goto err_ibv;
		}
	}
#endif
	if (qp->qpx == NULL) {
		qp->pwr = calloc(sq_size, sizeof(*qp->pwr));
		qp->psge = calloc((size_t)sq_size * attr->max_send_sge, sizeof(*qp->psge));
		if (qp->pwr == NULL || qp->psge == NULL) {
			ret = -ENOMEM;
			goto err_ibv;
		}
	}

	/* INIT now, so that receives can be posted before connecting */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = dev->port;
	qa.qp_access_flags =
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	ret = qp_modify(qp, &qa,
			IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret < 0) {
		verbs_log("qp %u: RESET -> INIT: %s", qp->qp->qp_num, strerror(-ret));
		goto err_ibv;
	}

	qp->common.qp_num = qp->qp->qp_num;
	if (attr->srq != NULL) {
		/* an SRQ receive's completion names its QP by number only */
		ret = verbs_qpn_add(dev, qp);
		if (ret < 0)
			goto err_ibv;
		qp->on_srq = true;
	}
	qp->common.state = RPCRDMA_PMD_QPS_INIT;
	qp->conn = VERBS_CONN_IDLE;
	dev->qps[verbs_tag_index(qp->tag)] = qp;
	TAILQ_INSERT_TAIL(&dev->qp_list, qp, next);
	verbs_qp_set_fast_path(qp);
	*qpp = &qp->common;
	return 0;

err_ibv:
	ibv_destroy_qp(qp->qp);
err_rings:
	qp_free_rings(qp);
	/* the index was never published: its generation need not move */
err_qp:
	free(qp);
	return ret;
}

static void verbs_qp_destroy(struct rpcrdma_pmd_qp *q)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	struct verbs_dev *dev = qp->dev;

#ifdef RPCRDMA_VERBS_HAVE_WR_API
	if (qp->batch) {
		ibv_wr_abort(qp->qpx); /* releases the provider's send queue lock */
		qp->batch = false;
	}
#endif
	/* tell the peer; an id still connecting is rejected when destroyed */
	if (qp->cm_id != NULL && (qp->conn == VERBS_CONN_UP || qp->conn == VERBS_CONN_ACCEPTED))
		rdma_disconnect(qp->cm_id);
	ibv_destroy_qp(qp->qp);
	if (qp->cm_id != NULL)
		rdma_destroy_id(qp->cm_id);
	ev_forget(dev, qp, NULL);
	if (qp->sq_flush_queued)
		TAILQ_REMOVE(&qp->scq->sq_flush, qp, sq_flush_next);
	if (qp->rq_flush_queued)
		TAILQ_REMOVE(&qp->rcq->rq_flush, qp, rq_flush_next);
	if (qp->fatal_queued)
		TAILQ_REMOVE(&dev->fatal_qps, qp, fatal_next);
	TAILQ_REMOVE(&dev->qp_list, qp, next);
	if (qp->on_srq)
		verbs_qpn_del(dev, qp);
	tag_free(dev, qp->tag);
	qp_free_rings(qp);
	free(qp);
}

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
			qp_to_err(qp);
			qp->conn = VERBS_CONN_DOWN;
			qp->disc_reported = true;
		} else {
			/* the QP never left INIT: it may connect again */
			qp->conn = VERBS_CONN_IDLE;
			qp->common.state = RPCRDMA_PMD_QPS_INIT;
		}
		ev_push(dev,
			type == RPCRDMA_PMD_EVENT_REJECTED ? type : RPCRDMA_PMD_EVENT_CONNECT_ERROR,
			qp, NULL, pdata, pdata_len);
		return;
	case VERBS_CONN_ACCEPTED:
	case VERBS_CONN_UP:
		if (local && qp->cm_id != NULL)
			rdma_disconnect(qp->cm_id);
		qp_to_err(qp);
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
			ev_push(dev,
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
		qp_to_err(qp);
		qp->conn = VERBS_CONN_DOWN;
		qp->disc_reported = true;
		ev_push(qp->dev, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL, NULL, 0);
		return;
	case VERBS_CONN_ACCEPTED:
	case VERBS_CONN_UP:
		conn_down(qp, RPCRDMA_PMD_EVENT_DISCONNECTED, true, NULL, 0);
		return;
	default:
		qp_to_err(qp);
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
		ret = qp_modify(qp, &a, mask);
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
	ret = qp_modify(qp, &a, mask);
	if (ret < 0)
		goto err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	ret = verbs_err(rdma_init_qp_attr(id, &a, &mask));
	if (ret < 0)
		goto err;
	a.rnr_retry = qp->rnr_retry;
	mask |= IBV_QP_RNR_RETRY;
	ret = qp_modify(qp, &a, mask);
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

static int verbs_listen(struct rpcrdma_pmd_dev *d, const char *addr,
			struct rpcrdma_pmd_listener **lp)
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
	if (l->id->verbs != NULL && !same_device(dev, l->id->verbs)) {
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

static void verbs_listener_close(struct rpcrdma_pmd_listener *lp)
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

static int verbs_connect(struct rpcrdma_pmd_qp *q, const char *addr, const void *pdata,
			 uint8_t pdata_len)
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

static int verbs_accept(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_qp *q, const void *pdata,
			uint8_t pdata_len)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);
	struct verbs_qp *qp = to_verbs_qp(q);
	struct verbs_dev *dev = qp->dev;
	struct rdma_conn_param cp;
	struct rdma_cm_id *id;
	int ret;

	if (req->state != VERBS_REQ_REQUESTED) {
		req_free(dev, req);
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
	req_free(dev, req);
	qp->cm_id = id;
	qp->conn = VERBS_CONN_ACCEPTED;
	qp->disc_reported = false;
	q->state = RPCRDMA_PMD_QPS_RTS;
	return 0;

err_reject:
	/* the QP may be half way to RTS: error, so its receives flush back */
	rdma_reject(id, NULL, 0);
	req_free(dev, req);
	qp_to_err(qp);
	return ret == -EINVAL ? -ENOTCONN : ret;
}

static int verbs_reject(struct rpcrdma_pmd_conn_req *r, const void *pdata, uint8_t pdata_len)
{
	struct verbs_req *req = container_of(r, struct verbs_req, common);
	struct verbs_dev *dev = to_verbs_dev(r->dev);

	if (req->state == VERBS_REQ_REQUESTED && rdma_reject(req->id, pdata, pdata_len) != 0)
		verbs_log("rdma_reject: %s", strerror(errno));
	req_free(dev, req);
	return 0;
}

static int verbs_disconnect(struct rpcrdma_pmd_qp *q)
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

static void new_request(struct verbs_dev *dev, struct verbs_listener *l, const struct cm_event *e)
{
	struct verbs_req *req;

	if (!same_device(dev, e->id->verbs)) {
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
	e->id->context = &req->ep;
	TAILQ_INSERT_TAIL(&dev->reqs, req, next);
	ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, req, e->pdata, e->pdata_len);
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
		if (!same_device(dev, e->id->verbs)) {
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
			qp_to_err(qp);
			qp->conn = VERBS_CONN_DOWN;
			qp->disc_reported = true;
			ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL, NULL, 0);
			return;
		}
		qp->conn = VERBS_CONN_UP;
		qp->common.state = RPCRDMA_PMD_QPS_RTS;
		ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, e->pdata, e->pdata_len);
		return;
	case VERBS_CM_ESTABLISHED:
		/* the server's RTU carries no private data; a client's accept does */
		ret = qp->conn == VERBS_CONN_CONNECTING;
		qp->conn = VERBS_CONN_UP;
		qp->common.state = RPCRDMA_PMD_QPS_RTS;
		ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, ret ? e->pdata : NULL,
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

			ev_push(dev, RPCRDMA_PMD_EVENT_SRQ_LIMIT, NULL, NULL, NULL, 0);
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

static int verbs_event_poll(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_event *ev, unsigned int n)
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
	return (int)ev_pop(dev, ev, n);
}

static int verbs_dev_info_get(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_dev_info *info)
{
	const struct verbs_dev *dev = to_verbs_dev(d);
	const char *driver = info->driver;

	*info = dev->info;
	info->driver = driver;
	return 0;
}

static int verbs_event_fd(struct rpcrdma_pmd_dev *d)
{
	return to_verbs_dev(d)->epfd;
}

static struct rpcrdma_pmd_ops verbs_ops = {
	.name = VERBS_DRIVER,
	.dev_open = verbs_dev_open,
	.dev_close = verbs_dev_close,
	.pd_alloc = verbs_pd_alloc,
	.pd_free = verbs_pd_free,
	.mr_reg = verbs_mr_reg,
	.mr_dereg = verbs_mr_dereg,
	.mr_invalidate = verbs_mr_invalidate,
	.mr_rekey = verbs_mr_rekey,
	.cq_create = verbs_cq_create,
	.cq_destroy = verbs_cq_destroy,
	.qp_create = verbs_qp_create,
	.qp_destroy = verbs_qp_destroy,
	.srq_create = verbs_srq_create,
	.srq_destroy = verbs_srq_destroy,
	.srq_arm = verbs_srq_arm,
	.listen = verbs_listen,
	.listener_close = verbs_listener_close,
	.connect = verbs_connect,
	.accept = verbs_accept,
	.reject = verbs_reject,
	.disconnect = verbs_disconnect,
	.event_poll = verbs_event_poll,
	.event_fd = verbs_event_fd,
	.dev_info_get = verbs_dev_info_get,
};

RPCRDMA_PMD_REGISTER(verbs_ops)
