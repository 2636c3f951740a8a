/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registered buffer pools: counters, leak check, all-or-nothing bulk gets,
 * buffer isolation, pool sets and their size classes, and registration: a
 * stub driver records what the pool registers and the test maps the file
 * descriptor it was given to prove that it aliases the buffers (which is
 * what a peer process does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>

#include "test_check.h"

/* ---- a stub driver that records registrations ---- */

static struct {
	void *addr;
	size_t len;
	uint32_t access;
	int fd;
	uint64_t off;
	unsigned int regs, deregs;
} stub;

static struct rpcrdma_pmd_dev stub_dev;
static struct rpcrdma_pmd_pd stub_pd;
static struct rpcrdma_pmd_mr stub_mrs[16];

static int stub_dev_open(const char *devargs, struct rpcrdma_pmd_dev **dev)
{
	*dev = &stub_dev;
	return 0;
}

static void stub_dev_close(struct rpcrdma_pmd_dev *dev)
{
}

static int stub_pd_alloc(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_pd **pd)
{
	*pd = &stub_pd;
	return 0;
}

static void stub_pd_free(struct rpcrdma_pmd_pd *pd)
{
}

static int stub_mr_reg(struct rpcrdma_pmd_pd *pd, void *addr, size_t len, uint32_t access, int fd,
		       uint64_t off, struct rpcrdma_pmd_mr **mr)
{
	struct rpcrdma_pmd_mr *m;

	if (stub.regs >= 16)
		return -ENOSPC;
	m = &stub_mrs[stub.regs];
	if (stub.fd >= 0)
		close(stub.fd);
	stub.addr = addr;
	stub.len = len;
	stub.access = access;
	stub.fd = dup(fd);
	stub.off = off;
	m->addr = addr;
	m->length = len;
	m->lkey = 0x1000 + stub.regs;
	m->rkey = 0x2000 + stub.regs;
	stub.regs++;
	*mr = m;
	return 0;
}

static void stub_mr_dereg(struct rpcrdma_pmd_mr *mr)
{
	stub.deregs++;
}

static struct rpcrdma_pmd_ops stub_ops = {
	.name = "mempool_stub",
	.dev_open = stub_dev_open,
	.dev_close = stub_dev_close,
	.pd_alloc = stub_pd_alloc,
	.pd_free = stub_pd_free,
	.mr_reg = stub_mr_reg,
	.mr_dereg = stub_mr_dereg,
};
RPCRDMA_PMD_REGISTER(stub_ops)

/* ---- tests ---- */

static void test_counters(void)
{
	struct rpcrdma_mempool_params p;
	struct rpcrdma_mempool_stats st;
	struct rpcrdma_mempool *pool;
	void *bufs[256];
	unsigned int i;
	int ret;

	rpcrdma_mempool_params_init(&p);
	p.name = "counters";
	p.buf_size = 1000;
	p.count = 256;
	p.cache_size = 16;
	ret = rpcrdma_mempool_create(&p, NULL, &pool);
	CHECK(ret == 0);
	if (ret != 0)
		return;
	CHECK(pool->lkey == 0 && pool->mr == NULL);

	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.size == 256 && st.in_use == 0 && st.free == 256 && st.high_water == 0);
	CHECK(rpcrdma_mempool_check_all_back(pool) == 0);

	/* take everything, one at a time */
	for (i = 0; i < 256; i++) {
		bufs[i] = rpcrdma_mempool_get(pool);
		CHECK(bufs[i] != NULL);
	}
	CHECK(rpcrdma_mempool_get(pool) == NULL);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.in_use == 256 && st.free == 0 && st.high_water == 256);
	CHECK(rpcrdma_mempool_check_all_back(pool) == -EBUSY);

	/* buffers are distinct, in the pool, cache-line aligned, and isolated */
	for (i = 0; i < 256; i++) {
		CHECK(rpcrdma_mempool_owns(pool, bufs[i]));
		CHECK(((uintptr_t)bufs[i] & 63) == 0);
		CHECK(rpcrdma_mempool_from_buf(bufs[i]) == pool);
		memset(bufs[i], (int)i, 1000);
	}
	for (i = 0; i < 256; i++) {
		const unsigned char *b = bufs[i];

		CHECK(b[0] == (unsigned char)i && b[999] == (unsigned char)i);
	}

	/* give back half: the high-water mark stays */
	for (i = 0; i < 128; i++)
		rpcrdma_mempool_put(pool, bufs[i]);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.in_use == 128 && st.free == 128 && st.high_water == 256);

	/* bulk: all or nothing */
	CHECK(rpcrdma_mempool_get_bulk(pool, bufs, 129) == -ENOBUFS);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.in_use == 128 && st.free == 128);
	CHECK(rpcrdma_mempool_get_bulk(pool, bufs, 128) == 0);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.in_use == 256 && st.free == 0);
	rpcrdma_mempool_put_bulk(pool, bufs, 256);

	/* one leaked buffer is found */
	bufs[0] = rpcrdma_mempool_get(pool);
	CHECK(rpcrdma_mempool_check_all_back(pool) == -EBUSY);
	rpcrdma_mempool_put(pool, bufs[0]);
	CHECK(rpcrdma_mempool_check_all_back(pool) == 0);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(st.in_use == 0 && st.free == 256 && st.high_water == 256);

	rpcrdma_mempool_free(pool);
}

