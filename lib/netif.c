/*
 * Network interfaces as the kernel tells them (design in netif.h).
 */
#include "lib/netif.h"

#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

bool netif_addrs(struct ifaddrs **list)
{
	return getifaddrs(list) == 0;
}

int netif_addrs_get(struct ifaddrs **list)
{
	return getifaddrs(list) == 0 ? 0 : -errno;
}

void netif_addrs_free(struct ifaddrs *list)
{
	freeifaddrs(list);
}

uint32_t netif_index(const char *ifname)
{
	return if_nametoindex(ifname);
}

uint64_t netif_link_speed(const char *ifname)
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
	return mbit > 0 ? (uint64_t)mbit * 1000000ULL : 0;
}

bool netif_multi_queue(const char *ifname)
{
	char path[64 + IF_NAMESIZE];
	struct dirent *de;
	unsigned rx = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (d == NULL) {
		return false;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "rx-", 3) == 0) {
			rx++;
		}
	}
	closedir(d);
	return rx > 1;
}
