/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf --program nfs3: NFSv3 (RFC 1813) calls against any NFS/RDMA
 * server, with the codec of rpcrdma_nfs3.h, behind perf_prog.h.
 *
 * Setup: MOUNT v3 MNT of --export over TCP with libtirpc (rpcbind, or
 * --mount-port) gives the root handle. readdir LOOKUPs each component of
 * --dir and lists it once to learn its entries. read and write check
 * --size against FSINFO's rtmax and wtmax, then CREATE a file in the
 * export's root, of nblocks blocks of --size bytes (one per
 * call in flight, at most PERF_NFS3_FILE_MAX bytes), and read WRITEs every
 * block first. Block b holds nfs3_pattern() of each of its file offsets.
 *
 * The run: null NULL; getattr GETATTR of the root; read READ of a block
 * into the slot's registered buffer (a write chunk, or inline when it fits);
 * write WRITE (UNSTABLE) of a block from the slot's buffer (a read chunk,
 * or inline); readdir READDIRPLUS of the directory, each slot walking its
 * cookies to eof and starting again. Slot s always calls block s % nblocks.
 *
 * Teardown (also after a failed or interrupted run): with --verify, write
 * reads every block back; REMOVE of the file; UMNT. Every error names the
 * call that got it and the status (NFS3ERR_*, MNT3ERR_*, the RPC's).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma_mount3.h>
#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_rpc.h>

#include "perf_prog.h"

#define PROG "rpcrdma-perf"

#define PERF_NFS3_FILE_MAX (16u << 20) /* the file read and written, at most */
#define READDIR_MAX	   32768       /* READDIRPLUS maxcount and dircount */
/* reply sizes without the data: RPC header 24, then the results (RFC 1813) */
#define REP_ATTR    (24 + 4 + 84)		   /* GETATTR: status fattr3 */
#define REP_READ    (24 + 4 + 88 + 4 + 4 + 4)	   /* status post_op_attr count eof len */
#define REP_WRITE   (24 + 4 + 32 + 88 + 4 + 4 + 8) /* status wcc_data count committed verf */
#define REP_READDIR (24 + READDIR_MAX + 512)
#define REP_FSINFO  (24 + 4 + 88 + 48) /* status post_op_attr, 12 words */

struct fh_buf {
	uint8_t b[RPCRDMA_NFS3_FHSIZE];
	uint32_t len;
};

/* A slot's READDIRPLUS walk. */
struct walk {
	uint64_t cookie;
	uint8_t verf[RPCRDMA_NFS3_COOKIEVERFSIZE];
	uint64_t seen; /* entries since the walk started */
};

struct nfs3_ctx {
	CLIENT *mnt; /* MOUNT's client, kept for UMNT */
	struct fh_buf root, dir, file;
	char name[96]; /* the file made for read and write, the directory of --files */
	bool created;
	struct fh_buf parent; /* --files: where the directory was made */
	uint32_t made;	      /* --files: files made in it */
	uint32_t nblocks;
	bool read_inline;
	uint64_t entries;		    /* readdir: a whole listing's */
	uint64_t calls;			    /* of setup and teardown */
	uint8_t cred[RPCRDMA_RPC_AUTH_MAX]; /* env->cred: this process's AUTH_SYS credential */
	struct walk walk[];
};

/* Byte @p off of the file: each block differs, and so does each page of one. */
static inline uint8_t nfs3_pattern(uint64_t off)
{
	return (uint8_t)((off >> 20) * 101 + (off >> 12) * 13 + off * 7 + 1);
}

static void pattern_fill(uint8_t *b, uint64_t off, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = nfs3_pattern(off + i);
}

/* The first byte of @p b that is not the file's at @p off, or -1. */
static int64_t pattern_check(const uint8_t *b, uint64_t off, uint32_t len, bool every)
{
	if (!every) {
		uint32_t at[3] = { 0, len / 2, len - 1 };

		for (int i = 0; i < 3 && len > 0; i++)
			if (b[at[i]] != nfs3_pattern(off + at[i]))
				return at[i];
		return -1;
	}
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != nfs3_pattern(off + i))
			return i;
	return -1;
}

static struct rpcrdma_nfs3_fh fh_of(const struct fh_buf *f)
{
	struct rpcrdma_nfs3_fh fh = { f->b, f->len };

	return fh;
}

static void fh_keep(struct fh_buf *f, const struct rpcrdma_nfs3_fh *fh)
{
	f->len = fh->len <= sizeof(f->b) ? fh->len : 0;
	memcpy(f->b, fh->data, f->len);
}

static uint64_t block_off(const struct perf_prog_env *env, const struct nfs3_ctx *n, uint32_t slot)
{
	return (uint64_t)(slot % n->nblocks) * env->size;
}

