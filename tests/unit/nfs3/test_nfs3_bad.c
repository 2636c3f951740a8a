/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NFSv3 and MOUNT v3 codecs (engine/codec/nfs3/) on hostile input and at
 * their bounds:
 *   - crafted messages, each wrong in one way (a handle over 64 bytes, a
 *     name over 255, a length past the buffer, a discriminant of 2, an
 *     enum out of range, a chunk that disagrees with its length word, 17
 *     auth flavors): each decoder returns the codec's error for it and
 *     leaves the stream where it was; the same message one step inside the
 *     bound decodes;
 *   - encoders refuse what the decoders would (-EINVAL) and, at every
 *     buffer size too small, return -ENOSPC with the stream unchanged;
 *   - READDIRPLUS: entries stop at maxcount and at dircount, the reply
 *     never passes maxcount, a first entry that does not fit leaves the
 *     list empty (NFS3ERR_TOOSMALL for the server), the entry cursor
 *     rewinds on a bad entry and stays at the end once there;
 *   - random bytes into every decoder: 0 or a defined error, never a read
 *     outside the buffer (ASan);
 *   - the names of nfsstat3, mountstat3, procedures and the new errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_mount3.h>
#include <rpcrdma/rpcrdma_nfs3.h>

#include "nfs3_kinds.h"
#include "test_check.h"

/* ------------------------------------------------------- message builder */

struct msg {
	uint8_t b[8192];
	uint32_t n;
};

static void w32(struct msg *m, uint32_t v)
{
	m->b[m->n++] = (uint8_t)(v >> 24);
	m->b[m->n++] = (uint8_t)(v >> 16);
	m->b[m->n++] = (uint8_t)(v >> 8);
	m->b[m->n++] = (uint8_t)v;
}

static void w64(struct msg *m, uint64_t v)
{
	w32(m, (uint32_t)(v >> 32));
	w32(m, (uint32_t)v);
}

/* opaque<>: length, bytes ('a'...), pad. */
static void wop(struct msg *m, uint32_t len)
{
	uint32_t i;

	w32(m, len);
	for (i = 0; i < len; i++)
		m->b[m->n++] = (uint8_t)('a' + i % 26);
	while (m->n & 3)
		m->b[m->n++] = 0;
}

/* fattr3 of a type: 21 words. */
static void wfattr(struct msg *m, uint32_t type)
{
	uint32_t i;

	w32(m, type);
	for (i = 1; i < 21; i++)
		w32(m, i);
}

static const struct nfs3_kind *kind(const char *name)
{
	unsigned int i;

	for (i = 0; i < nfs3_nkinds; i++)
		if (strcmp(nfs3_kinds[i].name, name) == 0)
			return &nfs3_kinds[i];
	abort();
}

static uint64_t out[NFS3_KIND_MAX_SIZE / 8 + 1];

/* Decode m (an exact-size heap copy) as k: the result, the stream unmoved on error. */
static int decode(const char *name, const struct msg *m)
{
	const struct nfs3_kind *k = kind(name);
	struct rpcrdma_xdr_dec dec;
	uint8_t *copy = test_heap_copy(m->b, m->n);
	int ret;

	rpcrdma_xdr_dec_init(&dec, copy, m->n);
	ret = k->dec(&dec, out);
	if (ret < 0)
		CHECK(rpcrdma_xdr_dec_pos(&dec) == 0, "%s: stream moved on error", name);
	else
		CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "%s: %u bytes left", name,
		      rpcrdma_xdr_dec_left(&dec));
	free(copy);
	return ret;
}

#define EXPECT(name, m, err)                                                         \
	do {                                                                         \
		int ret_ = decode(name, m);                                          \
		CHECK(ret_ == (err), "%s: %s, want %s", name, rpcrdma_errname(ret_), \
		      rpcrdma_errname(err));                                         \
	} while (0)

/* --------------------------------------------------------------- decoders */

