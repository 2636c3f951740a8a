/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The file system of nfs3-server (apps/nfs3/fs.c) on its own, over 4 MiB
 * of heap: names ('.', '..', '/', 256 bytes), make, look up, remove,
 * rename (across directories, over files and directories, into itself),
 * READDIR cookies and verifiers (across changes, lying ones), handles
 * (stale after remove and slot reuse, forged, of another instance),
 * space accounting (blocks, NOSPC, free again after remove, the buddies
 * merged back to the whole area), and READ in place: a pinned block
 * copied on write, freed by its last unpin after a remove.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "test_check.h"

#define AREA (4u << 20)

static struct nfs3_fs *fs;
static const struct nfs3_fs_cred cred = { 1000, 100 };

static uint64_t mk(uint64_t dir, const char *name, uint32_t type)
{
	uint64_t ino = 0;
	uint32_t st = nfs3_fs_make(fs, dir, name, (uint32_t)strlen(name), type, 0644, &cred,
				   "target", 6, &ino);

	CHECK(st == RPCRDMA_NFS3_OK, "make %s: %u", name, st);
	return ino;
}

static uint32_t lookup(uint64_t dir, const char *name, uint64_t *ino)
{
	return nfs3_fs_lookup(fs, dir, name, (uint32_t)strlen(name), ino);
}

static uint32_t fh_of(uint64_t ino, uint8_t *fh, struct rpcrdma_nfs3_fh *h)
{
	h->len = nfs3_fs_fh(fs, ino, fh);
	h->data = fh;
	return h->len;
}

static void check_names(void)
{
	char big[300];
	uint64_t ino, d;

	memset(big, 'x', sizeof(big));
	CHECK(nfs3_fs_name_ok(big, 255) == RPCRDMA_NFS3_OK, "255 bytes");
	CHECK(nfs3_fs_name_ok(big, 256) == RPCRDMA_NFS3ERR_NAMETOOLONG, "256 bytes");
	CHECK(nfs3_fs_name_ok("a/b", 3) == RPCRDMA_NFS3ERR_ACCES, "a slash");
	CHECK(nfs3_fs_name_ok("a\0b", 3) == RPCRDMA_NFS3ERR_ACCES, "a NUL");
	CHECK(nfs3_fs_name_ok("", 0) == RPCRDMA_NFS3ERR_ACCES, "empty");
	d = mk(NFS3_FS_ROOT, "d", RPCRDMA_NFS3_DIR);
	CHECK(lookup(d, ".", &ino) == 0 && ino == d, "'.'");
	CHECK(lookup(d, "..", &ino) == 0 && ino == NFS3_FS_ROOT, "'..'");
	CHECK(lookup(NFS3_FS_ROOT, "..", &ino) == 0 && ino == NFS3_FS_ROOT, "the root's '..'");
	CHECK(nfs3_fs_make(fs, d, ".", 1, RPCRDMA_NFS3_REG, 0, &cred, NULL, 0, &ino) ==
		      RPCRDMA_NFS3ERR_EXIST,
	      "make '.'");
	CHECK(nfs3_fs_make(fs, d, big, 256, RPCRDMA_NFS3_REG, 0, &cred, NULL, 0, &ino) ==
		      RPCRDMA_NFS3ERR_NAMETOOLONG,
	      "make 256 bytes");
	CHECK(nfs3_fs_remove(fs, d, ".", 1, true) == RPCRDMA_NFS3ERR_INVAL, "rmdir '.'");
	CHECK(nfs3_fs_remove(fs, d, "..", 2, true) == RPCRDMA_NFS3ERR_NOTEMPTY, "rmdir '..'");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "d", 1, false) == RPCRDMA_NFS3ERR_ISDIR,
	      "remove a directory");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "d", 1, true) == 0, "rmdir d");
	CHECK(lookup(NFS3_FS_ROOT, "d", &ino) == RPCRDMA_NFS3ERR_NOENT, "d is gone");
}

/*
 * The last inodes put before nfs3_fs_free(): a directory that held an entry,
 * emptied and removed, has its slots freed once (rpcrdma-perf --files left
 * nfs3-server crashing at exit).
 */
