/*
 * Kerberos logons for security = ads, through MIT Kerberos: the acceptor
 * side of the krb5 GSS mechanism (RFC 4121) that SPNEGO carries in
 * SESSION_SETUP, with the keys `kerberos method` names (smb.conf(5)):
 *
 *   secrets only      a MEMORY: keytab made for the call from the machine
 *                     password in secrets.tdb (secrets.h): AES256, AES128
 *                     (salted with the stored salting principal, as the
 *                     DC derives them, RFC 3962) and RC4 keys of the
 *                     current and the previous password
 *   system keytab     the default keytab's entries for this server's
 *                     cifs/ and host/ principals (short and DNS names,
 *                     compared without case) and its NETBIOS$ account
 *   dedicated keytab  every entry of `dedicated keytab file`
 *   secrets and keytab  the first's keys, then the second's entries
 *
 * The acceptor has no name of its own (GSS_C_NO_NAME), so MIT tries each
 * key of that keytab whose type matches the ticket's: a ticket for a
 * service this server holds no key of cannot be decrypted and fails
 * (KRB5KRB_AP_ERR_BAD_INTEGRITY / NOT_US), whatever the case of its
 * name.  MIT checks the ticket's times against the clock with its skew
 * (krb5.conf clockskew, 300 s by default, as Samba), the authenticator
 * against its replay cache, and the PAC's server signature with the
 * ticket's key; the PAC is taken only as an authenticated name attribute
 * (urn:mspac:), so one whose signature is wrong is never read.
 *
 * Everything here blocks (krb5.conf, keytab and secrets.tdb reads, the
 * replay cache): it runs in the worker's thread pool, each call with its
 * own krb5 context.
 */
#ifndef SMBD_AUTH_KERBEROS_H
#define SMBD_AUTH_KERBEROS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"
#include "smbd/auth/pac.h"

struct auth_krb5_result {
	/* The GSS reply to send back (the AP-REP when the client asked for
	 * mutual authentication); NULL/0 when there is none. */
	uint8_t *reply;
	size_t reply_len;
	/* Our mechListMIC over the client's MechTypeList (RFC 4178 5),
	 * when asked for; NULL/0 otherwise. */
	uint8_t *mic;
	size_t mic_len;
	/* MS-SMB2 3.3.5.5.3: the first 16 bytes of the GSS session key
	 * (the acceptor's or initiator's subkey, else the ticket's), right
	 * padded with zeros when shorter. */
	uint8_t session_key[16];
	/* ... and the whole key (Session.FullSessionKey), up to 32 bytes */
	uint8_t full_session_key[32];
	size_t full_session_key_len;
	char *principal;		/* the client, "alice@SMBNG.TEST" */
	struct pac_logon_info *logon_info; /* NULL: the ticket had no PAC */
	struct auth_sid *sids;		/* the PAC's token, pac_token_sids() */
	size_t nsids;
};

/*
 * Accept the krb5 GSS token (the mechToken of SPNEGO's negTokenInit).
 * client_mic (may be NULL) is checked over mech_list, the DER of the
 * client's MechTypeList; with want_mic our own is made over it.
 * LOGON_FAILURE for anything Kerberos refuses (the reason in the log and
 * in *why when not NULL); TIME_DIFFERENCE_AT_DC for a clock skew;
 * INVALID_PARAMETER for a token that is not krb5 at all; the result on
 * mem_ctx otherwise.
 */
NTSTATUS auth_krb5_accept(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			  const uint8_t *token, size_t token_len,
			  const uint8_t *mech_list, size_t mech_list_len,
			  const uint8_t *client_mic, size_t client_mic_len,
			  bool want_mic, struct auth_krb5_result **out);

/*
 * The keytab auth_krb5_accept() uses for cfg (see above), for tests and
 * `testparm`-like checks: the number of keys it holds, or a status when
 * it cannot be made (NO_SUCH_USER: secrets.tdb holds no machine password
 * for the workgroup).  names[] (may be NULL) receives the principals of
 * the first max entries as "name (enctype)" strings on mem_ctx.
 */
NTSTATUS auth_krb5_keytab_list(TALLOC_CTX *mem_ctx,
			       const struct auth_config *cfg, size_t *nkeys,
			       char ***names);

#endif
