/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the RoCEv2 frame parser (rpcrdma_roce_parse), which
 * rpcrdma-decode --pcap runs on every frame of a capture.
 *
 * Each input is parsed with and without checksum verification. A frame
 * accepted without verification is rebuilt from what was parsed; the
 * rebuilt frame must parse, with verification, to the same fields.
 */
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_roce.h>

#include "fuzz_common.h"

#define TARGET "fuzz_roce"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t rebuilt[RPCRDMA_ROCE_PAYLOAD_MAX + 256];

static void same_pkt(const struct rpcrdma_roce_pkt *a, const struct rpcrdma_roce_pkt *b)
{
	char detail[160];

	if (a->opcode != b->opcode || a->dest_qp != b->dest_qp || a->psn != b->psn ||
	    a->solicited != b->solicited || a->ack_req != b->ack_req ||
	    (a->pkey ? a->pkey : 0xffff) != b->pkey || /* build writes 0xffff for 0 */
	    a->payload_len != b->payload_len ||
	    (a->payload_len && memcmp(a->payload, b->payload, a->payload_len) != 0)) {
		snprintf(detail, sizeof(detail),
			 "opcode %u/%u qp %u/%u psn %u/%u se %d/%d a %d/%d pkey %u/%u len %u/%u",
			 a->opcode, b->opcode, a->dest_qp, b->dest_qp, a->psn, b->psn, a->solicited,
			 b->solicited, a->ack_req, b->ack_req, a->pkey, b->pkey, a->payload_len,
			 b->payload_len);
		fuzz_fail(TARGET, "rebuilt frame parses differently", detail);
	}
	if ((a->opcode == RPCRDMA_ROCE_RDMA_WRITE_ONLY ||
	     a->opcode == RPCRDMA_ROCE_RDMA_READ_REQUEST) &&
	    (a->va != b->va || a->rkey != b->rkey || a->dma_len != b->dma_len))
		fuzz_fail(TARGET, "rebuilt RETH differs", NULL);
	if (a->opcode == RPCRDMA_ROCE_SEND_ONLY_INV && a->inv_rkey != b->inv_rkey)
		fuzz_fail(TARGET, "rebuilt IETH differs", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_roce_pkt pkt, again;
	struct rpcrdma_roce_addr addr, addr2;
	int ret, n;

	if (size > UINT32_MAX)
		return 0;
	ret = rpcrdma_roce_parse(&pkt, &addr, data, (uint32_t)size, 0);
	fuzz_check_ret(TARGET, ret);
	ret = rpcrdma_roce_parse(&pkt, &addr, data, (uint32_t)size,
				 RPCRDMA_ROCE_PARSE_NO_ICRC | RPCRDMA_ROCE_PARSE_NO_CSUM);
	fuzz_check_ret(TARGET, ret);
	if (ret != 0)
		return 0;
	if (pkt.payload_len && (pkt.payload < data || pkt.payload + pkt.payload_len > data + size))
		fuzz_fail(TARGET, "payload outside the frame", NULL);

	n = rpcrdma_roce_build(&addr, &pkt, rebuilt, sizeof(rebuilt));
	if (n < 0)
		fuzz_fail(TARGET, "a parsed frame does not build", rpcrdma_strerror(n));
	ret = rpcrdma_roce_parse(&again, &addr2, rebuilt, (uint32_t)n, 0);
	if (ret != 0)
		fuzz_fail(TARGET, "a rebuilt frame does not parse", rpcrdma_strerror(ret));
	same_pkt(&pkt, &again);
	return 0;
}
