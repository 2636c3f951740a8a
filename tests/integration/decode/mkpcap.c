/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mkpcap: write a RoCEv2 capture for the rpcrdma-decode tests, with the
 * codec's frame builder and pcap writer.
 *
 *   mkpcap OUT.pcap ITEM...
 *
 * Each ITEM is one frame:
 *   send:FILE       SEND_ONLY carrying FILE
 *   sendinv:FILE    SEND_ONLY_WITH_INVALIDATE carrying FILE
 *   write:FILE      RDMA_WRITE_ONLY carrying FILE
 *   readresp:FILE   RDMA_READ_RESPONSE_ONLY carrying FILE
 *   readreq         RDMA_READ_REQUEST
 *   ack             ACKNOWLEDGE
 *   arp             an Ethernet frame that is not IPv4
 *   badicrc:FILE    SEND_ONLY carrying FILE, with a wrong ICRC
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rpcrdma/rpcrdma_roce.h>

#define FRAME_MAX 70000

static uint8_t payload[65536];
static uint8_t frame[FRAME_MAX];

static int load(const char *path, uint32_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "mkpcap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(payload, 1, sizeof(payload), f);
	fclose(f);
	*len = (uint32_t)n;
	return 0;
}

static bool is(const char *spec, size_t kind, const char *name)
{
	return kind == strlen(name) && strncmp(spec, name, kind) == 0;
}

/* One frame, its timestamp @p n microseconds. */
static int put(pcap_dumper_t *w, uint32_t len, uint32_t n)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	h.ts.tv_sec = n / 1000000;
	h.ts.tv_usec = n % 1000000 * 1000; /* nanoseconds: the dumper's precision */
	pcap_dump((u_char *)w, &h, frame);
	return 0;
}

static int item(pcap_dumper_t *w, const char *spec, uint32_t n)
{
	struct rpcrdma_roce_addr addr = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.src_ip = 0xc0a80101,
		.dst_ip = 0xc0a80102,
		.src_port = 0xc000,
		.ip_id = (uint16_t)n,
	};
	struct rpcrdma_roce_pkt p = { .dest_qp = 0x000123, .psn = n, .rkey = 0x1234, .va = 0x1000 };
	const char *colon = strchr(spec, ':');
	size_t kind = colon ? (size_t)(colon - spec) : strlen(spec);
	bool bad = false;
	int len;

	if (colon && load(colon + 1, &p.payload_len))
		return -1;
	p.payload = payload;
	if (is(spec, kind, "send") || (bad = is(spec, kind, "badicrc"))) {
		p.opcode = RPCRDMA_ROCE_SEND_ONLY;
	} else if (is(spec, kind, "sendinv")) {
		p.opcode = RPCRDMA_ROCE_SEND_ONLY_INV;
		p.inv_rkey = 0x5678;
	} else if (is(spec, kind, "write")) {
		p.opcode = RPCRDMA_ROCE_RDMA_WRITE_ONLY;
		p.dma_len = p.payload_len;
	} else if (is(spec, kind, "readresp")) {
		p.opcode = RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY;
	} else if (is(spec, kind, "readreq")) {
		p.opcode = RPCRDMA_ROCE_RDMA_READ_REQUEST;
		p.dma_len = 4096;
	} else if (is(spec, kind, "ack")) {
		p.opcode = RPCRDMA_ROCE_ACKNOWLEDGE;
	} else if (is(spec, kind, "arp")) {
		memset(frame, 0xff, 6);
		memcpy(frame + 6, addr.src_mac, 6);
		frame[12] = 0x08;
		frame[13] = 0x06;
		memset(frame + 14, 0, 28);
		return put(w, 42, n);
	} else {
		fprintf(stderr, "mkpcap: unknown item '%s'\n", spec);
		return -1;
	}
	len = rpcrdma_roce_build(&addr, &p, frame, sizeof(frame));
	if (len < 0) {
		fprintf(stderr, "mkpcap: %s: cannot build: %s\n", spec, rpcrdma_strerror(len));
		return -1;
	}
	if (bad)
		frame[len - 1] ^= 0xff;
	return put(w, (uint32_t)len, n);
}

int main(int argc, char **argv)
{
	pcap_dumper_t *w = NULL;
	pcap_t *pc;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: mkpcap OUT.pcap ITEM...\n");
		return 2;
	}
	/* classic pcap with nanosecond timestamps, written by libpcap */
	pc = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144, PCAP_TSTAMP_PRECISION_NANO);
	if (pc != NULL)
		w = pcap_dump_open(pc, argv[1]);
	if (w == NULL) {
		fprintf(stderr, "mkpcap: cannot write %s: %s\n", argv[1],
			pc ? pcap_geterr(pc) : "no memory");
		return 1;
	}
	for (i = 2; i < argc; i++)
		if (item(w, argv[i], (uint32_t)i - 1))
			return 1;
	if (pcap_dump_flush(w) != 0) {
		fprintf(stderr, "mkpcap: cannot write %s\n", argv[1]);
		return 1;
	}
	pcap_dump_close(w);
	pcap_close(pc);
	return 0;
}
