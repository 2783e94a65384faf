/*
 * The connection to ctdbd (see ctdb_conn.h).  The socket is non-blocking;
 * a request writes its packet whole and then reads packets until the
 * reply with its reqid arrives, queueing any message it meets on the way.
 * Replies to requests that timed out earlier (a stale reqid) are dropped.
 */
#include "locking/ctdb/ctdb_conn.h"
#include "locking/ctdb/ctdb_proto.h"
#include "lib/heartbeat.h"
#include "lib/log.h"
#include "lib/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* A message kept for later: a copy of the whole packet. */
struct ctdb_queued {
	struct ctdb_queued *next;
	uint64_t srvid;
	uint8_t *data;
	size_t len;
};

struct ctdb_conn {
	int fd;
	uint32_t pnn;
	uint32_t next_reqid;
	unsigned timeout_ms;
	char *path;
	/* bytes read and not yet cut into packets */
	uint8_t *in;
	size_t in_len, in_cap;
	/* the reply being waited for */
	uint32_t wait_reqid;
	uint8_t *reply;		/* the whole packet once it came */
	size_t reply_len;
	struct ctdb_queued *q_head, *q_tail;
	bool dispatching;
	ctdb_message_fn msg_fn;
	void (*queued_fn)(void *priv);
	void *priv;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int conn_destructor(struct ctdb_conn *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	return 0;
}

static NTSTATUS conn_connect(struct ctdb_conn *c)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t len = strlen(c->path);

	if (len >= sizeof(sun.sun_path)) {
		DBG_ERR("ctdbd socket path %s is too long\n", c->path);
		return NT_STATUS_OBJECT_PATH_INVALID;
	}
	memcpy(sun.sun_path, c->path, len + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	/* Connecting to a local socket does not wait for the peer. */
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		DBG_ERR("cannot connect to ctdbd at %s: %s\n", c->path,
			log_syserr());
		close(c->fd);
		c->fd = -1;
		return NT_STATUS_CONNECTION_REFUSED;
	}
	if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0) {
		close(c->fd);
		c->fd = -1;
		return NT_STATUS_UNSUCCESSFUL;
	}
	return NT_STATUS_OK;
}

static NTSTATUS conn_get_pnn(struct ctdb_conn *c)
{
	int32_t cstatus;
	NTSTATUS status;

	status = ctdb_conn_control(c, CTDB_CURRENT_NODE, CTDB_CONTROL_GET_PNN,
				   0, 0, NULL, 0, NULL, &cstatus, NULL, NULL);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (cstatus < 0) {
		DBG_ERR("ctdbd at %s does not know its node number\n",
			c->path);
		return NT_STATUS_UNSUCCESSFUL;
	}
	c->pnn = (uint32_t)cstatus;
	return NT_STATUS_OK;
}

/* Not connected yet. */
static struct ctdb_conn *conn_new(TALLOC_CTX *mem_ctx, const char *path,
				  unsigned timeout_ms)
{
	struct ctdb_conn *c = talloc_zero(mem_ctx, struct ctdb_conn);

	if (c == NULL) {
		return NULL;
	}
	c->fd = -1;
	c->next_reqid = 1;
	c->timeout_ms = timeout_ms ? timeout_ms : CTDB_CONN_DEFAULT_TIMEOUT_MS;
	c->path = talloc_strdup(c, path);
	if (c->path == NULL) {
		talloc_free(c);
		return NULL;
	}
	talloc_set_destructor(c, conn_destructor);
	return c;
}

NTSTATUS ctdb_conn_open(TALLOC_CTX *mem_ctx, const char *path,
			unsigned timeout_ms, struct ctdb_conn **out)
{
	struct ctdb_conn *c;
	NTSTATUS status;

	*out = NULL;
	c = conn_new(mem_ctx, path, timeout_ms);
	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = conn_connect(c);
	if (NT_STATUS_IS_OK(status)) {
		status = conn_get_pnn(c);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(c);
		return status;
	}
	*out = c;
	return NT_STATUS_OK;
}

/* ctdb_sock_addr: a union of sockaddr_in and sockaddr_in6, as is. */
#define CTDB_SOCK_ADDR_LEN 28

static bool put_sock_addr(uint8_t *p, const struct sockaddr *sa)
{
	size_t len = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
		     : sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						 : 0;

	if (len == 0 || len > CTDB_SOCK_ADDR_LEN) {
		return false;
	}
	memcpy(p, sa, len);
	return true;
}

