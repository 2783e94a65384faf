/*
 * Listening sockets and connection steering (DESIGN.md "Connection
 * steering").
 *
 * For every (address, port) the master opens one SO_REUSEPORT socket per
 * worker, in worker order, and attaches a classic-BPF program to the group:
 * it loads the number of the CPU that received the connection (SKF_AD_CPU)
 * and returns the index of the worker pinned on that CPU.  The kernel
 * indexes the group in the order the sockets joined it, so the order here
 * is fixed for the life of the master: it keeps every socket open and a
 * restarted worker gets its own socket back.
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "smbd/msg/mailbox.h"
#include "conf/loadparm.h"
#include "lib/ifspec.h"
#include "lib/log.h"
#include "lib/netif.h"
#include "lib/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif

bool smbd_choose_cpus(struct smbd_server *srv)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE];
	int ncpus = 0, i, want;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		DBG_ERR("sched_getaffinity: %s\n", log_syserr());
		return false;
	}
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, &set)) {
			cpus[ncpus++] = i;
		}
	}
	if (ncpus == 0) {
		return false;
	}
	want = lp_int(srv->lp, LP_GLOBAL, LP_SMBD_WORKERS);
	if (want <= 0) {
		want = ncpus;
	}
	if (want > 1024) {
		DBG_ERR("smbd workers = %d is more than 1024\n", want);
		return false;
	}
	srv->nworkers = want;
	srv->worker_cpus = talloc_array(srv, int, want);
	if (srv->worker_cpus == NULL) {
		return false;
	}
	/* More workers than CPUs wrap around; fewer use the first CPUs. */
	for (i = 0; i < want; i++) {
		srv->worker_cpus[i] = cpus[i % ncpus];
	}
	return true;
}

/* The index connections meant for worker i go to: i, or when the
 * watchdog avoids it (late heartbeat, smbd_steer_avoid), the next one
 * it does not avoid. */
static uint32_t steer_target(const struct smbd_server *srv, const bool *avoid,
			     int i)
{
	int k;

	for (k = 0; avoid != NULL && k < srv->nworkers; k++) {
		int j = (i + k) % srv->nworkers;

		if (!avoid[j]) {
			return (uint32_t)j;
		}
	}
	return (uint32_t)i;	/* all avoided: nowhere better */
}

/*
 * BPF: A = receiving CPU; for each worker i on CPU c: if (A == c) return
 * i; otherwise A % nworkers (a CPU without a worker still spreads).
 * Workers avoid[] marks get nothing: their CPUs' connections, and the
 * spread ones, go to steer_target().
 */
static int smbd_attach_steering(struct smbd_server *srv, int fd,
				const bool *avoid)
{
	struct sock_filter *code;
	struct sock_fprog prog;
	int n = srv->nworkers, i, k = 0, ret;

	code = talloc_array(srv, struct sock_filter, 4 * n + 4);
	if (code == NULL) {
		return -ENOMEM;
	}
	code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 SKF_AD_OFF + SKF_AD_CPU);
	for (i = 0; i < n; i++) {
		/* jt: fall to the next insn (the ret); jf: skip it. */
		code[k++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K,
			(uint32_t)srv->worker_cpus[i], 0, 1);
		code[k++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, steer_target(srv, avoid, i));
	}
	code[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_MOD | BPF_K,
						 (uint32_t)n);
	for (i = 0; avoid != NULL && i < n; i++) {
		/* BPF_MAXINSNS: past it the spread may still hit one */
		if (!avoid[i] || k + 3 > BPF_MAXINSNS) {
			continue;
		}
		code[k++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)i, 0, 1);
		code[k++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, steer_target(srv, avoid, i));
	}
	code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	prog.len = (unsigned short)k;
	prog.filter = code;
	ret = sock_setopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog));
	talloc_free(code);
	return ret;
}

/*
 * The master's watchdog, for worker `from` whose heartbeat is late: the
 * connections already queued on its sockets (the kernel steered them
 * there before it was avoided) are accepted here and handed to worker
 * `to` as a spread connection (SMBD_MSG_CONN, smbd/conn/conn.c), rather
 * than waiting for it or for its successor.  The sockets are
 * non-blocking: this takes what is there and returns how many.  One the
 * late worker's io_uring already accepted in the kernel is its own (and
 * is reset if it is killed).
 */
