/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The block store protocol's XDR rules (apps/blockstore_proto.h), as the
 * server and the client use them on what the other side sent: every
 * fixed-size rule round-trips, fails to encode into a buffer one word too
 * short (-ENOSPC, nothing past it written), and fails to decode from every
 * truncation of a valid encoding (-EBADMSG). bs_notify, which a client
 * decodes from the server's backward calls, refuses a count above
 * BS_MAX_IO. Built without DPDK, under AddressSanitizer and UBSan; each
 * decoder reads a heap copy of exactly the bytes given, so a read past
 * them is caught.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore_proto.h"
#include "test_check.h"

#define BUF_MAX 64

/* Encode with @p put into @p cap bytes: the length written, or the error. */
static int encode(int (*put)(struct rpcrdma_xdr_enc *, const void *), const void *v, uint8_t *buf,
		  uint32_t cap)
{
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(buf, cap, 0, 0);
	struct rpcrdma_xdr_enc e;
	int ret;

	rpcrdma_xdr_enc_init(&e, &mem);
	ret = put(&e, v);
	return ret ? ret : (int)e.len;
}

/* Decode @p len bytes with @p get into @p v: 0 only when it succeeds and eats them all. */
static int decode(int (*get)(struct rpcrdma_xdr_dec *, void *), const uint8_t *buf, uint32_t len,
		  void *v)
{
	uint8_t *copy = test_heap_copy(buf, len);
	struct rpcrdma_xdr_dec d;
	int ret;

	rpcrdma_xdr_dec_init(&d, copy, len);
	ret = get(&d, v);
	if (ret == 0 && rpcrdma_xdr_dec_left(&d) != 0)
		ret = -EMSGSIZE;
	free(copy);
	return ret;
}

/*
 * One rule: encode @p v (@p want bytes), decode it back into @p out
 * (compared with @p v over @p size bytes), then the short buffers and the
 * truncations.
 */
static void check_rule(const char *name, int (*put)(struct rpcrdma_xdr_enc *, const void *),
		       int (*get)(struct rpcrdma_xdr_dec *, void *), const void *v, void *out,
		       size_t size, uint32_t want)
{
	uint8_t buf[BUF_MAX], shrt[BUF_MAX];
	int n = encode(put, v, buf, sizeof(buf));

	CHECK(n == (int)want, "%s: encodes to %d bytes, want %u", name, n, want);
	if (n != (int)want)
		return;
	memset(out, 0, size); /* as v: the padding compares equal */
	CHECK(decode(get, buf, want, out) == 0, "%s: decodes", name);
	CHECK(memcmp(out, v, size) == 0, "%s: round trip", name);
	for (uint32_t cap = 0; cap < want; cap += 4) {
		memset(shrt, 0xee, sizeof(shrt));
		CHECK(encode(put, v, shrt, cap) == -ENOSPC, "%s: -ENOSPC in %u bytes", name, cap);
		for (uint32_t i = cap; i < sizeof(shrt); i++)
			if (shrt[i] != 0xee) {
				CHECK(0, "%s: byte %u written past %u", name, i, cap);
				break;
			}
	}
	for (uint32_t len = 0; len < want; len++)
		CHECK(decode(get, buf, len, out) == -EBADMSG, "%s: %u of %u bytes: -EBADMSG", name,
		      len, want);
}

/* The rules' signatures with const void * and void *, for check_rule(). */
static int put_attr(struct rpcrdma_xdr_enc *e, const void *v)
{
	return bs_put_attr(e, v);
}
static int get_attr(struct rpcrdma_xdr_dec *d, void *v)
{
	return bs_get_attr(d, v);
}
static int put_read_args(struct rpcrdma_xdr_enc *e, const void *v)
{
	return bs_put_read_args(e, v);
}
static int get_read_args(struct rpcrdma_xdr_dec *d, void *v)
{
	return bs_get_read_args(d, v);
}
static int put_write_res(struct rpcrdma_xdr_enc *e, const void *v)
{
	return bs_put_write_res(e, v);
}
static int get_write_res(struct rpcrdma_xdr_dec *d, void *v)
{
	return bs_get_write_res(d, v);
}
static int put_stat(struct rpcrdma_xdr_enc *e, const void *v)
{
	return bs_put_stat(e, *(const uint32_t *)v);
}
static int get_stat(struct rpcrdma_xdr_dec *d, void *v)
{
	return bs_get_stat(d, v);
}
static int put_notify(struct rpcrdma_xdr_enc *e, const void *v)
{
	return bs_put_notify(e, v);
}
static int get_notify(struct rpcrdma_xdr_dec *d, void *v)
{
	return bs_get_notify(d, v);
}

