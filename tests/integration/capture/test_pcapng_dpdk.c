/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpcap reads what DPDK's rte_pcapng writes (SHB and IDB with
 * DPDK's options, EPBs with flags and queue options, an ISB): RoCEv2
 * frames built by the codec are captured through rte_pcapng_copy() on a
 * net_null port, written, read back and parsed, byte for byte.
 *
 * Runs EAL without hugepages or PCI (--no-huge --no-pci); skips (77) when
 * EAL cannot start here.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>

#include <rpcrdma/rpcrdma_roce.h>

#include "test_check.h"

#define NPKTS 16

static uint8_t frames[NPKTS][512];
static int frame_len[NPKTS];

static void build_frames(void)
{
	struct rpcrdma_roce_addr addr = { .src_ip = 0xc0a80001,
					  .dst_ip = 0xc0a80002,
					  .src_port = 0xc123 };
	static const uint8_t ops[] = { RPCRDMA_ROCE_SEND_ONLY, RPCRDMA_ROCE_RDMA_WRITE_ONLY,
				       RPCRDMA_ROCE_RDMA_READ_REQUEST,
				       RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY };
	uint8_t payload[300];
	int i, j;

	for (i = 0; i < NPKTS; i++) {
		struct rpcrdma_roce_pkt p = { .opcode = ops[i % 4], .dest_qp = 0x11 + i, .psn = i };

		for (j = 0; j < (int)sizeof(payload); j++)
			payload[j] = (uint8_t)(i + j);
		if (p.opcode != RPCRDMA_ROCE_RDMA_READ_REQUEST) {
			p.payload = payload;
			p.payload_len = 17u * (uint32_t)i + 1;
		}
		frame_len[i] = rpcrdma_roce_build(&addr, &p, frames[i], sizeof(frames[i]));
		CHECK(frame_len[i] > 0);
	}
}

static int capture(const char *path)
{
	/*
	 * A file prefix of its own, so as not to meet other DPDK programs on
	 * the machine; with --no-shconf, runs of this test do not share state.
	 */
	char *argv[] = {
		"test_pcapng_dpdk",
		"-l",
		"0",
		"--no-huge",
		"-m",
		"32",
		"--no-pci",
		"--no-shconf",
		"--vdev=net_null0",
		"--log-level=*:error",
		"--file-prefix=rpcrdma-test-pcapng",
		NULL,
	};
	struct rte_mbuf *copies[NPKTS];
	struct rte_mempool *mp;
	rte_pcapng_t *pc;
	int fd, i;

	if (rte_eal_init(11, argv) < 0) {
		printf("EAL cannot start here (--no-huge --no-pci): skipping\n");
		return 77;
	}
	mp = rte_pktmbuf_pool_create("pcapng", 2 * NPKTS + 1, 0, 0, rte_pcapng_mbuf_size(2048),
				     SOCKET_ID_ANY);
	CHECK(mp != NULL);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	pc = rte_pcapng_fdopen(fd, "Linux", "none", "rpcrdma test", "rte_pcapng reader test");
	CHECK(pc != NULL);
	if (!mp || !pc)
		return 1;
	for (i = 0; i < NPKTS; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		char *d = m ? rte_pktmbuf_append(m, (uint16_t)frame_len[i]) : NULL;

		CHECK(d != NULL);
		if (!d)
			return 1;
		memcpy(d, frames[i], (size_t)frame_len[i]);
		copies[i] =
			rte_pcapng_copy(0, 0, m, mp, UINT32_MAX, rte_get_tsc_cycles(),
					i & 1 ? RTE_PCAPNG_DIRECTION_IN : RTE_PCAPNG_DIRECTION_OUT);
		CHECK(copies[i] != NULL);
		rte_pktmbuf_free(m);
		if (!copies[i])
			return 1;
	}
	CHECK(rte_pcapng_write_packets(pc, copies, NPKTS) > 0);
	for (i = 0; i < NPKTS; i++)
		rte_pktmbuf_free(copies[i]);
	CHECK(rte_pcapng_write_stats(pc, 0, NULL, 0, 0, NPKTS, 0) > 0);
	rte_pcapng_close(pc);
	return 0;
}

static uint64_t ts_tshark[NPKTS];

/* frame.time_epoch of each packet as tshark reads it ("s.nnnnnnnnn"); zeros without tshark. */
static void tshark_times(const char *path)
{
	unsigned long long sec, nsec;
	char cmd[256];
	FILE *p;
	int i = 0;

	if (system("command -v tshark >/dev/null 2>&1") != 0) {
		printf("tshark not found: timestamps not compared\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "tshark -r %s -T fields -e frame.time_epoch 2>/dev/null", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return;
	while (i < NPKTS && fscanf(p, "%llu.%9llu", &sec, &nsec) == 2)
		ts_tshark[i++] = sec * 1000000000ull + nsec;
	pclose(p);
	CHECK_EQ(i, NPKTS);
}

/* The first 32-bit word of a file, as written (little-endian here). */
static uint32_t first_word(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t b[4] = { 0 };

	if (f != NULL) {
		if (fread(b, 1, 4, f) != 4)
			memset(b, 0, 4);
		fclose(f);
	}
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int main(void)
{
	char path[] = "/tmp/rpcrdma-dpdk-XXXXXX";
	char err[PCAP_ERRBUF_SIZE];
	struct rpcrdma_roce_pkt q;
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint64_t last = 0;
	int fd, i, ret;
	pcap_t *pc;

	build_frames();
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	ret = capture(path);
	if (ret) {
		unlink(path);
		return ret;
	}
	tshark_times(path);

	CHECK(first_word(path) == 0x0a0d0d0au); /* a pcapng Section Header Block */
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	CHECK(pc != NULL);
	if (pc == NULL) {
		fprintf(stderr, "open: %s\n", err);
		unlink(path);
		return 1;
	}
	CHECK_EQ(pcap_datalink(pc), DLT_EN10MB);
	for (i = 0; i < NPKTS; i++) {
		uint64_t ts_ns;

		ret = pcap_next_ex(pc, &hdr, &data);
		CHECK_EQ(ret, 1);
		if (ret != 1) {
			fprintf(stderr, "next: %s\n", pcap_geterr(pc));
			break;
		}
		CHECK_EQ(hdr->caplen, frame_len[i]);
		CHECK_EQ(hdr->len, frame_len[i]);
		CHECK(memcmp(data, frames[i], (size_t)frame_len[i]) == 0);
		ts_ns = (uint64_t)hdr->ts.tv_sec * 1000000000ull + (uint64_t)hdr->ts.tv_usec;
		/*
		 * Nanosecond timestamps from the TSC, in order. DPDK 22.11's
		 * conversion puts them centuries ahead of now, so they are
		 * compared with what Wireshark reads from the same file.
		 */
		CHECK(ts_ns >= last);
		if (ts_tshark[0])
			CHECK(ts_ns == ts_tshark[i]);
		last = ts_ns;
		CHECK_EQ(rpcrdma_roce_parse(&q, NULL, data, hdr->caplen, 0), 0);
		CHECK_EQ(q.dest_qp, 0x11 + i);
	}
	CHECK_EQ(pcap_next_ex(pc, &hdr, &data), PCAP_ERROR_BREAK); /* the end */
	pcap_close(pc);
	unlink(path);
	rte_eal_cleanup();
	return test_summary("pcapng_dpdk");
}
