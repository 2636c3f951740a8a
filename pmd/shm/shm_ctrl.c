/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm PMD control path: devices, PDs, MRs, CQs, QPs, and the connection
 * manager over SOCK_SEQPACKET UNIX sockets (protocol in rpcrdma_shm.h).
 *
 * Device arguments ("key=value,..."):
 *   mr_max=N            MR table entries (default 4096)
 *   fail_wr=N           the Nth send-queue work request executed on this
 *                       device fails with RETRY_EXC_ERR (QP to error)
 *   drop_after_sends=N  a connection drops after N SENDs on its QP: both
 *                       sides get DISCONNECTED and flush
 *   cq_delay=N          completions become visible N polls late
 *
 * Everything received from a socket or read from a peer's memory is checked
 * before use; a peer that breaks the protocol is disconnected.
 *
 * Memory registered with a file descriptor after a connection is up reaches
 * the peer in a REGION message, mapped when the peer next polls its events;
 * until then the peer's work requests that touch it fail (REM_ACCESS_ERR,
 * or REM_OP_ERR for a receive buffer). Register the pools before connecting.
 * A region's index is never reused; its fd is closed when its last MR goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "../pmd_devargs.h"
#include "shm.h"

#define SHM_QP_AREA_MAX SHM_AREA_MAX
#define SHM_MSG_FDS_MAX 3 /* HELLO, ACCEPT: device area, QP area, SRQ area */

struct shm_listener {
	struct rpcrdma_pmd_listener common;
	int sock;
	struct shm_ep ep;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	bool abstract;
};

enum shm_req_state {
	SHM_REQ_WAIT_HELLO, /* connected socket, no HELLO yet: invisible to the user */
	SHM_REQ_REQUESTED,  /* CONNECT_REQUEST returned; waiting for accept/reject */
	SHM_REQ_DEAD,	    /* returned, then the client went away */
};

/* A REGION message a request keeps, to map it again on the device it is handed to. */
struct shm_req_region {
	struct rpcrdma_shm_msg_region msg;
	int fd;
};

struct shm_req {
	struct rpcrdma_pmd_conn_req common;
	enum shm_req_state state;
	int sock;
	struct shm_ep ep;
	struct shm_rdev *rdev; /* the client's device, mapped on this device */
	struct rpcrdma_shm_msg_conn hello;
	int qp_fd;   /* client's QP area */
	int srq_fd;  /* ... and its SRQ's area, or -1 */
	int area_fd; /* ... and its device area, until accept */
	/* the client's regions, until accept (at most RPCRDMA_SHM_REGION_MAX) */
	struct shm_req_region *regions;
	uint32_t nb_regions;
	TAILQ_ENTRY(shm_req) next;
};

#define shm_log(...) rpcrdma_pmd_log(SHM_DRIVER, __VA_ARGS__)

/* ---------------- socket messages ---------------- */

static int msg_send(int sock, uint16_t type, const struct rpcrdma_shm_msg *body, const int *fds,
		    unsigned int nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SHM_MSG_FDS_MAX)];
	} u;
	struct rpcrdma_shm_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (body != NULL)
		m = *body;
	else
		memset(&m, 0, sizeof(m));
	m.magic = RPCRDMA_SHM_MAGIC;
	m.version_major = RPCRDMA_SHM_VERSION_MAJOR;
	m.type = type;
	if (nfds != 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(m) ? 0 : -EPROTO;
}

/*
 * Receive one message. @return 1: a message (fds in fds[0..*nfds)); 0:
 * nothing now; -ECONNRESET: the peer hung up; -EPROTO: malformed (any fds
 * received are closed).
 */
static int msg_recv(int sock, struct rpcrdma_shm_msg *m, int *fds, unsigned int *nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * (SHM_MSG_FDS_MAX + 2))];
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	unsigned int k = 0;
	ssize_t n;

	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	do {
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -ECONNRESET;
	if (n == 0)
		return -ECONNRESET;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		int *cfd = (int *)(void *)CMSG_DATA(c);
		size_t i, cnt;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < cnt; i++) {
			if (k < SHM_MSG_FDS_MAX)
				fds[k++] = cfd[i];
			else
				close(cfd[i]);
		}
	}
	*nfds = k;
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n != (ssize_t)sizeof(*m) ||
	    m->magic != RPCRDMA_SHM_MAGIC || m->version_major != RPCRDMA_SHM_VERSION_MAJOR) {
		while (k > 0)
			close(fds[--k]);
		*nfds = 0;
		return -EPROTO;
	}
	return 1;
}

static void close_fds(int *fds, unsigned int nfds)
{
	while (nfds > 0)
		close(fds[--nfds]);
}

