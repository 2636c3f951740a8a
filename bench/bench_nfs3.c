/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench-nfs3: the NFSv3 codec (engine/codec/nfs3/) behind the interface of
 * bench_shim.h, which bench_codec.cc drives. Shapes ("<shape>/<op>/rpcrdma";
 * msg_bytes counts the whole XDR stream, DDP-eligible data included):
 *
 *   nfs3_read_args        READ3args: a 32-byte handle, offset, count (48)
 *   nfs3_read_res_4k      READ3res with attributes and 4 KiB of data; the
 *                         data a DDP item: encode records it, decode takes
 *                         it from a write chunk (4200)
 *   nfs3_write_args_4k    WRITE3args with 4 KiB of data: encode records it,
 *                         decode takes it from a read chunk (4152)
 *   nfs3_write_res        WRITE3res with wcc_data (before and after) (136)
 *   nfs3_readdirplus_100  READDIRPLUS3res of 100 entries, each with a
 *                         12-byte name, attributes and a 32-byte handle:
 *                         encode within maxcount, decode with the cursor (16508)
 *
 * bench_shim_init() runs every operation once and aborts unless the
 * encoding has the expected length and decodes back to the same values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "bench_shim.h"

#define BUF_LEN	 (64 * 1024)
#define DATA_LEN 4096
#define NENT	 100

enum shape {
	READ_ARGS,
	READ_RES,
	WRITE_ARGS,
	WRITE_RES,
	RDP_100,
	SHAPE_N,
};

struct state {
	enum shape shape;
	uint8_t *buf; /* the encoding stream's inline buffer */
	struct rpcrdma_xdr_region mem;
	struct rpcrdma_xdr_enc xdr;
	uint32_t wire_len; /* the whole XDR stream */
	uint8_t *data;	   /* DDP item: the registered 4 KiB */
	uint8_t *landed;   /* where the decoder finds it (a chunk) */
	uint8_t fh[32];
	char names[NENT][13];
	struct rpcrdma_nfs3_read_args ra, ra_out;
	struct rpcrdma_nfs3_read_res rr, rr_out;
	struct rpcrdma_nfs3_write_args wa, wa_out;
	struct rpcrdma_nfs3_write_res wr, wr_out;
	struct rpcrdma_nfs3_readdirplus_res rdp, rdp_out;
	struct rpcrdma_nfs3_entryplus ent[NENT], ent_out;
	uint64_t fileid_sum;
};

const char *bench_op_name(enum bench_op op)
{
	static const char *const names[BENCH_OP_N] = { "encode", "decode", "roundtrip" };

	return op < BENCH_OP_N ? names[op] : "unknown";
}

static void fattr(struct rpcrdma_nfs3_fattr *f, uint64_t id)
{
	f->type = RPCRDMA_NFS3_REG;
	f->mode = 0644;
	f->nlink = 1;
	f->uid = 1000;
	f->gid = 1000;
	f->size = 1 << 20;
	f->used = 1 << 20;
	f->fsid = 0x1234;
	f->fileid = id;
	f->mtime.seconds = 1700000000;
}

static int encode(void *arg)
{
	struct state *s = arg;
	struct rpcrdma_nfs3_readdirplus_enc e;
	int ret = 0, i;

	rpcrdma_xdr_enc_init(&s->xdr, &s->mem);
	switch (s->shape) {
	case READ_ARGS:
		ret = rpcrdma_nfs3_enc_read_args(&s->xdr, &s->ra);
		break;
	case READ_RES:
		ret = rpcrdma_nfs3_enc_read_res(&s->xdr, &s->rr);
		break;
	case WRITE_ARGS:
		ret = rpcrdma_nfs3_enc_write_args(&s->xdr, &s->wa);
		break;
	case WRITE_RES:
		ret = rpcrdma_nfs3_enc_write_res(&s->xdr, &s->wr);
		break;
	case RDP_100:
		ret = rpcrdma_nfs3_readdirplus_begin(&e, &s->xdr, &s->rdp, 65536, 65536);
		for (i = 0; !ret && i < NENT; i++)
			ret = rpcrdma_nfs3_readdirplus_put(&e, &s->ent[i]);
		if (!ret)
			ret = rpcrdma_nfs3_readdirplus_end(&e, true);
		break;
	default:
		return -1;
	}
	return ret ? ret : (int)s->xdr.pos;
}

