/*
 * smb.conf `interfaces` entries (ifspec.h).
 */
#include "lib/ifspec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A whole decimal number in 1..max, nothing after it. */
static bool ifspec_number(const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (*v < '0' || *v > '9') {
		return false;	/* no sign, no space, no empty value */
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || n == 0 || n > max) {
		return false;
	}
	*out = n;
	return true;
}

/* One key=value of the options; false with a reason in err. */
static bool ifspec_option(struct ifspec *s, char *opt, char *err,
			  size_t errlen)
{
	char *eq = strchr(opt, '=');
	const char *key = opt, *val;
	uint64_t n;

	if (eq == NULL) {
		snprintf(err, errlen, "option '%s' has no '='", opt);
		return false;
	}
	*eq = '\0';
	val = eq + 1;
	if (strcasecmp(key, "speed") == 0) {
		if (!ifspec_number(val, UINT64_MAX, &n)) {
			snprintf(err, errlen,
				 "speed '%s' is not a positive number of "
				 "bits per second", val);
			return false;
		}
		s->speed = n;
	} else if (strcasecmp(key, "capability") == 0) {
		if (strcasecmp(val, "RSS") == 0) {
			s->caps |= IFSPEC_CAP_RSS;
		} else if (strcasecmp(val, "RDMA") == 0) {
			s->caps |= IFSPEC_CAP_RDMA;
		} else {
			snprintf(err, errlen,
				 "capability '%s' is neither RSS nor RDMA",
				 val);
			return false;
		}
		s->caps_given = true;
	} else if (strcasecmp(key, "if_index") == 0) {
		if (!ifspec_number(val, UINT32_MAX, &n)) {
			snprintf(err, errlen,
				 "if_index '%s' is not a positive number",
				 val);
			return false;
		}
		s->if_index = (uint32_t)n;
	} else {
		snprintf(err, errlen,
			 "unknown option '%s' (speed, capability, if_index)",
			 key);
		return false;
	}
	return true;
}

bool ifspec_parse(const char *entry, struct ifspec *s, char *err,
		  size_t errlen)
{
	const char *semi = strchr(entry, ';');
	size_t wlen = semi != NULL ? (size_t)(semi - entry) : strlen(entry);
	struct ifspec opts;
	char *copy, *opt, *save = NULL;
	bool ok = true;

	memset(s, 0, sizeof(*s));
	if (errlen > 0) {
		err[0] = '\0';
	}
	if (wlen == 0 || wlen >= sizeof(s->what)) {
		snprintf(err, errlen, "'%.*s' is %s", (int)(wlen > 60 ? 60 : wlen),
			 entry, wlen == 0 ? "empty" : "too long");
		return false;
	}
	memcpy(s->what, entry, wlen);
	s->what[wlen] = '\0';
	if (semi == NULL || semi[1] == '\0') {
		return true;	/* "eth0" or "eth0;" */
	}
	copy = strdup(semi + 1);
	if (copy == NULL) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	/* The options go into a copy first: one bad option drops them all,
	 * so the interface is served as detected, not half-configured. */
	opts = *s;
	for (opt = strtok_r(copy, ",", &save); opt != NULL && ok;
	     opt = strtok_r(NULL, ",", &save)) {
		ok = ifspec_option(&opts, opt, err, errlen);
	}
	free(copy);
	if (ok) {
		*s = opts;
	}
	return ok;
}

/* The prefix length of "len" or "a.b.c.d" for an address of alen bytes;
 * -1 when it is neither (a dotted mask must be contiguous ones). */
static int ifspec_mask_bits(const char *mask, size_t alen)
{
	struct in_addr m4;
	unsigned long v;
	uint32_t m;
	char *end;
	int bits = 0;

	if (*mask >= '0' && *mask <= '9') {
		v = strtoul(mask, &end, 10);
		if (*end == '\0' && v <= alen * 8) {
			return (int)v;
		}
	}
	if (alen != 4 || inet_pton(AF_INET, mask, &m4) != 1) {
		return -1;
	}
	m = ntohl(m4.s_addr);
	while (m & 0x80000000u) {
		bits++;
		m <<= 1;
	}
	return m == 0 ? bits : -1;
}

int ifspec_address(const struct ifspec *s, uint8_t addr[16], int *bits)
{
	char buf[IFSPEC_WHAT_MAX], *slash;
	int family;

	snprintf(buf, sizeof(buf), "%s", s->what);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash++ = '\0';
	}
	if (inet_pton(AF_INET, buf, addr) == 1) {
		family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		family = AF_INET6;
	} else {
		return 0;
	}
	*bits = -1;
	if (slash != NULL) {
		*bits = ifspec_mask_bits(slash, family == AF_INET ? 4 : 16);
		if (*bits < 0) {
			return -1;
		}
	}
	return family;
}

static bool ifspec_same_prefix(const uint8_t *a, const uint8_t *b, int bits)
{
	int i;

	for (i = 0; bits > 0; i++, bits -= 8) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if ((a[i] & m) != (b[i] & m)) {
			return false;
		}
	}
	return true;
}

bool ifspec_match(const struct ifspec *s, const char *ifname,
		  const struct sockaddr *sa)
{
	uint8_t want[16];
	const uint8_t *have;
	int bits, family = ifspec_address(s, want, &bits);

	if (family < 0 || sa == NULL) {
		return false;
	}
	if (family == 0) {
		return ifname != NULL &&
		       fnmatch(s->what, ifname, FNM_CASEFOLD) == 0;
	}
	if (sa->sa_family != family) {
		return false;
	}
	have = family == AF_INET
		? (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)
			  ->sin_addr
		: (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)
					     sa)
			  ->sin6_addr;
	if (bits < 0) {
		bits = family == AF_INET ? 32 : 128;
	}
	return ifspec_same_prefix(have, want, bits);
}