static void check_handles_and_names(void)
{
	struct msg m;

	m.n = 0;
	wop(&m, 64);
	EXPECT("GETATTR3args", &m, 0);
	m.n = 0;
	wop(&m, 65);
	EXPECT("GETATTR3args", &m, -RPCRDMA_E_OPAQUE_BOUND);
	m.n = 0;
	w32(&m, 0xffffffff);
	EXPECT("FSINFO3args", &m, -RPCRDMA_E_OPAQUE_BOUND);
	m.n = 0;
	wop(&m, 64);
	m.n -= 4; /* the handle runs past the end */
	EXPECT("PATHCONF3args", &m, -RPCRDMA_E_OPAQUE);

	m.n = 0;
	wop(&m, 8);
	wop(&m, 255);
	EXPECT("LOOKUP3args", &m, 0);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 256);
	EXPECT("LOOKUP3args", &m, -RPCRDMA_E_NAME_LEN);
	m.n = 0;
	wop(&m, 8);
	w32(&m, 0xffffffff);
	EXPECT("REMOVE3args", &m, -RPCRDMA_E_NAME_LEN);
	m.n = 0;
	wop(&m, 8);
	w32(&m, 200); /* a name longer than what is left */
	w32(&m, 0);
	EXPECT("REMOVE3args", &m, -RPCRDMA_E_OPAQUE);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 0); /* an empty name is XDR; refusing it is the server's */
	EXPECT("LOOKUP3args", &m, 0);

	/* MOUNT: dirpath<1024>, fhandle3<64>, auth_flavors within capacity. */
	m.n = 0;
	wop(&m, 1024);
	EXPECT("MNT3args", &m, 0);
	m.n = 0;
	wop(&m, 1025);
	EXPECT("UMNT3args", &m, -RPCRDMA_E_OPAQUE_BOUND);
	m.n = 0;
	w32(&m, RPCRDMA_MNT3_OK);
	wop(&m, 65);
	w32(&m, 0);
	EXPECT("mountres3", &m, -RPCRDMA_E_OPAQUE_BOUND);
	m.n = 0;
	w32(&m, RPCRDMA_MNT3_OK);
	wop(&m, 32);
	w32(&m, 16);
	for (int i = 0; i < 16; i++)
		w32(&m, 1);
	EXPECT("mountres3", &m, 0);
	m.n = 0;
	w32(&m, RPCRDMA_MNT3_OK);
	wop(&m, 32);
	w32(&m, 17);
	for (int i = 0; i < 17; i++)
		w32(&m, 1);
	EXPECT("mountres3", &m, -RPCRDMA_E_ARRAY);
	m.n = 0;
	w32(&m, RPCRDMA_MNT3_OK);
	wop(&m, 32);
	w32(&m, 3); /* three flavors announced, two sent */
	w32(&m, 1);
	w32(&m, 6);
	EXPECT("mountres3", &m, -RPCRDMA_E_XDR_END);
	m.n = 0;
	w32(&m, 0x12345); /* any other status: the void arm */
	EXPECT("mountres3", &m, 0);
}

static void check_discriminants(void)
{
	struct msg m;

	/* fattr3 type: 1..7 (ftype3). */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	wfattr(&m, 7);
	EXPECT("GETATTR3res", &m, 0);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	wfattr(&m, 0);
	EXPECT("GETATTR3res", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	wfattr(&m, 8);
	EXPECT("GETATTR3res", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_STALE); /* nothing follows a failed GETATTR */
	EXPECT("GETATTR3res", &m, 0);

	/* post_op_attr: the dir_attributes of a failed LOOKUP. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_NOENT);
	w32(&m, 2);
	EXPECT("LOOKUP3res", &m, -RPCRDMA_E_BOOL);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_NOENT);
	w32(&m, 1);
	wfattr(&m, 2);
	EXPECT("LOOKUP3res", &m, 0);

	/* pre_op_attr and post_op_attr of wcc_data. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_IO);
	w32(&m, 2);
	EXPECT("WRITE3res", &m, -RPCRDMA_E_BOOL);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_IO);
	w32(&m, 0);
	w32(&m, 3);
	EXPECT("COMMIT3res", &m, -RPCRDMA_E_BOOL);
	/* stable_how committed: 0..2. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 4096);
	w32(&m, 3);
	w64(&m, 0);
	EXPECT("WRITE3res", &m, -RPCRDMA_E_ENUM);

	/* post_op_fh3 of CREATE. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 2);
	EXPECT("CREATE3res", &m, -RPCRDMA_E_BOOL);

	/* createhow3, sattr3. */
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	w32(&m, 3);
	EXPECT("CREATE3args", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	w32(&m, RPCRDMA_NFS3_GUARDED);
	w32(&m, 2); /* set_mode3 */
	EXPECT("CREATE3args", &m, -RPCRDMA_E_BOOL);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	w32(&m, RPCRDMA_NFS3_UNCHECKED);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 3); /* set_atime: time_how */
	EXPECT("CREATE3args", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	w32(&m, RPCRDMA_NFS3_UNCHECKED);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, RPCRDMA_NFS3_SET_TO_CLIENT_TIME);
	w64(&m, 1);
	w32(&m, RPCRDMA_NFS3_SET_TO_SERVER_TIME);
	EXPECT("CREATE3args", &m, 0);

	/* WRITE3args stable; READ3res eof; PATHCONF bools. */
	m.n = 0;
	wop(&m, 8);
	w64(&m, 0);
	w32(&m, 4);
	w32(&m, 3);
	wop(&m, 4);
	EXPECT("WRITE3args", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 4);
	w32(&m, 2);
	wop(&m, 4);
	EXPECT("READ3res", &m, -RPCRDMA_E_BOOL);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 32000);
	w32(&m, 255);
	w32(&m, 1);
	w32(&m, 1);
	w32(&m, 0);
	w32(&m, 5);
	EXPECT("PATHCONF3res", &m, -RPCRDMA_E_BOOL);
}

