/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The shm PMD's shared-memory layout and socket messages: everything two
 * processes (or two devices of one process) exchange. As DPDK's memif.h,
 * this one header is the whole contract between peers.
 *
 * Every shared structure starts with a magic and a version; all references
 * are offsets or indexes, never pointers; a field written by one side and
 * polled by the other sits on its own cache line. Nothing read from a peer is
 * trusted: indexes are masked or checked, lengths checked against the sizes
 * this side mapped.
 *
 * Memory a device shares (each a memfd, sent with SCM_RIGHTS):
 *
 *   device area   one per device: header + MR table. A peer reads it to check
 *                 an rkey, and writes one word of it to invalidate an rkey
 *                 (SEND_WITH_INV).
 *   QP area       one per QP: header + receive queue. The owner posts
 *                 receives; the peer's requester consumes them and writes the
 *                 receive completion into the same slot.
 *   regions       the registered memory (buffer pools), mapped by the peer so
 *                 that its requester copies straight into or out of it: one
 *                 memcpy per transfer, done by the lcore that posted the WR.
 *
 * Receive slot ownership (one 32-bit state word per slot, so each message
 * moves one cache line of metadata; the owner's head and the peer's tail
 * counters are kept on their own lines for flush and diagnostics):
 *
 *   EMPTY --owner posts--> POSTED --peer CAS--> CLAIMED --peer--> DONE
 *                            |
 *                            +--owner CAS (QP error)--> FLUSHED
 *
 * The owner reaps DONE and FLUSHED slots in order (its private reap index
 * says which slot is next) and leaves the word as it is until it posts the
 * slot again; the peer acts on POSTED only, so a reaped slot is never
 * consumed twice.
 *
 * A peer that dies while a slot is CLAIMED leaves it so; the owner, knowing
 * the peer is gone (socket hang-up), reaps it as flushed.
 *
 *   SRQ area      one per shared receive queue: header + receive slots, as a
 *                 QP area's but consumed by the peers of every QP attached
 *                 to it, in any process. The slot word then also says which
 *                 QP took the receive (RPCRDMA_SHM_SLOT_WORD): a peer claims
 *                 the slot at the shared consumer index rq_tail with one
 *                 CAS POSTED|round -> CLAIMED|qp (the round of rq_tail:
 *                 rpcrdma_shm_srq_posted()), then moves rq_tail on with a CAS
 *                 (any peer that finds the slot at rq_tail taken, below
 *                 rq_head, moves it on for it); it completes the slot with a
 *                 CAS CLAIMED|qp -> DONE|qp. The owner reaps in order and
 *                 gives each completion to the QP named, after checking it
 *                 is one of its QPs attached to that SRQ. The QP area of an
 *                 attached QP names its index in the SRQ (srq_index) and has
 *                 a receive queue of one slot that is never posted.
 *
 * Connection set-up over a SOCK_SEQPACKET UNIX socket (the listen address):
 *
 *   client                                server
 *   REGION (one per region, 1 fd each) ->
 *   HELLO (2 fds: device area, QP area) ->   CONNECT_REQUEST event
 *                                      <- REGION ...
 *                                      <- ACCEPT (2 fds)  or  REJECT
 *   ESTABLISHED event
 *   RTU ->                                   ESTABLISHED event
 *   ... later, either side: REGION (memory registered after connecting),
 *   DISCONNECT, or the socket hangs up (peer exited or was killed).
 */
#ifndef RPCRDMA_SHM_H
#define RPCRDMA_SHM_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_pmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RPCRDMA_SHM_MAGIC 0x52444d41u /* "RDMA" */
#define RPCRDMA_SHM_VERSION_MAJOR \
	3 /* incompatible changes (2: SRQ POSTED words; 3: SRQ faults on line 0) */
#define RPCRDMA_SHM_VERSION_MINOR 2 /* compatible additions (1: SRQs; 2: qp_errors) */
#define RPCRDMA_SHM_CACHE_LINE	  64

