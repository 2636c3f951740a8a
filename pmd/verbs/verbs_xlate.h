/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD: the pure translations between the PMD interface and rdma-core.
 *
 * Nothing here touches a device or makes a system call, so all of it is
 * unit-tested without an RDMA NIC (tests/unit/pmd_verbs/). The fast-path
 * translations are static inline here; the control-path ones (device
 * arguments, addresses, connection manager and asynchronous event mapping)
 * are in verbs_xlate.c.
 */
#ifndef RPCRDMA_PMD_VERBS_XLATE_H
#define RPCRDMA_PMD_VERBS_XLATE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_verbs.h>

/* A PMD SGL is handed to libibverbs as is: the layouts must be the same. */
static_assert(sizeof(struct rpcrdma_pmd_sge) == sizeof(struct ibv_sge), "sge size");
static_assert(offsetof(struct rpcrdma_pmd_sge, addr) == offsetof(struct ibv_sge, addr), "addr");
static_assert(offsetof(struct rpcrdma_pmd_sge, length) == offsetof(struct ibv_sge, length), "len");
static_assert(offsetof(struct rpcrdma_pmd_sge, lkey) == offsetof(struct ibv_sge, lkey), "lkey");

#define VERBS_SGE_MAX 32 /* per work request: bounds the stack arrays of the fast path */

/* ---------------- errors ---------------- */

/*
 * The return value of a libibverbs or librdmacm call as a negative errno.
 * libibverbs returns a positive errno (ibv_modify_qp, ibv_post_send, ...),
 * librdmacm and a few verbs return -1 and set errno, some providers return
 * a negative errno. 0 stays 0.
 */
static inline int verbs_err(int rc)
{
	if (rc == 0)
		return 0;
	if (rc > 0)
		return -rc;
	if (rc == -1)
		return errno > 0 ? -errno : -EIO;
	return rc;
}

/* The negative errno of a call that returned NULL (ibv_reg_mr, ibv_create_cq, ...). */
static inline int verbs_err_null(void)
{
	return errno > 0 ? -errno : -ENOMEM;
}

/* ---------------- work request ids ---------------- */

/*
 * The wr_id of every work request this PMD posts names where it came from,
 * so a completion dispatches without a lookup by QP number:
 *
 *   63        48 47        32  31   30                0
 *   | QP gen    | QP index   | RQ | ring slot          |
 *
 * "tag" is the upper half (generation << 16 | index into the device's QP
 * table). A completion whose tag is not the one of the QP at that index
 * belongs to a destroyed QP and is dropped.
 *
 * A receive posted on a shared receive queue has RQ and SRQ set: its tag
 * then indexes the device's SRQ table, its slot the SRQ's, and the QP it
 * arrived on comes from the completion's QP number.
 */
#define VERBS_QP_INDEX_MAX  65536u /* QPs per device (16 bits of the tag) */
#define VERBS_WRID_RECV	    (1ull << 31)
#define VERBS_WRID_SLOT_MAX (1u << 31)
#define VERBS_WRID_SRQ	    (1u << 30) /* with VERBS_WRID_RECV: an SRQ's receive */
#define VERBS_SRQ_INDEX_MAX 65536u     /* SRQs per device (16 bits of the tag) */

static inline uint64_t verbs_wrid(uint32_t tag, bool recv, uint32_t slot)
{
	return (uint64_t)tag << 32 | (recv ? VERBS_WRID_RECV : 0) | slot;
}

static inline uint32_t verbs_wrid_tag(uint64_t wr_id)
{
	return (uint32_t)(wr_id >> 32);
}

static inline uint16_t verbs_tag_index(uint32_t tag)
{
	return (uint16_t)tag;
}

static inline bool verbs_wrid_is_recv(uint64_t wr_id)
{
	return (wr_id & VERBS_WRID_RECV) != 0;
}

static inline bool verbs_wrid_is_srq(uint64_t wr_id)
{
	return (wr_id & (VERBS_WRID_RECV | VERBS_WRID_SRQ)) == (VERBS_WRID_RECV | VERBS_WRID_SRQ);
}

static inline uint32_t verbs_wrid_slot(uint64_t wr_id)
{
	return (uint32_t)wr_id & (VERBS_WRID_SLOT_MAX - 1);
}

/* ---------------- send work requests ---------------- */

/* A PMD send work request translated for verbs (either posting API). */
struct verbs_swr {
	enum ibv_wr_opcode opcode;
	unsigned int send_flags;  /* IBV_SEND_SIGNALED, IBV_SEND_INLINE */
	uint32_t length;	  /* bytes in the SGL */
	uint32_t rkey;		  /* RDMA WRITE / READ */
	uint64_t remote_addr;	  /* RDMA WRITE / READ */
	uint32_t invalidate_rkey; /* SEND_WITH_INV */
};