/* ------------------------------------------------------------ MOUNT */

static bool_t xdr_none(XDR *x, void *p)
{
	return TRUE;
}

static bool_t xdr_dirpath(XDR *x, char **p)
{
	return xdr_string(x, p, RPCRDMA_MOUNT3_PATHLEN);
}

struct mnt_res {
	u_int status;
	struct fh_buf fh;
};

/* mountres3: the handle kept, the flavors read and dropped */
static bool_t xdr_mnt_res(XDR *x, struct mnt_res *r)
{
	char *p = (char *)r->fh.b;
	int *fl = NULL;
	u_int nfl = 0;
	bool_t ok;

	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status != RPCRDMA_MNT3_OK)
		return TRUE;
	ok = xdr_bytes(x, &p, &r->fh.len, RPCRDMA_MOUNT3_FHSIZE) &&
	     xdr_array(x, (char **)&fl, &nfl, RPCRDMA_MOUNT3_FLAVORS_MAX, sizeof(int),
		       (xdrproc_t)xdr_int);
	free(fl);
	return ok;
}

/* The server's host, from its RPC-over-RDMA address: shm is this host. */
static void mount_host(const struct perf_prog_env *env, char *host, size_t len)
{
	const char *a = env->addr, *colon;

	if (strcmp(env->pmd, "shm") == 0 || a == NULL) {
		snprintf(host, len, "127.0.0.1");
		return;
	}
	if (a[0] == '[') { /* [IPv6]:PORT */
		const char *end = strchr(a, ']');

		snprintf(host, len, "%.*s", end ? (int)(end - a - 1) : (int)strlen(a + 1), a + 1);
		return;
	}
	colon = strchr(a, ':');
	if (colon && strchr(colon + 1, ':') == NULL) /* IPv4 or name, :PORT */
		snprintf(host, len, "%.*s", (int)(colon - a), a);
	else
		snprintf(host, len, "%s", a);
}

static CLIENT *mount_client(const struct perf_prog_env *env, const char *host)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	struct sockaddr_in sin;
	int sock = RPC_ANYSOCK;
	CLIENT *c;

	if (env->opts->mount_port < 0) {
		/* rpcbind on the server's host finds mountd */
		c = clnt_create(host, RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION, "tcp");
		if (c == NULL)
			fprintf(stderr, PROG ": MOUNT on %s (rpcbind): %s\n", host,
				clnt_spcreateerror("") + 2);
		return c;
	}
	if (getaddrinfo(host, NULL, &hints, &ai) != 0) {
		fprintf(stderr, PROG ": MOUNT: cannot resolve %s\n", host);
		return NULL;
	}
	memcpy(&sin, ai->ai_addr, sizeof(sin));
	freeaddrinfo(ai);
	sin.sin_port = htons((uint16_t)env->opts->mount_port);
	c = clnttcp_create(&sin, RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION, &sock, 0, 0);
	if (c == NULL)
		fprintf(stderr, PROG ": MOUNT on %s port %d: %s\n", host, env->opts->mount_port,
			clnt_spcreateerror("") + 2);
	return c;
}

static int mount_export(const struct perf_prog_env *env, struct nfs3_ctx *n)
{
	struct timeval tv = { (time_t)env->timeout, 0 };
	char host[256], *path = (char *)env->opts->export_path;
	struct mnt_res r = { 0 };
	enum clnt_stat st;

	mount_host(env, host, sizeof(host));
	n->mnt = mount_client(env, host);
	if (n->mnt == NULL)
		return -ECONNREFUSED;
	clnt_control(n->mnt, CLSET_TIMEOUT, (char *)&tv);
	/* as the NFS calls: mountd may refuse AUTH_NONE */
	auth_destroy(n->mnt->cl_auth);
	n->mnt->cl_auth = authsys_create_default();
	st = clnt_call(n->mnt, RPCRDMA_MOUNT3_MNT, (xdrproc_t)xdr_dirpath, (caddr_t)&path,
		       (xdrproc_t)xdr_mnt_res, (caddr_t)&r, tv);
	if (st != RPC_SUCCESS || r.status != RPCRDMA_MNT3_OK) {
		fprintf(stderr, PROG ": MOUNT MNT %s: %s\n", path,
			st != RPC_SUCCESS ? clnt_sperrno(st) : rpcrdma_mount3_stat_name(r.status));
		/* nothing mounted: no UMNT */
		auth_destroy(n->mnt->cl_auth); /* clnt_destroy() leaves it */
		clnt_destroy(n->mnt);
		n->mnt = NULL;
		return -EREMOTEIO;
	}
	n->root = r.fh;
	return 0;
}

