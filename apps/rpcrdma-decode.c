/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-decode: decode RPC-over-RDMA messages (transport header, the
 * transport characteristics of RDMA2_OPTIONAL, and the ONC RPC header that
 * follows) from files, hex strings, standard input or RoCEv2 captures, as
 * one line of text or JSON per message. See --help.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>
#include <zlib.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_roce.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xchar.h>

#define PROG	"rpcrdma-decode"
#define MSG_MAX (16u << 20) /* largest message read from a file, stdin or --hex */

#define EXIT_DECODE 1 /* some message or input could not be decoded */
#define EXIT_USAGE  2

static const char usage_line[] =
	"usage: " PROG " [--json] [--hex HEX] [--pcap FILE] [--samples] [FILE...|-]\n";

static const char help_text[] =
	"NAME\n"
	"    " PROG " - decode RPC-over-RDMA messages\n"
	"\n"
	"SYNOPSIS\n"
	"    " PROG " [--json] [--hex HEX] [--pcap FILE] [--samples] [FILE...|-]\n"
	"\n"
	"DESCRIPTION\n"
	"    Decodes RPC-over-RDMA version 1 (RFC 8166) and version 2 messages: the\n"
	"    transport header with its chunk lists, the transport characteristics\n"
	"    carried by RDMA2_OPTIONAL (ROPT_INITXCH, ROPT_REQXCH, ROPT_RESPXCH,\n"
	"    ROPT_UPDXCH), and the ONC RPC call or reply header that follows the\n"
	"    transport header of RDMA_MSG, RDMA2_MSG and of an RDMA2_OPTIONAL that\n"
	"    carries a payload.\n"
	"\n"
	"    Each FILE holds one raw message: the transport header, then the RPC\n"
	"    message if any, as received in one Send. '-' reads one message from\n"
	"    standard input. Inputs are decoded in the order given, and each\n"
	"    message prints one line on standard output.\n"
	"\n"
	"    Text lines show the transport header, then the transport\n"
	"    characteristics, then the RPC header. With --json each line is one\n"
	"    JSON object with these keys, where they apply:\n"
	"      xid, vers, credit      integers\n"
	"      proc                   spec name: \"RDMA_MSG\", \"RDMA2_OPTIONAL\", ...\n"
	"      hdr_len                bytes of transport header\n"
	"      direction              v2 MSG/NOMSG: \"CALL\" or \"REPLY\"\n"
	"      align, thresh          v1 RDMA_MSGP: rdma_align, rdma_thresh\n"
	"      reads                  [{position, handle, length, offset}, ...]\n"
	"      writes                 [[{handle, length, offset}, ...], ...]\n"
	"      reply                  null, or [{handle, length, offset}, ...]\n"
	"      error                  RDMA_ERROR/RDMA2_ERROR: {code, low, high};\n"
	"                             code is the spec name; low and high only\n"
	"                             with ERR_VERS/RDMA2_ERR_VERS\n"
	"      optional               RDMA2_OPTIONAL: {optdir, opttype, optinfo};\n"
	"                             opttype is the ROPT_* name, or its number\n"
	"                             when unknown, and then optinfo is a hex\n"
	"                             string; otherwise optinfo is an object:\n"
	"                               ROPT_INITXCH {start, nochg}\n"
	"                               ROPT_REQXCH  {want}\n"
	"                               ROPT_RESPXCH {done, rej, pend}\n"
	"                               ROPT_UPDXCH  {now, pendclr}\n"
	"                             a characteristics set is an object from\n"
	"                             names (XCHAR_RBSIZ: integer,\n"
	"                             XCHAR_REQREMINV: boolean, XCHAR_BRS:\n"
	"                             BKREQSUP_* name; other ids: the decimal id,\n"
	"                             data as hex) in wire order; a subset is a\n"
	"                             list of element positions\n"
	"      rpc                    call: {xid, type, prog, vers, proc}; reply:\n"
	"                             {xid, type, stat, accept_stat | reject_stat,\n"
	"                             low, high (PROG_MISMATCH, RPC_MISMATCH),\n"
	"                             auth_stat (AUTH_ERROR)}\n"
	"    All numbers are JSON integers (offsets are 64-bit). A message that\n"
	"    cannot be decoded prints {\"error\": \"<reason>\"} (in text, a line\n"
	"    starting with \"error:\"); the other messages are still decoded.\n"
	"\n"
	"OPTIONS\n"
	"    --json        print one JSON object per message\n"
	"    --hex HEX     decode one message given as hex digits; spaces, tabs,\n"
	"                  newlines and colons between digits are ignored\n"
	"    --pcap FILE   decode the payload of every RoCEv2 SEND_ONLY and\n"
	"                  SEND_ONLY_WITH_INVALIDATE of a pcap or pcapng capture\n"
	"                  (Ethernet); other frames and opcodes are skipped; a\n"
	"                  RoCEv2 frame whose IPv4 checksum or ICRC is wrong is an\n"
	"                  error\n"
	"    --samples     decode built-in sample messages, one of each kind\n"
	"    -h, --help    show this help\n"
	"    FILE          a file holding one message, at most 16 MiB; '-' for\n"
	"                  standard input\n"
	"\n"
	"EXIT STATUS\n"
	"    0   every message was decoded\n"
	"    1   a message, file or capture could not be decoded or read\n"
	"    2   bad options\n"
	"\n"
	"EXAMPLES\n"
	"    " PROG " --samples\n"
	"    " PROG " --json msg.bin\n"
	"    " PROG " --hex '00000001 00000001 00000020 00000001 00000000 00000000 "
	"00000000'\n"
	"    " PROG " --json --pcap trace.pcapng | jq .rpc\n"
	"    cat msg.bin | " PROG " -\n";

