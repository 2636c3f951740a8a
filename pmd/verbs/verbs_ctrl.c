/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD control path: devices, PDs, MRs, CQs, QPs, and the device's
 * FIFO of events. The connection manager (rdma_cm) and the asynchronous
 * events are verbs_cm.c, the shared receive queues verbs_srq.c, the ops
 * table verbs_pmd.c; this file calls none of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_common.h>

#include "verbs_config.h"
#ifdef RPCRDMA_VERBS_HAVE_MLX5DV
#include <infiniband/mlx5dv.h>
#endif

#include "verbs_pmd.h"

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

bool verbs_same_device(const struct verbs_dev *dev, const struct ibv_context *ctx)
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

void verbs_ev_push(struct verbs_dev *dev, enum rpcrdma_pmd_event_type type, struct verbs_qp *qp,
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
void verbs_ev_forget(struct verbs_dev *dev, struct verbs_qp *qp, struct verbs_req *req)
{
	unsigned int i;

	for (i = 0; i < dev->evq_len; i++) {
		struct rpcrdma_pmd_event *ev = &dev->evq[(dev->evq_head + i) % dev->evq_cap];

		if ((qp != NULL && ev->qp == &qp->common) ||
		    (req != NULL && ev->req == &req->common))
			ev->type = 0;
	}
}

unsigned int verbs_ev_pop(struct verbs_dev *dev, struct rpcrdma_pmd_event *ev, unsigned int n)
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

int verbs_dev_open(const char *devargs, struct rpcrdma_pmd_dev **devp)
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

void verbs_req_free(struct verbs_dev *dev, struct verbs_req *req)
{
	if (req->id != NULL)
		rdma_destroy_id(req->id);
	TAILQ_REMOVE(&dev->reqs, req, next);
	verbs_ev_forget(dev, NULL, req);
	free(req);
}

void verbs_dev_close(struct rpcrdma_pmd_dev *d)
{
	struct verbs_dev *dev = to_verbs_dev(d);

	/* requests the user never answered: reject them */
	while (!TAILQ_EMPTY(&dev->reqs)) {
		struct verbs_req *req = TAILQ_FIRST(&dev->reqs);

		if (req->state == VERBS_REQ_REQUESTED)
			rdma_reject(req->id, NULL, 0);
		verbs_req_free(dev, req);
	}
	dev_free(dev);
}

/* ---------------- protection domains and memory ---------------- */

int verbs_pd_alloc(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_pd **pdp)
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

void verbs_pd_free(struct rpcrdma_pmd_pd *p)
{
	struct verbs_pd *pd = to_verbs_pd(p);

	ibv_dealloc_pd(pd->pd);
	free(pd);
}

int verbs_mr_reg(struct rpcrdma_pmd_pd *p, void *addr, size_t len, uint32_t access, int fd,
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

void verbs_mr_dereg(struct rpcrdma_pmd_mr *m)
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
int verbs_mr_invalidate(struct rpcrdma_pmd_pd *p, uint32_t rkey)
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
int verbs_mr_rekey(struct rpcrdma_pmd_mr *m)
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

int verbs_cq_create(struct rpcrdma_pmd_dev *d, uint32_t cqe, struct rpcrdma_pmd_cq **cqp)
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

void verbs_cq_destroy(struct rpcrdma_pmd_cq *c)
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

int verbs_qp_modify(struct verbs_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return verbs_err(ibv_modify_qp(qp->qp, attr, mask));
}

void verbs_qp_to_err(struct verbs_qp *qp)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	verbs_qp_modify(qp, &attr, IBV_QP_STATE);
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

int verbs_qp_create(struct rpcrdma_pmd_pd *p, const struct rpcrdma_pmd_qp_attr *attr,
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

	sq_size = rte_align32pow2(attr->max_send_wr);
	/* a QP on an SRQ posts no receive: a table of one entry all the same */
	rq_size = rte_align32pow2(RTE_MAX(max_recv_wr, 1u));
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
	ret = verbs_qp_modify(qp, &qa,
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

void verbs_qp_destroy(struct rpcrdma_pmd_qp *q)
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
	verbs_ev_forget(dev, qp, NULL);
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
