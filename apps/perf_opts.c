/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's options (perf_opts.h): the help text and the parser.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_rt.h>

#include "perf_opts.h"
#include "perf_plot.h"
#include "perf_version.h"

#define PROG "rpcrdma-perf"

/* ------------------------------------------------------------ help */

static const char usage_line[] =
	"usage: " PROG
	" [--mode lat|iops|bw] [--op null|read|write] [-s|--size BYTES] [--depth N]\n"
	"       [--program test|nfs3 [--export PATH] [--mount-port N] [--dir PATH]\n"
	"       [--files N] [--verify]]\n"
	"       [--version 1|2] [--inline BYTES] [--pmd shm|verbs] [--server ADDR | --client "
	"ADDR]\n"
	"       [--address ADDR] [--connections N [--per-connection]]\n"
	"       [--max-connections N] [--clients K] [--pollers N]\n"
	"       [-D|--duration S | -n|--count N] [--repeat N] [--json FILE] [--hist FILE]\n"
	"       [--plot FILE] [--compare OLD.json] [-- EAL ARGS]\n"
	"       (" PROG " --help for more)\n";

static const char help_text[] =
	"NAME\n"
	"    " PROG " - latency, IOPS and bandwidth of RPCs over RPC-over-RDMA\n"
	"\n"
	"SYNOPSIS\n"
	"    " PROG " [OPTIONS] [-- EAL ARGS]\n"
	"    " PROG " --server ADDRESS [OPTIONS] [-- EAL ARGS]\n"
	"    " PROG " --client ADDRESS [OPTIONS] [-- EAL ARGS]\n"
	"    " PROG " --compare OLD.json --input NEW.json [--threshold PCT] [--plot FILE]\n"
	"    " PROG " --summary FILE.json...\n"
	"    " PROG " --program nfs3 --address ADDRESS --export PATH [--op OP] [OPTIONS]\n"
	"\n"
	"DESCRIPTION\n"
	"    Measures whole RPCs through the RPC-over-RDMA engine, as\n"
	"    perftest's ib_send_lat and ib_send_bw measure verbs. A client sends\n"
	"    calls of a test program (NULL, READ, WRITE) to a server; each call is\n"
	"    timed from submit to its reply callback, in nanoseconds, into a\n"
	"    log-linear histogram (HdrHistogram-like, within 1.6 %).\n"
	"\n"
	"    By default the server and the client run in this process over the\n"
	"    shm PMD: the server's connection is polled by a runtime poller on a\n"
	"    second lcore, the client's by the main lcore, each with its own\n"
	"    device and registered pools. With one lcore the main lcore polls both.\n"
	"    --server and --client split them into two processes.\n"
	"\n"
	"    At the end a summary table is printed: calls, seconds, calls/s, the\n"
	"    bandwidth in MB/s (10^6 bytes) and MiB/s (2^20 bytes, perftest's\n"
	"    \"MB/sec\"), and the latency's min, mean, stdev, p50, p90, p99, p99.9\n"
	"    and max in microseconds. On a terminal a progress line is printed\n"
	"    every second, and with --repeat a line per repetition on stderr.\n"
	"    A run too short to trust (a window under 0.1 s, or fewer than 20\n"
	"    calls per call in flight) gets a warning; a run stopped by SIGINT\n"
	"    or SIGTERM reports what it measured, marked as interrupted.\n"
	"\n"
	"    The short options are perftest's where they mean the same: -s the\n"
	"    message size, -n the iterations measured, -D the seconds measured;\n"
	"    -h help.\n"
	"\n"
	"OPTIONS\n"
	"    --mode lat|iops|bw\n"
	"        lat: one call at a time (default). iops: --depth calls in flight,\n"
	"        NULL calls unless --op says otherwise. bw: --depth calls in\n"
	"        flight moving --size bytes each (default --op read, --size 65536).\n"
	"    --op null|read|write|getattr|readdir\n"
	"        null: the NULL procedure. read: the reply carries --size bytes,\n"
	"        through a write chunk, or inline when it fits the inline\n"
	"        threshold. write: the call carries --size bytes, through a read\n"
	"        chunk, or inline when it fits (the engine decides). getattr and\n"
	"        readdir: --program nfs3 only.\n"
	"    --program test|nfs3\n"
	"        The RPC program called (default test: this tool's own, served by\n"
	"        this process or a --server). nfs3: NFS version 3 against any\n"
	"        NFS/RDMA server at --address or --client (knfsd on port 20049,\n"
	"        nfs3-server); no server runs here. --export gets the root file\n"
	"        handle with MOUNT v3 MNT over TCP from the server's host (shm:\n"
	"        this host), and UMNT at the end. The ops: null NULL; getattr\n"
	"        GETATTR of the export's root; read READ and write WRITE (UNSTABLE)\n"
	"        of --size bytes of a file the run CREATEs in the export's root\n"
	"        (rpcrdma-perf.HOST.PID; a block per call in flight, at most 16 MiB;\n"
	"        read WRITEs it first), REMOVEd at the end, also after an error or\n"
	"        SIGINT; readdir READDIRPLUS of --dir (32 KiB maxcount), each call\n"
	"        in flight walking the cookies to eof and starting again. A call\n"
	"        the server fails is reported by name (NFS3ERR_*, MNT3ERR_*, the\n"
	"        RPC's accept_stat) with the call that got it; exit 1.\n"
	"    --export PATH\n"
	"        The export to MOUNT (needed by every nfs3 op but null).\n"
	"    --mount-port N\n"
	"        MOUNT's TCP port (nfs3-server prints it); default: ask rpcbind on\n"
	"        the server's host (knfsd's mountd).\n"
	"    --dir PATH\n"
	"        readdir: the directory listed, under the export (LOOKUP of each\n"
	"        component; default the export's root).\n"
	"    --files N\n"
	"        readdir: MKDIR a directory (rpcrdma-perf.HOST.PID) under --dir with\n"
	"        N empty files, list it, and remove them all at the end.\n"
	"    --verify\n"
	"        nfs3: check every byte READ against what was written (a pattern\n"
	"        of the file offset); write READs the file back after the run;\n"
	"        readdir checks that every listing has the first one's entries.\n"
	"        Costs CPU on the client: do not compare its figures with runs\n"
	"        without it.\n"
	"    -s, --size BYTES\n"
	"        Payload of read and write, 0..1048576; a k or m suffix multiplies\n"
	"        by 1024 or 1048576 (default 4096 with --op read|write, 65536 in bw).\n"
	"    --depth N\n"
	"        Calls in flight in iops and bw modes, 1..256 (default 32).\n"
	"    --version 1|2\n"
	"        RPC-over-RDMA version (default 1). A client with 2 negotiates\n"
	"        with a NULL call before the run (version two draft section 5) and\n"
	"        falls back to version 1, with a warning, against a server that\n"
	"        answers ERR_VERS; the result names the version measured. A server\n"
	"        with 2 accepts versions 1 and 2; with 1, version 1 only.\n"
	"    --inline BYTES\n"
	"        The client's inline thresholds, sent to the server as RFC 8797\n"
	"        private data: the largest call it sends and reply it receives\n"
	"        without chunks, 1024..4096 (default: the version's default inline\n"
	"        threshold, 1024 in version 1, 4096 in version 2).\n"
	"    --pmd shm|verbs\n"
	"        The transport (default shm). verbs needs an RDMA device, and an\n"
	"        IP address: --server/--client, or --address in one process.\n"
	"    --server ADDRESS\n"
	"        Run only the server, listening on ADDRESS (shm: a UNIX socket path\n"
	"        or @name; verbs: IP[:PORT]). It serves up to --max-connections\n"
	"        client connections at once, from any number of clients, and exits\n"
	"        0 once --clients connections have come and gone and none is open\n"
	"        (by default when its client leaves, the last of its connections\n"
	"        closed), or on SIGINT or SIGTERM. On stderr it says when a\n"
	"        connection arrives, naming the client (its IP:PORT over verbs, its\n"
	"        pid over shm), and leaves (\"client 3 connected from\n"
	"        192.0.2.2:36021 (2 connected now)\", \"client 3 left after 400\n"
	"        calls (1 connected now)\"; not with --quiet), and refuses one\n"
	"        over the limit with a line. Its closing lines give its calls and\n"
	"        the resident memory its connections took: with the first (with\n"
	"        --pollers, once each poller has had one) and with the most at\n"
	"        once, and per connection between.\n"
	"    --max-connections N\n"
	"        --server: connections served at once, 1..1024 (default 64). One\n"
	"        more is refused (its connect request rejected): \"64 clients\n"
	"        connected (--max-connections 64): one more refused\". The inline\n"
	"        pool holds 112 buffers of 4 KiB per connection and 768 more (31 MiB\n"
	"        by default), and each connection is granted as many credits as it\n"
	"        has room for, up to 256, keeping room for 16 in every free slot: a\n"
	"        client alone gets 256, the last of N at least 16. A connection\n"
	"        that cannot get its buffers is refused with a line.\n"
	"    --clients K\n"
	"        --server: exit once K connections have come and gone and none is\n"
	"        open, 0..10^9 (default 1: when the client leaves, all its\n"
	"        --connections closed; 0: run until SIGINT or SIGTERM). A client\n"
	"        with --connections N counts N.\n"
	"    --pollers N\n"
	"        --server: poll the connections on N lcores, 1..16 (default 1: on\n"
	"        the main lcore). Each poller has a device, pools and a poll group\n"
	"        of its own; the first one listens and places each new connection\n"
	"        on the poller with the fewest (ties in turn), which accepts it on\n"
	"        its own device, so no lock is taken (\"client 3 connected from\n"
	"        pid 4242 on poller 1 (3 connected now)\"). --max-connections\n"
	"        counts them all. Without --lcores, the pollers and the main lcore\n"
	"        float over this process's CPUs.\n"
	"    --client ADDRESS\n"
	"        Run only the client, against a server at ADDRESS (it retries for\n"
	"        --timeout seconds while the server starts).\n"
	"    --address ADDRESS\n"
	"        The address of the in-process run (default shm @rpcrdma-perf-PID).\n"
	"    --connections N\n"
	"        Client: open N connections to the server, 1..1024 (default 1), all\n"
	"        polled by the client's lcore, and spread the calls over them:\n"
	"        --depth stays the calls in flight in total. With --depth N or more,\n"
	"        call slot i always uses connection i mod N (each connection carries\n"
	"        depth / N calls in flight, one more for the first depth mod N);\n"
	"        --depth N gives one call in flight per connection. With a --depth\n"
	"        under N (--mode lat: 1), each call goes on the next connection in\n"
	"        turn, so every connection carries calls, depth at a time. The table\n"
	"        is the total; after it a line gives the spread of the calls\n"
	"        measured per connection (min, median, max), and the JSON a\n"
	"        \"connections\" array: each connection's calls and p50, p99 and max\n"
	"        latency. A connection refused by the server fails the run.\n"
	"    --per-connection\n"
	"        With --connections: a line per connection after the table (its\n"
	"        calls, p50, p99 and max latency) instead of the spread.\n"
	"    --devargs ARGS\n"
	"        PMD device arguments (\"key=value,...\"; see the README).\n"
	"    -D, --duration SECONDS\n"
	"        Measure for SECONDS, 0.01..86400 (default 3).\n"
	"    -n, --count N\n"
	"        Measure N calls instead, 1..10^12.\n"
	"    --repeat N\n"
	"        Measure N times, 1..100 (default 1), on one connection: each\n"
	"        repetition a window of --duration or --count of its own, with its\n"
	"        own histogram. The table adds the median, min, max and stdev of\n"
	"        each figure across the repetitions; the JSON keeps every\n"
	"        repetition's figures (\"repeat\"). --compare needs them to\n"
	"        judge against the noise: 5 or more on both sides.\n"
	"    --warmup N\n"
	"        Calls before measuring starts, 0..10^9 (default 100).\n"
	"    --timeout SECONDS\n"
	"        How long to wait for a connection, for a reply, and for the close,\n"
	"        1..3600 (default 10).\n"
	"    --reconnect N\n"
	"        Client: when the connection is lost (the server restarted, the link\n"
	"        went down), connect again by itself, up to N attempts in a row\n"
	"        (0..1000; 1 ms after the loss, then twice as long each time, at most\n"
	"        1 s apart), and send every call in flight again with its XID; the\n"
	"        run goes on and says how often it reconnected. Default 0: a lost\n"
	"        connection ends the run (exit 1).\n"
	"    --lcores LIST\n"
	"        EAL lcores: CPUs (\"-l\" syntax, \"0,1\") or a map of lcores to\n"
	"        CPUs (\"--lcores\" syntax, \"(0-1)@0\"). Default: the first two CPUs\n"
	"        this process may run on; with --server the last one, with\n"
	"        --client the first one, so that a server and a client on one\n"
	"        host do not busy-poll the same CPU (give each process its own\n"
	"        CPUs when you choose them: two pollers sharing one CPU take turns\n"
	"        of the scheduler's time slice, milliseconds per call).\n"
	"    --json FILE\n"
	"        Write the result as JSON (\"-\": standard output, which then holds\n"
	"        the JSON alone: the table and the progress line go to standard\n"
	"        error). Schema version 1,\n"
	"        documented in scripts/perf_schema.json: schema_version, tool,\n"
	"        rpcrdma_version, git_commit (or null), host {hostname, kernel,\n"
	"        machine, cpu_model, cpus, tsc_hz, hugepages}, program, mode, op, pmd,\n"
	"        topology, version, size, depth, calls, errors, seconds,\n"
	"        calls_per_sec, bytes_per_sec (all repetitions together),\n"
	"        latency_ns {min, mean, stdev, p50, p90, p99, p999, max}, build,\n"
	"        lcores, capture, interrupted, warnings, repeat {count, each\n"
	"        repetition's figures, stats: their median, min, max, mean, stdev,\n"
	"        mad}, latency_distribution (HdrHistogram's percentile lines),\n"
	"        compare (with --compare), xprt {wrs, doorbells, short_msgs,\n"
	"        chunked_msgs, long_msgs, credit_stalls, reserve_stalls (calls that\n"
	"        waited for a receive of the --connections group's SRQ),\n"
	"        max_outstanding}.\n"
	"    --hist FILE\n"
	"        Write the latency histogram of every measured call: HdrHistogram's\n"
	"        percentile distribution (Value in microseconds, Percentile,\n"
	"        TotalCount, 1/(1-Percentile)), or, when FILE ends in .csv, its\n"
	"        buckets (lo_ns, hi_ns, count).\n"
	"    --plot FILE.png|FILE.svg\n"
	"        Draw the latency distribution with gnuplot (latency against the\n"
	"        percentile, as HdrHistogram plots it); with --compare, both runs'.\n"
	"    --compare OLD.json\n"
	"        After the run (or with --input, instead of it), judge each figure\n"
	"        against OLD.json and exit 3 on a regression. With repetitions on\n"
	"        both sides (--repeat 5 or more), as Google Benchmark's compare.py:\n"
	"        a figure is worse when the Mann-Whitney U test finds the two sets\n"
	"        of repetitions differ (p < --alpha) and its median moved the wrong\n"
	"        way by more than --threshold; calls/s, bytes/s, mean and p50..p99.9\n"
	"        are judged. Otherwise only calls/s, bytes/s and p50 are judged,\n"
	"        against --threshold, or three standard deviations of the side\n"
	"        that has repetitions when larger; tails are reported only. max is\n"
	"        never judged. Set-ups that differ (mode, op, size, depth, pmd,\n"
	"        lcores, hugepages, build, repeat count, host) are warned about.\n"
	"        A run must measure OLD.json's scenario (mode, op, size, depth,\n"
	"        version, pmd): another one is refused before it starts.\n"
	"    --input NEW.json\n"
	"        With --compare: compare this saved result; nothing is run.\n"
	"        --json FILE then writes the comparison alone.\n"
	"    --threshold PCT\n"
	"        The smallest change --compare calls a regression, 0..1000\n"
	"        percent (default 5).\n"
	"    --alpha P\n"
	"        The U test's significance level, 0.001..0.5 (default 0.05).\n"
	"    --summary\n"
	"        Print the summary table of the result files given as arguments.\n"
	"    --capture FILE.pcapng\n"
	"        Record the run's traffic as RoCEv2 packets for Wireshark and\n"
	"        rpcrdma-decode --pcap: the client's QP, and in one process the\n"
	"        server's as its peer (both are then polled by the main lcore);\n"
	"        with --server, each accepted QP (its first call is missed).\n"
	"        Every payload is copied into the file: capturing slows the run\n"
	"        down, so do not compare its figures with runs without it.\n"
	"    --quiet\n"
	"        No progress line and no table (errors and --compare still "
	"print).\n" APP_HELP_LOG_LEVEL "    -h, --help\n"
	"        This text.\n"
	"    -V, --tool-version\n"
	"        Print " PROG "'s version and the git commit it was built from,\n"
	"        and exit (--version is the RPC-over-RDMA version of the run).\n"
	"    -- EAL ARGS\n"
	"        Arguments for rte_eal_init(), replacing the defaults (--in-memory\n"
	"        or --no-huge, --no-pci, --no-telemetry, -l).\n"
	"\n"
	"EXIT STATUS\n"
	"    0  success\n"
	"    1  the run failed (setup, connection, a call failed or timed out)\n"
	"    2  bad options or arguments, or something not supported (an unknown\n"
	"       PMD)\n"
	"    3  --compare judged a regression\n"
	"\n"
	"EXAMPLES\n"
	"    " PROG " --mode lat --duration 2\n"
	"    " PROG " --mode iops --depth 64 --json iops.json\n"
	"    " PROG " --mode bw --op write --size 1m --count 2000\n"
	"    " PROG " --mode iops --repeat 5 -D 1 --json base.json\n"
	"    " PROG " --mode iops --repeat 5 -D 1 --compare base.json   # gate a CI job\n"
	"    " PROG " --server @perf &  " PROG " --client @perf --mode lat\n"
	"    nfs3-server --listen @nfs --mount-port 0 &   # prints MOUNT's port, N\n"
	"    " PROG " --program nfs3 --address @nfs --mount-port N --export / --op read \\\n"
	"        --size 1m --mode bw --verify\n"
	"    " PROG " --program nfs3 --pmd verbs --address SERVER:20049 --export /srv/x \\\n"
	"        --op getattr --mode iops --depth 32\n";

