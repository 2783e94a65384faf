/*
 * The machine account's secrets as Samba's `net ads join` leaves them in
 * secrets.tdb (in the `private dir`), read-only: what `kerberos method =
 * secrets only` (and `secrets and keytab`) needs to derive the keys of
 * the member's service tickets.  Samba keeps, beside its newer
 * SECRETS/MACHINE_DOMAIN_INFO record, the plain ones older Sambas read,
 * and these are what we read:
 *
 *   SECRETS/MACHINE_PASSWORD/<DOMAIN>       the password, NUL-terminated
 *   SECRETS/MACHINE_PASSWORD.PREV/<DOMAIN>  the one before a change
 *   SECRETS/SALTING_PRINCIPAL/DES/<REALM>   the principal whose name is
 *                                           the AES keys' salt
 *
 * (DOMAIN the upper-case `workgroup`, REALM the upper-case `realm`.)
 */
#ifndef SMBD_AUTH_SECRETS_H
#define SMBD_AUTH_SECRETS_H

#include <talloc.h>
#include "lib/ntstatus.h"

/* Longer values are not Samba's (its passwords are 120 characters). */
#define SECRETS_MAX_VALUE 4096

struct secrets_machine {
	char *password;		/* never NULL on success */
	char *prev_password;	/* NULL: none stored */
	char *salt_principal;	/* NULL: none stored */
};

/*
 * Read them from the tdb at path.  NO_SUCH_USER when the domain has no
 * machine password there (not joined); OBJECT_NAME_NOT_FOUND when the
 * file cannot be opened; INVALID_PARAMETER for a record that is not a
 * NUL-terminated string.  The strings are on *out, which is wiped when
 * freed.
 */
NTSTATUS secrets_machine_fetch(TALLOC_CTX *mem_ctx, const char *path,
			       const char *domain, const char *realm,
			       struct secrets_machine **out);

#endif
