/*
 * Samba's tdbsam user database, `passdb.tdb` in the `private dir`, read and
 * written in Samba's own format so Samba's tools (pdbedit, smbpasswd) and
 * our daemon share one file.
 *
 * Records (TDBSAM_VERSION 4, found by experiment with Samba 4.17 and
 * tdbdump; every key includes its terminating NUL):
 *   "INFO/version"        le32 4
 *   "INFO/minor_version"  le32 0
 *   "NEXT_RID"            le32 next user RID (first is 1000)
 *   "RID_%08x"            the lower-cased user name, NUL-terminated
 *   "USER_<lower name>"   the account, packed as below
 * An account is Samba's tdb_pack() layout "dddddddBBBBBBBBBBBBddBBBdwdBwwd":
 * d = le32, w = le16, B = le32 length + bytes (strings include the NUL,
 * length 0 means "not set"):
 *   logon, logoff, kickoff, bad_password, pass_last_set, pass_can_change,
 *   pass_must_change times (d x7, Unix seconds);
 *   username, domain, nt_username, fullname, homedir, dir_drive,
 *   logon_script, profile_path, acct_desc, workstations, comment,
 *   munged_dial (B x12);
 *   user_rid, group_rid (d x2); lm_pw, nt_pw, nt_pw_history (B x3);
 *   acct_ctrl (d); logon_divs (w); hours_len (d); hours (B);
 *   bad_password_count, logon_count (w x2); unknown_6 (d).
 *
 * A passdb handle wraps a tdb, which must not cross fork(): open it in the
 * process that uses it.
 */
#ifndef SMBD_AUTH_PASSDB_H
#define SMBD_AUTH_PASSDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"

#define PASSDB_FILE "passdb.tdb"
#define PASSDB_VERSION 4
#define PASSDB_BASE_RID 1000
#define PASSDB_DOMAIN_USERS_RID 513
/* What Samba stores for "never" in the 32-bit time fields. */
#define PASSDB_TIME_NEVER 0x7c54a97fU

struct passdb_user {
	uint32_t logon_time, logoff_time, kickoff_time, bad_password_time;
	uint32_t pass_last_set_time, pass_can_change_time;
	uint32_t pass_must_change_time;
	char *username, *domain, *nt_username, *fullname, *homedir;
	char *dir_drive, *logon_script, *profile_path, *acct_desc;
	char *workstations, *comment, *munged_dial;
	uint32_t user_rid, group_rid;
	bool has_lm_pw, has_nt_pw;
	uint8_t lm_pw[16], nt_pw[16];
	uint8_t *nt_pw_hist;
	size_t nt_pw_hist_len;
	uint32_t acct_ctrl;
	uint16_t logon_divs;
	uint32_t hours_len;
	uint8_t *hours;
	size_t hours_size;
	uint16_t bad_password_count, logon_count;
	uint32_t unknown_6;
};

/* Decode/encode one USER_ record.  INVALID_PARAMETER when malformed. */
NTSTATUS passdb_user_unpack(TALLOC_CTX *mem_ctx, const uint8_t *data,
			    size_t len, struct passdb_user **out);
NTSTATUS passdb_user_pack(TALLOC_CTX *mem_ctx, const struct passdb_user *u,
			  uint8_t **out, size_t *out_len);

/* A new account with the defaults Samba's smbpasswd -a writes. */
struct passdb_user *passdb_user_new(TALLOC_CTX *mem_ctx, const char *name,
				    const char *domain, const char *fullname);

struct passdb;

/* "<private_dir>/passdb.tdb" */
char *passdb_path(TALLOC_CTX *mem_ctx, const char *private_dir);
/* A password's NT hash as passdb.tdb keeps it: MD4(UTF-16LE(password)),
 * MS-NLMP 3.3.1 NTOWFv1 (smbpasswd, and the tests' users). */
NTSTATUS auth_nt_hash(const char *password, uint8_t out[16]);

/*
 * Open (create when `create`, writing the INFO records) a passdb.tdb.
 * NT_STATUS_OBJECT_NAME_NOT_FOUND when absent, NT_STATUS_NOT_SUPPORTED for
 * another tdbsam version.
 */
NTSTATUS passdb_open(TALLOC_CTX *mem_ctx, const char *path, bool create,
		     struct passdb **out);

/*
 * `clustering = yes`: the persistent CTDB database passdb.tdb, through
 * conn (Samba's clustered tdbsam: what smbpasswd adds on any node logs
 * on at every node).  Without create, NT_STATUS_OBJECT_NAME_NOT_FOUND
 * while nobody has written its version records.
 */
struct ctdb_conn;
NTSTATUS passdb_open_ctdb(TALLOC_CTX *mem_ctx, struct ctdb_conn *conn,
			  bool create, struct passdb **out);

/* By name, case-insensitively.  NT_STATUS_NO_SUCH_USER when absent. */
NTSTATUS passdb_get(struct passdb *pdb, TALLOC_CTX *mem_ctx, const char *name,
		    struct passdb_user **out);

/* All account names as stored, sorted. */
NTSTATUS passdb_list(struct passdb *pdb, TALLOC_CTX *mem_ctx, char ***names,
		     size_t *count);

/*
 * Add a new account (a RID is allocated from NEXT_RID when user_rid is 0).
 * NT_STATUS_OBJECT_NAME_COLLISION when the name exists.
 */
NTSTATUS passdb_add(struct passdb *pdb, struct passdb_user *u);
/* Replace an existing account's record. */
NTSTATUS passdb_update(struct passdb *pdb, const struct passdb_user *u);
NTSTATUS passdb_delete(struct passdb *pdb, const char *name);

/* auth_lookup_fn over a struct passdb (priv), with the Unix mapping. */
NTSTATUS passdb_auth_lookup(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			    const char *domain, struct auth_user_info **out);
/*
 * Its two halves, for a caller that may not block where it reads the
 * database: the record alone (account_name, domain, NT hash, flags; no
 * Unix ids), read from the local tdb; then its Unix side through NSS
 * (getpwnam_r, getgrouplist: on a domain member nss_winbind may ask
 * winbindd, so this half runs in the pool), the NT hash moved over.
 */
NTSTATUS passdb_auth_record(struct passdb *pdb, TALLOC_CTX *mem_ctx,
			    const char *user, struct auth_user_info **out);
NTSTATUS passdb_auth_unix(TALLOC_CTX *mem_ctx, struct auth_user_info *rec,
			  struct auth_user_info **out);

#endif
