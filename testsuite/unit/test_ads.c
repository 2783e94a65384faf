/*
 * Unit tests for security = ads's logon pieces (issue 36): the Kerberos
 * acceptor (smbd/auth/kerberos.c) on tickets minted here, the
 * secrets.tdb reader (secrets.c), winbindd's error mapping (winbind.c)
 * and gensec's Kerberos leg.
 *
 * No KDC is needed: the test is the KDC.  It derives the member's keys
 * from a machine password as a DC does, writes that password into a
 * secrets.tdb as `net ads join` does, builds each ticket itself (MIT's
 * krb5_pac_sign for the PAC, krb5_encrypt_tkt_part for the ticket: the
 * latter is not in MIT's public headers but is exported from
 * libkrb5.so.3, as encode_krb5_ticket is) and puts it in a MEMORY ccache,
 * from which MIT's own initiator (gss_init_sec_context) makes the
 * AP-REQ.  So every case is a real GSS token with a fresh authenticator:
 * a good ticket, one encrypted with the previous password, one for
 * another service, an expired one, a PAC with a wrong server signature,
 * a PAC changed after signing, no PAC, a replayed and a truncated token,
 * and the mechListMIC both ways.  Each case runs in its own directory
 * (krb5.conf, replay cache, keytabs, secrets.tdb).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <talloc.h>
#include <tdb.h>
#include <krb5.h>
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <gssapi/gssapi_ext.h>
#include <wbclient.h>

#include "lib/log.h"
#include "lib/crypto.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/kerberos.h"
#include "smbd/auth/pac.h"
#include "smbd/auth/secrets.h"
#include "smbd/auth/spnego.h"
#include "smbd/auth/winbind.h"
#include "pac_sample.h"

/* Exported by libkrb5.so.3 (symbol version krb5_3_MIT), declared only in
 * MIT's internal k5-int.h: what a KDC uses to seal and encode a ticket. */
krb5_error_code krb5_encrypt_tkt_part(krb5_context, const krb5_keyblock *,
				      krb5_ticket *);
krb5_error_code encode_krb5_ticket(const krb5_ticket *, krb5_data **);

#define REALM "SMBNG.TEST"
#define MACHINE_PW "machine-pw-2"
#define PREV_PW "machine-pw-1"
#define SALT_PRINC "host/member.smbng.test@" REALM
#define SERVICE "cifs/member.smbng.test@" REALM

struct fx {
	char dir[64];
	krb5_context k;
	krb5_keyblock key;	/* the machine password's AES256 key */
	krb5_keyblock prev;	/* the previous password's */
	krb5_keyblock other;	/* another service's */
	krb5_keyblock krbtgt;
	struct auth_config cfg;
	uint8_t kvi[4096];
	size_t kvi_len;
};

#include "unhex.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tdb_put(struct tdb_context *t, const char *key, const char *val,
		    size_t len)
{
	TDB_DATA k = {(unsigned char *)key, strlen(key)};
	TDB_DATA v = {(unsigned char *)val, len};

	assert_int_equal(tdb_store(t, k, v, TDB_REPLACE), 0);
}

/* What `net ads join` leaves in secrets.tdb (values NUL-terminated). */
static void write_secrets(struct fx *f, bool with_prev)
{
	char path[256];
	struct tdb_context *t;

	snprintf(path, sizeof(path), "%s/secrets.tdb", f->dir);
	t = tdb_open(path, 0, TDB_DEFAULT, O_RDWR | O_CREAT, 0600);
	assert_non_null(t);
	tdb_put(t, "SECRETS/MACHINE_PASSWORD/SMBNG", MACHINE_PW,
		sizeof(MACHINE_PW));
	if (with_prev) {
		tdb_put(t, "SECRETS/MACHINE_PASSWORD.PREV/SMBNG", PREV_PW,
			sizeof(PREV_PW));
	}
	tdb_put(t, "SECRETS/SALTING_PRINCIPAL/DES/" REALM, SALT_PRINC,
		sizeof(SALT_PRINC));
	tdb_close(t);
}