/** MR region index of memory that has no file descriptor (same process only). */
#define RPCRDMA_SHM_REGION_NONE 0xffffffffu
/** Regions a device can register (indexes are never reused). */
#define RPCRDMA_SHM_REGION_MAX 256

/** Key layout: index in the MR table << 8 | 8-bit generation (never 0). */
#define RPCRDMA_SHM_KEY_INDEX(key) ((key) >> 8)
#define RPCRDMA_SHM_KEY_GEN(key)   ((key)&0xffu)

/** One MR table entry: one cache line. Written by the owner, except @valid. */
struct rpcrdma_shm_mr {
	uint32_t valid;	     /**< 1: usable. Owner stores; peer CAS 1->0 (SEND_WITH_INV) */
	uint32_t key;	     /**< lkey == rkey; 0: entry free */
	uint32_t access;     /**< RPCRDMA_PMD_ACCESS_* */
	uint32_t pd;	     /**< PD id; must match the PD of the QP accessed */
	uint32_t region;     /**< region index, or RPCRDMA_SHM_REGION_NONE */
	uint32_t seq;	     /**< odd while the owner rewrites the entry */
	uint64_t addr;	     /**< owner's virtual address: remote_addr is checked against it */
	uint64_t length;     /**< bytes */
	uint64_t region_off; /**< offset of addr in the region */
	uint8_t pad[16];
};
static_assert(sizeof(struct rpcrdma_shm_mr) == RPCRDMA_SHM_CACHE_LINE, "MR entry: one line");

/** Device area header; the MR table follows at mr_table_off. Read-only after creation. */
struct rpcrdma_shm_dev_area {
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t hdr_size; /**< sizeof(struct rpcrdma_shm_dev_area) */
	uint32_t mr_max;   /**< entries in the MR table */
	uint64_t mr_table_off;
	uint64_t area_size;
	uint64_t dev_id; /**< random, identifies the device to its peers */
	uint32_t pid;
	/**
	 * Bumped (release) each time one of the device's QPs goes to error,
	 * after its QP area's state says so (minor 2): a peer about to send
	 * reads the QP's state only when this moved since it last found the
	 * QP well, on a line every peer of the device shares and nothing but
	 * a fault writes, instead of a line of each QP's area.
	 */
	uint32_t qp_errors;
	uint8_t pad[16];
};
static_assert(sizeof(struct rpcrdma_shm_dev_area) == RPCRDMA_SHM_CACHE_LINE, "dev area header");

/** Receive slot states (the ownership word). */
enum rpcrdma_shm_slot_state {
	RPCRDMA_SHM_SLOT_EMPTY = 0,
	RPCRDMA_SHM_SLOT_POSTED = 1,
	RPCRDMA_SHM_SLOT_CLAIMED = 2,
	RPCRDMA_SHM_SLOT_DONE = 3,
	RPCRDMA_SHM_SLOT_FLUSHED = 4,
};

/**
 * The slot word: the state in the low 8 bits; in an SRQ's slots, the SRQ
 * index of the QP that claimed it (its QP area's srq_index) above them.
 */
#define RPCRDMA_SHM_SLOT_WORD(state, qp) ((uint32_t)(state) | (uint32_t)(qp) << 8)
#define RPCRDMA_SHM_SLOT_STATE(word)	 ((word)&0xffu)
#define RPCRDMA_SHM_SLOT_QP(word)	 ((word) >> 8)
/**
 * An SRQ slot's POSTED word: above the state, the round of the ring the
 * receive was posted in (its position pos over rq_size, 24 bits). A peer
 * takes the slot only for the position it read in rq_tail: one that read
 * rq_tail, then was descheduled while the ring went round, finds the slot
 * posted again for a later round and leaves it (it would be reaped only
 * after every slot before it).
 */
static inline uint32_t rpcrdma_shm_srq_posted(uint64_t pos, uint32_t rq_size)
{
	/* rq_size is a power of two: a shift, not a division, on every Send */
	return RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_POSTED,
				     (uint32_t)(pos >> __builtin_ctz(rq_size)) & 0xffffffu);
}
/** srq_index of a QP with its own receive queue; SRQ indexes are below it. */
#define RPCRDMA_SHM_SRQ_NONE 0xffffffu

