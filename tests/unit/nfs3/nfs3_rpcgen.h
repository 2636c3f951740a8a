/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_nfs3_rpcgen share: the random numbers, the coverage
 * of the edges drawn, the arena, the generators, rpcgen's form and the
 * comparisons of the basic NFSv3 types (nfs3_rpcgen_types.c), and the table of
 * kinds with their gen, to and cmp functions (nfs3_rpcgen_kinds.c) that the
 * driver (test_nfs3_rpcgen.c) runs.
 */
#ifndef NFS3_RPCGEN_H
#define NFS3_RPCGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma_nfs3.h>

#include "nfs3.h"

enum {
	COV_FH0,
	COV_FH64,
	COV_NAME0,
	COV_NAME255,
	COV_ATTR_ABSENT,
	COV_ATTR_PRESENT,
	COV_PRE_ABSENT,
	COV_PRE_PRESENT,
	COV_HANDLE_ABSENT,
	COV_FAIL,
	COV_READ0,
	COV_EOF,
	COV_CREATE_UNCHECKED,
	COV_CREATE_GUARDED,
	COV_CREATE_EXCLUSIVE,
	COV_TIME_SERVER,
	COV_TIME_CLIENT,
	COV_RDP0,
	COV_RDP1,
	COV_RDP_MANY,
	COV_FLAVORS0,
	COV_FLAVORS16,
	COV_GUARD,
	COV_PATH_MAX,
	COV_RD_MANY,
	COV_N,
};

extern uint64_t rng;
uint64_t rnd64(void);
uint32_t rnd32(void);
uint32_t rnd_below(uint32_t n);
bool rnd_bool(void);
extern const char *const cov_name[COV_N];
extern unsigned long cov[COV_N];
extern uint8_t arena[256 * 1024];
extern size_t arena_used;
uint8_t *arena_alloc(size_t n);
void gen_fh(struct rpcrdma_nfs3_fh *fh);
const char *gen_string(uint32_t len);
void gen_name(const char **name, uint32_t *len);
void gen_time(struct rpcrdma_nfs3_time *t);
void gen_fattr(struct rpcrdma_nfs3_fattr *f);
void gen_post_attr(struct rpcrdma_nfs3_post_attr *a);
void gen_wcc(struct rpcrdma_nfs3_wcc *w);
void gen_post_fh(struct rpcrdma_nfs3_post_fh *h);
void gen_set_time(uint32_t *how, struct rpcrdma_nfs3_time *t);
void gen_sattr(struct rpcrdma_nfs3_sattr *s);
void gen_diropargs(struct rpcrdma_nfs3_diropargs *d);
uint32_t gen_status(void);
void gen_verf(uint8_t *v);
void gen_data(struct rpcrdma_xdr_region *r);
void to_fh(const struct rpcrdma_nfs3_fh *o, nfs_fh3 *t);
void to_time(const struct rpcrdma_nfs3_time *o, nfstime3 *t);
void to_fattr(const struct rpcrdma_nfs3_fattr *o, fattr3 *t);
void to_post_attr(const struct rpcrdma_nfs3_post_attr *o, post_op_attr *t);
void to_wcc(const struct rpcrdma_nfs3_wcc *o, wcc_data *t);
void to_post_fh(const struct rpcrdma_nfs3_post_fh *o, post_op_fh3 *t);
void to_sattr(const struct rpcrdma_nfs3_sattr *o, sattr3 *t);
void to_diropargs(const struct rpcrdma_nfs3_diropargs *o, diropargs3 *t);
extern const char *why;
extern int why_line;
bool cmp_fh(const struct rpcrdma_nfs3_fh *o, const nfs_fh3 *t);
bool cmp_name(const char *o, uint32_t len, const char *t);
bool cmp_time(const struct rpcrdma_nfs3_time *o, const nfstime3 *t);
bool cmp_fattr(const struct rpcrdma_nfs3_fattr *o, const fattr3 *t);
bool cmp_post_attr(const struct rpcrdma_nfs3_post_attr *o, const post_op_attr *t);
bool cmp_wcc(const struct rpcrdma_nfs3_wcc *o, const wcc_data *t);
bool cmp_post_fh(const struct rpcrdma_nfs3_post_fh *o, const post_op_fh3 *t);
bool cmp_sattr(const struct rpcrdma_nfs3_sattr *o, const sattr3 *t);
bool cmp_diropargs(const struct rpcrdma_nfs3_diropargs *o, const diropargs3 *t);
bool cmp_data(const struct rpcrdma_xdr_region *o, u_int tlen, const char *tval);

/* A comparison that fails says why and where. */
#define EQ(a, b)                                      \
	do {                                          \
		if ((uint64_t)(a) != (uint64_t)(b)) { \
			why = #a " != " #b;           \
			why_line = __LINE__;          \
			return false;                 \
		}                                     \
	} while (0)
#define MEMEQ(a, b, n)                                           \
	do {                                                     \
		if ((n) && memcmp((a), (b), (n)) != 0) {         \
			why = "bytes of " #a " != bytes of " #b; \
			why_line = __LINE__;                     \
			return false;                            \
		}                                                \
	} while (0)
#define SUB(call)                     \
	do {                          \
		if (!(call))          \
			return false; \
	} while (0)

/* One row per kind, in the order of nfs3_kinds[]: rpcgen's side of it. */
struct nfs3_rpcgen_kind {
	const char *name;
	xdrproc_t xdr;
	size_t tsize;
	void (*gen)(void *v);
	void (*to)(const void *v, void *w);
	bool (*cmp)(const void *v, const void *w);
};
extern const struct nfs3_rpcgen_kind rk[];
extern const size_t rk_n;

#endif /* NFS3_RPCGEN_H */
