/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD: pure control-path translations (see verbs_xlate.h): device
 * arguments, addresses, access flags, the RNR timer encoding, and what to do
 * with each rdma_cm and asynchronous event. No device, no system call.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../pmd_devargs.h"
#include "verbs_xlate.h"

/* ---------------- device arguments ---------------- */

#define VALUE_MAX 128

enum devarg_key {
	KEY_DEV,
	KEY_IP,
	KEY_PORT,
	KEY_GID_INDEX,
	KEY_INLINE,
	KEY_MLX5DV,
	KEY_WR_API,
	KEY_CQ_EX,
	KEY_COUNT
};

static const char *const key_names[KEY_COUNT] = {
	[KEY_DEV] = "dev",	 [KEY_IP] = "ip",
	[KEY_PORT] = "port",	 [KEY_GID_INDEX] = "gid_index",
	[KEY_INLINE] = "inline", [KEY_MLX5DV] = "mlx5dv",
	[KEY_WR_API] = "wr_api", [KEY_CQ_EX] = "cq_ex",
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A decimal number in [min, max]: digits only, no sign, no leading blanks. */
static int parse_uint(const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t n = 0;
	const char *p;

	if (*v == '\0')
		return -EINVAL;
	for (p = v; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > max)
			return -EINVAL;
	}
	if (n < min)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

static int parse_mode(const char *v, enum verbs_mode *m)
{
	if (strcmp(v, "auto") == 0)
		*m = VERBS_MODE_AUTO;
	else if (strcmp(v, "on") == 0)
		*m = VERBS_MODE_ON;
	else if (strcmp(v, "off") == 0)
		*m = VERBS_MODE_OFF;
	else
		return -EINVAL;
	return 0;
}

static int set_mode(enum verbs_mode *m, enum devarg_key key, const char *v, char *err,
		    size_t errlen)
{
	if (parse_mode(v, m) < 0) {
		seterr(err, errlen, "%s=%s: expected auto, on or off", key_names[key], v);
		return -EINVAL;
	}
	return 0;
}

static bool dev_name_ok(const char *v, size_t max)
{
	size_t n = strlen(v), i;

	if (n == 0 || n >= max)
		return false;
	for (i = 0; i < n; i++) {
		char c = v[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

static int set_value(struct verbs_devargs *da, enum devarg_key key, const char *v, char *err,
		     size_t errlen)
{
	char aerr[96];
	uint32_t n;

	switch (key) {
	case KEY_DEV:
		if (!dev_name_ok(v, sizeof(da->dev))) {
			seterr(err, errlen, "dev=%s: not a device name (letters, digits, _-.)", v);
			return -EINVAL;
		}
		/* dev_name_ok(): shorter than da->dev, its NUL included */
		memcpy(da->dev, v, strlen(v) + 1);
		return 0;
	case KEY_IP:
		if (verbs_addr_parse(v, false, 0, &da->ip, aerr, sizeof(aerr)) < 0) {
			seterr(err, errlen, "ip=%s: %s", v, aerr);
			return -EINVAL;
		}
		da->has_ip = true;
		return 0;
	case KEY_PORT:
		if (parse_uint(v, 1, 255, &n) < 0) {
			seterr(err, errlen, "port=%s: expected a port number 1..255", v);
			return -EINVAL;
		}
		da->port = (uint8_t)n;
		return 0;
	case KEY_GID_INDEX:
		if (parse_uint(v, 0, 255, &n) < 0) {
			seterr(err, errlen, "gid_index=%s: expected 0..255", v);
			return -EINVAL;
		}
		da->gid_index = (int16_t)n;
		return 0;
	case KEY_INLINE:
		if (parse_uint(v, 0, RPCRDMA_VERBS_INLINE_MAX, &n) < 0) {
			seterr(err, errlen, "inline=%s: expected bytes 0..%u", v,
			       RPCRDMA_VERBS_INLINE_MAX);
			return -EINVAL;
		}
		da->inline_max = n;
		return 0;
	case KEY_MLX5DV:
		return set_mode(&da->mlx5dv, key, v, err, errlen);
	case KEY_WR_API:
		return set_mode(&da->wr_api, key, v, err, errlen);
	case KEY_CQ_EX:
		return set_mode(&da->cq_ex, key, v, err, errlen);
	default:
		return -EINVAL;
	}
}

/* The pairs of pmd_devargs_split(); the keys this PMD knows, each into @p da. */
int verbs_devargs_parse(const char *s, struct verbs_devargs *da, char *err, size_t errlen)
{
	char msg[256];
	struct rte_kvargs *kv;
	unsigned int i;
	int ret = 0;

	memset(da, 0, sizeof(*da));
	da->gid_index = -1;
	da->inline_max = RPCRDMA_VERBS_INLINE_DEFAULT;
	kv = pmd_devargs_split(s, msg, sizeof(msg));
	seterr(err, errlen, "%s", msg);
	if (kv == NULL)
		return msg[0] != '\0' ? -EINVAL : 0;
	for (i = 0; i < kv->count && ret == 0; i++) {
		const struct rte_kvargs_pair *pr = &kv->pairs[i];
		int key;

		for (key = 0; key < KEY_COUNT; key++)
			if (strcmp(key_names[key], pr->key) == 0)
				break;
		if (key == KEY_COUNT) {
			seterr(err, errlen,
			       "unknown key \"%s\" (known: dev, ip, port, gid_index, inline, "
			       "mlx5dv, wr_api, cq_ex)",
			       pr->key);
			ret = -EINVAL;
		} else if (strlen(pr->value) >= VALUE_MAX) {
			seterr(err, errlen, "%s=: too long a value", key_names[key]);
			ret = -EINVAL;
		} else {
			ret = set_value(da, (enum devarg_key)key, pr->value, err, errlen);
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

/* ---------------- addresses ---------------- */

int verbs_addr_parse(const char *s, bool allow_port, uint16_t default_port,
		     struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port = NULL, *colon;
	size_t hlen;
	uint32_t pn = default_port;
	bool v6;

	memset(ss, 0, sizeof(*ss));
	if (s == NULL || *s == '\0') {
		seterr(err, errlen, "empty address");
		return -EINVAL;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL) {
			seterr(err, errlen, "missing ']'");
			return -EINVAL;
		}
		hlen = (size_t)(close - s - 1);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0') {
			seterr(err, errlen, "expected ':PORT' after ']'");
			return -EINVAL;
		}
		s++;
		v6 = true;
	} else {
		colon = strchr(s, ':');
		if (colon != NULL && strchr(colon + 1, ':') != NULL) {
			hlen = strlen(s); /* a bare IPv6 address */
			v6 = true;
		} else {
			hlen = colon != NULL ? (size_t)(colon - s) : strlen(s);
			port = colon != NULL ? colon + 1 : NULL;
			v6 = false;
		}
	}
	if (hlen == 0 || hlen >= sizeof(host)) {
		seterr(err, errlen, "not a numeric IP address");
		return -EINVAL;
	}
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (port != NULL) {
		if (!allow_port) {
			seterr(err, errlen, "a port is not allowed here");
			return -EINVAL;
		}
		if (parse_uint(port, 1, 65535, &pn) < 0) {
			seterr(err, errlen, "port \"%s\": expected 1..65535", port);
			return -EINVAL;
		}
	}
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) {
			seterr(err, errlen, "\"%s\" is not a numeric IPv6 address", host);
			return -EINVAL;
		}
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)pn);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1) {
			seterr(err, errlen, "\"%s\" is not a numeric IPv4 address", host);
			return -EINVAL;
		}
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)pn);
	}
	return 0;
}

