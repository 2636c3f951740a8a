/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3-server end to end over the shm PMD: the server runs as its own
 * process (argv[1]); this program is its client, an engine requester with
 * the codec of rpcrdma_nfs3.h (every argument and result through
 * tests/unit/nfs3/nfs3_kinds.c), and libtirpc's client for MOUNT on TCP.
 *
 *   mount     MNT "/" gives the root handle that GETATTR accepts; MNT of
 *             another path MNT3ERR_NOENT; NULL
 *   procs     every procedure: NULL, GETATTR, SETATTR (and its guard),
 *             LOOKUP ('.', '..'), ACCESS, READLINK, READ and WRITE of 4 KiB,
 *             64 KiB and 1 MiB read back byte for byte (the READ through a
 *             write chunk, the WRITE through a read chunk), a READ across
 *             two extents (copied), CREATE in its three modes, MKDIR,
 *             SYMLINK, REMOVE, RMDIR, RENAME, READDIR, READDIRPLUS, FSSTAT,
 *             FSINFO (1 MiB rtmax and wtmax), PATHCONF, COMMIT (WRITE's
 *             verifier), MKNOD and LINK (NFS3ERR_NOTSUPP), procedure 22
 *             (PROC_UNAVAIL)
 *   listing   a directory of 2,000 files listed by READDIRPLUS and READDIR
 *             in several calls through a reply chunk: every name once,
 *             cookies increasing, eof at the end
 *   hostile   handles short, forged, stale (BADHANDLE, STALE), names with
 *             '/' (ACCES) and of 256 bytes (NAMETOOLONG), a READ of 2^32-1
 *             bytes (cut to 1 MiB), WRITE count not the data's (INVAL),
 *             READ of a directory (ISDIR), READDIR cookies past the end and
 *             with another verifier (BAD_COOKIE), FBIG past the area, NOSPC when
 *             it is full and space again after a REMOVE
 *   shutdown  SIGTERM: the server exits 0, every buffer back in its pool
 *
 * With "--io-max 256k" as the server's extra options, only io-max: FSINFO
 * says 256 KiB, a WRITE of 1 MiB writes 256 KiB and its count says so (RFC
 * 1813 3.3.7), a READ of 1 MiB of a 512 KiB file returns 256 KiB, not eof.
 *
 * With "--drc" alone: the duplicate request cache. Servers whose Kth work
 * request fails (K 1..4: the reply of CREATE, of REMOVE, of LOOKUP, none),
 * a client that reconnects and sends again the call whose reply was lost:
 * CREATE (GUARDED), REMOVE, LOOKUP of one name answer OK, OK, NOENT every
 * time; the caches answered the copies of CREATE and REMOVE, and without
 * the cache the copy of CREATE answers EXIST.
 *
 * Usage: test_nfs3_server NFS3-SERVER [SERVER OPTIONS...] (e.g. --workers 2).
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include <rte_cycles.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_mount3.h>
#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "nfs3_kinds.h"
#include "test_check.h"
#include "test_side.h"

#define AREA	  (16u << 20)
#define NBIG	  2000
#define TIMEOUT_S 20
#define MiB	  (1u << 20)

static pid_t server_pid;
static FILE *server_out;       /* the server's standard output */
static uint32_t cli_reconnect; /* the client's params.reconnect_max */
static struct rpcrdma_pmd_dev *dev;
static struct rpcrdma_pmd_pd *pd;
static struct rpcrdma_mempool_set *pools;
static struct rpcrdma_xprt *xprt;
static uint8_t *src, *dst, *longb; /* 1 MiB registered buffers */
static struct rpcrdma_mempool *big;
static uint8_t root_fh[64];
static uint32_t root_len;

/* ------------------------------------------------------------ the server */

/* The server's extra options (argv[2...] of this program: --workers 2). */
static char **extra;
static int nextra;

static int start_server(const char *exe, const char *addr, uint16_t *mport)
{
	char *av[32] = {
		(char *)exe, "--listen", (char *)addr, "--size", "16m", "--mount-port", "0"
	};
	int n = 7;

	int fds[2];
	char line[512];
	FILE *f;

	if (pipe(fds) != 0)
		return -errno;
	server_pid = fork();
	if (server_pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		for (int i = 0; i < nextra && n < 31; i++)
			av[n++] = extra[i];
		av[n] = NULL;
		execv(exe, av);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	server_out = f;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "MOUNT on TCP port ");

		if (p) {
			*mport = (uint16_t)atoi(p + strlen("MOUNT on TCP port "));
			return 0; /* the pipe stays open: the server may print more */
		}
	}
	return -EIO;
}

/* ------------------------------------------------------------ MOUNT */

struct mnt_out {
	uint32_t status;
	char fh[64];
	u_int len;
};

static bool_t xdr_path(XDR *x, char **p)
{
	return xdr_string(x, p, 1024);
}

static bool_t xdr_mnt_out(XDR *x, struct mnt_out *r)
{
	char *p = r->fh;
	int *fl = NULL;
	u_int nfl = 0;
	bool_t ok;

	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status != 0)
		return TRUE;
	ok = xdr_bytes(x, &p, &r->len, 64) &&
	     xdr_array(x, (char **)&fl, &nfl, 16, sizeof(int), (xdrproc_t)xdr_int);
	if (fl && nfl >= 1)
		CHECK(fl[0] == RPCRDMA_RPC_AUTH_SYS, "MNT's flavor: AUTH_SYS");
	free(fl);
	return ok;
}

static bool_t xdr_none(XDR *x, void *p)
{
	return TRUE;
}

static void check_mount(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { TIMEOUT_S, 0 };
	struct mnt_out r;
	int sock = RPC_ANYSOCK;
	char *path = "/";
	CLIENT *c;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clnttcp_create(&a, RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION, &sock, 0, 0);
	CHECK(c != NULL, "clnttcp_create on the mount port %u: %s", port,
	      c ? "" : clnt_spcreateerror("MOUNT"));
	if (c == NULL)
		return;
	CHECK(clnt_call(c, 0, (xdrproc_t)xdr_none, NULL, (xdrproc_t)xdr_none, NULL, tv) ==
		      RPC_SUCCESS,
	      "MOUNT NULL");
	memset(&r, 0, sizeof(r));
	CHECK(clnt_call(c, RPCRDMA_MOUNT3_MNT, (xdrproc_t)xdr_path, (caddr_t)&path,
			(xdrproc_t)xdr_mnt_out, (caddr_t)&r, tv) == RPC_SUCCESS &&
		      r.status == RPCRDMA_MNT3_OK && r.len > 0,
	      "MNT /: %u", r.status);
	memcpy(root_fh, r.fh, r.len);
	root_len = r.len;
	path = "/not-exported";
	memset(&r, 0, sizeof(r));
	CHECK(clnt_call(c, RPCRDMA_MOUNT3_MNT, (xdrproc_t)xdr_path, (caddr_t)&path,
			(xdrproc_t)xdr_mnt_out, (caddr_t)&r, tv) == RPC_SUCCESS &&
		      r.status == RPCRDMA_MNT3ERR_NOENT,
	      "MNT /not-exported: %u", r.status);
	path = "/";
	CHECK(clnt_call(c, RPCRDMA_MOUNT3_UMNT, (xdrproc_t)xdr_path, (caddr_t)&path,
			(xdrproc_t)xdr_none, NULL, tv) == RPC_SUCCESS,
	      "UMNT");
	CHECK(clnt_call(c, 5, (xdrproc_t)xdr_none, NULL, (xdrproc_t)xdr_none, NULL, tv) ==
		      RPC_PROCUNAVAIL,
	      "EXPORT: PROC_UNAVAIL");
	clnt_destroy(c);
}

