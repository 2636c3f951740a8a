/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture: record the traffic of chosen queue pairs as RoCEv2 packets in a
 * pcapng file that Wireshark opens (its rpcordma dissector decodes version
 * 1) and rpcrdma-decode --pcap reads (both versions).
 *
 * A tap on the PMD layer, as DPDK's pdump taps an ethdev with rx/tx
 * callbacks. Capturing a QP swaps the fast-path function pointers of the QP
 * (post_recv_burst, queue_send_burst, flush) and of its CQs (poll_burst)
 * for wrappers that record and call the driver's functions; stopping puts
 * the driver's functions back. A QP that is not captured runs exactly the
 * code it runs without this module: capturing costs nothing when it is off.
 *
 * What is recorded, one frame per operation, each Ethernet + IPv4 + UDP
 * (port 4791) + BTH [+ RETH | IETH | AETH] + payload + ICRC, built with
 * rpcrdma_roce.h:
 *
 * | operation                | opcode                     | when                        |
 * |--------------------------|----------------------------|-----------------------------|
 * | SEND                     | SEND_ONLY                  | flushed (rpcrdma_pmd_flush) |
 * | SEND_WITH_INV            | SEND_ONLY_WITH_INVALIDATE  | flushed                     |
 * | RDMA_WRITE               | RDMA_WRITE_ONLY (RETH)     | flushed                     |
 * | RDMA_READ request        | RDMA_READ_REQUEST (RETH)   | flushed                     |
 * | RDMA_READ data           | RDMA_READ_RESPONSE_ONLY    | its completion is polled    |
 * | a receive                | SEND_ONLY (from the peer)  | its completion is polled    |
 *
 * Payloads are gathered from the work request's SGL (a receive: its buffer,
 * byte_len bytes). An RDMA Write or Read longer than one frame carries
 * (rpcrdma_capture_stats.frame_payload_max) is recorded as several
 * operations on consecutive ranges; a Send or receive that long is cut to
 * one frame and counted in truncated.
 *
 * Addresses: each captured connection gets two made-up endpoints,
 * 10.77.C.1 (the QP) and 10.77.C.2 (its peer) with MACs 02:00:4d:00:C:01
 * and 02:00:4d:00:C:02, where C is the connection's number in the capture.
 * BTH DestQP is the receiving QP's number (QP numbers 0 and 1, which name
 * the management QPs on a wire, are written as 0x100000 and 0x100001; a
 * made-up peer has the number of its QP with bit 23 set); PSNs count up
 * per direction (a Read response carries its request's PSN, IBA 9.7.5).
 *
 * Both ends of a connection in this process are captured as one
 * connection by naming the peer in rpcrdma_capture_qp(): each end then
 * records what it sends and the Read responses it gets, and receives are
 * not recorded (the peer's Send is the same packet). A QP captured alone
 * records its receives too, from the receives posted after capture began
 * (receives posted before are counted in untracked).
 *
 * Timestamps are CLOCK_REALTIME nanoseconds taken when the frame is
 * recorded, written over the ones rte_pcapng_copy() puts in (DPDK 22.11's
 * conversion from TSC cycles gives dates centuries ahead).
 *
 * Needs the EAL (mbufs). Frames are written with rte_pcapng in batches; a
 * batch is written from the fast path (one writev) when full, and by
 * rpcrdma_capture_flush() and rpcrdma_capture_close().
 *
 * Threading: start and stop capturing a QP from the thread that polls it
 * (or while nobody does). Every QP of one capture must be polled by one
 * thread: the capture's buffers are not shared between lcores.
 */
#ifndef RPCRDMA_CAPTURE_H
#define RPCRDMA_CAPTURE_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_roce.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Connections one capture holds (each one QP, or two QPs of a pair). */
#define RPCRDMA_CAPTURE_CONN_MAX 64

/** An open capture file (opaque). */
struct rpcrdma_capture;

/** Capture parameters; initialise with rpcrdma_capture_params_init(). */
struct rpcrdma_capture_params {
	uint32_t nb_mbufs;   /**< mbufs for frames up to 2 KiB (default 2048, about 2.3 KiB each) */
	const char *comment; /**< pcapng section comment, or NULL */
	uint32_t nb_large;   /**< mbufs for longer frames (default 64, 64 KiB each) */
	/**
	 * The CRC-32 of every frame's ICRC; NULL (the default): zlib's crc32_z.
	 * rpcrdma_roce_crc32 is the codec's byte-at-a-time one (a benchmark's
	 * baseline); every correct CRC-32 writes the same bytes.
	 */
	rpcrdma_roce_crc32_t crc32;
};

/** Capture counters. */
struct rpcrdma_capture_stats {
	uint64_t frames;	    /**< frames written to the file */
	uint64_t bytes;		    /**< bytes of those frames (Ethernet header to ICRC) */
	uint64_t drops;		    /**< frames lost: no mbuf, staging full, write error */
	uint64_t truncated;	    /**< frames whose payload was cut (see the file comment) */
	uint64_t untracked;	    /**< receive completions of receives posted before capture */
	uint32_t frame_payload_max; /**< most payload bytes one frame carries */
	int error;		    /**< first write error (negative errno), 0 if none */
};

/** Default parameters. */
void rpcrdma_capture_params_init(struct rpcrdma_capture_params *p);

/**
 * Create (truncate) a pcapng file and start a capture on it: the section
 * and interface blocks are written at once.
 *
 * @param path
 *   File name.
 * @param p
 *   Parameters, or NULL for the defaults.
 * @param cap
 *   Set to the capture.
 * @return
 *   0, or (nothing left open or created):
 *   - -EINVAL: NULL path or cap, nb_mbufs below 64, nb_large 0.
 *   - -ENODEV: the EAL is not running, or the capture's interface (a
 *     net_null ethdev port) could not be made.
 *   - -errno of open(2); -EIO: the file header could not be written.
 *   - -ENOMEM: no memory for the mbuf pool.
 */
int rpcrdma_capture_open(const char *path, const struct rpcrdma_capture_params *p,
			 struct rpcrdma_capture **cap);

/**
 * Capture a queue pair, and optionally its peer in this process as the
 * other end of the same connection. Their CQs are tapped too (a CQ shared
 * with QPs not captured passes their completions through).
 *
 * @param cap
 *   The capture.
 * @param qp
 *   A QP not captured yet.
 * @param peer
 *   The QP at the other end of qp's connection, or NULL.
 * @return
 *   0, or (nothing changed):
 *   - -EINVAL: NULL cap or qp, or peer == qp.
 *   - -EBUSY: qp or peer is captured already (by any capture).
 *   - -ENOSPC: RPCRDMA_CAPTURE_CONN_MAX connections in this capture, or the
 *     process-wide table of tapped QPs or CQs is full.
 *   - -ENOMEM.
 */
int rpcrdma_capture_qp(struct rpcrdma_capture *cap, struct rpcrdma_pmd_qp *qp,
		       struct rpcrdma_pmd_qp *peer);

/**
 * Stop capturing a QP: the driver's functions are back, frames staged and
 * not flushed are counted in drops. A peer captured with it stays captured.
 *
 * @return
 *   0, or -EINVAL (NULL), or -ENOENT: the QP is not captured by @p cap.
 */
int rpcrdma_capture_qp_stop(struct rpcrdma_capture *cap, struct rpcrdma_pmd_qp *qp);

/**
 * Write the frames recorded so far.
 *
 * @return
 *   0, or -EIO: a write failed (stats.error; those frames are in drops).
 */
int rpcrdma_capture_flush(struct rpcrdma_capture *cap);

/** Read the counters. */
void rpcrdma_capture_stats(const struct rpcrdma_capture *cap, struct rpcrdma_capture_stats *st);

/**
 * Stop capturing every QP, write what is left and an interface statistics
 * block, close the file and free everything (NULL is allowed).
 *
 * @return
 *   0, or -EIO: a write failed at some point (the file is incomplete).
 */
int rpcrdma_capture_close(struct rpcrdma_capture *cap);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_CAPTURE_H */
