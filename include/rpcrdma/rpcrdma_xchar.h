/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Transport characteristics for RPC-over-RDMA version 2
 * (draft-dnoveck-nfsv4-rpcrdma-xcharext-02): the xcharval, xcharspec and
 * xcharsubset types, the three characteristics it defines (Receive Buffer
 * Size, Requester Remote Invalidation, Backward Request Support), and the
 * bodies of the ROPT_INITXCH, ROPT_REQXCH, ROPT_RESPXCH and ROPT_UPDXCH
 * operations, which travel as rdma_optinfo of an RDMA2_OPTIONAL message.
 *
 * Unknown characteristic ids are kept (id and data, in place) and flagged
 * unknown, never an error; known ones are validated (section 2.1): the data
 * length must be exact, a bool 0 or 1, an enum in range.
 */
#ifndef RPCRDMA_XCHAR_H
#define RPCRDMA_XCHAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Characteristic ids (xcharext section 3). */
#define RPCRDMA_XCHAR_RBSIZ	1u /**< Receive Buffer Size: uint32, default 4096 */
#define RPCRDMA_XCHAR_REQREMINV 2u /**< Requester Remote Invalidation: bool, default false */
#define RPCRDMA_XCHAR_BRS	3u /**< Backward Request Support: enum bkreqsup */

/** First and last experimental characteristic id (xcharext section 6.2). */
#define RPCRDMA_XCHAR_EXPERIMENTAL_FIRST 4294967040u
#define RPCRDMA_XCHAR_EXPERIMENTAL_LAST	 4294967295u

/** Defaults (xcharext section 3, table 1). */
#define RPCRDMA_XCHAR_RBSIZ_DEFAULT 4096u

/** enum bkreqsup (xcharext section 3.3). */
enum rpcrdma_bkreqsup {
	RPCRDMA_BKREQSUP_NONE = 0,   /**< backward requests not supported */
	RPCRDMA_BKREQSUP_INLINE = 1, /**< inline only (the default) */
	RPCRDMA_BKREQSUP_GENL = 2,   /**< with chunks, as forward requests */
};

/** Optional operation codes, the rdma_opttype values (xcharext section 4). */
enum rpcrdma_ropt {
	RPCRDMA_ROPT_INITXCH = 1,
	RPCRDMA_ROPT_REQXCH = 2,
	RPCRDMA_ROPT_RESPXCH = 3,
	RPCRDMA_ROPT_UPDXCH = 4,
};

/** Elements an xcharspec can hold; xcharsubset positions are below this. */
#define RPCRDMA_XCHAR_MAX 32

/** One characteristic value (struct xcharval). */
struct rpcrdma_xcharval {
	uint32_t which;	     /**< xchv_which: characteristic id */
	bool known;	     /**< which is one of RPCRDMA_XCHAR_*; value is valid */
	uint32_t value;	     /**< decoded value of a known id (bools as 0/1) */
	uint32_t len;	     /**< bytes of xchv_data */
	const uint8_t *data; /**< xchv_data in place (decode); for encode, used
			      *   only when the id is not known */
};

/** A set of characteristic values (xcharspec: xcharval<>). */
struct rpcrdma_xcharspec {
	uint32_t n;
	struct rpcrdma_xcharval vals[RPCRDMA_XCHAR_MAX];
};

/**
 * A subset of the elements of an xcharspec (xcharsubset: uint32<>): bit N
 * is element N. Words past the first are accepted by the decoder when
 * they are zero, as positions past RPCRDMA_XCHAR_MAX cannot name anything.
 */
struct rpcrdma_xcharsubset {
	uint32_t bits;
};

/** A decoded or to-be-encoded transport characteristics operation. */
struct rpcrdma_xchar_msg {
	uint32_t opttype; /**< enum rpcrdma_ropt */
	union {
		struct {
			struct rpcrdma_xcharspec start;	  /**< optixch_start */
			struct rpcrdma_xcharsubset nochg; /**< optixch_nochg */
		} initxch;
		struct {
			struct rpcrdma_xcharspec want; /**< optreqxch_want */
		} reqxch;
		struct {
			struct rpcrdma_xcharsubset done; /**< optrespxch_done */
			struct rpcrdma_xcharsubset rej;	 /**< optrespxch_rej */
			struct rpcrdma_xcharsubset pend; /**< optrespxch_pend */
		} respxch;
		struct {
			struct rpcrdma_xcharval now; /**< optupdxch_now */
			bool pendclr;		     /**< optupdxch_pendclr */
		} updxch;
	};
};

/**
 * Decode the rdma_optinfo of a transport characteristics operation.
 *
 * @param msg
 *   Output; data pointers refer into optinfo.
 * @param opttype
 *   rdma_opttype of the RDMA2_OPTIONAL message.
 * @param optinfo, len
 *   rdma_optinfo.
 * @return
 *   0, or a negative error:
 *   - -RPCRDMA_E_OPTTYPE: opttype is not ROPT_INITXCH..ROPT_UPDXCH.
 *   - -RPCRDMA_E_TRUNC: optinfo ends inside the body.
 *   - -RPCRDMA_E_OPAQUE: an xchv_data length runs past the end.
 *   - -RPCRDMA_E_XCHAR_LEN: a known characteristic's data is not 4 bytes.
 *   - -RPCRDMA_E_BOOL: REQREMINV or pendclr not 0 or 1.
 *   - -RPCRDMA_E_ENUM: BRS not a bkreqsup value.
 *   - -RPCRDMA_E_TOO_MANY_XCHARS: more than RPCRDMA_XCHAR_MAX values.
 *   - -RPCRDMA_E_SUBSET: a subset bit at position RPCRDMA_XCHAR_MAX or more.
 *   - -RPCRDMA_E_TRAILING: bytes left after the body.
 */
int rpcrdma_xchar_decode(struct rpcrdma_xchar_msg *msg, uint32_t opttype, const void *optinfo,
			 uint32_t len);

/**
 * Encode the rdma_optinfo of a transport characteristics operation.
 *
 * Known characteristics are written from value; unknown ones from
 * data/len. An empty subset is written as a zero-length array, any other
 * as one word.
 *
 * @return
 *   Bytes written, or -ENOSPC (buf too small; nothing claimed as written)
 *   or -EINVAL (unknown opttype, n > RPCRDMA_XCHAR_MAX, or an encoding
 *   longer than INT32_MAX bytes).
 */
int rpcrdma_xchar_encode(const struct rpcrdma_xchar_msg *msg, void *buf, uint32_t buflen);

/** The spec name of an ROPT_* opttype, or "UNKNOWN". */
const char *rpcrdma_ropt_name(uint32_t opttype);

/** The spec name of a characteristic id ("XCHAR_RBSIZ"), or "UNKNOWN". */
const char *rpcrdma_xchar_name(uint32_t which);

/** The spec name of a bkreqsup value, or "UNKNOWN". */
const char *rpcrdma_bkreqsup_name(uint32_t v);

/**
 * Format a decoded operation as one line for logs (no newline).
 *
 * @return
 *   As snprintf.
 */
int rpcrdma_xchar_format(const struct rpcrdma_xchar_msg *msg, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_XCHAR_H */
