/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frame codec: known-answer frames, build/parse round trips for
 * every opcode, the ICRC masking rules, and every parse error; the codec's
 * CRC-32 against its check value and zlib's, and frames built with zlib's
 * CRC-32 (as the capture tap builds them) against the codec's.
 *
 * The two known-answer frames were checked byte for byte against Scapy
 * 2.5's independent RoCEv2 implementation (scapy.contrib.roce, which
 * computes the ICRC and the IPv4 checksum itself): rebuilding them there
 * with both checksums cleared gives the same bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_roce.h>

#include <stdio.h>
#include <zlib.h>

#include "test_check.h"

/* SEND_ONLY, QP 0x123456, PSN 0xabcdef, A, 37-byte payload i*7 (pad 3). */
static const char kat_send[] =
	"02000000000202000000000108004568005400074000401126280a0000010a000002c00012b7"
	"004000000430ffff0012345680abcdef00070e151c232a31383f464d545b626970777e858c93"
	"9aa1a8afb6bdc4cbd2d9e0e7eef5fc00000055638df8";
/* RDMA_READ_REQUEST, RETH va 0x1122334455667788 rkey 0xdeadbeef len 4096. */
static const char kat_read[] =
	"02000000000202000000000108004568003c00074000401126400a0000010a000002c00012b7"
	"002800000c00ffff0012345680abcdef1122334455667788deadbeef0000100008158296";

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2) {
		char b[3] = { s[0], s[1], 0 };

		out[n++] = (uint8_t)strtoul(b, NULL, 16);
	}
	return n;
}

static const struct rpcrdma_roce_addr kat_addr = {
	.dst_mac = { 2, 0, 0, 0, 0, 2 },
	.src_mac = { 2, 0, 0, 0, 0, 1 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 0xc000,
	.ip_id = 7,
	.tos = 0x68,
	.ttl = 64,
};

static uint8_t payload[4096];

static struct rpcrdma_roce_pkt kat_pkt(uint8_t opcode, uint32_t payload_len)
{
	struct rpcrdma_roce_pkt p = {
		.opcode = opcode,
		.dest_qp = 0x123456,
		.psn = 0xabcdef,
		.ack_req = true,
		.va = 0x1122334455667788ull,
		.rkey = 0xdeadbeef,
		.dma_len = 4096,
		.inv_rkey = 0xcafef00d,
		.syndrome = 0x1f,
		.msn = 0x42,
		.payload = payload,
		.payload_len = payload_len,
	};
	return p;
}

static void test_known_answers(void)
{
	uint8_t want[256], got[256];
	struct rpcrdma_roce_pkt p;
	size_t n;
	int len;

	for (n = 0; n < 37; n++)
		payload[n] = (uint8_t)(n * 7);
	n = unhex(kat_send, want);
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 37);
	len = rpcrdma_roce_build(&kat_addr, &p, got, sizeof(got));
	CHECK_EQ(len, n);
	CHECK(memcmp(got, want, n) == 0);

	n = unhex(kat_read, want);
	p = kat_pkt(RPCRDMA_ROCE_RDMA_READ_REQUEST, 0);
	len = rpcrdma_roce_build(&kat_addr, &p, got, sizeof(got));
	CHECK_EQ(len, n);
	CHECK(memcmp(got, want, n) == 0);
	/* The ICRC is carried least significant byte first. */
	CHECK_EQ(rpcrdma_roce_icrc(got + 14, (uint32_t)n - 18), 0x96821508);
}