unsigned smbd_take_queued(struct smbd_server *srv, int from, int to)
{
	unsigned n = 0;
	size_t g;
	int fd;

	for (g = 0; g < srv->ngroups; g++) {
		while ((fd = accept4(srv->groups[g].fds[from], NULL, NULL,
				     SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
			if (smbd_mailbox_post_fd(srv, to, SMBD_MSG_CONN, NULL,
						 0, fd)) {
				n++;
			}
			close(fd);	/* the message took a copy */
		}
	}
	return n;
}

/* Whether the groups have our program (the master's; set at open). */
static bool steering_attached;

/*
 * The master's watchdog: a worker whose heartbeat is late gets no new
 * connections until it beats again or is replaced (avoid NULL or all
 * false: the CPU mapping as at start).  The kernel swaps a group's
 * program atomically; connections already queued on the late worker's
 * socket stay there for it, or for its successor, which gets the same
 * socket.  Without our program (`smbd reuseport steering = no`, or the
 * kernel refused it) the kernel's hash spreads and nothing changes here.
 */
void smbd_steer_avoid(struct smbd_server *srv, const bool *avoid)
{
	size_t g;
	int ret;

	if (!steering_attached) {
		return;
	}
	for (g = 0; g < srv->ngroups; g++) {
		ret = smbd_attach_steering(srv, srv->groups[g].fds[0], avoid);
		if (ret != 0) {
			DBG_WARNING("cannot steer %s port %u: %s\n",
				    srv->groups[g].addr, srv->groups[g].port,
				    strerror(-ret));
		}
	}
}

/* An attempt that may be repeated: a port in use is not logged. */
static bool listen_retrying;

static int smbd_open_group(struct smbd_server *srv, const char *addr,
			   uint16_t port)
{
	struct addrinfo hints, *ai = NULL;
	struct smbd_listen_group *g;
	char portstr[8];
	bool steer = lp_bool(srv->lp, LP_GLOBAL, LP_SMBD_REUSEPORT_STEERING);
	int i, ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(portstr, sizeof(portstr), "%u", port);
	ret = getaddrinfo(addr, portstr, &hints, &ai);
	if (ret != 0) {
		DBG_ERR("cannot listen on %s: %s\n", addr, gai_strerror(ret));
		return -EINVAL;
	}
	srv->groups = talloc_realloc(srv, srv->groups, struct smbd_listen_group,
				     srv->ngroups + 1);
	if (srv->groups == NULL) {
		freeaddrinfo(ai);
		return -ENOMEM;
	}
	g = &srv->groups[srv->ngroups++];
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	g->port = port;
	/* A port in a SO_REUSEPORT group is shared with any process of
	 * the same user that joins it (another smbd, say): make sure it is
	 * free first with a plain bind (lib/sock.h). */
	ret = sock_port_free(ai->ai_addr, ai->ai_addrlen);
	if (ret != 0) {
		if (ret != -EADDRINUSE || !listen_retrying) {
			DBG_ERR("cannot listen on %s port %u: %s\n", addr,
				port, strerror(-ret));
		}
		freeaddrinfo(ai);
		srv->ngroups--;
		return ret;
	}
	g->fds = talloc_array(srv->groups, int, srv->nworkers);
	for (i = 0; g->fds != NULL && i < srv->nworkers; i++) {
		g->fds[i] = sock_listen_reuseport(ai->ai_addr, ai->ai_addrlen,
						  1024);
		if (g->fds[i] < 0) {
			ret = g->fds[i];
			DBG_ERR("cannot listen on %s port %u: %s\n", addr, port,
				strerror(-ret));
			while (i-- > 0) {
				close(g->fds[i]);
			}
			freeaddrinfo(ai);
			srv->ngroups--;
			return ret;
		}
	}
	freeaddrinfo(ai);
	if (g->fds == NULL) {
		return -ENOMEM;
	}
	if (steer && srv->nworkers > 1) {
		ret = smbd_attach_steering(srv, g->fds[0], NULL);
		if (ret != 0) {
			DBG_WARNING("no CPU steering on %s port %u (%s): the "
				    "kernel's hash spreads connections\n",
				    addr, port, strerror(-ret));
		} else {
			steering_attached = true;
		}
	}
	DBG_NOTICE("listening on %s port %u with %d sockets\n", addr, port,
		   srv->nworkers);
	return 0;
}

/* Add host to the addresses to listen on, unless it is there already
 * (`interfaces = lo 127.0.0.1/8` names 127.0.0.1 twice). */
static void addrs_add(TALLOC_CTX *mem_ctx, char ***out, size_t *nout,
		      const char *host)
{
	char **n;
	size_t i;

	for (i = 0; i < *nout; i++) {
		if (strcmp((*out)[i], host) == 0) {
			return;
		}
	}
	n = talloc_realloc(mem_ctx, *out, char *, *nout + 1);
	if (n == NULL) {
		return;
	}
	*out = n;
	n[*nout] = talloc_strdup(n, host);
	if (n[*nout] != NULL) {
		(*nout)++;
	}
}

/* Whether addr/bits names one host of its network: neither the network
 * address (host bits all zero) nor its broadcast (all one). */
static bool host_address(const uint8_t *addr, int family, int bits)
{
	int len = family == AF_INET ? 32 : 128;
	bool zero = true, one = true;
	int i;

	for (i = bits; i < len; i++) {
		bool bit = (addr[i / 8] >> (7 - i % 8)) & 1;

		zero &= !bit;
		one &= bit;
	}
	return bits < len && !zero && !one;
}

/*
 * `interfaces` entries, as Samba reads them (lib/ifspec.h): an address;
 * a network with /len or /mask, meaning the local addresses in that
 * network (127.0.0.0/8 is lo's 127.0.0.1); an address of a network with
 * /len, meaning that address when a local interface is in the network
 * (127.0.0.2/8, as Samba binds it); or an interface name
 * (wildcards allowed), meaning its addresses.  Each address is listed
 * once.  Multichannel options after ';' do not change what is bound
 * (lp_check has reported a bad one).
 */
static int smbd_interface_addrs(TALLOC_CTX *mem_ctx, const char *entry,
				char ***out, size_t *nout)
{
	struct ifspec spec;
	char err[160];
	uint8_t want[16];
	int family, bits, ret;
	struct ifaddrs *ifa, *p;

	(void)ifspec_parse(entry, &spec, err, sizeof(err));
	if (spec.what[0] == '\0') {
		DBG_ERR("interfaces: %s\n", err);
		return -EINVAL;
	}
	family = ifspec_address(&spec, want, &bits);
	if (family < 0) {
		DBG_ERR("interfaces: bad mask in '%s'\n", spec.what);
		return -EINVAL;
	}
	if (family != 0 && bits < 0) {
		addrs_add(mem_ctx, out, nout, spec.what);
		return 0;
	}
	ret = netif_addrs_get(&ifa);
	if (ret != 0) {
		return ret;
	}
	if (family != 0 && host_address(want, family, bits)) {
		/* 127.0.0.2/8: Samba binds that address itself when a
		 * local interface is in its network (the other 127.x
		 * addresses of lo, an alias a cluster moves in). */
		for (p = ifa; p != NULL; p = p->ifa_next) {
			if (p->ifa_addr != NULL &&
			    ifspec_match(&spec, p->ifa_name, p->ifa_addr)) {
				char *host = talloc_strndup(
					mem_ctx, spec.what,
					strcspn(spec.what, "/"));

				if (host != NULL) {
					addrs_add(mem_ctx, out, nout, host);
				}
				break;
			}
		}
		freeifaddrs(ifa);
		return 0;
	}
	for (p = ifa; p != NULL; p = p->ifa_next) {
		char host[64];
		socklen_t len;

		if (p->ifa_addr == NULL ||
		    !ifspec_match(&spec, p->ifa_name, p->ifa_addr)) {
			continue;
		}
		len = p->ifa_addr->sa_family == AF_INET
			      ? sizeof(struct sockaddr_in)
			      : sizeof(struct sockaddr_in6);
		if ((p->ifa_addr->sa_family != AF_INET &&
		     p->ifa_addr->sa_family != AF_INET6) ||
		    getnameinfo(p->ifa_addr, len, host, sizeof(host), NULL, 0,
				NI_NUMERICHOST) != 0 ||
		    strchr(host, '%') != NULL) {
			continue; /* skip link-local scoped addresses */
		}
		addrs_add(mem_ctx, out, nout, host);
	}
	freeifaddrs(ifa);
	return 0;
}

static void smbd_close_listeners(struct smbd_server *srv)
{
	size_t g;
	int i;

	for (g = 0; g < srv->ngroups; g++) {
		for (i = 0; srv->groups[g].fds != NULL && i < srv->nworkers;
		     i++) {
			close(srv->groups[g].fds[i]);
		}
	}
	TALLOC_FREE(srv->groups);
	srv->ngroups = 0;
}

static int smbd_open_listeners_once(struct smbd_server *srv);

/*
 * wait_ms: after killing a previous run's workers (orphans.c).  The
 * process is gone before its sockets are: an io_uring instance is torn
 * down by a kernel worker after its process exited, and the listening
 * sockets its accepts held go then (a few milliseconds), so a port in
 * use is tried again until then.
 */
int smbd_open_listeners(struct smbd_server *srv, unsigned wait_ms)
{
	struct timespec ts;
	uint64_t now, deadline;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	deadline = now + wait_ms;
	for (;;) {
		listen_retrying = now < deadline;
		ret = smbd_open_listeners_once(srv);
		if (ret != -EADDRINUSE || !listen_retrying) {
			break;
		}
		smbd_close_listeners(srv);
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000 +
		      (uint64_t)ts.tv_nsec / 1000000;
	}
	listen_retrying = false;
	return ret;
}

static int smbd_open_listeners_once(struct smbd_server *srv)
{
	TALLOC_CTX *tmp = talloc_new(srv);
	const char **ports = lp_list(tmp, srv->lp, LP_GLOBAL, LP_SMB_PORTS);
	char **addrs = NULL;
	size_t naddrs = 0, a, p;
	int ret = 0;

	if (lp_bool(srv->lp, LP_GLOBAL, LP_BIND_INTERFACES_ONLY)) {
		const char **ifs = lp_list(tmp, srv->lp, LP_GLOBAL,
					   LP_INTERFACES);
		for (a = 0; ifs != NULL && ifs[a] != NULL; a++) {
			(void)smbd_interface_addrs(tmp, ifs[a], &addrs, &naddrs);
		}
		if (naddrs == 0) {
			DBG_ERR("bind interfaces only = yes, but no address "
				"found in interfaces\n");
			talloc_free(tmp);
			return -EINVAL;
		}
	} else {
		addrs = talloc_array(tmp, char *, 2);
		addrs[naddrs++] = talloc_strdup(addrs, "0.0.0.0");
		addrs[naddrs++] = talloc_strdup(addrs, "::");
	}
	for (p = 0; ports != NULL && ports[p] != NULL && ret == 0; p++) {
		char *end;
		unsigned long port = strtoul(ports[p], &end, 10);

		if (*end != '\0' || port == 0 || port > 65535) {
			DBG_ERR("smb ports: invalid port '%s'\n", ports[p]);
			ret = -EINVAL;
			break;
		}
		for (a = 0; a < naddrs && ret == 0; a++) {
			ret = smbd_open_group(srv, addrs[a], (uint16_t)port);
			/* No IPv6 on this host is not an error (the failed
			 * group was already dropped). */
			if ((ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL) &&
			    strchr(addrs[a], ':') != NULL) {
				ret = 0;
			}
		}
	}
	if (ret == 0 && srv->ngroups == 0) {
		DBG_ERR("no listening socket: check smb ports and "
			"interfaces\n");
		ret = -EINVAL;
	}
	talloc_free(tmp);
	return ret;
}
