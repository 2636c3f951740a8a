/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The verbs PMD: RC queue pairs on an RDMA NIC through rdma-core, connected
 * with rdma_cm. Opened with rpcrdma_pmd_dev_open(RPCRDMA_VERBS_DRIVER, ...);
 * everything else goes through rpcrdma_pmd.h. This header documents what is
 * particular to the driver: its device arguments and its addresses.
 *
 * Device arguments ("key=value,key=value"; each key at most once):
 *
 *   dev=NAME        the ibv device by name ("mlx5_0", see ibv_devices)
 *   ip=ADDR         the device that owns this local IPv4 or IPv6 address (as
 *                   rdma_cm binds it); with dev= both must name the same
 *                   device. Neither: the first device ibv_get_device_list
 *                   returns.
 *   port=N          the device port QPs are created on, 1..255 (default:
 *                   the port of ip=, or 1)
 *   gid_index=N     source GID index for RoCE, 0..255 (default: the one
 *                   rdma_cm resolves for the address)
 *   inline=BYTES    largest SEND or RDMA WRITE sent as inline data, copied
 *                   into the work request at queue time, 0..1024 (default
 *                   RPCRDMA_VERBS_INLINE_DEFAULT; the device may allow less:
 *                   QP creation then fails and says so)
 *   mlx5dv=MODE     auto (default): create QPs with mlx5dv_create_qp on mlx5
 *                   devices; on: require it (dev_open fails with -ENOTSUP
 *                   elsewhere); off: plain verbs
 *   wr_api=MODE     how sends are posted: ibv_wr_start ... ibv_wr_complete
 *                   (on), or chains of ibv_send_wr through ibv_post_send
 *                   (off); both ring one doorbell per flush. auto (default):
 *                   on for mlx5 devices, off for every other provider (the
 *                   rxe provider of rdma-core 44 mis-builds inline and
 *                   multi-SGE work requests on this API)
 *   cq_ex=MODE      extended CQs, ibv_create_cq_ex and ibv_start_poll (on),
 *                   or ibv_create_cq and ibv_poll_cq (off). auto (default):
 *                   on for mlx5 devices, off elsewhere (rdma-core 44's rxe
 *                   provider reads stale completions on this API)
 *
 * dev_open logs the device, port, link layer and the send and CQ paths in
 * use, e.g. "mlx5_0 port 1 (Ethernet, ACTIVE): send path mlx5dv, cq ex".
 *
 * Addresses for rpcrdma_pmd_listen() and rpcrdma_pmd_connect() are numeric:
 * "192.0.2.1:20049", "192.0.2.1" (port RPCRDMA_VERBS_PORT_DEFAULT),
 * "[2001:db8::1]:20049", "2001:db8::1", and for listening "0.0.0.0:20049"
 * (every device; requests that arrive on another device are rejected).
 *
 * Memory: every MR is an ibv_reg_mr registration of the whole range; its
 * rkey gives the peer access to all of it until it is invalidated.
 * rpcrdma_pmd_mr_invalidate() and rpcrdma_pmd_mr_rekey() deregister and
 * register again (a control-path operation that pins the pages anew), and
 * a peer's SEND_WITH_INV cannot invalidate such a registration (the
 * responder answers with REM_INV_REQ_ERR): see the README.
 */
#ifndef RPCRDMA_VERBS_H
#define RPCRDMA_VERBS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Driver name for rpcrdma_pmd_dev_open(). */
#define RPCRDMA_VERBS_DRIVER "verbs"

/** Port of an address without one: the NFS/RDMA port (RFC 5666). */
#define RPCRDMA_VERBS_PORT_DEFAULT 20049

/** Default of the inline= device argument, in bytes. */
#define RPCRDMA_VERBS_INLINE_DEFAULT 64

/** Largest value of the inline= device argument. */
#define RPCRDMA_VERBS_INLINE_MAX 1024

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_VERBS_H */