const char *verbs_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)sa;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)sa;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
	} else {
		snprintf(buf, len, "(family %u)", sa->sa_family);
	}
	return buf;
}

/* ---------------- memory ---------------- */

int verbs_access_to_ibv(uint32_t access)
{
	int f = 0;

	if (access & ~(RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE |
		       RPCRDMA_PMD_ACCESS_REMOTE_READ))
		return -EINVAL;
	if ((access & RPCRDMA_PMD_ACCESS_REMOTE_WRITE) &&
	    !(access & RPCRDMA_PMD_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & RPCRDMA_PMD_ACCESS_LOCAL_WRITE)
		f |= IBV_ACCESS_LOCAL_WRITE;
	if (access & RPCRDMA_PMD_ACCESS_REMOTE_WRITE)
		f |= IBV_ACCESS_REMOTE_WRITE;
	if (access & RPCRDMA_PMD_ACCESS_REMOTE_READ)
		f |= IBV_ACCESS_REMOTE_READ;
	return f;
}

/* ---------------- RNR NAK timer ---------------- */

/* IBTA table 45, in microseconds, by code; code 0 is the longest. */
static const uint32_t rnr_us[32] = {
	655360, 10,    20,    30,    40,    60,	    80,	    120,    160,    240,    320,
	480,	640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
	20480,	30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint8_t verbs_rnr_timer_code(uint32_t us)
{
	uint8_t c;

	for (c = 1; c < 32; c++)
		if (rnr_us[c] >= us)
			return c;
	return 0;
}

uint32_t verbs_rnr_timer_us(uint8_t code)
{
	return rnr_us[code & 31];
}

/* ---------------- events ---------------- */

int verbs_cm_status(uint32_t transport, enum rdma_cm_event_type type, int status)
{
	if (transport != RPCRDMA_PMD_TRANSPORT_IWARP || type != RDMA_CM_EVENT_REJECTED)
		return status;
	if (status == -ECONNRESET)
		return VERBS_REJ_CONSUMER_DEFINED;
	if (status == -ECONNREFUSED)
		return VERBS_REJ_INVALID_SERVICE_ID;
	return status;
}

enum verbs_cm_action verbs_cm_action(enum verbs_cm_role role, enum rdma_cm_event_type type,
				     int status)
{
	switch (role) {
	case VERBS_ROLE_LISTENER:
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
			return VERBS_CM_NEW_REQUEST;
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return VERBS_CM_DEVICE_REMOVAL;
		return VERBS_CM_IGNORE;
	case VERBS_ROLE_REQ:
		switch (type) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			return VERBS_CM_REQ_GONE;
		default:
			return VERBS_CM_IGNORE;
		}
	case VERBS_ROLE_RESOLVING:
		switch (type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			return VERBS_CM_RESOLVE_ROUTE;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			return VERBS_CM_CONNECT;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			return VERBS_CM_CONNECT_ERROR;
		default:
			return VERBS_CM_IGNORE;
		}
	case VERBS_ROLE_CONNECTING:
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_RESPONSE:
			return VERBS_CM_ESTABLISH;
		case RDMA_CM_EVENT_ESTABLISHED:
			return VERBS_CM_ESTABLISHED;
		case RDMA_CM_EVENT_REJECTED:
			/* only a reject the listener's user chose carries its private data */
			return status == VERBS_REJ_CONSUMER_DEFINED ? VERBS_CM_REJECTED
								    : VERBS_CM_CONNECT_ERROR;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			return VERBS_CM_CONNECT_ERROR;
		default:
			return VERBS_CM_IGNORE;
		}
	case VERBS_ROLE_ACCEPTED:
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			return VERBS_CM_ESTABLISHED;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			return VERBS_CM_CONNECT_ERROR;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			return VERBS_CM_DISCONNECTED;
		default:
			return VERBS_CM_IGNORE;
		}
	case VERBS_ROLE_UP:
		switch (type) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_ADDR_CHANGE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			return VERBS_CM_DISCONNECTED;
		default:
			return VERBS_CM_IGNORE;
		}
	case VERBS_ROLE_DOWN:
	default:
		return VERBS_CM_IGNORE;
	}
}

