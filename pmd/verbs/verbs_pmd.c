/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs PMD's ops table, registered at load: the top of the driver,
 * over verbs_ctrl.c (objects), verbs_cm.c (connections, events) and
 * verbs_srq.c (shared receive queues).
 */
#include "verbs_pmd.h"

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
	.conn_req_handoff = verbs_conn_req_handoff,
	.conn_req_adopt = verbs_conn_req_adopt,
	.disconnect = verbs_disconnect,
	.event_poll = verbs_event_poll,
	.event_fd = verbs_event_fd,
	.dev_info_get = verbs_dev_info_get,
};

RPCRDMA_PMD_REGISTER(verbs_ops)
