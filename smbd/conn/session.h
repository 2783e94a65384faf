/*
 * Sessions and tree connects (MS-SMB2 3.3.1.8 Session, 3.3.1.9 TreeConnect).
 *
 * A session is a talloc child of its connection, a tree connect a child
 * of its session, so LOGOFF, TREE_DISCONNECT and a dropped connection free
 * everything below them (DESIGN.md "Memory").
 */
#ifndef SMBD_SESSION_H
#define SMBD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/conn/smb2_signing.h"
#include "vfs/vfs.h"

struct smbd_conn;
struct smbd_worker;
struct gensec;
struct smbd_tcon;
struct auth_result;
struct auth_sid;
struct tpool_cred;
struct tpool_lane;

enum smbd_session_state {
	SMBD_SESSION_IN_PROGRESS,
	SMBD_SESSION_VALID,
};

/* Per connection: a terminal server multiplexes its users over one
 * connection, so logged-on sessions may be many; a handful of logons in
 * progress is all a real client ever has. */
#define SMBD_MAX_SESSIONS 1024
#define SMBD_MAX_PENDING_SESSIONS 8

/*
 * One more connection bound to a session (MS-SMB2 3.3.1.8
 * Session.ChannelList, 3.3.5.5.2): a talloc child of that connection, so
 * a dropped channel takes only its own record.  The session stays a
 * child of the connection it was set up on (session->conn, the primary
 * channel), which also holds its opens; when that one drops while others
 * live, the session moves to one of them (smbd_sessions_conn_lost).
 */
struct smbd_channel {
	struct smbd_channel *prev, *next;	/* session->channels */
	struct smbd_channel *cnext;		/* conn->channels */
	struct smbd_session *session;
	struct smbd_conn *conn;
	bool bound;		/* authenticated: signing_key is valid */
	struct gensec *gensec;	/* while binding */
	uint8_t preauth_hash[64];	/* 3.1.1 (3.3.5.5) */
	uint8_t signing_key[16];	/* Channel.SigningKey (3.3.5.5.3) */
	enum smb2_sign_algo sign_algo;	/* the connection's */
	uint64_t since;		/* NTTIME it was bound (smbstatus) */
};

/* Channels a session may have, its first included (3.3.5.5.2: past the
 * server's limit binding fails with INSUFFICIENT_RESOURCES); 32 as
 * Windows Server 2012 R2 and 2016 (smbtorture multichannel.num_channels). */
#define SMBD_MAX_CHANNELS 32

struct smbd_session {
	struct smbd_session *prev, *next;
	struct smbd_session *hnext;	/* conn->session_hash chain */
	struct smbd_session *whnext;	/* worker->session_hash chain */
	struct smbd_conn *conn;
	uint64_t id;
	enum smbd_session_state state;
	struct gensec *gensec;		/* while authenticating */
	/* `username map script`'s answer for this logon (user_map.c):
	 * for client name map_client, map_result (NULL: not mapped). */
	char *map_client, *map_result;
	/* `obey pam restrictions`: the PAM session opened for it, closed
	 * when it ends (smbd/smb2/smb2_sesssetup_pam.c); NULL: none. */
	struct sesssetup_pam *pam;
	uint8_t preauth_hash[64];	/* 3.1.1, per session (3.3.5.5) */

	/* Who is logged on. */
	bool anonymous, guest;
	char *account_name;		/* as authenticated */
	char *domain;
	char *unix_name;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t ngroups;
	char *home;
	/* security = ads, a domain user: the token's SIDs (struct
	 * auth_user_info's: user, primary group, other groups); 0 for
	 * passdb users, guest and anonymous. */
	struct auth_sid *sids;
	size_t nsids;