/*
 * Under AddressSanitizer (scripts/sanitize.sh) a buffer is poisoned while
 * it is in the pool, its object header never: a use after put is reported.
 */
static void test_poison(void)
{
#if defined(__SANITIZE_ADDRESS__)
	struct rpcrdma_mempool_params p;
	struct rpcrdma_mempool *pool;
	void *bufs[4];
	char *b;

	rpcrdma_mempool_params_init(&p);
	p.name = "poison";
	p.buf_size = 1000;
	p.count = 16;
	p.cache_size = 4;
	if (rpcrdma_mempool_create(&p, NULL, &pool) != 0) {
		CHECK(0);
		return;
	}
	b = rpcrdma_mempool_get(pool);
	CHECK(b != NULL && !__asan_region_is_poisoned(b, 1000));
	rpcrdma_mempool_put(pool, b);
	/* every byte, its first and last, until it is taken again */
	CHECK(__asan_address_is_poisoned(b) && __asan_address_is_poisoned(b + 999));
	CHECK(__asan_region_is_poisoned(b, 1000) == b);
	/* the header before it stays readable: rpcrdma_mempool_from_buf() */
	CHECK(rpcrdma_mempool_from_buf(b) == pool);
	CHECK(rpcrdma_mempool_get_bulk(pool, bufs, 4) == 0);
	for (unsigned int i = 0; i < 4; i++)
		CHECK(!__asan_region_is_poisoned(bufs[i], 1000));
	rpcrdma_mempool_put_bulk(pool, bufs, 4);
	for (unsigned int i = 0; i < 4; i++)
		CHECK(__asan_address_is_poisoned(bufs[i]));
	rpcrdma_mempool_free(pool);
	printf("poisoned in the pool: checked (AddressSanitizer)\n");
#else
	printf("poisoned in the pool: not checked (no AddressSanitizer in this build)\n");
#endif
}

static void test_params(void)
{
	struct rpcrdma_mempool_params p;
	struct rpcrdma_mempool *pool, *dup;

	rpcrdma_mempool_params_init(&p);
	p.count = 64;
	p.name = NULL;
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == -EINVAL);
	p.name = "a_name_that_is_far_too_long";
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == -EINVAL);
	p.name = "params";
	p.count = 0;
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == -EINVAL);
	p.count = 16;
	p.cache_size = 32; /* more than count / 1.5 */
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == -EINVAL);
	p.cache_size = 0;
	p.buf_size = 0;
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == -EINVAL);
	p.buf_size = 64;
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == 0);
	CHECK(rpcrdma_mempool_create(&p, NULL, &dup) == -EEXIST);
	rpcrdma_mempool_free(pool);
	/* the name, heap and memzone are free again */
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == 0);
	rpcrdma_mempool_free(pool);
}

static void test_registration(struct rpcrdma_pmd_pd *pd)
{
	struct rpcrdma_mempool_params p;
	struct rpcrdma_mempool *pool;
	uint64_t off, fd_off;
	unsigned char *buf, *alias;
	size_t pg, map_off, map_len;
	void *map;
	int ret;

	rpcrdma_mempool_params_init(&p);
	p.name = "reg";
	p.count = 64;
	p.access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_READ;
	stub.regs = 0;
	stub.deregs = 0;
	ret = rpcrdma_mempool_create(&p, pd, &pool);
	CHECK(ret == 0);
	if (ret != 0)
		return;
	CHECK(stub.regs == 1);
	CHECK(pool->mr != NULL && pool->lkey == 0x1000 && pool->rkey == 0x2000);
	CHECK(stub.access == p.access);
	CHECK(stub.fd >= 0);
	CHECK(rpcrdma_mempool_fd(pool, &fd_off) >= 0 && fd_off == stub.off);

	buf = rpcrdma_mempool_get(pool);
	CHECK(buf != NULL);
	CHECK(buf >= (unsigned char *)stub.addr &&
	      buf + 4096 <= (unsigned char *)stub.addr + stub.len);

	/* map the registered fd as a peer would, and see the same bytes */
	{
		struct rpcrdma_mempool_stats st;

		rpcrdma_mempool_stats(pool, &st);
		pg = st.hugepages ? (2u << 20) : 4096;
	}
	off = stub.off + (uint64_t)(buf - (unsigned char *)stub.addr);
	map_off = off / pg * pg;
	map_len = (off - map_off + 4096 + pg - 1) / pg * pg;
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, stub.fd, (off_t)map_off);
	CHECK(map != MAP_FAILED);
	if (map != MAP_FAILED) {
		alias = (unsigned char *)map + (off - map_off);
		memset(buf, 0x5a, 4096);
		CHECK(alias[0] == 0x5a && alias[4095] == 0x5a);
		alias[17] = 0xa5;
		CHECK(buf[17] == 0xa5);
		munmap(map, map_len);
	}
	rpcrdma_mempool_put(pool, buf);
	CHECK(rpcrdma_mempool_check_all_back(pool) == 0);
	rpcrdma_mempool_free(pool);
	CHECK(stub.deregs == 1);
}

