/*
 * Share access rules from smb.conf: `hosts allow`/`hosts deny` and
 * `valid users`/`invalid users`/`read list`/`write list`, with Samba's
 * syntax (smb.conf(5)):
 *   hosts: addresses, address prefixes ("192.168.1."), CIDR ("10.0.0.0/8"
 *          or "10.0.0.0/255.0.0.0"), "ALL", "LOCAL" (loopback) and
 *          "EXCEPT" to exclude from what precedes it in the list;
 *   users: names, "@group" and "+group" (Unix groups), compared without
 *          case as Windows user names are.
 */
#include "smbd/access.h"

#include <arpa/inet.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool host_prefix_match(const char *entry, const char *addr)
{
	size_t n = strlen(entry);

	return n > 0 && entry[n - 1] == '.' && strncmp(entry, addr, n) == 0;
}

static bool host_cidr_match(const char *entry, const char *addr)
{
	char net[64], *slash;
	struct in_addr a, n, m;
	unsigned long bits;

	snprintf(net, sizeof(net), "%s", entry);
	slash = strchr(net, '/');
	if (slash == NULL) {
		return false;
	}
	*slash++ = '\0';
	if (inet_pton(AF_INET, net, &n) != 1 ||
	    inet_pton(AF_INET, addr, &a) != 1) {
		return false;
	}
	if (strchr(slash, '.') != NULL) {
		if (inet_pton(AF_INET, slash, &m) != 1) {
			return false;
		}
	} else {
		char *end;

		bits = strtoul(slash, &end, 10);
		if (*end != '\0' || bits > 32) {
			return false;
		}
		m.s_addr = bits == 0 ? 0 : htonl(~0u << (32 - bits));
	}
	return (a.s_addr & m.s_addr) == (n.s_addr & m.s_addr);
}

static bool host_entry_match(const char *entry, const char *addr)
{
	if (strcasecmp(entry, "ALL") == 0) {
		return true;
	}
	if (strcasecmp(entry, "LOCAL") == 0) {
		return strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0;
	}
	if (strcmp(entry, addr) == 0) {
		return true;
	}
	/* IPv4-mapped IPv6 peers are written as plain IPv4 in smb.conf. */
	if (strncmp(addr, "::ffff:", 7) == 0 &&
	    host_entry_match(entry, addr + 7)) {
		return true;
	}
	return host_prefix_match(entry, addr) || host_cidr_match(entry, addr);
}

/* A list matches when an entry before EXCEPT matches and none after. */
static bool host_list_match(const char *const *list, const char *addr)
{
	bool matched = false;
	size_t i;

	for (i = 0; list[i] != NULL; i++) {
		if (strcasecmp(list[i], "EXCEPT") == 0) {
			size_t j;

			if (!matched) {
				return false;
			}
			for (j = i + 1; list[j] != NULL; j++) {
				if (host_entry_match(list[j], addr)) {
					return false;
				}
			}
			return true;
		}
		if (host_entry_match(list[i], addr)) {
			matched = true;
		}
	}
	return matched;
}

bool smbd_host_allowed(const char *const *allow, const char *const *deny,
		       const char *addr)
{
	bool have_allow = allow != NULL && allow[0] != NULL;
	bool have_deny = deny != NULL && deny[0] != NULL;

	/* As Samba: an allowed host wins over a denying entry. */
	if (have_allow && host_list_match(allow, addr)) {
		return true;
	}
	if (have_deny && host_list_match(deny, addr)) {
		return false;
	}
	return !have_allow;
}

static bool user_in_group(const char *group, const struct smbd_user_id *u)
{
	struct group grbuf, *gr = NULL;
	char buf[16384];
	size_t i;

	if (getgrnam_r(group, &grbuf, buf, sizeof(buf), &gr) != 0 ||
	    gr == NULL) {
		return false;
	}
	if (gr->gr_gid == u->gid) {
		return true;
	}
	for (i = 0; i < u->ngroups; i++) {
		if (u->groups[i] == gr->gr_gid) {
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
