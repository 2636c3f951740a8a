/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture files: classic pcap and pcapng reader, classic pcap writer.
 *
 * Classic pcap (draft-ietf-opsawg-pcap): a 24-byte file header
 *   magic major(2) minor(2) thiszone sigfigs snaplen linktype
 * then records of
 *   ts_sec ts_frac incl_len orig_len data[incl_len]
 * in the byte order the magic shows; the magic also tells micro- from
 * nanoseconds.
 *
 * pcapng (draft-ietf-opsawg-pcapng): blocks of
 *   type total_len body[total_len - 12] total_len
 * with total_len a multiple of 4. A Section Header Block starts a section
 * and gives its byte order (the byte-order magic follows the length, so the
 * SHB length can only be read after it). Interface Description Blocks are
 * numbered from 0 in each section; Enhanced and Simple Packet Blocks refer
 * to them. Options are code(2) len(2) value padded to 4, ended by code 0.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_pcapfile.h>

#define PCAP_HDR_LEN	 24
#define PCAP_REC_LEN	 16
#define PCAP_VERSION	 2
#define PCAPNG_VERSION	 1
#define PCAPNG_MIN_BLOCK 12 /* type, length, trailing length */
#define PCAPNG_SHB_MIN	 28 /* + magic, major, minor, section length */
#define PCAPNG_IDB	 0x00000001u
#define PCAPNG_SPB	 0x00000003u
#define PCAPNG_EPB	 0x00000006u
#define PCAPNG_IFS_MAX	 65536 /* interfaces per section */
#define OPT_ENDOFOPT	 0
#define OPT_IF_TSRESOL	 9
#define OPT_IF_TSOFFSET	 14
#define LINKTYPE_MASK	 0x03ffffffu /* the rest of the pcap field holds FCS flags */
#define NSEC_PER_SEC	 1000000000ull

struct pcapng_if {
	uint32_t linktype;
	uint32_t snaplen;
	uint8_t tsresol;  /* if_tsresol: 10^-n, or 2^-n when bit 7 is set */
	int64_t tsoffset; /* if_tsoffset, seconds */
};

struct rpcrdma_pcapfile {
	FILE *f;
	bool own;     /* opened by us: close f */
	bool swapped; /* the file's (section's) byte order is not the host's */
	enum rpcrdma_pcapfile_format fmt;
	int err;       /* sticky error */
	uint64_t off;  /* bytes consumed */
	uint64_t nrec; /* records (pcap) or blocks (pcapng) read */
	uint8_t *buf;
	size_t bufsize;
	/* classic pcap */
	bool nsec;
	uint32_t linktype;
	/* pcapng: the current section's interfaces */
	struct pcapng_if *ifs;
	uint32_t nifs;
	uint32_t ifs_cap;
	char msg[256];
};

struct rpcrdma_pcapfile_writer {
	FILE *f;
	uint32_t flags;
};

/* ---------------------------------------------------------------- helpers */

