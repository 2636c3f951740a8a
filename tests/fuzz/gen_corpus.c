/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the seed corpus of the fuzz targets from the hand-written wire
 * vectors of tests/unit/codec/codec_vectors.c:
 *   DIR/hdr/<name>    transport headers, RDMA2_OPTIONAL included
 *   DIR/rpc/<name>    RPC headers
 *   DIR/xchar/<name>  rdma_opttype (4 bytes, big endian), then rdma_optinfo
 * Run once when the vectors change:
 *   build-fuzz/tests/fuzz/gen_corpus tests/fuzz/corpus
 * The NFSv3 corpus (DIR/nfs3/) comes from the rpcgen test's random values:
 *   build/tests/unit/nfs3/test_nfs3_rpcgen 300 0x6e667333 tests/fuzz/corpus/nfs3
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "codec_vectors.h"

static int write_file(const char *dir, const char *sub, const char *name, const uint8_t *p1,
		      size_t n1, const uint8_t *p2, size_t n2)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	if (fwrite(p1, 1, n1, f) != n1 || (n2 && fwrite(p2, 1, n2, f) != n2)) {
		perror(path);
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	unsigned int i, files = 0;
	uint8_t opttype[4];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];
		const char *sub = v->kind == CODEC_RPC ? "rpc" : "hdr";

		if (write_file(argv[1], sub, v->name, v->bytes, v->len, NULL, 0))
			return 1;
		files++;
		if (v->kind != CODEC_OPT)
			continue;
		/* The optinfo of an RDMA2_OPTIONAL vector starts after 7 words. */
		memcpy(opttype, v->bytes + 20, 4);
		if (write_file(argv[1], "xchar", v->name, opttype, 4, v->bytes + 28,
			       v->hdr->optional.optinfo_len))
			return 1;
		files++;
	}
	printf("%u files under %s\n", files, argv[1]);
	return 0;
}
