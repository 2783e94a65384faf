/*
 * smbd/smb2/: the SMB2 commands, one file per command family (MS-SMB2
 * 3.3.5.x): negotiate, sesssetup, tcon, create and its parts, close,
 * read, write, lock, ioctl and its fsctls, querydir, getinfo, setinfo,
 * notify, break, and the IPC$ pipe opens.
 *
 * What it may use: the connection layer (smbd/conn/: the request, its
 * session and tree, jobs, signing) and everything below it (objects,
 * auth, rpc, locking, vfs, conf, msg, lib).  Nothing below calls a
 * command by name: the dispatcher finds them in smb2_protocol, which
 * the worker hands it at start (smbd_worker.smb2), and the objects reach
 * the commands only through the hooks they register (smbd/objects/).
 */
#ifndef SMBD_SMB2_CMDS_H
#define SMBD_SMB2_CMDS_H

#include "smbd/conn/smb2_server.h"

struct smbd_worker;
struct smbd_open;
struct fscc_ea;

/*
 * A worker's SMB2 server, at its start (the worker's and the test
 * server's): the command table in w->smb2, the hooks of w->hooks, a
 * mailbox in w->mbox if it has none yet, and every owner's mailbox
 * handlers (connections, barrier, breaks, durable hand-overs, notify,
 * sessions).  False when out of memory.
 */
bool smb2_server_install(struct smbd_worker *w);

/* The table, SMB1 NEGOTIATE and the reply hook (smb2_cmds.c). */
extern const struct smb2_protocol smb2_protocol;

/* Mailbox handlers of the commands (smb2_notify.c, smb2_sesssetup.c). */
void smbd_notify_register(struct smbd_worker *w);
void smbd_sesssetup_register(struct smbd_worker *w);
/* smb2_notify.c, as hooks.open_closing: the open goes; a waiting
 * CHANGE_NOTIFY completes with STATUS_NOTIFY_CLEANUP. */
void smbd_notify_close(struct smbd_open *op);

/* Handlers, by command family. */
NTSTATUS smb2_negotiate(struct smb2_request *req);
NTSTATUS smb2_echo(struct smb2_request *req);
NTSTATUS smb2_sesssetup(struct smb2_request *req);
NTSTATUS smb2_logoff(struct smb2_request *req);
NTSTATUS smb2_tcon(struct smb2_request *req);
NTSTATUS smb2_tdis(struct smb2_request *req);
NTSTATUS smb2_ioctl(struct smb2_request *req);
NTSTATUS smb2_create(struct smb2_request *req);
NTSTATUS smb2_close(struct smb2_request *req);
NTSTATUS smb2_read(struct smb2_request *req);
NTSTATUS smb2_write(struct smb2_request *req);
NTSTATUS smb2_flush(struct smb2_request *req);
NTSTATUS smb2_lock(struct smb2_request *req);
NTSTATUS smb2_getinfo(struct smb2_request *req);
NTSTATUS smb2_setinfo(struct smb2_request *req);
NTSTATUS smb2_querydir(struct smb2_request *req);
NTSTATUS smb2_break(struct smb2_request *req);
NTSTATUS smb2_notify(struct smb2_request *req);
/* 3.3.5.2.5: CreditCharge must cover len bytes (64 KiB per credit). */
NTSTATUS smb2_check_io_charge(struct smb2_request *req, uint32_t len);
/* SMB1 NEGOTIATE with "SMB 2.002"/"SMB 2.???" (smb2_negotiate.c). */
void smb1_negotiate(struct smbd_conn *conn, const uint8_t *buf, size_t len);
/* Store a FILE_FULL_EA_INFORMATION list (fscc_ea_list_pull()) on fd as
 * user.NAME xattrs (an empty value removes one); Samba's own metadata
 * names are refused (smb2_setinfo.c; SET_INFO and CREATE's ExtA). */
NTSTATUS smbd_eas_set(TALLOC_CTX *mem_ctx, int fd, const struct fscc_ea *eas,
		      size_t count);

#endif
