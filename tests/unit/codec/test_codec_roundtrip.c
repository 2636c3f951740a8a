/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded random round trip: random valid transport headers (v1 and v2,
 * every proc, chunk shapes up to the default decode capacity), RPC call
 * and reply headers (AUTH_NONE, AUTH_SYS, other flavors) and transport
 * characteristics operations (carried in RDMA2_OPTIONAL), each:
 *   encode -> decode (from an exactly-sized heap copy) -> field-equal,
 *   the decoded length is the encoded length;
 *   re-encode the decoded structure -> identical bytes;
 *   format -> a line of the length returned.
 *
 * Usage: test_codec_roundtrip [seed [iterations]]. The seed is printed;
 * a failure prints the seed, the iteration and the bytes. Iteration i
 * draws from its own generator seeded with (seed, i), so one failing
 * iteration can be rerun alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cmp.h"
#include "codec_test.h"

#define DEFAULT_SEED	   0x5eed2016c0dec0deull
#define DEFAULT_ITERATIONS 20000u
#define MAX_REPORTED	   10u

/* ------------------------------------------------------------ generator */

/* splitmix64: small, fast, and every seed gives a good stream. */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng32(struct rng *r)
{
	return (uint32_t)(rng_next(r) >> 32);
}

/* Uniform enough in [0, n) for a test; n > 0. */
static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* A count in [0, max], small more often than not: shapes near 0 and at max both occur. */
static uint32_t rng_count(struct rng *r, uint32_t max)
{
	switch (rng_below(r, 4)) {
	case 0:
		return max;
	case 1:
		return rng_below(r, max + 1);
	default:
		return rng_below(r, (max < 3 ? max : 3) + 1);
	}
}

/* A 32-bit value: edge values now and then, else random. */
static uint32_t rng_word(struct rng *r)
{
	static const uint32_t edges[] = { 0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };

	if (rng_below(r, 8) == 0)
		return edges[rng_below(r, sizeof(edges) / sizeof(edges[0]))];
	return rng32(r);
}

static void rng_bytes(struct rng *r, uint8_t *p, uint32_t n)
{
	while (n--)
		*p++ = (uint8_t)rng32(r);
}

/* ------------------------------------------------------------- one case */

/* Storage behind the pointers of one random message. */
struct sample {
	struct rpcrdma_read_segment reads[RPCRDMA_HDR_DEFAULT_READS];
	struct rpcrdma_write_chunk writes[RPCRDMA_HDR_DEFAULT_WRITES];
	struct rpcrdma_segment
		segs[(RPCRDMA_HDR_DEFAULT_WRITES + 1) * RPCRDMA_HDR_DEFAULT_CHUNK_SEGS];
	uint8_t optinfo[2048];
	uint8_t cred[RPCRDMA_RPC_AUTH_MAX];
	uint8_t verf[RPCRDMA_RPC_AUTH_MAX];
	char machinename[RPCRDMA_RPC_MACHNAME_MAX];
	uint8_t xdata[RPCRDMA_XCHAR_MAX + 1][24];
};

static struct {
	uint64_t seed;
	uint32_t iteration;
	const char *what;
	unsigned long hdr, rpc, xchar, reported;
	/* Samples at each capacity or XDR bound: the generator reaches them. */
	unsigned long full_reads, full_writes, full_segs, full_xchars, full_name, full_gids,
		full_auth;
} run;

static void report(const char *why, const uint8_t *bytes, size_t len)
{
	if (run.reported++ >= MAX_REPORTED)
		return;
	fprintf(stderr, "FAIL seed=0x%016llx iteration=%u %s: %s\n", (unsigned long long)run.seed,
		run.iteration, run.what, why);
	if (bytes)
		test_hexdump("message", bytes, len);
}

static void random_segment(struct rng *r, struct rpcrdma_segment *s)
{
	s->handle = rng_word(r);
	s->length = rng_word(r);
	s->offset = rng_next(r);
}

