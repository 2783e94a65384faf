/*
 * libFuzzer target: gensec's Kerberos leg with security = ads
 * (smbd/auth/gensec.c, kerberos.c): a negTokenInit led by a krb5 OID
 * whose mechToken goes to MIT's acceptor, then our handling of what it
 * says.  The acceptor's keytab is a MEMORY: one with a single key no
 * real ticket is sealed with, so every token ends in a refusal, through
 * the GSS token framing, the AP-REQ decoder and our status mapping.
 *
 * Input byte 0 picks the form: even, the rest is the whole SPNEGO
 * token; odd, the rest is the mechToken alone, wrapped here in a
 * negTokenInit offering MS KRB5, KRB5 and NTLMSSP as Windows does.
 * Whatever the input, a logon must not succeed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <krb5.h>
#include <talloc.h>

#include "lib/log.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/spnego.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static NTSTATUS no_user(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			const char *domain, struct auth_user_info **out)
{
	return NT_STATUS_NO_SUCH_USER;
}

static struct auth_config cfg = {
	.netbios_name = "MEMBER",
	.workgroup = "SMBNG",
	.dns_domain = "SMBNG.TEST",
	.guest_account = "nobody",
	.ads = true,
	.realm = "SMBNG.TEST",
	.kerberos_method = AUTH_KRB5_DEDICATED_KEYTAB,
	.dedicated_keytab = "MEMORY:fuzz_spnego_krb5",
	.private_dir = "/nonexistent",
	.allow_trusted_domains = true,
};

/* Kept for the process's life (reachable, so not a leak): a MEMORY:
 * keytab lasts while a handle to it is open. */
static krb5_context fuzz_k;
static krb5_keytab fuzz_kt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static uint8_t key[32] = {0x42};
	krb5_keytab_entry e;

	log_set_level(-1);
	/* no krb5.conf of the host's: defaults only */
	setenv("KRB5_CONFIG", "/dev/null", 1);
	setenv("KRB5RCACHETYPE", "none", 1);
	if (krb5_init_context(&fuzz_k) != 0 ||
	    krb5_kt_resolve(fuzz_k, cfg.dedicated_keytab, &fuzz_kt) != 0) {
		abort();
	}
	memset(&e, 0, sizeof(e));
	if (krb5_parse_name(fuzz_k, "cifs/member.smbng.test@SMBNG.TEST",
			    &e.principal) != 0) {
		abort();
	}
	e.vno = 1;
	e.key.magic = KV5M_KEYBLOCK;
	e.key.enctype = ENCTYPE_AES256_CTS_HMAC_SHA1_96;
	e.key.length = sizeof(key);
	e.key.contents = key;
	if (krb5_kt_add_entry(fuzz_k, fuzz_kt, &e) != 0) {
		abort();
	}
	krb5_free_principal(fuzz_k, e.principal);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct spnego_blob mechs[3] = {
		{spnego_oid_ms_krb5, sizeof(spnego_oid_ms_krb5)},
		{spnego_oid_krb5, sizeof(spnego_oid_krb5)},
		{spnego_oid_ntlmssp, sizeof(spnego_oid_ntlmssp)},
	};
	TALLOC_CTX *mem_ctx;
	struct gensec *g;
	const uint8_t *in = data + 1;
	uint8_t *wrapped = NULL, *out;
	size_t in_len = size - 1, out_len;

	if (size < 1 || size > 65536) {
		return 0;
	}
	mem_ctx = talloc_new(NULL);
	if (data[0] & 1) {
		if (!NT_STATUS_IS_OK(spnego_build_init(mem_ctx, mechs, 3, in,
						       in_len, NULL, 0,
						       &wrapped, &in_len))) {
			abort();
		}
		in = wrapped;
	}
	g = gensec_new(mem_ctx, &cfg, no_user, NULL, "fuzz");
	if (g == NULL) {
		abort();
	}
	if (gensec_update(g, mem_ctx, in, in_len, &out, &out_len) ==
	    NT_STATUS_OK) {
		/* no ticket can be sealed with the fuzzer's key by chance */
		abort();
	}
	talloc_free(mem_ctx);
	return 0;
}
