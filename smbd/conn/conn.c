/*
 * One client connection: NetBIOS/direct-TCP framing (RFC 1002 4.3,
 * MS-SMB2 2.1) and its lifetime.
 *
 * Every frame is a 4-byte header (type, 24-bit length) and a payload.  On
 * port 139 the client first sends a NetBIOS SESSION REQUEST (type 0x81),
 * which we accept with a POSITIVE SESSION RESPONSE (0x82).  Keep-alives
 * (0x85) are ignored.  Anything else, or a length over SMBD_MAX_PDU, drops
 * the connection: there is no way to resynchronise a byte stream.
 */
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/conn/conn_limits.h"
#include "smbd/conn/conn_log.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/wire.h"
#include "smbd/msg/mailbox.h"
#include "locking/locking.h"
#include "locking/ctdb/ctdb_conn.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_INCOMING_CPU
#define SO_INCOMING_CPU 49
#endif

#define NBT_SESSION_MESSAGE 0x00
#define NBT_SESSION_REQUEST 0x81
#define NBT_POSITIVE_RESPONSE 0x82
#define NBT_KEEPALIVE 0x85

static void conn_on_close(void *priv, int err);

static void conn_on_data(void *priv, const uint8_t *data, size_t len)
{
	smbd_conn_input(priv, data, len);
}

static const struct ev_stream_ops conn_stream_ops = {
	.on_data = conn_on_data,
	.on_close = conn_on_close,
};

static int conn_destructor(struct smbd_conn *conn)
{
	if (conn->client_claimed) {
		status_db_client_release(conn->worker->locking,
					 conn->client_guid, (uint32_t)proc_pid());
	}
	/* A session with another channel carries on over it (3.3.7.1). */
	smbd_sessions_conn_lost(conn);
	smb2_frames_conn_lost(conn);
	/* 3.3.7.1: durable opens outlive their connection. */
	if (conn->worker->hooks.conn_lost != NULL) {
		conn->worker->hooks.conn_lost(conn);
	}
	if (conn->stream != NULL) {
		ev_stream_close(conn->stream);
		conn->stream = NULL;
	}
	smbd_conn_limits_release(conn);
	smbd_conn_log_release(conn);
	conn->worker->nconns--;
	if (conn->wprev != NULL) {
		conn->wprev->wnext = conn->wnext;
	} else if (conn->worker->conns == conn) {
		conn->worker->conns = conn->wnext;
	}
	if (conn->wnext != NULL) {
		conn->wnext->wprev = conn->wprev;
	}
	return 0;
}

static void conn_link(struct smbd_conn *conn)
{
	struct smbd_worker *w = conn->worker;

	conn->wnext = w->conns;
	if (w->conns != NULL) {
		w->conns->wprev = conn;
	}
	w->conns = conn;
}

static void conn_addr_str(const struct sockaddr_storage *ss, char *addr,
			  size_t addrlen, uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;
		inet_ntop(AF_INET, &s4->sin_addr, addr, (socklen_t)addrlen);
		*port = ntohs(s4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, addr, (socklen_t)addrlen);
		*port = ntohs(s6->sin6_port);
	} else {
		snprintf(addr, addrlen, "?");
		*port = 0;
	}
}

struct smbd_conn *smbd_conn_new_detached(struct smbd_worker *w,
					 void (*sink)(struct smbd_conn *,
						      uint8_t *, size_t))
{
	struct smbd_conn *conn = talloc_zero(w, struct smbd_conn);

	if (conn == NULL) {
		return NULL;
	}
	conn->worker = w;
	conn->id = ++w->conn_seq;
	conn->sink = sink;
	w->nconns++;
	conn_link(conn);
	talloc_set_destructor(conn, conn_destructor);
	snprintf(conn->remote, sizeof(conn->remote), "test");
	snprintf(conn->remote_addr, sizeof(conn->remote_addr), "127.0.0.1");
	if (!smb2_credits_init(conn)) {
		talloc_free(conn);
		return NULL;
	}
	return conn;
}

static struct smbd_conn *conn_start_admit(struct smbd_worker *w,
					   struct smbd_conn *conn, int fd,
					   int incoming_cpu);

/*
 * clustering = yes: the connection goes on ctdbd's tickle list for as
 * long as it lives (its registration is a talloc child), so that when
 * CTDB moves the address it reached to another node, the client is reset
 * and reconnects there at once (Samba's smbd does the same).
 */