/* Build, check the fixed bytes, parse, and compare every field. */
static void roundtrip(uint8_t opcode, uint32_t plen)
{
	struct rpcrdma_roce_pkt p = kat_pkt(opcode, plen), q;
	struct rpcrdma_roce_addr a;
	static uint8_t f[8192];
	int len, ret;

	len = rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f));
	CHECK_EQ(len, rpcrdma_roce_frame_len(&p));
	if (len < 0)
		return;
	CHECK_EQ(f[12] << 8 | f[13], 0x0800);
	CHECK_EQ(f[14], 0x45);
	CHECK_EQ(f[16] << 8 | f[17], len - 14);
	CHECK_EQ(rpcrdma_roce_ipv4_csum(f + 14, 20), 0);
	CHECK_EQ(f[36] << 8 | f[37], 4791);
	CHECK_EQ(f[42], opcode);
	CHECK_EQ((f[43] >> 4) & 3, (4 - plen % 4) % 4);

	memset(&q, 0xa5, sizeof(q));
	ret = rpcrdma_roce_parse(&q, &a, f, (uint32_t)len, 0);
	CHECK_EQ(ret, 0);
	CHECK_EQ(q.opcode, opcode);
	CHECK_EQ(q.dest_qp, 0x123456);
	CHECK_EQ(q.psn, 0xabcdef);
	CHECK(q.ack_req);
	CHECK(!q.solicited);
	CHECK_EQ(q.pkey, 0xffff);
	CHECK_EQ(q.payload_len, plen);
	CHECK(q.payload == f + len - 4 - ((plen + 3) & ~3u));
	CHECK(plen == 0 || memcmp(q.payload, payload, plen) == 0);
	if (opcode == RPCRDMA_ROCE_RDMA_WRITE_ONLY || opcode == RPCRDMA_ROCE_RDMA_READ_REQUEST) {
		CHECK(q.va == 0x1122334455667788ull);
		CHECK_EQ(q.rkey, 0xdeadbeef);
		CHECK_EQ(q.dma_len, 4096);
	} else {
		CHECK(q.va == 0 && q.rkey == 0 && q.dma_len == 0);
	}
	CHECK_EQ(q.inv_rkey, opcode == RPCRDMA_ROCE_SEND_ONLY_INV ? 0xcafef00d : 0);
	if (opcode == RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY || opcode == RPCRDMA_ROCE_ACKNOWLEDGE) {
		CHECK_EQ(q.syndrome, 0x1f);
		CHECK_EQ(q.msn, 0x42);
	} else {
		CHECK(q.syndrome == 0 && q.msn == 0);
	}
	CHECK(memcmp(a.dst_mac, kat_addr.dst_mac, 6) == 0);
	CHECK(memcmp(a.src_mac, kat_addr.src_mac, 6) == 0);
	CHECK_EQ(a.src_ip, kat_addr.src_ip);
	CHECK_EQ(a.dst_ip, kat_addr.dst_ip);
	CHECK_EQ(a.src_port, kat_addr.src_port);
	CHECK_EQ(a.ip_id, 7);
	CHECK_EQ(a.tos, 0x68);
	CHECK_EQ(a.ttl, 64);
}

static void test_roundtrips(void)
{
	static const uint8_t with_payload[] = { RPCRDMA_ROCE_SEND_ONLY, RPCRDMA_ROCE_SEND_ONLY_INV,
						RPCRDMA_ROCE_RDMA_WRITE_ONLY,
						RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY };
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 28, 1023, 4096 };
	size_t i, j;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13 + 1);
	for (i = 0; i < sizeof(with_payload); i++)
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
			roundtrip(with_payload[i], lens[j]);
	roundtrip(RPCRDMA_ROCE_RDMA_READ_REQUEST, 0);
	roundtrip(RPCRDMA_ROCE_ACKNOWLEDGE, 0);
}

