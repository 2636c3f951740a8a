/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD: the pure translations (pmd/verbs/verbs_xlate.[ch]), without a
 * device: errno conversion, wr_id tags, send work requests, completion
 * status and flags, device arguments and their errors, addresses, access
 * flags, the RNR timer code, the rdma_cm and asynchronous event maps, and
 * the device capabilities of ibv_query_device.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <rpcrdma/rpcrdma_pmd_driver.h>

#include "verbs_xlate.h"

#include <stdio.h>

#include "test_check.h"

static void test_errno(void)
{
	CHECK_EQ(verbs_err(0), 0);
	CHECK_EQ(verbs_err(EINVAL), -EINVAL);  /* libibverbs: positive errno */
	CHECK_EQ(verbs_err(-ENOMEM), -ENOMEM); /* provider: negative errno */
	errno = EAGAIN;
	CHECK_EQ(verbs_err(-1), -EAGAIN); /* librdmacm: -1 and errno */
	errno = 0;
	CHECK_EQ(verbs_err(-1), -EIO); /* -1 without errno is still an error */
	errno = EADDRINUSE;
	CHECK_EQ(verbs_err_null(), -EADDRINUSE);
	errno = 0;
	CHECK_EQ(verbs_err_null(), -ENOMEM);
}

static void test_wrid(void)
{
	uint32_t tag = 0xbeef0000u | 0x1234u;
	uint64_t id = verbs_wrid(tag, true, 77);
	uint64_t sid = verbs_wrid(tag, false, VERBS_WRID_SLOT_MAX - 1);

	CHECK_EQ(verbs_wrid_tag(id), tag);
	CHECK_EQ(verbs_tag_index(tag), 0x1234);
	CHECK(verbs_wrid_is_recv(id));
	CHECK_EQ(verbs_wrid_slot(id), 77);
	CHECK(!verbs_wrid_is_recv(sid));
	CHECK_EQ(verbs_wrid_slot(sid), VERBS_WRID_SLOT_MAX - 1);
	CHECK_EQ(verbs_wrid_tag(sid), tag);
	CHECK(id != verbs_wrid(tag + 0x10000u, true, 77)); /* another generation */
}

static struct rpcrdma_pmd_send_wr mkwr(uint8_t op, uint8_t flags, struct rpcrdma_pmd_sge *s,
				       uint16_t n)
{
	struct rpcrdma_pmd_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 42;
	wr.opcode = op;
	wr.flags = flags;
	wr.sg_list = s;
	wr.num_sge = n;
	wr.invalidate_rkey = 0x11;
	wr.remote_addr = 0x1000;
	wr.rkey = 0x22;
	return wr;
}

static void test_send_xlate(void)
{
	struct rpcrdma_pmd_sge s[3] = {
		{ .addr = 0x10, .length = 40, .lkey = 1 },
		{ .addr = 0x20, .length = 24, .lkey = 2 },
		{ .addr = 0x30, .length = 0xffffffffu, .lkey = 3 },
	};
	struct rpcrdma_pmd_send_wr wr;
	struct verbs_swr x;

	/* SEND of 64 bytes at the inline limit: inline, signaled */
	wr = mkwr(RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, s, 2);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), 0);
	CHECK_EQ(x.opcode, IBV_WR_SEND);
	CHECK_EQ(x.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	CHECK_EQ(x.length, 64);
	CHECK_EQ(x.rkey, 0);
	CHECK_EQ(x.remote_addr, 0);
	CHECK_EQ(x.invalidate_rkey, 0);
	/* one byte over the limit: not inline */
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 63, &x), 0);
	CHECK_EQ(x.send_flags, IBV_SEND_SIGNALED);
	/* a zero-length SEND is never inline */
	wr = mkwr(RPCRDMA_PMD_WR_SEND, 0, s, 0);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), 0);
	CHECK_EQ(x.send_flags, 0);
	CHECK_EQ(x.length, 0);

	wr = mkwr(RPCRDMA_PMD_WR_SEND_WITH_INV, 0, s, 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 0, &x), 0);
	CHECK_EQ(x.opcode, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(x.invalidate_rkey, 0x11);
	CHECK_EQ(x.send_flags, 0); /* inline 0: never */
	CHECK_EQ(x.rkey, 0);

	wr = mkwr(RPCRDMA_PMD_WR_RDMA_WRITE, RPCRDMA_PMD_SEND_SIGNALED, s, 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), 0);
	CHECK_EQ(x.opcode, IBV_WR_RDMA_WRITE);
	CHECK_EQ(x.rkey, 0x22);
	CHECK_EQ(x.remote_addr, 0x1000);
	CHECK_EQ(x.invalidate_rkey, 0);
	CHECK_EQ(x.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);

	/* READ: data comes in, never inline */
	wr = mkwr(RPCRDMA_PMD_WR_RDMA_READ, RPCRDMA_PMD_SEND_SIGNALED, s, 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 1024, &x), 0);
	CHECK_EQ(x.opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(x.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(x.rkey, 0x22);
	CHECK_EQ(x.remote_addr, 0x1000);

	/* malformed */
	wr = mkwr(4, 0, s, 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), -EINVAL);
	wr = mkwr(RPCRDMA_PMD_WR_SEND, 0, s, 3);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 2, 2, 64, &x), -EINVAL); /* num_sge > max */
	wr = mkwr(RPCRDMA_PMD_WR_SEND, 0, s, VERBS_SGE_MAX + 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 64, 64, 64, &x), -EINVAL);
	wr = mkwr(RPCRDMA_PMD_WR_SEND, 0x2, s, 1); /* unknown flag */
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), -EINVAL);
	wr = mkwr(RPCRDMA_PMD_WR_RDMA_WRITE, 0, s, 3); /* 4 GiB + 63 bytes */
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 4, 64, &x), -EINVAL);
	/* an RDMA READ's SGL is bounded by max_read_sge (iWARP: 1), others' are not */
	wr = mkwr(RPCRDMA_PMD_WR_RDMA_READ, 0, s, 2);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 1, 64, &x), -EINVAL);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 2, 64, &x), 0);
	wr = mkwr(RPCRDMA_PMD_WR_RDMA_WRITE, 0, s, 2);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 4, 1, 64, &x), 0);
}