static void test_set(struct rpcrdma_pmd_pd *pd)
{
	struct rpcrdma_mempool_set_params p;
	struct rpcrdma_mempool_set *set;
	void *b;
	int ret;

	rpcrdma_mempool_set_params_init(&p);
	p.name = "set";
	p.inline_count = 128;
	p.classes[0].count = 8;
	p.classes[1].count = 4;
	stub.regs = 0;
	stub.deregs = 0;
	ret = rpcrdma_mempool_set_create(&p, pd, &set);
	CHECK(ret == 0);
	if (ret != 0)
		return;
	CHECK(stub.regs == 3); /* one MR per pool */
	CHECK(set->inline_pool->buf_size == 4096 && set->nb_classes == 2);
	CHECK(rpcrdma_mempool_set_chunk_pool(set, 1) == set->chunk[0]);
	CHECK(rpcrdma_mempool_set_chunk_pool(set, 65536) == set->chunk[0]);
	CHECK(rpcrdma_mempool_set_chunk_pool(set, 65537) == set->chunk[1]);
	CHECK(rpcrdma_mempool_set_chunk_pool(set, 1u << 20) == set->chunk[1]);
	CHECK(rpcrdma_mempool_set_chunk_pool(set, (1u << 20) + 1) == NULL);
	CHECK(set->chunk[1]->lkey != set->chunk[0]->lkey);

	b = rpcrdma_mempool_get(set->chunk[1]);
	CHECK(b != NULL);
	memset(b, 1, 1u << 20);
	CHECK(rpcrdma_mempool_set_check_all_back(set) == -EBUSY);
	rpcrdma_mempool_put(set->chunk[1], b);
	CHECK(rpcrdma_mempool_set_check_all_back(set) == 0);
	rpcrdma_mempool_set_free(set);
	CHECK(stub.deregs == 3);

	/* classes must increase */
	p.classes[1].size = p.classes[0].size;
	CHECK(rpcrdma_mempool_set_create(&p, pd, &set) == -EINVAL);
}

static void test_small_pages(void)
{
	struct rpcrdma_mempool_params p;
	struct rpcrdma_mempool_stats st;
	struct rpcrdma_mempool *pool;

	rpcrdma_mempool_params_init(&p);
	p.name = "small";
	p.count = 32;
	p.cache_size = 0;
	p.no_hugepages = true;
	CHECK(rpcrdma_mempool_create(&p, NULL, &pool) == 0);
	rpcrdma_mempool_stats(pool, &st);
	CHECK(!st.hugepages);
	CHECK(st.mem_bytes % 4096 == 0);
	rpcrdma_mempool_free(pool);
}

int main(int argc, char **argv)
{
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	int ret;

	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s\n", strerror(-ret));
		return 1;
	}
	CHECK(rpcrdma_mempool_eal_init(argv[0], NULL) == 0); /* once per process, idempotent */
	printf("EAL on %s\n", rpcrdma_mempool_eal_hugepages() ? "hugepages" : "4 KiB pages");

	stub.fd = -1;
	CHECK(rpcrdma_pmd_dev_open("no_such_driver", NULL, &dev) == -ENOENT);
	CHECK(rpcrdma_pmd_dev_open("mempool_stub", NULL, &dev) == 0);
	CHECK(rpcrdma_pmd_pd_alloc(dev, &pd) == 0);
	CHECK(rpcrdma_pmd_dev_close(dev) == -EBUSY); /* the PD is alive */
	{
		/* the common layer checks registration arguments before the driver */
		struct rpcrdma_pmd_mr *mr;
		char mem[64];

		CHECK(rpcrdma_pmd_mr_reg(pd, mem, sizeof(mem), RPCRDMA_PMD_ACCESS_REMOTE_WRITE, -1,
					 0, &mr) == -EINVAL);
		CHECK(rpcrdma_pmd_mr_reg(pd, mem, 0, 0, -1, 0, &mr) == -EINVAL);
		CHECK(rpcrdma_pmd_mr_reg(pd, mem, sizeof(mem), 0x100, -1, 0, &mr) == -EINVAL);
		CHECK(stub.regs == 0);
	}

	test_counters();
	test_poison();
	test_params();
	test_registration(pd);
	test_set(pd);
	test_small_pages();

	CHECK(rpcrdma_pmd_pd_free(pd) == 0);
	CHECK(rpcrdma_pmd_dev_close(dev) == 0);
	if (stub.fd >= 0)
		close(stub.fd);
	return test_summary("mempool");
}