/** Where a receive buffer is, for the peer: region index and offset. */
struct rpcrdma_shm_sge {
	uint32_t region; /**< or RPCRDMA_SHM_REGION_NONE: offset is a same-process address */
	uint32_t length;
	uint64_t offset;
};
static_assert(sizeof(struct rpcrdma_shm_sge) == 16, "sge");

/** Receive slot post errors, found by the owner when posting. */
#define RPCRDMA_SHM_POST_OK	  0
#define RPCRDMA_SHM_POST_BAD_LKEY 1 /**< lkey, bounds, PD or LOCAL_WRITE check failed */

/** A receive slot: header, then max_sge SGEs; slot_size bytes, a multiple of 64. */
struct rpcrdma_shm_rq_slot {
	uint32_t state;	   /**< enum rpcrdma_shm_slot_state */
	uint16_t num_sge;  /**< owner */
	uint8_t post_err;  /**< owner: RPCRDMA_SHM_POST_* */
	uint8_t wc_status; /**< peer: enum rpcrdma_pmd_wc_status */
	uint32_t byte_len; /**< peer */
	uint32_t wc_flags; /**< peer: RPCRDMA_PMD_WC_WITH_INV */
	uint32_t inv_rkey; /**< peer */
	uint32_t pad;
	struct rpcrdma_shm_sge sge[];
};
static_assert(sizeof(struct rpcrdma_shm_rq_slot) == 24, "slot header");

/** QP states as seen by the peer. */
#define RPCRDMA_SHM_QP_OK    0
#define RPCRDMA_SHM_QP_ERROR 1 /**< the owner's QP is in error: the peer's WRs fail */

/** QP area header; receive slots follow at rq_off. */
struct rpcrdma_shm_qp_area {
	/* line 0: constant after creation */
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t hdr_size;
	uint32_t qp_num;
	uint32_t pd;	       /**< PD id of the QP: MRs reached through it must match */
	uint32_t rq_size;      /**< slots, a power of two */
	uint32_t rq_slot_size; /**< bytes per slot */
	uint32_t rq_max_sge;
	uint64_t rq_off;
	uint64_t area_size;
	uint32_t srq_index; /**< RPCRDMA_SHM_SRQ_NONE, or this QP's index in its SRQ (minor 1) */
	uint8_t pad0[12];
	/* line 1: written by the owner, rarely; read by the peer before each WR */
	uint32_t state __attribute__((aligned(64))); /**< RPCRDMA_SHM_QP_* */
	uint8_t pad1[60];
	/* line 2: written by the owner on every receive it posts */
	uint64_t rq_head __attribute__((aligned(64))); /**< producer index: receives posted */
	uint8_t pad2[56];
	/* line 3: written by the peer on every receive it consumes */
	uint64_t rq_tail __attribute__((aligned(64))); /**< consumer index: receives consumed */
	uint8_t pad3[56];
	/* line 4: written by the peer when it detects an error that moves this QP to error */
	uint32_t fault
		__attribute__((aligned(64))); /**< 0, or the peer's enum rpcrdma_pmd_wc_status */
	uint8_t pad4[60];
};
static_assert(offsetof(struct rpcrdma_shm_qp_area, state) == 64, "state line");
static_assert(offsetof(struct rpcrdma_shm_qp_area, rq_head) == 128, "producer line");
static_assert(offsetof(struct rpcrdma_shm_qp_area, rq_tail) == 192, "consumer line");
static_assert(offsetof(struct rpcrdma_shm_qp_area, fault) == 256, "fault line");
static_assert(sizeof(struct rpcrdma_shm_qp_area) == 5 * RPCRDMA_SHM_CACHE_LINE, "qp area");

/**
 * SRQ area header; receive slots (struct rpcrdma_shm_rq_slot) follow at
 * rq_off. Shared by the peers of every QP attached to the SRQ.
 */