static void test_swr_to_ibv(void)
{
	struct rpcrdma_pmd_sge s[2] = {
		{ .addr = 0x10, .length = 40, .lkey = 1 },
		{ .addr = 0x20, .length = 24, .lkey = 2 },
	};
	struct rpcrdma_pmd_send_wr wr = mkwr(RPCRDMA_PMD_WR_SEND_WITH_INV, 1, s, 2);
	struct ibv_sge sge[2];
	struct ibv_send_wr out;
	struct verbs_swr x;

	CHECK_EQ(verbs_send_wr_xlate(&wr, 2, 2, 64, &x), 0);
	memset(&out, 0xa5, sizeof(out));
	verbs_swr_to_ibv(&x, &wr, 0x123456789ull, &out, sge);
	CHECK_EQ(out.wr_id, 0x123456789ull);
	CHECK(out.next == NULL);
	CHECK(out.sg_list == sge);
	CHECK_EQ(out.num_sge, 2);
	CHECK_EQ(out.opcode, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(out.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	CHECK_EQ(out.invalidate_rkey, 0x11);
	CHECK_EQ(out.wr.rdma.rkey, 0x11); /* where libsiw reads it */
	CHECK_EQ(sge[1].addr, 0x20);
	CHECK_EQ(sge[1].length, 24);
	CHECK_EQ(sge[1].lkey, 2);

	wr = mkwr(RPCRDMA_PMD_WR_RDMA_READ, 0, s, 1);
	CHECK_EQ(verbs_send_wr_xlate(&wr, 2, 2, 64, &x), 0);
	verbs_swr_to_ibv(&x, &wr, 7, &out, sge);
	CHECK_EQ(out.opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(out.send_flags, 0);
	CHECK_EQ(out.wr.rdma.rkey, 0x22);
	CHECK_EQ(out.wr.rdma.remote_addr, 0x1000);
	CHECK_EQ(out.num_sge, 1);
}

static void test_wc(void)
{
	static const struct {
		enum ibv_wc_status in;
		uint8_t out;
	} map[] = {
		{ IBV_WC_SUCCESS, RPCRDMA_PMD_WC_SUCCESS },
		{ IBV_WC_LOC_LEN_ERR, RPCRDMA_PMD_WC_LOC_LEN_ERR },
		{ IBV_WC_LOC_QP_OP_ERR, RPCRDMA_PMD_WC_LOC_QP_OP_ERR },
		{ IBV_WC_LOC_EEC_OP_ERR, RPCRDMA_PMD_WC_LOC_QP_OP_ERR },
		{ IBV_WC_LOC_PROT_ERR, RPCRDMA_PMD_WC_LOC_PROT_ERR },
		{ IBV_WC_WR_FLUSH_ERR, RPCRDMA_PMD_WC_WR_FLUSH_ERR },
		{ IBV_WC_MW_BIND_ERR, RPCRDMA_PMD_WC_LOC_PROT_ERR },
		{ IBV_WC_BAD_RESP_ERR, RPCRDMA_PMD_WC_REM_OP_ERR },
		{ IBV_WC_LOC_ACCESS_ERR, RPCRDMA_PMD_WC_LOC_PROT_ERR },
		{ IBV_WC_REM_INV_REQ_ERR, RPCRDMA_PMD_WC_REM_INV_REQ_ERR },
		{ IBV_WC_REM_ACCESS_ERR, RPCRDMA_PMD_WC_REM_ACCESS_ERR },
		{ IBV_WC_REM_OP_ERR, RPCRDMA_PMD_WC_REM_OP_ERR },
		{ IBV_WC_RETRY_EXC_ERR, RPCRDMA_PMD_WC_RETRY_EXC_ERR },
		{ IBV_WC_RNR_RETRY_EXC_ERR, RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR },
		{ IBV_WC_LOC_RDD_VIOL_ERR, RPCRDMA_PMD_WC_LOC_PROT_ERR },
		{ IBV_WC_REM_INV_RD_REQ_ERR, RPCRDMA_PMD_WC_REM_INV_REQ_ERR },
		{ IBV_WC_REM_ABORT_ERR, RPCRDMA_PMD_WC_REM_OP_ERR },
		{ IBV_WC_INV_EECN_ERR, RPCRDMA_PMD_WC_GENERAL_ERR },
		{ IBV_WC_INV_EEC_STATE_ERR, RPCRDMA_PMD_WC_GENERAL_ERR },
		{ IBV_WC_FATAL_ERR, RPCRDMA_PMD_WC_GENERAL_ERR },
		{ IBV_WC_RESP_TIMEOUT_ERR, RPCRDMA_PMD_WC_RETRY_EXC_ERR },
		{ IBV_WC_GENERAL_ERR, RPCRDMA_PMD_WC_GENERAL_ERR },
		{ (enum ibv_wc_status)200, RPCRDMA_PMD_WC_GENERAL_ERR },
	};
	struct rpcrdma_pmd_qp qp;
	struct rpcrdma_pmd_wc wc;
	unsigned int i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (verbs_wc_status(map[i].in) != map[i].out)
			fprintf(stderr, "status %d -> %u, want %u\n", map[i].in,
				verbs_wc_status(map[i].in), map[i].out);
		CHECK_EQ(verbs_wc_status(map[i].in), map[i].out);
	}
	/* the PMD's values are verbs' values where they exist */
	CHECK_EQ(RPCRDMA_PMD_WC_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR);
	CHECK_EQ(RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ(RPCRDMA_PMD_WC_WITH_INV, IBV_WC_WITH_INV);

	CHECK_EQ(rpcrdma_pmd_wc_opcode_of_wr(RPCRDMA_PMD_WR_SEND), RPCRDMA_PMD_WC_SEND);
	CHECK_EQ(rpcrdma_pmd_wc_opcode_of_wr(RPCRDMA_PMD_WR_SEND_WITH_INV), RPCRDMA_PMD_WC_SEND);
	CHECK_EQ(rpcrdma_pmd_wc_opcode_of_wr(RPCRDMA_PMD_WR_RDMA_WRITE), RPCRDMA_PMD_WC_RDMA_WRITE);
	CHECK_EQ(rpcrdma_pmd_wc_opcode_of_wr(RPCRDMA_PMD_WR_RDMA_READ), RPCRDMA_PMD_WC_RDMA_READ);

	memset(&qp, 0, sizeof(qp));
	qp.qp_num = 0x77;
	/* a receive of SEND_WITH_INV: flag and rkey; IMM and GRH flags are not the PMD's */
	verbs_wc_fill(&wc, 9, &qp, IBV_WC_SUCCESS, RPCRDMA_PMD_WC_RECV, 300,
		      IBV_WC_WITH_INV | IBV_WC_WITH_IMM | IBV_WC_GRH, 0xabc);
	CHECK_EQ(wc.wr_id, 9);
	CHECK(wc.qp == &qp);
	CHECK_EQ(wc.status, RPCRDMA_PMD_WC_SUCCESS);
	CHECK_EQ(wc.opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(wc.flags, RPCRDMA_PMD_WC_WITH_INV);
	CHECK_EQ(wc.byte_len, 300);
	CHECK_EQ(wc.invalidated_rkey, 0xabc);
	CHECK_EQ(wc.qp_num, 0x77);
	/* without WITH_INV the rkey field is not read */
	verbs_wc_fill(&wc, 9, &qp, IBV_WC_SUCCESS, RPCRDMA_PMD_WC_RECV, 300, IBV_WC_WITH_IMM,
		      0xabc);
	CHECK_EQ(wc.flags, 0);
	CHECK_EQ(wc.invalidated_rkey, 0);
	/* an error completion: only wr_id and status mean something */
	verbs_wc_fill(&wc, 10, &qp, IBV_WC_REM_ACCESS_ERR, RPCRDMA_PMD_WC_RDMA_WRITE, 999,
		      IBV_WC_WITH_INV, 5);
	CHECK_EQ(wc.status, RPCRDMA_PMD_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc.opcode, RPCRDMA_PMD_WC_RDMA_WRITE);
	CHECK_EQ(wc.byte_len, 0);
	CHECK_EQ(wc.flags, 0);
	CHECK_EQ(wc.invalidated_rkey, 0);
}

/* Parse @s and expect -EINVAL with @needle in the message. */
static void bad_devargs(const char *s, const char *needle)
{
	struct verbs_devargs da;
	char err[160];
	int ret = verbs_devargs_parse(s, &da, err, sizeof(err));

	if (ret != -EINVAL || strstr(err, needle) == NULL)
		fprintf(stderr, "devargs \"%s\": ret %d, message \"%s\", want \"%s\"\n", s, ret,
			err, needle);
	CHECK_EQ(ret, -EINVAL);
	CHECK(strstr(err, needle) != NULL);
}

static void test_devargs(void)
{
	struct verbs_devargs da;
	const struct sockaddr_in6 *a6;
	char err[160];

	CHECK_EQ(verbs_devargs_parse(NULL, &da, err, sizeof(err)), 0);
	CHECK_EQ(da.dev[0], '\0');
	CHECK(!da.has_ip);
	CHECK_EQ(da.port, 0);
	CHECK_EQ(da.gid_index, -1);
	CHECK_EQ(da.inline_max, RPCRDMA_VERBS_INLINE_DEFAULT);
	CHECK_EQ(da.mlx5dv, VERBS_MODE_AUTO);
	CHECK_EQ(da.wr_api, VERBS_MODE_AUTO);
	CHECK_EQ(da.cq_ex, VERBS_MODE_AUTO);
	CHECK_EQ(verbs_devargs_parse("", &da, err, sizeof(err)), 0);

	CHECK_EQ(verbs_devargs_parse("dev=mlx5_0,port=2,gid_index=3,inline=256,mlx5dv=off,"
				     "wr_api=on,cq_ex=off,ip=fe80::1",
				     &da, err, sizeof(err)),
		 0);
	CHECK(strcmp(da.dev, "mlx5_0") == 0);
	CHECK_EQ(da.port, 2);
	CHECK_EQ(da.gid_index, 3);
	CHECK_EQ(da.inline_max, 256);
	CHECK_EQ(da.mlx5dv, VERBS_MODE_OFF);
	CHECK_EQ(da.wr_api, VERBS_MODE_ON);
	CHECK_EQ(da.cq_ex, VERBS_MODE_OFF);
	CHECK(da.has_ip);
	a6 = (const struct sockaddr_in6 *)&da.ip;
	CHECK_EQ(a6->sin6_family, AF_INET6);
	CHECK_EQ(a6->sin6_port, 0);
	CHECK_EQ(a6->sin6_addr.s6_addr[0], 0xfe);
	CHECK_EQ(a6->sin6_addr.s6_addr[15], 1);
	CHECK_EQ(verbs_devargs_parse("inline=0,port=255,gid_index=0", &da, err, sizeof(err)), 0);
	CHECK_EQ(da.inline_max, 0);
	CHECK_EQ(da.port, 255);
	CHECK_EQ(da.gid_index, 0);
	CHECK_EQ(verbs_devargs_parse("ip=192.0.2.7", &da, err, sizeof(err)), 0);
	CHECK_EQ(((struct sockaddr_in *)&da.ip)->sin_addr.s_addr, htonl(0xc0000207));

	bad_devargs("bogus=1", "unknown key \"bogus\"");
	bad_devargs("mr_max=5", "unknown key \"mr_max\""); /* an shm argument */
	bad_devargs("dev", "expected key=value");
	bad_devargs("=x", "unknown key \"\"");
	bad_devargs(",", "empty item");
	bad_devargs("port=1,", "empty item");
	bad_devargs("port=1,,inline=0", "empty item");
	bad_devargs("port=1,port=2", "port= given twice");
	bad_devargs("dev=", "empty value");
	bad_devargs("port=0", "expected a port number 1..255");
	bad_devargs("port=256", "expected a port number 1..255");
	bad_devargs("port=-1", "expected a port number");
	bad_devargs("port=+1", "expected a port number");
	bad_devargs("port= 1", "expected a port number");
	bad_devargs("port=1x", "expected a port number");
	bad_devargs("port=99999999999999999999", "expected a port number");
	bad_devargs("gid_index=256", "expected 0..255");
	bad_devargs("inline=1025", "expected bytes 0..1024");
	bad_devargs("inline=4k", "expected bytes");
	bad_devargs("mlx5dv=yes", "mlx5dv=yes: expected auto, on or off");
	bad_devargs("wr_api=", "empty value");
	bad_devargs("cq_ex=ON", "expected auto, on or off");
	bad_devargs("dev=mlx5 0", "not a device name");
	bad_devargs("dev=a/b", "not a device name");
	bad_devargs("dev=0123456789012345678901234567890123456789012345678901234567890123",
		    "not a device name");
	bad_devargs("ip=192.0.2.1:4791", "a port is not allowed here");
	bad_devargs("ip=host.example", "not a numeric IPv4 address");
	bad_devargs("ip=1.2.3", "not a numeric IPv4 address");
}

static void good_addr(const char *s, int family, const char *str)
{
	struct sockaddr_storage ss;
	char err[96], buf[64];
	int ret = verbs_addr_parse(s, true, RPCRDMA_VERBS_PORT_DEFAULT, &ss, err, sizeof(err));

	CHECK_EQ(ret, 0);
	if (ret != 0) {
		fprintf(stderr, "address \"%s\": %s\n", s, err);
		return;
	}
	CHECK_EQ(ss.ss_family, family);
	verbs_addr_str((struct sockaddr *)&ss, buf, sizeof(buf));
	if (strcmp(buf, str) != 0)
		fprintf(stderr, "address \"%s\" -> \"%s\", want \"%s\"\n", s, buf, str);
	CHECK(strcmp(buf, str) == 0);
}

static void bad_addr(const char *s)
{
	struct sockaddr_storage ss;
	char err[96] = "";

	CHECK_EQ(verbs_addr_parse(s, true, RPCRDMA_VERBS_PORT_DEFAULT, &ss, err, sizeof(err)),
		 -EINVAL);
	CHECK(err[0] != '\0');
}

static void test_addr(void)
{
	good_addr("192.0.2.1:4791", AF_INET, "192.0.2.1:4791");
	good_addr("192.0.2.1", AF_INET, "192.0.2.1:20049");
	good_addr("0.0.0.0:1", AF_INET, "0.0.0.0:1");
	good_addr("[2001:db8::1]:65535", AF_INET6, "[2001:db8::1]:65535");
	good_addr("[::1]", AF_INET6, "[::1]:20049");
	good_addr("2001:db8::2", AF_INET6, "[2001:db8::2]:20049");
	bad_addr("");
	bad_addr(NULL);
	bad_addr("1.2.3");
	bad_addr("1.2.3.4:0");
	bad_addr("1.2.3.4:65536");
	bad_addr("1.2.3.4:80x");
	bad_addr("1.2.3.4:");
	bad_addr("[::1");
	bad_addr("[::1]x");
	bad_addr("[]:80");
	bad_addr("[1.2.3.4]:80");
	bad_addr("host.example:80");
	bad_addr("@rpcrdma-conf-1-0"); /* an shm address */
}

static void test_access(void)
{
	CHECK_EQ(verbs_access_to_ibv(0), 0);
	CHECK_EQ(verbs_access_to_ibv(RPCRDMA_PMD_ACCESS_LOCAL_WRITE), IBV_ACCESS_LOCAL_WRITE);
	CHECK_EQ(verbs_access_to_ibv(RPCRDMA_PMD_ACCESS_REMOTE_READ), IBV_ACCESS_REMOTE_READ);
	CHECK_EQ(verbs_access_to_ibv(RPCRDMA_PMD_ACCESS_LOCAL_WRITE |
				     RPCRDMA_PMD_ACCESS_REMOTE_WRITE |
				     RPCRDMA_PMD_ACCESS_REMOTE_READ),
		 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK_EQ(verbs_access_to_ibv(RPCRDMA_PMD_ACCESS_REMOTE_WRITE), -EINVAL);
	CHECK_EQ(verbs_access_to_ibv(0x8), -EINVAL);
	CHECK_EQ(verbs_access_to_ibv(0x80000000u | RPCRDMA_PMD_ACCESS_LOCAL_WRITE), -EINVAL);
}

static void test_rnr(void)
{
	uint32_t us;
	uint8_t prev = 1;

	CHECK_EQ(verbs_rnr_timer_code(0), 1);
	CHECK_EQ(verbs_rnr_timer_code(10), 1);
	CHECK_EQ(verbs_rnr_timer_code(11), 2);
	CHECK_EQ(verbs_rnr_timer_code(640), 12);
	CHECK_EQ(verbs_rnr_timer_code(641), 13);
	CHECK_EQ(verbs_rnr_timer_code(491520), 31);
	CHECK_EQ(verbs_rnr_timer_code(491521), 0);
	CHECK_EQ(verbs_rnr_timer_code(UINT32_MAX), 0);
	CHECK_EQ(verbs_rnr_timer_us(0), 655360);
	CHECK_EQ(verbs_rnr_timer_us(1), 10);
	CHECK_EQ(verbs_rnr_timer_us(31), 491520);
	/* the code chosen waits at least as long as asked, and no code between is shorter */
	for (us = 0; us <= 500000; us += 7) {
		uint8_t c = verbs_rnr_timer_code(us);

		if (c == 0)
			break;
		CHECK(verbs_rnr_timer_us(c) >= us);
		CHECK(c == 1 || verbs_rnr_timer_us((uint8_t)(c - 1)) < us);
		CHECK(c >= prev);
		prev = c;
	}
}

static void test_cm_map(void)
{
	/* listener */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_LISTENER, RDMA_CM_EVENT_CONNECT_REQUEST, 0),
		 VERBS_CM_NEW_REQUEST);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_LISTENER, RDMA_CM_EVENT_DEVICE_REMOVAL, 0),
		 VERBS_CM_DEVICE_REMOVAL);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_LISTENER, RDMA_CM_EVENT_ADDR_CHANGE, 0),
		 VERBS_CM_IGNORE);
	/* a request the user holds */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_REQ, RDMA_CM_EVENT_DISCONNECTED, 0), VERBS_CM_REQ_GONE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_REQ, RDMA_CM_EVENT_CONNECT_ERROR, 0),
		 VERBS_CM_REQ_GONE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_REQ, RDMA_CM_EVENT_DEVICE_REMOVAL, 0),
		 VERBS_CM_REQ_GONE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_REQ, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0), VERBS_CM_IGNORE);
	/* client: resolution */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_RESOLVING, RDMA_CM_EVENT_ADDR_RESOLVED, 0),
		 VERBS_CM_RESOLVE_ROUTE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_RESOLVING, RDMA_CM_EVENT_ROUTE_RESOLVED, 0),
		 VERBS_CM_CONNECT);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_RESOLVING, RDMA_CM_EVENT_ADDR_ERROR, -110),
		 VERBS_CM_CONNECT_ERROR);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_RESOLVING, RDMA_CM_EVENT_ROUTE_ERROR, -110),
		 VERBS_CM_CONNECT_ERROR);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_RESOLVING, RDMA_CM_EVENT_DEVICE_REMOVAL, 0),
		 VERBS_CM_CONNECT_ERROR);
	/* client: connecting */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_CONNECT_RESPONSE, 0),
		 VERBS_CM_ESTABLISH);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_REJECTED,
				 VERBS_REJ_CONSUMER_DEFINED),
		 VERBS_CM_REJECTED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_REJECTED,
				 VERBS_REJ_INVALID_SERVICE_ID),
		 VERBS_CM_CONNECT_ERROR); /* nobody listens there */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_UNREACHABLE, -110),
		 VERBS_CM_CONNECT_ERROR);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_CONNECT_ERROR, 0),
		 VERBS_CM_CONNECT_ERROR);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_ESTABLISHED, 0),
		 VERBS_CM_ESTABLISHED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_ADDR_RESOLVED, 0),
		 VERBS_CM_IGNORE);
	/* server: accepted */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_ACCEPTED, RDMA_CM_EVENT_ESTABLISHED, 0),
		 VERBS_CM_ESTABLISHED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_ACCEPTED, RDMA_CM_EVENT_CONNECT_ERROR, 0),
		 VERBS_CM_CONNECT_ERROR);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_ACCEPTED, RDMA_CM_EVENT_DISCONNECTED, 0),
		 VERBS_CM_DISCONNECTED);
	/* connected */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_UP, RDMA_CM_EVENT_DISCONNECTED, 0),
		 VERBS_CM_DISCONNECTED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_UP, RDMA_CM_EVENT_DEVICE_REMOVAL, 0),
		 VERBS_CM_DISCONNECTED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_UP, RDMA_CM_EVENT_ADDR_CHANGE, 0),
		 VERBS_CM_DISCONNECTED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_UP, RDMA_CM_EVENT_ESTABLISHED, 0), VERBS_CM_IGNORE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_UP, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0), VERBS_CM_IGNORE);
	/* down: nothing more happens */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_DOWN, RDMA_CM_EVENT_DISCONNECTED, 0), VERBS_CM_IGNORE);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_DOWN, RDMA_CM_EVENT_ESTABLISHED, 0), VERBS_CM_IGNORE);
}

