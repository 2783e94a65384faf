/*
 * The krb5 GSS acceptor for security = ads (see kerberos.h), on MIT
 * Kerberos.  One call: a krb5 context, the keytab `kerberos method`
 * asks for (a MEMORY: one of its own for the secrets and the system
 * keytab's filtered entries), a GSS credential on it
 * (gss_krb5_import_cred, so nothing process-wide such as
 * KRB5_KTNAME or krb5_gss_register_acceptor_identity is touched by
 * concurrent logons), gss_accept_sec_context, then what the logon needs
 * from the context: the session key, the client's name and its PAC.
 */
#include "smbd/auth/kerberos.h"
#include "smbd/auth/secrets.h"
#include "lib/charset.h"
#include "lib/crypto.h"
#include "lib/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <krb5.h>
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

/* The keys Samba and Windows derive for a computer account (MS-KILE
 * 3.1.5.2: AES256, AES128, RC4; DES is long gone). */
static const krb5_enctype machine_enctypes[] = {
	ENCTYPE_AES256_CTS_HMAC_SHA1_96,
	ENCTYPE_AES128_CTS_HMAC_SHA1_96,
	ENCTYPE_ARCFOUR_HMAC,
};

static atomic_uint keytab_serial;

/*
 * AES string-to-key is PBKDF2 with 4096 rounds (RFC 3962): a few
 * milliseconds per key, paid again at every logon if nothing kept them.
 * The keys of the last passwords are kept per process, found by a
 * SHA-256 of enctype, salt and password (never the password itself);
 * secrets.tdb is still read at every logon, so a changed password is
 * derived afresh.
 */
#define KEY_CACHE_SIZE 12
struct key_cache_ent {
	bool used;
	uint8_t id[32];
	krb5_enctype enctype;
	unsigned length;
	uint8_t contents[32];
};
static struct key_cache_ent key_cache[KEY_CACHE_SIZE];
static unsigned key_cache_next;
static pthread_mutex_t key_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void key_cache_id(krb5_enctype et, const krb5_data *salt,
			 const krb5_data *pw, uint8_t id[32])
{
	uint32_t e = (uint32_t)et, sl = salt->length;
	struct crypto_iov iov[4] = {
		{&e, sizeof(e)},
		{&sl, sizeof(sl)},
		{salt->data, salt->length},
		{pw->data, pw->length},
	};

	crypto_sha256_iov(iov, 4, id);
}

/* krb5_c_string_to_key(), through the cache. */
static krb5_error_code string_to_key(krb5_context k, krb5_enctype et,
				     const krb5_data *pw,
				     const krb5_data *salt,
				     krb5_keyblock *key)
{
	uint8_t id[32];
	krb5_error_code ret;
	unsigned i;

	key_cache_id(et, salt, pw, id);
	pthread_mutex_lock(&key_cache_lock);
	for (i = 0; i < KEY_CACHE_SIZE; i++) {
		struct key_cache_ent *c = &key_cache[i];

		if (c->used && c->enctype == et &&
		    crypto_memeq(c->id, id, sizeof(id))) {
			/* as krb5_c_string_to_key() hands it out: contents
			 * that krb5_free_keyblock_contents() frees */
			memset(key, 0, sizeof(*key));
			key->magic = KV5M_KEYBLOCK;
			key->enctype = et;
			key->contents = malloc(c->length);
			if (key->contents != NULL) {
				key->length = c->length;
				memcpy(key->contents, c->contents, c->length);
			}
			break;
		}
	}
	pthread_mutex_unlock(&key_cache_lock);
	if (i < KEY_CACHE_SIZE) {
		return key->contents != NULL ? 0 : ENOMEM;
	}
	ret = krb5_c_string_to_key(k, et, pw, salt, key);
	if (ret != 0 || key->length > sizeof(key_cache[0].contents)) {
		return ret;
	}
	pthread_mutex_lock(&key_cache_lock);
	{
		struct key_cache_ent *c = &key_cache[key_cache_next];

		key_cache_next = (key_cache_next + 1) % KEY_CACHE_SIZE;
		c->used = true;
		memcpy(c->id, id, sizeof(id));
		c->enctype = et;
		c->length = key->length;
		memcpy(c->contents, key->contents, key->length);
	}
	pthread_mutex_unlock(&key_cache_lock);
	return 0;
}

