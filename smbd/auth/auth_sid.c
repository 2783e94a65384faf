/*
 * SIDs (MS-DTYP 2.4.2) as the authentication code carries them: the
 * string form (2.4.2.1) for logs and winbindd, equality, and a domain
 * SID with a RID appended, which is how the PAC gives a user's and its
 * groups' SIDs (MS-PAC 2.5).
 */
#include "smbd/auth/auth.h"
#include "lib/num.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *auth_sid_string(const struct auth_sid *sid,
		      char buf[AUTH_SID_STRING_MAX])
{
	uint64_t ia = 0;
	size_t i, off;
	int n;

	for (i = 0; i < 6; i++) {
		ia = (ia << 8) | sid->id_auth[i];
	}
	/* 2.4.2.1: an authority of 2^32 or more is written in hex */
	if (ia >= (1ULL << 32)) {
		n = snprintf(buf, AUTH_SID_STRING_MAX, "S-%u-0x%012" PRIx64,
			     sid->revision, ia);
	} else {
		n = snprintf(buf, AUTH_SID_STRING_MAX, "S-%u-%" PRIu64,
			     sid->revision, ia);
	}
	off = n > 0 ? (size_t)n : 0;
	for (i = 0; i < sid->num_auths && i < AUTH_SID_MAX_SUB_AUTHS; i++) {
		n = snprintf(buf + off, AUTH_SID_STRING_MAX - off, "-%" PRIu32,
			     sid->sub_auths[i]);
		if (n < 0 || (size_t)n >= AUTH_SID_STRING_MAX - off) {
			break;
		}
		off += (size_t)n;
	}
	return buf;
}

/* One decimal number up to max, then '-' or the end. */
static bool parse_num(const char **p, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (**p < '0' || **p > '9') {
		return false;
	}
	if (!num_strtoull(*p, &end, 10, &v) || v > max ||
	    (*end != '-' && *end != '\0')) {
		return false;
	}
	*out = v;
	*p = end;
	return true;
}

bool auth_sid_parse(const char *s, struct auth_sid *out)
{
	const char *p = s;
	uint64_t v;
	int i;

	memset(out, 0, sizeof(*out));
	if (s == NULL || (strncmp(p, "S-", 2) != 0 && strncmp(p, "s-", 2) != 0)) {
		return false;
	}
	p += 2;
	if (!parse_num(&p, 255, &v) || *p != '-') {
		return false;
	}
	out->revision = (uint8_t)v;
	p++;
	if (!parse_num(&p, (1ULL << 48) - 1, &v)) {
		return false;
	}
	for (i = 5; i >= 0; i--) {
		out->id_auth[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
	while (*p == '-') {
		p++;
		if (out->num_auths == AUTH_SID_MAX_SUB_AUTHS ||
		    !parse_num(&p, UINT32_MAX, &v)) {
			return false;
		}
		out->sub_auths[out->num_auths++] = (uint32_t)v;
	}
	return *p == '\0' && out->revision == 1;
}

bool auth_sid_equal(const struct auth_sid *a, const struct auth_sid *b)
{
	return a->revision == b->revision && a->num_auths == b->num_auths &&
	       a->num_auths <= AUTH_SID_MAX_SUB_AUTHS &&
	       memcmp(a->id_auth, b->id_auth, 6) == 0 &&
	       memcmp(a->sub_auths, b->sub_auths,
		      sizeof(uint32_t) * a->num_auths) == 0;
}

bool auth_sid_compose(const struct auth_sid *domain, uint32_t rid,
		      struct auth_sid *out)
{
	if (domain->num_auths >= AUTH_SID_MAX_SUB_AUTHS) {
		return false;
	}
	*out = *domain;
	out->sub_auths[out->num_auths++] = rid;
	return true;
}
