/*
 * Per-client log files: `log file = /var/log/samba/log.%m`.
 *
 * Samba's smbd is one process per client and reopens its log as
 * log.<machine> once it knows the machine; our workers serve many
 * clients, so each connection holds a lib/log client handle and the lines
 * logged while one of its frames is handled go to its machine's file.
 * The machine (%m) is the client's address until a logon names its
 * workstation (the NTLMSSP Workstation field, lower-cased and cut to
 * NetBIOS-safe characters, as Samba's set_remote_machine_name does); %I
 * is the address.  Lines logged outside a connection's frame (the master,
 * accept, timers, pool threads) go to the main file, which is `log file`
 * with %m as "smbd".
 */
#ifndef SMBD_CONN_LOG_H
#define SMBD_CONN_LOG_H

struct smbd_conn;

/* Whether `log file` names per-client files (set up by main.c). */
void smbd_conn_log_enable(int on);
/* Point conn's lines at the file for machine (NULL: its address). */
void smbd_conn_log_machine(struct smbd_conn *conn, const char *machine);
/* conn's file becomes the current one; returns what to restore. */
int smbd_conn_log_enter(const struct smbd_conn *conn);
void smbd_conn_log_leave(int prev);
/* The destructor's part. */
void smbd_conn_log_release(struct smbd_conn *conn);

#endif