struct ctdb_conn *ctdb_conn_tcp_client(TALLOC_CTX *mem_ctx, const char *path,
				       unsigned timeout_ms,
				       const struct sockaddr *client,
				       const struct sockaddr *server)
{
	/* struct ctdb_connection: the client ("src"), then the address it
	 * reached ("dst", the public address ctdbd looks up). */
	uint8_t pair[2 * CTDB_SOCK_ADDR_LEN] = {0};
	struct ctdb_conn *c;
	int32_t cstatus = -1;
	NTSTATUS status;

	if (!put_sock_addr(pair, client) ||
	    !put_sock_addr(pair + CTDB_SOCK_ADDR_LEN, server)) {
		return NULL;
	}
	c = conn_new(mem_ctx, path, timeout_ms);
	if (c == NULL) {
		return NULL;
	}
	status = conn_connect(c);
	if (NT_STATUS_IS_OK(status)) {
		status = ctdb_conn_control(c, CTDB_CURRENT_NODE,
					   CTDB_CONTROL_TCP_CLIENT, 0, 0, pair,
					   sizeof(pair), NULL, &cstatus, NULL,
					   NULL);
	}
	if (!NT_STATUS_IS_OK(status) || cstatus != 0) {
		DBG_WARNING("cannot register a client connection with ctdbd "
			    "(%s, %d): no tickle on failover\n",
			    nt_errstr(status), (int)cstatus);
		talloc_free(c);
		return NULL;
	}
	return c;
}

NTSTATUS ctdb_conn_reconnect(struct ctdb_conn *c)
{
	struct ctdb_queued *q;

	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->in_len = 0;
	c->wait_reqid = 0;
	TALLOC_FREE(c->reply);
	while ((q = c->q_head) != NULL) {
		c->q_head = q->next;
		talloc_free(q);
	}
	c->q_tail = NULL;
	NTSTATUS status = conn_connect(c);
	return NT_STATUS_IS_OK(status) ? conn_get_pnn(c) : status;
}

uint32_t ctdb_conn_pnn(const struct ctdb_conn *c)
{
	return c->pnn;
}

int ctdb_conn_fd(const struct ctdb_conn *c)
{
	return c->fd;
}

const char *ctdb_conn_path(const struct ctdb_conn *c)
{
	return c->path;
}

void ctdb_conn_set_handlers(struct ctdb_conn *c, ctdb_message_fn fn,
			    void (*queued)(void *priv), void *priv)
{
	c->msg_fn = fn;
	c->queued_fn = queued;
	c->priv = priv;
}

bool ctdb_conn_has_queued(const struct ctdb_conn *c)
{
	return c->q_head != NULL;
}

/* ---- sending ---- */

static NTSTATUS conn_write(struct ctdb_conn *c, const uint8_t *buf,
			   size_t len)
{
	int64_t deadline = now_ms() + c->timeout_ms;
	size_t done = 0;

	if (c->fd < 0) {
		return NT_STATUS_CONNECTION_DISCONNECTED;
	}
	while (done < len) {
		ssize_t n = sock_send(c->fd, buf + done, len - done,
				      MSG_NOSIGNAL);
		struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
		int64_t left;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == -EINTR) {
			continue;
		}
		if (n < 0 && n != -EAGAIN) {
			DBG_ERR("ctdbd at %s: send: %s\n", c->path,
				strerror((int)-n));
			return NT_STATUS_CONNECTION_DISCONNECTED;
		}
		left = deadline - now_ms();
		if (left <= 0 || heartbeat_poll(&pfd, 1, (int)left) == 0) {
			DBG_ERR("ctdbd at %s takes no data for %u ms\n",
				c->path, c->timeout_ms);
			return NT_STATUS_IO_TIMEOUT;
		}
	}
	return NT_STATUS_OK;
}

/* ---- receiving ---- */

static void queue_message(struct ctdb_conn *c, const struct ctdb_pkt *p)
{
	struct ctdb_queued *q = talloc_zero(c, struct ctdb_queued);

	if (q == NULL) {
		DBG_ERR("no memory for a ctdb message: dropped\n");
		return;
	}
	q->srvid = p->srvid;
	q->len = p->datalen;
	q->data = talloc_memdup(q, p->data, p->datalen ? p->datalen : 1);
	if (q->data == NULL) {
		talloc_free(q);
		return;
	}
	if (c->q_tail != NULL) {
		c->q_tail->next = q;
	} else {
		c->q_head = q;
	}
	c->q_tail = q;
}

