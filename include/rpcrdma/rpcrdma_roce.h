/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RoCEv2 frames: build and parse Ethernet + IPv4 + UDP (port 4791) +
 * InfiniBand BTH [+ RETH | IETH | AETH] + payload + ICRC, for the
 * Reliable Connection opcodes RPC-over-RDMA uses: SEND_ONLY,
 * SEND_ONLY_WITH_INVALIDATE, RDMA_WRITE_ONLY, RDMA_READ_REQUEST,
 * RDMA_READ_RESPONSE_ONLY and ACKNOWLEDGE.
 *
 * The frames are what a capture of the wire would hold, so that the engine
 * can record its Sends, Receives, RDMA Reads and RDMA Writes in pcap files
 * that Wireshark reads. Layouts: InfiniBand Architecture Specification
 * volume 1, section 9.2 (BTH), 9.3 (RETH, AETH, IETH), 7.8 (ICRC), and the
 * RoCEv2 annex A17 (UDP encapsulation, ICRC over the masked IP and UDP
 * headers). The IPv4 header checksum and the ICRC are real.
 *
 * No dependency beyond libc; all functions are thread-safe. The parser
 * never reads outside [frame, frame + len). The codec's CRC-32 goes a byte
 * at a time; a caller with a faster one (zlib's crc32, as the capture tap
 * does) passes it to the _crc variants of build and ICRC.
 */
#ifndef RPCRDMA_ROCE_H
#define RPCRDMA_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2 (IANA "roce"). */
#define RPCRDMA_ROCE_UDP_PORT 4791

/** Header sizes in bytes. */
#define RPCRDMA_ROCE_ETH_LEN  14
#define RPCRDMA_ROCE_VLAN_LEN 4 /**< one 802.1Q tag; parsed, never built */
#define RPCRDMA_ROCE_IPV4_LEN 20
#define RPCRDMA_ROCE_UDP_LEN  8
#define RPCRDMA_ROCE_BTH_LEN  12
#define RPCRDMA_ROCE_RETH_LEN 16
#define RPCRDMA_ROCE_AETH_LEN 4
#define RPCRDMA_ROCE_IETH_LEN 4
#define RPCRDMA_ROCE_ICRC_LEN 4

/**
 * Largest payload one frame carries here, for every opcode: the IPv4 total
 * length (65535) bounds the headers, the RETH, the payload with its pad,
 * and the ICRC.
 */
#define RPCRDMA_ROCE_PAYLOAD_MAX                                                        \
	((65535 - RPCRDMA_ROCE_IPV4_LEN - RPCRDMA_ROCE_UDP_LEN - RPCRDMA_ROCE_BTH_LEN - \
	  RPCRDMA_ROCE_RETH_LEN - RPCRDMA_ROCE_ICRC_LEN) &                              \
	 ~3)

/** BTH opcodes of the Reliable Connection transport (IBA 9.2.1, table 38). */
enum rpcrdma_roce_opcode {
	RPCRDMA_ROCE_SEND_ONLY = 0x04,		     /**< payload */
	RPCRDMA_ROCE_RDMA_WRITE_ONLY = 0x0a,	     /**< RETH, payload */
	RPCRDMA_ROCE_RDMA_READ_REQUEST = 0x0c,	     /**< RETH, no payload */
	RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY = 0x10, /**< AETH, payload */
	RPCRDMA_ROCE_ACKNOWLEDGE = 0x11,	     /**< AETH, no payload */
	RPCRDMA_ROCE_SEND_ONLY_INV = 0x17,	     /**< IETH, payload */
};

/** The addressing of a frame: Ethernet, IPv4 and UDP fields, host order. */
struct rpcrdma_roce_addr {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip;   /**< IPv4 source address */
	uint32_t dst_ip;   /**< IPv4 destination address */
	uint16_t src_port; /**< UDP source port (flow entropy); the destination is 4791 */
	uint16_t ip_id;	   /**< IPv4 identification */
	uint8_t tos;	   /**< DSCP and ECN */
	uint8_t ttl;	   /**< time to live; build writes 64 when 0 */
};