static void check_emptied_dir(void)
{
	uint64_t d = mk(NFS3_FS_ROOT, "emptied", RPCRDMA_NFS3_DIR);

	mk(d, "f", RPCRDMA_NFS3_REG);
	CHECK(nfs3_fs_remove(fs, d, "f", 1, false) == 0, "remove emptied/f");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "emptied", 7, true) == 0,
	      "rmdir emptied, which held f");
}

static void check_tree(void)
{
	struct rpcrdma_nfs3_fattr a, r;
	uint64_t d1, d2, f, g, ino;
	uint8_t fh[NFS3_FS_FH_LEN];
	struct rpcrdma_nfs3_fh h;

	nfs3_fs_getattr(fs, NFS3_FS_ROOT, &r);
	d1 = mk(NFS3_FS_ROOT, "d1", RPCRDMA_NFS3_DIR);
	d2 = mk(d1, "d2", RPCRDMA_NFS3_DIR);
	f = mk(d1, "f", RPCRDMA_NFS3_REG);
	nfs3_fs_getattr(fs, d1, &a);
	CHECK(a.nlink == 3 && a.type == RPCRDMA_NFS3_DIR && a.uid == 1000 && a.gid == 100 &&
		      a.fileid == d1,
	      "d1: nlink %u", a.nlink);
	nfs3_fs_getattr(fs, f, &a);
	CHECK(a.nlink == 1 && a.mode == 0644 && a.size == 0 && a.used == 0, "f's attributes");
	CHECK(nfs3_fs_make(fs, d1, "f", 1, RPCRDMA_NFS3_REG, 0, &cred, NULL, 0, &ino) ==
			      RPCRDMA_NFS3ERR_EXIST &&
		      ino == f,
	      "f again: EXIST, the file");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "d1", 2, true) == RPCRDMA_NFS3ERR_NOTEMPTY,
	      "rmdir d1");
	/* rename: into itself, over a directory, across directories, in place */
	CHECK(nfs3_fs_rename(fs, NFS3_FS_ROOT, "d1", 2, d2, "x", 1) == RPCRDMA_NFS3ERR_INVAL,
	      "d1 into d1/d2");
	CHECK(nfs3_fs_rename(fs, d1, "f", 1, d1, "d2", 2) == RPCRDMA_NFS3ERR_ISDIR,
	      "a file over a directory");
	CHECK(nfs3_fs_rename(fs, d1, "d2", 2, d1, "f", 1) == RPCRDMA_NFS3ERR_NOTDIR,
	      "a directory over a file");
	CHECK(nfs3_fs_rename(fs, d1, "..", 2, d1, "z", 1) == RPCRDMA_NFS3ERR_INVAL, "'..'");
	CHECK(nfs3_fs_rename(fs, d1, "nope", 4, d1, "z", 1) == RPCRDMA_NFS3ERR_NOENT, "none");
	CHECK(nfs3_fs_rename(fs, d1, "d2", 2, NFS3_FS_ROOT, "d2", 2) == 0, "d1/d2 to /d2");
	nfs3_fs_getattr(fs, d1, &a);
	CHECK(a.nlink == 2, "d1 lost a subdirectory: %u", a.nlink);
	nfs3_fs_getattr(fs, NFS3_FS_ROOT, &a);
	CHECK(a.nlink == r.nlink + 2, "the root has d1 and d2: %u", a.nlink);
	CHECK(lookup(d2, "..", &ino) == 0 && ino == NFS3_FS_ROOT, "d2's parent is the root");
	CHECK(nfs3_fs_rename(fs, d1, "f", 1, d1, "f2", 2) == 0, "f to f2");
	CHECK(lookup(d1, "f", &ino) == RPCRDMA_NFS3ERR_NOENT && lookup(d1, "f2", &ino) == 0 &&
		      ino == f,
	      "f2 is f");
	g = mk(d2, "g", RPCRDMA_NFS3_REG);
	fh_of(g, fh, &h);
	CHECK(nfs3_fs_rename(fs, d1, "f2", 2, d2, "g", 1) == 0, "f2 over d2/g");
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == RPCRDMA_NFS3ERR_STALE, "g's handle is stale");
	CHECK(lookup(d2, "g", &ino) == 0 && ino == f, "d2/g is f");
	CHECK(nfs3_fs_rename(fs, d2, "g", 1, d2, "g", 1) == 0, "onto itself");
	CHECK(nfs3_fs_remove(fs, d2, "g", 1, false) == 0 &&
		      nfs3_fs_remove(fs, NFS3_FS_ROOT, "d2", 2, true) == 0 &&
		      nfs3_fs_remove(fs, NFS3_FS_ROOT, "d1", 2, true) == 0,
	      "clean up");
}

