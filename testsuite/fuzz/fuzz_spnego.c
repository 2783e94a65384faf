/*
 * libFuzzer target: the DER reader and the SPNEGO parser (smbd/auth/asn1.c,
 * spnego.c), plus the first and second gensec legs on arbitrary input.
 *
 * Input byte 0 picks the path: even = spnego_parse() and a recursive DER
 * walk; odd = gensec_update() as the first leg, then the rest of the input
 * as a second leg when the first asked for more.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>
#include "lib/log.h"
#include "smbd/auth/asn1.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/spnego.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static NTSTATUS no_user(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			const char *domain, struct auth_user_info **out)
{
	return NT_STATUS_NO_SUCH_USER;
}

static const struct auth_config cfg = {
	.netbios_name = "FUZZ",
	.workgroup = "WORKGROUP",
	.guest_account = "nobody",
};

static void walk(TALLOC_CTX *mem_ctx, struct asn1_cur *c)
{
	struct asn1_tlv t;

	while (NT_STATUS_IS_OK(asn1_read(c, &t))) {
		struct asn1_cur in;
		char *s;
		int32_t v;

		if (NT_STATUS_IS_OK(asn1_enter(&t, &in))) {
			walk(mem_ctx, &in);
		} else if (t.tag == ASN1_OID) {
			(void)asn1_oid_to_str(mem_ctx, &t, &s);
		} else if (t.tag == ASN1_ENUMERATED) {
			(void)asn1_tlv_int(&t, &v);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(-1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem_ctx;
	struct spnego_token tok;
	struct asn1_cur c;

	if (size < 1) {
		return 0;
	}
	mem_ctx = talloc_new(NULL);
	if (data[0] % 2 == 0) {
		(void)spnego_parse(data + 1, size - 1, &tok);
		asn1_cur_init(&c, data + 1, size - 1);
		walk(mem_ctx, &c);
	} else {
		static const uint8_t chal[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		struct gensec *g = gensec_new(mem_ctx, &cfg, no_user, NULL,
					      "fuzz");
		size_t half = (size - 1) / 2;
		uint8_t *out;
		size_t out_len;

		gensec_fix_challenge(g, chal, 0);
		if (gensec_update(g, mem_ctx, data + 1, half, &out, &out_len) ==
		    NT_STATUS_MORE_PROCESSING_REQUIRED) {
			(void)gensec_update(g, mem_ctx, data + 1 + half,
					    size - 1 - half, &out, &out_len);
		}
	}
	talloc_free(mem_ctx);
	return 0;
}