static void conn_cluster_register(struct smbd_worker *w,
				  struct smbd_conn *conn,
				  const struct sockaddr_storage *peer,
				  const struct sockaddr_storage *local)
{
	struct ctdb_conn *c;

	if (w->locking == NULL || !locking_db_clustered(w->locking)) {
		return;
	}
	c = locking_db_ctdb(w->locking);
	conn->ctdb_tcp = ctdb_conn_tcp_client(
		conn, ctdb_conn_path(c),
		(unsigned)lp_int(w->srv->lp, LP_GLOBAL, LP_CTDB_TIMEOUT),
		(const struct sockaddr *)peer, (const struct sockaddr *)local);
}

static void conn_start(struct smbd_worker *w, int fd)
{
	(void)smbd_conn_start(w, fd);
}

struct smbd_conn *smbd_conn_start(struct smbd_worker *w, int fd)
{
	struct sockaddr_storage ss, peer;
	socklen_t sl = sizeof(ss);
	struct smbd_conn *conn;
	uint16_t rport = 0, lport = 0;
	char laddr[48] = "";
	int one = 1, incoming_cpu = -1, prev_log;
	socklen_t il = sizeof(incoming_cpu);

	if (w->stopping) {
		close(fd);
		return NULL;
	}
	conn = talloc_zero(w, struct smbd_conn);
	if (conn == NULL) {
		close(fd);
		return NULL;
	}
	conn->worker = w;
	conn->id = ++w->conn_seq;
	w->nconns++;
	conn_link(conn);
	talloc_set_destructor(conn, conn_destructor);

	memset(&peer, 0, sizeof(peer));
	if (getpeername(fd, (struct sockaddr *)&peer, &sl) == 0) {
		conn_addr_str(&peer, conn->remote_addr,
			      sizeof(conn->remote_addr), &rport);
	}
	snprintf(conn->remote, sizeof(conn->remote), "%s:%u",
		 conn->remote_addr, rport);
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		conn_addr_str(&ss, laddr, sizeof(laddr), &lport);
		conn_cluster_register(w, conn, &peer, &ss);
	}
	conn->local_port = lport;
	conn->remote_port = rport;
	snprintf(conn->local_addr, sizeof(conn->local_addr), "%s", laddr);
	conn->nbt = lport == 139;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &incoming_cpu, &il);
	w->accepted++;
	w->accepted_local += incoming_cpu == w->cpu;
	smbd_metrics_accepted(w, incoming_cpu == w->cpu);
	smbd_conn_stats_publish(w);
	smbd_conn_log_machine(conn, NULL);
	prev_log = smbd_conn_log_enter(conn);
	conn = conn_start_admit(w, conn, fd, incoming_cpu);
	smbd_conn_log_leave(prev_log);
	return conn;
}

/* conn_start's second half, with the connection's log file current. */
static struct smbd_conn *conn_start_admit(struct smbd_worker *w,
					   struct smbd_conn *conn, int fd,
					   int incoming_cpu)
{
	DBG_NOTICE("worker %d (cpu %d): connection from %s, "
		   "SO_INCOMING_CPU %d\n",
		   w->index, w->cpu, conn->remote, incoming_cpu);
	if (!smbd_conn_hosts_admit(conn, fd) ||
	    !smbd_conn_limits_admit(conn)) {
		close(fd);
		talloc_free(conn);
		return NULL;
	}
	smbd_conn_logon_timer_start(conn);

	if (!smb2_credits_init(conn)) {
		close(fd);
		talloc_free(conn);
		return NULL;
	}
	conn->stream = ev_stream_new(w->loop, fd, &conn_stream_ops, conn);
	if (conn->stream == NULL) {
		talloc_free(conn);
		return NULL;
	}
	return conn;
}

/*
 * One status record per worker, rewritten at each accept: whether the
 * steering and the NIC's interrupt placement (smbd-irq(8), `smbd irq
 * affinity`) bring each connection to the worker on the CPU that received
 * it shows as local == accepted.
 */
void smbd_conn_stats_publish(struct smbd_worker *w)
{
	char text[128];

	snprintf(text, sizeof(text),
		 "cpu=%d\naccepted=%" PRIu64 "\nlocal=%" PRIu64 "\n", w->cpu,
		 w->accepted, w->accepted_local);
	status_db_put(w->locking, STATUS_WORKER, (uint32_t)proc_pid(),
		      (uint64_t)w->index, 0, text);
}

