/*
 * smbstatus's records (smbd/objects/status.c over locking/status_db.c).
 */
#ifndef SMBD_STATUS_H
#define SMBD_STATUS_H

#include <stdbool.h>

struct smbd_session;
struct smbd_tcon;
struct smbd_open;

/* up: the session is logged on / the share connected / the file open;
 * false when it goes. */
void smbd_status_session(struct smbd_session *s, bool up);
void smbd_status_tcon(struct smbd_tcon *t, bool up);
void smbd_status_open(struct smbd_open *op, bool up);

#endif
