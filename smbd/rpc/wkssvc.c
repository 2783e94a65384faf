/*
 * wkssvc (MS-WKST): NetrWkstaGetInfo (opnum 0, MS-WKST 3.2.4.1) levels
 * 100, 101 and 102, what `net view` style browsers and rpcclient's
 * wkssvc_wkstagetinfo ask.  Other opnums get nca_s_op_rng_error.
 */
#include "smbd/rpc/rpc_service.h"

#include "conf/loadparm.h"

#define PLATFORM_ID_NT 500

/* WKSTA_INFO_100/101/102 (MS-WKST 2.2.5.1 - 2.2.5.3) */
static NTSTATUS wkssvc_getinfo(struct rpc_call *call, struct ndr_pull *in,
			       struct ndr_push *out)
{
	const struct rpc_server_ctx *srv = call->srv;
	const char *wg = lp_str(srv->lp, LP_GLOBAL, LP_WORKGROUP);
	uint32_t level;
	char *server;
	NTSTATUS status;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &level);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	ndr_push_u32(out, level);
	if (level != 100 && level != 101 && level != 102) {
		ndr_push_ptr(out, false);
		ndr_push_u32(out, WERR_INVALID_LEVEL);
		return NT_STATUS_OK;
	}
	ndr_push_ptr(out, true);
	ndr_push_u32(out, PLATFORM_ID_NT);
	ndr_push_ptr(out, true);	/* computername */
	ndr_push_ptr(out, true);	/* langroup */
	ndr_push_u32(out, 6);		/* version 6.1 */
	ndr_push_u32(out, 1);
	if (level >= 101) {
		ndr_push_ptr(out, true);	/* lanroot */
	}
	if (level == 102) {
		ndr_push_u32(out, 1);	/* logged_on_users */
	}
	ndr_push_wstring(out, rpc_server_name(srv));
	ndr_push_wstring(out, wg != NULL ? wg : "WORKGROUP");
	if (level >= 101) {
		ndr_push_wstring(out, "C:\\");
	}
	ndr_push_u32(out, WERR_OK);
	return NT_STATUS_OK;
}

static const rpc_op_fn wkssvc_ops[1] = {
	[0] = wkssvc_getinfo,
};

const struct rpc_iface rpc_wkssvc_iface = {
	.pipe_name = "wkssvc",
	.sec_addr = "\\PIPE\\wkssvc",
	.syntax = { { 0x6bffd098, 0xa112, 0x3610,
		      { 0x98, 0x33, 0x46, 0xc3, 0xf8, 0x7e, 0x34, 0x5a } },
		    1, 0 },
	.ops = wkssvc_ops,
	.num_ops = 1,
	.init = NULL,
};