/* ---------------------------------------------------------------- output buffer */

/* One output line, built before it is printed. */
struct line {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
};

static void line_reserve(struct line *l, size_t n)
{
	size_t cap = l->cap ? l->cap : 256;
	char *p;

	if (l->oom || l->len + n + 1 <= l->cap)
		return;
	while (cap < l->len + n + 1)
		cap *= 2;
	p = realloc(l->buf, cap);
	if (!p) {
		l->oom = true;
		return;
	}
	l->buf = p;
	l->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	line_reserve(l, (size_t)n);
	if (l->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	l->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	k = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (k > n)
		return 0;
	c = s[0] & (0x7f >> k);
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((k == 3 && c < 0x800) || (k == 4 && c < 0x10000) || (c >= 0xd800 && c <= 0xdfff) ||
	    c > 0x10ffff)
		return 0;
	return k;
}

/*
 * A JSON string (RFC 8259 section 7): quotes, backslashes and control
 * characters escaped; valid UTF-8 kept; any other byte becomes U+FFFD.
 */
static void add_json_str(struct line *l, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, k;

	add(l, "\"");
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			add(l, "\\%c", c);
		} else if (c == '\n') {
			add(l, "\\n");
		} else if (c == '\t') {
			add(l, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			add(l, "\\u%04x", c);
		} else if (c < 0x80) {
			add(l, "%c", c);
		} else if ((k = utf8_len(s + i, n - i)) != 0) {
			add(l, "%.*s", (int)k, (const char *)s + i);
			i += k;
			continue;
		} else {
			add(l, "\\ufffd");
		}
		i++;
	}
	add(l, "\"");
}

/* Opaque data (of an unknown characteristic or option) as a JSON string of hex digits. */
static void add_json_hex(struct line *l, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	line_reserve(l, (size_t)n * 2 + 2);
	add(l, "\"");
	for (i = 0; i < n; i++)
		add(l, "%02x", p[i]);
	add(l, "\"");
}

/* ---------------------------------------------------------------- results */

struct decode_opts {
	bool json;
};

static int nerrors;

static void print_line(struct line *l)
{
	if (l->oom) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(EXIT_DECODE);
	}
	fwrite(l->buf, 1, l->len, stdout);
	fputc('\n', stdout);
	l->len = 0;
}

/*
 * Report an input that cannot be decoded: {"error": "<reason>"}, or in text
 * "error: <where>: <reason>" ("error: <reason>" when where is NULL).
 */
static void report_error(const struct decode_opts *o, const char *where, const char *reason)
{
	struct line l = { 0 };

	if (o->json) {
		add(&l, "{\"error\": ");
		add_json_str(&l, reason);
		add(&l, "}");
	} else {
		add(&l, "error: %s%s%s", where ? where : "", where ? ": " : "", reason);
	}
	print_line(&l);
	free(l.buf);
	nerrors++;
}

/* A codec error: "<NAME>: <description>[ in <part>]". */
static void report_codec_error(const struct decode_opts *o, const char *where, int err,
			       const char *part)
{
	char reason[256];

	if (err <= -RPCRDMA_ERRNO_BASE)
		snprintf(reason, sizeof(reason), "%s: %s%s%s", rpcrdma_errname(err),
			 rpcrdma_strerror(err), part ? " in " : "", part ? part : "");
	else
		snprintf(reason, sizeof(reason), "%s%s%s", rpcrdma_strerror(err),
			 part ? " in " : "", part ? part : "");
	report_error(o, where, reason);
}

/* ---------------------------------------------------------------- JSON */

