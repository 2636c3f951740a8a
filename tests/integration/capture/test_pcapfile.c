/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture files: the classic pcap writer and reader in both byte orders and
 * both timestamp resolutions; pcapng sections in both byte orders with
 * IDB options, EPB, SPB and skipped blocks; every truncation and the
 * malformed lengths a hostile file can carry; and, when editcap is
 * installed, a pcapng file written by Wireshark's own writer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_pcapfile.h>

#include <stdio.h>

#include "test_check.h"

/* ---------------------------------------------------------------- helpers */

static uint8_t data[3][200];
static const uint32_t data_len[3] = { 60, 1, 199 };

static void fill_data(void)
{
	int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 200; j++)
			data[i][j] = (uint8_t)(i * 50 + j * 3);
}

/* Open a reader over a memory buffer. */
static int open_mem(struct rpcrdma_pcapfile **pf, FILE **f, const void *buf, size_t len, char *err,
		    size_t errlen)
{
	/* fmemopen() refuses a size of 0. */
	static const uint8_t nothing[1];

	*f = fmemopen((void *)(len ? buf : nothing), len ? len : 1, "rb");
	if (!*f)
		return -errno;
	if (!len)
		fgetc(*f);
	return rpcrdma_pcapfile_open_stream(pf, *f, err, errlen);
}

/* Read a whole buffer: returns the packet count, or the error. */
static int read_all(const void *buf, size_t len, int *open_err)
{
	struct rpcrdma_pcapfile_pkt pkt;
	struct rpcrdma_pcapfile *pf;
	char err[256];
	int n = 0, ret;
	FILE *f;

	*open_err = open_mem(&pf, &f, buf, len, err, sizeof(err));
	if (*open_err) {
		CHECK(err[0] != '\0');
		if (f)
			fclose(f);
		return *open_err;
	}
	while ((ret = rpcrdma_pcapfile_next(pf, &pkt)) == 1)
		n++;
	if (ret < 0) {
		CHECK(strstr(rpcrdma_pcapfile_errmsg(pf), "offset ") != NULL);
		/* The error is sticky. */
		CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), ret);
		n = ret;
	} else {
		CHECK(rpcrdma_pcapfile_errmsg(pf)[0] == '\0');
	}
	rpcrdma_pcapfile_close(pf);
	fclose(f);
	return n;
}

/* ---------------------------------------------------------------- classic pcap */

