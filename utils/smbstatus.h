/*
 * smbstatus's snapshot of the status records and the helpers both its
 * outputs use (smbstatus.c: Samba's text layout; smbstatus_json.c:
 * Samba 4.17's --json schema).
 */
#ifndef LOCKING_SMBSTATUS_H
#define LOCKING_SMBSTATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

struct rec {
	char kind;
	uint32_t pid;
	uint64_t a, b;
	char *text;
};

struct snapshot {
	TALLOC_CTX *mem;
	struct rec *r;
	size_t n;
};

struct locking_db;

/* status_db_walk's callback: one record into the snapshot (priv). */
void smbstatus_collect(char kind, uint32_t pid, uint64_t a, uint64_t b,
		       const char *text, void *priv);
/* The value of key in a "key=value\n" record ("" when absent). */
const char *smbstatus_field(TALLOC_CTX *mem, const char *text,
			    const char *key);
/* "SMB3_11" for "311", as Samba names the dialects. */
const char *smbstatus_dialect_name(const char *hex);
/* The session record of (pid, session id), or NULL. */
const struct rec *smbstatus_find_session(const struct snapshot *s,
					 uint32_t pid, uint64_t id);
/* The open record of (pid, open id), or NULL. */
const struct rec *smbstatus_find_open(const struct snapshot *s, uint32_t pid,
				      uint64_t id);
const char *smbstatus_deny_mode(uint32_t share);

/* What Samba's smbstatus shows of a session's protection (the session
 * record r; tree: for one of its trees): cipher names and degrees
 * "none", "partial" or "full". */
struct smbstatus_crypto {
	const char *enc_cipher, *enc_degree;
	const char *sign_cipher, *sign_degree;
};
void smbstatus_crypto_of(TALLOC_CTX *mem, const struct rec *r, bool tree,
			 struct smbstatus_crypto *out);
/* "partial(AES-128-CMAC)", "AES-128-CMAC" (full) or "-", as its text. */
const char *smbstatus_crypto_text(TALLOC_CTX *mem, const char *cipher,
				  const char *degree);
/* "Fri Dec  4 03:31:22 2026" (UTC) from an NTTIME in a record's field. */
const char *smbstatus_ctime(TALLOC_CTX *mem, const char *nttime);

/* smbstatus --json: the whole state as one JSON object on stdout (the
 * -p/-S/-L/-B choices as in the text output); false when out of memory. */
bool smbstatus_json(struct snapshot *s, struct locking_db *db,
		    const char *config, bool sessions, bool shares, bool locks,
		    bool brl);

/* smbstatus --profile (-P): the live request metrics, text or JSON
 * (smbstatus_profile.c); the exit status. */
int smbstatus_profile(TALLOC_CTX *mem, const char *lockdir,
		      const char *config, bool json);

#endif