static int send_regions(struct shm_dev *dev, int sock)
{
	uint32_t i;
	int ret;

	for (i = 0; i < dev->nb_regions; i++) {
		struct shm_region *r = &dev->regions[i];
		struct rpcrdma_shm_msg m;

		if (r->fd < 0)
			continue;
		memset(&m, 0, sizeof(m));
		m.region.dev_id = dev->dev_id;
		m.region.fd_offset = r->fd_off;
		m.region.length = r->len;
		m.region.index = i;
		ret = msg_send(sock, RPCRDMA_SHM_MSG_REGION, &m, &r->fd, 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void conn_msg_fill(struct shm_dev *dev, struct shm_qp *qp, struct rpcrdma_shm_msg *m,
			  const void *pdata, uint8_t pdata_len)
{
	memset(m, 0, sizeof(*m));
	m->conn.dev_id = dev->dev_id;
	m->conn.dev_area_size = dev->area_size;
	m->conn.qp_area_size = qp->area_size;
	m->conn.pid = (uint32_t)getpid();
	m->conn.qp_num = qp->common.qp_num;
	m->conn.pdata_len = pdata_len;
	if (pdata_len)
		memcpy(m->conn.pdata, pdata, pdata_len);
}

/* ---------------- peer devices ---------------- */

static struct shm_rdev *rdev_get(struct shm_dev *dev, uint64_t dev_id)
{
	struct shm_rdev *rd;

	TAILQ_FOREACH(rd, &dev->rdevs, next)
	if (rd->dev_id == dev_id) {
		rd->refs++;
		return rd;
	}
	rd = calloc(1, sizeof(*rd));
	if (rd == NULL)
		return NULL;
	rd->dev_id = dev_id;
	rd->refs = 1;
	TAILQ_INSERT_TAIL(&dev->rdevs, rd, next);
	return rd;
}

static void rdev_put(struct shm_dev *dev, struct shm_rdev *rd)
{
	unsigned int i;

	if (rd == NULL || --rd->refs != 0)
		return;
	for (i = 0; i < RPCRDMA_SHM_REGION_MAX; i++)
		if (rd->regions[i].base != NULL)
			munmap(rd->regions[i].base, rd->regions[i].len);
	if (rd->area != NULL)
		munmap(rd->area, rd->area_size);
	TAILQ_REMOVE(&dev->rdevs, rd, next);
	free(rd);
}

/* Map and check a peer's device area (once per peer device). */
static int rdev_map_area(struct shm_rdev *rd, int fd, uint64_t size)
{
	struct rpcrdma_shm_dev_area *a;

	if (rd->area != NULL)
		return 0;
	if (size < sizeof(*a) || size > SHM_QP_AREA_MAX)
		return -EPROTO;
	a = shm_map_peer_fd(fd, 0, size);
	if (a == NULL)
		return -EPROTO;
	if (a->magic != RPCRDMA_SHM_MAGIC || a->version_major != RPCRDMA_SHM_VERSION_MAJOR ||
	    a->hdr_size != sizeof(*a) || a->dev_id != rd->dev_id || a->mr_max == 0 ||
	    a->mr_max > SHM_MR_LIMIT || a->mr_table_off < sizeof(*a) ||
	    a->mr_table_off % RPCRDMA_SHM_CACHE_LINE != 0 ||
	    a->mr_table_off + (uint64_t)a->mr_max * sizeof(struct rpcrdma_shm_mr) > size) {
		munmap(a, size);
		return -EPROTO;
	}
	rd->area = a;
	rd->area_size = size;
	rd->mrs = (struct rpcrdma_shm_mr *)(void *)((uint8_t *)a + a->mr_table_off);
	rd->mr_max = a->mr_max;
	rd->same_process = a->pid == (uint32_t)getpid();
	rd->qp_errors = a->version_minor >= 2 ? &a->qp_errors : NULL;
	return 0;
}

/* A REGION message: map the peer's memory (once). @fd stays the caller's. */
static int rdev_region(struct shm_dev *dev, struct shm_rdev **rdp,
		       const struct rpcrdma_shm_msg_region *r, int fd)
{
	struct shm_rdev *rd = *rdp;
	void *p;

	if (rd == NULL) {
		rd = rdev_get(dev, r->dev_id);
		if (rd == NULL)
			return -ENOMEM;
		*rdp = rd;
	}
	if (rd->dev_id != r->dev_id || r->index >= RPCRDMA_SHM_REGION_MAX)
		return -EPROTO;
	if (rd->regions[r->index].base != NULL)
		return 0; /* mapped for another connection already */
	p = shm_map_peer_fd(fd, r->fd_offset, r->length);
	if (p == NULL)
		return -EPROTO;
	rd->regions[r->index].base = p;
	rd->regions[r->index].len = r->length;
	return 0;
}

/* Map and check the peer's QP area; copy what the fast path needs. Consumes @fd. */
static int peer_qp_map(struct shm_qp *qp, int fd, uint64_t size)
{
	struct rpcrdma_shm_qp_area *a;
	uint32_t min_slot;

	if (size < sizeof(*a) || size > SHM_QP_AREA_MAX) {
		close(fd);
		return -EPROTO;
	}
	a = shm_map_peer_fd(fd, 0, size);
	close(fd);
	if (a == NULL)
		return -EPROTO;
	min_slot =
		sizeof(struct rpcrdma_shm_rq_slot) + a->rq_max_sge * sizeof(struct rpcrdma_shm_sge);
	if (a->magic != RPCRDMA_SHM_MAGIC || a->version_major != RPCRDMA_SHM_VERSION_MAJOR ||
	    a->hdr_size != sizeof(*a) || a->rq_size == 0 || (a->rq_size & (a->rq_size - 1)) != 0 ||
	    a->rq_size > 2 * SHM_WR_MAX || a->rq_max_sge > SHM_SGE_MAX ||
	    a->rq_slot_size < min_slot || a->rq_slot_size % RPCRDMA_SHM_CACHE_LINE != 0 ||
	    a->rq_off < sizeof(*a) || a->rq_off % RPCRDMA_SHM_CACHE_LINE != 0 ||
	    a->rq_off + (uint64_t)a->rq_size * a->rq_slot_size > size) {
		munmap(a, size);
		return -EPROTO;
	}
	qp->peer = a;
	qp->peer_size = size;
	qp->peer_rq = (uint8_t *)a + a->rq_off;
	qp->peer_rq_mask = a->rq_size - 1;
	qp->peer_slot_size = a->rq_slot_size;
	qp->peer_max_sge = a->rq_max_sge;
	qp->peer_pd = a->pd;
	qp->peer_cons = 0;
	qp->peer_gone = false;
	/* the count while no QP of the device failed: a peer QP in error has moved it */
	qp->peer_errors_ok = 0;
	/* minor 0 peers have no SRQs (the field was padding) */
	qp->peer_srq_index = a->version_minor >= 1 ? a->srq_index : RPCRDMA_SHM_SRQ_NONE;
	return 0;
}

static void peer_qp_unmap(struct shm_qp *qp)
{
	if (qp->peer != NULL)
		munmap(qp->peer, qp->peer_size);
	qp->peer = NULL;
	shm_peer_srq_unmap(qp);
}

/*
 * Map the peer's QP area, and its SRQ's area when its QP is attached to one
 * (@srq_fd, -1 if the message had none). Consumes both fds.
 */
static int peer_map(struct shm_qp *qp, int fd, uint64_t size, int srq_fd)
{
	int ret = peer_qp_map(qp, fd, size);

	if (ret < 0) {
		if (srq_fd >= 0)
			close(srq_fd);
		return ret;
	}
	if (qp->peer_srq_index == RPCRDMA_SHM_SRQ_NONE) {
		if (srq_fd < 0)
			return 0;
		close(srq_fd);
		ret = -EPROTO; /* an SRQ area for a QP that has none */
	} else if (srq_fd < 0 || qp->peer_srq_index > RPCRDMA_SHM_SRQ_NONE) {
		if (srq_fd >= 0)
			close(srq_fd);
		ret = -EPROTO;
	} else {
		ret = shm_peer_srq_map(qp, srq_fd);
	}
	if (ret < 0)
		peer_qp_unmap(qp);
	return ret;
}

/* ---------------- devices ---------------- */

static int parse_u64(const char *key, const char *val, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' || val[0] == '-' || v > max) {
		shm_log("bad value \"%s\" for %s (0..%llu)", val, key, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* The pairs of pmd_devargs_split(); the keys this PMD knows. */
static int parse_devargs(const char *devargs, uint32_t *mr_max, struct shm_faults *f)
{
	struct rte_kvargs *kv;
	char msg[256];
	uint64_t v = 0;
	int ret = 0;

	kv = pmd_devargs_split(devargs, msg, sizeof(msg));
	if (kv == NULL) {
		if (msg[0] == '\0')
			return 0;
		shm_log("device arguments: %s", msg);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key, *val = kv->pairs[i].value;

		if (strcmp(key, "mr_max") == 0) {
			ret = parse_u64(key, val, SHM_MR_LIMIT, &v);
			if (ret == 0 && v == 0)
				ret = -EINVAL;
			*mr_max = (uint32_t)v;
		} else if (strcmp(key, "fail_wr") == 0) {
			ret = parse_u64(key, val, UINT64_MAX, &f->fail_wr);
		} else if (strcmp(key, "drop_after_sends") == 0) {
			ret = parse_u64(key, val, UINT64_MAX, &f->drop_after_sends);
		} else if (strcmp(key, "cq_delay") == 0) {
			ret = parse_u64(key, val, 1u << 20, &v);
			f->cq_delay = (uint32_t)v;
		} else {
			shm_log("unknown device argument \"%s\" (mr_max, fail_wr, "
				"drop_after_sends, "
				"cq_delay)",
				key);
			ret = -EINVAL;
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

static uint64_t random_id(void)
{
	uint64_t id;

	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		id = rte_rdtsc() ^ ((uint64_t)getpid() << 32);
	return id;
}

static int shm_dev_open(const char *devargs, struct rpcrdma_pmd_dev **devp)
{
	struct shm_dev *dev;
	uint32_t mr_max = SHM_MR_DEF;
	struct shm_faults faults;
	uint32_t i;
	int ret;

	memset(&faults, 0, sizeof(faults));
	ret = parse_devargs(devargs, &mr_max, &faults);
	if (ret < 0)
		return ret;

	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return -ENOMEM;
	dev->faults = faults;
	dev->mr_max = mr_max;
	dev->dev_id = random_id();
	dev->next_pd_id = 1;
	dev->next_qp_num = 1;
	dev->next_srq_num = 1;
	TAILQ_INIT(&dev->srqs);
	TAILQ_INIT(&dev->qps);
	TAILQ_INIT(&dev->reqs);
	TAILQ_INIT(&dev->rdevs);

	dev->area_size = shm_align_up(sizeof(struct rpcrdma_shm_dev_area) +
					      (size_t)mr_max * sizeof(struct rpcrdma_shm_mr),
				      4096);
	dev->area = shm_memfd_area("rpcrdma_shm_dev", dev->area_size, &dev->area_fd);
	if (dev->area == NULL) {
		ret = -ENOMEM;
		goto err_free;
	}
	dev->area->magic = RPCRDMA_SHM_MAGIC;
	dev->area->version_major = RPCRDMA_SHM_VERSION_MAJOR;
	dev->area->version_minor = RPCRDMA_SHM_VERSION_MINOR;
	dev->area->hdr_size = sizeof(*dev->area);
	dev->area->mr_max = mr_max;
	dev->area->mr_table_off = sizeof(*dev->area);
	dev->area->area_size = dev->area_size;
	dev->area->dev_id = dev->dev_id;
	dev->area->pid = (uint32_t)getpid();
	dev->mrs =
		(struct rpcrdma_shm_mr *)(void *)((uint8_t *)dev->area + dev->area->mr_table_off);

	dev->mr_objs = calloc(mr_max, sizeof(*dev->mr_objs));
	dev->mr_free = calloc(mr_max, sizeof(*dev->mr_free));
	dev->mr_gen = calloc(mr_max, sizeof(*dev->mr_gen));
	if (dev->mr_objs == NULL || dev->mr_free == NULL || dev->mr_gen == NULL) {
		ret = -ENOMEM;
		goto err_area;
	}
	for (i = 0; i < mr_max; i++) {
		dev->mr_objs[i].index = i;
		dev->mr_free[i] = i;
	}
	dev->mr_free_len = mr_max;
	dev->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (dev->epfd < 0) {
		ret = -errno;
		goto err_area;
	}
	*devp = &dev->common;
	return 0;

err_area:
	free(dev->mr_objs);
	free(dev->mr_free);
	free(dev->mr_gen);
	munmap(dev->area, dev->area_size);
	close(dev->area_fd);
err_free:
	free(dev);
	return ret;
}

/* Keep a REGION message's @fd (taken) with the request, to map it again after a handoff. */
static int req_keep_region(struct shm_req *req, const struct rpcrdma_shm_msg_region *r, int fd)
{
	struct shm_req_region *a;

	if (req->nb_regions >= RPCRDMA_SHM_REGION_MAX)
		return -EPROTO; /* a client has no more: a hostile one */
	a = realloc(req->regions, (req->nb_regions + 1) * sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	req->regions = a;
	a[req->nb_regions].msg = *r;
	a[req->nb_regions].fd = fd;
	req->nb_regions++;
	return 0;
}

/* The client's memory that a request kept: closed at accept, reject or free. */
static void req_drop_regions(struct shm_req *req)
{
	while (req->nb_regions > 0)
		close(req->regions[--req->nb_regions].fd);
	free(req->regions);
	req->regions = NULL;
	if (req->area_fd >= 0)
		close(req->area_fd);
	req->area_fd = -1;
}

/* The request leaves @dev: its epoll, its queued events, its list, its map of the client. */
static void req_detach(struct shm_dev *dev, struct shm_req *req)
{
	if (req->sock >= 0)
		epoll_ctl(dev->epfd, EPOLL_CTL_DEL, req->sock, NULL);
	shm_ev_forget(dev, NULL, &req->common);
	TAILQ_REMOVE(&dev->reqs, req, next);
	rdev_put(dev, req->rdev);
	req->rdev = NULL;
}

static void req_free(struct shm_dev *dev, struct shm_req *req)
{
	req_detach(dev, req);
	if (req->sock >= 0)
		close(req->sock);
	if (req->qp_fd >= 0)
		close(req->qp_fd);
	if (req->srq_fd >= 0)
		close(req->srq_fd);
	req_drop_regions(req);
	free(req);
}

static void shm_dev_close(struct rpcrdma_pmd_dev *d)
{
	struct shm_dev *dev = to_shm_dev(d);
	uint32_t i;

	while (!TAILQ_EMPTY(&dev->reqs))
		req_free(dev, TAILQ_FIRST(&dev->reqs));
	for (i = 0; i < dev->nb_regions; i++)
		if (dev->regions[i].fd >= 0)
			close(dev->regions[i].fd);
	close(dev->epfd);
	free(dev->evq);
	free(dev->mr_objs);
	free(dev->mr_free);
	free(dev->mr_gen);
	munmap(dev->area, dev->area_size);
	close(dev->area_fd);
	free(dev);
}

static int shm_event_fd(struct rpcrdma_pmd_dev *d)
{
	return to_shm_dev(d)->epfd;
}

/*
 * shm executes a work request on the requester's lcore at flush time: no
 * inline copy at queue time, no limit on RDMA Reads in flight but the send
 * queue (reported as 255, the most an IB CM can negotiate, so an engine
 * sized for verbs is sized for shm too). SEND_WITH_INV invalidates any MR,
 * and registering a sub-range of registered memory writes one table entry.
 */
static int shm_dev_info_get(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_dev_info *info)
{
	struct shm_dev *dev = to_shm_dev(d);

	info->transport = RPCRDMA_PMD_TRANSPORT_SHM;
	info->node_type = 0;
	info->flags = RPCRDMA_PMD_DEV_REMOTE_INV | RPCRDMA_PMD_DEV_CHEAP_MR_REG |
		      RPCRDMA_PMD_DEV_RNR_RETRY | RPCRDMA_PMD_DEV_QP_RECONNECT;
	info->max_inline_data = 0;
	info->max_send_sge = SHM_SGE_MAX;
	info->max_read_sge = SHM_SGE_MAX;
	info->max_recv_sge = SHM_SGE_MAX;
	info->max_qp_wr = SHM_WR_MAX;
	info->max_cqe = SHM_CQE_MAX;
	info->max_mr = dev->mr_max;
	info->max_qp = UINT32_MAX;
	info->max_rdma_read_depth = SHM_RD_DEPTH;
	info->max_mr_size = SHM_MR_SIZE_MAX;
	info->max_srq = SHM_SRQ_MAX;
	info->max_srq_wr = SHM_WR_MAX;
	info->max_srq_sge = SHM_SGE_MAX;
	return 0;
}

/* ---------------- PDs and MRs ---------------- */

static int shm_pd_alloc(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_pd **pdp)
{
	struct shm_dev *dev = to_shm_dev(d);
	struct rpcrdma_pmd_pd *pd = calloc(1, sizeof(*pd));

	if (pd == NULL)
		return -ENOMEM;
	pd->pd_id = dev->next_pd_id++;
	*pdp = pd;
	return 0;
}

static void shm_pd_free(struct rpcrdma_pmd_pd *pd)
{
	free(pd);
}

static void qp_send_region(struct shm_dev *dev, uint32_t idx);

/*
 * The alignment of a window of @fd that mmap() takes: the huge page size
 * on hugetlbfs, the base page elsewhere. Not st_blksize: tmpfs reports
 * 2 MiB there when shmem transparent huge pages are on (shmem_enabled),
 * yet maps at any page, and a memfd of a few pages has no 2 MiB window.
 */
static uint64_t map_granule(int fd, const struct stat *st)
{
	long page = sysconf(_SC_PAGESIZE);
	struct statfs sf;

	if (page < 4096)
		page = 4096;
	if (fstatfs(fd, &sf) == 0 && sf.f_type == HUGETLBFS_MAGIC &&
	    (uint64_t)st->st_blksize > (uint64_t)page)
		return (uint64_t)st->st_blksize;
	return (uint64_t)page;
}

/* Register the fd window under [addr, addr + len) as a region of the device. */
static int region_add(struct shm_dev *dev, void *addr, size_t len, int fd, uint64_t fd_offset,
		      uint32_t *idx)
{
	struct shm_region *r;
	uint64_t pg, win_off, win_end;
	struct stat st;
	int dupfd;

	if (dev->nb_regions >= RPCRDMA_SHM_REGION_MAX)
		return -ENOSPC;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	pg = map_granule(fd, &st);
	if ((pg & (pg - 1)) != 0 || fd_offset + len < fd_offset)
		return -EINVAL;
	win_off = fd_offset & ~(pg - 1);
	win_end = shm_align_up(fd_offset + len, pg);
	if (win_end > (uint64_t)st.st_size)
		return -EINVAL;
	dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dupfd < 0)
		return -errno;
	*idx = dev->nb_regions++;
	r = &dev->regions[*idx];
	r->base = (uint8_t *)addr - (fd_offset - win_off);
	r->len = win_end - win_off;
	r->fd_off = win_off;
	r->fd = dupfd;
	qp_send_region(dev, *idx);
	return 0;
}

static uint32_t region_find(const struct shm_dev *dev, const void *addr, size_t len)
{
	const uint8_t *a = addr;
	uint32_t i;

	for (i = 0; i < dev->nb_regions; i++) {
		const struct shm_region *r = &dev->regions[i];

		if (r->fd >= 0 && a >= r->base && a + len <= r->base + r->len)
			return i;
	}
	return RPCRDMA_SHM_REGION_NONE;
}

/* Rewrite an MR table entry under its sequence word (seqlock writer). */
static void mr_entry_write(struct rpcrdma_shm_mr *e, uint32_t key, uint32_t valid, uint32_t access,
			   uint32_t pd, uint32_t region, uint64_t addr, uint64_t length,
			   uint64_t region_off)
{
	uint32_t seq = e->seq;

	/* odd: readers that see it, or see it change, fail their check */
	__atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&e->valid, 0, __ATOMIC_RELAXED);
	/* the odd sequence and valid=0 are visible before the fields change */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->key, key, __ATOMIC_RELAXED);
	__atomic_store_n(&e->access, access, __ATOMIC_RELAXED);
	__atomic_store_n(&e->pd, pd, __ATOMIC_RELAXED);
	__atomic_store_n(&e->region, region, __ATOMIC_RELAXED);
	__atomic_store_n(&e->addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&e->length, length, __ATOMIC_RELAXED);
	__atomic_store_n(&e->region_off, region_off, __ATOMIC_RELAXED);
	__atomic_store_n(&e->valid, valid, __ATOMIC_RELAXED);
	/* release: the fields are visible before the even sequence */
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}

static uint32_t mr_next_key(struct shm_dev *dev, uint32_t idx)
{
	uint8_t gen = (uint8_t)(dev->mr_gen[idx] + 1);

	if (gen == 0)
		gen = 1;
	dev->mr_gen[idx] = gen;
	return idx << 8 | gen;
}

static int shm_mr_reg(struct rpcrdma_pmd_pd *pd, void *addr, size_t len, uint32_t access, int fd,
		      uint64_t fd_offset, struct rpcrdma_pmd_mr **mrp)
{
	struct shm_dev *dev = to_shm_dev(pd->dev);
	uint32_t region = RPCRDMA_SHM_REGION_NONE, idx;
	uint64_t region_off;
	struct shm_mr *mr;
	int ret;

	if (len > SHM_MR_SIZE_MAX)
		return -EINVAL;
	if (dev->mr_free_len == 0)
		return -ENOSPC;
	idx = dev->mr_free[dev->mr_free_head];
	mr = &dev->mr_objs[idx];
	if (fd >= 0) {
		ret = region_add(dev, addr, len, fd, fd_offset, &region);
		if (ret < 0)
			return ret;
	} else {
		region = region_find(dev, addr, len);
	}
	if (region == RPCRDMA_SHM_REGION_NONE) {
		region_off = (uintptr_t)addr;
	} else {
		region_off = (uint64_t)((uint8_t *)addr - dev->regions[region].base);
		dev->regions[region].refs++;
	}

	/* taken: off the free FIFO */
	if (++dev->mr_free_head == dev->mr_max)
		dev->mr_free_head = 0;
	dev->mr_free_len--;
	memset(&mr->common, 0, sizeof(mr->common));
	mr->in_use = true;
	mr->region = region;
	mr->common.addr = addr;
	mr->common.length = len;
	mr->common.access = access;
	mr->common.lkey = mr->common.rkey = mr_next_key(dev, idx);
	mr_entry_write(&dev->mrs[idx], mr->common.lkey, 1, access, pd->pd_id, region,
		       (uintptr_t)addr, len, region_off);
	*mrp = &mr->common;
	return 0;
}

static void shm_mr_dereg(struct rpcrdma_pmd_mr *m)
{
	struct shm_dev *dev = to_shm_dev(m->pd->dev);
	struct shm_mr *mr = to_shm_mr(m);
	uint32_t tail;

	mr_entry_write(&dev->mrs[mr->index], 0, 0, 0, 0, 0, 0, 0, 0);
	if (mr->region != RPCRDMA_SHM_REGION_NONE && --dev->regions[mr->region].refs == 0) {
		/* peers keep their mappings; the index is never reused */
		close(dev->regions[mr->region].fd);
		dev->regions[mr->region].fd = -1;
	}
	mr->in_use = false;
	mr->common.lkey = mr->common.rkey = 0;
	tail = dev->mr_free_head + dev->mr_free_len;
	dev->mr_free[tail >= dev->mr_max ? tail - dev->mr_max : tail] = mr->index;
	dev->mr_free_len++;
}

static int shm_mr_invalidate(struct rpcrdma_pmd_pd *pd, uint32_t rkey)
{
	struct shm_dev *dev = to_shm_dev(pd->dev);
	uint32_t idx = RPCRDMA_SHM_KEY_INDEX(rkey);
	struct shm_mr *mr;

	if (idx >= dev->mr_max)
		return -ENOENT;
	mr = &dev->mr_objs[idx];
	if (!mr->in_use || mr->common.rkey != rkey || mr->common.pd != pd ||
	    !__atomic_load_n(&dev->mrs[idx].valid, __ATOMIC_ACQUIRE))
		return -ENOENT;
	__atomic_store_n(&dev->mrs[idx].valid, 0, __ATOMIC_RELEASE);
	return 0;
}

static int shm_mr_rekey(struct rpcrdma_pmd_mr *m)
{
	struct shm_dev *dev = to_shm_dev(m->pd->dev);
	struct shm_mr *mr = to_shm_mr(m);
	struct rpcrdma_shm_mr *e = &dev->mrs[mr->index];
	uint32_t key = mr_next_key(dev, mr->index);

	mr_entry_write(e, key, 1, m->access, m->pd->pd_id, mr->region, e->addr, e->length,
		       e->region_off);
	m->lkey = m->rkey = key;
	return 0;
}

/* ---------------- CQs ---------------- */

static int shm_cq_create(struct rpcrdma_pmd_dev *d, uint32_t cqe, struct rpcrdma_pmd_cq **cqp)
{
	struct shm_dev *dev = to_shm_dev(d);
	struct shm_cq *cq;
	uint32_t size;

	if (cqe > SHM_CQE_MAX)
		return -EINVAL;
	size = rte_align32pow2(cqe);
	cq = aligned_alloc(64, shm_align_up(sizeof(*cq), 64));
	if (cq == NULL)
		return -ENOMEM;
	memset(cq, 0, sizeof(*cq));
	cq->ring = aligned_alloc(64, shm_align_up((size_t)size * sizeof(*cq->ring), 64));
	if (cq->ring == NULL) {
		free(cq);
		return -ENOMEM;
	}
	cq->mask = size - 1;
	cq->delay = dev->faults.cq_delay;
	cq->common.cqe = size;
	TAILQ_INIT(&cq->stalled);
	TAILQ_INIT(&cq->rqs);
	shm_cq_set_fast_path(cq);
	*cqp = &cq->common;
	return 0;
}

static void shm_cq_destroy(struct rpcrdma_pmd_cq *c)
{
	struct shm_cq *cq = to_shm_cq(c);

	free(cq->srqs);
	free(cq->srq_refs);
	free(cq->ring);
	free(cq);
}

/* ---------------- QPs ---------------- */

static int shm_qp_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			 struct rpcrdma_pmd_qp **qpp)
{
	struct shm_dev *dev = to_shm_dev(pd->dev);
	uint32_t sq_size, rq_size, slot_size;
	struct rpcrdma_shm_qp_area *a;
	struct shm_qp *qp;
	int ret = -ENOMEM;

	uint16_t max_recv_sge = attr->srq != NULL ? 1 : attr->max_recv_sge;

	if (attr->max_send_wr > SHM_WR_MAX || attr->max_send_sge > SHM_SGE_MAX ||
	    (attr->srq == NULL &&
	     (attr->max_recv_wr > SHM_WR_MAX || attr->max_recv_sge > SHM_SGE_MAX)))
		return -EINVAL;
	sq_size = rte_align32pow2(attr->max_send_wr);
	/* with an SRQ, one slot that is never posted: the peer checks the area as any */
	rq_size = attr->srq != NULL ? 1 : rte_align32pow2(attr->max_recv_wr);
	slot_size = shm_align_up(sizeof(struct rpcrdma_shm_rq_slot) +
					 max_recv_sge * sizeof(struct rpcrdma_shm_sge),
				 RPCRDMA_SHM_CACHE_LINE);

	qp = aligned_alloc(64, shm_align_up(sizeof(*qp), 64));
	if (qp == NULL)
		return -ENOMEM;
	memset(qp, 0, sizeof(*qp));
	qp->dev = dev;
	qp->scq = to_shm_cq(attr->send_cq);
	qp->rcq = to_shm_cq(attr->recv_cq);
	qp->pd_id = pd->pd_id;
	qp->sock = -1;
	qp->ep.kind = SHM_EP_QP;
	qp->ep.obj = qp;

	qp->sq_stride = shm_align_up(
		sizeof(struct shm_swqe) + attr->max_send_sge * sizeof(struct rpcrdma_pmd_sge), 16);
	qp->sq = aligned_alloc(64, shm_align_up((size_t)sq_size * qp->sq_stride, 64));
	if (qp->sq == NULL)
		goto err_qp;
	qp->sq_mask = sq_size - 1;
	qp->max_send_sge = attr->max_send_sge;
	qp->rnr_retry = attr->rnr_retry;
	qp->rnr_timer = (uint64_t)attr->rnr_timer_us * shm_tsc_hz() / 1000000;

	qp->area_size = shm_align_up(sizeof(*a) + (size_t)rq_size * slot_size, 4096);
	a = shm_memfd_area("rpcrdma_shm_qp", qp->area_size, &qp->area_fd);
	if (a == NULL)
		goto err_sq;
	a->magic = RPCRDMA_SHM_MAGIC;
	a->version_major = RPCRDMA_SHM_VERSION_MAJOR;
	a->version_minor = RPCRDMA_SHM_VERSION_MINOR;
	a->hdr_size = sizeof(*a);
	a->pd = pd->pd_id;
	a->rq_size = rq_size;
	a->rq_slot_size = slot_size;
	a->rq_max_sge = max_recv_sge;
	a->srq_index = RPCRDMA_SHM_SRQ_NONE;
	a->rq_off = sizeof(*a);
	a->area_size = qp->area_size;
	a->state = RPCRDMA_SHM_QP_OK;
	qp->area = a;
	qp->rq = (uint8_t *)a + a->rq_off;
	qp->rq_mask = rq_size - 1;
	qp->rq_slot_size = slot_size;
	qp->max_recv_sge = max_recv_sge;
	qp->rq_prefetch = (attr->flags & RPCRDMA_PMD_QP_F_RECV_PREFETCH) != 0;
	qp->rq_ent = calloc(rq_size, sizeof(*qp->rq_ent));
	if (qp->rq_ent == NULL)
		goto err_area;
	qp->common.qp_num = dev->next_qp_num++;
	a->qp_num = qp->common.qp_num;
	if (attr->srq != NULL) {
		ret = shm_srq_attach(qp, to_shm_srq(attr->srq));
		if (ret < 0)
			goto err_ent;
		a->srq_index = qp->srq_index;
	}
	qp->common.state = RPCRDMA_PMD_QPS_INIT;
	TAILQ_INSERT_TAIL(&dev->qps, qp, dev_next);
	/* a QP on an SRQ has no receives of its own: the CQ's poll harvests the SRQ */
	if (qp->srq == NULL)
		TAILQ_INSERT_TAIL(&qp->rcq->rqs, qp, rq_next);
	shm_qp_set_fast_path(qp);
	*qpp = &qp->common;
	return 0;

err_ent:
	free(qp->rq_ent);
err_area:
	munmap(qp->area, qp->area_size);
	close(qp->area_fd);
err_sq:
	free(qp->sq);
err_qp:
	free(qp);
	return ret;
}

static void conn_close_socket(struct shm_qp *qp)
{
	if (qp->sock >= 0) {
		epoll_ctl(qp->dev->epfd, EPOLL_CTL_DEL, qp->sock, NULL);
		close(qp->sock);
		qp->sock = -1;
	}
}

/* The connection is gone (either side): error, flush, one DISCONNECTED event. */
static void conn_down(struct shm_qp *qp, bool report)
{
	conn_close_socket(qp);
	qp->conn = SHM_CONN_DOWN;
	qp->peer_gone = true;
	shm_qp_to_error(qp);
	shm_sq_progress(qp);
	if (report && !qp->disc_reported) {
		qp->disc_reported = true;
		shm_ev_push(qp->dev, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL, NULL, 0);
	}
}

/*
 * Drop @qp's completions still in @cq: after the destroy nothing polled
 * may name it (a CQ shared with other QPs goes on; a verbs provider cleans
 * its CQ likewise, and the verbs PMD drops what names a destroyed QP).
 * The others keep their order.
 */
static void cq_clean(struct shm_cq *cq, const struct shm_qp *qp)
{
	uint32_t from = cq->head, to = cq->head;

	while (from != cq->tail) {
		const struct shm_cqe *e = &cq->ring[--from & cq->mask];

		if (e->wc.qp == &qp->common)
			continue;
		if (--to != from)
			cq->ring[to & cq->mask] = *e;
	}
	cq->tail = to;
}

static void shm_qp_destroy(struct rpcrdma_pmd_qp *q)
{
	struct shm_qp *qp = to_shm_qp(q);
	struct shm_dev *dev = qp->dev;

	if (qp->sock >= 0 && qp->conn != SHM_CONN_CONNECTING)
		msg_send(qp->sock, RPCRDMA_SHM_MSG_DISCONNECT, NULL, NULL, 0);
	conn_close_socket(qp);
	if (qp->stalled)
		TAILQ_REMOVE(&qp->scq->stalled, qp, stall_next);
	if (qp->srq == NULL)
		TAILQ_REMOVE(&qp->rcq->rqs, qp, rq_next);
	TAILQ_REMOVE(&dev->qps, qp, dev_next);
	shm_ev_forget(dev, qp, NULL);
	cq_clean(qp->scq, qp);
	if (qp->rcq != qp->scq)
		cq_clean(qp->rcq, qp);
	if (qp->srq != NULL)
		shm_srq_detach(qp);
	peer_qp_unmap(qp);
	rdev_put(dev, qp->rdev);
	free(qp->rq_ent);
	munmap(qp->area, qp->area_size);
	close(qp->area_fd);
	free(qp->sq);
	free(qp);
}

/* A region registered after connecting: tell every connected peer. */
static void qp_send_region(struct shm_dev *dev, uint32_t idx)
{
	struct shm_region *r = &dev->regions[idx];
	struct rpcrdma_shm_msg m;
	struct shm_qp *qp;

	memset(&m, 0, sizeof(m));
	m.region.dev_id = dev->dev_id;
	m.region.fd_offset = r->fd_off;
	m.region.length = r->len;
	m.region.index = idx;
	TAILQ_FOREACH(qp, &dev->qps, dev_next)
	if (qp->sock >= 0)
		msg_send(qp->sock, RPCRDMA_SHM_MSG_REGION, &m, &r->fd, 1);
}

/* ---------------- connection manager ---------------- */

static int sockaddr_fill(const char *addr, struct sockaddr_un *sa, socklen_t *len, bool *abstract)
{
	size_t n = strlen(addr);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	*abstract = addr[0] == '@';
	if (n == 0 || n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	if (*abstract) {
		memcpy(sa->sun_path + 1, addr + 1, n - 1);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		memcpy(sa->sun_path, addr, n);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	return 0;
}

static int epoll_add(struct shm_dev *dev, int fd, struct shm_ep *ep)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = ep };

	return epoll_ctl(dev->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

static int shm_listen(struct rpcrdma_pmd_dev *d, const char *addr, struct rpcrdma_pmd_listener **lp)
{
	struct shm_dev *dev = to_shm_dev(d);
	struct shm_listener *l;
	struct sockaddr_un sa;
	socklen_t salen;
	int ret;

	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	ret = sockaddr_fill(addr, &sa, &salen, &l->abstract);
	if (ret < 0)
		goto err_free;
	snprintf(l->path, sizeof(l->path), "%s", addr);
	l->ep.kind = SHM_EP_LISTENER;
	l->ep.obj = l;
	l->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->sock < 0) {
		ret = -errno;
		goto err_free;
	}
	if (bind(l->sock, (struct sockaddr *)&sa, salen) != 0) {
		int probe;

		ret = -errno;
		if (ret != -EADDRINUSE || l->abstract)
			goto err_sock;
		/* a socket file nobody listens on is left over from a dead server */
		probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (probe < 0)
			goto err_sock;
		if (connect(probe, (struct sockaddr *)&sa, salen) == 0 || errno != ECONNREFUSED) {
			close(probe);
			goto err_sock;
		}
		close(probe);
		unlink(l->path);
		if (bind(l->sock, (struct sockaddr *)&sa, salen) != 0) {
			ret = -errno;
			goto err_sock;
		}
	}
	if (listen(l->sock, 128) != 0) {
		ret = -errno;
		goto err_unlink;
	}
	ret = epoll_add(dev, l->sock, &l->ep);
	if (ret < 0)
		goto err_unlink;
	*lp = &l->common;
	return 0;

err_unlink:
	if (!l->abstract)
		unlink(l->path);
err_sock:
	close(l->sock);
err_free:
	free(l);
	return ret;
}

static void shm_listener_close(struct rpcrdma_pmd_listener *lp)
{
	struct shm_listener *l = container_of(lp, struct shm_listener, common);
	struct shm_dev *dev = to_shm_dev(lp->dev);
	struct shm_req *req, *next;

	for (req = TAILQ_FIRST(&dev->reqs); req != NULL; req = next) {
		next = TAILQ_NEXT(req, next);
		if (req->common.listener != lp)
			continue;
		req->common.listener = NULL;
		if (req->state == SHM_REQ_WAIT_HELLO) {
			req_free(dev, req);
			continue;
		}
		/* the user holds it: reject now, free when the user consumes it */
		if (req->state == SHM_REQ_REQUESTED)
			msg_send(req->sock, RPCRDMA_SHM_MSG_REJECT, NULL, NULL, 0);
		req->state = SHM_REQ_DEAD;
		epoll_ctl(dev->epfd, EPOLL_CTL_DEL, req->sock, NULL);
		close(req->sock);
		req->sock = -1;
	}
	epoll_ctl(dev->epfd, EPOLL_CTL_DEL, l->sock, NULL);
	close(l->sock);
	if (!l->abstract)
		unlink(l->path);
	free(l);
}

static int shm_connect(struct rpcrdma_pmd_qp *q, const char *addr, const void *pdata,
		       uint8_t pdata_len)
{
	struct shm_qp *qp = to_shm_qp(q);
	struct shm_dev *dev = qp->dev;
	struct rpcrdma_shm_msg m;
	struct sockaddr_un sa;
	socklen_t salen;
	bool abstract;
	int fds[3];
	int sock, ret;

	ret = sockaddr_fill(addr, &sa, &salen, &abstract);
	if (ret < 0)
		return ret;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	if (connect(sock, (struct sockaddr *)&sa, salen) != 0) {
		ret = errno == ENOENT || errno == ECONNREFUSED ? -ECONNREFUSED : -errno;
		goto err_sock;
	}
	ret = send_regions(dev, sock);
	if (ret < 0)
		goto err_sock;
	conn_msg_fill(dev, qp, &m, pdata, pdata_len);
	fds[0] = dev->area_fd;
	fds[1] = qp->area_fd;
	fds[2] = qp->srq != NULL ? qp->srq->area_fd : -1;
	ret = msg_send(sock, RPCRDMA_SHM_MSG_HELLO, &m, fds, qp->srq != NULL ? 3 : 2);
	if (ret < 0)
		goto err_sock;
	qp->sock = sock;
	ret = epoll_add(dev, sock, &qp->ep);
	if (ret < 0) {
		qp->sock = -1;
		goto err_sock;
	}
	qp->conn = SHM_CONN_CONNECTING;
	q->state = RPCRDMA_PMD_QPS_CONNECTING;
	return 0;

err_sock:
	close(sock);
	return ret == -EPIPE || ret == -ECONNRESET ? -ECONNREFUSED : ret;
}

static int shm_accept(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_qp *q, const void *pdata,
		      uint8_t pdata_len)
{
	struct shm_req *req = container_of(r, struct shm_req, common);
	struct shm_qp *qp = to_shm_qp(q);
	struct shm_dev *dev = qp->dev;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = &qp->ep };
	struct rpcrdma_shm_msg m;
	int fds[3], ret;

	if (req->state != SHM_REQ_REQUESTED) {
		req_free(dev, req);
		return -ENOTCONN;
	}
	ret = peer_map(qp, req->qp_fd, req->hello.qp_area_size, req->srq_fd);
	req->qp_fd = -1;
	req->srq_fd = -1;
	if (ret < 0)
		goto err_req;
	ret = send_regions(dev, req->sock);
	if (ret < 0)
		goto err_unmap;
	conn_msg_fill(dev, qp, &m, pdata, pdata_len);
	fds[0] = dev->area_fd;
	fds[1] = qp->area_fd;
	fds[2] = qp->srq != NULL ? qp->srq->area_fd : -1;
	ret = msg_send(req->sock, RPCRDMA_SHM_MSG_ACCEPT, &m, fds, qp->srq != NULL ? 3 : 2);
	if (ret < 0)
		goto err_unmap;
	if (epoll_ctl(dev->epfd, EPOLL_CTL_MOD, req->sock, &ev) != 0) {
		ret = -errno;
		goto err_unmap;
	}
	/* the socket and the peer device move from the request to the QP */
	qp->sock = req->sock;
	req->sock = -1;
	qp->rdev = req->rdev;
	req->rdev = NULL;
	qp->conn = SHM_CONN_ACCEPTED;
	qp->disc_reported = false;
	q->state = RPCRDMA_PMD_QPS_RTS;
	req_free(dev, req);
	return 0;

err_unmap:
	peer_qp_unmap(qp);
err_req:
	req_free(dev, req);
	return ret == -EPROTO || ret == -ENOMEM ? ret : -ENOTCONN;
}

static int shm_reject(struct rpcrdma_pmd_conn_req *r, const void *pdata, uint8_t pdata_len)
{
	struct shm_req *req = container_of(r, struct shm_req, common);
	struct shm_dev *dev = to_shm_dev(r->dev);
	struct rpcrdma_shm_msg m;

	if (req->state == SHM_REQ_REQUESTED) {
		memset(&m, 0, sizeof(m));
		m.conn.pdata_len = pdata_len;
		if (pdata_len)
			memcpy(m.conn.pdata, pdata, pdata_len);
		msg_send(req->sock, RPCRDMA_SHM_MSG_REJECT, &m, NULL, 0);
	}
	req_free(dev, req);
	return 0;
}

static void req_gone(struct shm_dev *dev, struct shm_req *req);

/* On the thread of the request's device: it leaves the device's lists, epoll and peer map. */
static int shm_conn_req_handoff(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_dev *to)
{
	(void)to;
	req_detach(to_shm_dev(r->dev), container_of(r, struct shm_req, common));
	return 0;
}

/*
 * On the thread of @to: the request joins @to, whose epoll now watches its
 * socket, with the client's memory mapped again from what the request kept
 * (the messages of its socket not read yet wait there). A client that went
 * away meanwhile leaves the request dead: accept says -ENOTCONN.
 */
static void shm_conn_req_adopt(struct rpcrdma_pmd_dev *to, struct rpcrdma_pmd_conn_req *r)
{
	struct shm_req *req = container_of(r, struct shm_req, common);
	struct shm_dev *dev = to_shm_dev(to);
	uint32_t i;

	TAILQ_INSERT_TAIL(&dev->reqs, req, next);
	if (req->sock < 0)
		return;
	req->rdev = rdev_get(dev, req->hello.dev_id);
	if (req->rdev == NULL ||
	    rdev_map_area(req->rdev, req->area_fd, req->hello.dev_area_size) < 0)
		goto gone;
	for (i = 0; i < req->nb_regions; i++)
		if (rdev_region(dev, &req->rdev, &req->regions[i].msg, req->regions[i].fd) < 0)
			goto gone;
	if (epoll_add(dev, req->sock, &req->ep) == 0)
		return;
gone:
	req_gone(dev, req);
}

static int shm_disconnect(struct rpcrdma_pmd_qp *q)
{
	struct shm_qp *qp = to_shm_qp(q);

	if (qp->sock < 0 || qp->conn == SHM_CONN_CONNECTING)
		return -ENOTCONN;
	msg_send(qp->sock, RPCRDMA_SHM_MSG_DISCONNECT, NULL, NULL, 0);
	conn_down(qp, true);
	return 0;
}

/* The client's process and user, as the kernel tells them of its socket. */
static void req_peer(struct shm_req *req, int sock)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	req->common.peer.addr.ss_family = AF_UNIX;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		req->common.peer.pid = -1;
		req->common.peer.uid = -1;
		return;
	}
	req->common.peer.pid = cred.pid;
	req->common.peer.uid = (int32_t)cred.uid;
}

static void listener_ready(struct shm_dev *dev, struct shm_listener *l)
{
	for (;;) {
		struct shm_req *req;
		int sock = accept4(l->sock, NULL, NULL, SOCK_CLOEXEC);

		if (sock < 0)
			return;
		req = calloc(1, sizeof(*req));
		if (req == NULL) {
			close(sock);
			continue;
		}
		req->common.dev = &dev->common;
		req->common.listener = &l->common;
		req_peer(req, sock);
		req->state = SHM_REQ_WAIT_HELLO;
		req->sock = sock;
		req->qp_fd = -1;
		req->srq_fd = -1;
		req->area_fd = -1;
		req->ep.kind = SHM_EP_REQ;
		req->ep.obj = req;
		TAILQ_INSERT_TAIL(&dev->reqs, req, next);
		if (epoll_add(dev, sock, &req->ep) < 0)
			req_free(dev, req);
	}
}

static void req_gone(struct shm_dev *dev, struct shm_req *req)
{
	if (req->state == SHM_REQ_WAIT_HELLO) {
		req_free(dev, req);
		return;
	}
	/* the user holds it from CONNECT_REQUEST: accept/reject will say -ENOTCONN */
	req->state = SHM_REQ_DEAD;
	epoll_ctl(dev->epfd, EPOLL_CTL_DEL, req->sock, NULL);
	close(req->sock);
	req->sock = -1;
}

static void req_ready(struct shm_dev *dev, struct shm_req *req)
{
	struct rpcrdma_shm_msg m;
	unsigned int nfds;
	int fds[SHM_MSG_FDS_MAX];
	int ret;

	while (req->sock >= 0) {
		ret = msg_recv(req->sock, &m, fds, &nfds);
		if (ret == 0)
			return;
		if (ret < 0)
			goto gone;
		if (m.type == RPCRDMA_SHM_MSG_REGION && nfds == 1) {
			/* mapped now, and kept until accept: a handoff maps it again */
			if (rdev_region(dev, &req->rdev, &m.region, fds[0]) < 0 ||
			    req_keep_region(req, &m.region, fds[0]) < 0) {
				close(fds[0]);
				goto gone;
			}
			continue;
		}
		if (m.type != RPCRDMA_SHM_MSG_HELLO || nfds < 2 ||
		    req->state != SHM_REQ_WAIT_HELLO ||
		    m.conn.pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX) {
			close_fds(fds, nfds);
			goto gone;
		}
		if (req->rdev == NULL)
			req->rdev = rdev_get(dev, m.conn.dev_id);
		if (req->rdev == NULL || req->rdev->dev_id != m.conn.dev_id ||
		    rdev_map_area(req->rdev, fds[0], m.conn.dev_area_size) < 0) {
			close_fds(fds, nfds);
			goto gone;
		}
		req->area_fd = fds[0];
		req->qp_fd = fds[1];
		req->srq_fd = nfds == 3 ? fds[2] : -1;
		req->hello = m.conn;
		req->state = SHM_REQ_REQUESTED;
		shm_ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &req->common,
			    m.conn.pdata, m.conn.pdata_len);
	}
	return;
gone:
	req_gone(dev, req);
}

static void qp_ready(struct shm_dev *dev, struct shm_qp *qp)
{
	struct rpcrdma_shm_msg m;
	unsigned int nfds;
	int fds[SHM_MSG_FDS_MAX];
	int ret;

	while (qp->sock >= 0) {
		ret = msg_recv(qp->sock, &m, fds, &nfds);
		if (ret == 0)
			return;
		if (ret < 0)
			goto gone;
		switch (m.type) {
		case RPCRDMA_SHM_MSG_REGION:
			if (nfds != 1) {
				close_fds(fds, nfds);
				goto gone;
			}
			ret = rdev_region(dev, &qp->rdev, &m.region, fds[0]);
			close(fds[0]);
			if (ret < 0)
				goto gone;
			break;
		case RPCRDMA_SHM_MSG_ACCEPT:
			if (qp->conn != SHM_CONN_CONNECTING || nfds < 2 ||
			    m.conn.pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX) {
				close_fds(fds, nfds);
				goto gone;
			}
			if (qp->rdev == NULL)
				qp->rdev = rdev_get(dev, m.conn.dev_id);
			if (qp->rdev == NULL || qp->rdev->dev_id != m.conn.dev_id ||
			    rdev_map_area(qp->rdev, fds[0], m.conn.dev_area_size) < 0) {
				close_fds(fds, nfds);
				goto gone;
			}
			close(fds[0]);
			if (peer_map(qp, fds[1], m.conn.qp_area_size, nfds == 3 ? fds[2] : -1) < 0)
				goto gone;
			if (msg_send(qp->sock, RPCRDMA_SHM_MSG_RTU, NULL, NULL, 0) < 0)
				goto gone;
			qp->conn = SHM_CONN_UP;
			qp->disc_reported = false;
			qp->common.state = RPCRDMA_PMD_QPS_RTS;
			shm_ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, m.conn.pdata,
				    m.conn.pdata_len);
			break;
		case RPCRDMA_SHM_MSG_REJECT:
			close_fds(fds, nfds);
			if (qp->conn != SHM_CONN_CONNECTING)
				goto gone;
			conn_close_socket(qp);
			rdev_put(dev, qp->rdev);
			qp->rdev = NULL;
			qp->conn = SHM_CONN_NONE;
			qp->common.state = RPCRDMA_PMD_QPS_INIT;
			shm_ev_push(dev, RPCRDMA_PMD_EVENT_REJECTED, qp, NULL, m.conn.pdata,
				    m.conn.pdata_len <= RPCRDMA_PMD_PRIVATE_DATA_MAX
					    ? m.conn.pdata_len
					    : 0);
			return;
		case RPCRDMA_SHM_MSG_RTU:
			close_fds(fds, nfds);
			if (qp->conn != SHM_CONN_ACCEPTED)
				goto gone;
			qp->conn = SHM_CONN_UP;
			shm_ev_push(dev, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL, NULL, 0);
			break;
		case RPCRDMA_SHM_MSG_DISCONNECT:
			close_fds(fds, nfds);
			goto gone;
		default:
			close_fds(fds, nfds);
			shm_log("qp %u: unexpected message type %u: disconnecting",
				qp->common.qp_num, m.type);
			goto gone;
		}
	}
	return;
gone:
	if (qp->conn == SHM_CONN_CONNECTING) {
		conn_close_socket(qp);
		rdev_put(dev, qp->rdev);
		qp->rdev = NULL;
		peer_qp_unmap(qp);
		qp->conn = SHM_CONN_NONE;
		qp->common.state = RPCRDMA_PMD_QPS_INIT;
		shm_ev_push(dev, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL, NULL, 0);
		return;
	}
	conn_down(qp, true);
}

static int shm_event_poll(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_event *ev, unsigned int n)
{
	struct shm_dev *dev = to_shm_dev(d);
	struct epoll_event eev[32];
	struct shm_qp *qp;
	int i, nev;

	shm_srq_limit_poll(dev);
	/* connections that fault injection dropped on the fast path (none: no walk of the QPs) */
	if (dev->drops_pending != 0) {
		dev->drops_pending = 0;
		TAILQ_FOREACH(qp, &dev->qps, dev_next)
		if (qp->drop_pending) {
			qp->drop_pending = false;
			conn_down(qp, true);
		}
	}

	nev = epoll_wait(dev->epfd, eev, 32, 0);
	for (i = 0; i < nev; i++) {
		struct shm_ep *ep = eev[i].data.ptr;

		switch (ep->kind) {
		case SHM_EP_LISTENER:
			listener_ready(dev, ep->obj);
			break;
		case SHM_EP_REQ:
			req_ready(dev, ep->obj);
			break;
		case SHM_EP_QP:
			qp_ready(dev, ep->obj);
			break;
		}
	}
	return (int)shm_ev_pop(dev, ev, n);
}

static struct rpcrdma_pmd_ops shm_ops = {
	.name = SHM_DRIVER,
	.dev_open = shm_dev_open,
	.dev_close = shm_dev_close,
	.pd_alloc = shm_pd_alloc,
	.pd_free = shm_pd_free,
	.mr_reg = shm_mr_reg,
	.mr_dereg = shm_mr_dereg,
	.mr_invalidate = shm_mr_invalidate,
	.mr_rekey = shm_mr_rekey,
	.cq_create = shm_cq_create,
	.cq_destroy = shm_cq_destroy,
	.qp_create = shm_qp_create,
	.qp_destroy = shm_qp_destroy,
	.srq_create = shm_srq_create,
	.srq_destroy = shm_srq_destroy,
	.srq_arm = shm_srq_arm,
	.listen = shm_listen,
	.listener_close = shm_listener_close,
	.connect = shm_connect,
	.accept = shm_accept,
	.reject = shm_reject,
	.conn_req_handoff = shm_conn_req_handoff,
	.conn_req_adopt = shm_conn_req_adopt,
	.disconnect = shm_disconnect,
	.event_poll = shm_event_poll,
	.event_fd = shm_event_fd,
	.dev_info_get = shm_dev_info_get,
};

RPCRDMA_PMD_REGISTER(shm_ops)