static void random_chunk_lists(struct rng *r, struct sample *sm, struct rpcrdma_hdr *h)
{
	struct rpcrdma_chunk_lists *cl = &h->chunks;
	uint32_t i, j, used = 0;

	if (h->vers == RPCRDMA_VERS_2)
		cl->direction = rng_below(r, 2);
	if (h->vers == RPCRDMA_VERS_1 && h->proc == RPCRDMA_MSGP) {
		cl->align = rng_word(r);
		cl->thresh = rng_word(r);
	}
	cl->nreads = (uint16_t)rng_count(r, RPCRDMA_HDR_DEFAULT_READS);
	run.full_reads += cl->nreads == RPCRDMA_HDR_DEFAULT_READS;
	cl->reads = sm->reads;
	for (i = 0; i < cl->nreads; i++) {
		/* Several segments often share a position (one chunk). */
		sm->reads[i].position =
			i && rng_below(r, 2) ? sm->reads[i - 1].position : rng_word(r) & ~3u;
		random_segment(r, &sm->reads[i].target);
	}
	cl->nwrites = (uint16_t)rng_count(r, RPCRDMA_HDR_DEFAULT_WRITES);
	run.full_writes += cl->nwrites == RPCRDMA_HDR_DEFAULT_WRITES;
	cl->writes = sm->writes;
	for (i = 0; i < cl->nwrites; i++) {
		sm->writes[i].nsegs = rng_count(r, RPCRDMA_HDR_DEFAULT_CHUNK_SEGS);
		run.full_segs += sm->writes[i].nsegs == RPCRDMA_HDR_DEFAULT_CHUNK_SEGS;
		sm->writes[i].segs = &sm->segs[used];
		for (j = 0; j < sm->writes[i].nsegs; j++)
			random_segment(r, &sm->segs[used++]);
	}
	cl->has_reply = rng_below(r, 2);
	if (cl->has_reply) {
		cl->reply.nsegs = rng_count(r, RPCRDMA_HDR_DEFAULT_CHUNK_SEGS);
		cl->reply.segs = &sm->segs[used];
		for (j = 0; j < cl->reply.nsegs; j++)
			random_segment(r, &sm->segs[used++]);
	}
}

static void random_hdr(struct rng *r, struct sample *sm, struct rpcrdma_hdr *h)
{
	static const uint32_t v2_procs[] = { RPCRDMA_MSG, RPCRDMA_NOMSG, RPCRDMA_ERROR,
					     RPCRDMA_OPTIONAL };

	memset(h, 0, sizeof(*h));
	h->xid = rng_word(r);
	h->credit = rng_word(r);
	h->vers = 1 + rng_below(r, 2);
	if (h->vers == RPCRDMA_VERS_1)
		h->proc = rng_below(r, 5);
	else
		h->proc = v2_procs[rng_below(r, 4)];
	switch (h->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		random_chunk_lists(r, sm, h);
		break;
	case RPCRDMA_ERROR:
		h->error.code = 1 + rng_below(r, h->vers == RPCRDMA_VERS_1 ? 2 : 3);
		if (h->error.code == RPCRDMA_ERR_VERS) {
			h->error.low = rng_word(r);
			h->error.high = rng_word(r);
		}
		break;
	case RPCRDMA_OPTIONAL:
		h->optional.optdir = rng_below(r, 2);
		h->optional.opttype = rng_word(r);
		h->optional.optinfo_len = rng_count(r, 64);
		h->optional.optinfo = sm->optinfo;
		rng_bytes(r, sm->optinfo, h->optional.optinfo_len);
		break;
	default: /* RDMA_DONE */
		break;
	}
}

static void random_auth(struct rng *r, struct rpcrdma_rpc_auth *a, uint8_t *body)
{
	static const uint32_t flavors[] = { RPCRDMA_RPC_AUTH_NONE, RPCRDMA_RPC_AUTH_SHORT,
					    RPCRDMA_RPC_AUTH_DH, RPCRDMA_RPC_RPCSEC_GSS, 390003 };

	a->flavor = flavors[rng_below(r, sizeof(flavors) / sizeof(flavors[0]))];
	a->len = a->flavor == RPCRDMA_RPC_AUTH_NONE ? 0 : rng_count(r, RPCRDMA_RPC_AUTH_MAX);
	a->body = body;
	rng_bytes(r, body, a->len);
	run.full_auth += a->len == RPCRDMA_RPC_AUTH_MAX;
}

