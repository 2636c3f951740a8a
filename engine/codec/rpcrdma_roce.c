/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frames: Ethernet + IPv4 + UDP + BTH [+ RETH | IETH | AETH] +
 * payload + ICRC, built and parsed (InfiniBand Architecture Specification
 * volume 1 chapter 9 and annex A17, RoCEv2).
 *
 * Frame layout, in bytes:
 *
 *   Ethernet  14   dst(6) src(6) type(2)  [802.1Q tag 4, parse only]
 *   IPv4      20   ver/ihl tos totlen id flags/frag ttl proto csum src dst
 *   UDP        8   sport dport(4791) len csum(0)
 *   BTH       12   opcode  SE|M|pad(2)|tver(4)  pkey(2)  resv8a  destqp(3)
 *                  A|resv7  psn(3)
 *   RETH      16   va(8) rkey(4) dmalen(4)      RDMA_WRITE_ONLY, RDMA_READ_REQUEST
 *   AETH       4   syndrome msn(3)              RDMA_READ_RESPONSE_ONLY, ACKNOWLEDGE
 *   IETH       4   rkey(4)                      SEND_ONLY_WITH_INVALIDATE
 *   payload        padded with BTH PadCnt zero bytes to a multiple of 4
 *   ICRC       4   CRC-32, least significant byte first
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_roce.h>

#include "xdr.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_VLAN 0x8100
#define IPPROTO_UDP_   17
#define IPV4_DF	       0x4000
#define IPV4_MF	       0x2000
#define IPV4_FRAG_MASK 0x1fff
#define ROCE_TTL       64
#define ROCE_PKEY      0xffff

/* Bytes from the IPv4 header through the BTH: what the ICRC masks. */
#define ICRC_MASKED_LEN (RPCRDMA_ROCE_IPV4_LEN + RPCRDMA_ROCE_UDP_LEN + RPCRDMA_ROCE_BTH_LEN)

/* Offsets inside the IPv4 header, the UDP header and the BTH. */
#define IP_TOS	      1
#define IP_TOTLEN     2
#define IP_ID	      4
#define IP_FRAG	      6
#define IP_TTL	      8
#define IP_PROTO      9
#define IP_CSUM	      10
#define IP_SRC	      12
#define IP_DST	      16
#define UDP_SPORT     0
#define UDP_DPORT     2
#define UDP_LEN	      4
#define UDP_CSUM      6
#define BTH_OPCODE    0
#define BTH_FLAGS     1
#define BTH_PKEY      2
#define BTH_RESV8A    4
#define BTH_DESTQP    4 /* the low 24 bits of the word at 4 */
#define BTH_PSN	      8 /* the low 24 bits of the word at 8; A is bit 31 */
#define BTH_SE	      0x80
#define BTH_M	      0x40
#define BTH_PAD_SHIFT 4
#define BTH_PAD_MASK  0x3
#define BTH_TVER_MASK 0xf
#define BTH_A	      0x80000000u
#define MASK24	      0x00ffffffu

/* CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320), byte-wise table. */
static const uint32_t crc32_tab[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f, 0xe963a535,
	0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988, 0x09b64c2b, 0x7eb17cbd,
	0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2, 0xf3b97148, 0x84be41de, 0x1adad47d,
	0x6ddde4eb, 0xf4d4b551, 0x83d385c7, 0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec,
	0x14015c4f, 0x63066cd9, 0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4,
	0xa2677172, 0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59, 0x26d930ac,
	0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423, 0xcfba9599, 0xb8bda50f,
	0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924, 0x2f6f7c87, 0x58684c11, 0xc1611dab,
	0xb6662d3d, 0x76dc4190, 0x01db7106, 0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f,
	0x9fbfe4a5, 0xe8b8d433, 0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb,
	0x086d3d2d, 0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950, 0x8bbeb8ea,
	0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65, 0x4db26158, 0x3ab551ce,
	0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7, 0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a,
	0x346ed9fc, 0xad678846, 0xda60b8d0, 0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9,
	0x5005713c, 0x270241aa, 0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409,
	0xce61e49f, 0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a, 0xead54739,
	0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84, 0x0d6d6a3e, 0x7a6a5aa8,
	0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1, 0xf00f9344, 0x8708a3d2, 0x1e01f268,
	0x6906c2fe, 0xf762575d, 0x806567cb, 0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0,
	0x10da7a5a, 0x67dd4acc, 0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8,
	0xa1d1937e, 0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55, 0x316e8eef,
	0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236, 0xcc0c7795, 0xbb0b4703,
	0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28, 0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7,
	0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d, 0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a,
	0x9c0906a9, 0xeb0e363f, 0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae,
	0x0cb61b38, 0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777, 0x88085ae6,
	0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69, 0x616bffd3, 0x166ccf45,
	0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2, 0xa7672661, 0xd06016f7, 0x4969474d,
	0x3e6e77db, 0xaed16a4a, 0xd9d65adc, 0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5,
	0x47b2cf7f, 0x30b5ffe9, 0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605,
	0xcdd70693, 0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

/*
 * The codec's own CRC-32, a table looked up a byte at a time: libc only, for
 * the decoder and the tests. The capture tap passes zlib's to the _crc
 * functions below (rpcrdma_capture.h).
 */
uint32_t rpcrdma_roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc32_tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static inline uint16_t load16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void store16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* ---------------------------------------------------------------- opcodes */

bool rpcrdma_roce_opcode_valid(uint8_t opcode)
{
	switch (opcode) {
	case RPCRDMA_ROCE_SEND_ONLY:
	case RPCRDMA_ROCE_RDMA_WRITE_ONLY:
	case RPCRDMA_ROCE_RDMA_READ_REQUEST:
	case RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY:
	case RPCRDMA_ROCE_ACKNOWLEDGE:
	case RPCRDMA_ROCE_SEND_ONLY_INV:
		return true;
	default:
		return false;
	}
}

const char *rpcrdma_roce_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	case RPCRDMA_ROCE_SEND_ONLY:
		return "SEND_ONLY";
	case RPCRDMA_ROCE_RDMA_WRITE_ONLY:
		return "RDMA_WRITE_ONLY";
	case RPCRDMA_ROCE_RDMA_READ_REQUEST:
		return "RDMA_READ_REQUEST";
	case RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY:
		return "RDMA_READ_RESPONSE_ONLY";
	case RPCRDMA_ROCE_ACKNOWLEDGE:
		return "ACKNOWLEDGE";
	case RPCRDMA_ROCE_SEND_ONLY_INV:
		return "SEND_ONLY_WITH_INVALIDATE";
	default:
		return "UNKNOWN";
	}
}

/* Bytes of the extended transport header after the BTH (IBA 9.2.1 table 38). */
static uint32_t ext_len(uint8_t opcode)
{
	switch (opcode) {
	case RPCRDMA_ROCE_RDMA_WRITE_ONLY:
	case RPCRDMA_ROCE_RDMA_READ_REQUEST:
		return RPCRDMA_ROCE_RETH_LEN;
	case RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY:
	case RPCRDMA_ROCE_ACKNOWLEDGE:
		return RPCRDMA_ROCE_AETH_LEN;
	case RPCRDMA_ROCE_SEND_ONLY_INV:
		return RPCRDMA_ROCE_IETH_LEN;
	default:
		return 0;
	}
}

/* READ_REQUEST and ACKNOWLEDGE carry no payload. */
static bool has_payload(uint8_t opcode)
{
	return opcode != RPCRDMA_ROCE_RDMA_READ_REQUEST && opcode != RPCRDMA_ROCE_ACKNOWLEDGE;
}

/* ---------------------------------------------------------------- checksums */

