/*
 * The pid file and the persistent server GUID: small files the master
 * keeps in `pid directory` and `state directory`.
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "conf/loadparm.h"
#include "lib/crypto.h"
#include "lib/log.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int pidfile_fd = -1;

/*
 * smbd.pid, locked with a write lock for the master's life: a second
 * master on the same configuration sees the lock and refuses to start.
 */
bool smbd_pidfile_create(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_PID_DIRECTORY);
	struct flock fl;
	char buf[32];
	int fd, n;

	(void)mkdir(dir, 0755);
	srv->pidfile = talloc_asprintf(srv, "%s/smbd.pid", dir);
	fd = open(srv->pidfile, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1) {
		DBG_ERR("cannot open pid file %s: %s\n", srv->pidfile,
			log_syserr());
		return false;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		n = (int)read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';	/* the first line */
		DBG_ERR("smbd is already running (pid %s, pid file %s)\n",
			buf[0] != '\0' ? buf : "?", srv->pidfile);
		close(fd);
		return false;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) != 0 || write(fd, buf, (size_t)n) != n) {
		DBG_ERR("cannot write pid file %s: %s\n", srv->pidfile,
			log_syserr());
		close(fd);
		return false;
	}
	pidfile_fd = fd;
	return true;
}

/* The pid of a live master holding the pid file's lock, or 0. */
pid_t smbd_pidfile_holder(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_PID_DIRECTORY);
	char *path = talloc_asprintf(srv, "%s/smbd.pid", dir);
	struct flock fl;
	pid_t holder = 0;
	int fd;

	fd = path != NULL ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	talloc_free(path);
	if (fd == -1) {
		return 0;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
		holder = fl.l_pid > 0 ? fl.l_pid : 1;
	}
	close(fd);
	return holder;
}

void smbd_pidfile_remove(struct smbd_server *srv)
{
	if (pidfile_fd != -1 && srv->pidfile != NULL) {
		unlink(srv->pidfile);
		close(pidfile_fd);
		pidfile_fd = -1;
	}
}

/*
 * The server GUID must be the same on every connection and across
 * restarts (MS-SMB2 3.3.1.5 ServerGuid; clients use it to recognise a
 * server for multichannel and durable reconnects).
 */
bool smbd_load_server_guid(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_STATE_DIRECTORY);
	char *path = talloc_asprintf(srv, "%s/smbd_server_guid", dir);
	char *tmp = talloc_asprintf(srv, "%s.tmp", path);
	bool ok = false;
	ssize_t n;
	int fd;

	(void)mkdir(dir, 0755);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd != -1) {
		n = read(fd, srv->server_guid, sizeof(srv->server_guid));
		close(fd);
		if (n == (ssize_t)sizeof(srv->server_guid)) {
			ok = true;
			goto done;
		}
		DBG_WARNING("%s is damaged; making a new server GUID\n", path);
	}
	crypto_random(srv->server_guid, sizeof(srv->server_guid));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 ||
	    write(fd, srv->server_guid, sizeof(srv->server_guid)) !=
		    (ssize_t)sizeof(srv->server_guid) ||
	    fsync(fd) != 0 || rename(tmp, path) != 0) {
		DBG_ERR("cannot store the server GUID in %s: %s\n", path,
			log_syserr());
	} else {
		ok = true;
	}
	if (fd != -1) {
		close(fd);
	}
done:
	talloc_free(path);
	talloc_free(tmp);
	return ok;
}