void smbd_conn_accept(struct smbd_worker *w, int fd)
{
	if (w->stopping) {
		close(fd);
		return;
	}
	smbd_accept_after_barrier(w, fd, conn_start);
}

bool smbd_spread_create(struct smbd_server *srv)
{
	void *p;

	if (!lp_bool(srv->lp, LP_GLOBAL, LP_SMBD_SPREAD_CONNECTIONS)) {
		return true;
	}
	p = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		DBG_ERR("smbd spread connections: %s\n", log_syserr());
		return false;
	}
	srv->spread_ctr = p;
	return true;
}

void smbd_spread_accept(struct smbd_worker *w, int fd)
{
	struct smbd_server *srv = w->srv;
	int to;

	if (srv->spread_ctr == NULL || srv->mbox == NULL) {
		smbd_conn_accept(w, fd);
		return;
	}
	to = (int)(__atomic_fetch_add(srv->spread_ctr, 1, __ATOMIC_RELAXED) %
		   (uint64_t)srv->nworkers);
	if (to == w->index ||
	    !smbd_mailbox_send(w->mbox, to, SMBD_MSG_CONN, NULL, 0, fd)) {
		/* Ours, or served here rather than lost. */
		smbd_conn_accept(w, fd);
		return;
	}
	close(fd);
}

/* SMBD_MSG_CONN: a connection another worker spread to this one. */
static void conn_msg_accept(void *priv, int from, const void *body, int fd)
{
	if (fd != -1) {
		smbd_conn_accept(priv, fd);
	}
}

void smbd_conn_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_CONN, conn_msg_accept, 0, true);
}

/*
 * While a frame is being handled (conn->busy) the connection is only
 * marked dead; conn_frame() frees it when the handler has returned, so no
 * handler ever runs on freed memory.
 */
static void conn_release(struct smbd_conn *conn)
{
	if (conn->busy) {
		conn->dead = true;
		if (conn->stream != NULL) {
			ev_stream_close(conn->stream);
			conn->stream = NULL;
		}
		return;
	}
	talloc_free(conn);
}

void smbd_conn_disconnect(struct smbd_conn *conn, const char *why)
{
	if (!conn->dead) {
		DBG_NOTICE("dropping connection from %s: %s\n", conn->remote,
			   why);
	}
	conn_release(conn);
}

static void conn_on_close(void *priv, int err)
{
	struct smbd_conn *conn = priv;
	int prev = smbd_conn_log_enter(conn);

	DBG_INFO("connection from %s closed%s%s\n", conn->remote,
		 err ? ": " : "", err ? strerror(err) : "");
	smbd_conn_log_leave(prev);
	conn->stream = NULL; /* the loop frees it */
	conn_release(conn);
}

void smbd_conn_send_frame(struct smbd_conn *conn, uint8_t *buf, size_t len)
{
	smbd_conn_send_frame_file(conn, buf, len, -1, 0, 0);
}

void smbd_conn_send_frame_file(struct smbd_conn *conn, uint8_t *buf,
			       size_t len, int fd, uint64_t off, size_t flen)
{
	size_t payload = len - 4 + flen;

	put_be32(buf, (uint32_t)payload); /* type 0, 24-bit length */
	if (conn->sink != NULL && fd == -1) {
		conn->sink(conn, buf, len);
		return;
	}
	if (conn->stream == NULL || conn->sink != NULL) {
		/* A sink never gets a file part: its captured frames would
		 * lack the data (smb2_reply_can_send_file refuses). */
		talloc_free(buf);
		if (fd != -1) {
			close(fd);
		}
		return;
	}
	ev_stream_send_file(conn->stream, buf, len, fd, off, flen);
}

/*
 * Handle one complete frame.  Returns false when the connection was
 * freed (the caller must not touch conn any more).
 */
static bool conn_frame_log(struct smbd_conn *conn, uint8_t type,
			   const uint8_t *payload, size_t len, uint8_t *owned);

/* The lines logged while the frame is handled go to the connection's
 * log file (conn_log.h). */
static bool conn_frame(struct smbd_conn *conn, uint8_t type,
		       const uint8_t *payload, size_t len, uint8_t *owned)
{
	int prev = smbd_conn_log_enter(conn);
	bool alive = conn_frame_log(conn, type, payload, len, owned);

	smbd_conn_log_leave(prev);
	return alive;
}

