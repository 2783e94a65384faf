/*
 * One entry of smb.conf's `interfaces`, as Samba reads it:
 *
 *   what[;key=value[,key=value...]]
 *
 * `what` is an interface name (shell wildcards allowed: "eth*"), an IPv4
 * or IPv6 address, or an address with /bits or /dotted-mask meaning the
 * local addresses in that network.  The keys are Samba's multichannel
 * extras (smb.conf(5) "interfaces"): speed (bits per second),
 * capability (RSS or RDMA, repeatable) and if_index.  Each overrides
 * what the server would detect for FSCTL_QUERY_NETWORK_INTERFACE_INFO
 * (MS-SMB2 2.2.32.5).  The list splitting and the quotes that keep ';'
 * and ',' inside one entry are lp_list's; this sees one entry.
 *
 * Pure functions on strings and socket addresses: the listener
 * (smbd/process/listen.c) and the FSCTL (smbd/smb2/smb2_fsctl_net.c)
 * share them.
 */
#ifndef LIB_IFSPEC_H
#define LIB_IFSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* 2.2.32.5 Capability bits. */
#define IFSPEC_CAP_RSS 0x00000001
#define IFSPEC_CAP_RDMA 0x00000002

#define IFSPEC_WHAT_MAX 128

struct ifspec {
	char what[IFSPEC_WHAT_MAX];	/* name, address or address/mask */
	uint64_t speed;			/* bits per second; 0: not given */
	uint32_t caps;			/* IFSPEC_CAP_*, when caps_given */
	bool caps_given;
	uint32_t if_index;		/* 0: not given */
};

/*
 * Parse entry into *s.  On a bad option (unknown key, a speed or
 * if_index that is not a positive number, an unknown capability) returns
 * false with a one-line reason in err; s->what is filled all the same,
 * and no option is taken, so a caller that goes on serves the interface
 * with detected values.  False with an empty what for an empty or
 * over-long `what`.
 */
bool ifspec_parse(const char *entry, struct ifspec *s, char *err,
		  size_t errlen);

/*
 * An address or network in s->what: its family (AF_INET, AF_INET6) and
 * bytes, and the prefix length (-1 when there is no '/').  0 when what
 * is not an address (a name), -1 on a bad mask.
 */
int ifspec_address(const struct ifspec *s, uint8_t addr[16], int *bits);

/*
 * Whether the local address sa of interface ifname is one that s names:
 * by interface name (case-insensitive, with wildcards), by that exact
 * address, or by the network it is in.
 */
bool ifspec_match(const struct ifspec *s, const char *ifname,
		  const struct sockaddr *sa);

#endif