static void check_lengths(void)
{
	struct msg m;

	/* READ data longer than what arrived, or a hostile 2^32 - 1. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 4096);
	w32(&m, 1);
	w32(&m, 4096);
	wop(&m, 0);
	EXPECT("READ3res", &m, -RPCRDMA_E_OPAQUE);
	m.n = 0;
	wop(&m, 8);
	w64(&m, 0);
	w32(&m, 1);
	w32(&m, 0);
	w32(&m, 0xffffffff);
	EXPECT("WRITE3args", &m, -RPCRDMA_E_OPAQUE);
	/* A zero-length WRITE. */
	m.n = 0;
	wop(&m, 8);
	w64(&m, 0);
	w32(&m, 0);
	w32(&m, RPCRDMA_NFS3_FILE_SYNC);
	wop(&m, 0);
	EXPECT("WRITE3args", &m, 0);
	/* Verifiers are fixed: 8 bytes, and the message ends after 4. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0x11223344);
	EXPECT("COMMIT3res", &m, -RPCRDMA_E_OPAQUE);
	/* An FSINFO cut inside its fixed block. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	for (int i = 0; i < 11; i++)
		w32(&m, i);
	EXPECT("FSINFO3res", &m, -RPCRDMA_E_OPAQUE);
	m.n = 0;
	EXPECT("ACCESS3res", &m, -RPCRDMA_E_XDR_END);
}

/* DDP-eligible data in chunks that disagree with the XDR length word. */
static void check_chunks(void)
{
	struct rpcrdma_nfs3_write_args wa;
	struct rpcrdma_nfs3_read_res rr;
	struct rpcrdma_xdr_dec dec;
	uint8_t data[64] = { 0 };
	struct msg m;
	int ret;

	/* WRITE3args, 16 bytes announced; a read chunk of 20 at the data. */
	m.n = 0;
	wop(&m, 8);
	w64(&m, 0);
	w32(&m, 16);
	w32(&m, 0);
	w32(&m, 16);
	rpcrdma_xdr_dec_init(&dec, m.b, m.n);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, m.n, data, 20) == 0, "chunk");
	ret = rpcrdma_nfs3_dec_write_args(&dec, &wa);
	CHECK(ret == -RPCRDMA_E_CHUNK_LEN, "write chunk of 20 for 16: %s", rpcrdma_errname(ret));
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 0, "write args: stream unmoved");
	/* The same with a chunk of 16 (or 16 and its pad): the data is the chunk. */
	rpcrdma_xdr_dec_init(&dec, m.b, m.n);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, m.n, data, 16) == 0, "chunk");
	ret = rpcrdma_nfs3_dec_write_args(&dec, &wa);
	CHECK(ret == 0 && wa.data.addr == data && wa.data.len == 16, "write args from a chunk: %s",
	      rpcrdma_errname(ret));

	/* READ3res, 100 bytes announced; the write chunk holds 96. */
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 100);
	w32(&m, 1);
	w32(&m, 100);
	rpcrdma_xdr_dec_init(&dec, m.b, m.n);
	CHECK(rpcrdma_xdr_dec_add_write(&dec, data, 60) == 0, "write chunk");
	ret = rpcrdma_nfs3_dec_read_res(&dec, &rr);
	CHECK(ret == -RPCRDMA_E_CHUNK_LEN, "read res, chunk of 60 for 100: %s",
	      rpcrdma_errname(ret));
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 0 && dec.wnext == 0, "read res: stream unmoved");
	rpcrdma_xdr_dec_init(&dec, m.b, m.n);
	CHECK(rpcrdma_xdr_dec_add_write(&dec, data, 64) == 0, "write chunk");
	m.b[19] = 64; /* 64 announced: the chunk's data, in place */
	ret = rpcrdma_nfs3_dec_read_res(&dec, &rr);
	CHECK(ret == 0 && rr.data.addr == data && rr.data.len == 64 && rr.eof,
	      "read res from a write chunk: %s", rpcrdma_errname(ret));
}

/* ---------------------------------------------------------------- encoders */

static uint8_t fh64[64], big_name[300];