static bool conn_frame_log(struct smbd_conn *conn, uint8_t type,
			   const uint8_t *payload, size_t len, uint8_t *owned)
{
	conn->busy = true;
	switch (type) {
	case NBT_SESSION_MESSAGE:
		if (conn->nbt && !conn->nbt_session_ok) {
			smbd_conn_disconnect(conn, "SMB before NetBIOS "
						   "session request");
			break;
		}
		smb2_process_frame(conn, payload, len, owned);
		owned = NULL;
		break;
	case NBT_SESSION_REQUEST: {
		uint8_t *ok;

		if (!conn->nbt || conn->nbt_session_ok) {
			smbd_conn_disconnect(conn, "unexpected NetBIOS "
						   "session request");
			break;
		}
		/* Called and calling names are not checked: like Samba we
		 * answer to any name (`netbios aliases` is not needed). */
		conn->nbt_session_ok = true;
		ok = talloc_zero_size(NULL, 4);
		if (ok == NULL) {
			smbd_conn_disconnect(conn, "out of memory");
			break;
		}
		ok[0] = NBT_POSITIVE_RESPONSE;
		if (conn->sink != NULL) {
			conn->sink(conn, ok, 4);
		} else {
			ev_stream_send(conn->stream, ok, 4);
		}
		break;
	}
	case NBT_KEEPALIVE:
		break;
	default:
		smbd_conn_disconnect(conn, "bad NetBIOS frame type");
		break;
	}
	talloc_free(owned);
	conn->busy = false;
	if (conn->dead) {
		talloc_free(conn);
		return false;
	}
	return conn->stream != NULL || conn->sink != NULL;
}

static bool conn_check_header(struct smbd_conn *conn, const uint8_t *h,
			      size_t *len)
{
	*len = ((size_t)h[1] << 16) | ((size_t)h[2] << 8) | h[3];
	if (!conn->logged_on && *len > SMBD_MAX_PRELOGON_PDU) {
		/* Before a logon nothing needs more (conn_limits.h): an
		 * anonymous peer holds at most this much of our memory. */
		smbd_conn_disconnect(conn, "frame too long before logon");
		return false;
	}
	if (*len > SMBD_MAX_PDU) {
		smbd_conn_disconnect(conn, "frame longer than the maximum");
		return false;
	}
	return true;
}

void smbd_conn_input(struct smbd_conn *conn, const uint8_t *data, size_t len)
{
	while (len > 0) {
		size_t flen, take;

		if (conn->frame != NULL) {
			/* Continue an incomplete frame. */
			take = conn->frame_len - conn->frame_have;
			if (take > len) {
				take = len;
			}
			memcpy(conn->frame + conn->frame_have, data, take);
			conn->frame_have += take;
			data += take;
			len -= take;
			if (conn->frame_have < conn->frame_len) {
				return;
			}
			{
				uint8_t *f = conn->frame;
				bool alive;

				conn->rest = data;
				conn->rest_len = len;
				conn->frame = NULL;
				talloc_steal(NULL, f);
				alive = conn_frame(conn, conn->hdr[0], f,
						   conn->frame_len, f);
				if (!alive) {
					return;
				}
			}
			conn->hdr_have = 0;
			continue;
		}
		if (conn->hdr_have < 4) {
			take = 4 - conn->hdr_have;
			if (conn->hdr_have == 0 && len >= 4) {
				/* Fast path: whole frame in this buffer. */
				if (!conn_check_header(conn, data, &flen)) {
					return;
				}
				if (len - 4 >= flen) {
					conn->rest = data + 4 + flen;
					conn->rest_len = len - 4 - flen;
					if (!conn_frame(conn, data[0], data + 4,
							flen, NULL)) {
						return;
					}
					data += 4 + flen;
					len -= 4 + flen;
					continue;
				}
			}
			if (take > len) {
				take = len;
			}
			memcpy(conn->hdr + conn->hdr_have, data, take);
			conn->hdr_have += take;
			data += take;
			len -= take;
			if (conn->hdr_have < 4) {
				return;
			}
		}
		if (!conn_check_header(conn, conn->hdr, &flen)) {
			return;
		}
		if (flen == 0) {
			conn->hdr_have = 0;
			conn->rest = data;
			conn->rest_len = len;
			if (!conn_frame(conn, conn->hdr[0], conn->hdr, 0,
					NULL)) {
				return;
			}
			continue;
		}
		conn->frame = talloc_size(conn, flen);
		if (conn->frame == NULL) {
			smbd_conn_disconnect(conn, "out of memory");
			return;
		}
		conn->frame_len = flen;
		conn->frame_have = 0;
	}
}