struct krb5_call {
	TALLOC_CTX *mem_ctx;
	const struct auth_config *cfg;
	krb5_context k;
	krb5_keytab kt;
	bool memory;		/* kt is our MEMORY: keytab */
	size_t nkeys;
	char why[256];
};

static void call_fail(struct krb5_call *c, krb5_error_code ret,
		      const char *what)
{
	const char *msg = krb5_get_error_message(c->k, ret);

	snprintf(c->why, sizeof(c->why), "%s: %s", what, msg);
	krb5_free_error_message(c->k, msg);
}

/* This server's names: the NetBIOS name and NETBIOS.dns-domain, lower. */
static bool host_names(struct krb5_call *c, char **short_name, char **fqdn)
{
	const char *realm = c->cfg->realm;

	*short_name = charset_strlower(c->mem_ctx, c->cfg->netbios_name);
	*fqdn = NULL;
	if (*short_name == NULL || realm == NULL) {
		return false;
	}
	*fqdn = talloc_asprintf(c->mem_ctx, "%s.%s", *short_name, realm);
	if (*fqdn != NULL) {
		char *lower = charset_strlower(c->mem_ctx, *fqdn);

		talloc_free(*fqdn);
		*fqdn = lower;
	}
	return *fqdn != NULL;
}

/* The principals this server answers for: {cifs,host}/{short,fqdn} and
 * the machine account NETBIOS$, all in the realm. */
#define MAX_OWN_NAMES 5
static size_t own_names(struct krb5_call *c, char *names[MAX_OWN_NAMES])
{
	static const char *const services[] = {"cifs", "host"};
	char *short_name, *fqdn;
	size_t n = 0, i;

	if (!host_names(c, &short_name, &fqdn)) {
		return 0;
	}
	for (i = 0; i < 2; i++) {
		names[n++] = talloc_asprintf(c->mem_ctx, "%s/%s@%s",
					     services[i], fqdn, c->cfg->realm);
		names[n++] = talloc_asprintf(c->mem_ctx, "%s/%s@%s",
					     services[i], short_name,
					     c->cfg->realm);
	}
	names[n++] = talloc_asprintf(c->mem_ctx, "%s$@%s",
				     c->cfg->netbios_name, c->cfg->realm);
	for (i = 0; i < n; i++) {
		if (names[i] == NULL) {
			return 0;
		}
	}
	return n;
}

static krb5_error_code add_password(struct krb5_call *c, const char *pw,
				    const krb5_data *salt,
				    krb5_principal *princs, size_t nprinc)
{
	krb5_data pwd = {.data = (char *)pw, .length = strlen(pw)};
	krb5_error_code ret = 0;
	size_t e, i;

	for (e = 0; e < sizeof(machine_enctypes) / sizeof(machine_enctypes[0]);
	     e++) {
		krb5_keyblock key;

		ret = string_to_key(c->k, machine_enctypes[e], &pwd, salt,
				    &key);
		if (ret != 0) {
			/* an enctype krb5.conf disallows: go on without */
			continue;
		}
		for (i = 0; i < nprinc && ret == 0; i++) {
			krb5_keytab_entry ent;

			memset(&ent, 0, sizeof(ent));
			ent.principal = princs[i];
			ent.vno = 0;
			ent.key = key;
			ret = krb5_kt_add_entry(c->k, c->kt, &ent);
			c->nkeys += ret == 0 ? 1 : 0;
		}
		krb5_free_keyblock_contents(c->k, &key);
		if (ret != 0) {
			return ret;
		}
	}
	return 0;
}