/* Write three packets with the writer into memory; returns the length. */
static size_t write_pcap(uint8_t *out, size_t cap, uint32_t flags)
{
	struct rpcrdma_pcapfile_writer *w;
	size_t len;
	FILE *f;
	int i;

	f = fmemopen(out, cap, "wb");
	CHECK(f != NULL);
	CHECK_EQ(rpcrdma_pcapfile_writer_open(&w, f, 1, 65535, flags), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(rpcrdma_pcapfile_write(w, data[i], data_len[i], i == 1 ? 1500 : 0,
						1700000000123456789ull +
							(uint64_t)i * 1000000001ull),
			 0);
	CHECK_EQ(rpcrdma_pcapfile_write(w, data[0], 10, 9, 0), -EINVAL);
	CHECK_EQ(rpcrdma_pcapfile_writer_close(w), 0);
	len = (size_t)ftell(f);
	fclose(f);
	return len;
}

static void test_pcap_roundtrip(uint32_t flags)
{
	static const uint8_t magic_usec[4] = { 0xd4, 0xc3, 0xb2, 0xa1 };
	static const uint8_t magic_nsec[4] = { 0x4d, 0x3c, 0xb2, 0xa1 };
	bool nsec = flags & RPCRDMA_PCAPFILE_W_NSEC;
	bool big =
		(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ^ !!(flags & RPCRDMA_PCAPFILE_W_SWAPPED);
	struct rpcrdma_pcapfile_pkt pkt;
	struct rpcrdma_pcapfile *pf;
	uint8_t buf[4096], m[4];
	char err[256];
	size_t len;
	FILE *f;
	int i;

	len = write_pcap(buf, sizeof(buf), flags);
	CHECK_EQ(len, 24 + 3 * 16 + 60 + 1 + 199);
	/* The magic in the file's byte order. */
	for (i = 0; i < 4; i++)
		m[i] = (nsec ? magic_nsec : magic_usec)[big ? 3 - i : i];
	CHECK(memcmp(buf, m, 4) == 0);

	CHECK_EQ(open_mem(&pf, &f, buf, len, err, sizeof(err)), 0);
	CHECK_EQ(rpcrdma_pcapfile_format(pf), RPCRDMA_PCAPFILE_PCAP);
	for (i = 0; i < 3; i++) {
		uint64_t ts = 1700000000123456789ull + (uint64_t)i * 1000000001ull;

		CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 1);
		CHECK_EQ(pkt.caplen, data_len[i]);
		CHECK_EQ(pkt.origlen, i == 1 ? 1500 : data_len[i]);
		CHECK(memcmp(pkt.data, data[i], data_len[i]) == 0);
		CHECK(pkt.ts_ns == (nsec ? ts : ts - ts % 1000));
		CHECK_EQ(pkt.linktype, 1);
		CHECK_EQ(pkt.ifindex, 0);
	}
	CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 0);
	CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 0);
	rpcrdma_pcapfile_close(pf);
	fclose(f);
}

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void test_pcap_hostile(void)
{
	uint8_t buf[4096], g[4096];
	size_t len, cut, ends[4];
	int open_err, n;

	len = write_pcap(buf, sizeof(buf), 0);
	CHECK_EQ(read_all(buf, len, &open_err), 3);

	/* Record boundaries: cutting there is a clean end, anywhere else TRUNC. */
	ends[0] = 24;
	ends[1] = ends[0] + 16 + 60;
	ends[2] = ends[1] + 16 + 1;
	ends[3] = ends[2] + 16 + 199;
	for (cut = 0; cut < len; cut++) {
		n = read_all(buf, cut, &open_err);
		if (cut == 0)
			CHECK_EQ(n, -RPCRDMA_E_PCAP_FORMAT);
		else if (cut < 24)
			CHECK_EQ(n, -RPCRDMA_E_PCAP_TRUNC);
		else if (cut == ends[0] || cut == ends[1] || cut == ends[2])
			CHECK_EQ(n, cut == ends[0] ? 0 : cut == ends[1] ? 1 : 2);
		else
			CHECK_EQ(n, -RPCRDMA_E_PCAP_TRUNC);
	}

	memcpy(g, buf, len);
	g[0] = 0;
	CHECK_EQ(read_all(g, len, &open_err), -RPCRDMA_E_PCAP_FORMAT);
	memcpy(g, buf, len);
	g[4] = 3; /* major version 3 (little-endian file) */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		CHECK_EQ(read_all(g, len, &open_err), -RPCRDMA_E_PCAP_FORMAT);
	memcpy(g, buf, len);
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		put32le(g + ends[1] + 8, RPCRDMA_PCAPFILE_BLOCK_MAX + 1); /* incl_len */
		CHECK_EQ(read_all(g, len, &open_err), -RPCRDMA_E_PCAP_TOO_BIG);
		put32le(g + ends[1] + 8, 0xffffffffu);
		CHECK_EQ(read_all(g, len, &open_err), -RPCRDMA_E_PCAP_TOO_BIG);
		put32le(g + ends[1] + 8, 2); /* one byte too many: the rest misaligns */
		n = read_all(g, len, &open_err);
		CHECK(n < 0);
	}
}

/* ---------------------------------------------------------------- pcapng */

struct ng {
	uint8_t buf[8192];
	size_t len;
	bool swap;
	size_t starts[32]; /* block offsets, for the truncation test */
	int nblocks;
};

static void ng32(struct ng *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	memcpy(b->buf + b->len, &v, 4);
	b->len += 4;
}

static void ng16(struct ng *b, uint16_t v)
{
	if (b->swap)
		v = __builtin_bswap16(v);
	memcpy(b->buf + b->len, &v, 2);
	b->len += 2;
}

static void ngbytes(struct ng *b, const void *p, size_t n)
{
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	while (b->len % 4)
		b->buf[b->len++] = 0;
}

static size_t ng_begin(struct ng *b, uint32_t type)
{
	size_t start = b->len;

	b->starts[b->nblocks++] = start;
	ng32(b, type);
	ng32(b, 0); /* patched by ng_end() */
	return start;
}

static void ng_end(struct ng *b, size_t start)
{
	uint32_t len = (uint32_t)(b->len - start + 4);

	ng32(b, len);
	if (b->swap)
		len = __builtin_bswap32(len);
	memcpy(b->buf + start + 4, &len, 4);
}