/* ------------------------------------------------------------ options */

/*
 * An unsigned integer in [lo, hi] with an optional k/m suffix (when allowed).
 * Not app_parse_u64(), which also takes hexadecimal and a g suffix and words
 * its errors differently: this tool's messages stay as its tests and users'
 * scripts read them.
 */
static int parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, bool suffix,
		      uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '\0')
		return app_usage_error("%s: '%s' is not a number", opt, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno == ERANGE)
		return app_usage_error("%s: '%s' is not a number in range %llu..%llu", opt, s,
				       (unsigned long long)lo, (unsigned long long)hi);
	if (suffix && (*end == 'k' || *end == 'K')) {
		mul = 1024;
		end++;
	} else if (suffix && (*end == 'm' || *end == 'M')) {
		mul = 1u << 20;
		end++;
	}
	if (*end != '\0')
		return app_usage_error("%s: '%s' is not a number", opt, s);
	if (v > hi / mul || v * mul < lo || v * mul > hi)
		return app_usage_error("%s: %s is out of range %llu..%llu", opt, s,
				       (unsigned long long)lo, (unsigned long long)hi);
	*out = v * mul;
	return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
		return app_usage_error("%s: '%s' is not a number", opt, s);
	if (v < lo || v > hi)
		return app_usage_error("%s: %s is out of range %g..%g", opt, s, lo, hi);
	*out = v;
	return 0;
}

static int parse_name(const char *opt, const char *s, const char *const *names, int n, int *out)
{
	char list[128];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
					"%s%s", i ? ", " : "", names[i]);
	return app_usage_error("%s: '%s' is not one of %s", opt, s, list);
}

enum {
	O_MODE = APP_O_NEXT,
	O_OP,
	O_SIZE,
	O_DEPTH,
	O_VERSION,
	O_INLINE,
	O_SERVER,
	O_CLIENT,
	O_ADDRESS,
	O_DURATION,
	O_COUNT,
	O_WARMUP,
	O_TIMEOUT,
	O_RECONNECT,
	O_JSON,
	O_COMPARE,
	O_INPUT,
	O_THRESHOLD,
	O_SUMMARY,
	O_QUIET,
	O_CAPTURE,
	O_REPEAT,
	O_ALPHA,
	O_HIST,
	O_PLOT,
	O_PROGRAM,
	O_EXPORT,
	O_DIR,
	O_MOUNT_PORT,
	O_VERIFY,
	O_FILES,
	O_CONNECTIONS,
	O_PER_CONNECTION,
	O_MAX_CONNECTIONS,
	O_CLIENTS,
	O_POLLERS,
	O_TOOL_VERSION = 'V',
};

static const struct option long_opts[] = {
	APP_LONG_OPTS,
	{ "mode", required_argument, NULL, O_MODE },
	{ "op", required_argument, NULL, O_OP },
	{ "size", required_argument, NULL, O_SIZE },
	{ "depth", required_argument, NULL, O_DEPTH },
	{ "version", required_argument, NULL, O_VERSION },
	{ "inline", required_argument, NULL, O_INLINE },
	{ "server", required_argument, NULL, O_SERVER },
	{ "client", required_argument, NULL, O_CLIENT },
	{ "address", required_argument, NULL, O_ADDRESS },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "count", required_argument, NULL, O_COUNT },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "reconnect", required_argument, NULL, O_RECONNECT },
	{ "json", required_argument, NULL, O_JSON },
	{ "compare", required_argument, NULL, O_COMPARE },
	{ "input", required_argument, NULL, O_INPUT },
	{ "threshold", required_argument, NULL, O_THRESHOLD },
	{ "summary", no_argument, NULL, O_SUMMARY },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "capture", required_argument, NULL, O_CAPTURE },
	{ "repeat", required_argument, NULL, O_REPEAT },
	{ "alpha", required_argument, NULL, O_ALPHA },
	{ "hist", required_argument, NULL, O_HIST },
	{ "plot", required_argument, NULL, O_PLOT },
	{ "program", required_argument, NULL, O_PROGRAM },
	{ "export", required_argument, NULL, O_EXPORT },
	{ "dir", required_argument, NULL, O_DIR },
	{ "mount-port", required_argument, NULL, O_MOUNT_PORT },
	{ "verify", no_argument, NULL, O_VERIFY },
	{ "files", required_argument, NULL, O_FILES },
	{ "connections", required_argument, NULL, O_CONNECTIONS },
	{ "per-connection", no_argument, NULL, O_PER_CONNECTION },
	{ "max-connections", required_argument, NULL, O_MAX_CONNECTIONS },
	{ "clients", required_argument, NULL, O_CLIENTS },
	{ "pollers", required_argument, NULL, O_POLLERS },
	{ "tool-version", no_argument, NULL, O_TOOL_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* -V, --tool-version: this program's version (--version is the protocol's). */