	/* Keys (3.3.5.5.3). */
	bool has_keys;
	uint8_t session_key[16];
	struct smb2_keys keys;
	enum smb2_sign_algo sign_algo;
	/* What signs on session->conn: the session's key and algorithm,
	 * until the first connection dropped and the session moved to a
	 * channel, whose key and algorithm these become. */
	uint8_t conn_key[16];
	enum smb2_sign_algo conn_algo;
	bool signing_required;
	bool encrypt;		/* Session.EncryptData (3.3.5.5.3) */
	/* The client asked Apple's AAPL server query on a share with fruit
	 * and was answered: like Samba's fruit, the session then gets the
	 * macOS behaviours (fruit:posix_rename). */
	bool aapl;
	/* ... and was granted READ_DIR_ATTR, which it asked for in its
	 * client caps on a share with streams: its listings on fruit
	 * shares carry the Mac metadata (smb2_querydir.c) */
	bool aapl_readdir;

	struct smbd_tcon *tcons;
	unsigned ntcons;	/* in tcons; at most SMBD_MAX_TCONS_PER_SESSION */
	/* TREE_CONNECTs whose root is being entered in the pool (each
	 * holds a descriptor there); counted against the same bound */
	unsigned ntcons_entering;
	uint32_t next_tid;

	/* The other connections bound to it (multichannel). */
	struct smbd_channel *channels;
	unsigned nchannels;
	uint64_t since;		/* NTTIME conn began to serve it */
};

struct fd_share;
struct ev_loop;

struct smbd_tcon {
	struct smbd_tcon *prev, *next;
	struct smbd_session *session;
	uint32_t id;
	int snum;		/* share in the configuration, -1 for IPC$ */
	unsigned metrics_slot;	/* metrics share slot + 1, 0: not looked up */
	char *share_name;
	char *section;		/* its smb.conf section ("homes" for a home) */
	char *path;		/* resolved `path` (substitutions done) */
	bool ipc;
	bool read_only;
	uint32_t maximal_access;
	bool use_sendfile;	/* `use sendfile`: zero-copy READ replies */
	int compress_reads;	/* `smb3 compression` (enum lp_compress) */
	/* The share's `server smb encrypt` (MS-SMB2 3.3.5.7 Share.EncryptData):
	 * encrypt_data, replies on this tree are encrypted; encrypt_required,
	 * plain requests on it are refused (RejectUnencryptedAccess). */
	bool encrypt_data;
	bool encrypt_required;
	/* `force user` / `force group`: the ids file work on this tree runs
	 * as instead of the session's (smbd_tree_cred). */
	bool forced;
	uid_t force_uid;
	gid_t force_gid;
	gid_t *force_groups;
	size_t force_ngroups;
	struct vfs_share share;	/* root fd and options, for vfs/ */
	/* jobs hold share.root_fd (smbd_tcon_root_borrow) */
	struct fd_share *root_share;
	/* smbd_tree_cred's credentials registered with the worker's ring
	 * for WRITEs through it (smbd_tcon_personality): 0 not yet, -1
	 * none to be had. */
	int personality;
	struct ev_loop *personality_loop;
	/* `vfs objects` (vfs/module.h): one reference is the tree's; a job
	 * that calls through it takes its own. */
	struct vfs_stack *vfs;
	/* The share's lane in the worker's pool (smbd_tcon_lane). */
	struct tpool_lane *lane;
};

/* Tree connects one session may hold (no client maps more than a few
 * dozen shares; each costs a descriptor here). */
#define SMBD_MAX_TCONS_PER_SESSION 256

/* session.c: the lookups by id, and a new or ending session's place in
 * its connection's list and hash (called by smb2_sesssetup.c). */
struct smbd_session *smbd_session_find(struct smbd_conn *conn, uint64_t id);
/* The session id of this worker set up on any of its connections (a
 * binding names it from another connection), or NULL. */
struct smbd_session *smbd_session_find_worker(struct smbd_worker *w,
					      uint64_t id);
/* conn's channel record of s, bound or not (NULL: none, or conn is the
 * session's own connection). */
struct smbd_channel *smbd_channel_find(struct smbd_session *s,
				       const struct smbd_conn *conn);
/* A new, unbound channel of s on conn (its preauth hash starts from the
 * connection's); NULL when out of memory. */
struct smbd_channel *smbd_channel_new(struct smbd_session *s,
				      struct smbd_conn *conn);
