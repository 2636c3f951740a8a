/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMDs' device arguments, key=value,... split by rte_kvargs as a DPDK
 * vdev's are (a value in brackets may hold commas), with what rte_kvargs
 * lets through refused by name: an empty item (it skips them), a key
 * without a value, a key given twice, an empty value. Each PMD then takes
 * the keys it knows. Internal to pmd/; header-only, so that the verbs
 * PMD's translations build into their unit test on their own.
 */
#ifndef PMD_DEVARGS_H
#define PMD_DEVARGS_H

#include <stdio.h>
#include <string.h>

#include <rte_kvargs.h>

/**
 * Split @p s. @return the pairs (rte_kvargs_free() them); NULL with
 * err[0] == '\0' for an empty string (nothing given); NULL with a
 * message in @p err for a string refused.
 */
static inline struct rte_kvargs *pmd_devargs_split(const char *s, char *err, size_t errlen)
{
	struct rte_kvargs *kv;
	size_t n = s != NULL ? strlen(s) : 0;

	err[0] = '\0';
	if (n == 0)
		return NULL;
	if (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,") != NULL) {
		snprintf(err, errlen, "empty item in \"%s\"", s);
		return NULL;
	}
	kv = rte_kvargs_parse(s, NULL);
	if (kv == NULL) {
		snprintf(err, errlen, "\"%s\": expected key=value,...", s);
		return NULL;
	}
	for (unsigned int i = 0; i < kv->count; i++) {
		const struct rte_kvargs_pair *p = &kv->pairs[i];

		if (p->value == NULL)
			snprintf(err, errlen, "\"%s\": expected key=value", p->key);
		else if (rte_kvargs_count(kv, p->key) > 1)
			snprintf(err, errlen, "%s= given twice", p->key);
		else if (p->value[0] == '\0')
			snprintf(err, errlen, "%s=: empty value", p->key);
		else
			continue;
		rte_kvargs_free(kv);
		return NULL;
	}
	return kv;
}

#endif /* PMD_DEVARGS_H */