static void print_tool_version(void)
{
	if (strcmp(RPCRDMA_PERF_GIT, "unknown") == 0)
		printf(PROG " %s\n", RPCRDMA_PERF_VERSION);
	else
		printf(PROG " %s (git %s)\n", RPCRDMA_PERF_VERSION, RPCRDMA_PERF_GIT);
}

static const char *const program_names[2] = { "test", "nfs3" };

/* --program and the options that go with it. */
static int check_program(struct perf_opts *o)
{
	bool nfs3 = o->program == PERF_PROGRAM_NFS3;

	if (!nfs3 && (o->op == OP_GETATTR || o->op == OP_READDIR))
		return app_usage_error("--op %s: for --program nfs3", perf_op_names[o->op]);
	if (!nfs3 && (o->popts.export_path || o->popts.dir || o->popts.mount_port >= 0 ||
		      o->popts.files || o->verify))
		return app_usage_error("--export, --dir, --files, --mount-port and --verify are "
				       "for --program nfs3");
	if (!nfs3)
		return 0;
	if (o->role == ROLE_SERVER)
		return app_usage_error("--program nfs3 measures an NFS server: give its "
				       "address with --address or --client");
	if (o->addr == NULL)
		return app_usage_error("--program nfs3 needs the NFS server's address: "
				       "--address or --client");
	if (o->popts.export_path == NULL && o->op != OP_NULL)
		return app_usage_error("--op %s needs --export PATH (MOUNT's root handle)",
				       perf_op_names[o->op]);
	if ((o->popts.dir || o->popts.files) && o->op != OP_READDIR)
		return app_usage_error("--dir and --files are for --op readdir");
	if (o->verify && o->op != OP_READ && o->op != OP_WRITE && o->op != OP_READDIR)
		return app_usage_error("--verify is for --op read, write or readdir");
	/* the server is another process: this one is its client */
	o->role = ROLE_CLIENT;
	return 0;
}