static void ng_shb(struct ng *b)
{
	size_t s = ng_begin(b, 0x0a0d0d0a);

	ng32(b, 0x1a2b3c4d);
	ng16(b, 1);
	ng16(b, 0);
	ng32(b, 0xffffffff); /* section length: unknown */
	ng32(b, 0xffffffff);
	ng16(b, 4); /* shb_userappl */
	ng16(b, 5);
	ngbytes(b, "tests", 5);
	ng16(b, 0);
	ng16(b, 0);
	ng_end(b, s);
}

static void ng_idb(struct ng *b, uint16_t linktype, uint32_t snaplen, int tsresol, int64_t tsoffset)
{
	size_t s = ng_begin(b, 1);

	ng16(b, linktype);
	ng16(b, 0);
	ng32(b, snaplen);
	ng16(b, 2); /* if_name */
	ng16(b, 3);
	ngbytes(b, "et0", 3);
	if (tsresol >= 0) {
		uint8_t r = (uint8_t)tsresol;

		ng16(b, 9);
		ng16(b, 1);
		ngbytes(b, &r, 1);
	}
	if (tsoffset) {
		uint64_t v = (uint64_t)tsoffset;

		if (b->swap)
			v = __builtin_bswap64(v);
		ng16(b, 14);
		ng16(b, 8);
		ngbytes(b, &v, 8);
	}
	ng16(b, 0);
	ng16(b, 0);
	ng_end(b, s);
}

static void ng_epb(struct ng *b, uint32_t ifid, uint64_t ticks, const uint8_t *p, uint32_t caplen,
		   uint32_t origlen)
{
	size_t s = ng_begin(b, 6);

	ng32(b, ifid);
	ng32(b, (uint32_t)(ticks >> 32));
	ng32(b, (uint32_t)ticks);
	ng32(b, caplen);
	ng32(b, origlen);
	ngbytes(b, p, caplen);
	ng16(b, 2); /* epb_flags */
	ng16(b, 4);
	ng32(b, 1);
	ng16(b, 0);
	ng16(b, 0);
	ng_end(b, s);
}

static void ng_spb(struct ng *b, const uint8_t *p, uint32_t origlen)
{
	size_t s = ng_begin(b, 3);

	ng32(b, origlen);
	ngbytes(b, p, origlen);
	ng_end(b, s);
}

static void ng_other(struct ng *b, uint32_t type, size_t n)
{
	size_t s = ng_begin(b, type);
	uint8_t junk[64];

	memset(junk, 0xee, sizeof(junk));
	ngbytes(b, junk, n);
	ng_end(b, s);
}

/* Expected packets of the file build_ng() writes. */
struct want {
	int data;
	uint32_t caplen, origlen, ifindex;
	uint64_t ts_ns;
};

static const struct want ng_want[] = {
	{ 0, 60, 100, 0, 1700000000123456789ull },		    /* EPB, if 0, ns resolution */
	{ 2, 199, 199, 1, 5000000ull * 1000 + 10 * 1000000000ull }, /* if 1: us, +10 s */
	{ 1, 1, 1, 0, 0 },					    /* SPB */
	{ 2, 40, 199, 0, 1000000000ull + 500000000ull },	    /* section 2: 2^-10 s */
};

/* Two sections, the second in the other byte order; 4 packets. */
static void build_ng(struct ng *b, bool swap)
{
	memset(b, 0, sizeof(*b));
	b->swap = swap;
	ng_shb(b);
	ng_idb(b, 1, 65535, 9, 0);
	ng_other(b, 4, 12);	     /* name resolution block */
	ng_idb(b, 1, 0, -1, 10);     /* default microseconds, if_tsoffset 10 s */
	ng_other(b, 0x00000bad, 33); /* custom block */
	ng_epb(b, 0, 1700000000123456789ull, data[0], 60, 100);
	ng_epb(b, 1, 5000000, data[2], 199, 199);
	ng_spb(b, data[1], 1);
	ng_other(b, 5, 20); /* interface statistics */
	b->swap = !swap;
	ng_shb(b);
	ng_idb(b, 1, 40, 0x80 | 10, 0);
	ng_epb(b, 0, 1024 + 512, data[2], 40, 199);
	b->starts[b->nblocks] = b->len;
}