static uint32_t get32(const struct rpcrdma_pcapfile *pf, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return pf->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t get16(const struct rpcrdma_pcapfile *pf, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return pf->swapped ? __builtin_bswap16(v) : v;
}

__attribute__((format(printf, 3, 4))) static int fail(struct rpcrdma_pcapfile *pf, int err,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(pf->msg, sizeof(pf->msg), "offset %llu: ", (unsigned long long)pf->off);
	if (n < 0 || (size_t)n >= sizeof(pf->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(pf->msg + n, sizeof(pf->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	pf->err = err;
	return err;
}

/*
 * Read exactly n bytes. Returns 0, 1 when the file ended cleanly before the
 * first byte (only if eof_ok), or a negative error.
 */
static int read_exact(struct rpcrdma_pcapfile *pf, void *p, size_t n, bool eof_ok, const char *what)
{
	size_t got = fread(p, 1, n, pf->f);

	if (got == n) {
		pf->off += n;
		return 0;
	}
	if (ferror(pf->f))
		return fail(pf, -EIO, "read error in %s", what);
	if (got == 0 && eof_ok)
		return 1;
	pf->off += got;
	return fail(pf, -RPCRDMA_E_PCAP_TRUNC, "file ends inside %s (%zu of %zu bytes)", what, got,
		    n);
}

/* Discard n bytes without buffering them. */
static int skip_bytes(struct rpcrdma_pcapfile *pf, size_t n, const char *what)
{
	uint8_t scratch[4096];
	int ret;

	while (n) {
		size_t k = n < sizeof(scratch) ? n : sizeof(scratch);

		ret = read_exact(pf, scratch, k, false, what);
		if (ret)
			return ret;
		n -= k;
	}
	return 0;
}

/* Make the buffer hold n bytes; n <= RPCRDMA_PCAPFILE_BLOCK_MAX. */
static int reserve(struct rpcrdma_pcapfile *pf, size_t n)
{
	uint8_t *p;
	size_t size = pf->bufsize ? pf->bufsize : 4096;

	if (n <= pf->bufsize)
		return 0;
	while (size < n)
		size *= 2;
	p = realloc(pf->buf, size);
	if (!p)
		return fail(pf, -ENOMEM, "out of memory for %zu bytes", size);
	pf->buf = p;
	pf->bufsize = size;
	return 0;
}

/* ---------------------------------------------------------------- classic pcap */

/*
 * File header after the magic:
 *   major(2) minor(2) thiszone sigfigs snaplen linktype
 */
static int pcap_open(struct rpcrdma_pcapfile *pf, uint32_t magic)
{
	uint8_t h[PCAP_HDR_LEN - 4];
	uint16_t major;
	int ret;

	pf->fmt = RPCRDMA_PCAPFILE_PCAP;
	pf->swapped = magic == __builtin_bswap32(RPCRDMA_PCAPFILE_MAGIC_USEC) ||
		      magic == __builtin_bswap32(RPCRDMA_PCAPFILE_MAGIC_NSEC);
	pf->nsec = magic == RPCRDMA_PCAPFILE_MAGIC_NSEC ||
		   magic == __builtin_bswap32(RPCRDMA_PCAPFILE_MAGIC_NSEC);
	ret = read_exact(pf, h, sizeof(h), false, "the pcap file header");
	if (ret)
		return ret;
	major = get16(pf, h);
	if (major != PCAP_VERSION)
		return fail(pf, -RPCRDMA_E_PCAP_FORMAT, "pcap major version %u, not 2", major);
	pf->linktype = get32(pf, h + 16) & LINKTYPE_MASK;
	return 0;
}

/* ts_sec ts_frac incl_len orig_len data */
static int pcap_next(struct rpcrdma_pcapfile *pf, struct rpcrdma_pcapfile_pkt *pkt)
{
	uint8_t h[PCAP_REC_LEN];
	uint32_t sec, frac, caplen;
	int ret;

	ret = read_exact(pf, h, sizeof(h), true, "a pcap record header");
	if (ret)
		return ret > 0 ? 0 : ret;
	sec = get32(pf, h);
	frac = get32(pf, h + 4);
	caplen = get32(pf, h + 8);
	if (caplen > RPCRDMA_PCAPFILE_BLOCK_MAX)
		return fail(pf, -RPCRDMA_E_PCAP_TOO_BIG, "record %llu: %u captured bytes, over %u",
			    (unsigned long long)pf->nrec + 1, caplen, RPCRDMA_PCAPFILE_BLOCK_MAX);
	ret = reserve(pf, caplen ? caplen : 1);
	if (ret)
		return ret;
	ret = read_exact(pf, pf->buf, caplen, false, "a pcap record");
	if (ret)
		return ret;
	pf->nrec++;
	pkt->data = pf->buf;
	pkt->caplen = caplen;
	pkt->origlen = get32(pf, h + 12);
	pkt->ts_ns = (uint64_t)sec * NSEC_PER_SEC + (uint64_t)frac * (pf->nsec ? 1 : 1000);
	pkt->linktype = pf->linktype;
	pkt->ifindex = 0;
	return 1;
}

/* ---------------------------------------------------------------- pcapng */

/*
 * Read a block whose type word (already in the file's byte order for
 * anything but an SHB) has been read: length, body into pf->buf, trailing
 * length. For an SHB the byte-order magic is read first and sets
 * pf->swapped. Unknown blocks are skipped: *body is then NULL.
 */
static int pcapng_read_block(struct rpcrdma_pcapfile *pf, uint32_t type, bool keep,
			     const uint8_t **body, uint32_t *bodylen)
{
	uint8_t w[4];
	uint32_t len, trail, blen, min = PCAPNG_MIN_BLOCK;
	size_t pre = 0;
	int ret;

	ret = read_exact(pf, w, 4, false, "a pcapng block length");
	if (ret)
		return ret;
	if (type == RPCRDMA_PCAPFILE_PCAPNG_SHB) {
		uint8_t m[4];
		uint32_t magic;

		ret = read_exact(pf, m, 4, false, "the pcapng byte-order magic");
		if (ret)
			return ret;
		memcpy(&magic, m, 4);
		if (magic == RPCRDMA_PCAPFILE_PCAPNG_MAGIC)
			pf->swapped = false;
		else if (magic == __builtin_bswap32(RPCRDMA_PCAPFILE_PCAPNG_MAGIC))
			pf->swapped = true;
		else
			return fail(pf, -RPCRDMA_E_PCAP_FORMAT,
				    "pcapng byte-order magic 0x%08x is not 0x1a2b3c4d", magic);
		min = PCAPNG_SHB_MIN;
		pre = 4;
	}
	len = get32(pf, w);
	if (len > RPCRDMA_PCAPFILE_BLOCK_MAX)
		return fail(pf, -RPCRDMA_E_PCAP_TOO_BIG, "block type 0x%08x of %u bytes, over %u",
			    type, len, RPCRDMA_PCAPFILE_BLOCK_MAX);
	if (len < min || len % 4)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
			    "block type 0x%08x has length %u (not a multiple of 4 or under %u)",
			    type, len, min);
	blen = len - PCAPNG_MIN_BLOCK;
	if (keep) {
		ret = reserve(pf, blen ? blen : 1);
		if (ret)
			return ret;
		if (pre)
			memcpy(pf->buf, &(uint32_t){ RPCRDMA_PCAPFILE_PCAPNG_MAGIC }, 4);
		ret = read_exact(pf, pf->buf + pre, blen - pre, false, "a pcapng block");
		*body = pf->buf;
	} else {
		ret = skip_bytes(pf, blen - pre, "a pcapng block");
		*body = NULL;
	}
	if (ret)
		return ret;
	ret = read_exact(pf, w, 4, false, "a pcapng block trailer");
	if (ret)
		return ret;
	trail = get32(pf, w);
	if (trail != len)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
			    "block type 0x%08x: trailing length %u differs from %u", type, trail,
			    len);
	pf->nrec++;
	*bodylen = blen;
	return 0;
}

/*
 * SHB body: magic major(2) minor(2) section_length(8) options.
 * A new section forgets the interfaces of the previous one.
 */
static int pcapng_shb(struct rpcrdma_pcapfile *pf, const uint8_t *body)
{
	uint16_t major = get16(pf, body + 4);

	if (major != PCAPNG_VERSION)
		return fail(pf, -RPCRDMA_E_PCAP_FORMAT, "pcapng major version %u, not 1", major);
	pf->nifs = 0;
	return 0;
}

/*
 * IDB body: linktype(2) reserved(2) snaplen options, of which if_tsresol
 * (1 byte) and if_tsoffset (8 bytes) matter here.
 */
static int pcapng_idb(struct rpcrdma_pcapfile *pf, const uint8_t *body, uint32_t len)
{
	struct pcapng_if *ifp;
	uint32_t off = 8;

	if (len < 8)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK, "interface description block too short");
	if (pf->nifs == PCAPNG_IFS_MAX)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK, "more than %u interfaces in a section",
			    PCAPNG_IFS_MAX);
	if (pf->nifs == pf->ifs_cap) {
		uint32_t cap = pf->ifs_cap ? pf->ifs_cap * 2 : 4;
		struct pcapng_if *p = realloc(pf->ifs, cap * sizeof(*p));

		if (!p)
			return fail(pf, -ENOMEM, "out of memory for interfaces");
		pf->ifs = p;
		pf->ifs_cap = cap;
	}
	ifp = &pf->ifs[pf->nifs];
	ifp->linktype = get16(pf, body);
	ifp->snaplen = get32(pf, body + 4);
	ifp->tsresol = 6;
	ifp->tsoffset = 0;
	while (len - off >= 4) {
		uint16_t code = get16(pf, body + off);
		uint32_t olen = get16(pf, body + off + 2);
		uint32_t plen = (olen + 3u) & ~3u;

		if (code == OPT_ENDOFOPT)
			break;
		off += 4;
		if (plen > len - off)
			return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
				    "interface %u: option %u of %u bytes runs past the block",
				    pf->nifs, code, olen);
		if (code == OPT_IF_TSRESOL && olen == 1) {
			uint8_t r = body[off];

			if ((r & 0x80) ? (r & 0x7f) > 63 : r > 19)
				return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
					    "interface %u: if_tsresol 0x%02x unsupported", pf->nifs,
					    r);
			ifp->tsresol = r;
		} else if (code == OPT_IF_TSOFFSET && olen == 8) {
			uint64_t v;

			/* A 64-bit integer in the section's byte order. */
			memcpy(&v, body + off, 8);
			if (pf->swapped)
				v = __builtin_bswap64(v);
			ifp->tsoffset = (int64_t)v;
		}
		off += plen;
	}
	pf->nifs++;
	return 0;
}

