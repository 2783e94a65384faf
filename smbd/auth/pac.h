/*
 * The Privilege Attribute Certificate a domain controller puts in a
 * service ticket (MS-PAC): the PACTYPE with its buffers (2.3, 2.4) and
 * the KERB_VALIDATION_INFO logon information (2.5), NDR in MS-RPCE's
 * type serialization version 1, read with the checked cursor.
 *
 * This file only parses.  The PAC's server signature is checked by MIT
 * Kerberos with the service key when the ticket is accepted
 * (smbd/auth/kerberos.c asks for the PAC only as an authenticated name
 * attribute); what is parsed here is trusted only after that.
 *
 * Parsed structures are talloc children of the caller's context.  Every
 * count is checked against what the buffer can hold before anything is
 * allocated, so a hostile PAC costs at most its own size in memory.
 */
#ifndef SMBD_AUTH_PAC_H
#define SMBD_AUTH_PAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"

/* MS-PAC 2.4 ulType values. */
#define PAC_TYPE_LOGON_INFO 1
#define PAC_TYPE_CREDENTIALS_INFO 2
#define PAC_TYPE_SERVER_CHECKSUM 6
#define PAC_TYPE_PRIVSVR_CHECKSUM 7
#define PAC_TYPE_CLIENT_INFO 10
#define PAC_TYPE_DELEGATION_INFO 11
#define PAC_TYPE_UPN_DNS_INFO 12

/* MS-PAC 2.5 UserFlags. */
#define PAC_LOGON_EXTRA_SIDS 0x00000020
#define PAC_LOGON_RESOURCE_GROUPS 0x00000200

/* A PAC larger than this is refused (real ones are a few KiB; a user in
 * thousands of groups stays well under it). */
#define PAC_MAX_SIZE (1024 * 1024)
/* Buffers in one PACTYPE. */
#define PAC_MAX_BUFFERS 64

/* MS-PAC 2.5 GROUP_MEMBERSHIP and KERB_SID_AND_ATTRIBUTES. */
struct pac_group {
	uint32_t rid;
	uint32_t attributes;
};

struct pac_sid_attr {
	struct auth_sid sid;
	uint32_t attributes;
};

struct pac_logon_info {
	char *account_name;	/* EffectiveName, UTF-8 */
	char *full_name;
	char *logon_server;
	char *logon_domain;	/* LogonDomainName: the NetBIOS domain */
	bool has_domain_sid;
	struct auth_sid domain_sid;	/* LogonDomainId */
	uint32_t user_rid;
	uint32_t primary_group_rid;
	uint32_t user_flags;
	uint32_t user_account_control;
	size_t num_groups;
	struct pac_group *groups;
	size_t num_extra;
	struct pac_sid_attr *extra;
	bool has_resource_domain;
	struct auth_sid resource_domain;
	size_t num_resource;
	struct pac_group *resource;
};

struct pac_buffer {
	uint32_t type;
	const uint8_t *data;	/* into the PAC the caller holds */
	uint32_t len;
};

struct pac_data {
	size_t num_buffers;
	struct pac_buffer *buffers;
	struct pac_logon_info *logon_info;	/* NULL: the PAC had none */
};

/*
 * The whole PAC (AD-WIN2K-PAC contents): its buffers, and the logon
 * information parsed.  Exactly one LOGON_INFO buffer is required (MS-PAC
 * 2.4: "MUST"); more than one, buffers outside the PAC or misaligned are
 * INVALID_PARAMETER.  The buffers point into pac, which must outlive
 * *out.
 */
NTSTATUS pac_parse(TALLOC_CTX *mem_ctx, const uint8_t *pac, size_t len,
		   struct pac_data **out);

/* One KERB_VALIDATION_INFO buffer (its type serialization headers
 * included). */
NTSTATUS pac_parse_logon_info(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			      size_t len, struct pac_logon_info **out);

/*
 * The token's SIDs as MS-PAC 2.5 builds them: the user (LogonDomainId +
 * UserId), the primary group, each GroupIds entry, the ExtraSids and the
 * resource groups (ResourceGroupDomainSid + each ResourceGroupIds entry),
 * in that order, each once.  INVALID_PARAMETER without a LogonDomainId.
 */
NTSTATUS pac_token_sids(TALLOC_CTX *mem_ctx, const struct pac_logon_info *li,
			struct auth_sid **sids, size_t *num);

#endif
