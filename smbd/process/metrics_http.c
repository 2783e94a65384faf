/*
 * The metrics endpoint's process (metrics_http.h): one poll() loop over
 * the listening socket and at most METRICS_HTTP_MAX_CLIENTS scrapers.
 * Each scraper may send METRICS_HTTP_MAX_REQUEST bytes of request and
 * has METRICS_HTTP_TIMEOUT_MS from accept until its answer is written;
 * one over the limit is answered 503 (if its socket takes it at once)
 * and closed.  The answer is built in one piece from the shared table
 * (lib/metrics_prom.c), then written as the socket takes it; every
 * answer closes the connection (no keep-alive: a scrape a few times a
 * minute gains nothing from it).  After an answer the rest of what the
 * client sends is read and dropped for up to METRICS_HTTP_LINGER_MS, so
 * that closing with unread input (a 431) does not reset the connection
 * under the answer.
 *
 * Why a process of its own: the master waits on signals with
 * sigtimedwait() and must stay simple and unblockable, a worker's loop
 * must never wait on a scraper, and a thread in the master would make
 * each fork of a restarted worker a fork of a threaded process.
 */
#include "smbd/process/metrics_http.h"
#include "smbd/process/process.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/log.h"
#include "lib/metrics.h"
#include "lib/num.h"
#include "lib/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define METRICS_HTTP_LINGER_MS 1000

/* The master's: the endpoint's process, its socket (kept for a restart)
 * and when it was last started. */
static pid_t metrics_http_pid = -1;
static int metrics_http_fd = -1;
static uint64_t metrics_http_started_ms;

/* The end of the request's headers in buf, or NULL. */
static const char *request_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n') {
			continue;
		}
		if (buf[i + 1] == '\n') {
			return buf + i + 2;
		}
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n') {
			return buf + i + 3;
		}
	}
	return NULL;
}

static bool is_tchar(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* RFC 9112 3: method SP request-target SP HTTP-version, on line[0..n). */
static int parse_request_line(const char *line, size_t n)
{
	const char *sp1, *sp2, *target, *q;
	size_t mlen, tlen, vlen, plen;

	sp1 = memchr(line, ' ', n);
	if (sp1 == NULL || sp1 == line) {
		return 400;
	}
	mlen = (size_t)(sp1 - line);
	target = sp1 + 1;
	sp2 = memchr(target, ' ', n - mlen - 1);
	if (sp2 == NULL || sp2 == target) {
		return 400;
	}
	tlen = (size_t)(sp2 - target);
	vlen = n - mlen - tlen - 2;
	if (vlen != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
			  memcmp(sp2 + 1, "HTTP/1.0", 8) != 0)) {
		return 400;
	}
	for (q = line; q < sp1; q++) {
		if (!is_tchar(*q)) {
			return 400;
		}
	}
	for (q = target; q < sp2; q++) {
		if ((unsigned char)*q <= ' ' || (unsigned char)*q >= 0x7f) {
			return 400;
		}
	}
	if (target[0] != '/') {
		return 400;
	}
	if (mlen != 3 || memcmp(line, "GET", 3) != 0) {
		return 405;
	}
	q = memchr(target, '?', tlen);
	plen = q != NULL ? (size_t)(q - target) : tlen;
	return plen == 8 && memcmp(target, "/metrics", 8) == 0 ? 200 : 404;
}

int metrics_http_parse(const char *buf, size_t len)
{
	const char *end, *nl;
	size_t n;

	if (len > METRICS_HTTP_MAX_REQUEST) {
		return 431;
	}
	if (memchr(buf, '\0', len) != NULL) {
		return 400;
	}
	end = request_end(buf, len);
	if (end == NULL) {
		return len == METRICS_HTTP_MAX_REQUEST ? 431 : 0;
	}
	nl = memchr(buf, '\n', (size_t)(end - buf));
	n = (size_t)(nl - buf);
	if (n > 0 && buf[n - 1] == '\r') {
		n--;
	}
	return parse_request_line(buf, n);
}

bool metrics_listen_parse(const char *value, struct sockaddr_storage *ss,
			  socklen_t *sslen)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *h = value;
	size_t hlen;
	char *endp;
	unsigned long long port;

	colon = strrchr(value, ':');
	if (colon == NULL || colon == value) {
		return false;
	}
	hlen = (size_t)(colon - value);
	if (value[0] == '[') {
		if (hlen < 3 || value[hlen - 1] != ']') {
			return false;
		}
		h = value + 1;
		hlen -= 2;
	}
	if (hlen >= sizeof(host) || colon[1] < '0' || colon[1] > '9') {
		return false;
	}
	if (!num_strtoull(colon + 1, &endp, 10, &port) || *endp != '\0' ||
	    port == 0 || port > 65535) {
		return false;
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (value[0] != '[' && inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*s4);
		return true;
	}
	if (value[0] == '[' && inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*s6);
		return true;
	}
	return false;
}

struct scraper {
	int fd;			/* -1: free */
	uint64_t deadline_ms;
	char in[METRICS_HTTP_MAX_REQUEST];
	size_t in_len;
	char *out;		/* the answer, once known */
	size_t out_len, out_off;
	bool draining;		/* answered: reading to the client's end */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Bad Request";
	}
}

/* The whole answer for code (the metrics for 200) in s->out. */
static void scraper_answer(struct scraper *s, struct metrics_shm *m, int code)
{
	char *body = NULL;

	if (code == 200) {
		body = metrics_prom_text(NULL, m);
		if (body == NULL) {
			code = 500;
		}
	}
	if (body == NULL) {
		body = talloc_asprintf(NULL, "%d %s\n", code, reason(code));
	}
	s->out = talloc_asprintf(
		NULL,
		"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		"Connection: close\r\n%s\r\n%s",
		code, reason(code),
		code == 200 ? "text/plain; version=0.0.4; charset=utf-8"
			    : "text/plain; charset=utf-8",
		body ? strlen(body) : 0,
		code == 405 ? "Allow: GET\r\n" : "", body ? body : "");
	talloc_free(body);
	s->out_len = s->out != NULL ? strlen(s->out) : 0;
	s->out_off = 0;
}

static void scraper_close(struct scraper *s)
{
	close(s->fd);
	s->fd = -1;
	talloc_free(s->out);
	s->out = NULL;
	s->in_len = 0;
	s->draining = false;
}

/* Answered: our end is closed, theirs is read until it closes. */
static bool scraper_drain(struct scraper *s)
{
	char buf[4096];
	ssize_t n;

	if (!s->draining) {
		uint64_t linger = now_ms() + METRICS_HTTP_LINGER_MS;

		s->draining = true;
		talloc_free(s->out);
		s->out = NULL;
		if (linger < s->deadline_ms) {
			s->deadline_ms = linger;
		}
		return shutdown(s->fd, SHUT_WR) == 0;
	}
	n = sock_read(s->fd, buf, sizeof(buf));
	return n > 0 || n == -EAGAIN || n == -EINTR;
}

/* Read what came, answer once the request is whole; false: close. */
static bool scraper_read(struct scraper *s, struct metrics_shm *m)
{
	ssize_t n = sock_read(s->fd, s->in + s->in_len,
			      sizeof(s->in) - s->in_len);
	int code;

	if (n <= 0) {
		return n == -EAGAIN || n == -EINTR;
	}
	s->in_len += (size_t)n;
	code = metrics_http_parse(s->in, s->in_len);
	if (code != 0) {
		scraper_answer(s, m, code);
		return s->out != NULL;
	}
	return true;
}

/* Write what the socket takes; false when done or failed: close. */
static bool scraper_write(struct scraper *s)
{
	ssize_t n = sock_write(s->fd, s->out + s->out_off,
			       s->out_len - s->out_off);

	if (n < 0) {
		return n == -EAGAIN || n == -EINTR;
	}
	s->out_off += (size_t)n;
	return s->out_off < s->out_len || scraper_drain(s);
}

static void scraper_accept(int lfd, struct scraper *sc)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				   "Content-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	unsigned i;

	if (fd == -1) {
		return;
	}
	for (i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++) {
		if (sc[i].fd == -1) {
			sc[i].fd = fd;
			sc[i].deadline_ms = now_ms() + METRICS_HTTP_TIMEOUT_MS;
			return;
		}
	}
	/* Too many at once: what the socket buffer takes, then goodbye. */
	(void)!write(fd, busy, sizeof(busy) - 1);
	close(fd);
}

static void metrics_http_loop(int lfd, struct metrics_shm *m)
{
	struct scraper sc[METRICS_HTTP_MAX_CLIENTS];
	struct pollfd pfd[METRICS_HTTP_MAX_CLIENTS + 1];
	unsigned i;

	for (i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++) {
		sc[i].fd = -1;
		sc[i].out = NULL;
		sc[i].in_len = 0;
		sc[i].draining = false;
	}
	for (;;) {
		uint64_t now = now_ms(), next = now + 60000;
		int r;

		pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++) {
			pfd[i + 1] = (struct pollfd){
				.fd = sc[i].fd,
				.events = sc[i].out != NULL ? POLLOUT : POLLIN};
			if (sc[i].fd != -1 && sc[i].deadline_ms < next) {
				next = sc[i].deadline_ms;
			}
		}
		r = sock_poll(pfd, METRICS_HTTP_MAX_CLIENTS + 1,
			      next > now ? (int)(next - now) : 0);
		if (r < 0 && r != -EINTR) {
			DBG_ERR("metrics endpoint: poll: %s\n", strerror(-r));
			return;
		}
		now = now_ms();
		for (i = 0; i < METRICS_HTTP_MAX_CLIENTS; i++) {
			struct scraper *s = &sc[i];
			short ev = pfd[i + 1].revents;
			bool keep = true;

			if (s->fd == -1) {
				continue;
			}
			if (ev & (POLLERR | POLLHUP | POLLNVAL)) {
				keep = false;
			} else if (ev & POLLOUT) {
				keep = scraper_write(s);
			} else if ((ev & POLLIN) && s->draining) {
				keep = scraper_drain(s);
			} else if (ev & POLLIN) {
				keep = scraper_read(s, m);
			}
			if (!keep || now >= s->deadline_ms) {
				scraper_close(s);
			}
		}
		if (pfd[0].revents & POLLIN) {
			scraper_accept(lfd, sc);
		}
	}
}