/* The key and algorithm that sign for s on conn (3.3.4.1.1, 3.3.5.2.4):
 * a bound channel's own, else the session's. */
void smbd_session_sign_key(const struct smbd_session *s,
			   const struct smbd_conn *conn, uint8_t key[16],
			   enum smb2_sign_algo *algo);
/* smbstatus's record of conn as a channel of s (its first connection
 * included): written when it is bound, removed when it goes. */
void smbd_session_channel_status(const struct smbd_session *s,
				 const struct smbd_conn *conn, uint64_t since,
				 bool up);
/* conn is going: each session it holds that has another bound channel
 * moves there (with its opens, through the worker's session_moved
 * hook) instead of ending with it. */
void smbd_sessions_conn_lost(struct smbd_conn *conn);
void smbd_session_link(struct smbd_conn *conn, struct smbd_session *s);
void smbd_session_unlink(struct smbd_session *s);
/* smb2_sesssetup.c: a new session of conn, IN_PROGRESS, with a fresh id
 * (the caller checked the per-connection limits). */
struct smbd_session *smbd_session_new(struct smbd_conn *conn);
/*
 * 3.3.5.5.3, once the authentication succeeded: the session takes r's
 * identity, derives its keys from r's session key and its preauth hash
 * (not on a re-authentication: the keys stay), and becomes VALID.
 * ACCESS_DENIED when `server smb encrypt = required` and the session
 * cannot encrypt.  SESSION_SETUP calls it with the gensec result; the
 * test connection (testsuite/common/smb2_testconn.c) with one it made,
 * so fuzz targets hold sessions whose keys they know.
 */
NTSTATUS smbd_session_establish(struct smbd_session *s,
				const struct auth_result *r, uint8_t sec_mode,
				bool reauth);
struct smbd_tcon *smbd_tcon_find(struct smbd_session *s, uint32_t id);
/* The credentials pool work for session s on tree t (NULL: none) runs
 * under: the tree's `force user`/`force group` ids, else the session's
 * user and groups (the guest account's for an anonymous session).  groups
 * are allocated on mem_ctx.  False when out of memory. */
bool smbd_tree_cred(TALLOC_CTX *mem_ctx, const struct smbd_session *s,
		    const struct smbd_tcon *t, struct tpool_cred *out);
/* The share root's descriptor, held for a job's state (holder) even if
 * the tree goes first, without a dup (lib/fd_share.h); -1 and errno. */
int smbd_tcon_root_borrow(struct smbd_tcon *t, TALLOC_CTX *holder);
/*
 * The lane of the worker's pool the tree's file-system jobs run in: one
 * per share (its smb.conf section) per worker, shared by every tree of
 * that share, at most `smbd pool threads per share` jobs at once, so a
 * share whose storage hangs holds no more threads than that (issue 34).
 * Taken on the tree's first job and given back with the tree; NULL (the
 * pool's default lane) without a pool or memory, and for the stand-in
 * tree of a disconnected durable open (no section, no session).
 */
struct tpool_lane *smbd_tcon_lane(struct smbd_worker *w, struct smbd_tcon *t);
/* The tree lets go of its root (its destructor). */
void smbd_tcon_root_release(struct smbd_tcon *t);
/* The ring personality of the tree's credentials on loop, registered on
 * first use: an id > 0, or -1 where the loop has no ring or the kernel
 * would not register one (the caller uses the pool).  The loop thread
 * only. */
int smbd_tcon_personality(struct smbd_tcon *t, struct ev_loop *loop);
/* The tree lets go of its personality (its destructor). */
void smbd_tcon_personality_release(struct smbd_tcon *t);
/* After a reload: each tree finds its share again by section name (the
 * indices may have moved); a tree whose share is gone or no longer
 * `available` is disconnected. */
void smbd_tcons_reloaded(struct smbd_worker *w);
/* smbcontrol close-share: the trees of share name (case-insensitive,
 * its section or the name connected to) are disconnected. */
void smbd_tcons_close_share(struct smbd_worker *w, const char *name);

#endif