static void test_build_errors(void)
{
	struct rpcrdma_roce_pkt p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 8);
	uint8_t f[128];

	CHECK_EQ(rpcrdma_roce_build(&kat_addr, &p, f, 14 + 20 + 8 + 12 + 8 + 4 - 1), -ENOSPC);
	CHECK_EQ(rpcrdma_roce_build(&kat_addr, &p, f, 14 + 20 + 8 + 12 + 8 + 4), 66);
	p.opcode = 0x00; /* SEND_FIRST: not built */
	CHECK_EQ(rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f)), -EINVAL);
	p = kat_pkt(RPCRDMA_ROCE_RDMA_READ_REQUEST, 4);
	CHECK_EQ(rpcrdma_roce_frame_len(&p), -EINVAL);
	p = kat_pkt(RPCRDMA_ROCE_ACKNOWLEDGE, 4);
	CHECK_EQ(rpcrdma_roce_frame_len(&p), -EINVAL);
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, RPCRDMA_ROCE_PAYLOAD_MAX + 1);
	CHECK_EQ(rpcrdma_roce_frame_len(&p), -EINVAL);
	p = kat_pkt(RPCRDMA_ROCE_RDMA_WRITE_ONLY, RPCRDMA_ROCE_PAYLOAD_MAX);
	CHECK_EQ(rpcrdma_roce_frame_len(&p), 14 + 65535 - 3);

	CHECK(!rpcrdma_roce_opcode_valid(0x05));
	CHECK(strcmp(rpcrdma_roce_opcode_name(0x17), "SEND_ONLY_WITH_INVALIDATE") == 0);
	CHECK(strcmp(rpcrdma_roce_opcode_name(0x05), "UNKNOWN") == 0);
}

/* Fix the IPv4 checksum after an edit, so that a later check is reached. */
static void fix_csum(uint8_t *f)
{
	uint16_t c;

	f[24] = f[25] = 0;
	c = rpcrdma_roce_ipv4_csum(f + 14, 20);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
}

/* Recompute the ICRC after an edit. */
static void fix_icrc(uint8_t *f, uint32_t len)
{
	uint32_t c = rpcrdma_roce_icrc(f + 14, len - 18);

	f[len - 4] = (uint8_t)c;
	f[len - 3] = (uint8_t)(c >> 8);
	f[len - 2] = (uint8_t)(c >> 16);
	f[len - 1] = (uint8_t)(c >> 24);
}

static int parse(const uint8_t *f, uint32_t len, uint32_t flags)
{
	struct rpcrdma_roce_pkt q;

	return rpcrdma_roce_parse(&q, NULL, f, len, flags);
}

/*
 * The fields the ICRC masks (TOS, TTL, IPv4 checksum, UDP checksum, BTH
 * resv8a: what routers and ECN change) do not change it; any other does.
 */
static void test_icrc_masking(void)
{
	struct rpcrdma_roce_pkt p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 37);
	uint8_t f[128], g[128];
	uint32_t len, i;

	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f));
	memcpy(g, f, len);
	g[15] = 0x03; /* TOS: ECN congestion experienced */
	g[22] = 1;    /* TTL */
	fix_csum(g);  /* the checksum changes too */
	g[40] = 0x12; /* UDP checksum */
	g[41] = 0x34;
	g[46] = 0xc0; /* BTH FECN, BECN */
	CHECK_EQ(parse(g, len, 0), 0);

	/* Every other byte from the IPv4 header on is covered. */
	for (i = 14; i < len - 4; i++) {
		if (i == 15 || i == 22 || i == 24 || i == 25 || i == 40 || i == 41 || i == 46)
			continue;
		memcpy(g, f, len);
		g[i] ^= 0x01;
		if (i < 34)
			fix_csum(g);
		/* Some flips make the frame invalid before the ICRC is checked. */
		if (parse(g, len, RPCRDMA_ROCE_PARSE_NO_ICRC) != 0)
			continue;
		CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_ICRC);
	}
	memcpy(g, f, len);
	g[len - 1] ^= 0x80;
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_ICRC);
	CHECK_EQ(parse(g, len, RPCRDMA_ROCE_PARSE_NO_ICRC), 0);
}

