/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An independent decoder checks the wire codec: thousands of seeded random
 * RPC-over-RDMA version 1 messages are encoded with rpcrdma_hdr_encode()
 * and rpcrdma_rpc_encode(), carried in RoCEv2 SEND_ONLY frames
 * (rpcrdma_roce_build()) in a pcap file, and read back by Wireshark's
 * rpcordma and rpc dissectors through tshark. Every field tshark prints must
 * be what was encoded, message by message.
 *
 *   test_tshark TSHARK [SEED [COUNT]]
 *
 * Skips (77) when tshark is not installed.
 *
 * How Wireshark is made to see RPC-over-RDMA: UDP port 4791 goes to its
 * InfiniBand dissector (the default "infiniband.rroce.port"), which offers
 * SEND payloads to the heuristic "rpcrdma_infiniband". That heuristic is
 * on by default; the test enables it explicitly (--enable-heuristic) and
 * asks for heuristics first (-o infiniband.try_heuristic_first:TRUE) so a
 * user profile that changed either cannot make the test fail. The
 * heuristic accepts an RDMA_MSG only when the RPC XID that follows the
 * chunk lists equals rdma_xid, which RFC 8166 section 4.2.1 requires, so
 * each RDMA_MSG carries one random XID in both headers. Destination QPs
 * are never 0 or 1 (those are the management QPs). For an RDMA_MSG with a
 * read list Wireshark waits for the RDMA Reads to reassemble the RPC
 * message and prints no rpc fields; the RPC header is checked on the
 * messages without one. Programs are random, so the RPC dissector is told
 * to dissect unknown programs (-o rpc.dissect_unknown_programs:TRUE); it
 * still refuses a call to an unknown program whose version is above 10 (a
 * sanity check in packet-rpc.c), so versions are drawn from 0..10, while
 * XIDs, programs and procedures take any 32-bit value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <pcap/pcap.h>

#include <rpcrdma/rpcrdma_roce.h>
#include <rpcrdma/rpcrdma_rpc.h>

#define MAX_READS  5
#define MAX_WRITES 3
#define MAX_SEGS   4
#define MAX_REPORT 20

/* One generated message: what was encoded, to compare with tshark. */
struct gen {
	struct rpcrdma_hdr hdr;
	struct rpcrdma_read_segment reads[MAX_READS];
	struct rpcrdma_write_chunk writes[MAX_WRITES];
	struct rpcrdma_segment segs[MAX_WRITES + 1][MAX_SEGS];
	uint32_t prog, vers, proc; /* RPC call of an RDMA_MSG */
};

/* xorshift64*: a seeded generator that is the same everywhere. */
static uint64_t rng_state;

static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)((rnd64() >> 32) % n);
}

static void rnd_segment(struct rpcrdma_segment *s)
{
	s->handle = rnd32();
	s->length = rnd32();
	s->offset = rnd64();
}

static void rnd_chunk(struct rpcrdma_write_chunk *wc, struct rpcrdma_segment *segs)
{
	uint32_t i;

	wc->nsegs = 1 + below(MAX_SEGS);
	wc->segs = segs;
	for (i = 0; i < wc->nsegs; i++)
		rnd_segment(&segs[i]);
}

static void generate(struct gen *g)
{
	struct rpcrdma_hdr *h = &g->hdr;
	struct rpcrdma_chunk_lists *cl = &h->chunks;
	uint32_t i, kind = below(10);

	memset(g, 0, sizeof(*g));
	h->xid = rnd32();
	h->vers = RPCRDMA_VERS_1;
	h->credit = below(4) ? below(256) : rnd32();
	h->proc = kind < 6 ? RPCRDMA_MSG : kind < 9 ? RPCRDMA_NOMSG : RPCRDMA_ERROR;
	if (h->proc == RPCRDMA_ERROR) {
		h->error.code = below(2) ? RPCRDMA_ERR_VERS : RPCRDMA_ERR_CHUNK;
		if (h->error.code == RPCRDMA_ERR_VERS) {
			h->error.low = rnd32();
			h->error.high = rnd32();
		}
		return;
	}
	/* A read list on a third of the messages; positions may repeat (one chunk). */
	if (below(3) == 0) {
		cl->nreads = (uint16_t)(1 + below(MAX_READS));
		for (i = 0; i < cl->nreads; i++) {
			g->reads[i].position =
				i && below(2) ? g->reads[i - 1].position : 4 * below(1u << 20);
			rnd_segment(&g->reads[i].target);
		}
	}
	cl->reads = g->reads;
	cl->nwrites = (uint16_t)below(MAX_WRITES + 1);
	for (i = 0; i < cl->nwrites; i++)
		rnd_chunk(&g->writes[i], g->segs[i]);
	cl->writes = g->writes;
	cl->has_reply = below(2);
	if (cl->has_reply)
		rnd_chunk(&cl->reply, g->segs[MAX_WRITES]);
	g->prog = rnd32();
	g->vers = below(11); /* see the top: Wireshark's limit for unknown programs */
	g->proc = rnd32();
}

/* Transport header, then the RPC call of an RDMA_MSG; returns the length. */
static int encode(const struct gen *g, uint8_t *buf, uint32_t cap)
{
	struct rpcrdma_rpc_msg m = { .xid = g->hdr.xid, .type = RPCRDMA_RPC_CALL };
	int n, r;

	n = rpcrdma_hdr_encode(&g->hdr, buf, cap);
	if (n < 0 || g->hdr.proc != RPCRDMA_MSG)
		return n;
	m.call.rpcvers = RPCRDMA_RPC_VERS;
	m.call.prog = g->prog;
	m.call.vers = g->vers;
	m.call.proc = g->proc;
	r = rpcrdma_rpc_encode(&m, buf + n, cap - (uint32_t)n);
	return r < 0 ? r : n + r;
}

static int write_capture(const char *path, const struct gen *gens, int count)
{
	struct rpcrdma_roce_addr addr = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.src_ip = 0x0a000001,
		.dst_ip = 0x0a000002,
		.src_port = 0xc000,
	};
	static uint8_t msg[2048], frame[2200];
	uint32_t qp = 2 + below(0xfffffe);
	int i, n, len, ret = 0;
	pcap_dumper_t *w = NULL;
	pcap_t *pc;

	/* classic pcap, microsecond timestamps, written by libpcap */
	pc = pcap_open_dead(DLT_EN10MB, 65535);
	if (pc != NULL)
		w = pcap_dump_open(pc, path);
	if (w == NULL) {
		fprintf(stderr, "cannot write %s: %s\n", path, pc ? pcap_geterr(pc) : "no memory");
		if (pc != NULL)
			pcap_close(pc);
		return -1;
	}
	for (i = 0; i < count && !ret; i++) {
		struct rpcrdma_roce_pkt p = {
			.opcode = RPCRDMA_ROCE_SEND_ONLY,
			.dest_qp = qp,
			.psn = (uint32_t)i,
			.payload = msg,
		};

		n = encode(&gens[i], msg, sizeof(msg));
		p.payload_len = (uint32_t)n;
		addr.ip_id = (uint16_t)i;
		len = n < 0 ? n : rpcrdma_roce_build(&addr, &p, frame, sizeof(frame));
		if (len < 0) {
			ret = -1;
		} else {
			struct pcap_pkthdr h = { .caplen = (uint32_t)len, .len = (uint32_t)len };

			h.ts.tv_sec = i; /* a second apart */
			pcap_dump((u_char *)w, &h, frame);
		}
	}
	if (pcap_dump_flush(w) != 0)
		ret = -1;
	pcap_dump_close(w);
	pcap_close(pc);
	if (ret) {
		fprintf(stderr, "cannot encode or write the capture\n");
		return -1;
	}
	return 0;
}

/* The tshark fields, in column order. */
enum col {
	C_FRAME,
	C_XID,
	C_VERS,
	C_CREDIT,
	C_PROC,
	C_NREADS,
	C_NWRITES,
	C_NREPLY,
	C_SEGCOUNT,
	C_POSITION,
	C_HANDLE,
	C_LENGTH,
	C_OFFSET,
	C_ERRCODE,
	C_VERS_LOW,
	C_VERS_HIGH,
	C_RPC_XID,
	C_RPC_PROG,
	C_RPC_VERS,
	C_RPC_PROC,
	C_MAX,
};

static const char *const fields[C_MAX] = {
	"frame.number",
	"rpcordma.xid",
	"rpcordma.version",
	"rpcordma.flow_control",
	"rpcordma.msg_type",
	"rpcordma.reads_count",
	"rpcordma.writes_count",
	"rpcordma.reply_count",
	"rpcordma.segment_count",
	"rpcordma.position",
	"rpcordma.rdma_handle",
	"rpcordma.rdma_length",
	"rpcordma.rdma_offset",
	"rpcordma.errcode",
	"rpcordma.vers_low",
	"rpcordma.vers_high",
	"rpc.xid",
	"rpc.program",
	"rpc.programversion",
	"rpc.procedure",
};