/*
 * Translate @wr. A SEND, SEND_WITH_INV or RDMA WRITE of at least one and at
 * most @max_inline bytes goes inline (the data is copied into the work
 * request when it is queued, no lkey is used). Fields that the opcode does
 * not use are zero in @out.
 *
 * @return 0; -EINVAL: unknown opcode or flag, more than @max_sge elements
 *   (@max_read_sge for an RDMA READ), or an SGL longer than 4 GiB - 1
 *   (nothing in @out is meaningful).
 */
static inline int verbs_send_wr_xlate(const struct rpcrdma_pmd_send_wr *wr, uint16_t max_sge,
				      uint16_t max_read_sge, uint32_t max_inline,
				      struct verbs_swr *out)
{
	uint64_t len = 0;
	bool may_inline;
	uint16_t i;

	if (wr->num_sge > max_sge || wr->num_sge > VERBS_SGE_MAX ||
	    (wr->flags & ~RPCRDMA_PMD_SEND_SIGNALED) != 0)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > UINT32_MAX)
		return -EINVAL;
	out->length = (uint32_t)len;
	out->rkey = 0;
	out->remote_addr = 0;
	out->invalidate_rkey = 0;
	switch (wr->opcode) {
	case RPCRDMA_PMD_WR_SEND:
		out->opcode = IBV_WR_SEND;
		may_inline = true;
		break;
	case RPCRDMA_PMD_WR_SEND_WITH_INV:
		out->opcode = IBV_WR_SEND_WITH_INV;
		out->invalidate_rkey = wr->invalidate_rkey;
		may_inline = true;
		break;
	case RPCRDMA_PMD_WR_RDMA_WRITE:
		out->opcode = IBV_WR_RDMA_WRITE;
		out->rkey = wr->rkey;
		out->remote_addr = wr->remote_addr;
		may_inline = true;
		break;
	case RPCRDMA_PMD_WR_RDMA_READ:
		if (wr->num_sge > max_read_sge)
			return -EINVAL;
		out->opcode = IBV_WR_RDMA_READ;
		out->rkey = wr->rkey;
		out->remote_addr = wr->remote_addr;
		may_inline = false; /* data flows in: nothing to copy */
		break;
	default:
		return -EINVAL;
	}
	out->send_flags = (wr->flags & RPCRDMA_PMD_SEND_SIGNALED) ? IBV_SEND_SIGNALED : 0;
	if (may_inline && len != 0 && len <= max_inline)
		out->send_flags |= IBV_SEND_INLINE;
	return 0;
}

/*
 * Fill a struct ibv_send_wr for ibv_post_send() from a translated work
 * request: the SGL is copied into @sge (room for wr->num_sge), next = NULL.
 */
static inline void verbs_swr_to_ibv(const struct verbs_swr *x, const struct rpcrdma_pmd_send_wr *wr,
				    uint64_t wr_id, struct ibv_send_wr *out, struct ibv_sge *sge)
{
	uint16_t i;

	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	out->wr_id = wr_id;
	out->next = NULL;
	out->sg_list = sge;
	out->num_sge = wr->num_sge;
	out->opcode = x->opcode;
	out->send_flags = x->send_flags;
	out->imm_data = 0;
	out->invalidate_rkey = x->invalidate_rkey; /* a union with imm_data */
	out->wr.rdma.remote_addr = x->remote_addr;
	/*
	 * SEND_WITH_INV: the key in wr.rdma.rkey too. rdma-core's siw provider
	 * takes the STag to invalidate from there, not from invalidate_rkey
	 * (it sent STag 0, which the peer cannot invalidate: a TERMINATE and a
	 * dead connection at the first reply to a Linux client's chunked
	 * call); the other providers read no wr.rdma of a send.
	 */
	out->wr.rdma.rkey = x->opcode == IBV_WR_SEND_WITH_INV ? x->invalidate_rkey : x->rkey;
}

/* ---------------- completions ---------------- */

/*
 * The PMD status of a verbs completion status. The PMD keeps the values of
 * the statuses an RC QP reports; the others fold into the nearest one.
 */
