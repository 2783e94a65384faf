/*
 * The host's network interfaces as the kernel tells them: the addresses
 * (getifaddrs(3)), an interface's index, its link speed from
 * /sys/class/net/IF/speed (Mbit/s) and whether its NIC spreads receive
 * over queues (/sys/class/net/IF/queues/rx-N, more than one: RSS).  What
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 3.3.5.15.11) detects where
 * smb.conf's `interfaces` (lib/ifspec.h) gives nothing, kept out of the
 * handler so that smbd/smb2/ makes no system call (issue 37 item 1).
 * Small reads of sysfs, answered in the caller's thread.
 */
#ifndef LIB_NETIF_H
#define LIB_NETIF_H

#include <stdbool.h>
#include <stdint.h>

struct ifaddrs;

/* The interfaces' addresses (getifaddrs): false when they cannot be
 * listed; a list given back with netif_addrs_free. */
bool netif_addrs(struct ifaddrs **list);
/* The same, saying why not: 0, or -errno (errno stays in lib/, issue 37). */
int netif_addrs_get(struct ifaddrs **list);
void netif_addrs_free(struct ifaddrs *list);

/* The kernel's index of ifname (if_nametoindex), 0 when it has none. */
uint32_t netif_index(const char *ifname);

/* ifname's link speed in bits per second; 0 when sysfs does not say
 * (no such file, a virtual link's -1). */
uint64_t netif_link_speed(const char *ifname);

/* Whether ifname's NIC has more than one receive queue. */
bool netif_multi_queue(const char *ifname);

#endif