static void derive(struct fx *f, const char *pw, krb5_keyblock *out)
{
	krb5_principal salt_princ;
	krb5_data salt, pwd = {.data = (char *)pw, .length = strlen(pw)};

	assert_int_equal(krb5_parse_name(f->k, SALT_PRINC, &salt_princ), 0);
	assert_int_equal(krb5_principal2salt(f->k, salt_princ, &salt), 0);
	assert_int_equal(krb5_c_string_to_key(f->k,
					      ENCTYPE_AES256_CTS_HMAC_SHA1_96,
					      &pwd, &salt, out),
			 0);
	krb5_free_data_contents(f->k, &salt);
	krb5_free_principal(f->k, salt_princ);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char buf[1024];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/test_ads.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(buf, sizeof(buf),
		 "[libdefaults]\n\tdefault_realm = %s\n"
		 "\tdns_lookup_realm = false\n\tdns_lookup_kdc = false\n"
		 "\trdns = false\n\tdns_canonicalize_hostname = false\n"
		 "[domain_realm]\n\t.smbng.test = %s\n",
		 REALM, REALM);
	write_file(f->dir, "krb5.conf", buf);
	snprintf(buf, sizeof(buf), "%s/krb5.conf", f->dir);
	setenv("KRB5_CONFIG", buf, 1);
	/* the acceptor's replay cache, this case's own */
	setenv("KRB5RCACHEDIR", f->dir, 1);
	snprintf(buf, sizeof(buf), "FILE:%s/system.keytab", f->dir);
	setenv("KRB5_KTNAME", buf, 1);
	assert_int_equal(krb5_init_context(&f->k), 0);
	derive(f, MACHINE_PW, &f->key);
	derive(f, PREV_PW, &f->prev);
	assert_int_equal(krb5_c_make_random_key(f->k,
						ENCTYPE_AES256_CTS_HMAC_SHA1_96,
						&f->other),
			 0);
	assert_int_equal(krb5_c_make_random_key(f->k,
						ENCTYPE_AES256_CTS_HMAC_SHA1_96,
						&f->krbtgt),
			 0);
	write_secrets(f, true);
	f->cfg = (struct auth_config){
		.netbios_name = "MEMBER",
		.workgroup = "SMBNG",
		.dns_domain = REALM,
		.guest_account = "nobody",
		.ntlm_auth = AUTH_NTLM_NTLMV2_ONLY,
		.ads = true,
		.realm = REALM,
		.kerberos_method = AUTH_KRB5_SECRETS_ONLY,
		.private_dir = f->dir,
		.allow_trusted_domains = true,
	};
	f->kvi_len = unhex(impacket_kvi_hex, f->kvi, sizeof(f->kvi));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	krb5_free_keyblock_contents(f->k, &f->key);
	krb5_free_keyblock_contents(f->k, &f->prev);
	krb5_free_keyblock_contents(f->k, &f->other);
	krb5_free_keyblock_contents(f->k, &f->krbtgt);
	krb5_free_context(f->k);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

enum pac_mode { PAC_GOOD, PAC_NONE, PAC_BAD_SIG, PAC_TAMPERED };

struct mint {
	const char *service;	/* default SERVICE */
	const krb5_keyblock *key; /* what the ticket is sealed with */
	enum pac_mode pac;
	int end_offset;		/* seconds from now; default +3600 */
	bool no_mutual;
};

/* The PAC's authorization data: AD-IF-RELEVANT { AD-WIN2K-PAC }. */
static krb5_authdata **make_pac(struct fx *f, const struct mint *m,
				krb5_timestamp authtime,
				krb5_const_principal client)
{
	krb5_data kvi = {.data = (char *)f->kvi, .length = f->kvi_len};
	krb5_pac pac;
	krb5_data signed_pac;
	krb5_authdata ad, *list[2] = {&ad, NULL}, **container;

	assert_int_equal(krb5_pac_init(f->k, &pac), 0);
	assert_int_equal(krb5_pac_add_buffer(f->k, pac, PAC_TYPE_LOGON_INFO,
					     &kvi),
			 0);
	assert_int_equal(krb5_pac_sign(f->k, pac, authtime, client,
				       m->pac == PAC_BAD_SIG ? &f->other
				       : m->key != NULL      ? m->key
							     : &f->key,
				       &f->krbtgt, &signed_pac),
			 0);
	krb5_pac_free(f->k, pac);
	if (m->pac == PAC_TAMPERED) {
		/* the LOGON_INFO buffer comes first after the header: a
		 * byte of it (inside UserId's neighbourhood) changed */
		signed_pac.data[signed_pac.length / 3] ^= 0x01;
	}
	ad.magic = KV5M_AUTHDATA;
	ad.ad_type = KRB5_AUTHDATA_WIN2K_PAC;
	ad.length = signed_pac.length;
	ad.contents = (krb5_octet *)signed_pac.data;
	assert_int_equal(krb5_encode_authdata_container(
				 f->k, KRB5_AUTHDATA_IF_RELEVANT, list,
				 &container),
			 0);
	krb5_free_data_contents(f->k, &signed_pac);
	return container;
}

/*
 * A service ticket for alice as m says, in a MEMORY ccache, and MIT's
 * AP-REQ token for it (*ictx: the initiator's context, for MICs).
 */
static void mint_token(struct fx *f, const struct mint *m,
		       gss_buffer_desc *tok, gss_ctx_id_t *ictx)
{
	krb5_principal client, server;
	krb5_keyblock session;
	krb5_enc_tkt_part etp;
	krb5_ticket tkt;
	krb5_data *der;
	krb5_creds creds;
	krb5_ccache cc;
	krb5_timestamp now = (krb5_timestamp)time(NULL);
	const char *service = m->service ? m->service : SERVICE;
	gss_cred_id_t icred;
	gss_name_t target;
	gss_buffer_desc tname = {strlen(service), (void *)service};
	OM_uint32 major, minor;

	assert_int_equal(krb5_parse_name(f->k, "alice@" REALM, &client), 0);
	assert_int_equal(krb5_parse_name(f->k, service, &server), 0);
	assert_int_equal(krb5_c_make_random_key(
				 f->k, ENCTYPE_AES256_CTS_HMAC_SHA1_96,
				 &session),
			 0);
	memset(&etp, 0, sizeof(etp));
	etp.magic = KV5M_ENC_TKT_PART;
	etp.flags = TKT_FLG_FORWARDABLE | TKT_FLG_PRE_AUTH;
	etp.session = &session;
	etp.client = client;
	etp.transited.tr_type = KRB5_DOMAIN_X500_COMPRESS;
	etp.times.authtime = now;
	etp.times.starttime = now;
	etp.times.endtime = now + (m->end_offset ? m->end_offset : 3600);
	if (m->end_offset < 0) {
		etp.times.authtime = etp.times.starttime = now - 3 * 3600;
	}
	if (m->pac != PAC_NONE) {
		etp.authorization_data =
			make_pac(f, m, etp.times.authtime, client);
	}
	memset(&tkt, 0, sizeof(tkt));
	tkt.magic = KV5M_TICKET;
	tkt.server = server;
	tkt.enc_part2 = &etp;
	assert_int_equal(krb5_encrypt_tkt_part(f->k, m->key ? m->key : &f->key,
					       &tkt),
			 0);
	tkt.enc_part.kvno = 2;
	assert_int_equal(encode_krb5_ticket(&tkt, &der), 0);

	memset(&creds, 0, sizeof(creds));
	creds.client = client;
	creds.server = server;
	creds.keyblock = session;
	/* the ccache's own times are valid: the client uses the ticket
	 * even when the ticket itself is expired */
	creds.times.authtime = now;
	creds.times.starttime = now;
	creds.times.endtime = now + 3600;
	creds.ticket_flags = etp.flags;
	creds.ticket = *der;
	assert_int_equal(krb5_cc_new_unique(f->k, "MEMORY", NULL, &cc), 0);
	assert_int_equal(krb5_cc_initialize(f->k, cc, client), 0);
	assert_int_equal(krb5_cc_store_cred(f->k, cc, &creds), 0);

	major = gss_krb5_import_cred(&minor, cc, NULL, NULL, &icred);
	assert_int_equal(major, GSS_S_COMPLETE);
	major = gss_import_name(&minor, &tname,
				(gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &target);
	assert_int_equal(major, GSS_S_COMPLETE);
	*ictx = GSS_C_NO_CONTEXT;
	major = gss_init_sec_context(
		&minor, icred, ictx, target, (gss_OID)gss_mech_krb5,
		(m->no_mutual ? 0 : GSS_C_MUTUAL_FLAG) | GSS_C_INTEG_FLAG, 0,
		GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, tok, NULL,
		NULL);
	assert_false(GSS_ERROR(major));
	(void)gss_release_name(&minor, &target);
	(void)gss_release_cred(&minor, &icred);
	krb5_cc_destroy(f->k, cc);
	krb5_free_data(f->k, der);
	krb5_free_authdata(f->k, etp.authorization_data);
	krb5_free_keyblock_contents(f->k, &session);
	krb5_free_principal(f->k, client);
	krb5_free_principal(f->k, server);
}

/* Accept what m mints; the status, the result (on mem) in *r. */
static NTSTATUS try_mint(struct fx *f, TALLOC_CTX *mem, const struct mint *m,
			 struct auth_krb5_result **r)
{
	gss_buffer_desc tok;
	gss_ctx_id_t ictx;
	OM_uint32 minor;
	NTSTATUS st;

	mint_token(f, m, &tok, &ictx);
	st = auth_krb5_accept(mem, &f->cfg, tok.value, tok.length, NULL, 0,
			      NULL, 0, false, r);
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
	return st;
}

static void sid_is(const struct auth_sid *s, const char *want)
{
	char buf[AUTH_SID_STRING_MAX];

	assert_string_equal(auth_sid_string(s, buf), want);
}

static void test_good_ticket(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct mint m = {.pac = PAC_GOOD};
	struct auth_krb5_result *r;
	gss_buffer_desc tok, back = GSS_C_EMPTY_BUFFER;
	gss_ctx_id_t ictx;
	gss_buffer_set_t set = GSS_C_NO_BUFFER_SET;
	OM_uint32 major, minor;
	static const uint8_t zero[16];

	mint_token(f, &m, &tok, &ictx);
	assert_int_equal(auth_krb5_accept(mem, &f->cfg, tok.value, tok.length,
					  NULL, 0, NULL, 0, false, &r),
			 NT_STATUS_OK);
	assert_string_equal(r->principal, "alice@" REALM);
	assert_non_null(r->logon_info);
	assert_string_equal(r->logon_info->account_name, "alice");
	assert_string_equal(r->logon_info->logon_domain, "SMBNG");
	assert_int_equal(r->nsids, 7);
	sid_is(&r->sids[0], "S-1-5-21-1111-2222-3333-1103");
	sid_is(&r->sids[6], "S-1-5-21-7777-8888-9999-4242");
	assert_memory_not_equal(r->session_key, zero, 16);
	/* an AES256 subkey: Session.FullSessionKey is its 32 bytes */
	assert_int_equal(r->full_session_key_len, 32);
	assert_memory_equal(r->full_session_key, r->session_key, 16);
	assert_null(r->mic);
	/* mutual authentication: the AP-REP completes MIT's initiator,
	 * and both sides hold the same SSPI session key (MS-SMB2
	 * 3.3.5.5.3 takes its first 16 bytes) */
	assert_true(r->reply_len > 0);
	back.value = r->reply;
	back.length = r->reply_len;
	{
		gss_buffer_desc tname = {strlen(SERVICE), (void *)SERVICE};
		gss_buffer_desc none = GSS_C_EMPTY_BUFFER;
		gss_name_t target;

		assert_int_equal(gss_import_name(&minor, &tname,
				 (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &target),
				 GSS_S_COMPLETE);
		major = gss_init_sec_context(
			&minor, GSS_C_NO_CREDENTIAL, &ictx, target,
			(gss_OID)gss_mech_krb5,
			GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG, 0,
			GSS_C_NO_CHANNEL_BINDINGS, &back, NULL, &none, NULL,
			NULL);
		(void)gss_release_name(&minor, &target);
		assert_int_equal(none.length, 0);
	}
	assert_int_equal(major, GSS_S_COMPLETE);
	major = gss_inquire_sec_context_by_oid(&minor, ictx,
					       GSS_C_INQ_SSPI_SESSION_KEY,
					       &set);
	assert_int_equal(major, GSS_S_COMPLETE);
	assert_int_equal(set->elements[0].length, 32);
	assert_memory_equal(set->elements[0].value, r->full_session_key, 32);
	(void)gss_release_buffer_set(&minor, &set);

	/* the same authenticator again: MIT's replay cache */
	assert_int_equal(auth_krb5_accept(mem, &f->cfg, tok.value, tok.length,
					  NULL, 0, NULL, 0, false, &r),
			 NT_STATUS_LOGON_FAILURE);
	assert_null(r);
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
	talloc_free(mem);
}

static void test_previous_password(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct mint m = {.pac = PAC_GOOD, .key = &f->prev};
	struct auth_krb5_result *r;

	/* a ticket issued before the password changed */
	assert_int_equal(try_mint(f, mem, &m, &r), NT_STATUS_OK);
	/* not once the previous password is gone */
	write_secrets(f, false);
	{
		char path[256];
		struct tdb_context *t;
		TDB_DATA k = {(unsigned char *)"SECRETS/MACHINE_PASSWORD.PREV/"
					       "SMBNG",
			      strlen("SECRETS/MACHINE_PASSWORD.PREV/SMBNG")};

		snprintf(path, sizeof(path), "%s/secrets.tdb", f->dir);
		t = tdb_open(path, 0, TDB_DEFAULT, O_RDWR, 0600);
		assert_non_null(t);
		(void)tdb_delete(t, k);
		tdb_close(t);
	}
	assert_int_equal(try_mint(f, mem, &m, &r), NT_STATUS_LOGON_FAILURE);
	talloc_free(mem);
}

static void test_bad_tickets(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct auth_krb5_result *r;
	struct mint other = {.pac = PAC_GOOD, .key = &f->other,
			     .service = "cifs/other.smbng.test@" REALM};
	struct mint expired = {.pac = PAC_GOOD, .end_offset = -2 * 3600};
	struct mint bad_sig = {.pac = PAC_BAD_SIG};
	struct mint tampered = {.pac = PAC_TAMPERED};
	struct mint no_pac = {.pac = PAC_NONE};

	assert_int_equal(try_mint(f, mem, &other, &r),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(try_mint(f, mem, &expired, &r),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(try_mint(f, mem, &bad_sig, &r),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(try_mint(f, mem, &tampered, &r),
			 NT_STATUS_LOGON_FAILURE);
	/* no PAC: accepted here, refused by gensec (test_gensec_krb5) */
	assert_int_equal(try_mint(f, mem, &no_pac, &r), NT_STATUS_OK);
	assert_null(r->logon_info);
	assert_int_equal(r->nsids, 0);
	talloc_free(mem);
}

static void test_malformed_tokens(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct mint m = {.pac = PAC_GOOD};
	struct auth_krb5_result *r;
	gss_buffer_desc tok;
	gss_ctx_id_t ictx;
	OM_uint32 minor;
	static const uint8_t junk[] = {0x60, 0x03, 0x06, 0x01, 0x00};
	size_t cut;

	mint_token(f, &m, &tok, &ictx);
	/* every truncation of a real AP-REQ is refused, none accepted */
	for (cut = 0; cut < tok.length; cut += 7) {
		NTSTATUS st = auth_krb5_accept(mem, &f->cfg, tok.value, cut,
					       NULL, 0, NULL, 0, false, &r);

		assert_true(st == NT_STATUS_LOGON_FAILURE ||
			    st == NT_STATUS_INVALID_PARAMETER);
		assert_null(r);
	}
	assert_int_not_equal(auth_krb5_accept(mem, &f->cfg, junk, sizeof(junk),
					      NULL, 0, NULL, 0, false, &r),
			     NT_STATUS_OK);
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
	talloc_free(mem);
}

/* RFC 4178 5: the client's mechListMIC checked, ours made. */
static void test_mech_list_mic(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct mint m = {.pac = PAC_GOOD, .no_mutual = true};
	static const uint8_t mech_list[] = {0x30, 0x0b, 0x06, 0x09, 0x2a,
					    0x86, 0x48, 0x86, 0xf7, 0x12,
					    0x01, 0x02, 0x02};
	gss_buffer_desc tok, msg = {sizeof(mech_list), (void *)mech_list};
	gss_buffer_desc cmic, smic;
	gss_ctx_id_t ictx;
	struct auth_krb5_result *r;
	OM_uint32 minor;
	uint8_t bad[64];

	/* without mutual authentication the initiator is complete at
	 * once and can sign the mechanism list */
	mint_token(f, &m, &tok, &ictx);
	assert_int_equal(gss_get_mic(&minor, ictx, GSS_C_QOP_DEFAULT, &msg,
				     &cmic),
			 GSS_S_COMPLETE);
	assert_int_equal(auth_krb5_accept(mem, &f->cfg, tok.value, tok.length,
					  mech_list, sizeof(mech_list),
					  cmic.value, cmic.length, true, &r),
			 NT_STATUS_OK);
	assert_non_null(r->mic);
	smic.value = r->mic;
	smic.length = r->mic_len;
	assert_int_equal(gss_verify_mic(&minor, ictx, &msg, &smic, NULL),
			 GSS_S_COMPLETE);
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);

	/* a MIC that does not verify */
	mint_token(f, &m, &tok, &ictx);
	assert_int_equal(gss_get_mic(&minor, ictx, GSS_C_QOP_DEFAULT, &msg,
				     &cmic),
			 GSS_S_COMPLETE);
	assert_true(cmic.length <= sizeof(bad));
	memcpy(bad, cmic.value, cmic.length);
	bad[cmic.length - 1] ^= 0x01;
	assert_int_equal(auth_krb5_accept(mem, &f->cfg, tok.value, tok.length,
					  mech_list, sizeof(mech_list), bad,
					  cmic.length, true, &r),
			 NT_STATUS_INVALID_PARAMETER);
	(void)gss_release_buffer(&minor, &cmic);
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
	talloc_free(mem);
}

static void kt_add(struct fx *f, const char *ktname, const char *princ,
		   const krb5_keyblock *key)
{
	krb5_keytab kt;
	krb5_keytab_entry e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(krb5_kt_resolve(f->k, ktname, &kt), 0);
	assert_int_equal(krb5_parse_name(f->k, princ, &e.principal), 0);
	e.vno = 2;
	e.key = *key;
	assert_int_equal(krb5_kt_add_entry(f->k, kt, &e), 0);
	krb5_free_principal(f->k, e.principal);
	krb5_kt_close(f->k, kt);
}

/* kerberos method: which keys each method takes. */
static void test_methods(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct auth_krb5_result *r;
	struct mint cifs = {.pac = PAC_GOOD};
	struct mint http = {.pac = PAC_GOOD, .key = &f->other,
			    .service = "HTTP/www.smbng.test@" REALM};
	char kt[256], **names;
	size_t n, i;

	snprintf(kt, sizeof(kt), "FILE:%s/system.keytab", f->dir);
	/* the system keytab holds ours (upper case, as Samba's net
	 * writes the short name) and another service's key */
	kt_add(f, kt, "cifs/MEMBER@" REALM, &f->key);
	kt_add(f, kt, "HTTP/www.smbng.test@" REALM, &f->other);

	assert_int_equal(auth_krb5_keytab_list(mem, &f->cfg, &n, &names),
			 NT_STATUS_OK);
	/* secrets only: 3 enctypes x 5 names, current and previous */
	assert_int_equal(n, 30);
	for (i = 0; i < n; i++) {
		assert_null(strstr(names[i], "HTTP"));
	}

	f->cfg.kerberos_method = AUTH_KRB5_SYSTEM_KEYTAB;
	assert_int_equal(auth_krb5_keytab_list(mem, &f->cfg, &n, &names),
			 NT_STATUS_OK);
	assert_int_equal(n, 1); /* HTTP/ is not this server's */
	assert_non_null(strstr(names[0], "cifs/MEMBER@"));
	assert_int_equal(try_mint(f, mem, &cifs, &r), NT_STATUS_OK);
	assert_int_equal(try_mint(f, mem, &http, &r),
			 NT_STATUS_LOGON_FAILURE);

	f->cfg.kerberos_method = AUTH_KRB5_DEDICATED_KEYTAB;
	f->cfg.dedicated_keytab = kt;
	assert_int_equal(try_mint(f, mem, &cifs, &r), NT_STATUS_OK);
	/* a dedicated keytab is taken whole, as Samba takes it */
	assert_int_equal(try_mint(f, mem, &http, &r), NT_STATUS_OK);
	f->cfg.dedicated_keytab = "";
	assert_int_equal(try_mint(f, mem, &cifs, &r),
			 NT_STATUS_LOGON_FAILURE);

	/* secrets and keytab: both, and the keytab alone when
	 * secrets.tdb has no password */
	f->cfg.kerberos_method = AUTH_KRB5_SECRETS_AND_KEYTAB;
	assert_int_equal(auth_krb5_keytab_list(mem, &f->cfg, &n, &names),
			 NT_STATUS_OK);
	assert_int_equal(n, 31);
	f->cfg.workgroup = "NOTJOINED";
	assert_int_equal(try_mint(f, mem, &cifs, &r), NT_STATUS_OK);
	f->cfg.kerberos_method = AUTH_KRB5_SECRETS_ONLY;
	assert_int_equal(try_mint(f, mem, &cifs, &r),
			 NT_STATUS_LOGON_FAILURE);
	f->cfg.workgroup = "SMBNG";
	talloc_free(mem);
}

static void test_secrets(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct secrets_machine *m;
	struct tdb_context *t;
	char path[256];

	snprintf(path, sizeof(path), "%s/secrets.tdb", f->dir);
	assert_int_equal(secrets_machine_fetch(mem, path, "smbng",
					       "smbng.test", &m),
			 NT_STATUS_OK);
	assert_string_equal(m->password, MACHINE_PW);
	assert_string_equal(m->prev_password, PREV_PW);
	assert_string_equal(m->salt_principal, SALT_PRINC);
	assert_int_equal(secrets_machine_fetch(mem, path, "OTHER", REALM, &m),
			 NT_STATUS_NO_SUCH_USER);
	assert_null(m);
	assert_int_equal(secrets_machine_fetch(mem, "/nonexistent/s.tdb",
					       "SMBNG", REALM, &m),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	/* a value without its NUL, an empty previous password (Samba's
	 * "none"), no salting principal */
	t = tdb_open(path, 0, TDB_DEFAULT, O_RDWR, 0600);
	assert_non_null(t);
	tdb_put(t, "SECRETS/MACHINE_PASSWORD.PREV/SMBNG", "", 1);
	tdb_put(t, "SECRETS/MACHINE_PASSWORD/BROKEN", "abc", 3);
	tdb_close(t);
	assert_int_equal(secrets_machine_fetch(mem, path, "SMBNG", "X.TEST",
					       &m),
			 NT_STATUS_OK);
	assert_null(m->prev_password);
	assert_null(m->salt_principal);
	assert_int_equal(secrets_machine_fetch(mem, path, "BROKEN", REALM, &m),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

static void test_winbind_status(void **state)
{
	assert_int_equal(winbind_status(WBC_ERR_SUCCESS, 0), NT_STATUS_OK);
	/* the DC's own reason, passed on by winbindd */
	assert_int_equal(winbind_status(WBC_ERR_AUTH_ERROR,
					NT_STATUS_WRONG_PASSWORD),
			 NT_STATUS_WRONG_PASSWORD);
	assert_int_equal(winbind_status(WBC_ERR_AUTH_ERROR,
					NT_STATUS_NTLM_BLOCKED),
			 NT_STATUS_NTLM_BLOCKED);
	assert_int_equal(winbind_status(WBC_ERR_AUTH_ERROR, 0),
			 NT_STATUS_LOGON_FAILURE);
	/* winbindd not there: what Samba's member answers then */
	assert_int_equal(winbind_status(WBC_ERR_WINBIND_NOT_AVAILABLE, 0),
			 NT_STATUS_NO_LOGON_SERVERS);
	assert_int_equal(winbind_status(WBC_ERR_UNKNOWN_USER, 0),
			 NT_STATUS_NO_SUCH_USER);
	assert_int_equal(winbind_status(WBC_ERR_DOMAIN_NOT_FOUND, 0),
			 NT_STATUS_NO_SUCH_DOMAIN);
	assert_int_equal(winbind_status(WBC_ERR_NO_MEMORY, 0),
			 NT_STATUS_NO_MEMORY);
	assert_int_equal(winbind_status(WBC_ERR_INVALID_RESPONSE, 0),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(winbind_status(WBC_ERR_UNKNOWN_FAILURE, 0),
			 NT_STATUS_LOGON_FAILURE);
}

static NTSTATUS no_user(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			const char *domain, struct auth_user_info **out)
{
	return NT_STATUS_NO_SUCH_USER;
}

/* SPNEGO around it: gensec's one-leg Kerberos logon (its refusals; an
 * accepted ticket goes on to winbindd, which the AD bed tests). */
static void test_gensec_krb5(void **state)
{
	struct fx *f = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct spnego_blob mechs[3] = {
		{spnego_oid_ms_krb5, sizeof(spnego_oid_ms_krb5)},
		{spnego_oid_krb5, sizeof(spnego_oid_krb5)},
		{spnego_oid_ntlmssp, sizeof(spnego_oid_ntlmssp)},
	};
	struct mint no_pac = {.pac = PAC_NONE};
	struct mint expired = {.pac = PAC_GOOD, .end_offset = -2 * 3600};
	gss_buffer_desc tok;
	gss_ctx_id_t ictx;
	struct gensec *g;
	struct gensec_job *j;
	uint8_t *init, *out;
	size_t init_len, out_len;
	OM_uint32 minor;

	mint_token(f, &no_pac, &tok, &ictx);
	assert_int_equal(spnego_build_init(mem, mechs, 3, tok.value,
					   tok.length, NULL, 0, &init,
					   &init_len),
			 NT_STATUS_OK);
	g = gensec_new(mem, &f->cfg, no_user, NULL, "192.0.2.1");
	assert_non_null(g);
	/* the leg's blocking part is a job of its own... */
	j = gensec_job_new(g, mem, init, init_len);
	assert_non_null(j);
	gensec_job_run(j);
	gensec_job_take(g, j);
	/* ...whose outcome the update takes: a ticket without PAC is
	 * refused as Samba's member refuses it */
	assert_int_equal(gensec_update(g, mem, init, init_len, &out,
				       &out_len),
			 NT_STATUS_NO_IMPERSONATION_TOKEN);
	assert_null(out);
	assert_null(gensec_result(g));
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);

	/* without a job taken the update runs one itself */
	mint_token(f, &expired, &tok, &ictx);
	assert_int_equal(spnego_build_init(mem, mechs, 3, tok.value,
					   tok.length, NULL, 0, &init,
					   &init_len),
			 NT_STATUS_OK);
	g = gensec_new(mem, &f->cfg, no_user, NULL, "192.0.2.1");
	assert_int_equal(gensec_update(g, mem, init, init_len, &out,
				       &out_len),
			 NT_STATUS_LOGON_FAILURE);
	/* without security = ads the same token is no Kerberos logon:
	 * NTLMSSP is offered, not first, so it is asked for */
	f->cfg.ads = false;
	g = gensec_new(mem, &f->cfg, no_user, NULL, "192.0.2.1");
	assert_null(gensec_job_new(g, mem, init, init_len));
	assert_int_equal(gensec_update(g, mem, init, init_len, &out,
				       &out_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	f->cfg.ads = true;
	(void)gss_release_buffer(&minor, &tok);
	(void)gss_delete_sec_context(&minor, &ictx, GSS_C_NO_BUFFER);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_ticket, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_previous_password, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_tickets, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed_tokens, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mech_list_mic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_methods, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets, setup, teardown),
		cmocka_unit_test(test_winbind_status),
		cmocka_unit_test_setup_teardown(test_gensec_krb5, setup,
						teardown),
	};

	log_set_level(-1);
	if (!crypto_init()) {
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