/* One whole packet: a message is queued, the awaited reply kept. */
static NTSTATUS take_packet(struct ctdb_conn *c, const uint8_t *buf,
			    size_t len)
{
	struct ctdb_pkt p;
	NTSTATUS status = ctdb_pkt_parse(buf, len, &p);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("ctdbd at %s sent a malformed packet (%zu bytes)\n",
			c->path, len);
		return status;
	}
	switch (p.hdr.operation) {
	case CTDB_REQ_MESSAGE:
		queue_message(c, &p);
		break;
	case CTDB_REPLY_CALL:
	case CTDB_REPLY_ERROR:
	case CTDB_REPLY_CONTROL:
		if (c->wait_reqid != 0 && p.hdr.reqid == c->wait_reqid &&
		    c->reply == NULL) {
			c->reply = talloc_memdup(c, buf, len);
			c->reply_len = len;
			if (c->reply == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
		}
		/* else a late reply to a request that gave up */
		break;
	default:
		DBG_INFO("ctdbd sent operation %u: ignored\n",
			 (unsigned)p.hdr.operation);
		break;
	}
	return NT_STATUS_OK;
}

/* Read what is there and cut whole packets off the front. */
static NTSTATUS conn_read(struct ctdb_conn *c)
{
	for (;;) {
		ssize_t n;
		size_t off = 0;

		if (c->in_cap - c->in_len < 65536) {
			uint8_t *p = talloc_realloc(c, c->in, uint8_t,
						    c->in_len + 65536);
			if (p == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
			c->in = p;
			c->in_cap = c->in_len + 65536;
		}
		n = sock_recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len,
			      0);
		if (n == -EINTR) {
			continue;
		}
		if (n == -EAGAIN) {
			return NT_STATUS_OK;
		}
		if (n <= 0) {
			DBG_ERR("ctdbd at %s closed the connection\n",
				c->path);
			close(c->fd);
			c->fd = -1;
			return NT_STATUS_CONNECTION_DISCONNECTED;
		}
		c->in_len += (size_t)n;
		while (c->in_len - off >= 4) {
			uint32_t plen;
			NTSTATUS status = ctdb_pkt_length(c->in + off, &plen);

			if (!NT_STATUS_IS_OK(status)) {
				DBG_ERR("ctdbd at %s: bad packet length\n",
					c->path);
				close(c->fd);
				c->fd = -1;
				return status;
			}
			if (c->in_len - off < plen) {
				break;
			}
			status = take_packet(c, c->in + off, plen);
			if (!NT_STATUS_IS_OK(status)) {
				close(c->fd);
				c->fd = -1;
				return status;
			}
			off += plen;
		}
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
		/* Give back a buffer a big packet grew. */
		if (c->in_len == 0 && c->in_cap > 4 * 65536) {
			TALLOC_FREE(c->in);
			c->in_cap = 0;
		}
	}
}

/* Send pkt and wait for the reply to reqid; the reply packet is handed
 * over (talloc child of mem_ctx) with its parsed view. */
static NTSTATUS conn_request(struct ctdb_conn *c, uint32_t reqid,
			     const uint8_t *pkt, size_t len,
			     TALLOC_CTX *mem_ctx, uint8_t **reply,
			     struct ctdb_pkt *p)
{
	int64_t deadline = now_ms() + c->timeout_ms;
	bool had_queue = c->q_head != NULL;
	NTSTATUS status;

