/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rpcrdma error numbers.
 *
 * Every function returns 0, a count, or a negative error number. Error
 * numbers below RPCRDMA_ERRNO_BASE are errno values; the codec's own
 * reasons why a message is malformed extend that space from
 * RPCRDMA_ERRNO_BASE up, as DPDK extends errno from RTE_MIN_ERRNO. Each
 * names one way a message can be bad, so the engine can choose the
 * protocol reply (ERR_VERS, ERR_CHUNK, RDMA2_ERR_BAD_HEADER,
 * RDMA2_ERR_INVAL_OPTION, GARBAGE_ARGS, ...) and count it.
 */
#ifndef RPCRDMA_ERRNO_H
#define RPCRDMA_ERRNO_H

#ifdef __cplusplus
extern "C" {
#endif

/** First rpcrdma-specific error number; well above every errno value. */
#define RPCRDMA_ERRNO_BASE 2000

/** Ways a message from the wire can be malformed (returned negated). */
enum rpcrdma_errno {
	/** The buffer ends before the header does. */
	RPCRDMA_E_TRUNC = RPCRDMA_ERRNO_BASE,
	/** rdma_vers is neither 1 nor 2 (answer ERR_VERS). */
	RPCRDMA_E_VERS,
	/** rdma_proc is not defined for this version. */
	RPCRDMA_E_PROC,
	/** More read segments than the decode capacity. */
	RPCRDMA_E_TOO_MANY_READS,
	/** More write chunks than the decode capacity. */
	RPCRDMA_E_TOO_MANY_WRITES,
	/** A write or reply chunk with more segments than the capacity. */
	RPCRDMA_E_TOO_MANY_SEGS,
	/** A read segment whose XDR position is not a multiple of 4. */
	RPCRDMA_E_POSITION,
	/** An XDR bool or optional-data discriminator that is not 0 or 1. */
	RPCRDMA_E_BOOL,
	/** An enum value out of its range (direction, error code, msg_type, ...). */
	RPCRDMA_E_ENUM,
	/** An opaque or string whose length runs past the end of the buffer. */
	RPCRDMA_E_OPAQUE,
	/** An opaque longer than its XDR bound (auth body > 400, name > 255). */
	RPCRDMA_E_OPAQUE_BOUND,
	/** AUTH_SYS gids<16> with more than 16 entries. */
	RPCRDMA_E_GIDS,
	/** A credential or verifier body whose length disagrees with its contents. */
	RPCRDMA_E_AUTH_LEN,
	/** RPC version in a call is not 2 (answer RPC_MISMATCH). */
	RPCRDMA_E_RPCVERS,
	/** A transport characteristic value whose data length is not exact. */
	RPCRDMA_E_XCHAR_LEN,
	/** More transport characteristics in an xcharspec than the capacity. */
	RPCRDMA_E_TOO_MANY_XCHARS,
	/** An xcharsubset names an element beyond the capacity. */
	RPCRDMA_E_SUBSET,
	/** Bytes left over where the XDR type must end exactly (optinfo). */
	RPCRDMA_E_TRAILING,
	/** rdma_opttype is not a known transport characteristics operation. */
	RPCRDMA_E_OPTTYPE,
	/** A frame ends inside a header, or before its IPv4 total length. */
	RPCRDMA_E_ROCE_TRUNC,
	/** Not a RoCEv2 frame: not Ethernet + IPv4 + UDP to port 4791. */
	RPCRDMA_E_ROCE_NOT,
	/** IPv4 header with options, a fragment, or lengths that disagree. */
	RPCRDMA_E_ROCE_IP,
	/** The IPv4 header checksum does not verify. */
	RPCRDMA_E_ROCE_CSUM,
	/** The UDP length disagrees with the IPv4 total length. */
	RPCRDMA_E_ROCE_UDP,
	/** A BTH opcode this codec does not parse, or a bad BTH version or pad count. */
	RPCRDMA_E_ROCE_BTH,
	/** The RoCEv2 invariant CRC does not verify. */
	RPCRDMA_E_ROCE_ICRC,
	/** A read chunk position out of order, unaligned, or outside the message (ERR_CHUNK). */
	RPCRDMA_E_CHUNK_POS,
	/** A chunk of length zero, too long, or disagreeing with its XDR length word. */
	RPCRDMA_E_CHUNK_LEN,
	/**
	 * RDMA_NOMSG without the chunk that carries the message, or with inline
	 * data; or a position-zero read chunk in RDMA_MSG (ERR_CHUNK).
	 */
	RPCRDMA_E_NOMSG,
	/** A reply's chunk lists disagree with the chunks its call offered. */
	RPCRDMA_E_CHUNK_OFFER,
	/** An XDR stream (RPC message) ends before the item being decoded. */
	RPCRDMA_E_XDR_END,
	/** A file name longer than the decoder's bound (NFSv3 filename3 over 255 bytes). */
	RPCRDMA_E_NAME_LEN,
	/** A counted array longer than the decoder's capacity (MOUNT auth_flavors over 16). */
	RPCRDMA_E_ARRAY,
	/** One past the last rpcrdma error number. */
	RPCRDMA_E_MAX,
};

/** One past the last error number of the wire codecs (hdr, xchar, rpc). */
#define RPCRDMA_E_CODEC_MAX (RPCRDMA_E_OPTTYPE + 1)

/**
 * A short description of an error number, errno or rpcrdma.
 *
 * @param err
 *   An error number, negative (as returned) or positive.
 * @return
 *   A static string; never NULL.
 */
const char *rpcrdma_strerror(int err);

/**
 * The stable identifier of an rpcrdma error ("TRUNC", "POSITION", ...),
 * used in JSON output and counters.
 *
 * @param err
 *   An error number, negative or positive.
 * @return
 *   A static string; "ERRNO" for errno values.
 */
const char *rpcrdma_errname(int err);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_ERRNO_H */
