/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiny check macros shared by the verbs PMD unit tests. */
#ifndef TEST_PMD_VERBS_CHECK_H
#define TEST_PMD_VERBS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                              \
		}                                                                                \
	} while (0)

#define CHECK_EQ(a, b)                                                                    \
	do {                                                                              \
		long long va_ = (long long)(a), vb_ = (long long)(b);                     \
		if (va_ != vb_) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, va_, vb_);                    \
			failures++;                                                       \
		}                                                                         \
	} while (0)

static inline int check_result(const char *name)
{
	if (failures != 0) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif
