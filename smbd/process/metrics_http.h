/*
 * The metrics endpoint (issue 20): `smbd metrics listen = ADDR:PORT`
 * serves GET /metrics in Prometheus's text format from a small process of
 * its own that the master forks after the workers; it only reads the
 * shared table (lib/metrics.h), so a slow or hostile scraper can hold
 * neither the master nor a worker.
 */
#ifndef SMBD_PROCESS_METRICS_HTTP_H
#define SMBD_PROCESS_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct smbd_server;

/* Limits on what a scraper may make the endpoint hold. */
#define METRICS_HTTP_MAX_REQUEST 4096	/* request line and headers */
#define METRICS_HTTP_MAX_CLIENTS 8	/* scrapers served at once */
#define METRICS_HTTP_TIMEOUT_MS 5000	/* from accept to the last byte */

/*
 * What to answer to the len bytes received so far: 0 while the request
 * (up to the blank line after its headers) is incomplete, else the HTTP
 * status: 200 for GET /metrics (a query string is ignored), 404 for
 * another path, 405 for another method, 400 for anything malformed, 431
 * for a request longer than METRICS_HTTP_MAX_REQUEST.
 */
int metrics_http_parse(const char *buf, size_t len);

/* "127.0.0.1:9922" or "[::1]:9922" into a socket address; false when
 * value is not a numeric address and a port. */
bool metrics_listen_parse(const char *value, struct sockaddr_storage *ss,
			  socklen_t *sslen);

/* Master, after the workers started: start the endpoint when `smbd
 * metrics listen` is set (a bad value or a port in use is logged, and
 * the server runs without it). */
void smbd_metrics_http_start(struct smbd_server *srv);
/* Master, for each child reaped: true when pid was the endpoint's
 * process (logged, and started again). */
bool smbd_metrics_http_reaped(struct smbd_server *srv, pid_t pid,
			      int status);
/* Master, stopping: end the endpoint's process. */
void smbd_metrics_http_stop(void);
/* The endpoint's process, or -1 (the master's list of its children). */
pid_t smbd_metrics_http_pid(void);

#endif
