/*
 * secrets.tdb's machine password records (see secrets.h).  The file is
 * opened read-only for each fetch, so a password that Samba's winbindd
 * or `net ads changetrustpw` changed is seen at the next logon.
 */
#include "smbd/auth/secrets.h"
#include "lib/charset.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tdb.h>

static int secrets_destructor(struct secrets_machine *m)
{
	if (m->password != NULL) {
		explicit_bzero(m->password, strlen(m->password));
	}
	if (m->prev_password != NULL) {
		explicit_bzero(m->prev_password, strlen(m->prev_password));
	}
	return 0;
}

/* key = prefix + name (upper-cased, as Samba writes it). */
static NTSTATUS fetch_string(TALLOC_CTX *mem_ctx, struct tdb_context *tdb,
			     const char *prefix, const char *name, char **out)
{
	char *upper = charset_strupper(mem_ctx, name);
	char *key;
	TDB_DATA k, v;

	*out = NULL;
	if (upper == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	key = talloc_asprintf(mem_ctx, "%s%s", prefix, upper);
	talloc_free(upper);
	if (key == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	k.dptr = (unsigned char *)key;
	k.dsize = strlen(key);
	v = tdb_fetch(tdb, k);
	talloc_free(key);
	if (v.dptr == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	if (v.dsize == 0 || v.dsize > SECRETS_MAX_VALUE ||
	    v.dptr[v.dsize - 1] != '\0' ||
	    memchr(v.dptr, '\0', v.dsize - 1) != NULL) {
		explicit_bzero(v.dptr, v.dsize);
		free(v.dptr);
		return NT_STATUS_INVALID_PARAMETER;
	}
	*out = talloc_memdup(mem_ctx, v.dptr, v.dsize);
	explicit_bzero(v.dptr, v.dsize);
	free(v.dptr);
	return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

NTSTATUS secrets_machine_fetch(TALLOC_CTX *mem_ctx, const char *path,
			       const char *domain, const char *realm,
			       struct secrets_machine **out)
{
	struct secrets_machine *m;
	struct tdb_context *tdb;
	NTSTATUS st;

	*out = NULL;
	tdb = tdb_open(path, 0, TDB_DEFAULT, O_RDONLY, 0);
	if (tdb == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	m = talloc_zero(mem_ctx, struct secrets_machine);
	if (m == NULL) {
		tdb_close(tdb);
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(m, secrets_destructor);
	st = fetch_string(m, tdb, "SECRETS/MACHINE_PASSWORD/", domain,
			  &m->password);
	if (st == NT_STATUS_NOT_FOUND) {
		st = NT_STATUS_NO_SUCH_USER;
	}
	if (NT_STATUS_IS_OK(st)) {
		st = fetch_string(m, tdb, "SECRETS/MACHINE_PASSWORD.PREV/",
				  domain, &m->prev_password);
		st = st == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : st;
	}
	if (NT_STATUS_IS_OK(st) && realm != NULL && realm[0] != '\0') {
		st = fetch_string(m, tdb, "SECRETS/SALTING_PRINCIPAL/DES/",
				  realm, &m->salt_principal);
		st = st == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : st;
	}
	tdb_close(tdb);
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(m);
		return st;
	}
	/* An empty previous password is Samba's "none" */
	if (m->prev_password != NULL && m->prev_password[0] == '\0') {
		TALLOC_FREE(m->prev_password);
	}
	*out = m;
	return NT_STATUS_OK;
}