/* Timestamp units of an interface to nanoseconds, clamped to [0, UINT64_MAX]. */
static uint64_t ts_to_ns(const struct pcapng_if *ifp, uint64_t ticks)
{
	uint8_t n = ifp->tsresol & 0x7f;
	__int128 ns, p10 = 1;

	if (ifp->tsresol & 0x80) {
		ns = ((__int128)ticks * (__int128)NSEC_PER_SEC) >> n; /* 2^-n, n <= 63 */
	} else if (n <= 9) {
		while (n++ < 9)
			p10 *= 10;
		ns = (__int128)ticks * p10;
	} else {
		while (n-- > 9) /* 10^-n, n <= 19 */
			p10 *= 10;
		ns = (__int128)ticks / p10;
	}
	ns += (__int128)ifp->tsoffset * (__int128)NSEC_PER_SEC;
	if (ns < 0)
		return 0;
	return ns > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static int pcapng_iface(struct rpcrdma_pcapfile *pf, uint32_t ifid, const char *what)
{
	if (ifid >= pf->nifs)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
			    "%s for interface %u, but the section describes %u", what, ifid,
			    pf->nifs);
	return 0;
}

/* EPB body: ifid ts_high ts_low caplen origlen data options */
static int pcapng_epb(struct rpcrdma_pcapfile *pf, const uint8_t *body, uint32_t len,
		      struct rpcrdma_pcapfile_pkt *pkt)
{
	uint32_t ifid, caplen;
	uint64_t ticks;
	int ret;