static const char *msg_type_name(uint32_t v)
{
	return v == RPCRDMA_CALL ? "CALL" : "REPLY";
}

/* Prints one element of a list; elem points into the list's array. */
typedef void (*json_elem_fn)(struct line *l, const void *elem);

/*
 * The n elements of an array, size bytes apart, between open and close and
 * with ", " between them: each chunk list and each characteristics set is
 * one. open may start with the member's key.
 */
static void json_list(struct line *l, const char *open, const char *close, const void *elems,
		      size_t size, uint32_t n, json_elem_fn elem)
{
	const char *p = elems;
	uint32_t i;

	add(l, "%s", open);
	for (i = 0; i < n; i++) {
		add(l, i ? ", " : "");
		elem(l, p + (size_t)i * size);
	}
	add(l, "%s", close);
}

/* A json_list() element: one segment of a write or reply chunk. */
static void json_segment(struct line *l, const void *elem)
{
	const struct rpcrdma_segment *s = elem;

	add(l, "{\"handle\": %u, \"length\": %u, \"offset\": %llu}", s->handle, s->length,
	    (unsigned long long)s->offset);
}

/* A json_list() element: one read list entry, its position then its segment. */
static void json_read_segment(struct line *l, const void *elem)
{
	const struct rpcrdma_read_segment *r = elem;

	add(l, "{\"position\": %u, \"handle\": %u, \"length\": %u, \"offset\": %llu}", r->position,
	    r->target.handle, r->target.length, (unsigned long long)r->target.offset);
}

/* A json_list() element: one chunk of the write list; the reply chunk too. */
static void json_chunk(struct line *l, const void *elem)
{
	const struct rpcrdma_write_chunk *wc = elem;

	json_list(l, "[", "]", wc->segs, sizeof(*wc->segs), wc->nsegs, json_segment);
}

static void json_chunk_lists(struct line *l, const struct rpcrdma_hdr *hdr)
{
	const struct rpcrdma_chunk_lists *cl = &hdr->chunks;

	if (hdr->vers == RPCRDMA_VERS_2)
		add(l, ", \"direction\": \"%s\"", msg_type_name(cl->direction));
	else if (hdr->proc == RPCRDMA_MSGP)
		add(l, ", \"align\": %u, \"thresh\": %u", cl->align, cl->thresh);
	json_list(l, ", \"reads\": [", "]", cl->reads, sizeof(*cl->reads), cl->nreads,
		  json_read_segment);
	json_list(l, ", \"writes\": [", "]", cl->writes, sizeof(*cl->writes), cl->nwrites,
		  json_chunk);
	add(l, ", \"reply\": ");
	if (cl->has_reply)
		json_chunk(l, &cl->reply);
	else
		add(l, "null");
}

/* A json_list() element: "name": value of one characteristic. */
static void json_xcharval(struct line *l, const void *elem)
{
	const struct rpcrdma_xcharval *v = elem;

	if (!v->known) {
		add(l, "\"%u\": ", v->which);
		add_json_hex(l, v->data, v->len);
		return;
	}
	add(l, "\"%s\": ", rpcrdma_xchar_name(v->which));
	switch (v->which) {
	case RPCRDMA_XCHAR_REQREMINV:
		add(l, "%s", v->value ? "true" : "false");
		break;
	case RPCRDMA_XCHAR_BRS:
		add(l, "\"%s\"", rpcrdma_bkreqsup_name(v->value));
		break;
	default:
		add(l, "%u", v->value);
		break;
	}
}

/* key (what comes before the value, e.g. "{\"want\": "), then the set as an object. */
static void json_xcharspec(struct line *l, const char *key, const struct rpcrdma_xcharspec *spec)
{
	add(l, "%s", key);
	json_list(l, "{", "}", spec->vals, sizeof(spec->vals[0]), spec->n, json_xcharval);
}

/* key as for json_xcharspec(), then the subset's element positions as an array. */
static void json_subset(struct line *l, const char *key, const struct rpcrdma_xcharsubset *sub)
{
	bool first = true;
	uint32_t i;

	add(l, "%s[", key);
	for (i = 0; i < 32; i++) {
		if (sub->bits & (1u << i)) {
			add(l, "%s%u", first ? "" : ", ", i);
			first = false;
		}
	}
	add(l, "]");
}

