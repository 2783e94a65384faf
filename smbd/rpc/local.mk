# smbd/rpc: IPC$ named pipes, DCE/RPC PDUs, NDR, srvsvc, wkssvc, lsarpc.
# (The SMB2 side of named pipes is smbd/smb2/smb2_pipe.c; the end-to-end
# test, testsuite/integration/test_rpc.py, is in testsuite/local.mk.)
libsmbd_a_SOURCES += \
	smbd/rpc/pipe.h smbd/rpc/rpc_service.h \
	smbd/rpc/dcerpc.c smbd/rpc/dcerpc.h \
	smbd/rpc/ndr.c smbd/rpc/ndr.h \
	smbd/rpc/rpc_sid.c smbd/rpc/rpc_sid.h \
	smbd/rpc/rpc_domain.c smbd/rpc/rpc_domain.h \
	smbd/rpc/srvsvc.c smbd/rpc/wkssvc.c smbd/rpc/lsarpc.c

UNIT_TESTS += testsuite/unit/test_rpc_ndr
UNIT_TESTS += testsuite/unit/test_rpc_pipe
