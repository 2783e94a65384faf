/*
 * Unit tests for smbd/auth/passdb.c (Samba tdbsam passdb.tdb).
 *
 * - A USER_ record written by Samba 4.17's smbpasswd (fixture) decodes to
 *   the right fields and encodes back to the same bytes; every truncation
 *   of it is rejected.
 * - With Samba's tools installed and running as root: a passdb.tdb written
 *   by Samba's smbpasswd in the test is read by us, and one written by us
 *   is listed by Samba's pdbedit (and forgotten after our delete).
 *   Otherwise those cases are skipped with a message saying why.
 * - Our own add/get/list/update/delete, RID allocation, case-insensitive
 *   names, and the auth lookup with the Unix mapping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/crypto.h"
#include "lib/charset.h"
#include "smbd/auth/passdb.h"
#include "testsuite/unit/unhex.h"

#define SAMBA_SMBPASSWD "/usr/bin/smbpasswd"
#define SAMBA_PDBEDIT "/usr/bin/pdbedit"

/* USER_root as Samba 4.17 smbpasswd -a wrote it (password "secret"),
 * then smbpasswd -n (ACB_PWNOTREQ added). */
static const char samba_root_hex[] =
	"000000007fa9547c7fa9547c000000001103106b000000007fa9547c05000000"
	"726f6f740003000000564d00010000000005000000726f6f7400000000000000"
	"000000000000000000000100000000010000000001000000000100000000e803"
	"0000010200000000000010000000878d8014606cda29677a44efa1353fc70000"
	"000014000000a8001500000020000000ffffffffffffffffffffffffffffffff"
	"ffffffffff000000000000000000000000000000ec040000";

