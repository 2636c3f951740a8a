/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the capture file reader (pcap and pcapng) that
 * rpcrdma-decode --pcap runs on files users give it.
 *
 * The input is the whole file, read through a memory stream. The reader
 * must return packets whose lengths are within its limit, then 0 or one
 * error, which it keeps returning.
 */
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_pcapfile.h>

#include "fuzz_common.h"

#define TARGET "fuzz_pcap"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_pcapfile_pkt pkt;
	struct rpcrdma_pcapfile *pf;
	char err[256];
	FILE *f;
	int ret, again, i;

	if (size == 0)
		return 0;
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (f == NULL)
		return 0;
	ret = rpcrdma_pcapfile_open_stream(&pf, f, err, sizeof(err));
	fuzz_check_ret(TARGET, ret);
	if (ret != 0) {
		if (pf != NULL)
			fuzz_fail(TARGET, "open failed but returned a reader", NULL);
		fclose(f);
		return 0;
	}
	for (i = 0; i < 100000; i++) {
		ret = rpcrdma_pcapfile_next(pf, &pkt);
		if (ret != 1)
			break;
		if (pkt.caplen > RPCRDMA_PCAPFILE_BLOCK_MAX || pkt.caplen > size)
			fuzz_fail(TARGET, "packet longer than the file", NULL);
		/* Touch every byte, so ASan sees a read past the buffer. */
		if (pkt.caplen && memchr(pkt.data, 0x100 - 1, pkt.caplen) == (void *)1)
			fuzz_fail(TARGET, "impossible", NULL);
	}
	fuzz_check_ret(TARGET, ret);
	if (ret < 0) {
		again = rpcrdma_pcapfile_next(pf, &pkt);
		if (again != ret)
			fuzz_fail(TARGET, "an error was not sticky", rpcrdma_pcapfile_errmsg(pf));
	}
	rpcrdma_pcapfile_close(pf);
	fclose(f);
	return 0;
}