static inline uint8_t verbs_wc_status(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS:
		return RPCRDMA_PMD_WC_SUCCESS;
	case IBV_WC_LOC_LEN_ERR:
		return RPCRDMA_PMD_WC_LOC_LEN_ERR;
	case IBV_WC_LOC_QP_OP_ERR:
	case IBV_WC_LOC_EEC_OP_ERR:
		return RPCRDMA_PMD_WC_LOC_QP_OP_ERR;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
	case IBV_WC_MW_BIND_ERR:
	case IBV_WC_LOC_RDD_VIOL_ERR:
		return RPCRDMA_PMD_WC_LOC_PROT_ERR;
	case IBV_WC_WR_FLUSH_ERR:
		return RPCRDMA_PMD_WC_WR_FLUSH_ERR;
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_INV_RD_REQ_ERR:
		return RPCRDMA_PMD_WC_REM_INV_REQ_ERR;
	case IBV_WC_REM_ACCESS_ERR:
		return RPCRDMA_PMD_WC_REM_ACCESS_ERR;
	case IBV_WC_REM_OP_ERR:
	case IBV_WC_BAD_RESP_ERR:
	case IBV_WC_REM_ABORT_ERR:
		return RPCRDMA_PMD_WC_REM_OP_ERR;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RESP_TIMEOUT_ERR:
		return RPCRDMA_PMD_WC_RETRY_EXC_ERR;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR;
	default: /* FATAL_ERR, GENERAL_ERR, EEC and tag-matching errors */
		return RPCRDMA_PMD_WC_GENERAL_ERR;
	}
}

/*
 * Fill a PMD completion. @opcode is the PMD opcode the PMD knows from its
 * own record of the work request (verbs leaves the opcode undefined in an
 * error completion); @byte_len, @ibv_flags and @inv_rkey are read only from
 * a successful one.
 */
static inline void verbs_wc_fill(struct rpcrdma_pmd_wc *wc, uint64_t wr_id,
				 struct rpcrdma_pmd_qp *qp, enum ibv_wc_status status,
				 uint8_t opcode, uint32_t byte_len, unsigned int ibv_flags,
				 uint32_t inv_rkey)
{
	bool ok = status == IBV_WC_SUCCESS;
	bool inv = ok && (ibv_flags & IBV_WC_WITH_INV) != 0;

	wc->wr_id = wr_id;
	wc->qp = qp;
	wc->status = verbs_wc_status(status);
	wc->opcode = opcode;
	wc->flags = inv ? RPCRDMA_PMD_WC_WITH_INV : 0;
	wc->byte_len = ok ? byte_len : 0;
	wc->invalidated_rkey = inv ? inv_rkey : 0;
	wc->qp_num = qp->qp_num;
}

/* ---------------- control path (verbs_xlate.c) ---------------- */

enum verbs_mode {
	VERBS_MODE_AUTO = 0, /* use it when the device and rdma-core have it */
	VERBS_MODE_ON,	     /* require it: dev_open fails with -ENOTSUP otherwise */
	VERBS_MODE_OFF,	     /* do not use it */
};

/* Parsed device arguments (rpcrdma_verbs.h documents them). */
struct verbs_devargs {
	char dev[64];		    /* dev=: "" when absent */
	bool has_ip;		    /* ip= */
	struct sockaddr_storage ip; /* port 0 */
	uint8_t port;		    /* port=: 0 when absent */
	int16_t gid_index;	    /* gid_index=: -1 when absent */
	uint32_t inline_max;	    /* inline= */
	enum verbs_mode mlx5dv;
	enum verbs_mode wr_api;
	enum verbs_mode cq_ex;
};

/*
 * Parse "key=value,..." (NULL or "" for the defaults).
 * @return 0; -EINVAL with a one-line reason in @err: an empty item, a key
 *   without '=', an unknown or repeated key, an empty, malformed or out of
 *   range value. @da is then unspecified.
 */
int verbs_devargs_parse(const char *s, struct verbs_devargs *da, char *err, size_t errlen);

/*
 * Parse a numeric address: "A.B.C.D", "A.B.C.D:PORT", "[V6]", "[V6]:PORT"
 * or a bare IPv6 address. A missing port is @default_port; @allow_port
 * false rejects one that is given (ip= device argument).
 * @return 0; -EINVAL with the reason in @err.
 */
int verbs_addr_parse(const char *s, bool allow_port, uint16_t default_port,
		     struct sockaddr_storage *ss, char *err, size_t errlen);

/* "192.0.2.1:20049" / "[2001:db8::1]:20049" into @buf. */
const char *verbs_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/*
 * ibv_access_flags of RPCRDMA_PMD_ACCESS_* bits; -EINVAL for unknown bits or
 * REMOTE_WRITE without LOCAL_WRITE (which ibv_reg_mr refuses).
 */
int verbs_access_to_ibv(uint32_t access);