static void test_samba_record(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	uint8_t rec[512], *out, nt[16];
	size_t n = unhex(samba_root_hex, rec, sizeof(rec)), out_len, cut;
	struct passdb_user *u;

	assert_int_equal(passdb_user_unpack(mem_ctx, rec, n, &u),
			 NT_STATUS_OK);
	assert_string_equal(u->username, "root");
	assert_string_equal(u->domain, "VM");
	assert_string_equal(u->nt_username, "");
	assert_string_equal(u->fullname, "root");
	assert_null(u->homedir);
	assert_string_equal(u->munged_dial, "");
	assert_int_equal(u->user_rid, 1000);
	assert_int_equal(u->group_rid, 513);
	assert_false(u->has_lm_pw);
	assert_true(u->has_nt_pw);
	auth_nt_hash("secret", nt);
	assert_memory_equal(u->nt_pw, nt, 16);
	assert_int_equal(u->acct_ctrl, ACB_NORMAL | ACB_PWNOTREQ);
	assert_int_equal(u->logoff_time, PASSDB_TIME_NEVER);
	assert_int_equal(u->logon_divs, 168);
	assert_int_equal(u->hours_len, 21);
	assert_int_equal(u->hours_size, 32);
	assert_int_equal(u->unknown_6, 0x4ec);

	assert_int_equal(passdb_user_pack(mem_ctx, u, &out, &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, rec, n);

	/* a fresh account looks like Samba's, apart from time and names */
	u = passdb_user_new(mem_ctx, "root", "VM", "root");
	u->pass_last_set_time = 0x6b100311;
	u->user_rid = 1000;
	u->has_nt_pw = true;
	memcpy(u->nt_pw, nt, 16);
	u->acct_ctrl |= ACB_PWNOTREQ;
	assert_int_equal(passdb_user_pack(mem_ctx, u, &out, &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, rec, n);

	for (cut = 0; cut < n; cut++) {
		assert_int_equal(passdb_user_unpack(mem_ctx, rec, cut, &u),
				 NT_STATUS_INVALID_PARAMETER);
	}
	/* an NT hash that is not 16 bytes */
	rec[0x6a] = 0x11;
	assert_int_equal(passdb_user_unpack(mem_ctx, rec, n, &u),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem_ctx);
}

struct tdir {
	char dir[64];
	char conf[128];
	char priv[128];
	char pdb[160];
};

static void tdir_make(struct tdir *t)
{
	FILE *f;

	snprintf(t->dir, sizeof(t->dir), "/tmp/test_passdb.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->conf, sizeof(t->conf), "%s/smb.conf", t->dir);
	snprintf(t->priv, sizeof(t->priv), "%s/private", t->dir);
	snprintf(t->pdb, sizeof(t->pdb), "%s/passdb.tdb", t->priv);
	assert_int_equal(mkdir(t->priv, 0700), 0);
	f = fopen(t->conf, "w");
	assert_non_null(f);
	fprintf(f,
		"[global]\n"
		"netbios name = TESTSRV\n"
		"passdb backend = tdbsam\n"
		"private dir = %s\n"
		"lock directory = %s\n"
		"state directory = %s\n"
		"cache directory = %s\n"
		"pid directory = %s\n",
		t->priv, t->dir, t->dir, t->dir, t->dir);
	fclose(f);
}

static void tdir_remove(struct tdir *t)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

static bool have_samba(void)
{
	if (access(SAMBA_SMBPASSWD, X_OK) != 0 ||
	    access(SAMBA_PDBEDIT, X_OK) != 0) {
		print_message("SKIP: Samba's smbpasswd/pdbedit not installed "
			      "(apt-get install samba)\n");
		return false;
	}
	if (getuid() != 0) {
		print_message("SKIP: Samba's smbpasswd -a needs root\n");
		return false;
	}
	return true;
}

/* Samba writes, we read. */
static void test_read_samba_db(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct tdir t;
	struct passdb *pdb;
	struct passdb_user *u;
	struct auth_user_info *info;
	char cmd[1024], **names;
	size_t count;
	uint8_t nt[16];

	if (!have_samba()) {
		skip();
	}
	tdir_make(&t);
	snprintf(cmd, sizeof(cmd),
		 "printf 'secret\\nsecret\\n' | %s -c %s -a -s root "
		 ">/dev/null && "
		 "printf 'pw2\\npw2\\n' | %s -c %s -a -s daemon >/dev/null && "
		 "%s -c %s -d daemon >/dev/null",
		 SAMBA_SMBPASSWD, t.conf, SAMBA_SMBPASSWD, t.conf,
		 SAMBA_SMBPASSWD, t.conf);
	assert_int_equal(system(cmd), 0);

	assert_int_equal(passdb_open(mem_ctx, t.pdb, false, &pdb),
			 NT_STATUS_OK);
	assert_int_equal(passdb_get(pdb, mem_ctx, "ROOT", &u), NT_STATUS_OK);
	assert_string_equal(u->username, "root");
	assert_string_equal(u->domain, "TESTSRV");
	auth_nt_hash("secret", nt);
	assert_memory_equal(u->nt_pw, nt, 16);
	assert_int_equal(passdb_get(pdb, mem_ctx, "daemon", &u), NT_STATUS_OK);
	assert_true(u->acct_ctrl & ACB_DISABLED);
	assert_int_equal(passdb_get(pdb, mem_ctx, "nosuch", &u),
			 NT_STATUS_NO_SUCH_USER);
	assert_int_equal(passdb_list(pdb, mem_ctx, &names, &count),
			 NT_STATUS_OK);
	assert_int_equal(count, 2);
	assert_string_equal(names[0], "daemon");
	assert_string_equal(names[1], "root");

	/* the auth lookup maps to the Unix account */
	assert_int_equal(passdb_auth_lookup(pdb, mem_ctx, "Root", "X", &info),
			 NT_STATUS_OK);
	assert_int_equal(info->uid, 0);
	assert_int_equal(info->gid, 0);
	assert_true(info->has_nt_hash);
	assert_memory_equal(info->nt_hash, nt, 16);
	assert_true(info->ngroups >= 1);

	/* we continue Samba's RID sequence */
	u = passdb_user_new(mem_ctx, "bin", "TESTSRV", NULL);
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	assert_int_equal(u->user_rid, 1002);
	talloc_free(mem_ctx);
	tdir_remove(&t);
}

/* We write, Samba's pdbedit reads. */
static void test_samba_reads_ours(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct tdir t;
	struct passdb *pdb;
	struct passdb_user *u;
	char cmd[1024], line[256];
	FILE *p;
	bool saw_root = false, saw_daemon = false;

	if (!have_samba()) {
		skip();
	}
	tdir_make(&t);
	assert_int_equal(passdb_open(mem_ctx, t.pdb, true, &pdb),
			 NT_STATUS_OK);
	u = passdb_user_new(mem_ctx, "root", "TESTSRV", "root");
	u->has_nt_pw = true;
	auth_nt_hash("secret", u->nt_pw);
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	assert_int_equal(u->user_rid, 1000);
	u = passdb_user_new(mem_ctx, "daemon", "TESTSRV", "daemon");
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	assert_int_equal(u->user_rid, 1001);
	u->acct_ctrl |= ACB_DISABLED;
	assert_int_equal(passdb_update(pdb, u), NT_STATUS_OK);
	TALLOC_FREE(pdb);

	snprintf(cmd, sizeof(cmd), "%s -L -w -s %s 2>/dev/null", SAMBA_PDBEDIT,
		 t.conf);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) != NULL) {
		/* smbpasswd format: name:uid:LMHASH:NTHASH:[flags]:LCT */
		if (strncmp(line, "root:0:", 7) == 0) {
			saw_root = strstr(line, "878D8014606CDA2967"
						"7A44EFA1353FC7") != NULL;
		}
		if (strncmp(line, "daemon:", 7) == 0) {
			saw_daemon = strstr(line, "[DU") != NULL;
		}
	}
	assert_int_equal(pclose(p), 0);
	assert_true(saw_root);
	assert_true(saw_daemon);

	/* after our delete Samba no longer lists the user */
	assert_int_equal(passdb_open(mem_ctx, t.pdb, false, &pdb),
			 NT_STATUS_OK);
	assert_int_equal(passdb_delete(pdb, "DAEMON"), NT_STATUS_OK);
	assert_int_equal(passdb_delete(pdb, "daemon"), NT_STATUS_NO_SUCH_USER);
	TALLOC_FREE(pdb);
	snprintf(cmd, sizeof(cmd), "%s -L -s %s 2>/dev/null | grep -c daemon",
		 SAMBA_PDBEDIT, t.conf);
	p = popen(cmd, "r");
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	assert_string_equal(line, "0\n");
	talloc_free(mem_ctx);
	tdir_remove(&t);
}

/* Our own operations, no Samba needed. */
static void test_ops(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct tdir t;
	struct passdb *pdb;
	struct passdb_user *u, *v;
	struct auth_user_info *info;
	char **names;
	size_t count;

	tdir_make(&t);
	assert_int_equal(passdb_open(mem_ctx, t.pdb, false, &pdb),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(passdb_open(mem_ctx, t.pdb, true, &pdb),
			 NT_STATUS_OK);
	u = passdb_user_new(mem_ctx, "Root", "TESTSRV", NULL);
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	v = passdb_user_new(mem_ctx, "rOOT", "TESTSRV", NULL);
	assert_int_equal(passdb_add(pdb, v), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(passdb_get(pdb, mem_ctx, "root", &v), NT_STATUS_OK);
	assert_string_equal(v->username, "Root"); /* case preserved */
	assert_false(v->has_nt_pw);
	v->has_nt_pw = true;
	memset(v->nt_pw, 7, 16);
	assert_int_equal(passdb_update(pdb, v), NT_STATUS_OK);
	assert_int_equal(passdb_get(pdb, mem_ctx, "ROOT", &u), NT_STATUS_OK);
	assert_true(u->has_nt_pw);
	assert_int_equal(u->nt_pw[3], 7);
	u = passdb_user_new(mem_ctx, "ghost", "TESTSRV", NULL);
	assert_int_equal(passdb_update(pdb, u), NT_STATUS_NO_SUCH_USER);

	/* a passdb user without a Unix account does not log on */
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	assert_int_equal(passdb_auth_lookup(pdb, mem_ctx, "ghost", "", &info),
			 NT_STATUS_NO_SUCH_USER);
	assert_int_equal(passdb_auth_lookup(pdb, mem_ctx, "nobody", "", &info),
			 NT_STATUS_NO_SUCH_USER);
	assert_int_equal(passdb_auth_lookup(pdb, mem_ctx, "root", "", &info),
			 NT_STATUS_OK);
	assert_string_equal(info->account_name, "Root");
	assert_int_equal(info->uid, 0);

	assert_int_equal(passdb_list(pdb, mem_ctx, &names, &count),
			 NT_STATUS_OK);
	assert_int_equal(count, 2);
	assert_string_equal(names[0], "Root");
	assert_string_equal(names[1], "ghost");
	assert_int_equal(passdb_delete(pdb, "ghost"), NT_STATUS_OK);
	assert_int_equal(passdb_list(pdb, mem_ctx, &names, &count),
			 NT_STATUS_OK);
	assert_int_equal(count, 1);
	/* RIDs are never reused */
	u = passdb_user_new(mem_ctx, "ghost", "TESTSRV", NULL);
	assert_int_equal(passdb_add(pdb, u), NT_STATUS_OK);
	assert_int_equal(u->user_rid, 1002);
	talloc_free(mem_ctx);
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samba_record),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_read_samba_db),
		cmocka_unit_test(test_samba_reads_ours),
	};

	crypto_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