/* ------------------------------------------------------------ one call */

static const struct nfs3_kind *kind(const char *name)
{
	for (unsigned int i = 0; i < nfs3_nkinds; i++)
		if (strcmp(nfs3_kinds[i].name, name) == 0)
			return &nfs3_kinds[i];
	abort();
}

typedef int (*dec_fn)(struct rpcrdma_xdr_dec *d, void *arg);

struct pending {
	bool done;
	int status; /* 0, -EREMOTEIO (RPC-level error, accept_stat in rpc), or an errno */
	struct rpcrdma_rpc_msg rep;
	dec_fn dec;
	void *arg;
};

static void poll_events(void)
{
	struct rpcrdma_pmd_event ev[4];
	int n = rpcrdma_pmd_event_poll(dev, ev, 4);

	for (int i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
}

static void call_done(void *arg, struct rpcrdma_xprt_call *call, int status,
		      struct rpcrdma_xdr_dec *reply)
{
	struct pending *p = arg;

	p->done = true;
	p->status = status;
	if (status == 0) {
		if (rpcrdma_xprt_get_rpc(reply, &p->rep) != 0 ||
		    p->rep.xid != rpcrdma_xprt_call_xid(call))
			p->status = -EBADMSG;
		else if (p->rep.reply.stat != RPCRDMA_RPC_MSG_ACCEPTED ||
			 p->rep.reply.accept_stat != RPCRDMA_RPC_SUCCESS)
			p->status = -EREMOTEIO;
		else if (p->dec && (p->dec(reply, p->arg) != 0 || rpcrdma_xdr_dec_left(reply)))
			p->status = -EBADMSG;
	}
	rpcrdma_xprt_call_release(call);
}

/* One NFS call: @p enc writes the arguments, @p dec reads the results. */
static int nfs_call(uint32_t proc, int (*enc)(struct rpcrdma_xdr_enc *e, const void *v),
		    const void *args, dec_fn dec, void *res, uint32_t rdma_read_len, bool longrep)
{
	struct pending p = { .dec = dec, .arg = res };
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xprt_call *call;
	uint64_t end;
	int ret;

	ret = rpcrdma_xprt_call_alloc(xprt, &call);
	if (ret)
		return ret;
	ret = rpcrdma_xprt_call_put_header(call, RPCRDMA_NFS3_PROGRAM, RPCRDMA_NFS3_VERSION, proc);
	if (ret == 0 && enc)
		ret = enc(rpcrdma_xprt_call_enc(call), args);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		return ret;
	}
	spec = rpcrdma_xprt_call_reply_spec(call);
	spec->max_len = 4000;
	if (rdma_read_len) { /* READ: the data lands in dst through a write chunk */
		spec->ddp[0] = rpcrdma_xdr_region_va(dst, rdma_read_len, big->lkey, big->rkey);
		spec->nddp = 1;
		spec->max_len = 256 + rdma_read_len;
	}
	if (longrep) { /* a reply chunk for a long listing */
		spec->max_len = 64u << 10;
		spec->long_buf = rpcrdma_xdr_region_va(longb, 64u << 10, big->lkey, big->rkey);
	}
	ret = rpcrdma_xprt_call_submit(call, 0, call_done, &p);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		return ret;
	}
	end = rte_rdtsc() + rte_get_tsc_hz() * TIMEOUT_S;
	while (!p.done && rte_rdtsc() < end) {
		rpcrdma_xprt_poll(xprt);
		poll_events();
	}
	if (!p.done)
		return -ETIMEDOUT;
	if (p.status == -EREMOTEIO)
		return -1000 - (int)p.rep.reply.accept_stat;
	return p.status;
}

/* A call by kind names ("GETATTR3args", "GETATTR3res"). */
static int nfs(uint32_t proc, const char *argk, const void *args, const char *resk, void *res)
{
	return nfs_call(proc, kind(argk)->enc, args, kind(resk)->dec, res, 0, false);
}

/* ------------------------------------------------------------ helpers */

static struct rpcrdma_nfs3_fh root(void)
{
	struct rpcrdma_nfs3_fh fh = { root_fh, root_len };

	return fh;
}

/* Handles kept by the test: fh bytes copied out of the reply. */
struct fh_buf {
	uint8_t b[64];
	struct rpcrdma_nfs3_fh fh;
};

static uint32_t getattr(const struct rpcrdma_nfs3_fh *fh, struct rpcrdma_nfs3_fattr *a)
{
	struct rpcrdma_nfs3_getattr_args ga = { *fh };
	struct rpcrdma_nfs3_getattr_res r = { 0 };
	int ret = nfs(RPCRDMA_NFS3_GETATTR, "GETATTR3args", &ga, "GETATTR3res", &r);

	CHECK(ret == 0, "GETATTR: %d", ret);
	if (a)
		*a = r.attr;
	return ret ? 0xffffffff : r.status;
}

/* The decoder copies the handle out of the reply before it is released. */
static struct fh_buf *keep;

static int dec_create(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rpcrdma_nfs3_create_res *r = v;
	int ret = rpcrdma_nfs3_dec_create_res(d, r);

	if (ret == 0 && r->status == 0 && r->obj.present && keep) {
		memcpy(keep->b, r->obj.fh.data, r->obj.fh.len);
		keep->fh.data = keep->b;
		keep->fh.len = r->obj.fh.len;
	}
	return ret;
}

static int dec_lookup(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rpcrdma_nfs3_lookup_res *r = v;
	int ret = rpcrdma_nfs3_dec_lookup_res(d, r);

	if (ret == 0 && r->status == 0 && keep) {
		memcpy(keep->b, r->object.data, r->object.len);
		keep->fh.data = keep->b;
		keep->fh.len = r->object.len;
	}
	return ret;
}

