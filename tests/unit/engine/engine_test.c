/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the engine tests, and the simulated fabric.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_test.h"

void test_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)((x >> 16) | 1);
	}
}

struct fab_mr {
	bool used;
	bool owned; /* allocated by fab_alloc(): freed by fab_reset() */
	bool valid; /* the rkey has not been invalidated */
	uint8_t *addr;
	uint64_t iova;
	uint32_t len;
	uint32_t lkey;
	uint32_t rkey;
};

static struct fab_mr mrs[FAB_MAX_MR];
static uint32_t next_key = 0x100;

void fab_reset(void)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++)
		if (mrs[i].used && mrs[i].owned)
			free(mrs[i].addr);
	memset(mrs, 0, sizeof(mrs));
}

struct rpcrdma_xdr_region fab_reg(void *addr, uint32_t len)
{
	struct rpcrdma_xdr_region r;
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR && mrs[i].used; i++)
		;
	if (i == FAB_MAX_MR) {
		fprintf(stderr, "fab_reg: out of registrations\n");
		abort();
	}
	mrs[i].used = true;
	mrs[i].valid = true;
	mrs[i].addr = addr;
	/* An iova unlike the address: remote offsets are not pointers. */
	mrs[i].iova = 0x7a0000000000ull + ((uint64_t)next_key << 24) + 0x40;
	mrs[i].len = len;
	mrs[i].lkey = next_key++;
	mrs[i].rkey = 0x50000 + next_key++;
	r.addr = addr;
	r.iova = mrs[i].iova;
	r.len = len;
	r.lkey = mrs[i].lkey;
	r.rkey = mrs[i].rkey;
	return r;
}

struct rpcrdma_xdr_region fab_alloc(uint32_t len)
{
	void *p = test_malloc(len);
	struct rpcrdma_xdr_region r;
	unsigned int i;

	memset(p, 0, len ? len : 1);
	r = fab_reg(p, len);
	for (i = 0; i < FAB_MAX_MR; i++)
		if (mrs[i].used && mrs[i].lkey == r.lkey)
			mrs[i].owned = true;
	return r;
}

void fab_free(struct rpcrdma_xdr_region *r)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++)
		if (mrs[i].used && mrs[i].lkey == r->lkey) {
			if (mrs[i].owned)
				free(mrs[i].addr);
			mrs[i].used = false;
		}
	r->addr = NULL;
}

void fab_invalidate(uint32_t rkey)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++)
		if (mrs[i].used && mrs[i].rkey == rkey)
			mrs[i].valid = false;
}

uint8_t *fab_local(uint32_t lkey, uint64_t addr, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++) {
		uint64_t base = (uint64_t)(uintptr_t)mrs[i].addr;

		if (!mrs[i].used || mrs[i].lkey != lkey)
			continue;
		if (addr < base || addr - base > mrs[i].len || len > mrs[i].len - (addr - base))
			return NULL;
		return (uint8_t *)(uintptr_t)addr;
	}
	return NULL;
}

uint8_t *fab_remote(uint32_t rkey, uint64_t iova, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++) {
		if (!mrs[i].used || mrs[i].rkey != rkey)
			continue;
		if (!mrs[i].valid)
			return NULL;
		if (iova < mrs[i].iova || iova - mrs[i].iova > mrs[i].len ||
		    len > mrs[i].len - (iova - mrs[i].iova))
			return NULL;
		return mrs[i].addr + (iova - mrs[i].iova);
	}
	return NULL;
}

int fab_send(const struct rpcrdma_marshal_sge *sge, unsigned int n, uint8_t *out, uint32_t cap)
{
	uint32_t len = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = fab_local(sge[i].lkey, sge[i].addr, sge[i].length);

		if (!p || sge[i].length > cap - len)
			return -1;
		memcpy(out + len, p, sge[i].length);
		len += sge[i].length;
	}
	return (int)len;
}

int fab_rdma(const struct rpcrdma_marshal_rdma *ops, unsigned int n, bool read)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t *l = fab_local(ops[i].lkey, ops[i].laddr, ops[i].len);
		uint8_t *r = fab_remote(ops[i].rkey, ops[i].raddr, ops[i].len);

		if (!l || !r)
			return -1;
		if (read)
			memcpy(l, r, ops[i].len);
		else
			memcpy(r, l, ops[i].len);
	}
	return 0;
}

static bool seg_same(const struct rpcrdma_segment *a, const struct rpcrdma_segment *b)
{
	return a->handle == b->handle && a->length == b->length && a->offset == b->offset;
}

static bool chunk_same(const struct rpcrdma_write_chunk *a, const struct rpcrdma_write_chunk *b)
{
	uint32_t j;

	if (a->nsegs != b->nsegs)
		return false;
	for (j = 0; j < a->nsegs; j++)
		if (!seg_same(&a->segs[j], &b->segs[j]))
			return false;
	return true;
}

bool test_hdr_same(const char *what, const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b)
{
	const struct rpcrdma_chunk_lists *x = &a->chunks, *y = &b->chunks;
	uint32_t i;

	if (a->xid != b->xid || a->vers != b->vers || a->credit != b->credit ||
	    a->proc != b->proc) {
		fprintf(stderr, "%s: fixed fields differ\n", what);
		return false;
	}
	if (a->proc == RPCRDMA_ERROR)
		return a->error.code == b->error.code;
	if (a->proc != RPCRDMA_MSG && a->proc != RPCRDMA_NOMSG)
		return true;
	if (a->vers == RPCRDMA_VERS_2 && x->direction != y->direction) {
		fprintf(stderr, "%s: direction %u, %u\n", what, x->direction, y->direction);
		return false;
	}
	if (x->nreads != y->nreads || x->nwrites != y->nwrites || x->has_reply != y->has_reply) {
		fprintf(stderr, "%s: list sizes differ: %u/%u/%d, %u/%u/%d\n", what, x->nreads,
			x->nwrites, x->has_reply, y->nreads, y->nwrites, y->has_reply);
		return false;
	}
	for (i = 0; i < x->nreads; i++)
		if (x->reads[i].position != y->reads[i].position ||
		    !seg_same(&x->reads[i].target, &y->reads[i].target)) {
			fprintf(stderr, "%s: read %u differs\n", what, i);
			return false;
		}
	for (i = 0; i < x->nwrites; i++)
		if (!chunk_same(&x->writes[i], &y->writes[i])) {
			fprintf(stderr, "%s: write chunk %u differs\n", what, i);
			return false;
		}
	if (x->has_reply && !chunk_same(&x->reply, &y->reply)) {
		fprintf(stderr, "%s: reply chunk differs\n", what);
		return false;
	}
	return true;
}

bool test_hdr_wire(const char *what, const struct rpcrdma_hdr *hdr, const void *buf, uint32_t len,
		   struct rpcrdma_hdr_storage *st)
{
	struct rpcrdma_hdr *d = rpcrdma_hdr_storage_init(st);
	int ret = rpcrdma_hdr_decode(d, buf, len);

	if (ret != (int)len) {
		fprintf(stderr, "%s: decode returned %d for %u bytes\n", what, ret, len);
		return false;
	}
	return test_hdr_same(what, hdr, d);
}