static int metrics_listen_socket(const char *value)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	if (!metrics_listen_parse(value, &ss, &sl)) {
		DBG_ERR("smbd metrics listen = \"%s\": not a numeric ADDRESS:"
			"PORT (127.0.0.1:9922, [::1]:9922); no metrics "
			"endpoint\n", value);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 16) != 0) {
		DBG_ERR("smbd metrics listen = \"%s\": %s; no metrics "
			"endpoint\n", value, log_syserr());
		if (fd != -1) {
			close(fd);
		}
		return -1;
	}
	return fd;
}

/* The endpoint only reads the table and talks to scrapers: it does so
 * with the table mapped read-only and, when started as root, as the
 * unprivileged `nobody`, so a flaw in its HTTP handling reaches nothing
 * of the server's. */
static void metrics_http_confine(struct metrics_shm *m)
{
	const struct passwd *pw;

	if (m != NULL) {
		(void)mprotect(m->hdr, m->size, PROT_READ);
	}
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (geteuid() != 0) {
		return;
	}
	pw = getpwnam("nobody");
	if (pw == NULL || setgroups(0, NULL) != 0 ||
	    setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) {
		DBG_ERR("metrics endpoint: cannot become nobody: %s\n",
			log_syserr());
		_exit(1);
	}
}

/* The endpoint's process: none of the master's signal handling, dies
 * with the master. */
static void metrics_http_child(struct smbd_server *srv, int lfd,
			       pid_t master)
{
	sigset_t none;
	size_t g;
	int i;

	log_set_role("metrics");
	if (srv->alive_wr != -1) {
		close(srv->alive_wr);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (srv->control_fd != -1) {
		close(srv->control_fd);
	}
	for (g = 0; g < srv->ngroups; g++) {
		for (i = 0; i < srv->nworkers; i++) {
			close(srv->groups[g].fds[i]);
		}
	}
	metrics_http_confine(smbd_metrics_table(srv));
	/* Die with the master.  Armed after the confinement: the kernel
	 * clears the parent-death signal when the effective ids change,
	 * and they do not change after this.  The master may have died
	 * before: then our parent is someone else already. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != master) {
		_exit(0);
	}
	metrics_http_loop(lfd, smbd_metrics_table(srv));
	_exit(1);
}

static bool metrics_http_fork(struct smbd_server *srv)
{
	pid_t master = getpid(), pid = fork();

	if (pid == -1) {
		DBG_ERR("metrics endpoint: cannot fork: %s\n", log_syserr());
		return false;
	}
	if (pid == 0) {
		metrics_http_child(srv, metrics_http_fd, master);
	}
	metrics_http_pid = pid;
	metrics_http_started_ms = now_ms();
	return true;
}

void smbd_metrics_http_start(struct smbd_server *srv)
{
	const char *value = lp_str(srv->lp, LP_GLOBAL, LP_SMBD_METRICS_LISTEN);
	int lfd;

	if (value == NULL || value[0] == '\0') {
		return;
	}
	if (smbd_metrics_table(srv) == NULL) {
		DBG_ERR("smbd metrics listen = \"%s\" but no metrics table "
			"(smbd metrics = no?): no metrics endpoint\n", value);
		return;
	}
	lfd = metrics_listen_socket(value);
	if (lfd == -1) {
		return;
	}
	metrics_http_fd = lfd;
	if (!metrics_http_fork(srv)) {
		close(lfd);
		metrics_http_fd = -1;
		return;
	}
	DBG_NOTICE("metrics endpoint on %s (pid %d)\n", value,
		   (int)metrics_http_pid);
}

/* Started again at once, unless it died within a second of its start
 * (then it would only die again: it stays off, logged). */
bool smbd_metrics_http_reaped(struct smbd_server *srv, pid_t pid,
			      int status)
{
	if (pid != metrics_http_pid || pid <= 0) {
		return false;
	}
	metrics_http_pid = -1;
	DBG_ERR("metrics endpoint (pid %d) died (status 0x%x)\n", (int)pid,
		status);
	if (now_ms() - metrics_http_started_ms < 1000) {
		DBG_ERR("metrics endpoint: died at start, not restarted\n");
		return true;
	}
	(void)metrics_http_fork(srv);
	return true;
}

pid_t smbd_metrics_http_pid(void)
{
	return metrics_http_pid;
}

void smbd_metrics_http_stop(void)
{
	if (metrics_http_pid > 0) {
		kill(metrics_http_pid, SIGTERM);
		metrics_http_pid = -1;
	}
	if (metrics_http_fd != -1) {
		close(metrics_http_fd);
		metrics_http_fd = -1;
	}
}