static void json_optional(struct line *l, const struct rpcrdma_hdr_optional *opt,
			  const struct rpcrdma_xchar_msg *x)
{
	add(l, ", \"optional\": {\"optdir\": \"%s\", \"opttype\": ", msg_type_name(opt->optdir));
	if (!x) {
		add(l, "%u, \"optinfo\": ", opt->opttype);
		add_json_hex(l, opt->optinfo, opt->optinfo_len);
		add(l, "}");
		return;
	}
	add(l, "\"%s\", \"optinfo\": ", rpcrdma_ropt_name(opt->opttype));
	switch (x->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		json_xcharspec(l, "{\"start\": ", &x->initxch.start);
		json_subset(l, ", \"nochg\": ", &x->initxch.nochg);
		break;
	case RPCRDMA_ROPT_REQXCH:
		json_xcharspec(l, "{\"want\": ", &x->reqxch.want);
		break;
	case RPCRDMA_ROPT_RESPXCH:
		json_subset(l, "{\"done\": ", &x->respxch.done);
		json_subset(l, ", \"rej\": ", &x->respxch.rej);
		json_subset(l, ", \"pend\": ", &x->respxch.pend);
		break;
	default: /* RPCRDMA_ROPT_UPDXCH */
		add(l, "{\"now\": {");
		json_xcharval(l, &x->updxch.now);
		add(l, "}, \"pendclr\": %s", x->updxch.pendclr ? "true" : "false");
		break;
	}
	add(l, "}}");
}

static void json_rpc(struct line *l, const struct rpcrdma_rpc_msg *m)
{
	const struct rpcrdma_rpc_reply *r = &m->reply;

	add(l, ", \"rpc\": {\"xid\": %u, \"type\": \"%s\"", m->xid,
	    rpcrdma_rpc_msg_type_name(m->type));
	if (m->type == RPCRDMA_RPC_CALL) {
		add(l, ", \"prog\": %u, \"vers\": %u, \"proc\": %u}", m->call.prog, m->call.vers,
		    m->call.proc);
		return;
	}
	add(l, ", \"stat\": \"%s\"", rpcrdma_rpc_reply_stat_name(r->stat));
	if (r->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		add(l, ", \"accept_stat\": \"%s\"", rpcrdma_rpc_accept_stat_name(r->accept_stat));
		if (r->accept_stat == RPCRDMA_RPC_PROG_MISMATCH)
			add(l, ", \"low\": %u, \"high\": %u", r->low, r->high);
	} else {
		add(l, ", \"reject_stat\": \"%s\"", rpcrdma_rpc_reject_stat_name(r->reject_stat));
		if (r->reject_stat == RPCRDMA_RPC_RPC_MISMATCH)
			add(l, ", \"low\": %u, \"high\": %u", r->low, r->high);
		else
			add(l, ", \"auth_stat\": %u", r->auth_stat);
	}
	add(l, "}");
}

static void json_message(struct line *l, const struct rpcrdma_hdr *hdr,
			 const struct rpcrdma_xchar_msg *x, const struct rpcrdma_rpc_msg *rpc)
{
	add(l, "{\"xid\": %u, \"vers\": %u, \"credit\": %u, \"proc\": \"%s\", \"hdr_len\": %u",
	    hdr->xid, hdr->vers, hdr->credit, rpcrdma_proc_name(hdr->vers, hdr->proc),
	    hdr->hdr_len);
	switch (hdr->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		json_chunk_lists(l, hdr);
		break;
	case RPCRDMA_ERROR:
		add(l, ", \"error\": {\"code\": \"%s\"",
		    rpcrdma_errcode_name(hdr->vers, hdr->error.code));
		if (hdr->error.code == RPCRDMA_ERR_VERS)
			add(l, ", \"low\": %u, \"high\": %u", hdr->error.low, hdr->error.high);
		add(l, "}");
		break;
	case RPCRDMA_OPTIONAL:
		json_optional(l, &hdr->optional, x);
		break;
	default: /* RDMA_DONE: the fixed fields only */
		break;
	}
	if (rpc)
		json_rpc(l, rpc);
	add(l, "}");
}

/* ---------------------------------------------------------------- text */

/* Append what a codec formatter writes (snprintf convention), at any length. */
#define ADD_FORMATTED(l, fn, obj)                                             \
	do {                                                                  \
		int n_ = fn(obj, NULL, 0);                                    \
		if (n_ > 0) {                                                 \
			line_reserve(l, (size_t)n_);                          \
			if (!(l)->oom) {                                      \
				fn(obj, (l)->buf + (l)->len, (size_t)n_ + 1); \
				(l)->len += (size_t)n_;                       \
			}                                                     \
		}                                                             \
	} while (0)

static void text_message(struct line *l, const char *prefix, const struct rpcrdma_hdr *hdr,
			 const struct rpcrdma_xchar_msg *x, const struct rpcrdma_rpc_msg *rpc)
{
	if (prefix)
		add(l, "%s: ", prefix);
	ADD_FORMATTED(l, rpcrdma_hdr_format, hdr);
	if (x) {
		add(l, " ");
		ADD_FORMATTED(l, rpcrdma_xchar_format, x);
	}
	if (rpc) {
		add(l, " ");
		ADD_FORMATTED(l, rpcrdma_rpc_format, rpc);
	}
}

