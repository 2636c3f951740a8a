/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire image of each benchmark message, written out word by word, and
 * the start-up check that every case's operations produce and accept
 * exactly these bytes.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_impl.h"

/* H L OO of segment i. */
#define SEG(i)                                                                           \
	BENCH_SEG_HANDLE(i), BENCH_SEG_LENGTH(i), (uint32_t)(BENCH_SEG_OFFSET(i) >> 32), \
		(uint32_t)BENCH_SEG_OFFSET(i)

/* RFC 5666 4.3, then RFC 5531 9: RDMA_MSG with empty lists, NULL call. */
static const uint32_t words_v1_msg_nullcall[] = {
	BENCH_XID,
	1,
	BENCH_CREDIT,
	0, /* xid vers credit RDMA_MSG */
	0,
	0,
	0, /* no read list, write list, reply chunk */
	BENCH_XID,
	0,
	2, /* xid CALL rpcvers */
	BENCH_NFS_PROG,
	BENCH_NFS_VERS,
	0, /* prog vers NULLPROC */
	0,
	0,
	0,
	0, /* cred, verf: AUTH_NONE, empty */
};

/* 1 - PHLOO - 0, 0, 0 */
static const uint32_t words_v1_msg_read1[] = {
	BENCH_XID,
	1,
	BENCH_CREDIT,
	0, /* xid vers credit RDMA_MSG */
	1,
	BENCH_READ_POS,
	SEG(0),
	0, /* read list */
	0, /* write list */
	0, /* reply chunk */
};

/* 0, 1 - 4 - HLOO x4 - 0, 1 - 4 - HLOO x4 */
static const uint32_t words_v1_msg_write4_reply4[] = {
	BENCH_XID,
	1,
	BENCH_CREDIT,
	0, /* xid vers credit RDMA_MSG */
	0, /* read list */
	1,
	BENCH_CHUNK_SEGS,
	SEG(0),
	SEG(1),
	SEG(2),
	SEG(3),
	0, /* write list */
	1,
	BENCH_CHUNK_SEGS,
	SEG(4),
	SEG(5),
	SEG(6),
	SEG(7), /* reply chunk */
};

/* RDMA_ERROR ERR_VERS low high */
static const uint32_t words_v1_error_vers[] = {
	BENCH_XID, 1, BENCH_CREDIT, 4, 1, BENCH_VERS_LOW, BENCH_VERS_HIGH,
};

/* v2 draft 4.2 and xcharext 4.2: RDMA2_OPTIONAL, CALL, ROPT_INITXCH. */
static const uint32_t words_v2_optional_initxch[] = {
	BENCH_XID, 2, BENCH_CREDIT,
	5,				    /* xid vers credit RDMA2_OPTIONAL */
	0,	   1, 44,		    /* optdir CALL, opttype ROPT_INITXCH, optinfo length */
	3,				    /* optixch_start: three xcharval */
	1,	   4, BENCH_XCHAR_RBSIZ,    /* Receive Buffer Size */
	2,	   4, BENCH_XCHAR_REMINV,   /* Requester Remote Invalidation */
	3,	   4, BENCH_XCHAR_BKREQSUP, /* Backward Request Support */
	0,				    /* optixch_nochg: empty */
};

static const struct {
	const char *name;
	const uint32_t *words;
	uint32_t nwords;
} shapes[BENCH_SHAPE_N] = {
#define SHAPE(s, w) [s] = { #w, words_##w, sizeof(words_##w) / 4 }
	SHAPE(BENCH_V1_MSG_NULLCALL, v1_msg_nullcall),
	SHAPE(BENCH_V1_MSG_READ1, v1_msg_read1),
	SHAPE(BENCH_V1_MSG_WRITE4_REPLY4, v1_msg_write4_reply4),
	SHAPE(BENCH_V1_ERROR_VERS, v1_error_vers),
	SHAPE(BENCH_V2_OPTIONAL_INITXCH, v2_optional_initxch),
#undef SHAPE
};