	if (len < 20)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK, "enhanced packet block too short");
	ifid = get32(pf, body);
	ret = pcapng_iface(pf, ifid, "enhanced packet block");
	if (ret)
		return ret;
	caplen = get32(pf, body + 12);
	if (caplen > len - 20)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK,
			    "enhanced packet block: captured length %u over the %u bytes it holds",
			    caplen, len - 20);
	ticks = (uint64_t)get32(pf, body + 4) << 32 | get32(pf, body + 8);
	pkt->data = body + 20;
	pkt->caplen = caplen;
	pkt->origlen = get32(pf, body + 16);
	pkt->ts_ns = ts_to_ns(&pf->ifs[ifid], ticks);
	pkt->linktype = pf->ifs[ifid].linktype;
	pkt->ifindex = ifid;
	return 1;
}

/* SPB body: origlen data; interface 0, no timestamp. */
static int pcapng_spb(struct rpcrdma_pcapfile *pf, const uint8_t *body, uint32_t len,
		      struct rpcrdma_pcapfile_pkt *pkt)
{
	uint32_t caplen, snap;
	int ret;

	if (len < 4)
		return fail(pf, -RPCRDMA_E_PCAP_BLOCK, "simple packet block too short");
	ret = pcapng_iface(pf, 0, "simple packet block");
	if (ret)
		return ret;
	pkt->origlen = get32(pf, body);
	caplen = len - 4 < pkt->origlen ? len - 4 : pkt->origlen;
	snap = pf->ifs[0].snaplen;
	if (snap && caplen > snap)
		caplen = snap;
	pkt->data = body + 4;
	pkt->caplen = caplen;
	pkt->ts_ns = 0;
	pkt->linktype = pf->ifs[0].linktype;
	pkt->ifindex = 0;
	return 1;
}