static void umount_export(const struct perf_prog_env *env, struct nfs3_ctx *n)
{
	struct timeval tv = { (time_t)env->timeout, 0 };
	char *path = (char *)env->opts->export_path;
	enum clnt_stat st;

	if (n->mnt == NULL)
		return;
	st = clnt_call(n->mnt, RPCRDMA_MOUNT3_UMNT, (xdrproc_t)xdr_dirpath, (caddr_t)&path,
		       (xdrproc_t)xdr_none, NULL, tv);
	if (st != RPC_SUCCESS)
		fprintf(stderr, PROG ": warning: MOUNT UMNT %s: %s\n", path, clnt_sperrno(st));
	auth_destroy(n->mnt->cl_auth);
	clnt_destroy(n->mnt);
	n->mnt = NULL;
}

/* ------------------------------------------------------------ setup calls */

/* One NFS call of setup or teardown: 0, or -errno after one line naming it. */
static int call(struct perf_prog_env *env, uint32_t proc,
		int (*enc)(struct rpcrdma_xdr_enc *x, const void *a), const void *args,
		int (*dec)(struct rpcrdma_xdr_dec *d, void *r), void *res, const uint32_t *status,
		const struct rpcrdma_xdr_reply_spec *spec, const char *what)
{
	struct nfs3_ctx *n = env->ctx;
	char err[PERF_ERR_LEN];
	int ret;

	n->calls++;
	ret = perf_prog_call(env, RPCRDMA_NFS3_PROGRAM, RPCRDMA_NFS3_VERSION, proc, enc, args, dec,
			     res, spec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": %s %s: %s\n", rpcrdma_nfs3_proc_name(proc), what, err);
		return ret;
	}
	if (status && *status != RPCRDMA_NFS3_OK) {
		fprintf(stderr, PROG ": %s %s: %s\n", rpcrdma_nfs3_proc_name(proc), what,
			rpcrdma_nfs3_stat_name(*status));
		return -EREMOTEIO;
	}
	return 0;
}

#define ENC(f) ((int (*)(struct rpcrdma_xdr_enc *, const void *))(f))
#define DEC(f) ((int (*)(struct rpcrdma_xdr_dec *, void *))(f))

/* The handles of LOOKUP and CREATE are copied out before the reply is released. */
struct lookup_out {
	struct rpcrdma_nfs3_lookup_res r;
	struct fh_buf fh;
};

static int dec_lookup(struct rpcrdma_xdr_dec *d, void *v)
{
	struct lookup_out *o = v;
	int ret = rpcrdma_nfs3_dec_lookup_res(d, &o->r);

	if (ret == 0 && o->r.status == RPCRDMA_NFS3_OK)
		fh_keep(&o->fh, &o->r.object);
	return ret;
}

struct create_out {
	struct rpcrdma_nfs3_create_res r;
	struct fh_buf fh;
};

static int dec_create(struct rpcrdma_xdr_dec *d, void *v)
{
	struct create_out *o = v;
	int ret = rpcrdma_nfs3_dec_create_res(d, &o->r);

	if (ret == 0 && o->r.status == RPCRDMA_NFS3_OK && o->r.obj.present)
		fh_keep(&o->fh, &o->r.obj.fh);
	return ret;
}

/* LOOKUP each component of @p path from the root: a directory. */
static int lookup_dir(struct perf_prog_env *env, const char *path, struct fh_buf *out)
{
	struct nfs3_ctx *n = env->ctx;
	struct fh_buf cur = n->root;
	const char *p = path;
	int ret;

	while (*p) {
		struct rpcrdma_nfs3_lookup_args a = { 0 };
		struct lookup_out o = { 0 };
		size_t len = strcspn(p, "/");
		char what[RPCRDMA_MOUNT3_PATHLEN + 8];

		if (len == 0) {
			p++;
			continue;
		}
		a.what.dir = fh_of(&cur);
		a.what.name = p;
		a.what.name_len = (uint32_t)len;
		snprintf(what, sizeof(what), "%.*s", (int)(p + len - path), path);
		ret = call(env, RPCRDMA_NFS3_LOOKUP, ENC(rpcrdma_nfs3_enc_lookup_args), &a,
			   dec_lookup, &o, &o.r.status, NULL, what);
		if (ret)
			return ret;
		if (o.r.obj_attr.present && o.r.obj_attr.attr.type != RPCRDMA_NFS3_DIR) {
			fprintf(stderr, PROG ": LOOKUP %s: not a directory\n", what);
			return -ENOTDIR;
		}
		cur = o.fh;
		p += len;
	}
	*out = cur;
	return 0;
}

/* ------------------------------------------------------------ READDIRPLUS */

