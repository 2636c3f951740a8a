/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared set-up of the command-line programs (app_common.h).
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_telemetry.h>

#include "app_common.h"

const char *app_name = "rpcrdma";
static const char *app_usage; /* app_usage_lines(), or NULL */

void app_init(const char *name)
{
	app_name = name;
}

void app_usage_lines(const char *usage)
{
	app_usage = usage;
}

int app_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", app_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (app_usage)
		fprintf(stderr, "\n%s", app_usage);
	else
		fprintf(stderr, " (%s --help for more)\n", app_name);
	return APP_EXIT_USAGE;
}

void app_split_eal(int argc, char **argv, int *argc_opts, int *eal_argc, char ***eal_argv)
{
	*argc_opts = argc;
	*eal_argc = 0;
	*eal_argv = NULL;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			*argc_opts = i;
			*eal_argc = argc - i - 1;
			*eal_argv = argv + i + 1;
			return;
		}
}

int app_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, bool suffix,
		  uint64_t *out)
{
	unsigned long long v;
	const char *digits;
	uint64_t mul = 1;
	char *end;

	/* strtoull accepts a sign and leading blanks: refuse them */
	if (s[0] < '0' || s[0] > '9')
		return app_usage_error("%s: '%s' is not a number", opt, s);
	errno = 0;
	/* decimal, or hexadecimal with 0x (no octal: "010" is ten) */
	digits = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? s + 2 : s;
	v = strtoull(digits, &end, digits == s ? 10 : 16);
	if (end == digits || *digits == '-' || *digits == '+' || *digits == ' ')
		return app_usage_error("%s: '%s' is not a number", opt, s);
	if (errno == ERANGE)
		return app_usage_error("%s: '%s' is out of range %llu..%llu", opt, s,
				       (unsigned long long)lo, (unsigned long long)hi);
	if (suffix && end[0] != '\0' && end[1] == '\0') {
		switch (end[0]) {
		case 'k':
		case 'K':
			mul = 1ull << 10;
			end++;
			break;
		case 'm':
		case 'M':
			mul = 1ull << 20;
			end++;
			break;
		case 'g':
		case 'G':
			mul = 1ull << 30;
			end++;
			break;
		default:
			break;
		}
	}
	if (*end != '\0')
		return app_usage_error("%s: '%s' is not a number", opt, s);
	if (v > hi / mul || v * mul < lo)
		return app_usage_error("%s: %s is out of range %llu..%llu", opt, s,
				       (unsigned long long)lo, (unsigned long long)hi);
	*out = v * mul;
	return 0;
}

int app_parse_address(const char *opt, const char *s, const char **out)
{
	if (s[0] == '\0')
		return app_usage_error("%s: empty address", opt);
	*out = s;
	return 0;
}

int app_opts_init(struct app_opts *o, int argc, char **argv)
{
	int nopts;

	memset(o, 0, sizeof(*o));
	o->pmd = "shm";
	/* messages on stderr, before and after rte_eal_init() (the EAL's are on stdout) */
	rte_openlog_stream(stderr);
	app_split_eal(argc, argv, &nopts, &o->eal_argc, &o->eal_argv);
	opterr = 0;
	optind = 1;
	return nopts;
}

/* --log-level TYPE:LEVEL: applied at once, and by the EAL to types registered later */
static int parse_log_level(const char *arg)
{
	static const char *const names[] = { "emerg",	"alert",  "crit", "err",
					     "warning", "notice", "info", "debug" };
	const char *colon = strrchr(arg, ':');
	char type[128];
	size_t n;
	int level = -1;

	if (colon == NULL || colon == arg || colon[1] == '\0')
		return app_usage_error("--log-level: '%s' is not TYPE:LEVEL", arg);
	n = (size_t)(colon - arg);
	if (n >= sizeof(type))
		return app_usage_error("--log-level: the type of '%s' is too long", arg);
	memcpy(type, arg, n);
	type[n] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (strcmp(colon + 1, names[i]) == 0)
			level = (int)i + RTE_LOG_EMERG;
	if (level < 0) {
		if (colon[1] < '1' || colon[1] > '8' || colon[2] != '\0')
			return app_usage_error("--log-level: '%s' is not a level (emerg alert crit "
					       "err warning notice info debug, or 1-8)",
					       colon + 1);
		level = colon[1] - '0';
	}
	if (rte_log_set_level_pattern(type, (uint32_t)level) != 0)
		return app_usage_error("--log-level: cannot set '%s'", arg);
	return 0;
}

