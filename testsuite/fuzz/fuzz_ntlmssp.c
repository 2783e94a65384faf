/*
 * libFuzzer target: an NTLMSSP AUTHENTICATE message (smbd/auth/ntlmssp.c)
 * against a server that sent a CHALLENGE with a fixed challenge and
 * timestamp.  The user database knows "user" (password "password") so the
 * NTLMv2, key exchange and MIC paths are reachable; byte 0 of the input
 * picks "map to guest = bad user".
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include "lib/log.h"
#include "lib/wire.h"
#include "lib/charset.h"
#include "smbd/auth/passdb.h"
#include "smbd/auth/ntlmssp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static NTSTATUS one_user(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			 const char *domain, struct auth_user_info **out)
{
	struct auth_user_info *info;

	if (strcasecmp(user, "user") != 0) {
		return NT_STATUS_NO_SUCH_USER;
	}
	info = talloc_zero(mem_ctx, struct auth_user_info);
	if (info == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	info->account_name = "user";
	(void)auth_nt_hash("password", info->nt_hash);
	info->has_nt_hash = true;
	info->acct_ctrl = ACB_NORMAL;
	*out = info;
	return NT_STATUS_OK;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(-1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t chal[8] = {0x01, 0x23, 0x45, 0x67,
					0x89, 0xab, 0xcd, 0xef};
	struct auth_config cfg = {
		.netbios_name = "SERVER",
		.workgroup = "WORKGROUP",
		.dns_domain = "example.test",
		.guest_account = "nobody",
	};
	TALLOC_CTX *mem_ctx;
	struct ntlmssp_server *s;
	struct ntlmssp_auth_msg am;
	uint8_t neg[40] = {0}, *out;
	size_t out_len;

	if (size < 1) {
		return 0;
	}
	cfg.map_to_guest_bad_user = data[0] & 1;
	mem_ctx = talloc_new(NULL);
	s = ntlmssp_server_new(mem_ctx, &cfg, one_user, NULL, "fuzz");
	ntlmssp_server_fix_challenge(s, chal, 0);
	memcpy(neg, "NTLMSSP", 8);
	put_le32(neg + 8, 1);
	put_le32(neg + 12, 0xe0088297);
	(void)ntlmssp_server_update(s, mem_ctx, neg, sizeof(neg), &out,
				    &out_len);
	(void)ntlmssp_parse_authenticate(data + 1, size - 1, &am);
	if (ntlmssp_server_update(s, mem_ctx, data + 1, size - 1, &out,
				  &out_len) == NT_STATUS_OK &&
	    ntlmssp_server_can_sign(s)) {
		uint8_t sig[16];

		(void)ntlmssp_server_sign(s, 0, data, size, sig);
		(void)ntlmssp_server_check_sig(s, 0, data, size, sig, 16);
	}
	talloc_free(mem_ctx);
	return 0;
}