	c->wait_reqid = reqid;
	TALLOC_FREE(c->reply);
	status = conn_write(c, pkt, len);
	while (NT_STATUS_IS_OK(status) && c->reply == NULL) {
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		int64_t left = deadline - now_ms();
		int r;

		if (left <= 0) {
			DBG_ERR("ctdbd at %s: no reply in %u ms (ctdb "
				"timeout)\n", c->path, c->timeout_ms);
			status = NT_STATUS_IO_TIMEOUT;
			break;
		}
		/* Beating: a wait up to `ctdb timeout` is no hang for
		 * the master's watchdog (lib/heartbeat.h). */
		r = heartbeat_poll(&pfd, 1, (int)left);
		if (r < 0 && r != -EINTR) {
			status = NT_STATUS_UNSUCCESSFUL;
		} else if (r > 0) {
			status = conn_read(c);
		}
	}
	c->wait_reqid = 0;
	if (!had_queue && c->q_head != NULL && c->queued_fn != NULL &&
	    !c->dispatching) {
		c->queued_fn(c->priv);
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(c->reply);
		return status;
	}
	*reply = talloc_steal(mem_ctx, c->reply);
	c->reply = NULL;
	return ctdb_pkt_parse(*reply, c->reply_len, p);
}

static uint32_t conn_reqid(struct ctdb_conn *c)
{
	uint32_t reqid = c->next_reqid++;

	if (c->next_reqid == 0) {
		c->next_reqid = 1;	/* 0 means "waiting for nothing" */
	}
	return reqid;
}