static uint32_t create(const struct rpcrdma_nfs3_fh *dir, const char *name, uint32_t mode,
		       const uint8_t *verf, struct fh_buf *out)
{
	struct rpcrdma_nfs3_create_args a = { 0 };
	struct rpcrdma_nfs3_create_res r = { 0 };
	int ret;

	a.where.dir = *dir;
	a.where.name = name;
	a.where.name_len = (uint32_t)strlen(name);
	a.mode = mode;
	if (verf)
		memcpy(a.verf, verf, 8);
	else
		a.attr.set_mode = true, a.attr.mode = 0640;
	keep = out;
	ret = nfs_call(RPCRDMA_NFS3_CREATE, kind("CREATE3args")->enc, &a, dec_create, &r, 0, false);
	keep = NULL;
	CHECK(ret == 0, "CREATE %s: %d", name, ret);
	return ret ? 0xffffffff : r.status;
}

static uint32_t lookup(const struct rpcrdma_nfs3_fh *dir, const char *name, uint32_t len,
		       struct fh_buf *out)
{
	struct rpcrdma_nfs3_lookup_args a = { { *dir, name, len } };
	struct rpcrdma_nfs3_lookup_res r = { 0 };
	int ret;

	keep = out;
	ret = nfs_call(RPCRDMA_NFS3_LOOKUP, kind("LOOKUP3args")->enc, &a, dec_lookup, &r, 0, false);
	keep = NULL;
	CHECK(ret == 0, "LOOKUP: %d", ret);
	return ret ? 0xffffffff : r.status;
}

static uint8_t write_verf[8];

static uint32_t write_data(const struct rpcrdma_nfs3_fh *fh, uint64_t off, uint32_t count,
			   uint32_t data_len)
{
	struct rpcrdma_nfs3_write_args a = { *fh, off, count, RPCRDMA_NFS3_UNSTABLE };
	struct rpcrdma_nfs3_write_res r = { 0 };
	int ret;

	a.data = rpcrdma_xdr_region_va(src, data_len, big->lkey, big->rkey);
	ret = nfs(RPCRDMA_NFS3_WRITE, "WRITE3args", &a, "WRITE3res", &r);
	CHECK(ret == 0, "WRITE %u: %d", count, ret);
	if (ret == 0 && r.status == 0) {
		CHECK(r.count == count && r.committed == RPCRDMA_NFS3_FILE_SYNC &&
			      r.file_wcc.after.present && r.file_wcc.after.attr.size >= off + count,
		      "WRITE's results");
		memcpy(write_verf, r.verf, 8);
	}
	return ret ? 0xffffffff : r.status;
}

static int dec_read(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rpcrdma_nfs3_read_res *r = v;
	int ret = rpcrdma_nfs3_dec_read_res(d, r);

	if (ret == 0 && r->status == 0 && r->data.len && r->data.addr != dst)
		memcpy(dst, r->data.addr, r->data.len);
	return ret;
}

static uint32_t read_data(const struct rpcrdma_nfs3_fh *fh, uint64_t off, uint32_t count,
			  struct rpcrdma_nfs3_read_res *r)
{
	struct rpcrdma_nfs3_read_args a = { *fh, off, count };
	int ret;

	memset(r, 0, sizeof(*r));
	ret = nfs_call(RPCRDMA_NFS3_READ, kind("READ3args")->enc, &a, dec_read, r,
		       count < MiB ? count : MiB, false);
	CHECK(ret == 0, "READ %u: %d", count, ret);
	return ret ? 0xffffffff : r->status;
}

/* ------------------------------------------------------------ --io-max */

static void check_io_max(uint32_t max)
{
	struct rpcrdma_nfs3_fh rfh = root();
	struct rpcrdma_nfs3_fh_args fa = { rfh };
	struct rpcrdma_nfs3_fsinfo_res fi = { 0 };
	struct rpcrdma_nfs3_write_args wa = { 0 };
	struct rpcrdma_nfs3_write_res wr = { 0 };
	struct rpcrdma_nfs3_read_res rr;
	struct fh_buf f;

	CHECK(nfs(RPCRDMA_NFS3_FSINFO, "FSINFO3args", &fa, "FSINFO3res", &fi) == 0 &&
		      fi.status == 0 && fi.rtmax == max && fi.wtmax == max && fi.rtpref == max &&
		      fi.wtpref == max,
	      "FSINFO: rtmax %u wtmax %u, want %u", fi.rtmax, fi.wtmax, max);
	CHECK(create(&rfh, "io", RPCRDMA_NFS3_GUARDED, NULL, &f) == 0, "CREATE io");
	for (uint32_t k = 0; k < MiB; k++)
		src[k] = (uint8_t)(k * 7);
	wa.file = f.fh;
	wa.count = MiB;
	wa.stable = RPCRDMA_NFS3_FILE_SYNC;
	wa.data = rpcrdma_xdr_region_va(src, MiB, big->lkey, big->rkey);
	CHECK(nfs(RPCRDMA_NFS3_WRITE, "WRITE3args", &wa, "WRITE3res", &wr) == 0 && wr.status == 0 &&
		      wr.count == max && wr.file_wcc.after.present &&
		      wr.file_wcc.after.attr.size == max,
	      "WRITE of 1 MiB: %u bytes written (status %u), want %u", wr.count, wr.status, max);
	/* the file's second block: a READ of 1 MiB at 0 then stops short of the end */
	wa.offset = max;
	wa.count = max;
	wa.data.len = max;
	CHECK(nfs(RPCRDMA_NFS3_WRITE, "WRITE3args", &wa, "WRITE3res", &wr) == 0 && wr.status == 0 &&
		      wr.count == max,
	      "WRITE of %u at %u: %u", max, max, wr.count);
	CHECK(read_data(&f.fh, 0, MiB, &rr) == 0 && rr.count == max && !rr.eof &&
		      rr.data.len == max && memcmp(rr.data.addr, src, max) == 0,
	      "READ of 1 MiB: %u bytes, eof %d, want %u of what was written", rr.count, rr.eof,
	      max);
}

/* ------------------------------------------------------------ procedures */

