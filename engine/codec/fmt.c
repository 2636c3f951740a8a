/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * snprintf accumulation for the codecs' one-line formatters.
 */
#include <stdarg.h>
#include <stdio.h>

#include "xdr.h"

void fmt_add(struct fmt_buf *f, const char *fmt, ...)
{
	size_t room = f->len < f->size ? f->size - f->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? f->buf + f->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		f->len += (size_t)n;
}