static void random_rpc(struct rng *r, struct sample *sm, struct rpcrdma_rpc_msg *m)
{
	struct rpcrdma_rpc_reply *rep = &m->reply;
	struct rpcrdma_rpc_authsys *sys;
	uint32_t i;
	int ret;

	memset(m, 0, sizeof(*m));
	m->xid = rng_word(r);
	m->type = rng_below(r, 2);
	if (m->type == RPCRDMA_RPC_CALL) {
		m->call.rpcvers = RPCRDMA_RPC_VERS;
		m->call.prog = rng_word(r);
		m->call.vers = rng_word(r);
		m->call.proc = rng_word(r);
		random_auth(r, &m->call.verf, sm->verf);
		if (rng_below(r, 2)) {
			random_auth(r, &m->call.cred, sm->cred);
			return;
		}
		sys = &m->call.sys;
		sys->stamp = rng_word(r);
		sys->machinename_len = rng_count(r, RPCRDMA_RPC_MACHNAME_MAX);
		run.full_name += sys->machinename_len == RPCRDMA_RPC_MACHNAME_MAX;
		for (i = 0; i < sys->machinename_len; i++)
			sm->machinename[i] = (char)('a' + rng_below(r, 26));
		sys->machinename = sm->machinename;
		sys->uid = rng_word(r);
		sys->gid = rng_word(r);
		sys->ngids = rng_count(r, RPCRDMA_RPC_AUTHSYS_NGIDS);
		run.full_gids += sys->ngids == RPCRDMA_RPC_AUTHSYS_NGIDS;
		for (i = 0; i < sys->ngids; i++)
			sys->gids[i] = rng_word(r);
		ret = rpcrdma_rpc_authsys_encode(sys, sm->cred, sizeof(sm->cred));
		if (ret < 0) {
			report("authsys encode failed", NULL, 0);
			ret = 0;
		}
		m->call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
		m->call.cred.len = (uint32_t)ret;
		m->call.cred.body = sm->cred;
		return;
	}
	rep->stat = rng_below(r, 2);
	if (rep->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		random_auth(r, &rep->verf, sm->verf);
		rep->accept_stat = rng_below(r, RPCRDMA_RPC_SYSTEM_ERR + 1);
		if (rep->accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			rep->low = rng_word(r);
			rep->high = rng_word(r);
		}
		return;
	}
	rep->reject_stat = rng_below(r, 2);
	if (rep->reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		rep->low = rng_word(r);
		rep->high = rng_word(r);
	} else {
		rep->auth_stat = rng_word(r);
	}
}

static void random_xcharval(struct rng *r, struct rpcrdma_xcharval *v, uint8_t *data)
{
	memset(v, 0, sizeof(*v));
	switch (rng_below(r, 5)) {
	case 0:
		v->which = RPCRDMA_XCHAR_RBSIZ;
		v->value = rng_word(r);
		break;
	case 1:
		v->which = RPCRDMA_XCHAR_REQREMINV;
		v->value = rng_below(r, 2);
		break;
	case 2:
		v->which = RPCRDMA_XCHAR_BRS;
		v->value = rng_below(r, RPCRDMA_BKREQSUP_GENL + 1);
		break;
	default:
		/* Unknown: 0, 4.., or the experimental range; kept as opaque data. */
		v->which = rng_below(r, 2) ? RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + rng_below(r, 256)
					   : (rng_below(r, 2) ? 0 : 4 + rng_below(r, 1000));
		v->len = rng_count(r, 24);
		v->data = data;
		rng_bytes(r, data, v->len);
		return;
	}
	v->known = true;
	v->len = 4;
}

static void random_xcharspec(struct rng *r, struct sample *sm, struct rpcrdma_xcharspec *spec)
{
	uint32_t i;

	spec->n = rng_count(r, RPCRDMA_XCHAR_MAX);
	run.full_xchars += spec->n == RPCRDMA_XCHAR_MAX;
	for (i = 0; i < spec->n; i++)
		random_xcharval(r, &spec->vals[i], sm->xdata[i]);
}