static void check_procs(void)
{
	struct rpcrdma_nfs3_fh rfh = root();
	struct rpcrdma_nfs3_fattr a;
	struct fh_buf f, f2, d, l, g;
	struct rpcrdma_nfs3_read_res rr;
	static const uint8_t verf1[8] = "verf-one", verf2[8] = "verf-two";
	static const uint32_t sizes[] = { 4096, 64u << 10, MiB };
	int ret;

	CHECK(nfs_call(RPCRDMA_NFS3_NULL, NULL, NULL, NULL, NULL, 0, false) == 0, "NULL");
	CHECK(getattr(&rfh, &a) == 0 && a.type == RPCRDMA_NFS3_DIR && a.fileid == 1,
	      "GETATTR of MNT's root handle");
	{
		struct rpcrdma_nfs3_fh_args fa = { rfh };
		struct rpcrdma_nfs3_fsinfo_res fi = { 0 };
		struct rpcrdma_nfs3_fsstat_res fs = { 0 };
		struct rpcrdma_nfs3_pathconf_res pc = { 0 };

		CHECK(nfs(RPCRDMA_NFS3_FSINFO, "FSINFO3args", &fa, "FSINFO3res", &fi) == 0 &&
			      fi.status == 0 && fi.rtmax == MiB && fi.wtmax == MiB &&
			      fi.maxfilesize == AREA && fi.dtpref > 0,
		      "FSINFO");
		CHECK(nfs(RPCRDMA_NFS3_FSSTAT, "FSSTAT3args", &fa, "FSSTAT3res", &fs) == 0 &&
			      fs.status == 0 && fs.tbytes == AREA && fs.fbytes == AREA &&
			      fs.tfiles > 1000,
		      "FSSTAT: %lu free", (unsigned long)fs.fbytes);
		CHECK(nfs(RPCRDMA_NFS3_PATHCONF, "PATHCONF3args", &fa, "PATHCONF3res", &pc) == 0 &&
			      pc.status == 0 && pc.name_max == 255 && pc.no_trunc,
		      "PATHCONF");
	}
	/* CREATE: UNCHECKED, GUARDED, EXCLUSIVE (a retransmission and another verifier) */
	CHECK(create(&rfh, "f", RPCRDMA_NFS3_UNCHECKED, NULL, &f) == 0, "CREATE f");
	CHECK(getattr(&f.fh, &a) == 0 && a.type == RPCRDMA_NFS3_REG && a.mode == 0640 &&
		      a.uid == 65534 && a.size == 0 && a.nlink == 1,
	      "f's attributes: mode %o uid %u", a.mode, a.uid);
	CHECK(create(&rfh, "f", RPCRDMA_NFS3_UNCHECKED, NULL, &f2) == 0, "UNCHECKED again");
	CHECK(create(&rfh, "f", RPCRDMA_NFS3_GUARDED, NULL, &f2) == RPCRDMA_NFS3ERR_EXIST,
	      "GUARDED: EXIST");
	CHECK(create(&rfh, "x", RPCRDMA_NFS3_EXCLUSIVE, verf1, &f2) == 0, "EXCLUSIVE");
	CHECK(create(&rfh, "x", RPCRDMA_NFS3_EXCLUSIVE, verf1, &g) == 0 && g.fh.len == f2.fh.len &&
		      memcmp(g.b, f2.b, g.fh.len) == 0,
	      "EXCLUSIVE retransmitted: the same file");
	CHECK(create(&rfh, "x", RPCRDMA_NFS3_EXCLUSIVE, verf2, &g) == RPCRDMA_NFS3ERR_EXIST,
	      "EXCLUSIVE, another verifier: EXIST");
	/* WRITE then READ back: 4 KiB, 64 KiB, 1 MiB */
	for (unsigned int i = 0; i < 3; i++) {
		uint32_t n = sizes[i];

		for (uint32_t k = 0; k < n; k++)
			src[k] = (uint8_t)(k * 13 + i + 1);
		CHECK(write_data(&f.fh, 0, n, n) == 0, "WRITE %u", n);
		memset(dst, 0, n);
		CHECK(read_data(&f.fh, 0, n, &rr) == 0 && rr.count == n && rr.data.len == n &&
			      memcmp(dst, src, n) == 0,
		      "READ %u back: count %u", n, rr.count);
		CHECK(rr.data.addr == dst, "READ %u: the data came by RDMA Write into dst", n);
		CHECK(rr.eof, "eof: the file is %u bytes", n);
	}
	/* across two extents (copied by the server): [1 MiB - 4096, 1 MiB + 4096) */
	for (uint32_t k = 0; k < 4096; k++)
		src[k] = (uint8_t)(k ^ 0x5a);
	CHECK(write_data(&f.fh, MiB, 4096, 4096) == 0, "WRITE past 1 MiB");
	CHECK(read_data(&f.fh, MiB - 4096, 8192, &rr) == 0 && rr.count == 8192 && rr.eof &&
		      dst[4096] == 0x5a && dst[0] == (uint8_t)((MiB - 4096) * 13 + 3),
	      "READ across two extents");
	/* SETATTR and its guard */
	{
		struct rpcrdma_nfs3_setattr_args sa = { .object = f.fh };
		struct rpcrdma_nfs3_wcc_res r = { 0 };

		sa.new_attr.set_size = true;
		sa.new_attr.size = 10;
		CHECK(nfs(RPCRDMA_NFS3_SETATTR, "SETATTR3args", &sa, "SETATTR3res", &r) == 0 &&
			      r.status == 0 && r.wcc.before_present &&
			      r.wcc.before.size == MiB + 4096 && r.wcc.after.attr.size == 10,
		      "SETATTR size 10");
		sa.guard_check = true;
		sa.guard_ctime.seconds = 1;
		CHECK(nfs(RPCRDMA_NFS3_SETATTR, "SETATTR3args", &sa, "SETATTR3res", &r) == 0 &&
			      r.status == RPCRDMA_NFS3ERR_NOT_SYNC,
		      "SETATTR guard: NOT_SYNC");
	}
	/* ACCESS: AUTH_NONE is the anonymous owner of f (mode 0640) */
	{
		struct rpcrdma_nfs3_access_args aa = { f.fh, 0x3f };
		struct rpcrdma_nfs3_access_res r = { 0 };

		CHECK(nfs(RPCRDMA_NFS3_ACCESS, "ACCESS3args", &aa, "ACCESS3res", &r) == 0 &&
			      r.status == 0 &&
			      r.access == (RPCRDMA_NFS3_ACCESS_READ | RPCRDMA_NFS3_ACCESS_MODIFY |
					   RPCRDMA_NFS3_ACCESS_EXTEND),
		      "ACCESS: %#x", r.access);
	}
	/* MKDIR, SYMLINK, READLINK, LOOKUP, RENAME, REMOVE, RMDIR */
	{
		struct rpcrdma_nfs3_mkdir_args ma = { { rfh, "d", 1 } };
		struct rpcrdma_nfs3_symlink_args sl = { { rfh, "l", 1 } };
		struct rpcrdma_nfs3_fh_args la;
		struct rpcrdma_nfs3_readlink_res rl = { 0 };
		struct rpcrdma_nfs3_create_res cr = { 0 };
		struct rpcrdma_nfs3_rename_args rn = { { rfh, "f", 1 } };
		struct rpcrdma_nfs3_rename_res rnr = { 0 };
		struct rpcrdma_nfs3_remove_args rm = { 0 };
		struct rpcrdma_nfs3_remove_res rmr = { 0 };

		keep = &d;
		ret = nfs_call(RPCRDMA_NFS3_MKDIR, kind("MKDIR3args")->enc, &ma, dec_create, &cr, 0,
			       false);
		CHECK(ret == 0 && cr.status == 0 && cr.obj_attr.attr.type == RPCRDMA_NFS3_DIR &&
			      cr.obj_attr.attr.mode == 0755 && cr.dir_wcc.after.present,
		      "MKDIR d");
		sl.data = "target/of/l";
		sl.data_len = 11;
		keep = &l;
		ret = nfs_call(RPCRDMA_NFS3_SYMLINK, kind("SYMLINK3args")->enc, &sl, dec_create,
			       &cr, 0, false);
		keep = NULL;
		CHECK(ret == 0 && cr.status == 0 && cr.obj_attr.attr.type == RPCRDMA_NFS3_LNK,
		      "SYMLINK l");
		la.object = l.fh;
		CHECK(nfs(RPCRDMA_NFS3_READLINK, "READLINK3args", &la, "READLINK3res", &rl) == 0 &&
			      rl.status == 0 && rl.data_len == 11,
		      "READLINK");
		la.object = f.fh;
		CHECK(nfs(RPCRDMA_NFS3_READLINK, "READLINK3args", &la, "READLINK3res", &rl) == 0 &&
			      rl.status == RPCRDMA_NFS3ERR_INVAL,
		      "READLINK of a file: INVAL");
		CHECK(lookup(&d.fh, "..", 2, &g) == 0 && g.fh.len == root_len &&
			      memcmp(g.b, root_fh, root_len) == 0,
		      "LOOKUP d/..: the root");
		CHECK(lookup(&rfh, ".", 1, &g) == 0, "LOOKUP .");
		rn.to.dir = d.fh;
		rn.to.name = "g";
		rn.to.name_len = 1;
		CHECK(nfs(RPCRDMA_NFS3_RENAME, "RENAME3args", &rn, "RENAME3res", &rnr) == 0 &&
			      rnr.status == 0 && rnr.fromdir_wcc.after.present &&
			      rnr.todir_wcc.after.present,
		      "RENAME f to d/g");
		CHECK(lookup(&rfh, "f", 1, &g) == RPCRDMA_NFS3ERR_NOENT, "f is gone");
		CHECK(lookup(&d.fh, "g", 1, &g) == 0 && memcmp(g.b, f.b, f.fh.len) == 0,
		      "d/g is f (same handle)");
		rm.object.dir = rfh;
		rm.object.name = "d";
		rm.object.name_len = 1;
		CHECK(nfs(RPCRDMA_NFS3_RMDIR, "RMDIR3args", &rm, "RMDIR3res", &rmr) == 0 &&
			      rmr.status == RPCRDMA_NFS3ERR_NOTEMPTY,
		      "RMDIR d: NOTEMPTY");
		CHECK(nfs(RPCRDMA_NFS3_REMOVE, "REMOVE3args", &rm, "REMOVE3res", &rmr) == 0 &&
			      rmr.status == RPCRDMA_NFS3ERR_ISDIR,
		      "REMOVE d: ISDIR");
		rm.object.dir = d.fh;
		rm.object.name = "g";
		CHECK(nfs(RPCRDMA_NFS3_REMOVE, "REMOVE3args", &rm, "REMOVE3res", &rmr) == 0 &&
			      rmr.status == 0 && rmr.dir_wcc.before_present,
		      "REMOVE d/g");
		CHECK(getattr(&f.fh, NULL) == RPCRDMA_NFS3ERR_STALE, "f's handle: STALE");
		rm.object.dir = rfh;
		rm.object.name = "d";
		CHECK(nfs(RPCRDMA_NFS3_RMDIR, "RMDIR3args", &rm, "RMDIR3res", &rmr) == 0 &&
			      rmr.status == 0,
		      "RMDIR d");
	}
	/* COMMIT: WRITE's verifier; MKNOD and LINK: NOTSUPP; 22: PROC_UNAVAIL */
	{
		struct rpcrdma_nfs3_commit_args ca = { f2.fh, 0, 0 };
		struct rpcrdma_nfs3_commit_res cr = { 0 };
		struct rpcrdma_nfs3_getattr_args ga = { rfh };
		uint32_t st = 0;

		CHECK(nfs(RPCRDMA_NFS3_COMMIT, "COMMIT3args", &ca, "COMMIT3res", &cr) == 0 &&
			      cr.status == 0 && memcmp(cr.verf, write_verf, 8) == 0,
		      "COMMIT: the write verifier");
		CHECK(nfs_call(RPCRDMA_NFS3_MKNOD, kind("GETATTR3args")->enc, &ga,
			       kind("GETATTR3res")->dec, &st, 0, false) == -EBADMSG,
		      "MKNOD: a status and wcc_data (not GETATTR3res)");
		{
			struct rpcrdma_nfs3_wcc_res w = { 0 };

			CHECK(nfs_call(RPCRDMA_NFS3_MKNOD, kind("GETATTR3args")->enc, &ga,
				       kind("SETATTR3res")->dec, &w, 0, false) == 0 &&
				      w.status == RPCRDMA_NFS3ERR_NOTSUPP,
			      "MKNOD: NOTSUPP");
			CHECK(nfs_call(RPCRDMA_NFS3_LINK, kind("GETATTR3args")->enc, &ga,
				       kind("ACCESS3res")->dec, &w, 0, false) == -EBADMSG,
			      "LINK: NOTSUPP with post_op_attr and wcc_data");
		}
		CHECK(nfs_call(22, NULL, NULL, NULL, NULL, 0, false) ==
			      -1000 - RPCRDMA_RPC_PROC_UNAVAIL,
		      "procedure 22: PROC_UNAVAIL");
	}
}