static void test_notify(void)
{
	/* offset(64) count(32) seq(64), big-endian */
	static const uint8_t wire[20] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					  0x08, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
					  0x00, 0x00, 0x00, 0x00, 0x00, 0x2a };
	struct bs_notify n, out;
	uint8_t buf[BUF_MAX];

	memset(&n, 0, sizeof(n)); /* the padding too: compared with memcmp */
	n.offset = 0x0102030405060708ull;
	n.count = BS_MAX_IO;
	n.seq = 42;
	memset(&out, 0, sizeof(out));
	check_rule("bs_notify", put_notify, get_notify, &n, &out, sizeof(n), 20);
	CHECK(encode(put_notify, &n, buf, sizeof(buf)) == 20 && memcmp(buf, wire, 20) == 0,
	      "bs_notify: the bytes on the wire");
	/* a count no WRITE can have: refused, whatever follows */
	memcpy(buf, wire, 20);
	buf[8] = 0x00, buf[9] = 0x10, buf[10] = 0x00, buf[11] = 0x01; /* BS_MAX_IO + 1 */
	CHECK(decode(get_notify, buf, 20, &out) == -EBADMSG, "bs_notify: count BS_MAX_IO + 1");
	memset(buf + 8, 0xff, 4);
	CHECK(decode(get_notify, buf, 20, &out) == -EBADMSG, "bs_notify: count 0xffffffff");
	/* count 0 (an empty WRITE) is a notification like another */
	memset(buf + 8, 0, 4);
	CHECK(decode(get_notify, buf, 20, &out) == 0 && out.count == 0 && out.seq == 42,
	      "bs_notify: count 0");
	/* trailing bytes are the caller's to refuse (the decoders check dec_left) */
	memcpy(buf, wire, 20);
	memset(buf + 20, 0, 4);
	CHECK(decode(get_notify, buf, 24, &out) == -EMSGSIZE, "bs_notify: 4 bytes left over");
}

int main(void)
{
	struct bs_attr a = { .size = 1ull << 30,
			     .block_size = 4096,
			     .max_io = BS_MAX_IO,
			     .reads = 1,
			     .writes = 2,
			     .bytes_read = 3,
			     .bytes_written = 4,
			     .errors = 5 },
		       ao;
	struct bs_read_args ra, rao;
	struct bs_write_res wr = { .status = BS_ERR_RANGE, .count = 7 }, wro;
	uint32_t st = BS_ERR_BUSY, sto;

	memset(&ra, 0, sizeof(ra));
	memset(&rao, 0, sizeof(rao));
	ra.offset = UINT64_MAX;
	ra.count = UINT32_MAX;
	memset(&ao, 0, sizeof(ao));
	check_rule("bs_attr", put_attr, get_attr, &a, &ao, sizeof(a), 56);
	check_rule("bs_read_args", put_read_args, get_read_args, &ra, &rao, sizeof(ra), 12);
	check_rule("bs_write_res", put_write_res, get_write_res, &wr, &wro, sizeof(wr), 8);
	check_rule("bs_stat", put_stat, get_stat, &st, &sto, sizeof(st), 4);
	test_notify();
	/* a status this side does not know is kept and named as unknown */
	CHECK(strcmp(bs_stat_name(BS_STAT_MAX + 1), "BS_ERR_?") == 0 &&
		      strcmp(bs_stat_text(0xffffffffu), "unknown status") == 0,
	      "unknown bs_stat");
	return test_summary("test_blockstore_proto");
}