/* A list of numbers as expected in one column, built as text. */
struct want {
	char s[2048];
	size_t len;
};

static void want_add(struct want *w, unsigned long long v)
{
	int n = snprintf(w->s + w->len, sizeof(w->s) - w->len, "%s%llu", w->len ? "," : "", v);

	if (n > 0 && (size_t)n < sizeof(w->s) - w->len)
		w->len += (size_t)n;
}

/* A tshark column ("0x0000002a,7") as decimal "42,7"; aggregated with ','. */
static void normalize(const char *col, char *out, size_t size)
{
	size_t len = 0;
	char *end;

	out[0] = '\0';
	while (*col) {
		unsigned long long v = strtoull(col, &end, 0);
		int n;

		if (end == col) {
			snprintf(out, size, "unparsable:%.64s", col);
			return;
		}
		n = snprintf(out + len, size - len, "%s%llu", len ? "," : "", v);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
		col = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return;
	}
}

/* The first value of a column, or "" ("3,3" -> "3": the NFS layer repeats some). */
static void first_value(char *s)
{
	char *comma = strchr(s, ',');

	if (comma)
		*comma = '\0';
}

static int nfail;
static int nsegs_checked;

static void expect(int msg, const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	if (nfail++ < MAX_REPORT)
		fprintf(stderr, "message %d: %s: tshark read '%s', encoded '%s'\n", msg, what, got,
			want);
}

static void expect_num(int msg, enum col c, const char *got, unsigned long long v)
{
	struct want w = { .len = 0 };

	want_add(&w, v);
	expect(msg, fields[c], got, w.s);
}

/* Compare one tshark line (columns split, normalized) with the message. */
static void compare(int i, char cols[C_MAX][2048], const struct gen *g)
{
	const struct rpcrdma_hdr *h = &g->hdr;
	const struct rpcrdma_chunk_lists *cl = &h->chunks;
	struct want segcount = { .len = 0 }, pos = { .len = 0 }, handle = { .len = 0 },
		    length = { .len = 0 }, offset = { .len = 0 };
	uint32_t k, s;

	expect_num(i, C_XID, cols[C_XID], h->xid);
	expect_num(i, C_VERS, cols[C_VERS], h->vers);
	expect_num(i, C_CREDIT, cols[C_CREDIT], h->credit);
	expect_num(i, C_PROC, cols[C_PROC], h->proc);
	if (h->proc == RPCRDMA_ERROR) {
		expect_num(i, C_ERRCODE, cols[C_ERRCODE], h->error.code);
		if (h->error.code == RPCRDMA_ERR_VERS) {
			expect_num(i, C_VERS_LOW, cols[C_VERS_LOW], h->error.low);
			expect_num(i, C_VERS_HIGH, cols[C_VERS_HIGH], h->error.high);
		}
		return;
	}
	expect_num(i, C_NREADS, cols[C_NREADS], cl->nreads);
	expect_num(i, C_NWRITES, cols[C_NWRITES], cl->nwrites);
	expect_num(i, C_NREPLY, cols[C_NREPLY], cl->has_reply);
	for (k = 0; k < cl->nreads; k++) {
		want_add(&pos, cl->reads[k].position);
		want_add(&handle, cl->reads[k].target.handle);
		want_add(&length, cl->reads[k].target.length);
		want_add(&offset, cl->reads[k].target.offset);
	}
	for (k = 0; k <= cl->nwrites; k++) {
		const struct rpcrdma_write_chunk *wc =
			k < cl->nwrites ? &cl->writes[k] : &cl->reply;

		if (k == cl->nwrites && !cl->has_reply)
			break;
		want_add(&segcount, wc->nsegs);
		for (s = 0; s < wc->nsegs; s++) {
			want_add(&handle, wc->segs[s].handle);
			want_add(&length, wc->segs[s].length);
			want_add(&offset, wc->segs[s].offset);
		}
	}
	nsegs_checked += cl->nreads;
	for (k = 0; k < cl->nwrites; k++)
		nsegs_checked += (int)cl->writes[k].nsegs;
	nsegs_checked += cl->has_reply ? (int)cl->reply.nsegs : 0;
	expect(i, fields[C_SEGCOUNT], cols[C_SEGCOUNT], segcount.s);
	expect(i, fields[C_POSITION], cols[C_POSITION], pos.s);
	expect(i, fields[C_HANDLE], cols[C_HANDLE], handle.s);
	expect(i, fields[C_LENGTH], cols[C_LENGTH], length.s);
	expect(i, fields[C_OFFSET], cols[C_OFFSET], offset.s);
	if (h->proc == RPCRDMA_MSG && cl->nreads == 0) {
		first_value(cols[C_RPC_XID]);
		first_value(cols[C_RPC_PROG]);
		first_value(cols[C_RPC_VERS]);
		first_value(cols[C_RPC_PROC]);
		expect_num(i, C_RPC_XID, cols[C_RPC_XID], h->xid);
		expect_num(i, C_RPC_PROG, cols[C_RPC_PROG], g->prog);
		expect_num(i, C_RPC_VERS, cols[C_RPC_VERS], g->vers);
		expect_num(i, C_RPC_PROC, cols[C_RPC_PROC], g->proc);
	} else {
		expect(i, "rpc.xid (none expected)", cols[C_RPC_XID], "");
	}
}

