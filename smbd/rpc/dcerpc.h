/*
 * Connection-oriented DCE/RPC PDUs (C706 12.6, MS-RPCE 2.2.2): constants
 * and the header codec the pipe object and the tests share.
 */
#ifndef SMBD_RPC_DCERPC_H
#define SMBD_RPC_DCERPC_H

#include <stdint.h>
#include <stddef.h>
#include "lib/ntstatus.h"
#include "smbd/rpc/rpc_service.h"

#define DCERPC_HDR_LEN 16
#define DCERPC_REQUEST_HDR_LEN 24	/* + alloc_hint, p_cont_id, opnum */
#define DCERPC_RESPONSE_HDR_LEN 24
#define DCERPC_FAULT_LEN 32
/* C706 12.6.3.1 / MS-RPCE 3.3.1.5.3: the least a peer may offer */
#define DCERPC_MIN_FRAG 1432
#define DCERPC_OUR_MAX_FRAG 5840
/* Largest request stub we reassemble from fragments. */
#define DCERPC_MAX_REQUEST (1024 * 1024)
/* Most unread response bytes a pipe holds before it refuses input. */
#define DCERPC_MAX_QUEUED (4 * 1024 * 1024)

enum dcerpc_ptype {
	DCERPC_PKT_REQUEST = 0,
	DCERPC_PKT_RESPONSE = 2,
	DCERPC_PKT_FAULT = 3,
	DCERPC_PKT_BIND = 11,
	DCERPC_PKT_BIND_ACK = 12,
	DCERPC_PKT_BIND_NAK = 13,
	DCERPC_PKT_ALTER = 14,
	DCERPC_PKT_ALTER_RESP = 15,
	DCERPC_PKT_AUTH3 = 16,
	DCERPC_PKT_SHUTDOWN = 17,
	DCERPC_PKT_CO_CANCEL = 18,
	DCERPC_PKT_ORPHANED = 19
};

#define DCERPC_PFC_FIRST_FRAG 0x01
#define DCERPC_PFC_LAST_FRAG 0x02
#define DCERPC_PFC_DID_NOT_EXECUTE 0x20
#define DCERPC_PFC_OBJECT_UUID 0x80

/* p_cont_def_result_t (C706 12.6.3.1, MS-RPCE 2.2.2.4) */
#define DCERPC_RESULT_ACCEPT 0
#define DCERPC_RESULT_PROVIDER_REJECTION 2
#define DCERPC_RESULT_NEGOTIATE_ACK 3
#define DCERPC_REASON_ABSTRACT_NOT_SUPPORTED 1
#define DCERPC_REASON_TRANSFER_NOT_SUPPORTED 2

/* bind_nak provider_reject_reason */
#define DCERPC_NAK_NOT_SPECIFIED 0
#define DCERPC_NAK_LOCAL_LIMIT_EXCEEDED 2
#define DCERPC_NAK_PROTOCOL_VERSION 4

/* Fault status codes (C706 Appendix E, MS-RPCE 2.2.2.11) */
#define DCERPC_NCA_S_OP_RNG_ERROR 0x1c010002
#define DCERPC_NCA_S_UNKNOWN_IF 0x1c010003
#define DCERPC_NCA_S_PROTO_ERROR 0x1c01000b
#define DCERPC_NCA_S_FAULT_NDR 0x000006f7
#define DCERPC_NCA_S_ACCESS_DENIED 0x00000005
#define DCERPC_NCA_S_REMOTE_NO_MEMORY 0x1c000012

struct dcerpc_hdr {
	uint8_t vers, vers_minor, ptype, flags;
	uint8_t drep[4];
	uint16_t frag_len, auth_len;
	uint32_t call_id;
};

/*
 * Decode the 16-byte common header.  NT_STATUS_INVALID_PARAMETER when
 * it cannot frame a PDU (short, not version 5, frag_length < 16 or an
 * auth_length that does not fit).
 */
NTSTATUS dcerpc_pull_hdr(const uint8_t *data, size_t len,
			 struct dcerpc_hdr *h);

/* Syntaxes every pipe knows. */
extern const struct rpc_syntax dcerpc_ndr20_syntax;
extern const struct rpc_syntax dcerpc_ndr64_syntax;

#endif