/* ---------------------------------------------------------------- decoding */

/*
 * Decode one message and print its line. where names it in text error
 * lines; prefix (or NULL) starts its text line.
 */
static void decode_message(const struct decode_opts *o, const uint8_t *buf, uint32_t len,
			   const char *where, const char *prefix)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *hdr = rpcrdma_hdr_storage_init(&st);
	struct rpcrdma_xchar_msg xm, *x = NULL;
	struct rpcrdma_rpc_msg rm, *rpc = NULL;
	struct line l = { 0 };
	int ret;

	ret = rpcrdma_hdr_decode(hdr, buf, len);
	if (ret < 0) {
		report_codec_error(o, where, ret, NULL);
		return;
	}
	if (hdr->proc == RPCRDMA_OPTIONAL && hdr->optional.opttype >= RPCRDMA_ROPT_INITXCH &&
	    hdr->optional.opttype <= RPCRDMA_ROPT_UPDXCH) {
		ret = rpcrdma_xchar_decode(&xm, hdr->optional.opttype, hdr->optional.optinfo,
					   hdr->optional.optinfo_len);
		if (ret < 0) {
			report_codec_error(o, where, ret, "rdma_optinfo");
			return;
		}
		x = &xm;
	}
	/* RDMA_MSG carries an RPC message; RDMA2_OPTIONAL may. */
	if (hdr->proc == RPCRDMA_MSG || (hdr->proc == RPCRDMA_OPTIONAL && hdr->hdr_len < len)) {
		ret = rpcrdma_rpc_decode(&rm, buf + hdr->hdr_len, len - hdr->hdr_len);
		if (ret < 0) {
			report_codec_error(o, where, ret, "the RPC message");
			return;
		}
		rpc = &rm;
	}
	if (o->json)
		json_message(&l, hdr, x, rpc);
	else
		text_message(&l, prefix, hdr, x, rpc);
	print_line(&l);
	free(l.buf);
}

/* Read a whole file or stdin ("-"), at most MSG_MAX bytes. */
static int read_input(const char *path, const char *name, uint8_t **out, size_t *outlen, char *why,
		      size_t whylen)
{
	bool is_stdin = strcmp(path, "-") == 0;
	size_t len = 0, cap = 65536;
	uint8_t *buf = NULL, *p;
	FILE *f;
	int ret = 0;

	f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n, want;

		if (len == cap || !buf) {
			if (buf)
				cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				snprintf(why, whylen, "%s: out of memory", name);
				ret = -1;
				break;
			}
			buf = p;
		}
		/* Read at most one byte past the limit, to see that it is passed. */
		want = cap - len < MSG_MAX + 1 - len ? cap - len : MSG_MAX + 1 - len;
		n = fread(buf + len, 1, want, f);
		len += n;
		if (len > MSG_MAX) {
			snprintf(why, whylen, "%s: larger than %u bytes (16 MiB)", name, MSG_MAX);
			ret = -1;
			break;
		}
		if (n < want) {
			if (ferror(f)) {
				snprintf(why, whylen, "cannot read %s: %s", name, strerror(errno));
				ret = -1;
				break;
			}
			if (feof(f))
				break;
		}
	}
	if (!is_stdin)
		fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static void decode_file(const struct decode_opts *o, const char *path)
{
	const char *where = strcmp(path, "-") == 0 ? "stdin" : path;
	char why[512];
	uint8_t *buf;
	size_t len;

	if (read_input(path, where, &buf, &len, why, sizeof(why))) {
		report_error(o, NULL, why);
		return;
	}
	decode_message(o, buf, (uint32_t)len, where, NULL);
	free(buf);
}

/* zlib's CRC-32 for the frames' ICRC, as the capture tap builds them. */
static uint32_t zlib_crc32(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32_z(crc, buf, len);
}

/*
 * Every SEND_ONLY and SEND_ONLY_WITH_INVALIDATE payload of a capture, pcap
 * or pcapng, read with libpcap (which checks the file's every length).
 */
