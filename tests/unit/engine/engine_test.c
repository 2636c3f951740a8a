/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the engine tests, and the simulated fabric.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_test.h"

unsigned long test_checks;
unsigned long test_failures;

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	test_failures++;
	fprintf(stderr, "%s:%d: FAIL (%s): ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int test_summary(const char *name)
{
	printf("%s: %lu checks, %lu failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

void *test_malloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p) {
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		abort();
	}
	return p;
}

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

	memset(p, 0, len ? len : 1);
	return fab_reg(p, len);
}

void fab_free(struct rpcrdma_xdr_region *r)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_MR; i++)
		if (mrs[i].used && mrs[i].lkey == r->lkey)
			mrs[i].used = false;
	free(r->addr);
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