/* One reply of a walk: the entries counted, the cursor moved; eof starts it again. */
struct rdp_out {
	struct rpcrdma_nfs3_readdirplus_res r;
	struct walk *w;
	uint64_t listed; /* a walk ended: its entries; else UINT64_MAX */
	bool stuck;	 /* no entry and no eof */
};

static int dec_readdirplus(struct rpcrdma_xdr_dec *d, void *v)
{
	struct rdp_out *o = v;
	struct rpcrdma_nfs3_entryplus e;
	uint64_t n = 0, last = o->w->cookie;
	int ret = rpcrdma_nfs3_dec_readdirplus_res(d, &o->r);

	o->listed = UINT64_MAX;
	if (ret || o->r.status != RPCRDMA_NFS3_OK)
		return ret;
	while ((ret = rpcrdma_nfs3_dec_readdirplus_entry(d, &o->r, &e)) == 1) {
		n++;
		last = e.cookie;
	}
	if (ret)
		return ret;
	o->w->seen += n;
	if (o->r.eof) {
		o->listed = o->w->seen;
		memset(o->w, 0, sizeof(*o->w));
		return 0;
	}
	o->stuck = n == 0;
	o->w->cookie = last;
	memcpy(o->w->verf, o->r.cookieverf, sizeof(o->w->verf));
	return 0;
}

static int put_readdirplus(struct perf_prog_env *env, struct nfs3_ctx *n, uint32_t slot,
			   struct rpcrdma_xdr_enc *x, struct rpcrdma_xdr_reply_spec *spec)
{
	struct rpcrdma_nfs3_readdirplus_args a = { 0 };
	struct walk *w = &n->walk[slot];

	a.dir = fh_of(&n->dir);
	a.cookie = w->cookie;
	memcpy(a.cookieverf, w->verf, sizeof(a.cookieverf));
	a.dircount = READDIR_MAX;
	a.maxcount = READDIR_MAX;
	spec->max_len = REP_READDIR;
	/* a long listing comes in a reply chunk, into the slot's buffer */
	spec->long_buf = rpcrdma_xdr_region_va(env->bufs[slot], env->buf_size, env->pool->lkey,
					       env->pool->rkey);
	return rpcrdma_nfs3_enc_readdirplus_args(x, &a);
}

/* setup: one whole listing with slot 0, to know how many entries a walk sees. */
static int list_once(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	struct rpcrdma_xdr_reply_spec spec = { 0 };
	uint32_t ncalls = 0;
	int ret;

	for (;;) {
		struct rpcrdma_nfs3_readdirplus_args a = { 0 };
		struct rdp_out o = { .w = &n->walk[0] };

		a.dir = fh_of(&n->dir);
		a.cookie = o.w->cookie;
		memcpy(a.cookieverf, o.w->verf, sizeof(a.cookieverf));
		a.dircount = READDIR_MAX;
		a.maxcount = READDIR_MAX;
		spec.max_len = REP_READDIR;
		spec.long_buf = rpcrdma_xdr_region_va(env->bufs[0], env->buf_size, env->pool->lkey,
						      env->pool->rkey);
		ret = call(env, RPCRDMA_NFS3_READDIRPLUS, ENC(rpcrdma_nfs3_enc_readdirplus_args),
			   &a, dec_readdirplus, &o, &o.r.status, &spec,
			   env->opts->dir ? env->opts->dir : "/");
		if (ret)
			return ret;
		ncalls++;
		if (o.listed != UINT64_MAX) {
			n->entries = o.listed;
			break;
		}
		if (o.stuck) {
			fprintf(stderr, PROG ": READDIRPLUS %s: no entry and no eof\n",
				env->opts->dir ? env->opts->dir : "/");
			return -EPROTO;
		}
	}
	if (!env->quiet)
		fprintf(stderr,
			PROG ": nfs3: %s%s%s: %lu entries, %u READDIRPLUS call(s) a listing\n",
			env->opts->dir	   ? env->opts->dir
			: env->opts->files ? ""
					   : "/",
			env->opts->files ? "/" : "", env->opts->files ? n->name : "",
			(unsigned long)n->entries, ncalls);
	return 0;
}

/* ------------------------------------------------------------ the file */

/* The name of what this run makes: its host and process, never someone else's. */
static void run_name(struct nfs3_ctx *n)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	snprintf(n->name, sizeof(n->name), "rpcrdma-perf.%.40s.%d", host, getpid());
}

/*
 * CREATE (or MKDIR) @p name in @p dir, GUARDED, its handle into @p out
 * (LOOKUP when the reply has none). @p made is set once it exists.
 */
static int make(struct perf_prog_env *env, const struct fh_buf *dir, const char *name, bool mkdir,
		struct fh_buf *out, bool *made)
{
	struct rpcrdma_nfs3_create_args a = { 0 };
	struct rpcrdma_nfs3_mkdir_args m = { 0 };
	struct create_out o = { 0 };
	int ret;

