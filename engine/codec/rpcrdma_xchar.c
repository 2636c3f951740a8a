/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport characteristics codec (draft-dnoveck-nfsv4-rpcrdma-xcharext-02,
 * section 5.2), the rdma_optinfo of RDMA2_OPTIONAL messages.
 *
 * Grammar comments: one letter per XDR word; "N - ..." a counted array.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xchar.h>

#include "xdr.h"

static bool xchar_known(uint32_t which)
{
	return which >= RPCRDMA_XCHAR_RBSIZ && which <= RPCRDMA_XCHAR_BRS;
}

/* ---------------------------------------------------------------- decode */

/*
 * The typed value of a known characteristic (xcharext 2.1, 3):
 *   RBSIZ: uint32; REQREMINV: bool (0|1); BRS: enum bkreqsup (0..2).
 * "The receiver ... MUST report an XDR error if ... the nominally opaque
 * data ... is not valid" and if its length is insufficient; we also refuse
 * a longer one, since each of these types is exactly one word.
 */
static int decode_known_value(struct rpcrdma_xcharval *v)
{
	if (unlikely(v->len != 4))
		return -RPCRDMA_E_XCHAR_LEN;
	v->value = xdr_load32(v->data);
	switch (v->which) {
	case RPCRDMA_XCHAR_REQREMINV:
		if (unlikely(v->value > 1))
			return -RPCRDMA_E_BOOL;
		break;
	case RPCRDMA_XCHAR_BRS:
		if (unlikely(v->value > RPCRDMA_BKREQSUP_GENL))
			return -RPCRDMA_E_ENUM;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * xcharval (xcharext 2.1):
 *   which  N - data
 * An unknown id is kept, unvalidated, and is not an error.
 */
static int decode_xcharval(struct xdr_dec *d, struct rpcrdma_xcharval *v)
{
	int ret;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	v->which = xdr_get32(d);
	ret = xdr_get_opaque(d, UINT32_MAX, &v->data, &v->len, -RPCRDMA_E_OPAQUE,
			     -RPCRDMA_E_OPAQUE);
	if (unlikely(ret))
		return ret;
	v->known = xchar_known(v->which);
	v->value = 0;
	return v->known ? decode_known_value(v) : 0;
}

/*
 * xcharspec: xcharval<>
 *   N - xcharval ...
 */
static int decode_xcharspec(struct xdr_dec *d, struct rpcrdma_xcharspec *spec)
{
	uint32_t n, i;
	int ret;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	n = xdr_get32(d);
	if (unlikely(n > RPCRDMA_XCHAR_MAX))
		return -RPCRDMA_E_TOO_MANY_XCHARS;
	for (i = 0; i < n; i++) {
		ret = decode_xcharval(d, &spec->vals[i]);
		if (unlikely(ret))
			return ret;
	}
	spec->n = n;
	return 0;
}

/*
 * xcharsubset: uint32<>
 *   N - W ...
 * Bit N%32 of word N/32 is element N. Only element positions below
 * RPCRDMA_XCHAR_MAX can name anything, so words past the first must be 0.
 */
static int decode_xcharsubset(struct xdr_dec *d, struct rpcrdma_xcharsubset *sub)
{
	uint32_t n, i;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	n = xdr_get32(d);
	if (unlikely(!xdr_avail(d, (size_t)n * 4)))
		return -RPCRDMA_E_TRUNC;
	sub->bits = n ? xdr_get32(d) : 0;
	for (i = 1; i < n; i++)
		if (unlikely(xdr_get32(d) != 0))
			return -RPCRDMA_E_SUBSET;
	return 0;
}

/* bool (RFC 4506 4.4): 0 | 1 */
static int decode_bool(struct xdr_dec *d, bool *b)
{
	uint32_t v;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	v = xdr_get32(d);
	if (unlikely(v > 1))
		return -RPCRDMA_E_BOOL;
	*b = v;
	return 0;
}

/*
 * optinfo_initxch:  xcharspec start, xcharsubset nochg      (4.1)
 * optinfo_reqxch:   xcharspec want                          (4.2)
 * optinfo_respxch:  xcharsubset done, rej, pend             (4.3)
 * optinfo_updxch:   xcharval now, bool pendclr              (4.4)
 */
int rpcrdma_xchar_decode(struct rpcrdma_xchar_msg *msg, uint32_t opttype, const void *optinfo,
			 uint32_t len)
{
	struct xdr_dec d = { .p = optinfo, .end = (const uint8_t *)optinfo + len };
	int ret;

	msg->opttype = opttype;
	switch (opttype) {
	case RPCRDMA_ROPT_INITXCH:
		ret = decode_xcharspec(&d, &msg->initxch.start);
		if (!ret)
			ret = decode_xcharsubset(&d, &msg->initxch.nochg);
		break;
	case RPCRDMA_ROPT_REQXCH:
		ret = decode_xcharspec(&d, &msg->reqxch.want);
		break;
	case RPCRDMA_ROPT_RESPXCH:
		ret = decode_xcharsubset(&d, &msg->respxch.done);
		if (!ret)
			ret = decode_xcharsubset(&d, &msg->respxch.rej);
		if (!ret)
			ret = decode_xcharsubset(&d, &msg->respxch.pend);
		break;
	case RPCRDMA_ROPT_UPDXCH:
		ret = decode_xcharval(&d, &msg->updxch.now);
		if (!ret)
			ret = decode_bool(&d, &msg->updxch.pendclr);
		break;
	default:
		return -RPCRDMA_E_OPTTYPE;
	}
	if (ret)
		return ret;
	if (unlikely(d.p != d.end))
		return -RPCRDMA_E_TRAILING;
	return 0;
}

/* ---------------------------------------------------------------- encode */

/* In 64 bits: the padded length of an unknown value's 2^32 - 3 bytes must not wrap to 0. */
static uint64_t xcharval_len(const struct rpcrdma_xcharval *v)
{
	return 8 + (xchar_known(v->which) ? 4 : (((uint64_t)v->len + 3) & ~(uint64_t)3));
}

static int64_t xcharspec_len(const struct rpcrdma_xcharspec *spec)
{
	int64_t len = 4;
	uint32_t i;

	if (spec->n > RPCRDMA_XCHAR_MAX)
		return -EINVAL;
	for (i = 0; i < spec->n; i++)
		len += xcharval_len(&spec->vals[i]);
	return len;
}

static uint32_t xcharsubset_len(const struct rpcrdma_xcharsubset *sub)
{
	return sub->bits ? 8 : 4;
}

static int64_t xchar_encoded_len(const struct rpcrdma_xchar_msg *msg)
{
	int64_t len;

	switch (msg->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		len = xcharspec_len(&msg->initxch.start);
		return len < 0 ? len : len + xcharsubset_len(&msg->initxch.nochg);
	case RPCRDMA_ROPT_REQXCH:
		return xcharspec_len(&msg->reqxch.want);
	case RPCRDMA_ROPT_RESPXCH:
		return xcharsubset_len(&msg->respxch.done) + xcharsubset_len(&msg->respxch.rej) +
		       xcharsubset_len(&msg->respxch.pend);
	case RPCRDMA_ROPT_UPDXCH:
		return xcharval_len(&msg->updxch.now) + 4;
	default:
		return -EINVAL;
	}
}

/* which  N - data */
static void encode_xcharval(struct xdr_enc *e, const struct rpcrdma_xcharval *v)
{
	xdr_put32(e, v->which);
	if (xchar_known(v->which)) {
		xdr_put32(e, 4);
		xdr_put32(e, v->value);
	} else {
		xdr_put_opaque(e, v->data, v->len);
	}
}

/* N - xcharval ... */
static void encode_xcharspec(struct xdr_enc *e, const struct rpcrdma_xcharspec *spec)
{
	uint32_t i;

	xdr_put32(e, spec->n);
	for (i = 0; i < spec->n; i++)
		encode_xcharval(e, &spec->vals[i]);
}

/* 0   or   1 - W */
static void encode_xcharsubset(struct xdr_enc *e, const struct rpcrdma_xcharsubset *sub)
{
	if (sub->bits) {
		xdr_put32(e, 1);
		xdr_put32(e, sub->bits);
	} else {
		xdr_put32(e, 0);
	}
}

int rpcrdma_xchar_encode(const struct rpcrdma_xchar_msg *msg, void *buf, uint32_t buflen)
{
	struct xdr_enc e = { .p = buf };
	int64_t len;

	len = xchar_encoded_len(msg);
	if (len < 0)
		return (int)len;
	/* The length is returned as an int; no buffer can take more. */
	if (len > INT32_MAX)
		return -EINVAL;
	if (len > buflen)
		return -ENOSPC;

	switch (msg->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		encode_xcharspec(&e, &msg->initxch.start);
		encode_xcharsubset(&e, &msg->initxch.nochg);
		break;
	case RPCRDMA_ROPT_REQXCH:
		encode_xcharspec(&e, &msg->reqxch.want);
		break;
	case RPCRDMA_ROPT_RESPXCH:
		encode_xcharsubset(&e, &msg->respxch.done);
		encode_xcharsubset(&e, &msg->respxch.rej);
		encode_xcharsubset(&e, &msg->respxch.pend);
		break;
	default: /* RPCRDMA_ROPT_UPDXCH */
		encode_xcharval(&e, &msg->updxch.now);
		xdr_put32(&e, msg->updxch.pendclr ? 1 : 0);
		break;
	}
	return (int)len;
}

/* ---------------------------------------------------------------- names */

const char *rpcrdma_ropt_name(uint32_t opttype)
{
	static const char *const tab[] = { NULL, "ROPT_INITXCH", "ROPT_REQXCH", "ROPT_RESPXCH",
					   "ROPT_UPDXCH" };

	return opttype < 5 && tab[opttype] ? tab[opttype] : "UNKNOWN";
}

const char *rpcrdma_xchar_name(uint32_t which)
{
	static const char *const tab[] = { NULL, "XCHAR_RBSIZ", "XCHAR_REQREMINV", "XCHAR_BRS" };

	if (which >= RPCRDMA_XCHAR_EXPERIMENTAL_FIRST)
		return "EXPERIMENTAL";
	return which < 4 && tab[which] ? tab[which] : "UNKNOWN";
}

const char *rpcrdma_bkreqsup_name(uint32_t v)
{
	static const char *const tab[] = { "BKREQSUP_NONE", "BKREQSUP_INLINE", "BKREQSUP_GENL" };

	return v < 3 ? tab[v] : "UNKNOWN";
}

/* ---------------------------------------------------------------- format */

static void format_xcharval(struct fmt_buf *f, const struct rpcrdma_xcharval *v)
{
	switch (v->known ? v->which : 0) {
	case RPCRDMA_XCHAR_RBSIZ:
		fmt_add(f, "RBSIZ=%u", v->value);
		break;
	case RPCRDMA_XCHAR_REQREMINV:
		fmt_add(f, "REQREMINV=%s", v->value ? "true" : "false");
		break;
	case RPCRDMA_XCHAR_BRS:
		fmt_add(f, "BRS=%s", rpcrdma_bkreqsup_name(v->value));
		break;
	default:
		fmt_add(f, "%u(%u bytes)", v->which, v->len);
		break;
	}
}

static void format_xcharspec(struct fmt_buf *f, const char *name,
			     const struct rpcrdma_xcharspec *spec)
{
	uint32_t i;

	fmt_add(f, " %s={", name);
	for (i = 0; i < spec->n; i++) {
		fmt_add(f, i ? " " : "");
		format_xcharval(f, &spec->vals[i]);
	}
	fmt_add(f, "}");
}

int rpcrdma_xchar_format(const struct rpcrdma_xchar_msg *msg, char *buf, size_t size)
{
	struct fmt_buf f = { .buf = buf, .size = size, .len = 0 };

	if (size)
		buf[0] = '\0';
	fmt_add(&f, "%s", rpcrdma_ropt_name(msg->opttype));
	switch (msg->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		format_xcharspec(&f, "start", &msg->initxch.start);
		fmt_add(&f, " nochg=0x%x", msg->initxch.nochg.bits);
		break;
	case RPCRDMA_ROPT_REQXCH:
		format_xcharspec(&f, "want", &msg->reqxch.want);
		break;
	case RPCRDMA_ROPT_RESPXCH:
		fmt_add(&f, " done=0x%x rej=0x%x pend=0x%x", msg->respxch.done.bits,
			msg->respxch.rej.bits, msg->respxch.pend.bits);
		break;
	case RPCRDMA_ROPT_UPDXCH:
		fmt_add(&f, " now=");
		format_xcharval(&f, &msg->updxch.now);
		fmt_add(&f, " pendclr=%s", msg->updxch.pendclr ? "true" : "false");
		break;
	default:
		break;
	}
	return (int)f.len;
}