/** The InfiniBand transport part of a frame, host order. */
struct rpcrdma_roce_pkt {
	uint8_t opcode;		/**< enum rpcrdma_roce_opcode */
	bool solicited;		/**< BTH SE */
	bool ack_req;		/**< BTH A */
	uint16_t pkey;		/**< BTH P_Key; build writes 0xffff when 0 */
	uint32_t dest_qp;	/**< BTH DestQP, 24 bits */
	uint32_t psn;		/**< BTH PSN, 24 bits */
	uint64_t va;		/**< RETH virtual address (WRITE_ONLY, READ_REQUEST) */
	uint32_t rkey;		/**< RETH R_Key (WRITE_ONLY, READ_REQUEST) */
	uint32_t dma_len;	/**< RETH DMA length (WRITE_ONLY, READ_REQUEST) */
	uint32_t inv_rkey;	/**< IETH R_Key to invalidate (SEND_ONLY_INV) */
	uint8_t syndrome;	/**< AETH syndrome (READ_RESPONSE_ONLY, ACKNOWLEDGE) */
	uint32_t msn;		/**< AETH MSN, 24 bits */
	uint32_t payload_len;	/**< bytes of payload, without the BTH pad */
	const uint8_t *payload; /**< build: the bytes to send; parse: in place in the frame */
};

/**
 * Whether the codec builds and parses an opcode.
 *
 * @return
 *   True for the values of enum rpcrdma_roce_opcode.
 */
bool rpcrdma_roce_opcode_valid(uint8_t opcode);

/** The IBA name of an opcode ("SEND_ONLY", ...), or "UNKNOWN". */
const char *rpcrdma_roce_opcode_name(uint8_t opcode);

/**
 * Bytes rpcrdma_roce_build() writes for a packet.
 *
 * @return
 *   The frame length, or -EINVAL: unknown opcode, a payload on an opcode
 *   that carries none, or payload_len over RPCRDMA_ROCE_PAYLOAD_MAX.
 */
int rpcrdma_roce_frame_len(const struct rpcrdma_roce_pkt *pkt);

/**
 * Build a RoCEv2 frame: Ethernet, IPv4 (with its header checksum), UDP to
 * port 4791 (checksum 0, as RoCEv2 allows), BTH, the extended header the
 * opcode needs, the payload padded to 4 bytes (BTH PadCnt), and the ICRC.
 * The frame is not padded to the 60-byte Ethernet minimum.
 *
 * @param addr
 *   Ethernet, IPv4 and UDP fields.
 * @param pkt
 *   Transport fields and payload. dest_qp, psn and msn are taken modulo 2^24.
 * @param buf, buflen
 *   Destination.
 * @return
 *   Bytes written, or:
 *   - -EINVAL: as rpcrdma_roce_frame_len(); nothing written.
 *   - -ENOSPC: buf too small; nothing claimed as written.
 */
int rpcrdma_roce_build(const struct rpcrdma_roce_addr *addr, const struct rpcrdma_roce_pkt *pkt,
		       void *buf, uint32_t buflen);

/**
 * A CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320) with zlib's crc32()
 * contract: @p crc is 0 to start, or what the previous call returned; the
 * result is the CRC of all the bytes so far, pre- and post-inverted.
 */
typedef uint32_t (*rpcrdma_roce_crc32_t)(uint32_t crc, const void *buf, size_t len);

/** The codec's CRC-32 (an rpcrdma_roce_crc32_t): a table, one byte at a time. */
uint32_t rpcrdma_roce_crc32(uint32_t crc, const void *buf, size_t len);

/**
 * rpcrdma_roce_build() with the ICRC computed by @p crc32 (for example
 * zlib's crc32_z); the same bytes for every correct CRC-32. Returns and
 * errors as rpcrdma_roce_build().
 */