static int pcapng_next(struct rpcrdma_pcapfile *pf, struct rpcrdma_pcapfile_pkt *pkt)
{
	const uint8_t *body;
	uint32_t type, len;
	uint8_t w[4];
	bool keep;
	int ret;

	for (;;) {
		ret = read_exact(pf, w, 4, true, "a pcapng block type");
		if (ret)
			return ret > 0 ? 0 : ret;
		memcpy(&type, w, 4);
		if (type != RPCRDMA_PCAPFILE_PCAPNG_SHB)
			type = get32(pf, w);
		keep = type == RPCRDMA_PCAPFILE_PCAPNG_SHB || type == PCAPNG_IDB ||
		       type == PCAPNG_EPB || type == PCAPNG_SPB;
		ret = pcapng_read_block(pf, type, keep, &body, &len);
		if (ret)
			return ret;
		switch (type) {
		case RPCRDMA_PCAPFILE_PCAPNG_SHB:
			ret = pcapng_shb(pf, body);
			break;
		case PCAPNG_IDB:
			ret = pcapng_idb(pf, body, len);
			break;
		case PCAPNG_EPB:
			return pcapng_epb(pf, body, len, pkt);
		case PCAPNG_SPB:
			return pcapng_spb(pf, body, len, pkt);
		default:
			ret = 0; /* skipped */
			break;
		}
		if (ret)
			return ret;
	}
}

/* ---------------------------------------------------------------- reader API */

static int open_common(struct rpcrdma_pcapfile *pf)
{
	const uint8_t *body;
	uint32_t magic, len;
	uint8_t w[4];
	int ret;

	ret = read_exact(pf, w, 4, true, "the file magic");
	if (ret > 0)
		return fail(pf, -RPCRDMA_E_PCAP_FORMAT, "empty file, not pcap or pcapng");
	if (ret)
		return ret;
	memcpy(&magic, w, 4);
	switch (magic) {
	case RPCRDMA_PCAPFILE_MAGIC_USEC:
	case RPCRDMA_PCAPFILE_MAGIC_NSEC:
	case __builtin_bswap32(RPCRDMA_PCAPFILE_MAGIC_USEC):
	case __builtin_bswap32(RPCRDMA_PCAPFILE_MAGIC_NSEC):
		return pcap_open(pf, magic);
	case RPCRDMA_PCAPFILE_PCAPNG_SHB:
		pf->fmt = RPCRDMA_PCAPFILE_PCAPNG;
		ret = pcapng_read_block(pf, magic, true, &body, &len);
		return ret ? ret : pcapng_shb(pf, body);
	default:
		return fail(pf, -RPCRDMA_E_PCAP_FORMAT, "magic 0x%08x is neither pcap nor pcapng",
			    __builtin_bswap32(magic));
	}
}

static void set_errbuf(char *errbuf, size_t errlen, const char *msg)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", msg);
}

int rpcrdma_pcapfile_open_stream(struct rpcrdma_pcapfile **out, FILE *f, char *errbuf,
				 size_t errlen)
{
	struct rpcrdma_pcapfile *pf;
	int ret;

	*out = NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf) {
		set_errbuf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pf->f = f;
	ret = open_common(pf);
	if (ret) {
		set_errbuf(errbuf, errlen, pf->msg);
		rpcrdma_pcapfile_close(pf);
		return ret;
	}
	*out = pf;
	return 0;
}

