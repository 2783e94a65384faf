/*
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 3.3.5.15.11): the
 * server's network interfaces, each usable address as one
 * NETWORK_INTERFACE_INFO (2.2.32.5) with the link speed, for clients
 * choosing channels.  Addresses come from getifaddrs(3), speeds from
 * /sys/class/net/IF/speed (Mbit/s); loopback is listed only when there
 * is nothing else, and IPv6 link-local addresses never (they are useless
 * without a scope the client shares).  Small and rare: answered on the
 * loop thread.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/smb2/fsctl_wire.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* What one answer lists at most. */
#define FSCTL_NET_MAX_IFACES 64
/* Link speed when the kernel does not know it (virtual NICs): 1 Gbit/s,
 * what Samba reports too. */
#define FSCTL_NET_DEFAULT_SPEED 1000000000ULL

static uint64_t net_link_speed(const char *ifname)
{
	char path[64 + IF_NAMESIZE];
	long mbit = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	f = fopen(path, "re");
	if (f != NULL) {
		if (fscanf(f, "%ld", &mbit) != 1) {
			mbit = -1;
		}
		fclose(f);
	}
	return mbit > 0 ? (uint64_t)mbit * 1000000ULL : FSCTL_NET_DEFAULT_SPEED;
}

/* One entry from an address; false when the address is not listed. */
static bool net_iface_from(const struct ifaddrs *ifa, bool loopback,
			   struct fsctl_net_iface *v)
{
	if (ifa->ifa_addr == NULL || !(ifa->ifa_flags & IFF_UP) ||
	    ((ifa->ifa_flags & IFF_LOOPBACK) != 0) != loopback) {
		return false;
	}
	memset(v, 0, sizeof(*v));
	if (ifa->ifa_addr->sa_family == AF_INET) {
		const struct sockaddr_in *in =
			(const struct sockaddr_in *)(const void *)ifa->ifa_addr;

		v->family = AF_INET;
		memcpy(v->addr, &in->sin_addr, 4);
	} else if (ifa->ifa_addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 =
			(const struct sockaddr_in6 *)(const void *)
				ifa->ifa_addr;

		if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr)) {
			return false;
		}
		v->family = AF_INET6;
		memcpy(v->addr, &in6->sin6_addr, 16);
	} else {
		return false;
	}
	v->if_index = if_nametoindex(ifa->ifa_name);
	v->link_speed = net_link_speed(ifa->ifa_name);
	return true;
}

static size_t net_ifaces_collect(const struct ifaddrs *list, bool loopback,
				 struct fsctl_net_iface *v, size_t max)
{
	const struct ifaddrs *ifa;
	size_t n = 0;

	for (ifa = list; ifa != NULL && n < max; ifa = ifa->ifa_next) {
		if (net_iface_from(ifa, loopback, &v[n])) {
			n++;
		}
	}
	return n;
}

NTSTATUS smb2_fsctl_network_interface_info(struct smb2_ioctl_state *st)
{
	struct fsctl_net_iface *v;
	struct ifaddrs *list;
	size_t n;

	if (getifaddrs(&list) != 0) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	v = talloc_array(st->req->mem_ctx, struct fsctl_net_iface,
			 FSCTL_NET_MAX_IFACES);
	if (v == NULL) {
		freeifaddrs(list);
		return NT_STATUS_NO_MEMORY;
	}
	n = net_ifaces_collect(list, false, v, FSCTL_NET_MAX_IFACES);
	if (n == 0) {
		n = net_ifaces_collect(list, true, v, FSCTL_NET_MAX_IFACES);
	}
	freeifaddrs(list);
	fsctl_net_iface_push(st->out, v, n);
	talloc_free(v);
	return NT_STATUS_OK;
}