int rpcrdma_roce_build_crc(const struct rpcrdma_roce_addr *addr, const struct rpcrdma_roce_pkt *pkt,
			   void *buf, uint32_t buflen, rpcrdma_roce_crc32_t crc32);

/** Flags of rpcrdma_roce_parse(). */
#define RPCRDMA_ROCE_PARSE_NO_ICRC (1u << 0) /**< do not verify the ICRC */
#define RPCRDMA_ROCE_PARSE_NO_CSUM (1u << 1) /**< do not verify the IPv4 checksum */

/**
 * Parse a RoCEv2 frame. One 802.1Q VLAN tag is accepted; bytes after the
 * IPv4 total length (Ethernet padding) are ignored.
 *
 * @param pkt
 *   Output; payload points into frame.
 * @param addr
 *   Output, or NULL.
 * @param frame, len
 *   The frame from the Ethernet header on, without FCS.
 * @param flags
 *   RPCRDMA_ROCE_PARSE_* flags.
 * @return
 *   0, or a negative error (pkt and addr are then unspecified):
 *   - -RPCRDMA_E_ROCE_NOT: not Ethernet + IPv4 + UDP to port 4791.
 *   - -RPCRDMA_E_ROCE_TRUNC: the frame ends inside a header or before the
 *     IPv4 total length.
 *   - -RPCRDMA_E_ROCE_IP: IPv4 options, a fragment, or a total length too
 *     short for the headers.
 *   - -RPCRDMA_E_ROCE_CSUM: the IPv4 header checksum does not verify.
 *   - -RPCRDMA_E_ROCE_UDP: the UDP length is not the IPv4 payload length.
 *   - -RPCRDMA_E_ROCE_BTH: an opcode the codec does not parse, a BTH
 *     transport version other than 0, a pad count larger than the payload,
 *     or a payload on an opcode that carries none.
 *   - -RPCRDMA_E_ROCE_ICRC: the ICRC does not verify.
 */
int rpcrdma_roce_parse(struct rpcrdma_roce_pkt *pkt, struct rpcrdma_roce_addr *addr,
		       const void *frame, uint32_t len, uint32_t flags);

/**
 * rpcrdma_roce_parse() with the ICRC computed by @p crc32 (zlib's crc32_z
 * in a program that links zlib: several times faster than the codec's).
 */
int rpcrdma_roce_parse_crc(struct rpcrdma_roce_pkt *pkt, struct rpcrdma_roce_addr *addr,
			   const void *frame, uint32_t len, uint32_t flags,
			   rpcrdma_roce_crc32_t crc32);

/**
 * The RoCEv2 ICRC of a frame as built by rpcrdma_roce_build(): CRC-32 over
 * eight 0xff bytes (the masked LRH), the IPv4 header with TOS, TTL and
 * checksum set to all ones, the UDP header with its checksum set to all
 * ones, the BTH with its reserved byte before DestQP set to all ones, and
 * everything after the BTH up to the ICRC.
 *
 * @param ip
 *   The IPv4 header (20 bytes, no options), followed by UDP, BTH and the
 *   rest of the packet.
 * @param len
 *   Bytes from ip to the ICRC, excluding the ICRC; at least 40.
 * @return
 *   The ICRC as a number; the wire carries it least significant byte first.
 */
uint32_t rpcrdma_roce_icrc(const void *ip, uint32_t len);

/** rpcrdma_roce_icrc() computed with @p crc32. */
uint32_t rpcrdma_roce_icrc_crc(const void *ip, uint32_t len, rpcrdma_roce_crc32_t crc32);

/**
 * The IPv4 header checksum (RFC 791, RFC 1071) of a header whose checksum
 * field is zero, or the sum of a correct header, which is 0.
 */
uint16_t rpcrdma_roce_ipv4_csum(const void *ip, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_ROCE_H */