int app_opts_common(struct app_opts *o, int c, char **argv, const char *help)
{
	switch (c) {
	case APP_O_PMD:
		if (strcmp(optarg, "shm") != 0 && strcmp(optarg, "verbs") != 0)
			return app_usage_error("--pmd: '%s' is not one of shm, verbs", optarg);
		o->pmd = optarg;
		return 0;
	case APP_O_DEVARGS:
		o->devargs = optarg;
		return 0;
	case APP_O_LCORES:
		o->lcores = optarg;
		return 0;
	case APP_O_HELP:
	case 'h':
		fputs(help, stdout);
		return -1;
	case APP_O_LOG_LEVEL:
		return parse_log_level(optarg);
	case ':':
		return app_usage_error("option '%s' needs a value", argv[optind - 1]);
	default:
		return app_usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

int app_opts_end(int nopts, char **argv)
{
	if (optind < nopts)
		return app_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

struct eal_args {
	const char *argv0, *lcores;
	int argc; /* argv: argv0, then the user's after "--"; 0: the defaults */
	char *argv[64];
};

static int eal_init(const struct eal_args *a)
{
	if (a->argc == 0)
		return rpcrdma_mempool_eal_init(a->argv0, a->lcores);
	return rte_eal_init(a->argc, (char **)a->argv) < 0 ? -rte_errno : 0;
}

/*
 * The one line that says why the EAL refused to start, from what it
 * printed: getopt's complaint or its own last error, before its usage
 * text; not the "Detected" notes nor its generic "Invalid 'command line'
 * arguments" when something more precise came.
 */
static void eal_reason(FILE *f, const char *argv0, char *out, size_t len)
{
	char line[512];
	size_t n0 = strlen(argv0);

	out[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(p, "Usage:", 6) == 0)
			break;
		if (strncmp(p, argv0, n0) == 0 && p[n0] == ':')
			p += n0 + 1; /* getopt's "PROG: unrecognized option" */
		while (*p == ' ')
			p++;
		if (strncmp(p, "EAL: ", 5) == 0)
			p += 5;
		if (*p == '\0' || strncmp(p, "Detected ", 9) == 0 ||
		    (out[0] != '\0' && strstr(p, "Invalid 'command line' arguments") != NULL))
			continue;
		snprintf(out, len, "%s", p);
	}
}

/*
 * rte_eal_init() with what it prints held back: its log, and stdout and
 * stderr, where it prints its usage text (a hundred lines) and getopt's
 * complaint on a bad argument. On failure one line says why; on success
 * what it printed goes to stderr as it came.
 */
static int eal_init_quiet(const struct eal_args *a, char *why, size_t len)
{
	FILE *cap = tmpfile();
	int out, err, ret, saved_opterr;
	char buf[4096];
	size_t n;

	why[0] = '\0';
	if (cap == NULL)
		return eal_init(a);
	fflush(stdout);
	fflush(stderr);
	out = dup(1);
	err = dup(2);
	if (out < 0 || err < 0 || dup2(fileno(cap), 1) < 0 || dup2(fileno(cap), 2) < 0) {
		if (out >= 0)
			close(out);
		if (err >= 0)
			close(err);
		fclose(cap);
		return eal_init(a);
	}
	rte_openlog_stream(cap);
	saved_opterr = opterr;
	opterr = 1; /* getopt names the option the EAL does not know */
	ret = eal_init(a);
	opterr = saved_opterr;
	fflush(stdout);
	fflush(stderr);
	fflush(cap);
	rte_openlog_stream(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	rewind(cap);
	if (ret < 0) {
		eal_reason(cap, a->argv0, why, len);
	} else {
		while ((n = fread(buf, 1, sizeof(buf), cap)) > 0)
			fwrite(buf, 1, n, stderr);
	}
	fclose(cap);
	return ret;
}

int app_eal_start(const char *argv0, const char *lcores, int eal_argc, char **eal_argv)
{
	struct eal_args a = { argv0, lcores, 0, { NULL } };
	char why[512];
	int ret;

	if (eal_argc > 62) {
		fprintf(stderr, "%s: too many EAL arguments\n", app_name);
		return APP_EXIT_USAGE;
	}
	if (eal_argc > 0) {
		a.argc = eal_argc + 1;
		a.argv[0] = (char *)argv0;
		memcpy(a.argv + 1, eal_argv, sizeof(char *) * (size_t)eal_argc);
		a.argv[a.argc] = NULL;
	}
	ret = eal_init_quiet(&a, why, sizeof(why));
	if (ret == 0)
		return 0;
	fprintf(stderr, "%s: EAL: %s\n", app_name, why[0] ? why : strerror(-ret));
	/* EINVAL: the arguments (lcores, EAL options); anything else: the machine */
	return ret == -EINVAL ? APP_EXIT_USAGE : APP_EXIT_FAIL;
}

const char *app_one_cpu(bool last, char *buf, size_t len)
{
	cpu_set_t set;
	int pick = -1;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return NULL;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && (last || pick < 0))
			pick = cpu;
	if (pick < 0)
		return NULL;
	snprintf(buf, len, "%d", pick);
	return buf;
}

const char *app_all_cpus(uint32_t lcores, char *buf, size_t len)
{
	cpu_set_t set;
	size_t n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return NULL;
	n = (size_t)snprintf(buf, len, "(0-%u)@(", lcores);
	for (int cpu = 0; cpu < CPU_SETSIZE && n < len; cpu++)
		if (CPU_ISSET(cpu, &set))
			n += (size_t)snprintf(buf + n, len - n, "%d,", cpu);
	if (n >= len || buf[n - 1] != ',')
		return NULL;
	buf[n - 1] = ')';
	return buf;
}

int app_ep_open(struct app_ep *ep, const char *pmd, const char *devargs,
		struct rpcrdma_mempool_set_params *sp)
{
	int ret;

	memset(ep, 0, sizeof(*ep));
	ret = rpcrdma_pmd_dev_open(pmd, devargs, &ep->dev);
	if (ret) {
		ep->dev = NULL;
		if (strcmp(pmd, "verbs") == 0)
			fprintf(stderr, "%s: no RDMA device for --pmd verbs: %s\n", app_name,
				strerror(-ret));
		else
			fprintf(stderr, "%s: %s device: %s\n", app_name, pmd, strerror(-ret));
		return ret;
	}
	ret = rpcrdma_pmd_pd_alloc(ep->dev, &ep->pd);
	if (ret) {
		ep->pd = NULL;
		fprintf(stderr, "%s: protection domain: %s\n", app_name, strerror(-ret));
		return ret;
	}
	ret = rpcrdma_mempool_set_create(sp, ep->pd, &ep->pools);
	if (ret == -ENOMEM && !sp->no_hugepages && rpcrdma_mempool_eal_hugepages()) {
		fprintf(stderr,
			"%s: warning: not enough hugepages for the %s pools; using 4 KiB pages\n",
			app_name, sp->name);
		sp->no_hugepages = true;
		ret = rpcrdma_mempool_set_create(sp, ep->pd, &ep->pools);
	}
	if (ret) {
		ep->pools = NULL;
		fprintf(stderr, "%s: %s pools: %s\n", app_name, sp->name, strerror(-ret));
	} else if (rpcrdma_telemetry_pool_set_add(ep->pools) != 0) {
		fprintf(stderr, "%s: warning: the %s pools are not in telemetry\n", app_name,
			sp->name);
	}
	return ret;
}

void app_ep_close(struct app_ep *ep)
{
	if (ep->pools) {
		if (rpcrdma_mempool_set_check_all_back(ep->pools) != 0)
			fprintf(stderr, "%s: warning: buffers not back in their pools\n", app_name);
		rpcrdma_telemetry_pool_set_del(ep->pools);
		rpcrdma_mempool_set_free(ep->pools);
	}
	if (ep->pd)
		rpcrdma_pmd_pd_free(ep->pd);
	if (ep->dev)
		rpcrdma_pmd_dev_close(ep->dev);
	memset(ep, 0, sizeof(*ep));
}

static uint64_t app_tsc(void)
{
	return rte_rdtsc();
}

int app_ep_group(const struct app_ep *ep, uint32_t conns, uint32_t recvs, uint32_t calls,
		 struct rpcrdma_xprt_group **grp)
{
	struct rpcrdma_xprt_group_params gp;
	int ret;

	rpcrdma_xprt_group_params_init(&gp);
	gp.dev = ep->dev;
	gp.pd = ep->pd;
	gp.pools = ep->pools;
	gp.max_conns = conns;
	gp.recvs = recvs;
	gp.calls = calls;
	ret = rpcrdma_xprt_group_create(&gp, grp);
	if (ret) {
		*grp = NULL;
		fprintf(stderr, "%s: a poll group of %u connections: %s\n", app_name, conns,
			ret == -E2BIG ? "more than the device's CQ or SRQ can hold"
				      : strerror(-ret));
	}
	return ret;
}

uint32_t app_group_recvs(uint32_t conns, uint32_t share_min, uint32_t least)
{
	uint32_t r = conns * share_min;

	return r < least ? least : r > 4096 ? 4096 : r;
}

void app_conns_destroy(struct rpcrdma_xprt **slots, uint32_t max, struct rpcrdma_xprt_group *grp)
{
	for (uint32_t i = 0; slots != NULL && i < max; i++)
		if (slots[i] != NULL && rpcrdma_xprt_destroy(slots[i]) != 0)
			fprintf(stderr, "%s: warning: a connection could not be destroyed\n",
				app_name);
	if (grp != NULL && rpcrdma_xprt_group_destroy(grp) != 0)
		fprintf(stderr, "%s: warning: the poll group could not be destroyed\n", app_name);
}

uint32_t app_group_bufs(uint32_t conns, uint32_t recvs)
{
	uint32_t srq = conns + recvs + 64;

	return srq + (srq + 24) / 2 + 1 + srq + 24 + (conns + 32) / 2 + 1 + 64;
}

int app_accept_slot(const char *who, struct rpcrdma_xprt **slots, uint32_t max, uint32_t nconns,
		    const struct rpcrdma_xprt_params *p, const struct rpcrdma_pmd_event *ev)
{
	uint32_t i;
	int ret;

	for (i = 0; i < max && slots[i] != NULL; i++)
		;
	if (i == max) {
		fprintf(stderr,
			"%s: %u clients connected (--max-connections %u): one more refused\n", who,
			nconns, max);
		rpcrdma_pmd_reject(ev->req, NULL, 0);
		return -1;
	}
	/* the engine rejects the request itself on every error but -EINVAL */
	ret = rpcrdma_xprt_accept(p, ev, &slots[i]);
	if (ret) {
		slots[i] = NULL;
		if (ret == -EINVAL)
			rpcrdma_pmd_reject(ev->req, NULL, 0);
		fprintf(stderr, "%s: a client refused: cannot accept its connection: %s\n", who,
			ret == -ENOBUFS ? "no buffers left in the pools" : strerror(-ret));
		return -1;
	}
	return (int)i;
}

void app_conn_arrived(FILE *out, const char *who, uint64_t no, const struct rpcrdma_xprt *x,
		      uint32_t poller, uint32_t now)
{
	char peer[APP_PEER_LEN], on[32] = "";

	rpcrdma_pmd_peer_str(rpcrdma_xprt_peer(x), peer, sizeof(peer));
	if (poller != APP_NO_POLLER)
		snprintf(on, sizeof(on), "on poller %u ", poller);
	fprintf(out, "%s: client %lu connected from %s %s(%u connected now)\n", who,
		(unsigned long)no, peer, on, now);
	fflush(out);
}

void app_conn_left(FILE *out, const char *who, uint64_t no, uint64_t calls, uint32_t now)
{
	fprintf(out, "%s: client %lu left after %lu calls (%u connected now)\n", who,
		(unsigned long)no, (unsigned long)calls, now);
	fflush(out);
}

uint64_t app_rss_bytes(void)
{
	unsigned long size, res;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (f == NULL)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &res);
	fclose(f);
	return n == 2 ? (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/*
 * Record @p now connections: the baseline, once @p ready, if there is none
 * yet; else a new peak. @return true when it read the resident set.
 */
static bool conn_mem_note(struct app_conn_mem *m, uint32_t now, bool ready)
{
	if (m->first == 0 ? !ready : now <= m->peak)
		return false;
	m->rss_peak = app_rss_bytes();
	m->peak = now;
	if (m->first == 0) {
		m->first = now;
		m->rss_first = m->rss_peak;
	}
	return true;
}

void app_conn_mem_arrived(struct app_conn_mem *m, uint32_t now,
			  const struct rpcrdma_xprt_group *grp)
{
	struct rpcrdma_xprt_group_stats st;

	if (!conn_mem_note(m, now, true))
		return;
	m->engine_peak = 0;
	if (grp != NULL) {
		rpcrdma_xprt_group_stats(grp, &st);
		m->engine_peak = st.conn_bytes;
	}
}

void app_conn_mem_arrived_groups(struct app_conn_mem *m, uint32_t now, uint32_t ready,
				 uint32_t groups)
{
	conn_mem_note(m, now, ready >= groups);
}

void app_conn_mem_report(FILE *out, const char *who, const struct app_conn_mem *m)
{
	double more;

	if (m->first == 0 || m->peak <= m->first || m->rss_first == 0)
		return;
	more = ((double)m->rss_peak - (double)m->rss_first) / (m->peak - m->first);
	if (m->first == 1)
		fprintf(out, "%s: resident memory %.1f MiB with one connection", who,
			m->rss_first / 1048576.0);
	else
		fprintf(out,
			"%s: resident memory %.1f MiB with %u connections (a first on each poller)",
			who, m->rss_first / 1048576.0, m->first);
	fprintf(out, ", %.1f MiB with %u at once: %.1f KiB per connection more",
		m->rss_peak / 1048576.0, m->peak, more / 1024);
	if (m->engine_peak != 0)
		fprintf(out, " (%lu bytes each in the engine)",
			(unsigned long)(m->engine_peak / m->peak));
	fprintf(out, "\n");
}

void app_reconnects(const struct rpcrdma_xprt_stats *st, uint32_t nconns)
{
	if (st->reconnect_attempts == 0)
		return;
	if (nconns > 1)
		fprintf(stderr, "%s: the %u connections were made again", app_name, nconns);
	else
		fprintf(stderr, "%s: the connection was made again", app_name);
	fprintf(stderr, " %lu time(s) in %lu attempt(s); %lu call(s) sent again\n",
		(unsigned long)st->reconnects, (unsigned long)st->reconnect_attempts,
		(unsigned long)st->retransmits);
}

void app_xprt_reconnects(const struct rpcrdma_xprt *xprt)
{
	struct rpcrdma_xprt_stats st;

	rpcrdma_xprt_stats(xprt, &st);
	app_reconnects(&st, 1);
}

int app_svc_drc(struct rpcrdma_svc_registry *reg, uint32_t entries, uint32_t reply_max,
		struct rpcrdma_svc_drc **drc)
{
	struct rpcrdma_svc_drc_params dp;
	int ret;

	*drc = NULL;
	if (entries == 0)
		return 0;
	rpcrdma_svc_drc_params_init(&dp);
	dp.entries = entries;
	dp.reply_max = reply_max;
	ret = rpcrdma_svc_drc_create(&dp, drc);
	if (ret == 0)
		ret = rpcrdma_svc_drc_attach(reg, *drc);
	if (ret)
		fprintf(stderr, "%s: duplicate request cache: %s\n", app_name, strerror(-ret));
	return ret;
}

int app_svc_registry(const struct rpcrdma_svc_program *prog, uint32_t nb_slots,
		     struct rpcrdma_svc_registry **reg)
{
	struct rpcrdma_svc_params sp;
	int ret;

	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = nb_slots;
	/* service times in telemetry, on the TSC */
	sp.clock_hz = rte_get_tsc_hz();
	sp.clock = sp.clock_hz ? app_tsc : NULL;
	ret = rpcrdma_svc_registry_create(&sp, reg);
	if (ret) {
		*reg = NULL;
		return ret;
	}
	ret = rpcrdma_svc_register(*reg, prog);
	if (ret)
		return ret;
	/* per-program and per-procedure counters for dpdk-telemetry.py */
	if (rpcrdma_telemetry_svc_add(*reg) != 0)
		fprintf(stderr, "%s: warning: program %s is not in telemetry\n", app_name,
			prog->name);
	return 0;
}

void app_svc_registry_free(struct rpcrdma_svc_registry *reg)
{
	if (reg == NULL)
		return;
	rpcrdma_telemetry_svc_del(reg);
	rpcrdma_svc_registry_free(reg);
}
