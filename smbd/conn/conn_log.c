/*
 * Per-client log files (see conn_log.h): the path is `log file` with %m
 * and %I substituted for the connection, its handle kept in conn->log_slot
 * (handle + 1, so a zeroed connection has none).
 */
#include "smbd/conn/conn_log.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "conf/loadparm.h"
#include "lib/log.h"
#include "smbd/conn/conn.h"
#include "smbd/smbd.h"

static int conn_log_on;

void smbd_conn_log_enable(int on)
{
	conn_log_on = on;
}

/* Samba's remote machine name: lower case, NetBIOS-safe characters
 * (letters, digits, ". -_"), others as '_'. */
static void machine_name(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] != '\0' && i + 1 < size; i++) {
		unsigned char c = (unsigned char)in[i];

		out[i] = isalnum(c) || c == '.' || c == '-' || c == '_' ||
				 c == ' '
			 ? (char)tolower(c)
			 : '_';
	}
	out[i] = '\0';
}

void smbd_conn_log_machine(struct smbd_conn *conn, const char *machine)
{
	struct lp_subst s = {0};
	char name[64];
	char *path;
	int h, cur;
	bool mine;

	if (!conn_log_on) {
		return;
	}
	/* Switching while one of conn's frames is handled (a logon): the
	 * rest of the frame goes to the new file. */
	cur = log_set_current(-1);
	mine = conn->log_slot != 0 && cur == conn->log_slot - 1;
	machine_name(machine != NULL && machine[0] != '\0' ? machine
							   : conn->remote_addr,
		     name, sizeof(name));
	s.client_name = name;
	s.client_ip = conn->remote_addr;
	path = lp_str_subst(NULL, conn->worker->srv->lp, LP_GLOBAL,
			    LP_LOG_FILE, &s);
	h = log_client_open(path);
	talloc_free(path);
	smbd_conn_log_release(conn);
	conn->log_slot = h + 1;
	(void)log_set_current(mine ? h : cur);
}

int smbd_conn_log_enter(const struct smbd_conn *conn)
{
	if (conn->log_slot == 0) {
		return log_set_current(-1);
	}
	return log_set_current(conn->log_slot - 1);
}

void smbd_conn_log_leave(int prev)
{
	(void)log_set_current(prev);
}

void smbd_conn_log_release(struct smbd_conn *conn)
{
	if (conn->log_slot != 0) {
		log_client_close(conn->log_slot - 1);
		conn->log_slot = 0;
	}
}
