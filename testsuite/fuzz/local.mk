# testsuite/fuzz/: the libFuzzer targets, one fuzz_NAME.c each with its
# seeds in corpus/fuzz_NAME/.  Built only in a tree configured with
# --enable-fuzzing CC=clang (configure.ac: libFuzzer, ASan, UBSan on every
# object), by make (or make fuzz for the targets alone); run with
# make fuzz-run FUZZ_SECONDS=N, or as CI does, testsuite/fuzz/build.sh
# and testsuite/fuzz/run.sh.  A new target: add it to FUZZ_TARGETS with
# its _LDFLAGS line (libFuzzer's main); layers.py fails while a
# fuzz_*.c is not listed.
FUZZ_TARGETS = \
	testsuite/fuzz/fuzz_adouble \
	testsuite/fuzz/fuzz_catia \
	testsuite/fuzz/fuzz_compound_session \
	testsuite/fuzz/fuzz_conf \
	testsuite/fuzz/fuzz_conn_move \
	testsuite/fuzz/fuzz_control \
	testsuite/fuzz/fuzz_create_ctx \
	testsuite/fuzz/fuzz_create_durable \
	testsuite/fuzz/fuzz_ctdb_proto \
	testsuite/fuzz/fuzz_dfs \
	testsuite/fuzz/fuzz_dirwatch \
	testsuite/fuzz/fuzz_dosattrib \
	testsuite/fuzz/fuzz_fruit_plist \
	testsuite/fuzz/fuzz_fscc \
	testsuite/fuzz/fuzz_fsctl \
	testsuite/fuzz/fuzz_gmt \
	testsuite/fuzz/fuzz_ifspec \
	testsuite/fuzz/fuzz_irqplan \
	testsuite/fuzz/fuzz_json \
	testsuite/fuzz/fuzz_locking_rec \
	testsuite/fuzz/fuzz_locking_smb2 \
	testsuite/fuzz/fuzz_log_levels \
	testsuite/fuzz/fuzz_mailbox \
	testsuite/fuzz/fuzz_metrics_http \
	testsuite/fuzz/fuzz_nbench_load \
	testsuite/fuzz/fuzz_notify_encode \
	testsuite/fuzz/fuzz_ntacl \
	testsuite/fuzz/fuzz_ntacl_nfs \
	testsuite/fuzz/fuzz_ntlmssp \
	testsuite/fuzz/fuzz_pac \
	testsuite/fuzz/fuzz_passdb \
	testsuite/fuzz/fuzz_reparse \
	testsuite/fuzz/fuzz_rpc \
	testsuite/fuzz/fuzz_smb2_compress \
	testsuite/fuzz/fuzz_smb2_frame \
	testsuite/fuzz/fuzz_smb2_pdu \
	testsuite/fuzz/fuzz_snapper_info \
	testsuite/fuzz/fuzz_snapshot_array \
	testsuite/fuzz/fuzz_spnego \
	testsuite/fuzz/fuzz_spnego_krb5 \
	testsuite/fuzz/fuzz_transform \
	testsuite/fuzz/fuzz_transform_session \
	testsuite/fuzz/fuzz_usermap \
	testsuite/fuzz/fuzz_vfs_fault \
	testsuite/fuzz/fuzz_vfs_name \
	testsuite/fuzz/fuzz_xca_huff \
	testsuite/fuzz/fuzz_xca_lz77 \
	testsuite/fuzz/fuzz_xca_lznt1

if ENABLE_FUZZING
noinst_PROGRAMS = $(FUZZ_TARGETS)
fuzz: $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure with --enable-fuzzing CC=clang" \
		"(testsuite/fuzz/build.sh does)" >&2; exit 1
endif
# Every target over its seeds within one budget of FUZZ_SECONDS (run.sh).
FUZZ_SECONDS = 300
fuzz-run: fuzz
	FUZZ_BIN=$(abs_top_builddir)/testsuite/fuzz \
		$(SHELL) $(top_srcdir)/testsuite/fuzz/run.sh $(FUZZ_SECONDS)
.PHONY: fuzz fuzz-run

# Automake takes no pattern for per-program variables: one line a target.
testsuite_fuzz_fuzz_adouble_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_catia_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_compound_session_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_conf_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_conn_move_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_control_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_create_ctx_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_create_durable_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_ctdb_proto_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_dfs_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_dirwatch_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_dosattrib_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_fruit_plist_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_fscc_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_fsctl_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_gmt_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_ifspec_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_irqplan_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_json_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_locking_rec_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_locking_smb2_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_log_levels_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_mailbox_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_metrics_http_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_nbench_load_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_notify_encode_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_ntacl_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_ntacl_nfs_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_ntlmssp_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_pac_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_passdb_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_reparse_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_rpc_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_smb2_compress_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_smb2_frame_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_smb2_pdu_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_snapper_info_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_snapshot_array_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_spnego_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_spnego_krb5_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_transform_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_transform_session_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_usermap_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_vfs_fault_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_vfs_name_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_xca_huff_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_xca_lz77_LDFLAGS = $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_xca_lznt1_LDFLAGS = $(FUZZ_LDFLAGS)

EXTRA_DIST += testsuite/fuzz/build.sh testsuite/fuzz/run.sh testsuite/fuzz/lsan.supp \
	testsuite/fuzz/corpus

# The targets behind the logon (fuzz_transform_session,
# fuzz_compound_session, fuzz_create_durable) share a test server with two
# sessions (session_env.h); seed_session.py writes their seeds.
EXTRA_DIST += testsuite/fuzz/session_env.h testsuite/fuzz/seed_session.py

# The targets' paths, for build.sh.
fuzz-list:
	@for t in $(FUZZ_TARGETS); do echo $$t; done
.PHONY: fuzz-list