/*
 * The IB "minimum RNR NAK timer" code (IBTA table 45) of the smallest delay
 * of at least @us microseconds; 0 (655.36 ms, the longest) above 491.52 ms.
 */
uint8_t verbs_rnr_timer_code(uint32_t us);

/* Delay in microseconds of an RNR timer code (0..31). */
uint32_t verbs_rnr_timer_us(uint8_t code);

/* What an rdma_cm event is about, from the state of its rdma_cm_id's owner. */
enum verbs_cm_role {
	VERBS_ROLE_LISTENER,   /* a listening id */
	VERBS_ROLE_REQ,	       /* a connect request the user has not accepted yet */
	VERBS_ROLE_RESOLVING,  /* client: address / route resolution */
	VERBS_ROLE_CONNECTING, /* client: connect request sent */
	VERBS_ROLE_ACCEPTED,   /* server: accepted, waiting for the client's RTU */
	VERBS_ROLE_UP,	       /* connected */
	VERBS_ROLE_DOWN,       /* disconnected, in error */
};

/* What the PMD does with an rdma_cm event. */
enum verbs_cm_action {
	VERBS_CM_IGNORE,
	VERBS_CM_NEW_REQUEST,	 /* report CONNECT_REQUEST */
	VERBS_CM_RESOLVE_ROUTE,	 /* call rdma_resolve_route */
	VERBS_CM_CONNECT,	 /* call rdma_connect */
	VERBS_CM_ESTABLISH,	 /* client: QP to RTR and RTS, rdma_establish, ESTABLISHED */
	VERBS_CM_ESTABLISHED,	 /* server: report ESTABLISHED */
	VERBS_CM_REJECTED,	 /* client: report REJECTED with the private data */
	VERBS_CM_CONNECT_ERROR,	 /* report CONNECT_ERROR */
	VERBS_CM_DISCONNECTED,	 /* QP to error, report DISCONNECTED */
	VERBS_CM_REQ_GONE,	 /* the pending request's client went away */
	VERBS_CM_DEVICE_REMOVAL, /* every connection of the device goes down */
};

/* IB CM reject reason of a REJECTED event that the listener's user asked for. */
#define VERBS_REJ_CONSUMER_DEFINED 28
/* ... and of one that no listener was there to see (IB "invalid service ID"). */
#define VERBS_REJ_INVALID_SERVICE_ID 8

enum verbs_cm_action verbs_cm_action(enum verbs_cm_role role, enum rdma_cm_event_type type,
				     int status);

/*
 * The status of an rdma_cm event in IB CM terms, for verbs_cm_action(): an
 * iWARP peer's reject (an MPA reject, which carries private data) arrives
 * as REJECTED with -ECONNRESET; nobody listening as -ECONNREFUSED.
 */
int verbs_cm_status(uint32_t transport, enum rdma_cm_event_type type, int status);

/* What the PMD does with an asynchronous event of the device. */
enum verbs_async_action {
	VERBS_ASYNC_IGNORE,
	VERBS_ASYNC_LOG,	  /* port state or address change: log it */
	VERBS_ASYNC_QP_ERROR,	  /* that QP is in error: report its connection down */
	VERBS_ASYNC_COMM_EST,	  /* tell rdma_cm (rdma_notify) */
	VERBS_ASYNC_CQ_ERROR,	  /* CQ overrun: every QP on it goes down */
	VERBS_ASYNC_PORT_DOWN,	  /* every connection on that port goes down */
	VERBS_ASYNC_DEVICE_FATAL, /* every connection of the device goes down */
	VERBS_ASYNC_SRQ_LIMIT,	  /* an SRQ's limit: RPCRDMA_PMD_EVENT_SRQ_LIMIT */
	VERBS_ASYNC_SRQ_ERROR,	  /* an SRQ is in error: log it */
};

enum verbs_async_action verbs_async_action(enum ibv_event_type type);

/*
 * What a device can do, as rpcrdma_pmd_dev_info_get() reports it, from what
 * dev_open queried: @da (ibv_query_device), the device's node and transport
 * types, the port's link layer (ibv_query_port) and the inline= device
 * argument. Limits are clamped to what the PMD itself supports (SGEs per WR,
 * QPs per device) and negative values read as 0. Whole-range registrations
 * (ibv_reg_mr) are neither remotely invalidatable nor cheap.
 */
void verbs_dev_info_fill(const struct ibv_device_attr *da, enum ibv_node_type node,
			 enum ibv_transport_type transport, uint8_t link_layer, uint32_t inline_max,
			 const char *name, struct rpcrdma_pmd_dev_info *info);

#endif /* RPCRDMA_PMD_VERBS_XLATE_H */