enum verbs_async_action verbs_async_action(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_PATH_MIG_ERR:
		return VERBS_ASYNC_QP_ERROR;
	case IBV_EVENT_COMM_EST:
		return VERBS_ASYNC_COMM_EST;
	case IBV_EVENT_CQ_ERR:
		return VERBS_ASYNC_CQ_ERROR;
	case IBV_EVENT_PORT_ERR:
		return VERBS_ASYNC_PORT_DOWN;
	case IBV_EVENT_DEVICE_FATAL:
		return VERBS_ASYNC_DEVICE_FATAL;
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return VERBS_ASYNC_SRQ_LIMIT;
	case IBV_EVENT_SRQ_ERR:
		return VERBS_ASYNC_SRQ_ERROR;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return VERBS_ASYNC_LOG;
	default: /* SQ_DRAINED, PATH_MIG, LAST_WQE_REACHED (an SRQ's QP in error), WQ events */
		return VERBS_ASYNC_IGNORE;
	}
}

static uint32_t nonneg(int v)
{
	return v < 0 ? 0 : (uint32_t)v;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

void verbs_dev_info_fill(const struct ibv_device_attr *da, enum ibv_node_type node,
			 enum ibv_transport_type transport, uint8_t link_layer, uint32_t inline_max,
			 const char *name, struct rpcrdma_pmd_dev_info *info)
{
	snprintf(info->dev_name, sizeof(info->dev_name), "%s", name);
	switch (transport) {
	case IBV_TRANSPORT_IB:
		info->transport = link_layer == IBV_LINK_LAYER_ETHERNET ? RPCRDMA_PMD_TRANSPORT_ROCE
									: RPCRDMA_PMD_TRANSPORT_IB;
		break;
	case IBV_TRANSPORT_IWARP:
		info->transport = RPCRDMA_PMD_TRANSPORT_IWARP;
		break;
	default:
		info->transport = RPCRDMA_PMD_TRANSPORT_OTHER;
		break;
	}
	info->node_type = node < 0 ? 0 : (uint32_t)node;
	/* ibv_reg_mr of the whole range: SEND_WITH_INV of its rkey is refused */
	info->flags = 0;
	if (info->transport == RPCRDMA_PMD_TRANSPORT_IB ||
	    info->transport == RPCRDMA_PMD_TRANSPORT_ROCE)
		info->flags |= RPCRDMA_PMD_DEV_RNR_RETRY | RPCRDMA_PMD_DEV_QP_RECONNECT;
	if (info->transport == RPCRDMA_PMD_TRANSPORT_IWARP)
		info->flags |= RPCRDMA_PMD_DEV_READ_SINK_REMOTE_WRITE;
	info->max_inline_data = inline_max;
	info->max_send_sge = min_u32(nonneg(da->max_sge), VERBS_SGE_MAX);
	/* 0: a provider that does not say; its send limit then */
	info->max_read_sge = da->max_sge_rd > 0
				     ? min_u32(nonneg(da->max_sge_rd), info->max_send_sge)
				     : info->max_send_sge;
	info->max_recv_sge = nonneg(da->max_sge);
	info->max_qp_wr = nonneg(da->max_qp_wr);
	info->max_cqe = nonneg(da->max_cqe);
	info->max_mr = nonneg(da->max_mr);
	info->max_qp = min_u32(nonneg(da->max_qp), VERBS_QP_INDEX_MAX);
	/* rdma_conn_param.initiator_depth is 8 bits */
	info->max_rdma_read_depth = min_u32(nonneg(da->max_qp_init_rd_atom), 255);
	info->max_mr_size = da->max_mr_size;
	info->vendor_id = da->vendor_id;
	info->vendor_part_id = da->vendor_part_id;
	info->max_srq = min_u32(nonneg(da->max_srq), VERBS_SRQ_INDEX_MAX);
	info->max_srq_wr = info->max_srq != 0 ? min_u32(nonneg(da->max_srq_wr), VERBS_WRID_SRQ) : 0;
	info->max_srq_sge = info->max_srq != 0 ? nonneg(da->max_srq_sge) : 0;
}