/* Decode what encode() left in the stream; DDP data from a chunk, as received. */
static int decode(void *arg)
{
	struct state *s = arg;
	struct rpcrdma_xdr_dec dec;
	int ret = 0;

	rpcrdma_xdr_dec_init(&dec, s->buf, s->xdr.len);
	switch (s->shape) {
	case READ_ARGS:
		ret = rpcrdma_nfs3_dec_read_args(&dec, &s->ra_out);
		break;
	case READ_RES:
		rpcrdma_xdr_dec_add_write(&dec, s->landed, DATA_LEN);
		ret = rpcrdma_nfs3_dec_read_res(&dec, &s->rr_out);
		break;
	case WRITE_ARGS:
		rpcrdma_xdr_dec_add_chunk(&dec, s->xdr.ddp[0].pos, s->landed, DATA_LEN);
		ret = rpcrdma_nfs3_dec_write_args(&dec, &s->wa_out);
		break;
	case WRITE_RES:
		ret = rpcrdma_nfs3_dec_write_res(&dec, &s->wr_out);
		break;
	case RDP_100:
		s->fileid_sum = 0;
		ret = rpcrdma_nfs3_dec_readdirplus_res(&dec, &s->rdp_out);
		while (ret == 0 && (ret = rpcrdma_nfs3_dec_readdirplus_entry(&dec, &s->rdp_out,
									     &s->ent_out)) == 1) {
			s->fileid_sum += s->ent_out.fileid;
			ret = 0;
		}
		break;
	default:
		return -1;
	}
	/* A write chunk's data is outside the stream's positions: count it. */
	return ret < 0 ? ret : (int)(rpcrdma_xdr_dec_pos(&dec) + dec.wnext * DATA_LEN);
}

static int roundtrip(void *arg)
{
	int ret = encode(arg);

	return ret < 0 ? ret : decode(arg);
}

static void __attribute__((noreturn)) fail(const char *shape, const char *what, int ret)
{
	fprintf(stderr, "bench: %s: %s (%d)\n", shape, what, ret);
	abort();
}

static const char *const shape_name[SHAPE_N] = {
	"nfs3_read_args", "nfs3_read_res_4k",	  "nfs3_write_args_4k",
	"nfs3_write_res", "nfs3_readdirplus_100",
};

/* The expected stream lengths, counted from RFC 1813's XDR. */
static const uint32_t shape_len[SHAPE_N] = {
	4 + 32 + 8 + 4,			   /* fh, offset, count */
	4 + 4 + 84 + 4 + 4 + 4 + DATA_LEN, /* st, attr, count, eof, data */
	4 + 32 + 8 + 4 + 4 + 4 + DATA_LEN, /* fh, offset, count, stable, data */
	4 + 4 + 24 + 4 + 84 + 4 + 4 + 8,   /* st, wcc, count, committed, verf */
	4 + 4 + 84 + 8 + NENT *(4 + 8 + 4 + 12 + 8 + 4 + 84 + 4 + 4 + 32) + 8,
};

static void check(struct state *s)
{
	const char *n = shape_name[s->shape];
	int ret, i;
	uint64_t sum = 0;

	ret = encode(s);
	if (ret != (int)shape_len[s->shape])
		fail(n, "encoded length", ret);
	s->wire_len = (uint32_t)ret;
	if (s->xdr.nddp)
		memcpy(s->landed, s->data, DATA_LEN);
	ret = decode(s);
	if (ret != (int)s->wire_len)
		fail(n, "decoded length", ret);
	switch (s->shape) {
	case READ_ARGS:
		ret = s->ra_out.offset == s->ra.offset && s->ra_out.count == s->ra.count &&
		      s->ra_out.file.len == 32;
		break;
	case READ_RES:
		ret = s->rr_out.data.addr == s->landed && s->rr_out.data.len == DATA_LEN &&
		      s->rr_out.eof && s->rr_out.file_attr.attr.fileid == 7;
		break;
	case WRITE_ARGS:
		ret = s->wa_out.data.addr == s->landed && s->wa_out.data.len == DATA_LEN &&
		      s->wa_out.offset == s->wa.offset;
		break;
	case WRITE_RES:
		ret = s->wr_out.count == DATA_LEN && memcmp(s->wr_out.verf, s->wr.verf, 8) == 0 &&
		      s->wr_out.file_wcc.after.attr.fileid == 7;
		break;
	case RDP_100:
		for (i = 0; i < NENT; i++)
			sum += s->ent[i].fileid;
		ret = s->rdp_out.done && s->rdp_out.eof && s->fileid_sum == sum;
		break;
	default:
		ret = 0;
	}
	if (!ret)
		fail(n, "decoded values differ", 0);
}