	a.where.dir = fh_of(dir);
	a.where.name = name;
	a.where.name_len = (uint32_t)strlen(name);
	a.mode = RPCRDMA_NFS3_GUARDED;
	a.attr.set_mode = true;
	a.attr.mode = mkdir ? 0755 : 0644;
	m.where = a.where;
	m.attr = a.attr;
	if (mkdir)
		ret = call(env, RPCRDMA_NFS3_MKDIR, ENC(rpcrdma_nfs3_enc_mkdir_args), &m,
			   dec_create, &o, &o.r.status, NULL, name);
	else
		ret = call(env, RPCRDMA_NFS3_CREATE, ENC(rpcrdma_nfs3_enc_create_args), &a,
			   dec_create, &o, &o.r.status, NULL, name);
	if (ret)
		return ret;
	*made = true;
	if (o.fh.len == 0 && out) { /* post_op_fh3 without the handle: LOOKUP it */
		struct rpcrdma_nfs3_lookup_args la = { a.where };
		struct lookup_out lo = { 0 };

		ret = call(env, RPCRDMA_NFS3_LOOKUP, ENC(rpcrdma_nfs3_enc_lookup_args), &la,
			   dec_lookup, &lo, &lo.r.status, NULL, name);
		if (ret)
			return ret;
		o.fh = lo.fh;
	}
	if (out)
		*out = o.fh;
	return 0;
}

/* REMOVE (or RMDIR) @p name in @p dir. */
static int unmake(struct perf_prog_env *env, const struct fh_buf *dir, const char *name, bool rmdir)
{
	struct rpcrdma_nfs3_remove_args a = { { fh_of(dir), name, (uint32_t)strlen(name) } };
	struct rpcrdma_nfs3_remove_res r = { 0 };

	return call(env, rmdir ? RPCRDMA_NFS3_RMDIR : RPCRDMA_NFS3_REMOVE,
		    ENC(rpcrdma_nfs3_enc_remove_args), &a, DEC(rpcrdma_nfs3_dec_remove_res), &r,
		    &r.status, NULL, name);
}

/*
 * FSINFO of the root: --size over the server's largest READ or WRITE
 * (rtmax, wtmax; 0: no limit said) is refused before the run, as the
 * server would cut the READ short, write part of the block, or refuse the
 * chunks (knfsd's transport answers RDMA_ERROR ERR_CHUNK). read WRITEs
 * its file first, so both limits apply to it.
 */
static int check_fsinfo(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	struct rpcrdma_xdr_reply_spec spec = { .max_len = REP_FSINFO };
	struct rpcrdma_nfs3_fh_args a = { fh_of(&n->root) };
	struct rpcrdma_nfs3_fsinfo_res r = { 0 };
	const char *what = NULL;
	uint32_t max = 0;
	int ret;

	ret = call(env, RPCRDMA_NFS3_FSINFO, ENC(rpcrdma_nfs3_enc_fh_args), &a,
		   DEC(rpcrdma_nfs3_dec_fsinfo_res), &r, &r.status, &spec, env->opts->export_path);
	if (ret)
		return ret;
	if (r.wtmax != 0 && env->size > r.wtmax) {
		what = "WRITE (wtmax)";
		max = r.wtmax;
	} else if (env->op == OP_READ && r.rtmax != 0 && env->size > r.rtmax) {
		what = "READ (rtmax)";
		max = r.rtmax;
	}
	if (what == NULL)
		return 0;
	fprintf(stderr,
		PROG ": --size %u is over the server's largest %s of %u bytes (FSINFO %s)\n",
		env->size, what, max, env->opts->export_path);
	return -EMSGSIZE;
}

static int create_file(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	run_name(n);
	return make(env, &n->root, n->name, false, &n->file, &n->created);
}

/* --files N: a directory of N empty files under --dir, listed instead of --dir. */
static int make_listing(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	char name[16];
	bool made;
	int ret;

	run_name(n);
	n->parent = n->dir;
	ret = make(env, &n->parent, n->name, true, &n->dir, &n->created);
	for (uint32_t i = 0; ret == 0 && i < env->opts->files; i++) {
		snprintf(name, sizeof(name), "f%07u", i);
		made = false;
		ret = make(env, &n->dir, name, false, NULL, &made);
		n->made += made;
	}
	return ret;
}

static int unmake_listing(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	char name[16];
	int ret = 0;

	for (uint32_t i = 0; i < n->made; i++) {
		snprintf(name, sizeof(name), "f%07u", i);
		if (unmake(env, &n->dir, name, false) != 0)
			ret = -EREMOTEIO;
	}
	n->made = 0;
	if (ret == 0 && unmake(env, &n->parent, n->name, true) != 0)
		ret = -EREMOTEIO;
	if (ret == 0)
		n->created = false;
	return ret;
}

