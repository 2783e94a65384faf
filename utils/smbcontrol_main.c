/*
 * smbcontrol: send a message to a running smbd (Samba's tool's verbs,
 * see smbd/process/control.h and smbcontrol(1)).  It reads smb.conf for the lock
 * directory, sends one datagram to the master's socket there from an
 * abstract-namespace address of its own, and waits (bounded) for the
 * answer.
 */
#include "config.h"
#include "conf/loadparm.h"
#include "smbd/process/control.h"
#include "lib/log.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <talloc.h>
#include <unistd.h>


static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbcontrol [-s CONFIGFILE] [-t SECONDS] smbd MESSAGE "
		"[ARGUMENT]\n"
		"Messages:\n"
		"  reload-config       re-read smb.conf (as SIGHUP)\n"
		"  shutdown            stop the server (as SIGTERM)\n"
		"  debug LEVEL         set the log level of every process\n"
		"  close-share NAME    disconnect every tree of share NAME\n"
		"  ping                check the server answers\n");
}

static int control_send(const char *lockdir, const char *req, int timeout_s)
{
	struct sockaddr_un to = {.sun_family = AF_UNIX};
	struct sockaddr_un me = {.sun_family = AF_UNIX};
	char answer[SMBD_CONTROL_MAX + 16];
	struct pollfd p;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(to.sun_path, sizeof(to.sun_path), "%s/%s",
			     lockdir, SMBD_CONTROL_SOCKET) >=
	    sizeof(to.sun_path)) {
		fprintf(stderr, "smbcontrol: lock directory too long\n");
		return 1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* An abstract address (leading NUL) the answer comes back to. */
	snprintf(me.sun_path + 1, sizeof(me.sun_path) - 1, "smbcontrol-%d",
		 (int)getpid());
	if (fd == -1 ||
	    bind(fd, (struct sockaddr *)&me,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     strlen(me.sun_path + 1))) != 0) {
		fprintf(stderr, "smbcontrol: socket: %s\n", strerror(errno));
		return 1;
	}
	if (sendto(fd, req, strlen(req), 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0) {
		fprintf(stderr, "smbcontrol: no smbd answers at %s: %s\n",
			to.sun_path, strerror(errno));
		close(fd);
		return 1;
	}
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, timeout_s * 1000) != 1 ||
	    (n = recv(fd, answer, sizeof(answer) - 1, 0)) < 0) {
		fprintf(stderr, "smbcontrol: no answer from smbd within %d s\n",
			timeout_s);
		close(fd);
		return 1;
	}
	close(fd);
	answer[n] = '\0';
	if (strncmp(answer, "ok", 2) != 0) {
		fprintf(stderr, "smbcontrol: smbd: %s\n", answer);
		return 1;
	}
	if (strcmp(answer, "ok pong") == 0) {
		printf("PONG from smbd\n");
	}
	return 0;
}

/* -t SECONDS: a whole number (0 or less: the default, 10), small enough
 * for poll()'s milliseconds in an int. */
static bool parse_timeout(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v > INT_MAX / 1000) {
		return false;
	}
	*out = v > 0 ? (int)v : 10;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"configfile", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = LP_DEFAULT_CONFIG_FILE;
	int timeout_s = 10, c, rc;
	char req[SMBD_CONTROL_MAX], arg[SMBD_CONTROL_MAX];
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;

	while ((c = getopt_long(argc, argv, "s:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			config = optarg;
			break;
		case 't':
			if (!parse_timeout(optarg, &timeout_s)) {
				fprintf(stderr, "smbcontrol: invalid timeout "
					"'%s'\n", optarg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind < 2 || argc - optind > 3 ||
	    strcmp(argv[optind], "smbd") != 0) {
		usage(stderr);
		return 1;
	}
	snprintf(req, sizeof(req), "%s%s%s", argv[optind + 1],
		 argc - optind == 3 ? " " : "",
		 argc - optind == 3 ? argv[optind + 2] : "");
	/* Checked here too, so a typo is told before anything is sent. */
	if (smbd_control_parse(req, strlen(req), arg, sizeof(arg)) ==
		    SMBD_CONTROL_NONE &&
	    strcmp(arg, "pong") != 0) {
		fprintf(stderr, "smbcontrol: %s\n", arg);
		usage(stderr);
		return 1;
	}
	log_set_level(0);
	lp = lp_new(mem);
	if (lp == NULL || !lp_load_file(lp, config)) {
		fprintf(stderr, "smbcontrol: cannot load %s\n", config);
		return 1;
	}
	rc = control_send(lp_str(lp, LP_GLOBAL, LP_LOCK_DIRECTORY), req,
			  timeout_s);
	talloc_free(mem);
	return rc;
}
