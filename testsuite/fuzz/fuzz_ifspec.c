/*
 * libFuzzer target: lib/ifspec.c, one smb.conf `interfaces` entry.  A
 * parse never leaves `what` unterminated or over its size; a failed parse
 * takes no option; an entry that parses, matched against a few local
 * addresses, never crashes, and matches its own address when it is one.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ifspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	struct ifspec s;
	uint8_t addr[16];
	char entry[512], err[160];
	int family, bits;
	bool ok;

	if (size >= sizeof(entry)) {
		return 0;
	}
	memcpy(entry, data, size);
	entry[size] = '\0';
	ok = ifspec_parse(entry, &s, err, sizeof(err));
	if (strnlen(s.what, sizeof(s.what)) >= sizeof(s.what)) {
		abort();
	}
	if (!ok && (s.speed != 0 || s.caps_given || s.if_index != 0)) {
		abort();
	}
	memset(&a4, 0, sizeof(a4));
	a4.sin_family = AF_INET;
	a4.sin_addr.s_addr = htonl(0x7f000001);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr.s6_addr[15] = 1;
	(void)ifspec_match(&s, "lo", (struct sockaddr *)(void *)&a4);
	(void)ifspec_match(&s, "eth0", (struct sockaddr *)(void *)&a6);
	family = ifspec_address(&s, addr, &bits);
	if (family == AF_INET && bits == -1) {
		memcpy(&a4.sin_addr, addr, 4);
		if (!ifspec_match(&s, "x", (struct sockaddr *)(void *)&a4)) {
			abort();
		}
	}
	if (family == AF_INET6 && bits == -1) {
		memcpy(&a6.sin6_addr, addr, 16);
		if (!ifspec_match(&s, "x", (struct sockaddr *)(void *)&a6)) {
			abort();
		}
	}
	return 0;
}