static void decode_pcap(const struct decode_opts *o, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE], err[PCAP_ERRBUF_SIZE + 512], where[64];
	struct rpcrdma_roce_pkt rp;
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint64_t frame = 0;
	pcap_t *pc;
	int ret;

	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL) {
		snprintf(err, sizeof(err), "cannot read capture %s: %s", path, errbuf);
		report_error(o, NULL, err);
		return;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		snprintf(err, sizeof(err), "%s: link type %s is not Ethernet", path,
			 pcap_datalink_val_to_name(pcap_datalink(pc)) ?: "unknown");
		report_error(o, NULL, err);
		pcap_close(pc);
		return;
	}
	while ((ret = pcap_next_ex(pc, &hdr, &data)) == 1) {
		frame++;
		snprintf(where, sizeof(where), "frame %llu", (unsigned long long)frame);
		ret = rpcrdma_roce_parse_crc(&rp, NULL, data, hdr->caplen, 0, zlib_crc32);
		if (ret == -RPCRDMA_E_ROCE_NOT)
			continue;
		if (ret) {
			report_codec_error(o, path, ret, where);
			continue;
		}
		if (rp.opcode != RPCRDMA_ROCE_SEND_ONLY && rp.opcode != RPCRDMA_ROCE_SEND_ONLY_INV)
			continue;
		decode_message(o, rp.payload, rp.payload_len, where, where);
	}
	if (ret == PCAP_ERROR) {
		snprintf(err, sizeof(err), "capture %s: after frame %llu: %s", path,
			 (unsigned long long)frame, pcap_geterr(pc));
		report_error(o, NULL, err);
	}
	pcap_close(pc);
}