/* iWARP's reject and refusal, in IB CM terms */
static void test_cm_status(void)
{
	const uint32_t iw = RPCRDMA_PMD_TRANSPORT_IWARP, roce = RPCRDMA_PMD_TRANSPORT_ROCE;

	CHECK_EQ(verbs_cm_status(iw, RDMA_CM_EVENT_REJECTED, -ECONNRESET),
		 VERBS_REJ_CONSUMER_DEFINED);
	CHECK_EQ(verbs_cm_status(iw, RDMA_CM_EVENT_REJECTED, -ECONNREFUSED),
		 VERBS_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(verbs_cm_status(iw, RDMA_CM_EVENT_REJECTED, -ETIMEDOUT), -ETIMEDOUT);
	CHECK_EQ(verbs_cm_status(iw, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET), -ECONNRESET);
	/* IB and RoCE report the CM's reason as it is */
	CHECK_EQ(verbs_cm_status(roce, RDMA_CM_EVENT_REJECTED, -ECONNRESET), -ECONNRESET);
	CHECK_EQ(verbs_cm_status(roce, RDMA_CM_EVENT_REJECTED, VERBS_REJ_CONSUMER_DEFINED),
		 VERBS_REJ_CONSUMER_DEFINED);
	/* the pair as the PMD uses it: an iWARP reject is the user's */
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_REJECTED,
				 verbs_cm_status(iw, RDMA_CM_EVENT_REJECTED, -ECONNRESET)),
		 VERBS_CM_REJECTED);
	CHECK_EQ(verbs_cm_action(VERBS_ROLE_CONNECTING, RDMA_CM_EVENT_REJECTED,
				 verbs_cm_status(iw, RDMA_CM_EVENT_REJECTED, -ECONNREFUSED)),
		 VERBS_CM_CONNECT_ERROR);
}