static void test_parse_errors(void)
{
	struct rpcrdma_roce_pkt p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 8), q;
	uint8_t f[256], g[256];
	uint32_t len, i;
	int ret;

	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f));
	CHECK_EQ(len, 66);

	/* Every truncation fails, with the error of the first missing header. */
	for (i = 0; i < len; i++) {
		ret = parse(f, i, 0);
		CHECK_EQ(ret, -RPCRDMA_E_ROCE_TRUNC);
	}

	memcpy(g, f, len);
	g[12] = 0x86; /* IPv6 ethertype */
	g[13] = 0xdd;
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_NOT);
	memcpy(g, f, len);
	g[14] = 0x65; /* IP version 6 */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_NOT);
	memcpy(g, f, len);
	g[23] = 6; /* TCP */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_NOT);
	memcpy(g, f, len);
	g[37] = 0xb8; /* UDP port 4792 */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_NOT);
	memcpy(g, f, len);
	g[21] = 1; /* a later fragment */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_NOT);

	/* IHL 6: four bytes of options (NOPs) before the UDP header. */
	memcpy(g, f, 34);
	memset(g + 34, 1, 4);
	memcpy(g + 38, f + 34, len - 34);
	g[14] = 0x46;
	g[17] += 4;
	CHECK_EQ(parse(g, len + 4, RPCRDMA_ROCE_PARSE_NO_CSUM), -RPCRDMA_E_ROCE_IP);
	memcpy(g, f, len);
	g[14] = 0x44; /* IHL 4 */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_IP);
	memcpy(g, f, len);
	g[20] |= 0x20; /* MF */
	fix_csum(g);
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_IP);
	memcpy(g, f, len);
	g[16] = 0;
	g[17] = 43; /* total length below IPv4 + UDP + BTH + ICRC */
	fix_csum(g);
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_IP);
	memcpy(g, f, len);
	g[17]++; /* total length past the frame */
	fix_csum(g);
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_TRUNC);

	memcpy(g, f, len);
	g[25] ^= 1;
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_CSUM);
	CHECK_EQ(parse(g, len, RPCRDMA_ROCE_PARSE_NO_CSUM), 0);

	memcpy(g, f, len);
	g[39] ^= 4; /* UDP length */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_UDP);

	memcpy(g, f, len);
	g[42] = 0x00; /* SEND_FIRST */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_BTH);
	memcpy(g, f, len);
	g[43] |= 1; /* transport version 1 */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_BTH);
	memcpy(g, f, len);
	g[42] = RPCRDMA_ROCE_RDMA_READ_REQUEST; /* 8 bytes after the BTH: RETH takes 16 */
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_TRUNC);
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 20);
	i = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, g, sizeof(g));
	g[42] = RPCRDMA_ROCE_RDMA_READ_REQUEST; /* RETH, then 4 bytes of payload */
	CHECK_EQ(parse(g, i, 0), -RPCRDMA_E_ROCE_BTH);
	memcpy(g, f, len);
	g[42] = RPCRDMA_ROCE_ACKNOWLEDGE; /* AETH takes 4, 4 left over */
	fix_icrc(g, len);
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_BTH);

	/* A pad count larger than the payload. */
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 0);
	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, g, sizeof(g));
	g[43] |= 2 << 4;
	fix_icrc(g, len);
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_BTH);
	/* A WRITE whose datagram ends inside the RETH. */
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 8);
	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, g, sizeof(g));
	g[42] = RPCRDMA_ROCE_RDMA_WRITE_ONLY;
	CHECK_EQ(parse(g, len, 0), -RPCRDMA_E_ROCE_TRUNC);

	/* One VLAN tag, and Ethernet padding after the IPv4 total length. */
	p = kat_pkt(RPCRDMA_ROCE_SEND_ONLY, 5);
	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f));
	memcpy(g, f, 12);
	g[12] = 0x81;
	g[13] = 0x00;
	g[14] = 0x00;
	g[15] = 0x05;
	memcpy(g + 16, f + 12, len - 12);
	memset(g + len + 4, 0, 10);
	CHECK_EQ(rpcrdma_roce_parse(&q, NULL, g, len + 4 + 10, 0), 0);
	CHECK_EQ(q.payload_len, 5);
	CHECK(q.payload == g + 18 + 20 + 8 + 12);
	CHECK_EQ(rpcrdma_roce_parse(&q, NULL, g, 17, 0), -RPCRDMA_E_ROCE_TRUNC);
}