static void check_handles(void)
{
	uint8_t fh[NFS3_FS_FH_LEN], fh2[NFS3_FS_FH_LEN];
	struct rpcrdma_nfs3_fh h, h2;
	uint64_t f, f2, ino;

	f = mk(NFS3_FS_ROOT, "h", RPCRDMA_NFS3_REG);
	fh_of(f, fh, &h);
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == 0 && ino == f, "a good handle");
	h.len = 31;
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == RPCRDMA_NFS3ERR_BADHANDLE, "short");
	h.len = 0;
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == RPCRDMA_NFS3ERR_BADHANDLE, "empty");
	h.len = NFS3_FS_FH_LEN;
	memcpy(fh2, fh, sizeof(fh));
	h2.data = fh2;
	h2.len = NFS3_FS_FH_LEN;
	fh2[8] ^= 2; /* another fileid, checksum unchanged: forged */
	CHECK(nfs3_fs_fh_ino(fs, &h2, &ino) == RPCRDMA_NFS3ERR_BADHANDLE, "forged fileid");
	memcpy(fh2, fh, sizeof(fh));
	fh2[0] = 9;
	CHECK(nfs3_fs_fh_ino(fs, &h2, &ino) == RPCRDMA_NFS3ERR_BADHANDLE, "version");
	memcpy(fh2, fh, sizeof(fh));
	fh2[16] ^= 1; /* another instance's */
	CHECK(nfs3_fs_fh_ino(fs, &h2, &ino) == RPCRDMA_NFS3ERR_STALE, "another instance");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "h", 1, false) == 0, "remove");
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == RPCRDMA_NFS3ERR_STALE, "stale after remove");
	f2 = mk(NFS3_FS_ROOT, "h2", RPCRDMA_NFS3_REG);
	CHECK(f2 == f, "the slot is reused (%lu, %lu)", (unsigned long)f2, (unsigned long)f);
	CHECK(nfs3_fs_fh_ino(fs, &h, &ino) == RPCRDMA_NFS3ERR_STALE, "stale after reuse");
	fh_of(f2, fh2, &h2);
	CHECK(nfs3_fs_fh_ino(fs, &h2, &ino) == 0 && ino == f2, "the new file's handle");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "h2", 2, false) == 0, "remove h2");
}