/* ------------------------------------------------------------ listings */

static uint8_t seen[NBIG + 2];
static uint64_t last_cookie, max_cookie_seen;
static uint8_t verf[8];
static uint32_t nentries;
static bool eof_seen, cookies_ok;

static void saw(const char *name, uint32_t len, uint64_t cookie)
{
	char b[32];
	int i;

	nentries++;
	if (cookie <= last_cookie)
		cookies_ok = false;
	last_cookie = cookie;
	if (len == 1 && name[0] == '.')
		seen[NBIG]++;
	else if (len == 2 && name[0] == '.' && name[1] == '.')
		seen[NBIG + 1]++;
	else if (len < sizeof(b) && len > 1 && name[0] == 'n') {
		memcpy(b, name + 1, len - 1);
		b[len - 1] = 0;
		i = atoi(b);
		if (i >= 0 && i < NBIG)
			seen[i]++;
	}
}

static int dec_rdp(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rpcrdma_nfs3_readdirplus_res *r = v;
	struct rpcrdma_nfs3_entryplus e;
	int ret = rpcrdma_nfs3_dec_readdirplus_res(d, r);

	if (ret || r->status)
		return ret;
	memcpy(verf, r->cookieverf, 8);
	while ((ret = rpcrdma_nfs3_dec_readdirplus_entry(d, r, &e)) == 1) {
		saw(e.name, e.name_len, e.cookie);
		if (!e.name_attr.present || !e.name_handle.present)
			cookies_ok = false;
	}
	eof_seen = r->eof;
	return ret;
}