static void check_encode_invalid(void)
{
	uint8_t buf[1024];
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(buf, sizeof(buf), 0, 0);
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_nfs3_getattr_args ga = { .object = { fh64, 65 } };
	struct rpcrdma_nfs3_lookup_args la = { .what = { { fh64, 8 }, (char *)big_name, 256 } };
	struct rpcrdma_nfs3_create_args ca = { .where = { { fh64, 8 }, "f", 1 }, .mode = 3 };
	struct rpcrdma_nfs3_write_args wa = { .file = { fh64, 8 }, .stable = 3 };
	struct rpcrdma_nfs3_getattr_res gr = { .status = 0, .attr = { .type = 0 } };
	struct rpcrdma_nfs3_write_res wr = { .status = 0, .committed = 3 };
	struct rpcrdma_mount3_mnt_res mr = { .status = 0, .fh = { fh64, 8 }, .nflavors = 17 };
	struct rpcrdma_mount3_dirpath dp = { (char *)big_name, 1025 };
	struct rpcrdma_nfs3_create_args ct = { .where = { { fh64, 8 }, "f", 1 } };
	struct {
		const char *what;
		int ret;
	} r[10];
	unsigned int i = 0;
	static uint8_t big_path[1100];

	dp.path = (char *)big_path;
	ct.attr.set_mtime = 3;
	rpcrdma_xdr_enc_init(&xdr, &mem);
	r[i].what = "fh of 65";
	r[i++].ret = rpcrdma_nfs3_enc_getattr_args(&xdr, &ga);
	r[i].what = "name of 256";
	r[i++].ret = rpcrdma_nfs3_enc_lookup_args(&xdr, &la);
	r[i].what = "createmode 3";
	r[i++].ret = rpcrdma_nfs3_enc_create_args(&xdr, &ca);
	r[i].what = "time_how 3";
	r[i++].ret = rpcrdma_nfs3_enc_create_args(&xdr, &ct);
	r[i].what = "stable 3";
	r[i++].ret = rpcrdma_nfs3_enc_write_args(&xdr, &wa);
	r[i].what = "ftype 0";
	r[i++].ret = rpcrdma_nfs3_enc_getattr_res(&xdr, &gr);
	r[i].what = "committed 3";
	r[i++].ret = rpcrdma_nfs3_enc_write_res(&xdr, &wr);
	r[i].what = "17 flavors";
	r[i++].ret = rpcrdma_mount3_enc_mnt_res(&xdr, &mr);
	r[i].what = "dirpath of 1025";
	r[i++].ret = rpcrdma_mount3_enc_dirpath(&xdr, &dp);
	while (i--)
		CHECK(r[i].ret == -EINVAL, "%s: %d", r[i].what, r[i].ret);
	CHECK(xdr.len == 0 && xdr.pos == 0 && xdr.nddp == 0, "stream unchanged: %u %u %u", xdr.len,
	      xdr.pos, xdr.nddp);
}

/* Every buffer size below the need: -ENOSPC and nothing written; then it fits. */
static void enospc(const char *name, const void *v, uint32_t need_nddp)
{
	const struct nfs3_kind *k = kind(name);
	static uint8_t buf[2048];
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(buf, sizeof(buf), 0, 0);
	struct rpcrdma_xdr_enc xdr;
	uint32_t need, cap;
	int ret;

	rpcrdma_xdr_enc_init(&xdr, &mem);
	ret = k->enc(&xdr, v);
	CHECK(ret == 0 && xdr.nddp == need_nddp, "%s: %s, %u DDP items", name, rpcrdma_errname(ret),
	      xdr.nddp);
	need = xdr.len;
	for (cap = 0; cap < need; cap++) {
		mem.len = cap;
		rpcrdma_xdr_enc_init(&xdr, &mem);
		ret = k->enc(&xdr, v);
		CHECK(ret == -ENOSPC && xdr.len == 0 && xdr.pos == 0 && xdr.nddp == 0,
		      "%s in %u of %u bytes: %d, len %u pos %u nddp %u", name, cap, need, ret,
		      xdr.len, xdr.pos, xdr.nddp);
	}
	mem.len = need;
	rpcrdma_xdr_enc_init(&xdr, &mem);
	CHECK(k->enc(&xdr, v) == 0 && xdr.len == need, "%s in exactly %u bytes", name, need);
}

static void fattr(struct rpcrdma_nfs3_fattr *f)
{
	memset(f, 0, sizeof(*f));
	f->type = RPCRDMA_NFS3_REG;
	f->size = 1 << 20;
}