static void check_readdir(void)
{
	static const uint8_t zero[8];
	uint8_t verf[8], other[8];
	struct nfs3_fs_dirent e;
	uint64_t d, c, ino;
	char name[32];
	unsigned int n, seen[64] = { 0 };

	d = mk(NFS3_FS_ROOT, "rd", RPCRDMA_NFS3_DIR);
	for (n = 0; n < 40; n++) {
		snprintf(name, sizeof(name), "e%02u", n);
		mk(d, name, RPCRDMA_NFS3_REG);
	}
	nfs3_fs_cookieverf(fs, d, verf);
	nfs3_fs_cookieverf(fs, NFS3_FS_ROOT, other);
	CHECK(memcmp(verf, other, 8) != 0 && memcmp(verf, zero, 8) != 0, "verifiers differ");
	/* the first 10, then remove e05 and e20 and add e99: resume from the 10th's cookie */
	for (c = 0, n = 0; n < 12 && nfs3_fs_readdir_next(fs, d, c, &e); n++)
		c = e.cookie;
	CHECK(nfs3_fs_readdir_check(fs, d, c, verf) == 0, "the 12th's cookie");
	CHECK(nfs3_fs_remove(fs, d, "e05", 3, false) == 0 &&
		      nfs3_fs_remove(fs, d, "e20", 3, false) == 0,
	      "remove two");
	mk(d, "e99", RPCRDMA_NFS3_REG); /* takes e05's slot: before the cursor */
	CHECK(nfs3_fs_readdir_check(fs, d, c, verf) == 0, "the cookie holds across changes");
	for (n = 0; nfs3_fs_readdir_next(fs, d, c, &e); n++) {
		c = e.cookie;
		if (e.name_len == 3 && e.name[0] == 'e')
			seen[(e.name[1] - '0') * 10 + (e.name[2] - '0') < 64
				     ? (e.name[1] - '0') * 10 + (e.name[2] - '0')
				     : 63]++;
	}
	CHECK(n == 40 - 10 - 1, "the rest: %u entries", n);
	CHECK(seen[10] == 1 && seen[39] == 1 && seen[20] == 0 && seen[9] == 0, "each once");
	/* '.' and '..' first */
	CHECK(nfs3_fs_readdir_next(fs, d, 0, &e) && e.name_len == 1 && e.ino == d && e.cookie == 1,
	      "'.'");
	CHECK(nfs3_fs_readdir_next(fs, d, 1, &e) && e.name_len == 2 && e.ino == NFS3_FS_ROOT &&
		      e.cookie == 2,
	      "'..'");
	/* lies */
	CHECK(nfs3_fs_readdir_check(fs, d, 0, other) == 0, "cookie 0, any verifier");
	CHECK(nfs3_fs_readdir_check(fs, d, 5, zero) == 0, "a zero verifier");
	CHECK(nfs3_fs_readdir_check(fs, d, 5, other) == RPCRDMA_NFS3ERR_BAD_COOKIE,
	      "another directory's verifier");
	CHECK(nfs3_fs_readdir_check(fs, d, 2 + 40, verf) == 0, "the last slot's cookie");
	CHECK(nfs3_fs_readdir_check(fs, d, 3 + 40, verf) == RPCRDMA_NFS3ERR_BAD_COOKIE,
	      "past the slots");
	CHECK(nfs3_fs_readdir_check(fs, d, UINT64_MAX, verf) == RPCRDMA_NFS3ERR_BAD_COOKIE,
	      "a huge cookie");
	CHECK(lookup(d, "e07", &ino) == 0, "e07");
	CHECK(nfs3_fs_readdir_check(fs, ino, 0, verf) == RPCRDMA_NFS3ERR_NOTDIR, "a file");
	for (c = 2; nfs3_fs_readdir_next(fs, d, c, &e); c = e.cookie)
		CHECK(nfs3_fs_remove(fs, d, e.name, e.name_len, false) == 0, "empty it");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "rd", 2, true) == 0, "rmdir rd");
}

