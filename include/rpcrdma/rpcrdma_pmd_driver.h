/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What a poll-mode driver implements: the ops table and the common objects
 * its own objects embed. Kept apart from the public rpcrdma_pmd.h as DPDK
 * keeps ethdev_driver.h apart from rte_ethdev.h; only pmd/ includes it.
 *
 * A driver defines a struct rpcrdma_pmd_ops and registers it by name at load
 * time with RPCRDMA_PMD_REGISTER(), as RTE_PMD_REGISTER_VDEV does. Each of its
 * objects embeds the common object as its first member and downcasts with
 * container_of. The common layer (pmd/pmd.c) checks the arguments of every
 * control-path call before the driver sees them, and fills in the common
 * fields (ops, dev back pointers) after the driver returns an object.
 */
#ifndef RPCRDMA_PMD_DRIVER_H
#define RPCRDMA_PMD_DRIVER_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rpcrdma/rpcrdma_pmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef container_of
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#endif

struct rpcrdma_pmd_ops;

/** Common part of a device. */
struct rpcrdma_pmd_dev {
	const struct rpcrdma_pmd_ops *ops;
	unsigned int nb_pds; /**< objects alive, for the -EBUSY checks of close */
	unsigned int nb_cqs;
	unsigned int nb_listeners;
};

/** Common part of a protection domain. */
struct rpcrdma_pmd_pd {
	struct rpcrdma_pmd_dev *dev;
	uint32_t pd_id;
	unsigned int nb_mrs;
	unsigned int nb_qps;
	unsigned int nb_srqs;
};

/** Common part of a listener. */
struct rpcrdma_pmd_listener {
	struct rpcrdma_pmd_dev *dev;
};

/** Common part of a pending connection request. */
struct rpcrdma_pmd_conn_req {
	struct rpcrdma_pmd_dev *dev; /**< NULL while handed over */
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_pmd_dev *to;   /**< where a request handed over goes */
	struct rpcrdma_pmd_peer peer; /**< the driver fills it when the request comes */
};

/**
 * Driver operations. Control path only: the fast path goes through the
 * function pointers the driver stores in each QP and CQ. Each returns 0 or a
 * negative errno and, on error, leaves nothing allocated. Arguments are
 * already checked (non-NULL, same device, private data length).
 */
struct rpcrdma_pmd_ops {
	const char *name;

	int (*dev_open)(const char *devargs, struct rpcrdma_pmd_dev **dev);
	void (*dev_close)(struct rpcrdma_pmd_dev *dev);

	int (*pd_alloc)(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_pd **pd);
	void (*pd_free)(struct rpcrdma_pmd_pd *pd);

	int (*mr_reg)(struct rpcrdma_pmd_pd *pd, void *addr, size_t len, uint32_t access, int fd,
		      uint64_t fd_offset, struct rpcrdma_pmd_mr **mr);
	void (*mr_dereg)(struct rpcrdma_pmd_mr *mr);
	int (*mr_invalidate)(struct rpcrdma_pmd_pd *pd, uint32_t rkey);
	int (*mr_rekey)(struct rpcrdma_pmd_mr *mr);

	int (*cq_create)(struct rpcrdma_pmd_dev *dev, uint32_t cqe, struct rpcrdma_pmd_cq **cq);
	void (*cq_destroy)(struct rpcrdma_pmd_cq *cq);

	int (*qp_create)(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			 struct rpcrdma_pmd_qp **qp);
	void (*qp_destroy)(struct rpcrdma_pmd_qp *qp);

	/**
	 * Optional (without them rpcrdma_pmd_srq_create() says -ENOTSUP).
	 * srq_create gets checked attributes (within dev_info's max_srq_wr and
	 * max_srq_sge) and arms attr->srq_limit itself; srq_arm is asked for
	 * @p limit <= max_wr, 0 to disarm. qp_create with attr->srq set gets an
	 * SRQ of the same PD, and must make the receive completions of that QP
	 * name it.
	 */
	int (*srq_create)(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
			  struct rpcrdma_pmd_srq **srq);
	void (*srq_destroy)(struct rpcrdma_pmd_srq *srq);
	int (*srq_arm)(struct rpcrdma_pmd_srq *srq, uint32_t limit);

