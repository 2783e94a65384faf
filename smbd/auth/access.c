/*
 * Share access rules from smb.conf: `hosts allow`/`hosts deny` and
 * `valid users`/`invalid users`/`read list`/`write list`, with Samba's
 * syntax (smb.conf(5)):
 *   hosts: addresses, address prefixes ("192.168.1."), networks
 *          ("10.0.0.0/8", "10.0.0.0/255.0.0.0", "fe80::/10"), wildcards,
 *          "ALL" and "EXCEPT" to exclude from what precedes it (the
 *          forms are listed at host_entry_match); the one parser for
 *          the [global] lists checked at accept (conn_limits.c) and
 *          the share's checked at tree connect;
 *   users: names, "@group" and "+group" (Unix groups), compared without
 *          case as Windows user names are.
 */
#include "smbd/auth/access.h"

#include <arpa/inet.h>
#include <fnmatch.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * One entry of a hosts list against the client's numeric address, with
 * the token forms smb.conf(5) "hosts allow" gives (checked against
 * Samba 4.17 from loopback):
 *   "ALL"                        every client;
 *   "a.b.c."                     an address prefix;
 *   "a.b.c.d/len", "a.b.c.d/m.m.m.m", "fe80::/10", "[fe80::]/10"
 *                                a network;
 *   "127.0.0.*", "10.?.0.1"      a wildcard over the address text;
 *   "a.b.c.d", "::1", "[::1]"    one address;
 *   "LOCAL", host and domain names
 *                                match client names, and the client's
 *                                name is its address here, as in Samba
 *                                with its default `hostname lookups = no`:
 *                                such entries match no client.
 * An IPv4 client seen through an IPv4-mapped IPv6 socket address
 * ("::ffff:10.0.0.5") is matched as its IPv4 address.
 */