static void check_data(void)
{
	struct nfs3_fs_stats st0, st;
	struct rpcrdma_nfs3_fattr a;
	struct rpcrdma_nfs3_sattr sa = { 0 };
	static uint8_t buf[3u << 20], out[3u << 20];
	const uint8_t *p, *p1;
	uint32_t count, pin, pin2;
	uint64_t f, g;
	bool eof;
	int ret;

	for (uint32_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	nfs3_fs_stats(fs, &st0);
	CHECK(st0.free_bytes == AREA, "the area is free: %lu", (unsigned long)st0.free_bytes);
	f = mk(NFS3_FS_ROOT, "data", RPCRDMA_NFS3_REG);
	/* 4 KiB, then growing in place to 1.5 MiB: blocks of 4 KiB, 1 MiB + 512 KiB */
	CHECK(nfs3_fs_write(fs, f, 0, buf, 4096) == 0, "write 4 KiB");
	nfs3_fs_stats(fs, &st);
	CHECK(st.free_bytes == AREA - 4096, "4 KiB used: %lu", (unsigned long)st.free_bytes);
	CHECK(nfs3_fs_write(fs, f, 4096, buf + 4096, (3u << 19) - 4096) == 0, "to 1.5 MiB");
	nfs3_fs_getattr(fs, f, &a);
	CHECK(a.size == 3u << 19 && a.used == 3u << 19, "size %lu used %lu", (unsigned long)a.size,
	      (unsigned long)a.used);
	count = 1u << 20;
	ret = nfs3_fs_read_map(fs, f, 0, &count, &eof, &p, &pin);
	CHECK(ret == 1 && count == 1u << 20 && !eof && memcmp(p, buf, count) == 0,
	      "the first MiB in place");
	p1 = p;
	count = 8192;
	CHECK(nfs3_fs_read_map(fs, f, (1u << 20) - 4096, &count, &eof, &p, &pin2) == 0 &&
		      count == 8192,
	      "across two extents: copied");
	nfs3_fs_read_copy(fs, f, (1u << 20) - 4096, count, out);
	CHECK(memcmp(out, buf + (1u << 20) - 4096, 8192) == 0, "copied bytes");
	count = 1u << 20;
	CHECK(nfs3_fs_read_map(fs, f, 1u << 20, &count, &eof, &p, &pin2) == 1 &&
		      count == 1u << 19 && eof,
	      "the last half MiB, cut at the end, eof");
	nfs3_fs_unpin(fs, pin2);
	/* a WRITE to the pinned first MiB: copied on write, the READ's bytes unchanged */
	CHECK(nfs3_fs_write(fs, f, 100, "XYZ", 3) == 0, "write into the pinned extent");
	nfs3_fs_stats(fs, &st);
	CHECK(st.cow == 1 && st.pinned == 1 && st.orphans == 1, "cow %lu pinned %u orphans %u",
	      (unsigned long)st.cow, st.pinned, st.orphans);
	CHECK(memcmp(p1, buf, 1u << 20) == 0, "the pinned bytes did not change");
	count = 3;
	nfs3_fs_read_copy(fs, f, 100, 3, out);
	CHECK(memcmp(out, "XYZ", 3) == 0, "the file did");
	nfs3_fs_unpin(fs, pin);
	nfs3_fs_stats(fs, &st);
	CHECK(st.pinned == 0 && st.orphans == 0 && st.free_bytes == AREA - (3u << 19),
	      "the old block freed at the unpin: %lu", (unsigned long)st.free_bytes);
	/* truncate to 10 bytes, grow again: the tail reads as zeros */
	sa.set_size = true;
	sa.size = 10;
	CHECK(nfs3_fs_setattr(fs, f, &sa) == 0, "truncate");
	sa.size = 5000;
	CHECK(nfs3_fs_setattr(fs, f, &sa) == 0, "extend");
	nfs3_fs_read_copy(fs, f, 0, 5000, out);
	CHECK(memcmp(out, buf, 10) == 0 && out[10] == 0 && out[4999] == 0, "zeros past 10");
	/* a hole: a write at 2.5 MiB of a fresh file takes one block */
	g = mk(NFS3_FS_ROOT, "sparse", RPCRDMA_NFS3_REG);
	CHECK(nfs3_fs_write(fs, g, 5u << 19, buf, 4096) == 0, "sparse write");
	count = 4096;
	ret = nfs3_fs_read_map(fs, g, 0, &count, &eof, &p, &pin);
	CHECK(ret == 0 && count == 4096, "a hole: copied");
	nfs3_fs_read_copy(fs, g, 0, 4096, out);
	CHECK(out[0] == 0 && out[4095] == 0, "a hole reads zeros");
	/* NOSPC: more than is left (2 MiB) writes and takes nothing */
	nfs3_fs_stats(fs, &st0);
	CHECK(st0.free_bytes == 2u << 20, "2 MiB left: %lu", (unsigned long)st0.free_bytes);
	CHECK(nfs3_fs_write(fs, g, (5u << 19) + 4096, buf, 4096) == 0,
	      "a write into g's block takes nothing");
	CHECK(nfs3_fs_write(fs, f, 1u << 20, buf, sizeof(buf)) == RPCRDMA_NFS3ERR_NOSPC, "NOSPC");
	nfs3_fs_stats(fs, &st);
	CHECK(st.free_bytes == st0.free_bytes, "nothing taken: %lu", (unsigned long)st.free_bytes);
	nfs3_fs_getattr(fs, f, &a);
	CHECK(a.size == 5000, "nothing written: size %lu", (unsigned long)a.size);
	CHECK(nfs3_fs_write(fs, g, AREA, buf, 1) == RPCRDMA_NFS3ERR_FBIG, "FBIG");
	CHECK(nfs3_fs_write(fs, NFS3_FS_ROOT, 0, buf, 1) == RPCRDMA_NFS3ERR_ISDIR, "ISDIR");
	/* a removed file's pinned block waits for its unpin */
	count = 4096;
	CHECK(nfs3_fs_read_map(fs, g, 5u << 19, &count, &eof, &p, &pin) == 1, "map");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "sparse", 6, false) == 0, "remove it");
	nfs3_fs_stats(fs, &st);
	CHECK(st.orphans == 1, "its block waits");
	nfs3_fs_unpin(fs, pin);
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "data", 4, false) == 0, "remove data");
	nfs3_fs_stats(fs, &st);
	CHECK(st.free_bytes == AREA && st.orphans == 0 && st.pinned == 0, "all free again: %lu",
	      (unsigned long)st.free_bytes);
	/* and merged back: the whole area in 1 MiB blocks */
	g = mk(NFS3_FS_ROOT, "full", RPCRDMA_NFS3_REG);
	CHECK(nfs3_fs_write(fs, g, 0, buf, 3u << 20) == 0 &&
		      nfs3_fs_write(fs, g, 3u << 20, buf, 1u << 20) == 0,
	      "the whole area in one file");
	nfs3_fs_stats(fs, &st);
	CHECK(st.free_bytes == 0, "nothing left");
	CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, "full", 4, false) == 0, "remove full");
}