static void test_pcapng_read(bool swap)
{
	struct rpcrdma_pcapfile_pkt pkt;
	struct rpcrdma_pcapfile *pf;
	static struct ng b;
	char err[256];
	size_t i;
	FILE *f;

	build_ng(&b, swap);
	CHECK_EQ(open_mem(&pf, &f, b.buf, b.len, err, sizeof(err)), 0);
	CHECK_EQ(rpcrdma_pcapfile_format(pf), RPCRDMA_PCAPFILE_PCAPNG);
	for (i = 0; i < sizeof(ng_want) / sizeof(ng_want[0]); i++) {
		const struct want *w = &ng_want[i];

		CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 1);
		CHECK_EQ(pkt.caplen, w->caplen);
		CHECK_EQ(pkt.origlen, w->origlen);
		CHECK_EQ(pkt.ifindex, w->ifindex);
		CHECK_EQ(pkt.linktype, 1);
		CHECK(pkt.ts_ns == w->ts_ns);
		CHECK(memcmp(pkt.data, data[w->data], w->caplen) == 0);
	}
	CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 0);
	rpcrdma_pcapfile_close(pf);
	fclose(f);
}

static void test_pcapng_truncation(void)
{
	static struct ng b;
	int open_err, n, k, pkts_before;
	size_t cut;

	build_ng(&b, false);
	for (cut = 0; cut < b.len; cut++) {
		bool boundary = false;

		pkts_before = 0;
		for (k = 0; k <= b.nblocks; k++) {
			if (b.starts[k] == cut)
				boundary = true;
		}
		/* Packets in blocks that end at or before the cut. */
		{
			static const int is_pkt[] = { 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1 };

			for (k = 0; k < b.nblocks; k++)
				if (b.starts[k + 1] <= cut && is_pkt[k])
					pkts_before++;
		}
		n = read_all(b.buf, cut, &open_err);
		if (cut == 0)
			CHECK_EQ(n, -RPCRDMA_E_PCAP_FORMAT);
		else if (boundary && cut >= b.starts[1])
			CHECK_EQ(n, pkts_before);
		else
			CHECK_EQ(n, -RPCRDMA_E_PCAP_TRUNC);
	}
}

/* Patch a 32-bit word (host order: the first section is not swapped). */
static void patch32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void test_pcapng_hostile(void)
{
	static struct ng b, g;
	size_t epb0, epb1, idb0, shb2;
	int open_err;

	build_ng(&b, false);
	idb0 = b.starts[1];
	epb0 = b.starts[5];
	epb1 = b.starts[6];
	shb2 = b.starts[9];
	CHECK_EQ(read_all(b.buf, b.len, &open_err), 4);

	/* Block length not a multiple of 4, under 12, over the limit, trailer differs. */
	g = b;
	patch32(g.buf + epb0 + 4, 62);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	patch32(g.buf + epb0 + 4, 8);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	patch32(g.buf + epb0 + 4, RPCRDMA_PCAPFILE_BLOCK_MAX + 4);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_TOO_BIG);
	g = b;
	patch32(g.buf + epb0 + 4, 0xfffffffc);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_TOO_BIG);
	g = b;
	patch32(g.buf + epb1 - 4, 4096);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	/* A block length that is valid but wrong: the trailer is not where it says. */
	g = b;
	patch32(g.buf + epb0 + 4, (uint32_t)(epb1 - epb0 + 4));
	CHECK(read_all(g.buf, g.len, &open_err) < 0);

	/* EPB: an undescribed interface; a captured length past its block. */
	g = b;
	patch32(g.buf + epb0 + 8, 2);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	patch32(g.buf + epb0 + 8, 0xffffffff);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	patch32(g.buf + epb0 + 20, 60 + 4 + 8 + 4 + 1); /* caplen 77: block body holds 76 */
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	patch32(g.buf + epb0 + 20, 0xffffffff);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);

	/* IDB: an option that runs past the block; an unsupported resolution. */
	g = b;
	g.buf[idb0 + 16 + 2] = 0xf0; /* if_name length 240 */
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	g = b;
	g.buf[idb0 + 16 + 8 + 4] = 20; /* if_tsresol 10^-20 */
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);

	/* A packet before any interface: drop the IDBs by turning them into NRBs. */
	g = b;
	patch32(g.buf + idb0, 4);
	patch32(g.buf + b.starts[3], 4);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	/* SPB before any interface. */
	{
		static struct ng s;

		memset(&s, 0, sizeof(s));
		ng_shb(&s);
		ng_spb(&s, data[0], 8);
		CHECK_EQ(read_all(s.buf, s.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	}

	/* SHB: bad byte-order magic, major version 2, under 28 bytes. */
	g = b;
	patch32(g.buf + 8, 0x11223344);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_FORMAT);
	CHECK_EQ(open_err, -RPCRDMA_E_PCAP_FORMAT);
	g = b;
	g.buf[12] = 2;
	g.buf[13] = 0;
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_FORMAT);
	g = b;
	patch32(g.buf + 4, 24);
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);
	/* The second section's SHB (swapped) with a bad major version. */
	g = b;
	g.buf[shb2 + 12] = 0;
	g.buf[shb2 + 13] = 9;
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_FORMAT);
	/* A packet of the second section for interface 1, which only the first had. */
	g = b;
	patch32(g.buf + b.starts[11] + 8, __builtin_bswap32(1));
	CHECK_EQ(read_all(g.buf, g.len, &open_err), -RPCRDMA_E_PCAP_BLOCK);

	/* Random corruption never crashes; a success reads a bounded number of packets. */
	{
		uint32_t seed = 777, i, k;
		int n;

		for (i = 0; i < 3000; i++) {
			g = b;
			for (k = 0; k < 4; k++) {
				seed = seed * 1103515245 + 12345;
				g.buf[(seed >> 8) % b.len] = (uint8_t)(seed >> 22);
			}
			n = read_all(g.buf, g.len, &open_err);
			CHECK(n <= 4);
		}
	}
}