int perf_opts_parse(struct perf_opts *o, int argc, char **argv)
{
	bool duration_set = false, role_set = false, judge_set = false, srv_set = false;
	uint64_t v;
	int c, n = 0, nopts, ret = 0;

	app_usage_lines(usage_line);
	memset(o, 0, sizeof(*o));
	o->mode = MODE_LAT;
	o->op = OP_NULL;
	o->depth = 32;
	o->version = 1;
	o->duration = 3;
	o->warmup = 100;
	o->timeout = 10;
	o->threshold = 5;
	o->alpha = 0.05;
	o->repeat = 1;
	o->popts.mount_port = -1;
	o->connections = 1;
	o->max_conns = PERF_SRV_CONNS;
	o->pollers = 1;
	o->clients = 1;
	nopts = app_opts_init(&o->com, argc, argv);
	while ((c = getopt_long(nopts, argv, ":hVs:n:D:", long_opts, NULL)) != -1) {
		switch (c) {
		case O_MODE:
			ret = parse_name("--mode", optarg, perf_mode_names, 3, &n);
			o->mode = (enum perf_mode)n;
			break;
		case O_OP:
			ret = parse_name("--op", optarg, perf_op_names, PERF_OP_N, &n);
			o->op = (enum perf_op)n;
			o->op_set = true;
			break;
		case O_SIZE:
		case 's': /* perftest's -s */
			ret = parse_uint("--size", optarg, 0, PERF_SIZE_MAX, true, &v);
			o->size = (uint32_t)v;
			o->size_set = true;
			break;
		case O_DEPTH:
			ret = parse_uint("--depth", optarg, 1, PERF_DEPTH_MAX, false, &v);
			o->depth = (uint32_t)v;
			o->depth_set = true;
			break;
		case O_VERSION:
			ret = parse_uint("--version", optarg, 1, 2, false, &v);
			o->version = (uint32_t)v;
			break;
		case O_INLINE:
			ret = parse_uint("--inline", optarg, RPCRDMA_V1_INLINE_DEFAULT,
					 RPCRDMA_V2_INLINE_DEFAULT, true, &v);
			o->inline_size = (uint32_t)v;
			break;
		case O_SERVER:
		case O_CLIENT:
			if (role_set)
				ret = app_usage_error("--server and --client: give one (a run in "
						      "one process needs neither)");
			else
				ret = app_parse_address(c == O_SERVER ? "--server" : "--client",
							optarg, &o->addr);
			o->role = c == O_SERVER ? ROLE_SERVER : ROLE_CLIENT;
			role_set = true;
			break;
		case O_ADDRESS:
			ret = app_parse_address("--address", optarg, &o->addr);
			break;
		case O_DURATION:
		case 'D': /* perftest's -D */
			ret = parse_double("--duration", optarg, 0.01, 86400, &o->duration);
			duration_set = true;
			break;
		case O_COUNT:
		case 'n': /* perftest's -n (iterations) */
			ret = parse_uint("--count", optarg, 1, 1000000000000ull, false, &o->count);
			break;
		case O_WARMUP:
			ret = parse_uint("--warmup", optarg, 0, 1000000000ull, false, &o->warmup);
			break;
		case O_TIMEOUT:
			ret = parse_uint("--timeout", optarg, 1, 3600, false, &v);
			o->timeout = (uint32_t)v;
			break;
		case O_RECONNECT:
			ret = parse_uint("--reconnect", optarg, 0, 1000, false, &v);
			o->reconnect = (uint32_t)v;
			break;
		case O_JSON:
			o->json = optarg;
			break;
		case O_COMPARE:
			o->compare = optarg;
			break;
		case O_INPUT:
			o->input = optarg;
			break;
		case O_THRESHOLD:
			ret = parse_double("--threshold", optarg, 0, 1000, &o->threshold);
			judge_set = true;
			break;
		case O_SUMMARY:
			o->summary = true;
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case O_TOOL_VERSION:
			print_tool_version();
			return -1;
		case O_PROGRAM:
			ret = parse_name("--program", optarg, program_names, 2, &n);
			o->program = (enum perf_program)n;
			break;
		case O_EXPORT:
			if (optarg[0] != '/' || strlen(optarg) > 1024)
				ret = app_usage_error(
					"--export: '%s' is not an absolute path of at "
					"most 1024 bytes",
					optarg);
			o->popts.export_path = optarg;
			break;
		case O_DIR:
			o->popts.dir = optarg;
			break;
		case O_MOUNT_PORT:
			ret = parse_uint("--mount-port", optarg, 1, 65535, false, &v);
			o->popts.mount_port = (int)v;
			break;
		case O_VERIFY:
			o->verify = true;
			break;
		case O_FILES:
			ret = parse_uint("--files", optarg, 1, 1000000, false, &v);
			o->popts.files = (uint32_t)v;
			break;
		case O_CONNECTIONS:
			ret = parse_uint("--connections", optarg, 1, PERF_CONN_MAX, false, &v);
			o->connections = (uint32_t)v;
			break;
		case O_PER_CONNECTION:
			o->per_connection = true;
			break;
		case O_MAX_CONNECTIONS:
			ret = parse_uint("--max-connections", optarg, 1, PERF_CONN_MAX, false, &v);
			o->max_conns = (uint32_t)v;
			srv_set = true;
			break;
		case O_CLIENTS:
			ret = parse_uint("--clients", optarg, 0, 1000000000ull, false, &v);
			o->clients = (uint32_t)v;
			srv_set = true;
			break;
		case O_POLLERS:
			ret = parse_uint("--pollers", optarg, 1, RPCRDMA_RT_POLLERS_MAX, false, &v);
			o->pollers = (uint32_t)v;
			srv_set = true;
			break;
		case O_CAPTURE:
			if (optarg[0] == '\0')
				ret = app_usage_error("--capture: empty file name");
			o->capture = optarg;
			break;
		case O_REPEAT:
			ret = parse_uint("--repeat", optarg, 1, PERF_REPEAT_MAX, false, &v);
			o->repeat = (uint32_t)v;
			break;
		case O_ALPHA:
			ret = parse_double("--alpha", optarg, 0.001, 0.5, &o->alpha);
			judge_set = true;
			break;
		case O_HIST:
			if (optarg[0] == '\0')
				ret = app_usage_error("--hist: empty file name");
			o->hist = optarg;
			break;
		case O_PLOT:
			if (perf_plot_terminal(optarg) == NULL)
				ret = app_usage_error("--plot: '%s' does not end in .png or .svg",
						      optarg);
			o->plot = optarg;
			break;
		default: /* --pmd, --devargs, --lcores, --help, or an error */
			ret = app_opts_common(&o->com, c, argv, help_text);
			break;
		}
		if (ret)
			return ret;
	}
	/* --summary's result files are the only operands */
	o->nfiles = nopts - optind;
	o->files = argv + optind;
	if (o->summary && (o->compare || o->hist || o->plot))
		return app_usage_error("--summary prints results: --compare, --hist and --plot "
				       "are for a run or --input");
	if (o->summary)
		return o->nfiles > 0 ? 0 : app_usage_error("--summary: give result files");
	ret = app_opts_end(nopts, argv);
	if (ret)
		return ret;
	if (o->input && !o->compare)
		return app_usage_error("--input needs --compare OLD.json");
	if (judge_set && !o->compare)
		return app_usage_error("--threshold and --alpha are for --compare");
	if (o->input && (o->hist || o->repeat > 1 || o->capture))
		return app_usage_error("--input runs nothing: --hist, --repeat and --capture are "
				       "for a run");
	if (o->input)
		return 0;
	if (duration_set && o->count)
		return app_usage_error("--duration and --count: give one");
	if (o->count)
		o->duration = 0;
	if (o->mode == MODE_LAT && o->depth_set && o->depth != 1)
		return app_usage_error("--depth: --mode lat runs one call at a time");
	if (o->mode == MODE_LAT)
		o->depth = 1;
	if (o->mode == MODE_BW && !o->op_set)
		o->op = OP_READ;
	if (o->mode == MODE_BW && !perf_op_has_payload(o->op))
		return app_usage_error("--mode bw needs --op read or write");
	if (!perf_op_has_payload(o->op) && o->size_set && o->size != 0)
		return app_usage_error("--size: --op %s carries no payload (use --op "
				       "read|write)",
				       perf_op_names[o->op]);
	ret = check_program(o);
	if (ret)
		return ret;
	if (perf_op_has_payload(o->op) && !o->size_set)
		o->size = o->mode == MODE_BW ? 65536 : 4096;
	if (strcmp(o->com.pmd, "verbs") == 0 && o->addr == NULL)
		return app_usage_error("--pmd verbs needs an IP address: --server, --client or "
				       "--address");
	if (o->role == ROLE_SERVER && (o->json || o->compare))
		return app_usage_error("--json and --compare are for the client side");
	if (o->role == ROLE_SERVER && o->reconnect)
		return app_usage_error("--reconnect is for the client side");
	if (o->role == ROLE_SERVER && (o->hist || o->plot || o->repeat > 1))
		return app_usage_error("--hist, --plot and --repeat are for the client side");
	if (o->role == ROLE_SERVER && (o->connections > 1 || o->per_connection))
		return app_usage_error("--connections and --per-connection are for the client "
				       "side");
	if (o->role != ROLE_SERVER && srv_set)
		return app_usage_error("--max-connections, --clients and --pollers are for "
				       "--server");
	if (o->pollers > 1 && o->capture)
		return app_usage_error("--capture records one poller's connections: not with "
				       "--pollers");
	if (o->per_connection && o->connections == 1)
		return app_usage_error("--per-connection needs --connections N (2 or more)");
	if (o->connections > 1 && o->capture)
		return app_usage_error("--capture records one connection: not with "
				       "--connections");
	return 0;
}