uint16_t rpcrdma_roce_ipv4_csum(const void *ip, uint32_t len)
{
	const uint8_t *p = ip;
	uint32_t sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += load16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * RoCEv2 ICRC (annex A17.3.3): the IB ICRC computed as if the packet had an
 * LRH (masked: eight 0xff bytes) and a GRH, where the GRH is replaced by the
 * IP header. Variant fields are masked to all ones: IPv4 TOS (DSCP, ECN),
 * TTL and header checksum, the UDP checksum, and the BTH byte before DestQP
 * (FECN, BECN, resv6a). Linux rxe_icrc.c computes the same.
 */
uint32_t rpcrdma_roce_icrc_crc(const void *ip, uint32_t len, rpcrdma_roce_crc32_t crc32)
{
	static const uint8_t lrh_mask[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t masked[ICRC_MASKED_LEN];
	const uint8_t *p = ip;
	uint32_t crc;

	memcpy(masked, p, sizeof(masked));
	masked[IP_TOS] = 0xff;
	masked[IP_TTL] = 0xff;
	masked[IP_CSUM] = 0xff;
	masked[IP_CSUM + 1] = 0xff;
	masked[RPCRDMA_ROCE_IPV4_LEN + UDP_CSUM] = 0xff;
	masked[RPCRDMA_ROCE_IPV4_LEN + UDP_CSUM + 1] = 0xff;
	masked[RPCRDMA_ROCE_IPV4_LEN + RPCRDMA_ROCE_UDP_LEN + BTH_RESV8A] = 0xff;

	crc = crc32(0, lrh_mask, sizeof(lrh_mask));
	crc = crc32(crc, masked, sizeof(masked));
	return crc32(crc, p + sizeof(masked), len - sizeof(masked));
}

uint32_t rpcrdma_roce_icrc(const void *ip, uint32_t len)
{
	return rpcrdma_roce_icrc_crc(ip, len, rpcrdma_roce_crc32);
}

/* ---------------------------------------------------------------- build */

static uint32_t pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

int rpcrdma_roce_frame_len(const struct rpcrdma_roce_pkt *pkt)
{
	if (!rpcrdma_roce_opcode_valid(pkt->opcode))
		return -EINVAL;
	if (pkt->payload_len && !has_payload(pkt->opcode))
		return -EINVAL;
	if (pkt->payload_len > RPCRDMA_ROCE_PAYLOAD_MAX)
		return -EINVAL;
	return (int)(RPCRDMA_ROCE_ETH_LEN + ICRC_MASKED_LEN + ext_len(pkt->opcode) +
		     pad4(pkt->payload_len) + RPCRDMA_ROCE_ICRC_LEN);
}

/* dst src type */
static uint8_t *build_eth(uint8_t *p, const struct rpcrdma_roce_addr *addr)
{
	memcpy(p, addr->dst_mac, 6);
	memcpy(p + 6, addr->src_mac, 6);
	store16(p + 12, ETHERTYPE_IPV4);
	return p + RPCRDMA_ROCE_ETH_LEN;
}

/* 45 tos totlen id DF ttl 17 csum src dst */
static uint8_t *build_ipv4(uint8_t *p, const struct rpcrdma_roce_addr *addr, uint16_t totlen)
{
	p[0] = 0x45;
	p[IP_TOS] = addr->tos;
	store16(p + IP_TOTLEN, totlen);
	store16(p + IP_ID, addr->ip_id);
	store16(p + IP_FRAG, IPV4_DF);
	p[IP_TTL] = addr->ttl ? addr->ttl : ROCE_TTL;
	p[IP_PROTO] = IPPROTO_UDP_;
	store16(p + IP_CSUM, 0);
	xdr_store32(p + IP_SRC, addr->src_ip);
	xdr_store32(p + IP_DST, addr->dst_ip);
	store16(p + IP_CSUM, rpcrdma_roce_ipv4_csum(p, RPCRDMA_ROCE_IPV4_LEN));
	return p + RPCRDMA_ROCE_IPV4_LEN;
}

/* sport 4791 len 0 */
static uint8_t *build_udp(uint8_t *p, const struct rpcrdma_roce_addr *addr, uint16_t udplen)
{
	store16(p + UDP_SPORT, addr->src_port);
	store16(p + UDP_DPORT, RPCRDMA_ROCE_UDP_PORT);
	store16(p + UDP_LEN, udplen);
	store16(p + UDP_CSUM, 0);
	return p + RPCRDMA_ROCE_UDP_LEN;
}

/* opcode SE|M|pad|tver pkey resv8a destqp A|resv7 psn */
static uint8_t *build_bth(uint8_t *p, const struct rpcrdma_roce_pkt *pkt, uint32_t pad)
{
	p[BTH_OPCODE] = pkt->opcode;
	p[BTH_FLAGS] = (uint8_t)((pkt->solicited ? BTH_SE : 0) | pad << BTH_PAD_SHIFT);
	store16(p + BTH_PKEY, pkt->pkey ? pkt->pkey : ROCE_PKEY);
	xdr_store32(p + BTH_DESTQP, pkt->dest_qp & MASK24);
	xdr_store32(p + BTH_PSN, (pkt->ack_req ? BTH_A : 0) | (pkt->psn & MASK24));
	return p + RPCRDMA_ROCE_BTH_LEN;
}

/* RETH: va rkey dmalen; AETH: syndrome msn; IETH: rkey */
static uint8_t *build_ext(uint8_t *p, const struct rpcrdma_roce_pkt *pkt)
{
	switch (ext_len(pkt->opcode)) {
	case RPCRDMA_ROCE_RETH_LEN:
		xdr_store64(p, pkt->va);
		xdr_store32(p + 8, pkt->rkey);
		xdr_store32(p + 12, pkt->dma_len);
		return p + RPCRDMA_ROCE_RETH_LEN;
	case RPCRDMA_ROCE_AETH_LEN: /* also RPCRDMA_ROCE_IETH_LEN */
		if (pkt->opcode == RPCRDMA_ROCE_SEND_ONLY_INV)
			xdr_store32(p, pkt->inv_rkey);
		else
			xdr_store32(p, (uint32_t)pkt->syndrome << 24 | (pkt->msn & MASK24));
		return p + 4;
	default:
		return p;
	}
}

int rpcrdma_roce_build_crc(const struct rpcrdma_roce_addr *addr, const struct rpcrdma_roce_pkt *pkt,
			   void *buf, uint32_t buflen, rpcrdma_roce_crc32_t crc32)
{
	uint8_t *frame = buf, *ip, *p;
	uint32_t pad, iplen, icrc;
	int len;

	len = rpcrdma_roce_frame_len(pkt);
	if (len < 0)
		return len;
	if ((uint32_t)len > buflen)
		return -ENOSPC;
	pad = pad4(pkt->payload_len) - pkt->payload_len;
	iplen = (uint32_t)len - RPCRDMA_ROCE_ETH_LEN;

	ip = build_eth(frame, addr);
	p = build_ipv4(ip, addr, (uint16_t)iplen);
	p = build_udp(p, addr, (uint16_t)(iplen - RPCRDMA_ROCE_IPV4_LEN));
	p = build_bth(p, pkt, pad);
	p = build_ext(p, pkt);
	if (pkt->payload_len)
		memcpy(p, pkt->payload, pkt->payload_len);
	p += pkt->payload_len;
	memset(p, 0, pad);
	p += pad;
	icrc = rpcrdma_roce_icrc_crc(ip, (uint32_t)(p - ip), crc32);
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
	return len;
}

int rpcrdma_roce_build(const struct rpcrdma_roce_addr *addr, const struct rpcrdma_roce_pkt *pkt,
		       void *buf, uint32_t buflen)
{
	return rpcrdma_roce_build_crc(addr, pkt, buf, buflen, rpcrdma_roce_crc32);
}

/* ---------------------------------------------------------------- parse */

/*
 * Ethernet [802.1Q] type: returns the offset of the IPv4 header, or an error.
 */
static int parse_eth(const uint8_t *f, uint32_t len, struct rpcrdma_roce_addr *addr)
{
	uint32_t off = 12;
	uint16_t type;

	if (len < RPCRDMA_ROCE_ETH_LEN)
		return -RPCRDMA_E_ROCE_TRUNC;
	type = load16(f + off);
	if (type == ETHERTYPE_VLAN) {
		if (len < RPCRDMA_ROCE_ETH_LEN + RPCRDMA_ROCE_VLAN_LEN)
			return -RPCRDMA_E_ROCE_TRUNC;
		off += RPCRDMA_ROCE_VLAN_LEN;
		type = load16(f + off);
	}
	if (type != ETHERTYPE_IPV4)
		return -RPCRDMA_E_ROCE_NOT;
	if (addr) {
		memcpy(addr->dst_mac, f, 6);
		memcpy(addr->src_mac, f + 6, 6);
	}
	return (int)(off + 2);
}

/*
 * IPv4 header, then the UDP header behind it. Decides first whether this is
 * RoCEv2 at all (IPv4, UDP, destination port 4791: else ROCE_NOT, so that a
 * capture reader can skip other traffic), then whether it is well formed.
 * On success *iplen is the IPv4 total length.
 */
static int parse_ipv4_udp(const uint8_t *ip, uint32_t avail, uint32_t flags,
			  struct rpcrdma_roce_addr *addr, uint32_t *iplen)
{
	const uint8_t *udp;
	uint32_t ihl, totlen;
	uint16_t frag;

	if (avail < RPCRDMA_ROCE_IPV4_LEN)
		return -RPCRDMA_E_ROCE_TRUNC;
	if (ip[0] >> 4 != 4 || ip[IP_PROTO] != IPPROTO_UDP_)
		return -RPCRDMA_E_ROCE_NOT;
	frag = load16(ip + IP_FRAG);
	if (frag & IPV4_FRAG_MASK)
		return -RPCRDMA_E_ROCE_NOT; /* a later fragment has no UDP header */
	ihl = (ip[0] & 0xfu) * 4;
	if (ihl < RPCRDMA_ROCE_IPV4_LEN)
		return -RPCRDMA_E_ROCE_IP;
	if (avail < ihl + RPCRDMA_ROCE_UDP_LEN)
		return -RPCRDMA_E_ROCE_TRUNC;
	udp = ip + ihl;
	if (load16(udp + UDP_DPORT) != RPCRDMA_ROCE_UDP_PORT)
		return -RPCRDMA_E_ROCE_NOT;

	/* RoCEv2 from here on: the ICRC covers a 20-byte IPv4 header. */
	if (ihl != RPCRDMA_ROCE_IPV4_LEN || (frag & IPV4_MF))
		return -RPCRDMA_E_ROCE_IP;
	totlen = load16(ip + IP_TOTLEN);
	if (totlen < ICRC_MASKED_LEN + RPCRDMA_ROCE_ICRC_LEN)
		return -RPCRDMA_E_ROCE_IP;
	if (totlen > avail)
		return -RPCRDMA_E_ROCE_TRUNC;
	if (!(flags & RPCRDMA_ROCE_PARSE_NO_CSUM) &&
	    rpcrdma_roce_ipv4_csum(ip, RPCRDMA_ROCE_IPV4_LEN) != 0)
		return -RPCRDMA_E_ROCE_CSUM;
	if (load16(udp + UDP_LEN) != totlen - RPCRDMA_ROCE_IPV4_LEN)
		return -RPCRDMA_E_ROCE_UDP;
	if (addr) {
		addr->src_ip = xdr_load32(ip + IP_SRC);
		addr->dst_ip = xdr_load32(ip + IP_DST);
		addr->src_port = load16(udp + UDP_SPORT);
		addr->ip_id = load16(ip + IP_ID);
		addr->tos = ip[IP_TOS];
		addr->ttl = ip[IP_TTL];
	}
	*iplen = totlen;
	return 0;
}

/*
 * BTH, extended header, payload and pad, ICRC: the bytes after the UDP
 * header, rest bytes of them (ICRC included).
 */
static int parse_transport(struct rpcrdma_roce_pkt *pkt, const uint8_t *bth, uint32_t rest)
{
	const uint8_t *ext = bth + RPCRDMA_ROCE_BTH_LEN;
	uint32_t xlen, body, pad, w;

	/* The caller checked rest >= BTH + ICRC. */
	pkt->opcode = bth[BTH_OPCODE];
	if (!rpcrdma_roce_opcode_valid(pkt->opcode) || (bth[BTH_FLAGS] & BTH_TVER_MASK) != 0)
		return -RPCRDMA_E_ROCE_BTH;
	pkt->solicited = bth[BTH_FLAGS] & BTH_SE;
	pad = (bth[BTH_FLAGS] >> BTH_PAD_SHIFT) & BTH_PAD_MASK;
	pkt->pkey = load16(bth + BTH_PKEY);
	pkt->dest_qp = xdr_load32(bth + BTH_DESTQP) & MASK24;
	w = xdr_load32(bth + BTH_PSN);
	pkt->ack_req = w & BTH_A;
	pkt->psn = w & MASK24;

	xlen = ext_len(pkt->opcode);
	if (rest < RPCRDMA_ROCE_BTH_LEN + xlen + RPCRDMA_ROCE_ICRC_LEN)
		return -RPCRDMA_E_ROCE_TRUNC;
	body = rest - RPCRDMA_ROCE_BTH_LEN - xlen - RPCRDMA_ROCE_ICRC_LEN;
	pkt->va = 0;
	pkt->rkey = 0;
	pkt->dma_len = 0;
	pkt->inv_rkey = 0;
	pkt->syndrome = 0;
	pkt->msn = 0;
	if (xlen == RPCRDMA_ROCE_RETH_LEN) {
		pkt->va = xdr_load64(ext);
		pkt->rkey = xdr_load32(ext + 8);
		pkt->dma_len = xdr_load32(ext + 12);
	} else if (pkt->opcode == RPCRDMA_ROCE_SEND_ONLY_INV) {
		pkt->inv_rkey = xdr_load32(ext);
	} else if (xlen == RPCRDMA_ROCE_AETH_LEN) {
		w = xdr_load32(ext);
		pkt->syndrome = (uint8_t)(w >> 24);
		pkt->msn = w & MASK24;
	}
	if (pad > body || (body && !has_payload(pkt->opcode)))
		return -RPCRDMA_E_ROCE_BTH;
	pkt->payload = ext + xlen;
	pkt->payload_len = body - pad;
	return 0;
}

int rpcrdma_roce_parse(struct rpcrdma_roce_pkt *pkt, struct rpcrdma_roce_addr *addr,
		       const void *frame, uint32_t len, uint32_t flags)
{
	return rpcrdma_roce_parse_crc(pkt, addr, frame, len, flags, rpcrdma_roce_crc32);
}

int rpcrdma_roce_parse_crc(struct rpcrdma_roce_pkt *pkt, struct rpcrdma_roce_addr *addr,
			   const void *frame, uint32_t len, uint32_t flags,
			   rpcrdma_roce_crc32_t crc32)
{
	const uint8_t *f = frame, *ip, *icrcp;
	uint32_t iplen, icrc;
	int off, ret;

	off = parse_eth(f, len, addr);
	if (off < 0)
		return off;
	ip = f + off;
	ret = parse_ipv4_udp(ip, len - (uint32_t)off, flags, addr, &iplen);
	if (ret)
		return ret;
	ret = parse_transport(pkt, ip + RPCRDMA_ROCE_IPV4_LEN + RPCRDMA_ROCE_UDP_LEN,
			      iplen - RPCRDMA_ROCE_IPV4_LEN - RPCRDMA_ROCE_UDP_LEN);
	if (ret)
		return ret;
	if (!(flags & RPCRDMA_ROCE_PARSE_NO_ICRC)) {
		icrcp = ip + iplen - RPCRDMA_ROCE_ICRC_LEN;
		icrc = (uint32_t)icrcp[0] | (uint32_t)icrcp[1] << 8 | (uint32_t)icrcp[2] << 16 |
		       (uint32_t)icrcp[3] << 24;
		if (rpcrdma_roce_icrc_crc(ip, iplen - RPCRDMA_ROCE_ICRC_LEN, crc32) != icrc)
			return -RPCRDMA_E_ROCE_ICRC;
	}
	return 0;
}