/* Wireshark's pcapng writer: editcap converts a pcap file written here. */
static void test_editcap(void)
{
	char in[] = "/tmp/rpcrdma-pcapfile-XXXXXX";
	char out[64], cmd[256];
	struct rpcrdma_pcapfile_pkt pkt;
	struct rpcrdma_pcapfile *pf;
	uint8_t buf[4096];
	char err[256];
	size_t len;
	int fd, i, ret;

	if (system("command -v editcap >/dev/null 2>&1") != 0) {
		printf("editcap not found: skipping the Wireshark pcapng check\n");
		return;
	}
	fd = mkstemp(in);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	len = write_pcap(buf, sizeof(buf), RPCRDMA_PCAPFILE_W_NSEC);
	CHECK_EQ(write(fd, buf, len), len);
	close(fd);
	snprintf(out, sizeof(out), "%s.pcapng", in);
	snprintf(cmd, sizeof(cmd), "editcap -F pcapng %s %s", in, out);
	ret = system(cmd);
	CHECK_EQ(ret, 0);
	ret = rpcrdma_pcapfile_open(&pf, out, err, sizeof(err));
	CHECK_EQ(ret, 0);
	if (!ret) {
		CHECK_EQ(rpcrdma_pcapfile_format(pf), RPCRDMA_PCAPFILE_PCAPNG);
		for (i = 0; i < 3; i++) {
			CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 1);
			CHECK_EQ(pkt.caplen, data_len[i]);
			CHECK_EQ(pkt.origlen, i == 1 ? 1500 : data_len[i]);
			CHECK(memcmp(pkt.data, data[i], data_len[i]) == 0);
			CHECK(pkt.ts_ns == 1700000000123456789ull + (uint64_t)i * 1000000001ull);
			CHECK_EQ(pkt.linktype, 1);
		}
		CHECK_EQ(rpcrdma_pcapfile_next(pf, &pkt), 0);
		rpcrdma_pcapfile_close(pf);
	}
	unlink(in);
	unlink(out);

	/* A missing file. */
	CHECK_EQ(rpcrdma_pcapfile_open(&pf, "/nonexistent/x.pcap", err, sizeof(err)), -ENOENT);
	CHECK(pf == NULL);
}

int main(void)
{
	fill_data();
	test_pcap_roundtrip(0);
	test_pcap_roundtrip(RPCRDMA_PCAPFILE_W_NSEC);
	test_pcap_roundtrip(RPCRDMA_PCAPFILE_W_SWAPPED);
	test_pcap_roundtrip(RPCRDMA_PCAPFILE_W_NSEC | RPCRDMA_PCAPFILE_W_SWAPPED);
	test_pcap_hostile();
	test_pcapng_read(false);
	test_pcapng_read(true);
	test_pcapng_truncation();
	test_pcapng_hostile();
	test_editcap();
	return test_summary("pcapfile");
}