static int dec_write(struct rpcrdma_xdr_dec *d, void *v)
{
	return rpcrdma_nfs3_dec_write_res(d, v);
}

/* Block @p b of the file from @p buf (filled with its pattern): a WRITE, FILE_SYNC. */
static int write_block(struct perf_prog_env *env, struct nfs3_ctx *n, uint32_t b, void *buf)
{
	struct rpcrdma_nfs3_write_args a = { 0 };
	struct rpcrdma_nfs3_write_res r = { 0 };
	struct rpcrdma_xdr_reply_spec spec = { .max_len = REP_WRITE };
	char what[128];
	int ret;

	a.file = fh_of(&n->file);
	a.offset = (uint64_t)b * env->size;
	a.count = env->size;
	a.stable = RPCRDMA_NFS3_FILE_SYNC;
	pattern_fill(buf, a.offset, env->size);
	a.data = rpcrdma_xdr_region_va(buf, env->size, env->pool->lkey, env->pool->rkey);
	snprintf(what, sizeof(what), "%s at %lu", n->name, (unsigned long)a.offset);
	ret = call(env, RPCRDMA_NFS3_WRITE, ENC(rpcrdma_nfs3_enc_write_args), &a, dec_write, &r,
		   &r.status, &spec, what);
	if (ret == 0 && r.count != env->size) {
		fprintf(stderr, PROG ": WRITE %s: %u bytes written of %u\n", what, r.count,
			env->size);
		ret = -EIO;
	}
	return ret;
}

struct read_out {
	struct rpcrdma_nfs3_read_res r;
	int64_t bad; /* the first byte not the pattern, or -1 */
	uint64_t off;
	uint32_t want;
};

static int dec_read_check(struct rpcrdma_xdr_dec *d, void *v)
{
	struct read_out *o = v;
	int ret = rpcrdma_nfs3_dec_read_res(d, &o->r);

	o->bad = -1;
	if (ret == 0 && o->r.status == RPCRDMA_NFS3_OK && o->r.data.len == o->want)
		o->bad = pattern_check(o->r.data.addr, o->off, o->want, true);
	return ret;
}

/* --verify after write: READ every block back and check every byte. */
static int verify_file(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	for (uint32_t b = 0; b < n->nblocks; b++) {
		struct rpcrdma_nfs3_read_args a = { fh_of(&n->file), (uint64_t)b * env->size,
						    env->size };
		struct read_out o = { .off = a.offset, .want = env->size };
		struct rpcrdma_xdr_reply_spec spec = { .max_len = REP_READ + env->size };
		char what[128];
		int ret;

		spec.ddp[0] = rpcrdma_xdr_region_va(env->bufs[0], env->size, env->pool->lkey,
						    env->pool->rkey);
		spec.nddp = 1;
		snprintf(what, sizeof(what), "%s at %lu", n->name, (unsigned long)a.offset);
		ret = call(env, RPCRDMA_NFS3_READ, ENC(rpcrdma_nfs3_enc_read_args), &a,
			   dec_read_check, &o, &o.r.status, &spec, what);
		if (ret)
			return ret;
		if (o.r.count != env->size || o.bad >= 0) {
			fprintf(stderr,
				PROG ": --verify: READ %s: %u bytes, byte %ld is not what was "
				     "written\n",
				what, o.r.count, (long)o.bad);
			return -EIO;
		}
	}
	return 0;
}

static int remove_file(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	int ret = unmake(env, &n->root, n->name, false);

	if (ret == 0)
		n->created = false;
	return ret;
}

/* ------------------------------------------------------------ the program */

static int nfs3_teardown(struct perf_prog_env *env, bool ok);

/*
 * Every call carries AUTH_SYS (RFC 5531 appendix A) with this process's
 * uid, gid and groups, as a kernel client's would: a server maps AUTH_NONE
 * to its anonymous user, or refuses it.
 */
static int make_cred(struct perf_prog_env *env, struct nfs3_ctx *n)
{
	struct rpcrdma_rpc_authsys sys = { 0 };
	gid_t groups[RPCRDMA_RPC_AUTHSYS_NGIDS];
	char host[RPCRDMA_RPC_MACHNAME_MAX + 1];
	int ng, ret;

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "rpcrdma-perf");
	host[sizeof(host) - 1] = '\0';
	ng = getgroups(RPCRDMA_RPC_AUTHSYS_NGIDS, groups);
	if (ng < 0) /* more than 16: the first 16 */
		ng = 0;
	sys.stamp = (uint32_t)time(NULL);
	sys.machinename = host;
	sys.machinename_len = (uint32_t)strlen(host);
	sys.uid = (uint32_t)geteuid();
	sys.gid = (uint32_t)getegid();
	sys.ngids = (uint32_t)ng;
	for (int i = 0; i < ng; i++)
		sys.gids[i] = (uint32_t)groups[i];
	ret = rpcrdma_rpc_authsys_encode(&sys, n->cred, sizeof(n->cred));
	if (ret < 0)
		return ret;
	env->cred = n->cred;
	env->cred_len = (uint32_t)ret;
	return 0;
}