struct rpcrdma_shm_srq_area {
	/* line 0: constant after creation, but for faults */
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t hdr_size;
	uint32_t srq_num;
	uint32_t pd;	       /**< PD id of the SRQ (receive buffers are checked against it) */
	uint32_t rq_size;      /**< slots, a power of two */
	uint32_t rq_slot_size; /**< bytes per slot */
	uint32_t rq_max_sge;
	uint64_t rq_off;
	uint64_t area_size;
	/**
	 * Bumped by a peer after it wrote the fault word of a QP attached
	 * here (struct rpcrdma_shm_qp_area): the owner, which does not look
	 * at each attached QP on every poll, looks when this moves. On this
	 * line, which nothing else writes, not on the claim index's: the
	 * owner reads it on every poll, and on the line every claim writes
	 * each read would pull that line across (and the next claim back).
	 */
	uint32_t faults;
	uint8_t pad0[12];
	/* line 1: written by the owner on every receive it posts (release) */
	uint64_t rq_head __attribute__((aligned(64))); /**< producer index: receives posted */
	/**
	 * The armed limit (0: none): a peer whose claim leaves fewer receives
	 * posted than this sets limit_hit, and the owner reports it (once).
	 */
	uint32_t limit;
	uint8_t pad1[52];
	/* line 2: the peers' claim index (CAS) */
	uint64_t rq_tail __attribute__((aligned(64))); /**< consumer index: receives claimed */
	uint32_t limit_hit;			       /**< set by a peer, cleared by the owner */
	uint8_t pad2[52];
};
static_assert(offsetof(struct rpcrdma_shm_srq_area, rq_head) == 64, "srq producer line");
static_assert(offsetof(struct rpcrdma_shm_srq_area, rq_tail) == 128, "srq consumer line");
static_assert(sizeof(struct rpcrdma_shm_srq_area) == 3 * RPCRDMA_SHM_CACHE_LINE, "srq area");
static_assert(offsetof(struct rpcrdma_shm_srq_area, faults) < RPCRDMA_SHM_CACHE_LINE,
	      "faults off the lines the fast path writes");

/* ---------------- socket messages ---------------- */

enum rpcrdma_shm_msg_type {
	RPCRDMA_SHM_MSG_HELLO = 1,	/**< conn, 2 fds (3 with an SRQ: its area) */
	RPCRDMA_SHM_MSG_ACCEPT = 2,	/**< conn, 2 fds (3 with an SRQ: its area) */
	RPCRDMA_SHM_MSG_REJECT = 3,	/**< conn.pdata only */
	RPCRDMA_SHM_MSG_RTU = 4,	/**< ready to use: no body */
	RPCRDMA_SHM_MSG_REGION = 5,	/**< region, 1 fd */
	RPCRDMA_SHM_MSG_DISCONNECT = 6, /**< no body */
};

/**
 * Connection parameters of HELLO and ACCEPT (fds: device area, QP area, and
 * the SRQ area when the QP area's srq_index is not RPCRDMA_SHM_SRQ_NONE).
 */
struct rpcrdma_shm_msg_conn {
	uint64_t dev_id;
	uint64_t dev_area_size;
	uint64_t qp_area_size;
	uint32_t pid;
	uint32_t qp_num;
	uint8_t pdata_len;
	uint8_t pdata[RPCRDMA_PMD_PRIVATE_DATA_MAX];
	uint8_t pad[7];
};

/** A region of the sender's device (fd: the memory, mapped at fd_offset for length). */
struct rpcrdma_shm_msg_region {
	uint64_t dev_id;
	uint64_t fd_offset; /**< multiple of the fd's page size */
	uint64_t length;    /**< multiple of the fd's page size */
	uint32_t index;	    /**< < RPCRDMA_SHM_REGION_MAX */
	uint32_t pad;
};

/** Every message: fixed size, checked field by field by the receiver. */
struct rpcrdma_shm_msg {
	uint32_t magic;
	uint16_t version_major;
	uint16_t type; /**< enum rpcrdma_shm_msg_type */
	union {
		struct rpcrdma_shm_msg_conn conn;
		struct rpcrdma_shm_msg_region region;
	};
};
static_assert(sizeof(struct rpcrdma_shm_msg) == 104, "message size");

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_SHM_H */