static struct state *make(enum shape shape)
{
	struct state *s = calloc(1, sizeof(*s));
	int i;

	if (!s)
		abort();
	s->shape = shape;
	s->buf = aligned_alloc(64, BUF_LEN);
	s->data = aligned_alloc(64, DATA_LEN);
	s->landed = aligned_alloc(64, DATA_LEN);
	if (!s->buf || !s->data || !s->landed)
		abort();
	memset(s->data, 0x5a, DATA_LEN);
	memset(s->fh, 0xf3, sizeof(s->fh));
	s->mem = rpcrdma_xdr_region_va(s->buf, BUF_LEN, 1, 2);

	s->ra.file = (struct rpcrdma_nfs3_fh){ s->fh, 32 };
	s->ra.offset = 1 << 30;
	s->ra.count = DATA_LEN;

	s->rr.status = RPCRDMA_NFS3_OK;
	s->rr.file_attr.present = true;
	fattr(&s->rr.file_attr.attr, 7);
	s->rr.count = DATA_LEN;
	s->rr.eof = true;
	s->rr.data = rpcrdma_xdr_region_va(s->data, DATA_LEN, 3, 4);

	s->wa.file = s->ra.file;
	s->wa.offset = 1 << 30;
	s->wa.count = DATA_LEN;
	s->wa.stable = RPCRDMA_NFS3_UNSTABLE;
	s->wa.data = s->rr.data;

	s->wr.status = RPCRDMA_NFS3_OK;
	s->wr.file_wcc.before_present = true;
	s->wr.file_wcc.before.size = 1 << 20;
	s->wr.file_wcc.after.present = true;
	fattr(&s->wr.file_wcc.after.attr, 7);
	s->wr.count = DATA_LEN;
	s->wr.committed = RPCRDMA_NFS3_UNSTABLE;
	memcpy(s->wr.verf, "verifier", 8);

	s->rdp.status = RPCRDMA_NFS3_OK;
	s->rdp.dir_attr.present = true;
	fattr(&s->rdp.dir_attr.attr, 2);
	s->rdp.dir_attr.attr.type = RPCRDMA_NFS3_DIR;
	for (i = 0; i < NENT; i++) {
		struct rpcrdma_nfs3_entryplus *e = &s->ent[i];

		snprintf(s->names[i], sizeof(s->names[i]), "file-%07d", i);
		e->fileid = 100 + (uint64_t)i;
		e->name = s->names[i];
		e->name_len = 12;
		e->cookie = (uint64_t)i + 1;
		e->name_attr.present = true;
		fattr(&e->name_attr.attr, e->fileid);
		e->name_handle.present = true;
		e->name_handle.fh = s->ra.file;
	}
	check(s);
	return s;
}

const struct bench_case *bench_shim_init(unsigned int *n)
{
	static struct bench_case cases[SHAPE_N];
	unsigned int i;

	for (i = 0; i < SHAPE_N; i++) {
		struct state *s = make((enum shape)i);

		cases[i].shape = shape_name[i];
		cases[i].impl = "rpcrdma";
		cases[i].msg_len = s->wire_len;
		cases[i].op[BENCH_ENCODE] = encode;
		cases[i].op[BENCH_DECODE] = decode;
		cases[i].op[BENCH_ROUNDTRIP] = roundtrip;
		cases[i].arg = s;
	}
	*n = SHAPE_N;
	return cases;
}