static bool host_cidr_match(const char *entry, const char *addr)
{
	char net[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned char a[16], n[16], m[16];
	int family = strchr(entry, ':') != NULL ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET6 ? 16 : 4, i;
	unsigned long bits;

	if (snprintf(net, sizeof(net), "%s", entry) >= (int)sizeof(net)) {
		return false;
	}
	slash = strchr(net, '/');
	if (slash == NULL) {
		return false;
	}
	*slash++ = '\0';
	/* "[fe80::]/10": the brackets are optional */
	if (net[0] == '[' && slash - net >= 3 && slash[-2] == ']') {
		slash[-2] = '\0';
		memmove(net, net + 1, strlen(net + 1) + 1);
	}
	if (inet_pton(family, net, n) != 1 ||
	    inet_pton(family, addr, a) != 1) {
		return false;
	}
	if (family == AF_INET && strchr(slash, '.') != NULL) {
		if (inet_pton(AF_INET, slash, m) != 1) {
			return false;
		}
	} else {
		if (*slash < '0' || *slash > '9') {
			return false;
		}
		bits = strtoul(slash, &end, 10);
		if (*end != '\0' || bits > alen * 8) {
			return false;
		}
		for (i = 0; i < alen; i++) {
			size_t left = bits > i * 8 ? bits - i * 8 : 0;

			m[i] = left >= 8 ? 0xff
					 : (unsigned char)(0xff00 >> left);
		}
	}
	for (i = 0; i < alen; i++) {
		if ((a[i] & m[i]) != (n[i] & m[i])) {
			return false;
		}
	}
	return true;
}

/* "::1" and "0:0::1" are one address; "[::1]" is written for IPv6. */
static bool host_addr_equal(const char *entry, const char *addr)
{
	char buf[INET6_ADDRSTRLEN + 2];
	unsigned char e[16], a[16];
	size_t n = strlen(entry);

	if (strcasecmp(entry, addr) == 0) {
		return true;
	}
	if (n >= 2 && n < sizeof(buf) && entry[0] == '[' &&
	    entry[n - 1] == ']') {
		memcpy(buf, entry + 1, n - 2);
		buf[n - 2] = '\0';
		entry = buf;
	}
	return inet_pton(AF_INET6, entry, e) == 1 &&
	       inet_pton(AF_INET6, addr, a) == 1 && memcmp(e, a, 16) == 0;
}

static bool host_entry_match(const char *entry, const char *addr)
{
	size_t n = strlen(entry);

	if (strcasecmp(entry, "ALL") == 0) {
		return true;
	}
	/* IPv4-mapped IPv6 peers are written as plain IPv4 in smb.conf. */
	if (strncasecmp(addr, "::ffff:", 7) == 0 &&
	    strchr(addr + 7, '.') != NULL) {
		addr += 7;
	}
	if (n > 0 && entry[n - 1] == '.') {
		return strncmp(entry, addr, n) == 0;
	}
	if (strchr(entry, '/') != NULL) {
		return host_cidr_match(entry, addr);
	}
	if (strpbrk(entry, "*?") != NULL) {
		return fnmatch(entry, addr, FNM_CASEFOLD) == 0;
	}
	return host_addr_equal(entry, addr);
}

/*
 * A list matches when an entry before EXCEPT matches and what follows
 * EXCEPT (itself a list, which may have its own EXCEPT) does not.
 * *why names the entry that matched.
 */
static bool host_list_match(const char *const *list, const char *addr,
			    const char **why)
{
	const char *hit = NULL;
	size_t i;

	for (i = 0; list[i] != NULL; i++) {
		if (strcasecmp(list[i], "EXCEPT") == 0) {
			break;
		}
		if (hit == NULL && host_entry_match(list[i], addr)) {
			hit = list[i];
		}
	}
	if (hit == NULL) {
		return false;
	}
	if (list[i] != NULL && host_list_match(list + i + 1, addr, why)) {
		return false;
	}
	*why = hit;
	return true;
}

static bool host_is_loopback(const char *addr)
{
	return strcmp(addr, "127.0.0.1") == 0 || strcmp(addr, "::1") == 0 ||
	       strcasecmp(addr, "::ffff:127.0.0.1") == 0;
}

bool smbd_host_check(const char *const *allow, const char *const *deny,
		     const char *addr, struct smbd_host_verdict *v)
{
	bool have_allow = allow != NULL && allow[0] != NULL;
	bool have_deny = deny != NULL && deny[0] != NULL;
	const char *why = NULL;

	v->list = NULL;
	v->entry = NULL;
	/*
	 * The order Samba 4.17 decides in (smb.conf(5) "hosts allow":
	 * "if both lists match, allow wins"), measured against it:
	 * - 127.0.0.1 and ::1 are let in unless hosts deny names them and
	 *   hosts allow does not (`hosts allow = 10.0.0.0/8` alone does
	 *   not lock the local machine out);
	 * - with only hosts allow, a client must match it;
	 * - with only hosts deny, a client must not match it;
	 * - with both, a match in hosts allow admits, then a match in
	 *   hosts deny refuses, and a client in neither is admitted.
	 */
	if (have_allow && host_list_match(allow, addr, &why)) {
		v->list = "hosts allow";
		v->entry = why;
		return true;
	}
	if (have_deny && host_list_match(deny, addr, &why)) {
		v->list = "hosts deny";
		v->entry = why;
		return false;
	}
	if (have_allow && !have_deny && !host_is_loopback(addr)) {
		v->list = "hosts allow";
		return false;
	}
	return true;
}

bool smbd_host_allowed(const char *const *allow, const char *const *deny,
		       const char *addr)
{
	struct smbd_host_verdict v;

	return smbd_host_check(allow, deny, addr, &v);
}

static bool user_in_group(const char *group, const struct smbd_user_id *u)
{
	struct group grbuf, *gr = NULL;
	char buf[16384];
	gid_t gid;
	size_t i;

	if (u->group_gid != NULL) {
		if (!u->group_gid(u->group_priv, group, &gid)) {
			return false;
		}
	} else if (getgrnam_r(group, &grbuf, buf, sizeof(buf), &gr) != 0 ||
		   gr == NULL) {
		return false;
	} else {
		gid = gr->gr_gid;
	}
	if (gid == u->gid) {
		return true;
	}
	for (i = 0; i < u->ngroups; i++) {
		if (u->groups[i] == gid) {
			return true;
		}
	}
	return false;
}

bool smbd_user_in_list(const char *const *list, const struct smbd_user_id *u)
{
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		const char *e = list[i];

		if (e[0] == '@' || e[0] == '+') {
			if (u->unix_name != NULL && user_in_group(e + 1, u)) {
				return true;
			}
			continue;
		}
		if ((u->name != NULL && strcasecmp(e, u->name) == 0) ||
		    (u->unix_name != NULL && strcasecmp(e, u->unix_name) == 0)) {
			return true;
		}
	}
	return false;
}