static int dec_rd(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rpcrdma_nfs3_readdirplus_res *r = v;
	struct rpcrdma_nfs3_entry e;
	int ret = rpcrdma_nfs3_dec_readdirplus_res(d, r);

	if (ret || r->status)
		return ret;
	memcpy(verf, r->cookieverf, 8);
	while ((ret = rpcrdma_nfs3_dec_readdir_entry(d, r, &e)) == 1)
		saw(e.name, e.name_len, e.cookie);
	eof_seen = r->eof;
	return ret;
}

/* List dir to the end; @return the calls it took, 0 on error. */
static unsigned int list_dir(const struct rpcrdma_nfs3_fh *dir, bool plus)
{
	struct rpcrdma_nfs3_readdirplus_res r;
	unsigned int calls = 0;
	int ret;

	memset(seen, 0, sizeof(seen));
	memset(verf, 0, sizeof(verf));
	last_cookie = 0;
	nentries = 0;
	eof_seen = false;
	cookies_ok = true;
	while (!eof_seen && calls < 10000) {
		memset(&r, 0, sizeof(r));
		if (plus) {
			struct rpcrdma_nfs3_readdirplus_args a = { *dir, last_cookie };

			memcpy(a.cookieverf, verf, 8);
			a.dircount = 8192;
			a.maxcount = 32768;
			ret = nfs_call(RPCRDMA_NFS3_READDIRPLUS, kind("READDIRPLUS3args")->enc, &a,
				       dec_rdp, &r, 0, true);
		} else {
			struct rpcrdma_nfs3_readdir_args a = { *dir, last_cookie };

			memcpy(a.cookieverf, verf, 8);
			a.count = 8192; /* entries of 24 bytes: still several calls */
			ret = nfs_call(RPCRDMA_NFS3_READDIR, kind("READDIR3args")->enc, &a, dec_rd,
				       &r, 0, true);
		}
		calls++;
		if (ret != 0 || r.status != 0) {
			CHECK(0, "READDIR%s call %u: %d, status %u", plus ? "PLUS" : "", calls, ret,
			      r.status);
			return 0;
		}
	}
	max_cookie_seen = last_cookie;
	return calls;
}

static void check_listing(void)
{
	struct rpcrdma_nfs3_fh rfh = root();
	struct rpcrdma_nfs3_create_res cr = { 0 };
	struct rpcrdma_nfs3_mkdir_args ma = { { rfh, "big", 3 } };
	struct fh_buf bd, x;
	unsigned int calls, ok;
	char name[16];

	keep = &bd;
	CHECK(nfs_call(RPCRDMA_NFS3_MKDIR, kind("MKDIR3args")->enc, &ma, dec_create, &cr, 0,
		       false) == 0 &&
		      cr.status == 0,
	      "MKDIR big");
	keep = NULL;
	for (unsigned int i = 0; i < NBIG; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		if (create(&bd.fh, name, RPCRDMA_NFS3_GUARDED, NULL, &x) != 0)
			break;
	}
	for (int plus = 1; plus >= 0; plus--) {
		calls = list_dir(&bd.fh, plus);
		ok = 0;
		for (unsigned int i = 0; i < NBIG + 2; i++)
			ok += seen[i] == 1;
		CHECK(calls > 3 && ok == NBIG + 2 && nentries == NBIG + 2 && cookies_ok && eof_seen,
		      "READDIR%s of %u entries: %u calls, %u seen once, %u entries",
		      plus ? "PLUS" : "", NBIG, calls, ok, nentries);
	}
	/* lying cookies */
	{
		struct rpcrdma_nfs3_readdir_args a = { bd.fh, max_cookie_seen + 1 };
		struct rpcrdma_nfs3_readdirplus_res r = { 0 };

		memcpy(a.cookieverf, verf, 8);
		a.count = 4096;
		CHECK(nfs_call(RPCRDMA_NFS3_READDIR, kind("READDIR3args")->enc, &a, dec_rd, &r, 0,
			       true) == 0 &&
			      r.status == RPCRDMA_NFS3ERR_BAD_COOKIE,
		      "a cookie past the end: BAD_COOKIE (%u)", r.status);
		a.cookie = 5;
		a.cookieverf[0] ^= 0xff;
		CHECK(nfs_call(RPCRDMA_NFS3_READDIR, kind("READDIR3args")->enc, &a, dec_rd, &r, 0,
			       true) == 0 &&
			      r.status == RPCRDMA_NFS3ERR_BAD_COOKIE,
		      "another verifier: BAD_COOKIE (%u)", r.status);
		a.cookie = 0;
		a.count = 20;
		CHECK(nfs_call(RPCRDMA_NFS3_READDIR, kind("READDIR3args")->enc, &a, dec_rd, &r, 0,
			       true) == 0 &&
			      r.status == RPCRDMA_NFS3ERR_TOOSMALL,
		      "count 20: TOOSMALL (%u)", r.status);
	}
}

/* ------------------------------------------------------------ hostile */

/* LOOKUP with any name bytes (the codec's encoder refuses over 255). */
struct raw_lookup {
	const struct rpcrdma_nfs3_fh *dir;
	const char *name;
	uint32_t len;
};

static int enc_raw_lookup(struct rpcrdma_xdr_enc *e, const void *v)
{
	const struct raw_lookup *l = v;
	int ret = rpcrdma_xdr_put_opaque(e, l->dir->data, l->dir->len);

	return ret ? ret : rpcrdma_xdr_put_string(e, l->name, l->len);
}

/* CREATE (UNCHECKED), MKDIR or SYMLINK ("x") of a raw name, every attribute left as it is. */
struct raw_make {
	struct raw_lookup where;
	uint32_t proc;
};

static int enc_raw_make(struct rpcrdma_xdr_enc *e, const void *v)
{
	const struct raw_make *m = v;
	int ret = enc_raw_lookup(e, &m->where);

	if (ret == 0 && m->proc == RPCRDMA_NFS3_CREATE)
		ret = rpcrdma_xdr_put_u32(e, RPCRDMA_NFS3_UNCHECKED);
	for (int i = 0; ret == 0 && i < 6; i++) /* sattr3: nothing set */
		ret = rpcrdma_xdr_put_u32(e, 0);
	if (ret == 0 && m->proc == RPCRDMA_NFS3_SYMLINK)
		ret = rpcrdma_xdr_put_string(e, "x", 1);
	return ret;
}