static int nfs3_setup(struct perf_prog_env *env)
{
	struct rpcrdma_xprt_info info;
	struct nfs3_ctx *n;
	int ret = 0;

	n = calloc(1, sizeof(*n) + env->depth * sizeof(n->walk[0]));
	if (n == NULL)
		return -ENOMEM;
	env->ctx = n;
	ret = make_cred(env, n);
	if (ret == 0 && env->opts->export_path)
		ret = mount_export(env, n);
	if (ret == 0 && env->op == OP_READDIR)
		ret = lookup_dir(env, env->opts->dir ? env->opts->dir : "", &n->dir);
	if (ret == 0 && env->op == OP_READDIR && env->opts->files > 0)
		ret = make_listing(env, n);
	if (ret == 0 && env->op == OP_READDIR)
		ret = list_once(env, n);
	if (env->op == OP_READ || env->op == OP_WRITE) {
		n->nblocks = env->size ? PERF_NFS3_FILE_MAX / env->size : env->depth;
		if (n->nblocks > env->depth)
			n->nblocks = env->depth;
		if (n->nblocks == 0)
			n->nblocks = 1;
		if (ret == 0)
			ret = check_fsinfo(env, n);
		if (ret == 0)
			ret = create_file(env, n);
		for (uint32_t b = 0; ret == 0 && env->op == OP_READ && b < n->nblocks; b++)
			ret = write_block(env, n, b, env->bufs[0]);
		/* write: each slot sends its block's bytes, the same every call */
		for (uint32_t s = 0; ret == 0 && env->op == OP_WRITE && s < env->depth; s++)
			pattern_fill(env->bufs[s], block_off(env, n, s), env->size);
	}
	rpcrdma_xprt_info(env->xprt, &info);
	/* READ replies inline when the data and the results fit the threshold */
	n->read_inline = env->size + REP_READ + 64 <= info.recv_inline;
	if (ret) {
		nfs3_teardown(env, false);
		return ret;
	}
	return 0;
}

static int nfs3_put_args(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xdr_reply_spec *spec = rpcrdma_xprt_call_reply_spec(c);
	struct rpcrdma_xdr_enc *x = rpcrdma_xprt_call_enc(c);
	static const uint32_t procs[PERF_OP_N] = {
		[OP_NULL] = RPCRDMA_NFS3_NULL,		 [OP_READ] = RPCRDMA_NFS3_READ,
		[OP_WRITE] = RPCRDMA_NFS3_WRITE,	 [OP_GETATTR] = RPCRDMA_NFS3_GETATTR,
		[OP_READDIR] = RPCRDMA_NFS3_READDIRPLUS,
	};
	struct nfs3_ctx *n = env->ctx;
	int ret;

	ret = perf_prog_put_header(env, c, RPCRDMA_NFS3_PROGRAM, RPCRDMA_NFS3_VERSION,
				   procs[env->op]);
	if (ret)
		return ret;
	spec->max_len = 24;
	switch (env->op) {
	case OP_GETATTR: {
		struct rpcrdma_nfs3_getattr_args a = { fh_of(&n->root) };

		spec->max_len = REP_ATTR;
		return rpcrdma_nfs3_enc_getattr_args(x, &a);
	}
	case OP_READ: {
		struct rpcrdma_nfs3_read_args a = { fh_of(&n->file), block_off(env, n, slot),
						    env->size };

		spec->max_len = REP_READ + rpcrdma_xdr_pad4(env->size);
		if (!n->read_inline) {
			spec->ddp[0] = rpcrdma_xdr_region_va(env->bufs[slot], env->size,
							     env->pool->lkey, env->pool->rkey);
			spec->nddp = 1;
		}
		return rpcrdma_nfs3_enc_read_args(x, &a);
	}
	case OP_WRITE: {
		struct rpcrdma_nfs3_write_args a = { fh_of(&n->file), block_off(env, n, slot),
						     env->size, RPCRDMA_NFS3_UNSTABLE };

		a.data = rpcrdma_xdr_region_va(env->bufs[slot], env->size, env->pool->lkey,
					       env->pool->rkey);
		spec->max_len = REP_WRITE;
		return rpcrdma_nfs3_enc_write_args(x, &a);
	}
	case OP_READDIR:
		return put_readdirplus(env, n, slot, x, spec);
	default:
		return 0;
	}
}