/* A reply's data, copied out (NULL when it has none). */
static NTSTATUS copy_data(const struct ctdb_pkt *p, TALLOC_CTX *mem_ctx,
			  uint8_t **out, size_t *outlen)
{
	*out = NULL;
	*outlen = p->datalen;
	if (p->datalen == 0) {
		return NT_STATUS_OK;
	}
	*out = talloc_memdup(mem_ctx, p->data, p->datalen);
	return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

NTSTATUS ctdb_conn_control(struct ctdb_conn *c, uint32_t destnode,
			   uint32_t opcode, uint64_t srvid, uint32_t flags,
			   const void *in, size_t inlen, TALLOC_CTX *mem_ctx,
			   int32_t *cstatus, uint8_t **out, size_t *outlen)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint32_t reqid = conn_reqid(c);
	uint8_t *pkt, *reply = NULL;
	struct ctdb_pkt p;
	size_t len;
	NTSTATUS status;

	pkt = ctdb_pkt_control(tmp, reqid, destnode, opcode, srvid, flags, in,
			       inlen, &len);
	if (pkt == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	if (flags & CTDB_CTRL_FLAG_NOREPLY) {
		status = conn_write(c, pkt, len);
		talloc_free(tmp);
		return status;
	}
	status = conn_request(c, reqid, pkt, len, tmp, &reply, &p);
	if (NT_STATUS_IS_OK(status) &&
	    p.hdr.operation != CTDB_REPLY_CONTROL) {
		status = NT_STATUS_INVALID_NETWORK_RESPONSE;
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	*cstatus = p.status;
	if (p.status != 0 && p.errlen > 0) {
		DBG_INFO("ctdb control %u: status %d: %.*s\n",
			 (unsigned)opcode, (int)p.status, (int)p.errlen,
			 (const char *)p.errmsg);
	}
	if (out != NULL) {
		status = copy_data(&p, mem_ctx, out, outlen);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS ctdb_conn_attach(struct ctdb_conn *c, const char *name,
			  bool persistent, uint32_t *db_id)
{
	uint8_t *out = NULL;
	size_t outlen = 0;
	int32_t cstatus;
	NTSTATUS status;

	status = ctdb_conn_control(
		c, CTDB_CURRENT_NODE,
		persistent ? CTDB_CONTROL_DB_ATTACH_PERSISTENT
			   : CTDB_CONTROL_DB_ATTACH,
		0, 0, name, strlen(name) + 1, c, &cstatus, &out, &outlen);
	if (NT_STATUS_IS_OK(status) && (cstatus != 0 || outlen != 4)) {
		DBG_ERR("ctdbd refuses to attach %s database %s (%d)\n",
			persistent ? "persistent" : "volatile", name,
			(int)cstatus);
		status = NT_STATUS_UNSUCCESSFUL;
	}
	if (NT_STATUS_IS_OK(status)) {
		memcpy(db_id, out, 4);
	}
	talloc_free(out);
	return status;
}

NTSTATUS ctdb_conn_db_path(struct ctdb_conn *c, uint32_t db_id,
			   TALLOC_CTX *mem_ctx, char **path)
{
	uint8_t *out = NULL;
	size_t outlen = 0;
	int32_t cstatus;
	NTSTATUS status;

	status = ctdb_conn_control(c, CTDB_CURRENT_NODE,
				   CTDB_CONTROL_GETDBPATH, 0, 0, &db_id, 4,
				   mem_ctx, &cstatus, &out, &outlen);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (cstatus != 0 || outlen == 0 || out[outlen - 1] != '\0') {
		talloc_free(out);
		return NT_STATUS_UNSUCCESSFUL;
	}
	*path = (char *)out;
	return NT_STATUS_OK;
}

NTSTATUS ctdb_conn_db_open_flags(struct ctdb_conn *c, uint32_t db_id,
				 int *tdb_flags)
{
	uint8_t *out = NULL;
	size_t outlen = 0;
	int32_t cstatus, v;
	NTSTATUS status;

	status = ctdb_conn_control(c, CTDB_CURRENT_NODE,
				   CTDB_CONTROL_DB_OPEN_FLAGS, 0, 0, &db_id, 4,
				   NULL, &cstatus, &out, &outlen);
	if (NT_STATUS_IS_OK(status) && (cstatus != 0 || outlen != 4)) {
		status = NT_STATUS_UNSUCCESSFUL;
	}
	if (NT_STATUS_IS_OK(status)) {
		memcpy(&v, out, 4);
		*tdb_flags = v;
	}
	talloc_free(out);
	return status;
}

NTSTATUS ctdb_conn_register_srvid(struct ctdb_conn *c, uint64_t srvid)
{
	int32_t cstatus;
	NTSTATUS status;

	status = ctdb_conn_control(c, CTDB_CURRENT_NODE,
				   CTDB_CONTROL_REGISTER_SRVID, srvid, 0, NULL,
				   0, NULL, &cstatus, NULL, NULL);
	if (NT_STATUS_IS_OK(status) && cstatus != 0) {
		status = NT_STATUS_UNSUCCESSFUL;
	}
	return status;
}

NTSTATUS ctdb_conn_call(struct ctdb_conn *c, uint32_t db_id, uint32_t flags,
			uint32_t callid, const uint8_t *key, size_t keylen,
			TALLOC_CTX *mem_ctx, uint8_t **data, size_t *len)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint32_t reqid = conn_reqid(c);
	uint8_t *pkt, *reply = NULL;
	struct ctdb_pkt p;
	size_t plen;
	NTSTATUS status;

	pkt = ctdb_pkt_call(tmp, reqid, db_id, flags, callid, key, keylen,
			    &plen);
	if (pkt == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	status = conn_request(c, reqid, pkt, plen, tmp, &reply, &p);
	if (NT_STATUS_IS_OK(status) && p.hdr.operation == CTDB_REPLY_ERROR) {
		DBG_ERR("ctdbd at %s: call on db 0x%08x failed: %.*s\n",
			c->path, (unsigned)db_id, (int)p.errlen,
			(const char *)p.errmsg);
		status = NT_STATUS_UNSUCCESSFUL;
	} else if (NT_STATUS_IS_OK(status) &&
		   p.hdr.operation != CTDB_REPLY_CALL) {
		status = NT_STATUS_INVALID_NETWORK_RESPONSE;
	}
	if (NT_STATUS_IS_OK(status) && data != NULL) {
		status = copy_data(&p, mem_ctx, data, len);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS ctdb_conn_send_message(struct ctdb_conn *c, uint32_t pnn,
				uint64_t srvid, const void *data, size_t len)
{
	size_t plen;
	uint8_t *pkt = ctdb_pkt_message(NULL, 0, pnn, srvid, data, len, &plen);
	NTSTATUS status;

	if (pkt == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = conn_write(c, pkt, plen);
	talloc_free(pkt);
	return status;
}

NTSTATUS ctdb_conn_dispatch(struct ctdb_conn *c)
{
	NTSTATUS status = NT_STATUS_OK;
	struct ctdb_queued *q;

	if (c->dispatching) {
		return NT_STATUS_OK;
	}
	if (c->fd >= 0) {
		status = conn_read(c);
	} else {
		status = NT_STATUS_CONNECTION_DISCONNECTED;
	}
	c->dispatching = true;
	while ((q = c->q_head) != NULL) {
		c->q_head = q->next;
		if (c->q_head == NULL) {
			c->q_tail = NULL;
		}
		if (c->msg_fn != NULL) {
			c->msg_fn(q->srvid, q->data, q->len, c->priv);
		}
		talloc_free(q);
	}
	c->dispatching = false;
	return status;
}