static void check_hostile(void)
{
	struct rpcrdma_nfs3_fh rfh = root(), bad;
	struct rpcrdma_nfs3_read_res rr;
	struct rpcrdma_nfs3_lookup_res lr;
	struct fh_buf f, f2;
	uint8_t forged[64];
	char name[300];
	struct raw_lookup rl = { &rfh, name, 0 };
	uint32_t st = 0;
	int ret;

	bad.data = root_fh;
	bad.len = 8;
	CHECK(getattr(&bad, NULL) == RPCRDMA_NFS3ERR_BADHANDLE, "a short handle: BADHANDLE");
	bad.len = 0;
	CHECK(getattr(&bad, NULL) == RPCRDMA_NFS3ERR_BADHANDLE, "an empty handle: BADHANDLE");
	memcpy(forged, root_fh, root_len);
	forged[9] ^= 1; /* another fileid */
	bad.data = forged;
	bad.len = root_len;
	CHECK(getattr(&bad, NULL) == RPCRDMA_NFS3ERR_BADHANDLE, "a forged handle: BADHANDLE");
	memcpy(forged, root_fh, root_len);
	forged[17] ^= 1; /* another instance's */
	CHECK(getattr(&bad, NULL) == RPCRDMA_NFS3ERR_STALE, "another instance's: STALE");
	memset(name, 'a', sizeof(name));
	name[1] = '/';
	rl.len = 3;
	memset(&lr, 0, sizeof(lr));
	ret = nfs_call(RPCRDMA_NFS3_LOOKUP, enc_raw_lookup, &rl, kind("LOOKUP3res")->dec, &lr, 0,
		       false);
	CHECK(ret == 0 && lr.status == RPCRDMA_NFS3ERR_ACCES, "a name with '/': ACCES (%u)",
	      lr.status);
	name[1] = 'a';
	rl.len = 256;
	ret = nfs_call(RPCRDMA_NFS3_LOOKUP, enc_raw_lookup, &rl, kind("LOOKUP3res")->dec, &lr, 0,
		       false);
	CHECK(ret == 0 && lr.status == RPCRDMA_NFS3ERR_NAMETOOLONG,
	      "a name of 256 bytes: NAMETOOLONG (%u)", lr.status);
	{
		static const uint32_t procs[] = { RPCRDMA_NFS3_CREATE, RPCRDMA_NFS3_MKDIR,
						  RPCRDMA_NFS3_SYMLINK };

		for (unsigned int i = 0; i < 3; i++) {
			struct raw_make m = { rl, procs[i] };
			struct rpcrdma_nfs3_create_res cr = { 0 };

			ret = nfs_call(procs[i], enc_raw_make, &m, kind("CREATE3res")->dec, &cr, 0,
				       false);
			CHECK(ret == 0 && cr.status == RPCRDMA_NFS3ERR_NAMETOOLONG,
			      "%s of a name of 256 bytes: NAMETOOLONG (%d, %u)",
			      rpcrdma_nfs3_proc_name(procs[i]), ret, cr.status);
			m.where.dir = &bad; /* another instance's */
			m.where.len = 3;
			memset(&cr, 0, sizeof(cr));
			ret = nfs_call(procs[i], enc_raw_make, &m, kind("CREATE3res")->dec, &cr, 0,
				       false);
			CHECK(ret == 0 && cr.status == RPCRDMA_NFS3ERR_STALE,
			      "%s in another instance's directory: STALE (%d, %u)",
			      rpcrdma_nfs3_proc_name(procs[i]), ret, cr.status);
		}
	}
	rl.len = 255;
	ret = nfs_call(RPCRDMA_NFS3_LOOKUP, enc_raw_lookup, &rl, kind("LOOKUP3res")->dec, &lr, 0,
		       false);
	CHECK(ret == 0 && lr.status == RPCRDMA_NFS3ERR_NOENT, "255 bytes: NOENT (%u)", lr.status);
	CHECK(read_data(&rfh, 0, 100, &rr) == RPCRDMA_NFS3ERR_ISDIR, "READ of a directory: ISDIR");
	CHECK(create(&rfh, "h", RPCRDMA_NFS3_GUARDED, NULL, &f) == 0, "CREATE h");
	for (uint32_t k = 0; k < MiB; k++)
		src[k] = (uint8_t)k;
	CHECK(write_data(&f.fh, 0, 100, 50) == RPCRDMA_NFS3ERR_INVAL,
	      "count not the data's: INVAL");
	CHECK(write_data(&f.fh, 0, MiB, MiB) == 0, "WRITE 1 MiB");
	CHECK(read_data(&f.fh, 0, 0xffffffffu, &rr) == 0 && rr.count == MiB && rr.eof,
	      "READ of 2^32-1 bytes: 1 MiB, eof");
	/* fill the area: NOSPC (the rest of the 16 MiB, in 1 MiB WRITEs) */
	for (unsigned int i = 1; i < 20; i++) {
		st = write_data(&f.fh, (uint64_t)i * MiB, MiB, MiB);
		if (st != 0)
			break;
	}
	CHECK(st == RPCRDMA_NFS3ERR_FBIG, "past the area's 16 MiB: FBIG (%u)", st);
	CHECK(create(&rfh, "h2", RPCRDMA_NFS3_GUARDED, NULL, &f2) == 0, "CREATE h2");
	CHECK(write_data(&f2.fh, 0, 4096, 4096) == RPCRDMA_NFS3ERR_NOSPC, "a full area: NOSPC");
	{
		struct rpcrdma_nfs3_remove_args rm = { { rfh, "h", 1 } };
		struct rpcrdma_nfs3_remove_res rmr = { 0 };

		CHECK(nfs(RPCRDMA_NFS3_REMOVE, "REMOVE3args", &rm, "REMOVE3res", &rmr) == 0 &&
			      rmr.status == 0,
		      "REMOVE h");
	}
	CHECK(write_data(&f2.fh, 0, 4096, 4096) == 0, "space again after REMOVE");
}

/* ------------------------------------------------------------ the DRC */

static int connect_server(const char *addr);
static void disconnect(void);

/* The server's summary: the DRC hits on its last line; its exit status. */
static uint64_t stop_server(void)
{
	char line[512];
	uint64_t hits = 0;
	int status = 0;

	kill(server_pid, SIGTERM);
	while (server_out && fgets(line, sizeof(line), server_out)) {
		const char *p = strstr(line, "; DRC ");

		if (p)
			hits = strtoull(p + 6, NULL, 10);
	}
	if (server_out)
		fclose(server_out);
	server_out = NULL;
	waitpid(server_pid, &status, 0);
	server_pid = 0;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server exits 0 (status %#x)",
	      status);
	return hits;
}

/*
 * One server whose Kth work request fails (shm fail_wr), with or without
 * its duplicate request cache, and a client that reconnects: CREATE
 * (GUARDED), REMOVE and LOOKUP of one name. The call whose reply the
 * failure lost is sent again on the new connection. @st: their statuses.
 * @return the server's DRC hits.
 */