static int nfs3_status(uint32_t proc, uint32_t status, char *err, size_t len)
{
	if (status == RPCRDMA_NFS3_OK)
		return 0;
	snprintf(err, len, "%s: %s", rpcrdma_nfs3_proc_name(proc), rpcrdma_nfs3_stat_name(status));
	return -EREMOTEIO;
}

static int nfs3_check(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xdr_dec *d,
		      char *err, size_t len)
{
	struct nfs3_ctx *n = env->ctx;
	int ret = 0;

	switch (env->op) {
	case OP_GETATTR: {
		struct rpcrdma_nfs3_getattr_res r;

		ret = rpcrdma_nfs3_dec_getattr_res(d, &r);
		if (ret == 0)
			ret = nfs3_status(RPCRDMA_NFS3_GETATTR, r.status, err, len);
		break;
	}
	case OP_READ: {
		struct rpcrdma_nfs3_read_res r;
		uint64_t off = block_off(env, n, slot);
		int64_t bad;

		ret = rpcrdma_nfs3_dec_read_res(d, &r);
		if (ret == 0)
			ret = nfs3_status(RPCRDMA_NFS3_READ, r.status, err, len);
		if (ret)
			break;
		if (r.count != env->size || r.data.len != env->size) {
			snprintf(err, len, "READ at %lu: %u bytes, not %u", (unsigned long)off,
				 r.count, env->size);
			return -EIO;
		}
		/* zero copy: the data landed where the write chunk was */
		if (!n->read_inline && env->size > 0 && r.data.addr != env->bufs[slot]) {
			snprintf(err, len, "READ at %lu: the data is not in the write chunk",
				 (unsigned long)off);
			return -EBADMSG;
		}
		bad = pattern_check(r.data.addr, off, env->size, env->verify);
		if (bad >= 0) {
			snprintf(err, len, "READ at %lu: byte %ld is not what was written",
				 (unsigned long)off, (long)bad);
			return -EIO;
		}
		break;
	}
	case OP_WRITE: {
		struct rpcrdma_nfs3_write_res r;

		ret = rpcrdma_nfs3_dec_write_res(d, &r);
		if (ret == 0)
			ret = nfs3_status(RPCRDMA_NFS3_WRITE, r.status, err, len);
		if (ret == 0 && r.count != env->size) {
			snprintf(err, len, "WRITE: %u bytes written of %u", r.count, env->size);
			return -EIO;
		}
		break;
	}
	case OP_READDIR: {
		struct rdp_out o = { .w = &n->walk[slot] };

		ret = dec_readdirplus(d, &o);
		if (ret == 0)
			ret = nfs3_status(RPCRDMA_NFS3_READDIRPLUS, o.r.status, err, len);
		if (ret)
			break;
		if (o.stuck) {
			snprintf(err, len, "READDIRPLUS: no entry and no eof");
			return -EPROTO;
		}
		if (env->verify && o.listed != UINT64_MAX && o.listed != n->entries) {
			snprintf(err, len, "READDIRPLUS: a listing of %lu entries, not %lu",
				 (unsigned long)o.listed, (unsigned long)n->entries);
			return -EIO;
		}
		break;
	}
	default:
		break;
	}
	if (ret == 0 && rpcrdma_xdr_dec_left(d) != 0)
		ret = -EBADMSG;
	if (ret && err[0] == '\0')
		snprintf(err, len, "%s: the results do not decode (%d)", perf_op_names[env->op],
			 ret);
	return ret;
}

static int nfs3_teardown(struct perf_prog_env *env, bool ok)
{
	struct nfs3_ctx *n = env->ctx;
	int ret = 0;

	if (n == NULL)
		return 0;
	if (ok && env->verify && env->op == OP_WRITE)
		ret = verify_file(env, n);
	if (n->created && env->op == OP_READDIR && unmake_listing(env, n) != 0 && ret == 0)
		ret = -EREMOTEIO;
	if (n->created && env->op != OP_READDIR && remove_file(env, n) != 0 && ret == 0)
		ret = -EREMOTEIO;
	umount_export(env, n);
	if (!env->quiet && ok)
		fprintf(stderr, PROG ": nfs3: %lu call(s) to set up and take down\n",
			(unsigned long)n->calls);
	free(n);
	env->ctx = NULL;
	return ret;
}

const struct perf_prog perf_prog_nfs3 = {
	.name = "nfs3",
	.prog = RPCRDMA_NFS3_PROGRAM,
	.vers = RPCRDMA_NFS3_VERSION,
	.setup = nfs3_setup,
	.put_args = nfs3_put_args,
	.check = nfs3_check,
	.teardown = nfs3_teardown,
};