static void test_async_map(void)
{
	CHECK_EQ(verbs_async_action(IBV_EVENT_QP_FATAL), VERBS_ASYNC_QP_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_QP_REQ_ERR), VERBS_ASYNC_QP_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_QP_ACCESS_ERR), VERBS_ASYNC_QP_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_PATH_MIG_ERR), VERBS_ASYNC_QP_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_COMM_EST), VERBS_ASYNC_COMM_EST);
	CHECK_EQ(verbs_async_action(IBV_EVENT_CQ_ERR), VERBS_ASYNC_CQ_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_PORT_ERR), VERBS_ASYNC_PORT_DOWN);
	CHECK_EQ(verbs_async_action(IBV_EVENT_DEVICE_FATAL), VERBS_ASYNC_DEVICE_FATAL);
	CHECK_EQ(verbs_async_action(IBV_EVENT_PORT_ACTIVE), VERBS_ASYNC_LOG);
	CHECK_EQ(verbs_async_action(IBV_EVENT_GID_CHANGE), VERBS_ASYNC_LOG);
	CHECK_EQ(verbs_async_action(IBV_EVENT_LID_CHANGE), VERBS_ASYNC_LOG);
	CHECK_EQ(verbs_async_action(IBV_EVENT_SQ_DRAINED), VERBS_ASYNC_IGNORE);
	CHECK_EQ(verbs_async_action(IBV_EVENT_QP_LAST_WQE_REACHED), VERBS_ASYNC_IGNORE);
	CHECK_EQ(verbs_async_action(IBV_EVENT_SRQ_LIMIT_REACHED), VERBS_ASYNC_SRQ_LIMIT);
	CHECK_EQ(verbs_async_action(IBV_EVENT_SRQ_ERR), VERBS_ASYNC_SRQ_ERROR);
	CHECK_EQ(verbs_async_action(IBV_EVENT_PATH_MIG), VERBS_ASYNC_IGNORE);
}