int main(int argc, char **argv)
{
	static char line[65536], cols[C_MAX][2048];
	char path[] = "/tmp/rpcrdma-tshark-XXXXXX";
	const char *tshark = argc > 1 ? argv[1] : "";
	unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20240229;
	int count = argc > 3 ? atoi(argv[3]) : 5000;
	int fd, i, nlines = 0, nrpc = 0;
	size_t cmdlen = 0;
	struct gen *gens;
	char *cmd;
	FILE *p;

	if (!tshark[0] || access(tshark, X_OK) != 0) {
		printf("tshark not found: skipping the Wireshark cross-check\n");
		return 77;
	}
	if (count < 1 || count > 1000000)
		return 1;
	rng_state = seed * 2 + 1;
	gens = calloc((size_t)count, sizeof(*gens));
	if (!gens)
		return 1;
	for (i = 0; i < count; i++)
		generate(&gens[i]);
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	if (write_capture(path, gens, count)) {
		unlink(path);
		return 1;
	}

	cmd = malloc(4096);
	if (!cmd)
		return 1;
	cmdlen += (size_t)snprintf(
		cmd, 4096,
		"'%s' -n -r '%s' --enable-heuristic rpcrdma_infiniband "
		"-o infiniband.try_heuristic_first:TRUE -o rpc.dissect_unknown_programs:TRUE "
		"-T fields -E separator='|' "
		"-E occurrence=a -E aggregator=,",
		tshark, path);
	for (i = 0; i < C_MAX; i++)
		cmdlen += (size_t)snprintf(cmd + cmdlen, 4096 - cmdlen, " -e %s", fields[i]);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return 1;
	}
	while (fgets(line, sizeof(line), p)) {
		char *s = line, *bar;
		int c, frame;

		line[strcspn(line, "\n")] = '\0';
		for (c = 0; c < C_MAX; c++) {
			bar = strchr(s, '|');
			if (bar)
				*bar = '\0';
			normalize(s, cols[c], sizeof(cols[c]));
			s = bar ? bar + 1 : s + strlen(s);
		}
		frame = atoi(cols[C_FRAME]);
		if (frame != nlines + 1 || frame > count) {
			if (nfail++ < MAX_REPORT)
				fprintf(stderr, "unexpected tshark line %d: '%s'\n", nlines + 1,
					line);
			break;
		}
		compare(frame - 1, cols, &gens[frame - 1]);
		nrpc += gens[frame - 1].hdr.proc == RPCRDMA_MSG &&
			!gens[frame - 1].hdr.chunks.nreads;
		nlines++;
	}
	if (pclose(p) != 0)
		fprintf(stderr, "tshark did not exit cleanly\n");
	unlink(path);
	free(cmd);
	free(gens);
	if (nlines != count) {
		fprintf(stderr, "tshark printed %d lines for %d frames\n", nlines, count);
		nfail++;
	}
	if (nfail) {
		fprintf(stderr, "%d mismatches (seed %llu)\n", nfail, seed);
		return 1;
	}
	printf("tshark read %d messages as encoded (%d segments, %d RPC call headers), "
	       "seed %llu\n",
	       count, nsegs_checked, nrpc, seed);
	return 0;
}