int rpcrdma_pcapfile_open(struct rpcrdma_pcapfile **out, const char *path, char *errbuf,
			  size_t errlen)
{
	FILE *f;
	int ret;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s", strerror(-ret));
		return ret;
	}
	ret = rpcrdma_pcapfile_open_stream(out, f, errbuf, errlen);
	if (ret) {
		fclose(f);
		return ret;
	}
	(*out)->own = true;
	return 0;
}

int rpcrdma_pcapfile_next(struct rpcrdma_pcapfile *pf, struct rpcrdma_pcapfile_pkt *pkt)
{
	if (pf->err)
		return pf->err;
	if (pf->fmt == RPCRDMA_PCAPFILE_PCAP)
		return pcap_next(pf, pkt);
	return pcapng_next(pf, pkt);
}

enum rpcrdma_pcapfile_format rpcrdma_pcapfile_format(const struct rpcrdma_pcapfile *pf)
{
	return pf->fmt;
}

const char *rpcrdma_pcapfile_errmsg(const struct rpcrdma_pcapfile *pf)
{
	return pf->err ? pf->msg : "";
}

void rpcrdma_pcapfile_close(struct rpcrdma_pcapfile *pf)
{
	if (!pf)
		return;
	if (pf->own)
		fclose(pf->f);
	free(pf->ifs);
	free(pf->buf);
	free(pf);
}

/* ---------------------------------------------------------------- writer */

static void put32(const struct rpcrdma_pcapfile_writer *w, uint8_t *p, uint32_t v)
{
	if (w->flags & RPCRDMA_PCAPFILE_W_SWAPPED)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static void put16(const struct rpcrdma_pcapfile_writer *w, uint8_t *p, uint16_t v)
{
	if (w->flags & RPCRDMA_PCAPFILE_W_SWAPPED)
		v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

int rpcrdma_pcapfile_writer_open(struct rpcrdma_pcapfile_writer **out, FILE *f, uint32_t linktype,
				 uint32_t snaplen, uint32_t flags)
{
	struct rpcrdma_pcapfile_writer *w;
	uint8_t h[PCAP_HDR_LEN] = { 0 };

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->f = f;
	w->flags = flags;
	put32(w, h,
	      (flags & RPCRDMA_PCAPFILE_W_NSEC) ? RPCRDMA_PCAPFILE_MAGIC_NSEC
						: RPCRDMA_PCAPFILE_MAGIC_USEC);
	put16(w, h + 4, PCAP_VERSION);
	put16(w, h + 6, 4);
	put32(w, h + 16, snaplen);
	put32(w, h + 20, linktype);
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
		free(w);
		return -EIO;
	}
	*out = w;
	return 0;
}

int rpcrdma_pcapfile_write(struct rpcrdma_pcapfile_writer *w, const void *data, uint32_t caplen,
			   uint32_t origlen, uint64_t ts_ns)
{
	uint8_t h[PCAP_REC_LEN];
	uint64_t frac = ts_ns % NSEC_PER_SEC;

	if (!origlen)
		origlen = caplen;
	if (caplen > RPCRDMA_PCAPFILE_BLOCK_MAX || origlen < caplen)
		return -EINVAL;
	put32(w, h, (uint32_t)(ts_ns / NSEC_PER_SEC));
	put32(w, h + 4, (uint32_t)((w->flags & RPCRDMA_PCAPFILE_W_NSEC) ? frac : frac / 1000));
	put32(w, h + 8, caplen);
	put32(w, h + 12, origlen);
	if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h) ||
	    (caplen && fwrite(data, 1, caplen, w->f) != caplen))
		return -EIO;
	return 0;
}

int rpcrdma_pcapfile_writer_close(struct rpcrdma_pcapfile_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (fflush(w->f))
		ret = -EIO;
	free(w);
	return ret;
}