	int (*listen)(struct rpcrdma_pmd_dev *dev, const char *addr,
		      struct rpcrdma_pmd_listener **listener);
	void (*listener_close)(struct rpcrdma_pmd_listener *listener);
	int (*connect)(struct rpcrdma_pmd_qp *qp, const char *addr, const void *pdata,
		       uint8_t pdata_len);
	int (*accept)(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_qp *qp,
		      const void *pdata, uint8_t pdata_len);
	int (*reject)(struct rpcrdma_pmd_conn_req *req, const void *pdata, uint8_t pdata_len);
	/**
	 * Optional (without them handoff says -ENOTSUP). conn_req_handoff runs
	 * on the thread of req->dev (still set) and leaves the request in no
	 * device's lists; conn_req_adopt on the thread of @p to, with req->dev
	 * already @p to. Both get a request and a device of this driver.
	 */
	int (*conn_req_handoff)(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_dev *to);
	void (*conn_req_adopt)(struct rpcrdma_pmd_dev *to, struct rpcrdma_pmd_conn_req *req);
	int (*disconnect)(struct rpcrdma_pmd_qp *qp);
	int (*event_poll)(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_event *ev,
			  unsigned int n);
	int (*event_fd)(struct rpcrdma_pmd_dev *dev); /**< optional */
	/**
	 * Optional: what the device can do. @p info arrives filled with the
	 * common defaults and driver/dev_name set; the driver overwrites what
	 * it knows. Control path, but must not block: answer from what
	 * dev_open stored.
	 */
	int (*dev_info_get)(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info);

	/** Registry link, owned by pmd.c. */
	TAILQ_ENTRY(rpcrdma_pmd_ops) next;
};

/** The completion opcode of a send-queue work request of opcode @p wr_opcode. */
static inline uint8_t rpcrdma_pmd_wc_opcode_of_wr(uint8_t wr_opcode)
{
	switch (wr_opcode) {
	case RPCRDMA_PMD_WR_RDMA_WRITE:
		return RPCRDMA_PMD_WC_RDMA_WRITE;
	case RPCRDMA_PMD_WR_RDMA_READ:
		return RPCRDMA_PMD_WC_RDMA_READ;
	default: /* SEND, SEND_WITH_INV */
		return RPCRDMA_PMD_WC_SEND;
	}
}

/** Add a driver to the registry (called from RPCRDMA_PMD_REGISTER constructors). */
void rpcrdma_pmd_register(struct rpcrdma_pmd_ops *ops);

/** Register driver @p ops at load time. The library is linked whole so this runs. */
#define RPCRDMA_PMD_REGISTER(ops)                                                 \
	__attribute__((constructor)) static void rpcrdma_pmd_register_##ops(void) \
	{                                                                         \
		rpcrdma_pmd_register(&(ops));                                     \
	}

/*
 * PMD messages (control path): "rpcrdma pmd <driver>: <message>" through
 * rte_log, log type "rpcrdma.pmd" (default level NOTICE; an app's
 * --log-level rpcrdma.pmd:info shows the informational ones). Before
 * rte_eal_init() and in the apps, rte_log writes on stderr.
 */

/** An error or a warning the user must see (RTE_LOG_ERR). */
void rpcrdma_pmd_log(const char *driver, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** What the driver chose or did, shown on demand (RTE_LOG_INFO). */
void rpcrdma_pmd_info(const char *driver, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** The same at @p level (an RTE_LOG_* level). */
void rpcrdma_pmd_vlog(uint32_t level, const char *driver, const char *fmt, va_list ap);

/**
 * A layer above the drivers that wraps a QP's or a CQ's fast-path functions
 * (the capture tap, rpcrdma_capture.h) is told here that a QP is being
 * destroyed, before the driver frees it, so that it puts the driver's
 * functions back. A CQ cannot be destroyed while a QP uses it, so a CQ's
 * wrapper goes with the last wrapped QP on it. One hook: the last set wins;
 * NULL removes it. Control path, like QP destruction.
 */
typedef void (*rpcrdma_pmd_qp_destroy_hook_t)(struct rpcrdma_pmd_qp *qp);
void rpcrdma_pmd_set_qp_destroy_hook(rpcrdma_pmd_qp_destroy_hook_t hook);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_PMD_DRIVER_H */