static void random_xchar(struct rng *r, struct sample *sm, struct rpcrdma_xchar_msg *x)
{
	memset(x, 0, sizeof(*x));
	x->opttype = 1 + rng_below(r, 4);
	switch (x->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		random_xcharspec(r, sm, &x->initxch.start);
		x->initxch.nochg.bits = rng_word(r);
		break;
	case RPCRDMA_ROPT_REQXCH:
		random_xcharspec(r, sm, &x->reqxch.want);
		break;
	case RPCRDMA_ROPT_RESPXCH:
		x->respxch.done.bits = rng_word(r);
		x->respxch.rej.bits = rng_word(r);
		x->respxch.pend.bits = rng_word(r);
		break;
	default:
		random_xcharval(r, &x->updxch.now, sm->xdata[RPCRDMA_XCHAR_MAX]);
		x->updxch.pendclr = rng_below(r, 2);
		break;
	}
}

/* ----------------------------------------------------------- the checks */

static uint8_t enc1[8192], enc2[8192];
static char line[8192];

/* Encode, decode from an exact heap copy, compare, re-encode, compare bytes. */
static void roundtrip_hdr(const struct rpcrdma_hdr *h)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *d = rpcrdma_hdr_storage_init(&st);
	int n, m, f;
	uint8_t *buf;
	char why[160];

	n = rpcrdma_hdr_encode(h, enc1, sizeof(enc1));
	if (n < RPCRDMA_HDR_FIXED_LEN || n != rpcrdma_hdr_encoded_len(h)) {
		snprintf(why, sizeof(why), "encode returned %d, encoded_len %d", n,
			 rpcrdma_hdr_encoded_len(h));
		report(why, NULL, 0);
		return;
	}
	buf = test_heap_copy(enc1, (size_t)n);
	m = rpcrdma_hdr_decode(d, buf, (uint32_t)n);
	if (m != n) {
		snprintf(why, sizeof(why), "decode returned %d (%s), want %d", m,
			 rpcrdma_errname(m), n);
		report(why, enc1, (size_t)n);
	} else if (codec_hdr_cmp(d, h, why, sizeof(why))) {
		report(why, enc1, (size_t)n);
	} else {
		m = rpcrdma_hdr_encode(d, enc2, sizeof(enc2));
		if (m != n || memcmp(enc1, enc2, (size_t)n) != 0)
			report("re-encode differs", enc2, m > 0 ? (size_t)m : 0);
		f = rpcrdma_hdr_format(d, line, sizeof(line));
		if (f <= 0 || (size_t)f != strlen(line))
			report("format length", NULL, 0);
	}
	free(buf);
	run.hdr++;
}

static void roundtrip_rpc(const struct rpcrdma_rpc_msg *msg)
{
	struct rpcrdma_rpc_msg d;
	int n, m, f;
	uint8_t *buf;
	char why[160];

	n = rpcrdma_rpc_encode(msg, enc1, sizeof(enc1));
	if (n < 8) {
		snprintf(why, sizeof(why), "encode returned %d", n);
		report(why, NULL, 0);
		return;
	}
	buf = test_heap_copy(enc1, (size_t)n);
	m = rpcrdma_rpc_decode(&d, buf, (uint32_t)n);
	if (m != n) {
		snprintf(why, sizeof(why), "decode returned %d (%s), want %d", m,
			 rpcrdma_errname(m), n);
		report(why, enc1, (size_t)n);
	} else if (codec_rpc_cmp(&d, msg, why, sizeof(why))) {
		report(why, enc1, (size_t)n);
	} else {
		m = rpcrdma_rpc_encode(&d, enc2, sizeof(enc2));
		if (m != n || memcmp(enc1, enc2, (size_t)n) != 0)
			report("re-encode differs", enc2, m > 0 ? (size_t)m : 0);
		f = rpcrdma_rpc_format(&d, line, sizeof(line));
		if (f <= 0 || (size_t)f != strlen(line))
			report("format length", NULL, 0);
	}
	free(buf);
	run.rpc++;
}