static void check_inodes(void)
{
	struct nfs3_fs_stats st;
	uint64_t ino, last = 0;
	char name[16];
	uint32_t st1 = 0;
	unsigned int n;

	nfs3_fs_stats(fs, &st);
	for (n = 0; n < st.free_inodes + 1; n++) {
		snprintf(name, sizeof(name), "i%u", n);
		st1 = nfs3_fs_make(fs, NFS3_FS_ROOT, name, (uint32_t)strlen(name), RPCRDMA_NFS3_LNK,
				   0777, &cred, "t", 1, &ino);
		if (st1 != 0)
			break;
		last = ino;
	}
	CHECK(st1 == RPCRDMA_NFS3ERR_NOSPC && n == st.free_inodes, "inodes run out: %u after %u",
	      st1, n);
	CHECK(nfs3_fs_type(fs, last) == RPCRDMA_NFS3_LNK, "a link");
	while (n-- > 0) {
		snprintf(name, sizeof(name), "i%u", n);
		CHECK(nfs3_fs_remove(fs, NFS3_FS_ROOT, name, (uint32_t)strlen(name), false) == 0,
		      "remove %s", name);
	}
}

int main(void)
{
	struct nfs3_fs_params p = {
		.size = AREA,
		.max_inodes = 256,
		.secret = 0x1234567890abcdefull,
		.instance = 42,
		.fsid = 7,
	};

	p.data = aligned_alloc(4096, AREA);
	CHECK(nfs3_fs_create(&p, &fs) == 0, "create");
	if (fs == NULL)
		return test_summary("test_nfs3_fs");
	check_names();
	check_tree();
	check_handles();
	check_readdir();
	check_data();
	check_inodes();
	check_emptied_dir();
	nfs3_fs_free(fs);
	p.size = AREA + 4096;
	CHECK(nfs3_fs_create(&p, &fs) == -EINVAL && fs == NULL, "a size not in MiB");
	free(p.data);
	return test_summary("test_nfs3_fs");
}