/* Hex digits with optional spaces, tabs, newlines and colons between them. */
static int parse_hex(const char *s, uint8_t **out, size_t *outlen)
{
	size_t n = 0, digits = 0;
	uint8_t *buf;
	const char *p;

	for (p = s; *p; p++) {
		if (strchr(" \t\r\n:", *p))
			continue;
		if (!strchr("0123456789abcdefABCDEF", *p))
			return -1;
		digits++;
	}
	if (digits % 2 || digits / 2 > MSG_MAX)
		return -1;
	buf = malloc(digits / 2 + 1);
	if (!buf)
		return -1;
	for (p = s, digits = 0; *p; p++) {
		int v;

		if (strchr(" \t\r\n:", *p))
			continue;
		v = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
		if (digits++ % 2 == 0)
			buf[n] = (uint8_t)(v << 4);
		else
			buf[n++] |= (uint8_t)v;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

/* ---------------------------------------------------------------- samples */

struct sample {
	uint8_t buf[1024];
	uint32_t len;
};

/* An RPC call header with an AUTH_SYS credential, after the transport header. */
static int put_call(uint8_t *p, uint32_t cap, uint32_t xid, uint32_t prog, uint32_t vers,
		    uint32_t proc)
{
	struct rpcrdma_rpc_authsys sys = {
		.stamp = 0x5eed,
		.machinename = "client1",
		.machinename_len = 7,
		.uid = 1000,
		.gid = 1000,
		.ngids = 2,
		.gids = { 1000, 27 },
	};
	struct rpcrdma_rpc_msg m = { .xid = xid, .type = RPCRDMA_RPC_CALL };
	uint8_t cred[128];
	int n;

	n = rpcrdma_rpc_authsys_encode(&sys, cred, sizeof(cred));
	if (n < 0)
		return n;
	m.call.rpcvers = RPCRDMA_RPC_VERS;
	m.call.prog = prog;
	m.call.vers = vers;
	m.call.proc = proc;
	m.call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
	m.call.cred.len = (uint32_t)n;
	m.call.cred.body = cred;
	return rpcrdma_rpc_encode(&m, p, cap);
}

/* What follows a sample's transport header. */
enum sample_rpc {
	SAMPLE_NO_RPC,	/* nothing */
	SAMPLE_CALL,	/* an AUTH_SYS call of the sample's call.prog, .vers and .proc */
	SAMPLE_SUCCESS, /* an accepted reply, SUCCESS */
};

/* One built-in sample: the RPC message (if any) has the transport header's xid. */
struct sample_spec {
	const char *name;
	struct rpcrdma_hdr hdr; /* RDMA2_OPTIONAL: rdma_optinfo is sample_initxch, encoded */
	enum sample_rpc rpc;
	struct {
		uint32_t prog, vers, proc;
	} call;
};

/*
 * The samples' chunks. Not const: struct rpcrdma_chunk_lists, which the
 * encoder shares with the decoder, points at them without const.
 */
static struct rpcrdma_segment sample_segs[] = {
	/* A READ call's write chunk. */
	{ .handle = 0x1001, .length = 8192, .offset = 0x7f0000001000ull },
	{ .handle = 0x1002, .length = 4096, .offset = 0x7f0000004000ull },
	/* A long reply's reply chunk. */
	{ .handle = 0x2001, .length = 1024, .offset = 0x7f0000100000ull },
	/* The READ reply's data, in the first segment of the call's write chunk. */
	{ .handle = 0x1001, .length = 6000, .offset = 0x7f0000001000ull },
};

static struct rpcrdma_read_segment sample_reads[] = {
	{ .position = 132, .target = { 0x3001, 4096, 0x7f0000200000ull } },
	{ .position = 132, .target = { 0x3002, 4096, 0x7f0000201000ull } },
};

static struct rpcrdma_write_chunk sample_writes[] = {
	{ .nsegs = 2, .segs = &sample_segs[0] }, /* the READ call's */
	{ .nsegs = 1, .segs = &sample_segs[3] }, /* the READ reply's */
};

/* Version 2: the requester's transport characteristics (xcharext 4.1). */
static const struct rpcrdma_xchar_msg sample_initxch = {
	.opttype = RPCRDMA_ROPT_INITXCH,
	.initxch = {
		.start = {
			.n = 3,
			.vals = {
				{ .which = RPCRDMA_XCHAR_RBSIZ, .value = 8192 },
				{ .which = RPCRDMA_XCHAR_REQREMINV, .value = 1 },
				{ .which = RPCRDMA_XCHAR_BRS, .value = RPCRDMA_BKREQSUP_GENL },
			},
		},
		.nochg = { .bits = 1u << 2 },
	},
};

/* Each .hdr starts with xid, vers, credit and proc: the header's first fields, in wire order. */
static const struct sample_spec sample_specs[] = {
	{
		/* A short call: NFSv3 GETATTR inline (RFC 8166 3.5.1). */
		.name = "v1 short call",
		.hdr = { 0x00000101, RPCRDMA_VERS_1, 32, RPCRDMA_MSG },
		.rpc = SAMPLE_CALL,
		.call = { 100003, 3, 1 },
	},
	{
		/* A chunked call: NFSv3 WRITE, data in a read chunk; a write chunk for a READ. */
		.name = "v1 chunked call",
		.hdr = { 0x00000102, RPCRDMA_VERS_1, 32, RPCRDMA_MSG,
			 .chunks = { .nreads = 2,
				     .reads = sample_reads,
				     .nwrites = 1,
				     .writes = &sample_writes[0] } },
		.rpc = SAMPLE_CALL,
		.call = { 100003, 3, 7 },
	},
	{
		/* A long reply: RDMA_NOMSG, the reply written into the reply chunk. */
		.name = "v1 long reply",
		.hdr = { 0x00000103, RPCRDMA_VERS_1, 32, RPCRDMA_NOMSG,
			 .chunks = { .has_reply = true,
				     .reply = { .nsegs = 1, .segs = &sample_segs[2] } } },
	},
	{
		/* A version 1 responder refusing version 2 (v2 draft section 5). */
		.name = "v1 ERR_VERS",
		.hdr = { 0x00000104, RPCRDMA_VERS_1, 1, RPCRDMA_ERROR,
			 .error = { .code = RPCRDMA_ERR_VERS, .low = 1, .high = 1 } },
	},
	{
		/* Version 2: the requester's transport characteristics, sample_initxch. */
		.name = "v2 RDMA2_OPTIONAL ROPT_INITXCH",
		.hdr = { 0x00000201, RPCRDMA_VERS_2, 1, RPCRDMA_OPTIONAL,
			 .optional = { .optdir = RPCRDMA_CALL, .opttype = RPCRDMA_ROPT_INITXCH } },
	},
	{
		/* Version 2 call with a direction. */
		.name = "v2 RDMA2_MSG call",
		.hdr = { 0x00000202, RPCRDMA_VERS_2, 64, RPCRDMA_MSG,
			 .chunks = { .direction = RPCRDMA_CALL } },
		.rpc = SAMPLE_CALL,
		.call = { 100003, 4, 1 },
	},
	{
		/* An RPC reply to the chunked call: the READ data in the write chunk. */
		.name = "v1 RPC reply",
		.hdr = { 0x00000102, RPCRDMA_VERS_1, 32, RPCRDMA_MSG,
			 .chunks = { .nwrites = 1, .writes = &sample_writes[1] } },
		.rpc = SAMPLE_SUCCESS,
	},
};

#define NSAMPLES (sizeof(sample_specs) / sizeof(sample_specs[0]))

/* The RPC message after a sample's transport header: its length, or a negative errno. */
static int put_rpc(const struct sample_spec *sp, uint8_t *p, uint32_t cap)
{
	struct rpcrdma_rpc_msg reply = { .xid = sp->hdr.xid, .type = RPCRDMA_RPC_REPLY };

	switch (sp->rpc) {
	case SAMPLE_CALL:
		return put_call(p, cap, sp->hdr.xid, sp->call.prog, sp->call.vers, sp->call.proc);
	case SAMPLE_SUCCESS:
		reply.reply.stat = RPCRDMA_RPC_MSG_ACCEPTED;
		reply.reply.accept_stat = RPCRDMA_RPC_SUCCESS;
		return rpcrdma_rpc_encode(&reply, p, cap);
	default: /* SAMPLE_NO_RPC */
		return 0;
	}
}

/* Encode every sample: its transport header, then its RPC message. */
static int build_samples(struct sample *s)
{
	uint8_t optinfo[256];
	int optlen, n;
	size_t i;

	optlen = rpcrdma_xchar_encode(&sample_initxch, optinfo, sizeof(optinfo));
	if (optlen < 0)
		return optlen;
	for (i = 0; i < NSAMPLES; i++) {
		struct rpcrdma_hdr hdr = sample_specs[i].hdr;

		if (hdr.proc == RPCRDMA_OPTIONAL) {
			hdr.optional.optinfo = optinfo;
			hdr.optional.optinfo_len = (uint32_t)optlen;
		}
		n = rpcrdma_hdr_encode(&hdr, s[i].buf, sizeof(s[i].buf));
		if (n < 0)
			return n;
		s[i].len = (uint32_t)n;
		n = put_rpc(&sample_specs[i], s[i].buf + s[i].len, 512);
		if (n < 0)
			return n;
		s[i].len += (uint32_t)n;
	}
	return 0;
}

static void decode_samples(const struct decode_opts *o)
{
	static struct sample s[NSAMPLES];
	size_t i;

	if (build_samples(s) < 0) {
		report_error(o, "samples", "cannot encode the sample messages");
		return;
	}
	for (i = 0; i < NSAMPLES; i++)
		decode_message(o, s[i].buf, s[i].len, sample_specs[i].name, sample_specs[i].name);
}

/* ---------------------------------------------------------------- main */

enum input_kind {
	IN_FILE,
	IN_HEX,
	IN_PCAP,
	IN_SAMPLES,
};

struct input {
	enum input_kind kind;
	const char *arg;
	uint8_t *hex;
	size_t hexlen;
};

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s%s%s%s\n%sTry '" PROG " --help' for more information.\n", msg,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "", usage_line);
	return EXIT_USAGE;
}

/*
 * An option that takes a value: "--opt VALUE" or "--opt=VALUE". Returns the
 * value and advances *i, or NULL when the option is not name.
 */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	*missing = false;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int main(int argc, char **argv)
{
	struct decode_opts o = { .json = false };
	struct input *in;
	bool opts_done = false, missing;
	int nin = 0, i, ret = 0;
	const char *v;

	in = calloc((size_t)argc + 1, sizeof(*in));
	if (!in) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_DECODE;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
			in[nin++] = (struct input){ .kind = IN_FILE, .arg = a };
		} else if (strcmp(a, "--") == 0) {
			opts_done = true;
		} else if (strcmp(a, "--json") == 0) {
			o.json = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(help_text, stdout);
			ret = 0;
			goto out;
		} else if (strcmp(a, "--samples") == 0) {
			in[nin++] = (struct input){ .kind = IN_SAMPLES };
		} else if ((v = opt_value(argc, argv, &i, "--hex", &missing)) != NULL) {
			in[nin] = (struct input){ .kind = IN_HEX, .arg = v };
			if (parse_hex(v, &in[nin].hex, &in[nin].hexlen)) {
				ret = usage_error("--hex: not pairs of hex digits:", v);
				goto out;
			}
			nin++;
		} else if (!missing &&
			   (v = opt_value(argc, argv, &i, "--pcap", &missing)) != NULL) {
			in[nin++] = (struct input){ .kind = IN_PCAP, .arg = v };
		} else if (missing) {
			ret = usage_error("this option needs a value:", a);
			goto out;
		} else {
			ret = usage_error("unknown option", a);
			goto out;
		}
	}
	if (nin == 0) {
		ret = usage_error("no input: give FILE, '-', --hex, --pcap or --samples", NULL);
		goto out;
	}

	for (i = 0; i < nin; i++) {
		switch (in[i].kind) {
		case IN_FILE:
			decode_file(&o, in[i].arg);
			break;
		case IN_HEX:
			decode_message(&o, in[i].hex, (uint32_t)in[i].hexlen, "--hex", NULL);
			break;
		case IN_PCAP:
			decode_pcap(&o, in[i].arg);
			break;
		default: /* IN_SAMPLES */
			decode_samples(&o);
			break;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": write error on standard output\n");
		ret = EXIT_DECODE;
		goto out;
	}
	ret = nerrors ? EXIT_DECODE : 0;
out:
	for (i = 0; i < nin; i++)
		free(in[i].hex);
	free(in);
	return ret;
}