/* Random corruption: parse never fails in an undefined way; success stays in bounds. */
static void test_random_corruption(void)
{
	struct rpcrdma_roce_pkt p = kat_pkt(RPCRDMA_ROCE_RDMA_WRITE_ONLY, 40), q;
	uint8_t f[256], g[256];
	uint32_t len, seed = 12345, i, k;
	int ret, ok = 0;

	len = (uint32_t)rpcrdma_roce_build(&kat_addr, &p, f, sizeof(f));
	for (i = 0; i < 20000; i++) {
		uint32_t glen = len;

		memcpy(g, f, len);
		for (k = 0; k < 3; k++) {
			seed = seed * 1103515245 + 12345;
			g[(seed >> 8) % len] = (uint8_t)(seed >> 20);
		}
		seed = seed * 1103515245 + 12345;
		if (seed & 0x10000)
			glen = (seed >> 17) % (len + 1);
		ret = rpcrdma_roce_parse(&q, NULL, g, glen,
					 (seed & 1) ? RPCRDMA_ROCE_PARSE_NO_ICRC : 0);
		CHECK(ret == 0 || (ret <= -RPCRDMA_E_ROCE_TRUNC && ret >= -RPCRDMA_E_ROCE_ICRC));
		if (ret == 0) {
			ok++;
			CHECK(q.payload >= g && q.payload + q.payload_len <= g + glen);
		}
	}
	CHECK(ok > 0);
}

static uint32_t zlib_crc32(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32_z(crc, buf, len);
}

/*
 * The codec's CRC-32: the catalogue's check value of "123456789"
 * (0xcbf43926), the chaining contract, and zlib's value on every length
 * and alignment up to 300 bytes. Then whole frames: built with zlib's
 * CRC-32 they are the codec's bytes, up to the largest payload.
 */
static void test_crc32(void)
{
	static uint8_t frame_a[RPCRDMA_ROCE_PAYLOAD_MAX + 128], frame_b[sizeof(frame_a)];
	static uint8_t big[RPCRDMA_ROCE_PAYLOAD_MAX];
	static const uint32_t lens[] = {
		0, 1, 3, 4, 37, 1024, 4093, 65000, RPCRDMA_ROCE_PAYLOAD_MAX
	};
	struct rpcrdma_roce_addr a = kat_addr;
	struct rpcrdma_roce_pkt p;
	uint8_t buf[320];
	uint32_t i, off, len, seed = 7;
	int na, nb;

	CHECK_EQ(rpcrdma_roce_crc32(0, "123456789", 9), 0xcbf43926u);
	CHECK_EQ(rpcrdma_roce_crc32(rpcrdma_roce_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
	CHECK_EQ(rpcrdma_roce_crc32(0, "", 0), 0u);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 17);
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= 300; len++)
			CHECK_EQ(rpcrdma_roce_crc32(0, buf + off, len),
				 zlib_crc32(0, buf + off, len));

	for (i = 0; i < sizeof(big); i++) {
		seed = seed * 1103515245u + 12345u;
		big[i] = (uint8_t)(seed >> 16);
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		p = kat_pkt(RPCRDMA_ROCE_RDMA_WRITE_ONLY, 0);
		p.payload = big;
		p.payload_len = lens[i];
		p.dma_len = lens[i];
		na = rpcrdma_roce_build(&a, &p, frame_a, sizeof(frame_a));
		nb = rpcrdma_roce_build_crc(&a, &p, frame_b, sizeof(frame_b), zlib_crc32);
		CHECK(na > 0);
		CHECK_EQ(na, nb);
		if (na > 0 && na == nb) {
			CHECK(memcmp(frame_a, frame_b, (size_t)na) == 0);
			CHECK_EQ(rpcrdma_roce_icrc_crc(frame_a + 14, (uint32_t)na - 18, zlib_crc32),
				 rpcrdma_roce_icrc(frame_a + 14, (uint32_t)na - 18));
			CHECK_EQ(rpcrdma_roce_parse(&p, NULL, frame_b, (uint32_t)nb, 0), 0);
		}
	}
}

int main(void)
{
	test_known_answers();
	test_roundtrips();
	test_build_errors();
	test_icrc_masking();
	test_parse_errors();
	test_random_corruption();
	test_crc32();
	return test_summary("roce");
}
