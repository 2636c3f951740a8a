/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD through the public API, on a machine with or without an RDMA
 * device: the driver is registered under "verbs"; bad device arguments fail
 * with -EINVAL and say why before any device is looked at; without a device
 * dev_open fails with -ENODEV and says "no RDMA device found"; a device
 * name that does not exist fails with -ENODEV and names the devices there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_verbs.h>

#include "test_check.h"

static char logbuf[4096];

/* rpcrdma_pmd_dev_open() with stderr captured into logbuf. */
static int open_logged(const char *devargs, struct rpcrdma_pmd_dev **dev)
{
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	if (tmp == NULL)
		abort();
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = rpcrdma_pmd_dev_open(RPCRDMA_VERBS_DRIVER, devargs, dev);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(logbuf, 1, sizeof(logbuf) - 1, tmp);
	logbuf[n] = '\0';
	fclose(tmp);
	fprintf(stderr, "dev_open(verbs, \"%s\") = %d, logged: %s", devargs ? devargs : "", ret,
		logbuf[0] ? logbuf : "(nothing)\n");
	return ret;
}

static int device_count(void)
{
	int num = 0;
	struct ibv_device **l = ibv_get_device_list(&num);

	if (l == NULL)
		return 0;
	ibv_free_device_list(l);
	return num;
}

int main(void)
{
	struct rpcrdma_pmd_dev *dev = NULL;
	unsigned int i;
	bool found = false;
	int ndev = device_count();

	for (i = 0; i < rpcrdma_pmd_driver_count(); i++)
		if (strcmp(rpcrdma_pmd_driver_name(i), "verbs") == 0)
			found = true;
	CHECK(found);

	/* bad arguments: -EINVAL and the reason, device or not */
	CHECK_EQ(open_logged("bogus=1", &dev), -EINVAL);
	CHECK(strstr(logbuf, "rpcrdma pmd verbs: bad device arguments: unknown key \"bogus\"") !=
	      NULL);
	CHECK_EQ(open_logged("port=0", &dev), -EINVAL);
	CHECK(strstr(logbuf, "port=0: expected a port number 1..255") != NULL);
	CHECK_EQ(open_logged("mlx5dv=maybe", &dev), -EINVAL);
	CHECK(strstr(logbuf, "mlx5dv=maybe") != NULL);
	CHECK_EQ(open_logged("ip=192.0.2.1:4791", &dev), -EINVAL);
	CHECK(strstr(logbuf, "a port is not allowed here") != NULL);

	if (ndev == 0) {
		CHECK_EQ(open_logged(NULL, &dev), -ENODEV);
		CHECK(strstr(logbuf, "rpcrdma pmd verbs: no RDMA device found "
				     "(ibv_get_device_list returned 0 devices)") != NULL);
		CHECK_EQ(open_logged("dev=mlx5_0,inline=128", &dev), -ENODEV);
		CHECK(strstr(logbuf, "no RDMA device found") != NULL);
	} else {
		printf("note: %d RDMA device(s) here: the no-device checks are skipped\n", ndev);
		CHECK_EQ(open_logged("dev=rpcrdma_no_such_dev", &dev), -ENODEV);
		CHECK(strstr(logbuf, "no RDMA device named \"rpcrdma_no_such_dev\"") != NULL);
	}
	return test_summary("verbs_dev");
}
