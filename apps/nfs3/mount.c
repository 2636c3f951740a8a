/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3-server's MOUNT v3 service (RFC 1813 appendix I) on TCP, with
 * libtirpc's svc on a thread of its own: NULL, MNT and UMNT. It exports
 * "/" only: MNT "/" returns the root's handle and AUTH_SYS, any other
 * path MNT3ERR_NOENT. Registered with rpcbind when rpcbind answers on
 * 127.0.0.1:111; otherwise clients name the port (mount -o mountport=N).
 * libtirpc's svc keeps global state: this thread is its only user.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma_mount3.h>

#include "nfs3d.h"

#define POLL_MS 100 /* how soon the thread sees a stop */

struct nfs3d_mount {
	SVCXPRT *xprt;
	pthread_t thread;
	bool started, registered;
	volatile bool stop;
	uint16_t port;
	uint8_t fh[RPCRDMA_MOUNT3_FHSIZE];
	uint32_t fh_len;
};

/* The one instance: libtirpc's dispatch functions take no context. */
static struct nfs3d_mount *the_mount;

/* void (xdr_void's prototype takes no arguments: not an xdrproc_t) */
static bool_t xdr_none(XDR *x, void *p)
{
	return TRUE;
}

static bool_t xdr_dirpath3(XDR *x, char **path)
{
	return xdr_string(x, path, RPCRDMA_MOUNT3_PATHLEN);
}

struct mntres {
	uint32_t status;
	const uint8_t *fh;
	uint32_t fh_len;
};

/* mountres3: st [fhandle3 auth_flavors<>] */
static bool_t xdr_mntres(XDR *x, struct mntres *r)
{
	int flavor = RPCRDMA_RPC_AUTH_SYS;
	u_int len = r->fh_len;
	char *fh = (char *)(uintptr_t)r->fh;
	uint32_t n = 1;

	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status != RPCRDMA_MNT3_OK)
		return TRUE;
	return xdr_bytes(x, &fh, &len, RPCRDMA_MOUNT3_FHSIZE) && xdr_u_int(x, &n) &&
	       xdr_int(x, &flavor);
}

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct nfs3d_mount *m = the_mount;
	struct mntres r = { 0 };
	char *path = NULL;

	switch (rq->rq_proc) {
	case RPCRDMA_MOUNT3_NULL:
		svc_sendreply(x, (xdrproc_t)xdr_none, NULL);
		return;
	case RPCRDMA_MOUNT3_MNT:
	case RPCRDMA_MOUNT3_UMNT:
		if (!svc_getargs(x, (xdrproc_t)xdr_dirpath3, (caddr_t)&path)) {
			svcerr_decode(x);
			return;
		}
		if (rq->rq_proc == RPCRDMA_MOUNT3_UMNT) {
			svc_sendreply(x, (xdrproc_t)xdr_none, NULL);
		} else {
			r.status = strcmp(path, "/") == 0 ? RPCRDMA_MNT3_OK : RPCRDMA_MNT3ERR_NOENT;
			r.fh = m->fh;
			r.fh_len = m->fh_len;
			svc_sendreply(x, (xdrproc_t)xdr_mntres, (caddr_t)&r);
		}
		svc_freeargs(x, (xdrproc_t)xdr_dirpath3, (caddr_t)&path);
		return;
	default: /* DUMP, EXPORT, UMNTALL: not served */
		svcerr_noproc(x);
	}
}

/* Is rpcbind listening on this host? */
static bool rpcbind_runs(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(111) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool up;

	if (fd < 0)
		return false;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	up = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return up;
}

static void *mount_thread(void *arg)
{
	struct nfs3d_mount *m = arg;

	while (!m->stop) {
		int n = poll(svc_pollfd, (nfds_t)svc_max_pollfd, POLL_MS);

		if (n > 0)
			svc_getreq_poll(svc_pollfd, n);
	}
	return NULL;
}

int nfs3d_mount_start(uint16_t port, const uint8_t *fh, uint32_t len, bool quiet,
		      struct nfs3d_mount **out)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t alen = sizeof(a);
	struct nfs3d_mount *m;
	int fd, one = 1, ret;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	memcpy(m->fh, fh, len);
	m->fh_len = len;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, SOMAXCONN) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) != 0) {
		ret = -errno;
		fprintf(stderr, "nfs3-server: --mount-port %u: %s\n", port, strerror(errno));
		goto err_sock;
	}
	m->port = ntohs(a.sin_port);
	m->xprt = svctcp_create(fd, 0, 0);
	if (m->xprt == NULL) {
		ret = -ENOMEM;
		fprintf(stderr, "nfs3-server: MOUNT: svctcp_create failed\n");
		goto err_sock;
	}
	fd = -1; /* the transport's */
	the_mount = m;
	m->registered = rpcbind_runs();
	if (m->registered)
		svc_unregister(RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION);
	if (!svc_register(m->xprt, RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION, dispatch,
			  m->registered ? IPPROTO_TCP : 0)) {
		if (!m->registered) {
			ret = -EIO;
			fprintf(stderr, "nfs3-server: MOUNT: svc_register failed\n");
			goto err_xprt;
		}
		/* rpcbind refused (not root?): serve unregistered */
		fprintf(stderr,
			"nfs3-server: warning: rpcbind refused MOUNT's registration; "
			"clients need mountport=%u\n",
			m->port);
		m->registered = false;
		svc_register(m->xprt, RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION, dispatch, 0);
	} else if (!m->registered && !quiet) {
		printf("nfs3-server: rpcbind is not running: MOUNT is not registered "
		       "(clients use mountport=%u,mountproto=tcp)\n",
		       m->port);
	}
	ret = -pthread_create(&m->thread, NULL, mount_thread, m);
	if (ret) {
		fprintf(stderr, "nfs3-server: MOUNT thread: %s\n", strerror(-ret));
		goto err_reg;
	}
	m->started = true;
	*out = m;
	return 0;

err_reg:
	if (m->registered)
		svc_unregister(RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION);
err_xprt:
	svc_destroy(m->xprt);
err_sock:
	if (fd >= 0)
		close(fd);
	the_mount = NULL;
	free(m);
	return ret;
}

uint16_t nfs3d_mount_port(const struct nfs3d_mount *m)
{
	return m->port;
}

void nfs3d_mount_stop(struct nfs3d_mount *m)
{
	if (m == NULL)
		return;
	m->stop = true;
	if (m->started)
		pthread_join(m->thread, NULL);
	if (m->registered) /* otherwise rpcbind is not asked: it is not there */
		svc_unregister(RPCRDMA_MOUNT3_PROGRAM, RPCRDMA_MOUNT3_VERSION);
	svc_destroy(m->xprt);
	the_mount = NULL;
	free(m);
}