static void check_encode_enospc(void)
{
	static uint8_t data[100];
	struct rpcrdma_nfs3_lookup_res lr = { .status = 0, .object = { fh64, 64 } };
	struct rpcrdma_nfs3_write_args wa = { .file = { fh64, 64 }, .count = 100 };
	struct rpcrdma_nfs3_read_res rr = { .status = 0, .count = 100, .eof = true };
	struct rpcrdma_nfs3_create_args ca = { .where = { { fh64, 32 }, "name", 4 } };
	struct rpcrdma_nfs3_create_res cr = { .status = 0 };
	struct rpcrdma_mount3_mnt_res mr = { .status = 0, .fh = { fh64, 28 }, .nflavors = 3 };

	lr.obj_attr.present = lr.dir_attr.present = true;
	fattr(&lr.obj_attr.attr);
	fattr(&lr.dir_attr.attr);
	enospc("LOOKUP3res", &lr, 0);
	wa.data = rpcrdma_xdr_region_va(data, 100, 1, 2);
	enospc("WRITE3args", &wa, 1);
	rr.file_attr.present = true;
	fattr(&rr.file_attr.attr);
	rr.data = rpcrdma_xdr_region_va(data, 100, 1, 2);
	enospc("READ3res", &rr, 1);
	ca.attr.set_mode = ca.attr.set_uid = ca.attr.set_gid = ca.attr.set_size = true;
	ca.attr.set_atime = ca.attr.set_mtime = RPCRDMA_NFS3_SET_TO_CLIENT_TIME;
	enospc("CREATE3args", &ca, 0);
	cr.obj.present = true;
	cr.obj.fh = (struct rpcrdma_nfs3_fh){ fh64, 40 };
	cr.obj_attr.present = true;
	fattr(&cr.obj_attr.attr);
	cr.dir_wcc.before_present = true;
	cr.dir_wcc.after.present = true;
	fattr(&cr.dir_wcc.after.attr);
	enospc("CREATE3res", &cr, 0);
	enospc("mountres3", &mr, 0);
}

/* ------------------------------------------------------------ READDIRPLUS */

#define ENT_NAME 8
#define ENT_FH	 32
/* b HH N-name(8) HH  b fattr3  b N-fh(32) */
#define ENT_LEN	  (4 + 8 + 4 + ENT_NAME + 8 + 4 + 84 + 4 + 4 + ENT_FH)
#define ENT_INFO  (24 + ENT_NAME)
#define HEAD_LEN  (4 + 84 + 8) /* dir_attributes, cookieverf */
#define RESOK_MIN (HEAD_LEN + 8)

static void entry(struct rpcrdma_nfs3_entryplus *e, uint32_t i, char *name)
{
	memcpy(name, "entry", 5);
	name[5] = (char)('0' + i / 100 % 10);
	name[6] = (char)('0' + i / 10 % 10);
	name[7] = (char)('0' + i % 10);
	name[8] = 0;
	memset(e, 0, sizeof(*e));
	e->fileid = 1000 + i;
	e->name = name;
	e->name_len = ENT_NAME;
	e->cookie = i + 1;
	e->name_attr.present = true;
	fattr(&e->name_attr.attr);
	e->name_handle.present = true;
	e->name_handle.fh = (struct rpcrdma_nfs3_fh){ fh64, ENT_FH };
}

/* Encode entries until one does not fit; end; return how many went in. */
static uint32_t rdp_fill(struct rpcrdma_xdr_enc *xdr, uint32_t dircount, uint32_t maxcount,
			 int *begin_ret)
{
	struct rpcrdma_nfs3_readdirplus_res res = { .status = 0 };
	struct rpcrdma_nfs3_readdirplus_enc e;
	struct rpcrdma_nfs3_entryplus ent;
	char name[ENT_NAME + 1];
	uint32_t i;
	int ret;

	res.dir_attr.present = true;
	fattr(&res.dir_attr.attr);
	*begin_ret = rpcrdma_nfs3_readdirplus_begin(&e, xdr, &res, dircount, maxcount);
	if (*begin_ret)
		return 0;
	for (i = 0; i < 1000; i++) {
		entry(&ent, i, name);
		ret = rpcrdma_nfs3_readdirplus_put(&e, &ent);
		if (ret) {
			CHECK(ret == -ENOSPC, "entry %u: %d", i, ret);
			break;
		}
	}
	CHECK(e.nentries == i, "nentries %u, %u put", e.nentries, i);
	CHECK(rpcrdma_nfs3_readdirplus_end(&e, false) == 0, "end");
	return i;
}