static uint64_t drc_round(const char *exe, uint32_t k, bool cache, uint32_t st[3])
{
	char addr[64], fail[32];
	char *opts[] = { "--devargs", fail, "--drc-entries", "0" };
	struct rpcrdma_nfs3_remove_args rm = { 0 };
	struct rpcrdma_nfs3_remove_res rmr = { 0 };
	struct rpcrdma_nfs3_fh rfh;
	struct fh_buf f;
	uint16_t mport = 0;

	st[0] = st[1] = st[2] = 0xffffffff;
	snprintf(addr, sizeof(addr), "@nfs3-drc-%d-%u-%d", (int)getpid(), k, cache);
	snprintf(fail, sizeof(fail), "fail_wr=%u", k);
	extra = opts;
	nextra = cache ? 2 : 4;
	if (start_server(exe, addr, &mport) != 0 || mport == 0) {
		CHECK(0, "K %u: the server starts", k);
		return 0;
	}
	check_mount(mport);
	if (connect_server(addr) == 0) {
		rfh = root();
		st[0] = create(&rfh, "k", RPCRDMA_NFS3_GUARDED, NULL, &f);
		rm.object.dir = rfh;
		rm.object.name = "k";
		rm.object.name_len = 1;
		if (nfs(RPCRDMA_NFS3_REMOVE, "REMOVE3args", &rm, "REMOVE3res", &rmr) == 0)
			st[1] = rmr.status;
		st[2] = lookup(&rfh, "k", 1, NULL);
		disconnect();
	} else {
		CHECK(0, "K %u: connect", k);
	}
	return stop_server();
}

/*
 * The server's duplicate request cache: for every K, a CREATE or REMOVE
 * whose reply was lost and that is sent again is answered as the first
 * time (OK, not EXIST or NOENT); without the cache the copy runs again.
 */
static void check_drc(const char *exe)
{
	uint32_t st[3], hit_k = 0;
	uint64_t hits = 0, h;

	cli_reconnect = 10;
	for (uint32_t k = 1; k <= 4; k++) {
		h = drc_round(exe, k, true, st);
		CHECK(st[0] == 0 && st[1] == 0 && st[2] == RPCRDMA_NFS3ERR_NOENT,
		      "K %u: CREATE %u, REMOVE %u, LOOKUP %u (want 0, 0, NOENT)", k, st[0], st[1],
		      st[2]);
		if (h && hit_k == 0)
			hit_k = k;
		hits += h;
	}
	/* the server's work requests: the replies of CREATE (K 1), REMOVE (2), LOOKUP (3) */
	CHECK(hits == 2, "the lost replies of CREATE and REMOVE came from the cache: %lu hits",
	      (unsigned long)hits);
	if (hit_k) {
		drc_round(exe, hit_k, false, st);
		CHECK(st[0] == RPCRDMA_NFS3ERR_EXIST || st[1] == RPCRDMA_NFS3ERR_NOENT,
		      "K %u without the cache: the copy ran again: CREATE %u, REMOVE %u", hit_k,
		      st[0], st[1]);
	}
	printf("drc: %lu hits over 4 servers; without the cache K %u ran its copy\n",
	       (unsigned long)hits, hit_k);
}

/* ------------------------------------------------------------ main */

static int connect_server(const char *addr)
{
	struct rpcrdma_xprt_params xp;
	struct test_side_pools tp = {
		.name = "nfs3t", .inline_count = 128, .chunks_64k = 8, .chunks_1m = 8
	};
	uint64_t end;
	int ret;

	ret = test_side_open(NULL, &tp, &dev, &pd, &pools);
	if (ret)
		return ret;
	big = pools->chunk[pools->nb_classes - 1];
	src = rpcrdma_mempool_get(big);
	dst = rpcrdma_mempool_get(big);
	longb = rpcrdma_mempool_get(big);
	rpcrdma_xprt_params_init(&xp, RPCRDMA_XPRT_CLIENT);
	xp.dev = dev;
	xp.pd = pd;
	xp.pools = pools;
	xp.max_credits = 8;
	xp.max_calls = 8;
	xp.reconnect_max = cli_reconnect;
	ret = rpcrdma_xprt_create(&xp, &xprt);
	if (ret)
		return ret;
	end = rte_rdtsc() + rte_get_tsc_hz() * TIMEOUT_S;
	while (rte_rdtsc() < end) {
		ret = rpcrdma_xprt_connect(xprt, addr);
		while (ret == 0 && rte_rdtsc() < end &&
		       rpcrdma_xprt_state(xprt) != RPCRDMA_XPRT_ESTABLISHED &&
		       rpcrdma_xprt_state(xprt) != RPCRDMA_XPRT_ERROR) {
			poll_events();
			rpcrdma_xprt_poll(xprt);
		}
		if (rpcrdma_xprt_state(xprt) == RPCRDMA_XPRT_ESTABLISHED)
			return 0;
		usleep(20000);
	}
	return -ETIMEDOUT;
}

static void disconnect(void)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * TIMEOUT_S;
	enum rpcrdma_xprt_state st;

	rpcrdma_xprt_disconnect(xprt);
	do {
		poll_events();
		rpcrdma_xprt_poll(xprt);
		st = rpcrdma_xprt_state(xprt);
	} while (st != RPCRDMA_XPRT_CLOSED && st != RPCRDMA_XPRT_ERROR && rte_rdtsc() < end);
	CHECK(rpcrdma_xprt_destroy(xprt) == 0, "the connection closes");
	rpcrdma_mempool_put(big, src);
	rpcrdma_mempool_put(big, dst);
	rpcrdma_mempool_put(big, longb);
	CHECK(test_side_close(&dev, &pd, &pools) == 0, "our pools full");
}

int main(int argc, char **argv)
{
	char addr[64];
	uint16_t mport = 0;
	int status = 0, ret;

	if (argc < 2) {
		fprintf(stderr, "usage: test_nfs3_server NFS3-SERVER\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && strcmp(argv[2], "--drc") == 0) {
		ret = rpcrdma_mempool_eal_init("test_nfs3_server", "0");
		CHECK(ret >= 0, "EAL: %d", ret);
		if (ret >= 0)
			check_drc(argv[1]);
		return test_summary("test_nfs3_server");
	}
	extra = argv + 2;
	nextra = argc - 2;
	snprintf(addr, sizeof(addr), "@nfs3-test-%d", (int)getpid());
	ret = start_server(argv[1], addr, &mport);
	CHECK(ret == 0 && mport != 0, "the server starts: %d", ret);
	if (ret)
		goto out;
	check_mount(mport);
	ret = rpcrdma_mempool_eal_init("test_nfs3_server", "0");
	CHECK(ret >= 0, "EAL: %d", ret);
	if (ret < 0)
		goto out;
	ret = connect_server(addr);
	CHECK(ret == 0, "connect: %d", ret);
	if (ret == 0 && nextra == 2 && strcmp(extra[0], "--io-max") == 0) {
		check_io_max((uint32_t)strtoul(extra[1], NULL, 10) << 10);
		disconnect();
	} else if (ret == 0) {
		check_procs();
		check_listing();
		check_hostile();
		disconnect();
	}
out:
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		waitpid(server_pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "SIGTERM: the server exits 0 with its pools full (status %#x)", status);
	}
	return test_summary("test_nfs3_server");
}
