/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt forms, and v2forms (both ends in version 2): every message
 * form (RFC 8166 3.5: Short, Chunked, Long) of calls and replies, read
 * chunks, 1 and 3 write chunks, reply chunks, with payloads checked byte
 * for byte, with and without per-call registrations and Send With
 * Invalidate; the counters of each side say which form went.
 */
#include "test_xprt.h"

/* What a form case expects of its call and reply. */
struct form_want {
	char call, reply; /* the form (RFC 8166 3.5): 'S'hort, 'C'hunked or 'L'ong */
	bool long_reply;  /* the client offered a reply chunk */
	bool swi;	  /* the reply uses Send With Invalidate (per-call MRs only) */
};

struct form_case {
	const char *name;
	struct tcall t;
	uint32_t cli_flags;
	struct form_want want;
};

static void test_forms_with(const char *label, uint32_t base_flags)
{
	const struct form_case cases[] = {
		{ "short",
		  { .proc = PROC_TEST, .words = 10, .nitems = 1, .item_len = { 100 }, .rwords = 5 },
		  DEF_FLAGS,
		  { 'S', 'S', false, false } },
		{ "chunked, read chunks",
		  { .proc = PROC_TEST, .words = 3, .nitems = 3, .item_len = { 40000, 1, 7001 } },
		  DEF_FLAGS,
		  { 'C', 'S', false, false } },
		{ "1 write chunk, SWI", TCALL_WRITE1, DEF_FLAGS, { 'S', 'C', false, true } },
		{ "1 write chunk, no SWI",
		  TCALL_WRITE1,
		  RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS,
		  { 'S', 'C', false, false } },
		{ "3 write chunks", TCALL_WRITE3, DEF_FLAGS, { 'S', 'C', false, false } },
		{ "read and write chunks, async reply",
		  { .proc = PROC_TEST,
		    .words = 3,
		    .nitems = 2,
		    .item_len = { 2000, 3001 },
		    .nres = 2,
		    .res_len = { 1000, 999 },
		    .res_chunks = true,
		    .rwords = 2,
		    .mode = MODE_ASYNC },
		  DEF_FLAGS,
		  { 'C', 'C', false, false } },
		/* one registration, the message: one rkey covers it, so SWI */
		{ "long call, SWI",
		  { .proc = PROC_TEST, .words = 800, .rwords = 2 },
		  DEF_FLAGS,
		  { 'L', 'S', false, true } },
		{ "long reply",
		  { .proc = PROC_TEST, .words = 2, .rwords = 900 },
		  DEF_FLAGS,
		  { 'S', 'L', true, true } },
		/* 48 KiB of results: the server's stream is a chunk buffer, not its 4 KiB inline one */
		{ "long reply over an inline buffer",
		  { .proc = PROC_TEST, .words = 2, .rwords = 12000 },
		  DEF_FLAGS,
		  { 'S', 'L', true, true } },
		{ "long call + long reply",
		  { .proc = PROC_TEST,
		    .words = 800,
		    .nitems = 1,
		    .item_len = { 3 },
		    .rwords = 900 },
		  DEF_FLAGS,
		  { 'L', 'L', true, false } },
		{ "long call + long reply, no SWI",
		  { .proc = PROC_TEST, .words = 800, .rwords = 900 },
		  RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS,
		  { 'L', 'L', true, false } },
		{ "results inline without write chunks",
		  { .proc = PROC_TEST, .words = 2, .nres = 2, .res_len = { 100, 33 }, .rwords = 1 },
		  DEF_FLAGS,
		  { 'S', 'S', false, false } },
	};
	struct rpcrdma_xprt_stats c0, c1, s0, s1;
	unsigned int i;
	struct env e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct form_case *fc = &cases[i];
		struct tcall t = fc->t;
		uint32_t flags = fc->cli_flags & base_flags;
		uint32_t kept = flags_kept(test_side_dev_info(), flags);
		bool swi = fc->want.swi && (kept & RPCRDMA_XPRT_F_REMOTE_INV);

		if (!env_open(&e, NULL, NULL))
			return;
		cli_params(&e, flags);
		/* 2 KiB Sends, so a Long Call fits the 4 KiB inline buffer */
		e.cli.params.send_inline = 2048;
		e.cli.params.recv_inline = 2048;
		if (!env_connect(&e)) {
			env_close(&e);
			return;
		}
		stats(&e.cli, &c0);
		stats(&e.srv, &s0);
		if (t.mode & MODE_ASYNC) {
			CHECK(tcall_submit(&e, &t) == 0, "%s: submit", fc->name);
			/* the server has the call (its chunks read) and holds the reply */
			CHECK(pump_until(&e, srv_holds, NULL), "%s: call held", fc->name);
			for (int k = 0; k < 50; k++)
				pump_once(&e);
			CHECK(!t.done && sctx.async_n == 1, "%s: reply held", fc->name);
			srv_flush_async(&sctx);
			CHECK(pump_until(&e, tcall_done, &t), "%s: async reply", fc->name);
		} else {
			run_call(&e, &t);
		}
		CHECK(t.status == 0 && t.ok && sctx.bad == 0,
		      "%s (%s): status %d, reply %s, server saw %u bad", fc->name, label, t.status,
		      t.ok ? "ok" : "bad", sctx.bad);
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.short_msgs - c0.short_msgs == (fc->want.call == 'S') &&
			      c1.chunked_msgs - c0.chunked_msgs == (fc->want.call == 'C') &&
			      c1.long_msgs - c0.long_msgs == (fc->want.call == 'L'),
		      "%s (%s): call form S%lu C%lu L%lu", fc->name, label,
		      (unsigned long)(c1.short_msgs - c0.short_msgs),
		      (unsigned long)(c1.chunked_msgs - c0.chunked_msgs),
		      (unsigned long)(c1.long_msgs - c0.long_msgs));
		CHECK(s1.short_msgs - s0.short_msgs == (fc->want.reply == 'S') &&
			      s1.chunked_msgs - s0.chunked_msgs == (fc->want.reply == 'C') &&
			      s1.long_msgs - s0.long_msgs == (fc->want.reply == 'L'),
		      "%s (%s): reply form S%lu C%lu L%lu", fc->name, label,
		      (unsigned long)(s1.short_msgs - s0.short_msgs),
		      (unsigned long)(s1.chunked_msgs - s0.chunked_msgs),
		      (unsigned long)(s1.long_msgs - s0.long_msgs));
		CHECK(c1.long_replies - c0.long_replies == fc->want.long_reply,
		      "%s: reply chunk offered", fc->name);
		CHECK(s1.send_inv - s0.send_inv == swi && c1.send_inv - c0.send_inv == swi,
		      "%s (%s): SWI %lu/%lu, want %d", fc->name, label,
		      (unsigned long)(s1.send_inv - s0.send_inv),
		      (unsigned long)(c1.send_inv - c0.send_inv), swi);
		if (kept & RPCRDMA_XPRT_F_PER_CALL_MR)
			CHECK(c1.mr_regs - c0.mr_regs ==
				      c1.mr_invalidates - c0.mr_invalidates + (swi ? 1 : 0),
			      "%s: every registration invalidated (%lu regs, %lu inv)", fc->name,
			      (unsigned long)(c1.mr_regs - c0.mr_regs),
			      (unsigned long)(c1.mr_invalidates - c0.mr_invalidates));
		else
			CHECK(c1.mr_regs == 0, "%s: no per-call registration", fc->name);
		env_close(&e);
	}
}

void test_forms(void)
{
	if (test_side_case_runs(test_side_dev_info()->flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG,
				"forms with per-call MRs",
				"dev_info: registration is not cheap on this device, the engine "
				"uses the pools' keys (the run below)"))
		test_forms_with("per-call MRs", ~0u);
	test_forms_with("pool keys", ~RPCRDMA_XPRT_F_PER_CALL_MR);
}