static void check_readdirplus_budgets(void)
{
	static uint8_t buf[8192];
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(buf, sizeof(buf), 0, 0);
	struct rpcrdma_nfs3_readdirplus_res res;
	struct rpcrdma_nfs3_entryplus ent;
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_xdr_dec dec;
	uint32_t n, k, pos;
	int ret, br;

	/* maxcount: the head and the end of the list, then k entries exactly. */
	for (k = 0; k < 4; k++) {
		rpcrdma_xdr_enc_init(&xdr, &mem);
		n = rdp_fill(&xdr, UINT32_MAX, RESOK_MIN + k * ENT_LEN, &br);
		CHECK(br == 0 && n == k, "maxcount for %u entries: %u", k, n);
		CHECK(xdr.len == 4 + RESOK_MIN + k * ENT_LEN, "reply of %u entries: %u bytes", k,
		      xdr.len);
		rpcrdma_xdr_enc_init(&xdr, &mem);
		n = rdp_fill(&xdr, UINT32_MAX, RESOK_MIN + (k + 1) * ENT_LEN - 1, &br);
		CHECK(br == 0 && n == k, "a byte short of %u entries: %u", k + 1, n);
		CHECK(xdr.len - 4 <= RESOK_MIN + (k + 1) * ENT_LEN - 1, "within maxcount");
	}
	/* The empty list itself does not fit: the stream is unchanged. */
	rpcrdma_xdr_enc_init(&xdr, &mem);
	rdp_fill(&xdr, UINT32_MAX, RESOK_MIN - 1, &br);
	CHECK(br == -ENOSPC && xdr.len == 0, "maxcount below the empty reply: %d, %u", br, xdr.len);
	/* dircount counts READDIR's entry3 of each entry. */
	rpcrdma_xdr_enc_init(&xdr, &mem);
	n = rdp_fill(&xdr, 2 * ENT_INFO, UINT32_MAX, &br);
	CHECK(n == 2, "dircount for 2 entries: %u", n);
	rpcrdma_xdr_enc_init(&xdr, &mem);
	n = rdp_fill(&xdr, ENT_INFO - 1, UINT32_MAX, &br);
	CHECK(n == 0, "dircount below one entry: %u (the server answers NFS3ERR_TOOSMALL)", n);
	/* The buffer: entries stop where the end of the list still fits. */
	mem.len = 4 + RESOK_MIN + 5 * ENT_LEN + 3;
	rpcrdma_xdr_enc_init(&xdr, &mem);
	n = rdp_fill(&xdr, UINT32_MAX, UINT32_MAX, &br);
	CHECK(n == 5 && xdr.len == 4 + RESOK_MIN + 5 * ENT_LEN, "buffer for 5 entries: %u", n);

	/* Decode that reply: 5 entries, then the end, then the end again. */
	rpcrdma_xdr_dec_init(&dec, buf, xdr.len);
	CHECK(rpcrdma_nfs3_dec_readdirplus_res(&dec, &res) == 0 && !res.done, "head");
	for (k = 0; (ret = rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent)) == 1; k++)
		CHECK(ent.fileid == 1000 + k && ent.cookie == k + 1 && ent.name_len == ENT_NAME &&
			      memcmp(ent.name, "entry", 5) == 0 && ent.name_handle.fh.len == ENT_FH,
		      "entry %u", k);
	CHECK(ret == 0 && k == 5 && res.done && !res.eof, "5 entries, not eof: %d %u", ret, k);
	CHECK(rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent) == 0, "the end stays");
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "all consumed");

	/* A bad third entry: the cursor rewinds to it, the first two stay read. */
	buf[4 + HEAD_LEN + 2 * ENT_LEN + 3] = 2; /* its value_follows */
	rpcrdma_xdr_dec_init(&dec, buf, xdr.len);
	CHECK(rpcrdma_nfs3_dec_readdirplus_res(&dec, &res) == 0, "head");
	CHECK(rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent) == 1, "entry 0");
	CHECK(rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent) == 1, "entry 1");
	pos = rpcrdma_xdr_dec_pos(&dec);
	ret = rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent);
	CHECK(ret == -RPCRDMA_E_BOOL && rpcrdma_xdr_dec_pos(&dec) == pos && !res.done,
	      "value_follows 2: %s", rpcrdma_errname(ret));
	buf[4 + HEAD_LEN + 2 * ENT_LEN + 3] = 1;
	buf[4 + HEAD_LEN + 2 * ENT_LEN + 4 + 8 + 2] = 1; /* its name: 256 bytes */
	ret = rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent);
	CHECK(ret == -RPCRDMA_E_NAME_LEN && rpcrdma_xdr_dec_pos(&dec) == pos, "a name of 256: %s",
	      rpcrdma_errname(ret));
	buf[xdr.len - 1] = 2; /* eof */
	buf[4 + HEAD_LEN + 2 * ENT_LEN + 4 + 8 + 2] = 0;
	for (k = 2; (ret = rpcrdma_nfs3_dec_readdirplus_entry(&dec, &res, &ent)) == 1; k++)
		;
	CHECK(ret == -RPCRDMA_E_BOOL && !res.done && k == 5, "eof of 2: %s after %u",
	      rpcrdma_errname(ret), k);

	/* A name over the bound is refused by the encoder. */
	mem.len = sizeof(buf);
	rpcrdma_xdr_enc_init(&xdr, &mem);
	{
		struct rpcrdma_nfs3_readdirplus_res r = { .status = 0 };
		struct rpcrdma_nfs3_readdirplus_enc e;

		CHECK(rpcrdma_nfs3_readdirplus_begin(&e, &xdr, &r, 1000, 1000) == 0, "begin");
		entry(&ent, 0, (char[ENT_NAME + 1]){ 0 });
		ent.name = (char *)big_name;
		ent.name_len = 256;
		pos = xdr.len;
		CHECK(rpcrdma_nfs3_readdirplus_put(&e, &ent) == -EINVAL && xdr.len == pos,
		      "a name of 256");
	}
}