/* The secrets.tdb machine password(s), as keys of our principals. */
static NTSTATUS keys_from_secrets(struct krb5_call *c)
{
	struct secrets_machine *m;
	char *names[MAX_OWN_NAMES], *path, *salt_name, *short_name, *fqdn;
	krb5_principal princs[MAX_OWN_NAMES], salt_princ = NULL;
	krb5_data salt = {0};
	krb5_error_code ret = 0;
	size_t n, i, made = 0;
	NTSTATUS st;

	path = talloc_asprintf(c->mem_ctx, "%s/secrets.tdb",
			       c->cfg->private_dir);
	if (path == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = secrets_machine_fetch(c->mem_ctx, path, c->cfg->workgroup,
				   c->cfg->realm, &m);
	if (!NT_STATUS_IS_OK(st)) {
		snprintf(c->why, sizeof(c->why),
			 "no machine password for %s in %s: %s",
			 c->cfg->workgroup, path, nt_errstr(st));
		return st;
	}
	n = own_names(c, names);
	if (n == 0 || !host_names(c, &short_name, &fqdn)) {
		return NT_STATUS_NO_MEMORY;
	}
	/* Without a stored salting principal, the one `net ads join`
	 * would have stored (host/fqdn@REALM). */
	salt_name = m->salt_principal != NULL
			    ? m->salt_principal
			    : talloc_asprintf(c->mem_ctx, "host/%s@%s", fqdn,
					      c->cfg->realm);
	if (salt_name == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n && ret == 0; i++) {
		ret = krb5_parse_name(c->k, names[i], &princs[i]);
		made += ret == 0 ? 1 : 0;
	}
	if (ret == 0) {
		ret = krb5_parse_name(c->k, salt_name, &salt_princ);
	}
	if (ret == 0) {
		/* RFC 3961 4: the default salt is realm + components */
		ret = krb5_principal2salt(c->k, salt_princ, &salt);
	}
	if (ret == 0) {
		ret = add_password(c, m->password, &salt, princs, n);
	}
	if (ret == 0 && m->prev_password != NULL) {
		ret = add_password(c, m->prev_password, &salt, princs, n);
	}
	if (ret != 0) {
		call_fail(c, ret, "machine password keys");
	}
	krb5_free_data_contents(c->k, &salt);
	krb5_free_principal(c->k, salt_princ);
	for (i = 0; i < made; i++) {
		krb5_free_principal(c->k, princs[i]);
	}
	talloc_free(m);
	return ret == 0 ? NT_STATUS_OK : NT_STATUS_LOGON_FAILURE;
}

/* The default keytab's entries for our own principals. */
static NTSTATUS keys_from_system(struct krb5_call *c)
{
	char *names[MAX_OWN_NAMES];
	krb5_keytab sys = NULL;
	krb5_kt_cursor cur;
	krb5_keytab_entry ent;
	krb5_error_code ret;
	size_t n, i;

	n = own_names(c, names);
	if (n == 0) {
		return NT_STATUS_NO_MEMORY;
	}
	ret = krb5_kt_default(c->k, &sys);
	if (ret == 0) {
		ret = krb5_kt_start_seq_get(c->k, sys, &cur);
	}
	if (ret != 0) {
		call_fail(c, ret, "system keytab");
		if (sys != NULL) {
			krb5_kt_close(c->k, sys);
		}
		return NT_STATUS_LOGON_FAILURE;
	}
	while (krb5_kt_next_entry(c->k, sys, &ent, &cur) == 0) {
		char *name = NULL;

		if (krb5_unparse_name(c->k, ent.principal, &name) == 0) {
			for (i = 0; i < n; i++) {
				if (strcasecmp(name, names[i]) == 0) {
					break;
				}
			}
			if (i < n && krb5_kt_add_entry(c->k, c->kt, &ent) == 0) {
				c->nkeys++;
			}
			krb5_free_unparsed_name(c->k, name);
		}
		krb5_free_keytab_entry_contents(c->k, &ent);
	}
	krb5_kt_end_seq_get(c->k, sys, &cur);
	krb5_kt_close(c->k, sys);
	return NT_STATUS_OK;
}

static int call_destructor(struct krb5_call *c)
{
	if (c->kt != NULL) {
		krb5_kt_close(c->k, c->kt);
	}
	if (c->k != NULL) {
		krb5_free_context(c->k);
	}
	return 0;
}

/* The keytab of cfg's kerberos method into c->kt. */
static NTSTATUS call_keytab(struct krb5_call *c)
{
	int method = c->cfg->kerberos_method;
	krb5_error_code ret;
	char name[64];
	NTSTATUS st = NT_STATUS_OK;

	if (method == AUTH_KRB5_DEDICATED_KEYTAB) {
		if (c->cfg->dedicated_keytab == NULL ||
		    c->cfg->dedicated_keytab[0] == '\0') {
			snprintf(c->why, sizeof(c->why),
				 "kerberos method = dedicated keytab without "
				 "dedicated keytab file");
			return NT_STATUS_LOGON_FAILURE;
		}
		ret = krb5_kt_resolve(c->k, c->cfg->dedicated_keytab, &c->kt);
		if (ret != 0) {
			call_fail(c, ret, c->cfg->dedicated_keytab);
			return NT_STATUS_LOGON_FAILURE;
		}
		c->nkeys = 1; /* unknown: MIT reads it per ticket */
		return NT_STATUS_OK;
	}
	snprintf(name, sizeof(name), "MEMORY:smbd-ng-%d-%u", (int)getpid(),
		 atomic_fetch_add(&keytab_serial, 1));
	ret = krb5_kt_resolve(c->k, name, &c->kt);
	if (ret != 0) {
		call_fail(c, ret, "MEMORY keytab");
		return NT_STATUS_NO_MEMORY;
	}
	c->memory = true;
	if (method == AUTH_KRB5_SECRETS_ONLY ||
	    method == AUTH_KRB5_SECRETS_AND_KEYTAB) {
		st = keys_from_secrets(c);
	}
	if (method == AUTH_KRB5_SYSTEM_KEYTAB ||
	    (method == AUTH_KRB5_SECRETS_AND_KEYTAB &&
	     (NT_STATUS_IS_OK(st) || st == NT_STATUS_NO_SUCH_USER))) {
		/* secrets and keytab: the keytab also when secrets.tdb
		 * holds no password */
		st = keys_from_system(c);
	}
	if (NT_STATUS_IS_OK(st) && c->nkeys == 0) {
		snprintf(c->why, sizeof(c->why),
			 "no key of this server (%s) in the keytab",
			 c->cfg->netbios_name);
		st = NT_STATUS_LOGON_FAILURE;
	}
	return st;
}

static struct krb5_call *call_new(TALLOC_CTX *mem_ctx,
				  const struct auth_config *cfg,
				  NTSTATUS *st)
{
	struct krb5_call *c = talloc_zero(mem_ctx, struct krb5_call);
	krb5_error_code ret;

	if (c == NULL) {
		*st = NT_STATUS_NO_MEMORY;
		return NULL;
	}
	c->mem_ctx = c;
	c->cfg = cfg;
	ret = krb5_init_context(&c->k);
	if (ret != 0) {
		DBG_ERR("krb5_init_context failed: %d\n", (int)ret);
		talloc_free(c);
		*st = NT_STATUS_LOGON_FAILURE;
		return NULL;
	}
	talloc_set_destructor(c, call_destructor);
	*st = call_keytab(c);
	if (!NT_STATUS_IS_OK(*st)) {
		DBG_WARNING("Kerberos keys for %s: %s\n", cfg->netbios_name,
			    c->why);
		talloc_free(c);
		return NULL;
	}
	return c;
}

NTSTATUS auth_krb5_keytab_list(TALLOC_CTX *mem_ctx,
			       const struct auth_config *cfg, size_t *nkeys,
			       char ***names)
{
	struct krb5_call *c;
	krb5_kt_cursor cur;
	krb5_keytab_entry ent;
	NTSTATUS st;
	size_t n = 0;

	c = call_new(mem_ctx, cfg, &st);
	if (c == NULL) {
		return st;
	}
	*nkeys = c->nkeys;
	if (names != NULL) {
		*names = talloc_zero_array(mem_ctx, char *, c->nkeys + 1);
		if (*names != NULL &&
		    krb5_kt_start_seq_get(c->k, c->kt, &cur) == 0) {
			while (n < c->nkeys &&
			       krb5_kt_next_entry(c->k, c->kt, &ent, &cur) ==
				       0) {
				char *p = NULL, et[64] = "?";

				(void)krb5_unparse_name(c->k, ent.principal,
							&p);
				(void)krb5_enctype_to_name(ent.key.enctype,
							   false, et,
							   sizeof(et));
				(*names)[n++] = talloc_asprintf(
					*names, "%s (%s)", p ? p : "?", et);
				krb5_free_unparsed_name(c->k, p);
				krb5_free_keytab_entry_contents(c->k, &ent);
			}
			krb5_kt_end_seq_get(c->k, c->kt, &cur);
		}
	}
	talloc_free(c);
	return NT_STATUS_OK;
}

/* A GSS failure in words, for the log. */
static void gss_why(struct krb5_call *c, const char *what, OM_uint32 major,
		    OM_uint32 minor)
{
	OM_uint32 mctx = 0, dummy;
	gss_buffer_desc b = GSS_C_EMPTY_BUFFER;
	size_t off;

	off = (size_t)snprintf(c->why, sizeof(c->why), "%s: ", what);
	if (minor != 0) {
		(void)gss_display_status(&dummy, minor, GSS_C_MECH_CODE,
					 GSS_C_NO_OID, &mctx, &b);
	} else {
		(void)gss_display_status(&dummy, major, GSS_C_GSS_CODE,
					 GSS_C_NO_OID, &mctx, &b);
	}
	if (off < sizeof(c->why)) {
		snprintf(c->why + off, sizeof(c->why) - off, "%.*s",
			 (int)b.length, b.value ? (char *)b.value : "");
	}
	(void)gss_release_buffer(&dummy, &b);
}

/* What the client is told for a refused ticket (minor: a krb5 code). */
static NTSTATUS refusal_status(OM_uint32 major, OM_uint32 minor)
{
	if (minor == (OM_uint32)KRB5KRB_AP_ERR_SKEW) {
		return NT_STATUS_TIME_DIFFERENCE_AT_DC;
	}
	if (major == GSS_S_DEFECTIVE_TOKEN && minor == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_LOGON_FAILURE;
}

/* Does the name have urn:mspac: attributes at all?  MIT lists those of
 * a PAC it could not verify, but gives none of their values. */
static bool name_has_pac(gss_name_t name)
{
	gss_buffer_set_t attrs = GSS_C_NO_BUFFER_SET;
	OM_uint32 minor;
	int name_is_mn = 0;
	bool found = false;
	size_t i;

	if (GSS_ERROR(gss_inquire_name(&minor, name, &name_is_mn, NULL,
				       &attrs)) ||
	    attrs == GSS_C_NO_BUFFER_SET) {
		return false;
	}
	for (i = 0; i < attrs->count && !found; i++) {
		found = attrs->elements[i].length >= 10 &&
			memcmp(attrs->elements[i].value, "urn:mspac:", 10) == 0;
	}
	(void)gss_release_buffer_set(&minor, &attrs);
	return found;
}

/* The PAC: only as an authenticated attribute of the client's name,
 * i.e. one MIT verified with the ticket's key. */
static NTSTATUS take_pac(struct krb5_call *c, gss_name_t name,
			 struct auth_krb5_result *r)
{
	static char attr_name[] = "urn:mspac:";
	gss_buffer_desc attr = {sizeof(attr_name) - 1, attr_name};
	gss_buffer_desc value = GSS_C_EMPTY_BUFFER;
	gss_buffer_desc display = GSS_C_EMPTY_BUFFER;
	int authenticated = 0, complete = 0, more = -1;
	OM_uint32 major, minor;
	struct pac_data *pac;
	NTSTATUS st;

	major = gss_get_name_attribute(&minor, name, &attr, &authenticated,
				       &complete, &value, &display, &more);
	if (major == GSS_S_UNAVAILABLE) {
		if (name_has_pac(name)) {
			/* MIT 1.20 withholds a PAC whose server (or
			 * ticket) signature does not verify */
			snprintf(c->why, sizeof(c->why),
				 "the PAC's signature does not verify");
			return NT_STATUS_LOGON_FAILURE;
		}
		return NT_STATUS_OK; /* no PAC in the ticket */
	}
	if (GSS_ERROR(major)) {
		gss_why(c, "reading the PAC", major, minor);
		return NT_STATUS_LOGON_FAILURE;
	}
	if (!authenticated) {
		snprintf(c->why, sizeof(c->why),
			 "the PAC's signature does not verify");
		(void)gss_release_buffer(&minor, &value);
		(void)gss_release_buffer(&minor, &display);
		return NT_STATUS_LOGON_FAILURE;
	}
	st = pac_parse(r, value.value, value.length, &pac);
	if (NT_STATUS_IS_OK(st)) {
		r->logon_info = talloc_steal(r, pac->logon_info);
		st = pac_token_sids(r, r->logon_info, &r->sids, &r->nsids);
		talloc_free(pac); /* its buffers point into value */
	}
	if (!NT_STATUS_IS_OK(st)) {
		snprintf(c->why, sizeof(c->why), "malformed PAC: %s",
			 nt_errstr(st));
		st = NT_STATUS_LOGON_FAILURE;
	}
	(void)gss_release_buffer(&minor, &value);
	(void)gss_release_buffer(&minor, &display);
	return st;
}

static NTSTATUS take_session_key(struct krb5_call *c, gss_ctx_id_t ctx,
				 struct auth_krb5_result *r)
{
	gss_buffer_set_t set = GSS_C_NO_BUFFER_SET;
	OM_uint32 major, minor;
	size_t len;

	major = gss_inquire_sec_context_by_oid(&minor, ctx,
					       GSS_C_INQ_SSPI_SESSION_KEY,
					       &set);
	if (GSS_ERROR(major) || set == GSS_C_NO_BUFFER_SET ||
	    set->count < 1 || set->elements[0].length == 0) {
		gss_why(c, "no session key", major, minor);
		(void)gss_release_buffer_set(&minor, &set);
		return NT_STATUS_LOGON_FAILURE;
	}
	len = set->elements[0].length;
	memset(r->session_key, 0, sizeof(r->session_key));
	memcpy(r->session_key, set->elements[0].value, len < 16 ? len : 16);
	r->full_session_key_len = len < sizeof(r->full_session_key)
					  ? len
					  : sizeof(r->full_session_key);
	memcpy(r->full_session_key, set->elements[0].value,
	       r->full_session_key_len);
	(void)gss_release_buffer_set(&minor, &set);
	return NT_STATUS_OK;
}

static NTSTATUS take_name(struct krb5_call *c, gss_name_t name,
			  struct auth_krb5_result *r)
{
	gss_buffer_desc b = GSS_C_EMPTY_BUFFER;
	OM_uint32 major, minor;

	major = gss_display_name(&minor, name, &b, NULL);
	if (GSS_ERROR(major)) {
		gss_why(c, "client name", major, minor);
		return NT_STATUS_LOGON_FAILURE;
	}
	r->principal = talloc_strndup(r, b.value, b.length);
	(void)gss_release_buffer(&minor, &b);
	return r->principal != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* RFC 4178 5: the mechListMIC, checked and made with the context. */
static NTSTATUS do_mics(struct krb5_call *c, gss_ctx_id_t ctx,
			const uint8_t *mech_list, size_t mech_list_len,
			const uint8_t *client_mic, size_t client_mic_len,
			bool want_mic, struct auth_krb5_result *r)
{
	gss_buffer_desc msg = {mech_list_len, (void *)mech_list};
	gss_buffer_desc mic = GSS_C_EMPTY_BUFFER;
	OM_uint32 major, minor;

	if (client_mic != NULL) {
		gss_buffer_desc cm = {client_mic_len, (void *)client_mic};

		major = gss_verify_mic(&minor, ctx, &msg, &cm, NULL);
		if (GSS_ERROR(major)) {
			gss_why(c, "the client's mechListMIC", major, minor);
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	if (!want_mic) {
		return NT_STATUS_OK;
	}
	major = gss_get_mic(&minor, ctx, GSS_C_QOP_DEFAULT, &msg, &mic);
	if (GSS_ERROR(major)) {
		gss_why(c, "our mechListMIC", major, minor);
		return NT_STATUS_INTERNAL_ERROR;
	}
	r->mic = talloc_memdup(r, mic.value, mic.length);
	r->mic_len = mic.length;
	(void)gss_release_buffer(&minor, &mic);
	return r->mic != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

NTSTATUS auth_krb5_accept(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			  const uint8_t *token, size_t token_len,
			  const uint8_t *mech_list, size_t mech_list_len,
			  const uint8_t *client_mic, size_t client_mic_len,
			  bool want_mic, struct auth_krb5_result **out)
{
	struct auth_krb5_result *r;
	struct krb5_call *c;
	gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
	gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;
	gss_name_t client = GSS_C_NO_NAME;
	gss_buffer_desc in = {token_len, (void *)token};
	gss_buffer_desc reply = GSS_C_EMPTY_BUFFER;
	OM_uint32 major, minor, dummy;
	NTSTATUS st;

	*out = NULL;
	c = call_new(mem_ctx, cfg, &st);
	if (c == NULL) {
		return st == NT_STATUS_NO_MEMORY ? st : NT_STATUS_LOGON_FAILURE;
	}
	r = talloc_zero(mem_ctx, struct auth_krb5_result);
	if (r == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	major = gss_krb5_import_cred(&minor, NULL, NULL, c->kt, &cred);
	if (GSS_ERROR(major)) {
		gss_why(c, "acceptor credential", major, minor);
		st = NT_STATUS_LOGON_FAILURE;
		goto done;
	}
	major = gss_accept_sec_context(&minor, &ctx, cred, &in,
				       GSS_C_NO_CHANNEL_BINDINGS, &client,
				       NULL, &reply, NULL, NULL, NULL);
	if (major != GSS_S_COMPLETE) {
		/* CONTINUE_NEEDED is DCE style or user-to-user, neither of
		 * which SMB uses: a refusal as any other */
		gss_why(c, "ticket refused", major, minor);
		st = refusal_status(major, minor);
		goto done;
	}
	if (reply.length > 0) {
		r->reply = talloc_memdup(r, reply.value, reply.length);
		r->reply_len = reply.length;
		if (r->reply == NULL) {
			st = NT_STATUS_NO_MEMORY;
			goto done;
		}
	}
	st = take_name(c, client, r);
	if (NT_STATUS_IS_OK(st)) {
		st = take_session_key(c, ctx, r);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = take_pac(c, client, r);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = do_mics(c, ctx, mech_list, mech_list_len, client_mic,
			     client_mic_len, want_mic, r);
	}
done:
	if (!NT_STATUS_IS_OK(st)) {
		DBG_NOTICE("Kerberos logon%s%s refused: %s\n",
			   r->principal ? " of " : "",
			   r->principal ? r->principal : "", c->why);
		talloc_free(r);
		r = NULL;
	}
	(void)gss_release_buffer(&dummy, &reply);
	(void)gss_release_name(&dummy, &client);
	(void)gss_delete_sec_context(&dummy, &ctx, GSS_C_NO_BUFFER);
	(void)gss_release_cred(&dummy, &cred);
	talloc_free(c);
	*out = r;
	return st;
}