void *bench_state_alloc(size_t size)
{
	void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);

	if (!p) {
		fprintf(stderr, "bench: out of memory\n");
		abort();
	}
	memset(p, 0, size);
	return p;
}

const char *bench_op_name(enum bench_op op)
{
	static const char *const names[BENCH_OP_N] = { "encode", "decode", "roundtrip" };

	return op < BENCH_OP_N ? names[op] : "unknown";
}

static void dump(const char *what, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, "  %-8s", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i && i % 4 == 0 ? " " : "", p[i]);
	fprintf(stderr, "\n");
}

static void __attribute__((noreturn))
mismatch(const struct bench_impl_case *ic, const char *what, int ret, const uint8_t *got,
	 const struct bench_wire *w)
{
	fprintf(stderr, "bench: %s/%s: %s gave %d, want these %u bytes\n", ic->c.shape, ic->c.impl,
		what, ret, w->len);
	if (ret > 0 && got) {
		dump("want", w->buf, w->len);
		dump("got", got, (uint32_t)ret);
	}
	abort();
}

/* Each operation once, against the wire image; aborts on any difference. */
static void verify(const struct bench_impl_case *ic, const struct bench_wire *w)
{
	static uint8_t buf[BENCH_BUF_LEN];
	const struct bench_case *c = &ic->c;
	int ret;

	if (c->op[BENCH_ENCODE]) {
		memset((void *)ic->out, 0xa5, BENCH_BUF_LEN);
		ret = c->op[BENCH_ENCODE](c->arg);
		if (ret != (int)w->len || memcmp(ic->out, w->buf, w->len))
			mismatch(ic, "encode", ret, ic->out, w);
	}
	if (c->op[BENCH_DECODE]) {
		ret = c->op[BENCH_DECODE](c->arg);
		if (ret != (int)w->len)
			mismatch(ic, "decode", ret, NULL, w);
		memset(buf, 0xa5, sizeof(buf));
		ret = ic->reencode(c->arg, buf, sizeof(buf));
		if (ret != (int)w->len || memcmp(buf, w->buf, w->len))
			mismatch(ic, "decode, encoded again,", ret, buf, w);
	}
	if (c->op[BENCH_ROUNDTRIP]) {
		memset((void *)ic->out, 0xa5, BENCH_BUF_LEN);
		ret = c->op[BENCH_ROUNDTRIP](c->arg);
		if (ret != (int)w->len || memcmp(ic->out, w->buf, w->len))
			mismatch(ic, "roundtrip", ret, ic->out, w);
	}
}

const struct bench_case *bench_shim_init(unsigned int *n)
{
	static struct bench_wire wire[BENCH_SHAPE_N];
	static struct bench_impl_case impl[BENCH_SHAPE_N * 4];
	static struct bench_case cases[BENCH_SHAPE_N * 4];
	unsigned int s, i, k, count;

	for (s = 0; s < BENCH_SHAPE_N; s++) {
		uint32_t *p = bench_state_alloc(shapes[s].nwords * 4);

		for (k = 0; k < shapes[s].nwords; k++)
			p[k] = htobe32(shapes[s].words[k]);
		wire[s].buf = (const uint8_t *)p;
		wire[s].len = shapes[s].nwords * 4;
	}

	count = bench_rpcrdma_cases(impl, wire);
	count += bench_rpcgen_cases(impl + count, wire);

	/* By shape, then implementation, so the listing reads as a table. */
	for (s = 0, k = 0; s < BENCH_SHAPE_N; s++) {
		for (i = 0; i < count; i++) {
			if (impl[i].shape != s)
				continue;
			verify(&impl[i], &wire[s]);
			if (strcmp(impl[i].c.shape, shapes[s].name) ||
			    impl[i].c.msg_len != wire[s].len) {
				fprintf(stderr, "bench: case %s/%s is not of shape %s\n",
					impl[i].c.shape, impl[i].c.impl, shapes[s].name);
				abort();
			}
			cases[k++] = impl[i].c;
		}
	}
	*n = k;
	return cases;
}