/* An mlx5-like ConnectX device as ibv_query_device fills it. */
static void cx_attr(struct ibv_device_attr *da)
{
	memset(da, 0, sizeof(*da));
	da->max_mr_size = 0xffffffffffffffffull;
	da->max_qp = 262144;
	da->max_qp_wr = 32768;
	da->max_sge = 30;
	da->max_cq = 16777216;
	da->max_cqe = 4194303;
	da->max_mr = 16777216;
	da->max_qp_rd_atom = 16;
	da->max_qp_init_rd_atom = 16;
	da->phys_port_cnt = 1;
	da->vendor_id = 0x02c9;
	da->vendor_part_id = 4123;
	da->max_srq = 8388608;
	da->max_srq_wr = 32767;
	da->max_srq_sge = 31;
}

static void test_dev_info(void)
{
	struct rpcrdma_pmd_dev_info info;
	struct ibv_device_attr da;

	cx_attr(&da);
	memset(&info, 0xa5, sizeof(info));
	info.driver = "verbs";
	verbs_dev_info_fill(&da, IBV_NODE_CA, IBV_TRANSPORT_IB, IBV_LINK_LAYER_ETHERNET, 64,
			    "mlx5_0", &info);
	CHECK(strcmp(info.driver, "verbs") == 0); /* left to the common layer */
	CHECK(strcmp(info.dev_name, "mlx5_0") == 0);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_ROCE);
	CHECK_EQ(info.node_type, IBV_NODE_CA);
	/* whole-range MRs: no remote invalidation, not cheap; RoCE retries RNR */
	CHECK_EQ(info.flags, RPCRDMA_PMD_DEV_RNR_RETRY | RPCRDMA_PMD_DEV_QP_RECONNECT);
	CHECK_EQ(info.max_inline_data, 64);
	CHECK_EQ(info.max_send_sge, 30);
	CHECK_EQ(info.max_recv_sge, 30);
	CHECK_EQ(info.max_qp_wr, 32768);
	CHECK_EQ(info.max_cqe, 4194303);
	CHECK_EQ(info.max_mr, 16777216);
	CHECK_EQ(info.max_qp, VERBS_QP_INDEX_MAX); /* the PMD's wr_id tags bound it */
	CHECK_EQ(info.max_rdma_read_depth, 16);	   /* the initiator depth, not max_qp_rd_atom */
	CHECK_EQ(info.max_read_sge, 30);	   /* max_sge_rd 0: not said, max_send_sge */
	CHECK(info.max_mr_size == 0xffffffffffffffffull);
	CHECK_EQ(info.vendor_id, 0x02c9);
	CHECK_EQ(info.vendor_part_id, 4123);
	CHECK_EQ(info.max_srq, VERBS_SRQ_INDEX_MAX); /* the wr_id tags bound it too */
	CHECK_EQ(info.max_srq_wr, 32767);
	CHECK_EQ(info.max_srq_sge, 31);

	/* InfiniBand link layer; more SGEs than a PMD work request carries */
	da.max_sge = 64;
	da.max_qp_init_rd_atom = 4;
	da.max_qp_rd_atom = 64;
	da.max_qp = 100;
	verbs_dev_info_fill(&da, IBV_NODE_CA, IBV_TRANSPORT_IB, IBV_LINK_LAYER_INFINIBAND, 0,
			    "mlx5_1", &info);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_IB);
	CHECK_EQ(info.max_send_sge, VERBS_SGE_MAX);
	CHECK_EQ(info.max_recv_sge, 64);
	CHECK_EQ(info.max_rdma_read_depth, 4);
	CHECK_EQ(info.max_qp, 100);
	CHECK_EQ(info.flags, RPCRDMA_PMD_DEV_RNR_RETRY | RPCRDMA_PMD_DEV_QP_RECONNECT);
	CHECK_EQ(info.max_read_sge, VERBS_SGE_MAX); /* never over max_send_sge */
	da.max_sge_rd = 8;
	verbs_dev_info_fill(&da, IBV_NODE_CA, IBV_TRANSPORT_IB, IBV_LINK_LAYER_INFINIBAND, 0,
			    "mlx5_1", &info);
	CHECK_EQ(info.max_read_sge, 8);
	CHECK_EQ(info.max_inline_data, 0);

	/* iWARP (an RNIC), a device that reports nonsense, a long name */
	da.max_qp_wr = -1;
	da.max_cqe = -5;
	da.max_sge = -1;
	da.max_mr = -1;
	da.max_qp = -1;
	da.max_srq = -1;
	da.max_qp_init_rd_atom = 1000;
	verbs_dev_info_fill(&da, IBV_NODE_RNIC, IBV_TRANSPORT_IWARP, IBV_LINK_LAYER_ETHERNET, 0,
			    "iwp0s0123456789012345678901234567890123456789012345678901234567890",
			    &info);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_IWARP);
	CHECK_EQ(info.node_type, IBV_NODE_RNIC);
	/* iWARP: no receiver-not-ready retry; Read sinks written as tagged writes */
	CHECK_EQ(info.flags, RPCRDMA_PMD_DEV_READ_SINK_REMOTE_WRITE);
	CHECK_EQ(info.max_qp_wr, 0);
	CHECK_EQ(info.max_cqe, 0);
	CHECK_EQ(info.max_send_sge, 0);
	CHECK_EQ(info.max_recv_sge, 0);
	CHECK_EQ(info.max_mr, 0);
	CHECK_EQ(info.max_qp, 0);
	/* no SRQs: no SRQ limits either */
	CHECK_EQ(info.max_srq, 0);
	CHECK_EQ(info.max_srq_wr, 0);
	CHECK_EQ(info.max_srq_sge, 0);
	CHECK_EQ(info.max_rdma_read_depth, 255);
	CHECK_EQ(strlen(info.dev_name), sizeof(info.dev_name) - 1);

	/* a transport this build does not know */
	verbs_dev_info_fill(&da, IBV_NODE_UNSPECIFIED, IBV_TRANSPORT_UNSPECIFIED,
			    IBV_LINK_LAYER_UNSPECIFIED, 0, "x", &info);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_OTHER);
	CHECK_EQ(info.node_type, IBV_NODE_UNSPECIFIED);
}

int main(void)
{
	test_errno();
	test_wrid();
	test_send_xlate();
	test_swr_to_ibv();
	test_wc();
	test_devargs();
	test_addr();
	test_access();
	test_rnr();
	test_cm_map();
	test_cm_status();
	test_async_map();
	test_dev_info();
	return test_summary("verbs_xlate");
}