/* ------------------------- SETATTR, READLINK, SYMLINK, RENAME, READDIR */

/* sattr3 with nothing set. */
static void wsattr0(struct msg *m)
{
	for (int i = 0; i < 6; i++)
		w32(m, 0);
}

static void check_second_set(void)
{
	static uint8_t buf[4096];
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(buf, sizeof(buf), 0, 0);
	struct rpcrdma_nfs3_readdirplus_res res = { .status = RPCRDMA_NFS3_OK };
	struct rpcrdma_nfs3_readdirplus_enc e;
	struct rpcrdma_nfs3_entry ent = { .name = "name0123", .name_len = 8 };
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_xdr_dec dec;
	struct msg m;
	uint32_t k, n;
	int ret;

	/* SETATTR3args: sattrguard3 is a bool; time_how 0..2 */
	m.n = 0;
	wop(&m, 8);
	wsattr0(&m);
	w32(&m, 1);
	w64(&m, 7);
	EXPECT("SETATTR3args", &m, 0);
	m.n -= 12;
	w32(&m, 2);
	EXPECT("SETATTR3args", &m, -RPCRDMA_E_BOOL);
	m.n = 0;
	wop(&m, 8);
	for (int i = 0; i < 4; i++)
		w32(&m, 0);
	w32(&m, 3); /* set_atime: no such time_how */
	w32(&m, 0);
	w32(&m, 0);
	EXPECT("SETATTR3args", &m, -RPCRDMA_E_ENUM);
	m.n = 0;
	wop(&m, 8);
	wsattr0(&m);
	w32(&m, 1); /* the guard's time is missing */
	EXPECT("SETATTR3args", &m, -RPCRDMA_E_XDR_END);

	/* nfspath3: up to 4096 bytes, then NAME_LEN (NFS3ERR_NAMETOOLONG) */
	m.n = 0;
	wop(&m, 8);
	wop(&m, 3);
	wsattr0(&m);
	wop(&m, RPCRDMA_NFS3_PATH_MAX);
	EXPECT("SYMLINK3args", &m, 0);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 3);
	wsattr0(&m);
	wop(&m, RPCRDMA_NFS3_PATH_MAX + 1);
	EXPECT("SYMLINK3args", &m, -RPCRDMA_E_NAME_LEN);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3_OK);
	w32(&m, 0);
	w32(&m, 0xffffffff);
	EXPECT("READLINK3res", &m, -RPCRDMA_E_NAME_LEN);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_INVAL); /* no path in the failure arm */
	w32(&m, 0);
	EXPECT("READLINK3res", &m, 0);

	/* RENAME3args: the second name is checked as the first */
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	wop(&m, 8);
	wop(&m, 256);
	EXPECT("RENAME3args", &m, -RPCRDMA_E_NAME_LEN);
	m.n = 0;
	wop(&m, 8);
	wop(&m, 4);
	wop(&m, 65);
	wop(&m, 4);
	EXPECT("RENAME3args", &m, -RPCRDMA_E_OPAQUE_BOUND);
	m.n = 0;
	w32(&m, RPCRDMA_NFS3ERR_XDEV);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 2); /* todir_wcc's post_op_attr */
	EXPECT("RENAME3res", &m, -RPCRDMA_E_BOOL);

	/* READDIR3args: cut in the verifier */
	m.n = 0;
	wop(&m, 8);
	w64(&m, 3);
	w32(&m, 0);
	EXPECT("READDIR3args", &m, -RPCRDMA_E_OPAQUE);

	/* READDIR3res: count holds the head, k entries and the end exactly */
	for (k = 0; k < 4; k++) {
		const uint32_t head = 4 + 8, ent_len = 4 + 8 + 4 + 8 + 8, end = 8;

		rpcrdma_xdr_enc_init(&xdr, &mem);
		CHECK(rpcrdma_nfs3_readdir_begin(&e, &xdr, &res, head + k * ent_len + end) == 0,
		      "begin");
		for (n = 0; (ret = rpcrdma_nfs3_readdir_put(&e, &ent)) == 0; n++)
			ent.cookie = n + 3;
		CHECK(ret == -ENOSPC && n == k, "count for %u entries: %u", k, n);
		CHECK(rpcrdma_nfs3_readdirplus_end(&e, true) == 0, "end");
		CHECK(xdr.len == 4 + head + k * ent_len + end, "%u entries: %u bytes", k, xdr.len);
		rpcrdma_xdr_dec_init(&dec, buf, xdr.len);
		CHECK(rpcrdma_nfs3_dec_readdirplus_res(&dec, &res) == 0, "head");
		for (n = 0; rpcrdma_nfs3_dec_readdir_entry(&dec, &res, &ent) == 1; n++)
			;
		CHECK(n == k && res.done && res.eof && rpcrdma_xdr_dec_left(&dec) == 0,
		      "decoded %u of %u", n, k);
		res.done = false;
		ent.name = "name0123";
		ent.name_len = 8;
	}
	rpcrdma_xdr_enc_init(&xdr, &mem);
	CHECK(rpcrdma_nfs3_readdir_begin(&e, &xdr, &res, 11) == -ENOSPC && xdr.len == 0,
	      "count below the empty reply");
	CHECK(rpcrdma_nfs3_readdir_begin(&e, &xdr, &res, 1000) == 0, "begin");
	ent.name = (char *)big_name;
	ent.name_len = 256;
	n = xdr.len;
	CHECK(rpcrdma_nfs3_readdir_put(&e, &ent) == -EINVAL && xdr.len == n, "a name of 256");
}