/* The operation travels as rdma_optinfo of an RDMA2_OPTIONAL header. */
static void roundtrip_xchar(struct rng *r, struct sample *sm, const struct rpcrdma_xchar_msg *x)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr h, *d = rpcrdma_hdr_storage_init(&st);
	struct rpcrdma_xchar_msg dx;
	int n, m, f;
	uint8_t *buf;
	char why[160];

	n = rpcrdma_xchar_encode(x, sm->optinfo, sizeof(sm->optinfo));
	if (n < 0) {
		snprintf(why, sizeof(why), "xchar encode returned %d", n);
		report(why, NULL, 0);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.xid = rng_word(r);
	h.vers = RPCRDMA_VERS_2;
	h.credit = rng_word(r);
	h.proc = RPCRDMA_OPTIONAL;
	h.optional.optdir = rng_below(r, 2);
	h.optional.opttype = x->opttype;
	h.optional.optinfo_len = (uint32_t)n;
	h.optional.optinfo = sm->optinfo;
	n = rpcrdma_hdr_encode(&h, enc1, sizeof(enc1));
	buf = test_heap_copy(enc1, n > 0 ? (size_t)n : 0);
	m = rpcrdma_hdr_decode(d, buf, n > 0 ? (uint32_t)n : 0);
	if (n <= 0 || m != n) {
		snprintf(why, sizeof(why), "hdr encode %d, decode %d (%s)", n, m,
			 rpcrdma_errname(m));
		report(why, enc1, n > 0 ? (size_t)n : 0);
		goto out;
	}
	m = rpcrdma_xchar_decode(&dx, d->optional.opttype, d->optional.optinfo,
				 d->optional.optinfo_len);
	if (m != 0) {
		snprintf(why, sizeof(why), "xchar decode returned %d (%s)", m, rpcrdma_errname(m));
		report(why, enc1, (size_t)n);
	} else if (codec_xchar_cmp(&dx, x, why, sizeof(why))) {
		report(why, enc1, (size_t)n);
	} else {
		m = rpcrdma_xchar_encode(&dx, enc2, sizeof(enc2));
		if (m != (int)d->optional.optinfo_len ||
		    memcmp(enc2, d->optional.optinfo, (size_t)m) != 0)
			report("xchar re-encode differs", enc2, m > 0 ? (size_t)m : 0);
		f = rpcrdma_xchar_format(&dx, line, sizeof(line));
		if (f <= 0 || (size_t)f != strlen(line))
			report("format length", NULL, 0);
	}
out:
	free(buf);
	run.xchar++;
}

int main(int argc, char **argv)
{
	static struct sample sm;
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_rpc_msg msg;
	uint32_t iterations = DEFAULT_ITERATIONS;
	struct rpcrdma_hdr h;
	struct rng r;

	run.seed = argc > 1 ? strtoull(argv[1], NULL, 0) : DEFAULT_SEED;
	if (argc > 2)
		iterations = (uint32_t)strtoul(argv[2], NULL, 0);
	printf("seed=0x%016llx iterations=%u\n", (unsigned long long)run.seed, iterations);

	for (run.iteration = 0; run.iteration < iterations; run.iteration++) {
		r.s = run.seed ^ ((uint64_t)run.iteration * 0xd1342543de82ef95ull);
		rng_next(&r);
		switch (rng_below(&r, 3)) {
		case 0:
			run.what = "hdr";
			random_hdr(&r, &sm, &h);
			roundtrip_hdr(&h);
			break;
		case 1:
			run.what = "rpc";
			random_rpc(&r, &sm, &msg);
			roundtrip_rpc(&msg);
			break;
		default:
			run.what = "xchar";
			random_xchar(&r, &sm, &x);
			roundtrip_xchar(&r, &sm, &x);
			break;
		}
	}
	printf("%lu headers, %lu RPC headers, %lu xchar operations\n", run.hdr, run.rpc, run.xchar);
	printf("at capacity: %lu read lists, %lu write lists, %lu chunks, %lu xcharspecs; "
	       "at XDR bound: %lu machinenames, %lu gid lists, %lu auth bodies\n",
	       run.full_reads, run.full_writes, run.full_segs, run.full_xchars, run.full_name,
	       run.full_gids, run.full_auth);
	test_checks = run.hdr + run.rpc + run.xchar;
	test_failures = run.reported;
	/* A full run must have reached every capacity and bound. */
	if (iterations >= DEFAULT_ITERATIONS)
		CHECK(run.full_reads && run.full_writes && run.full_segs && run.full_xchars &&
			      run.full_name && run.full_gids && run.full_auth,
		      "the generator missed a capacity or bound");
	return test_summary("test_codec_roundtrip");
}
