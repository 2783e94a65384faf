/*
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 3.3.5.15.11): the
 * server's network interfaces, each usable address as one
 * NETWORK_INTERFACE_INFO (2.2.32.5) with the link speed, for clients
 * choosing channels.  Addresses come from getifaddrs(3); when smb.conf
 * has `interfaces`, only the addresses its entries name, with the speed,
 * capabilities and index an entry gives ("eth0;speed=10000000000,
 * capability=RSS", Samba's syntax, lib/ifspec.h) in place of the
 * detected ones.  Detected: the speed from /sys/class/net/IF/speed
 * (Mbit/s), RSS_CAPABLE when the NIC has more than one receive queue
 * (/sys/class/net/IF/queues/rx-N), the kernel's interface index.
 * Loopback is listed only when nothing else is, and IPv6 link-local
 * addresses never (they are useless without a scope the client
 * shares).  Small and rare: answered on the loop thread.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/ifspec.h"
#include "lib/netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* What one answer lists at most. */
#define FSCTL_NET_MAX_IFACES 64
/* Link speed when the kernel does not know it (virtual NICs): 1 Gbit/s,
 * what Samba reports too. */
#define FSCTL_NET_DEFAULT_SPEED 1000000000ULL

/* The detected link speed, 1 Gbit/s when sysfs does not say. */
static uint64_t net_link_speed(const char *ifname)
{
	uint64_t speed = netif_link_speed(ifname);

	return speed != 0 ? speed : FSCTL_NET_DEFAULT_SPEED;
}

/* The `interfaces` entry naming this address: the first that does. */
static const struct ifspec *net_spec_of(const struct ifaddrs *ifa,
					const struct ifspec *specs,
					size_t nspecs)
{
	size_t i;

	for (i = 0; i < nspecs; i++) {
		if (ifspec_match(&specs[i], ifa->ifa_name, ifa->ifa_addr)) {
			return &specs[i];
		}
	}
	return NULL;
}

/*
 * One entry from an address; false when the address is not listed.
 * specs: the `interfaces` entries, NULL for "every interface".
 */
static bool net_iface_from(const struct ifaddrs *ifa, bool loopback,
			   const struct ifspec *specs, size_t nspecs,
			   struct fsctl_net_iface *v)
{
	const struct ifspec *spec = NULL;

	if (ifa->ifa_addr == NULL || !(ifa->ifa_flags & IFF_UP) ||
	    ((ifa->ifa_flags & IFF_LOOPBACK) != 0) != loopback) {
		return false;
	}
	if (specs != NULL) {
		spec = net_spec_of(ifa, specs, nspecs);
		if (spec == NULL) {
			return false;
		}
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
	v->if_index = spec != NULL && spec->if_index != 0
			      ? spec->if_index
			      : netif_index(ifa->ifa_name);
	v->link_speed = spec != NULL && spec->speed != 0
				? spec->speed
				: net_link_speed(ifa->ifa_name);
	v->capability = spec != NULL && spec->caps_given
				? spec->caps
				: netif_multi_queue(ifa->ifa_name)
					  ? IFSPEC_CAP_RSS
					  : 0;
	return true;
}

static size_t net_ifaces_collect(const struct ifaddrs *list, bool loopback,
				 const struct ifspec *specs, size_t nspecs,
				 struct fsctl_net_iface *v, size_t max)
{
	const struct ifaddrs *ifa;
	size_t n = 0;

	for (ifa = list; ifa != NULL && n < max; ifa = ifa->ifa_next) {
		if (net_iface_from(ifa, loopback, specs, nspecs, &v[n])) {
			n++;
		}
	}
	return n;
}

/* The `interfaces` entries that parse (lp_check refused the others at
 * start; a reload may bring new ones, which are skipped here too). */
static size_t net_specs(TALLOC_CTX *mem_ctx, struct smb2_ioctl_state *st,
			struct ifspec **out)
{
	const char **ifs = lp_list(mem_ctx, st->req->conn->worker->srv->lp,
				   LP_GLOBAL, LP_INTERFACES);
	size_t n = 0, i;
	char err[160];

	*out = NULL;
	i = 0;
	while (ifs != NULL && ifs[i] != NULL) {
		i++;
	}
	if (i == 0) {
		return 0;	/* no `interfaces`: every interface */
	}
	*out = talloc_array(mem_ctx, struct ifspec, i);
	if (*out == NULL) {
		return 0;
	}
	for (i = 0; ifs[i] != NULL; i++) {
		if (ifspec_parse(ifs[i], &(*out)[n], err, sizeof(err))) {
			n++;
		}
	}
	return n;
}

NTSTATUS smb2_fsctl_network_interface_info(struct smb2_ioctl_state *st)
{
	TALLOC_CTX *tmp = talloc_new(st->req->mem_ctx);
	struct fsctl_net_iface *v;
	struct ifspec *specs;
	struct ifaddrs *list;
	size_t n, nspecs;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	nspecs = net_specs(tmp, st, &specs);
	v = talloc_array(tmp, struct fsctl_net_iface, FSCTL_NET_MAX_IFACES);
	if (v == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	if (!netif_addrs(&list)) {
		talloc_free(tmp);
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	n = net_ifaces_collect(list, false, specs, nspecs, v,
			       FSCTL_NET_MAX_IFACES);
	if (n == 0) {
		n = net_ifaces_collect(list, true, specs, nspecs, v,
				       FSCTL_NET_MAX_IFACES);
	}
	netif_addrs_free(list);
	fsctl_net_iface_push(st->out, v, n);
	talloc_free(tmp);
	return NT_STATUS_OK;
}