/* ------------------------------------------------------- random and names */

static void check_random(void)
{
	static uint8_t junk[512];
	uint64_t x = 0x243f6a8885a308d3ull;
	unsigned int i, k, len;
	int ret;

	for (i = 0; i < 3000; i++) {
		struct rpcrdma_xdr_dec dec;
		uint8_t *copy;

		len = (unsigned int)(x % sizeof(junk));
		for (k = 0; k < len; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* Small words often: lengths and discriminants that parse. */
			junk[k] = (k & 3) == 3 ? (uint8_t)(x >> 60)
				  : (x >> 62)  ? 0
					       : (uint8_t)(x >> 33);
		}
		copy = test_heap_copy(junk, len);
		for (k = 0; k < nfs3_nkinds; k++) {
			rpcrdma_xdr_dec_init(&dec, copy, len);
			ret = nfs3_kinds[k].dec(&dec, out);
			CHECK(ret == 0 || (-ret >= RPCRDMA_ERRNO_BASE && -ret < RPCRDMA_E_MAX),
			      "%s on random bytes: %d", nfs3_kinds[k].name, ret);
		}
		free(copy);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	}
}

static void check_names(void)
{
	CHECK(strcmp(rpcrdma_nfs3_stat_name(RPCRDMA_NFS3_OK), "NFS3_OK") == 0, "NFS3_OK");
	CHECK(strcmp(rpcrdma_nfs3_stat_name(2), "NFS3ERR_NOENT") == 0, "NOENT");
	CHECK(strcmp(rpcrdma_nfs3_stat_name(10008), "NFS3ERR_JUKEBOX") == 0, "JUKEBOX");
	CHECK(strcmp(rpcrdma_nfs3_stat_name(3), "NFS3ERR_UNKNOWN") == 0, "unknown");
	CHECK(strcmp(rpcrdma_mount3_stat_name(13), "MNT3ERR_ACCES") == 0, "MNT3ERR_ACCES");
	CHECK(strcmp(rpcrdma_mount3_stat_name(10006), "MNT3ERR_SERVERFAULT") == 0, "FAULT");
	CHECK(strcmp(rpcrdma_mount3_stat_name(3), "MNT3ERR_UNKNOWN") == 0, "unknown");
	CHECK(strcmp(rpcrdma_nfs3_proc_name(RPCRDMA_NFS3_READDIRPLUS), "READDIRPLUS") == 0, "17");
	CHECK(strcmp(rpcrdma_nfs3_proc_name(RPCRDMA_NFS3_COMMIT), "COMMIT") == 0, "21");
	CHECK(strcmp(rpcrdma_nfs3_proc_name(22), "UNKNOWN") == 0, "22");
	CHECK(strcmp(rpcrdma_nfs3_proc_name(RPCRDMA_NFS3_READDIR), "READDIR") == 0, "16");
	CHECK(strcmp(rpcrdma_nfs3_proc_name(RPCRDMA_NFS3_LINK), "LINK") == 0, "15");
	CHECK(strcmp(rpcrdma_errname(-RPCRDMA_E_NAME_LEN), "NAME_LEN") == 0, "NAME_LEN");
	CHECK(strcmp(rpcrdma_errname(-RPCRDMA_E_ARRAY), "ARRAY") == 0, "ARRAY");
}

int main(void)
{
	memset(fh64, 0xfe, sizeof(fh64));
	memset(big_name, 'n', sizeof(big_name));
	check_handles_and_names();
	check_discriminants();
	check_lengths();
	check_chunks();
	check_encode_invalid();
	check_encode_enospc();
	check_readdirplus_budgets();
	check_second_set();
	check_random();
	check_names();
	return test_summary("test_nfs3_bad");
}
