/*
 * Unit tests for conf/: the smb.conf syntax, the parameter table,
 * synonyms, value types, include/copy, error reporting (messages are
 * captured from lib/log into a temporary file), share inheritance, lists,
 * `%` substitution, --option overrides and the lp_dump round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/loadparm.h"
#include "conf/param_table.h"
#include "lib/log.h"

static char tmpdir[256];
static char logpath[300];

static int setup_all(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_conf.XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		return -1;
	}
	snprintf(logpath, sizeof(logpath), "%s/log", tmpdir);
	return 0;
}

static int teardown_all(void **state)
{
	char cmd[400];

	(void)log_set_file(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Start capturing log lines into a fresh file. */
static void log_capture(void)
{
	(void)unlink(logpath);
	assert_int_equal(log_set_file(logpath), 0);
}

/* The captured log as a string (talloc on mem_ctx). */
static char *log_text(TALLOC_CTX *mem_ctx)
{
	FILE *f = fopen(logpath, "r");
	char *buf = talloc_strdup(mem_ctx, "");
	char line[4096];

	if (f == NULL) {
		return buf;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		buf = talloc_strdup_append(buf, line);
	}
	fclose(f);
	return buf;
}

static unsigned count_lines(const char *s, const char *needle)
{
	unsigned n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s++;
	}
	return n;
}

static char *write_file(TALLOC_CTX *mem_ctx, const char *name,
			const char *text)
{
	char *path = talloc_asprintf(mem_ctx, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct lp_ctx *load(TALLOC_CTX *mem_ctx, const char *text)
{
	struct lp_ctx *lp = lp_new(mem_ctx);

	assert_non_null(lp);
	assert_true(lp_load_string(lp, "test.conf", text));
	return lp;
}

static void test_table(void **state)
{
	size_t i;
	bool inv;

	for (i = 0; i < LP__COUNT; i++) {
		assert_non_null(conf_params[i].name);
		if (i > 0) {
			/* id order is alphabetical: testparm prints sorted */
			assert_true(strcmp(conf_params[i - 1].name,
					   conf_params[i].name) < 0);
		}
		assert_int_equal(conf_find_param(conf_params[i].name, &inv),
				 (int)i);
		assert_false(inv);
		assert_true(conf_params[i].type != CONF_T_ENUM ||
			    conf_params[i].enums != NULL);
	}
	for (i = 0; i < conf_num_synonyms; i++) {
		int id = conf_find_param(conf_synonyms[i].name, &inv);

		assert_int_equal(id, (int)conf_synonyms[i].id);
		assert_true(conf_synonyms[i].id < LP__COUNT);
	}
	assert_int_equal(lp_param_by_name("no such thing"), -1);
	assert_string_equal(lp_param_name(LP_SMB_PORTS), "smb ports");
}

static void test_defaults(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	const char **ports = lp_list(mem, lp, LP_GLOBAL, LP_SMB_PORTS);
	const char *nb = lp_str(lp, LP_GLOBAL, LP_NETBIOS_NAME);
	size_t i;

	assert_string_equal(ports[0], "445");
	assert_string_equal(ports[1], "139");
	assert_null(ports[2]);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL),
			 LP_PROTO_SMB2_02);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL),
			 LP_PROTO_SMB3_11);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SERVER_SIGNING),
			 LP_SIGNING_DEFAULT);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SMBD_IO_BACKEND),
			 LP_IO_URING);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SMBD_WORKERS), 0);
	assert_true(lp_bool(lp, LP_GLOBAL, LP_SMBD_REUSEPORT_STEERING));
	assert_false(lp_bool(lp, LP_GLOBAL, LP_BIND_INTERFACES_ONLY));
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_MAX_LOG_SIZE), 5000);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_CREATE_MASK), 0744);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_DIRECTORY_MASK), 0755);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_CREATE_MASK), "0744");
	assert_true(lp_bool(lp, LP_GLOBAL, LP_READ_ONLY));
	assert_true(lp_bool(lp, LP_GLOBAL, LP_BROWSEABLE));
	assert_false(lp_bool(lp, LP_GLOBAL, LP_GUEST_OK));
	assert_false(lp_bool(lp, LP_GLOBAL, LP_WIDE_LINKS));
	assert_true(lp_bool(lp, LP_GLOBAL, LP_DURABLE_HANDLES));
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_SERVER_STRING),
			    "smbd-ng %v");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "WORKGROUP");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_PASSDB_BACKEND), "tdbsam");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_GUEST_ACCOUNT), "nobody");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_FSTYPE), "NTFS");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_PATH), "");
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_NTLM_AUTH),
			 LP_NTLM_AUTH_NTLMV2_ONLY);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_STRICT_LOCKING),
			 LP_STRICT_LOCKING_AUTO);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_CASE_SENSITIVE),
			 LP_CASE_AUTO);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_MAP_TO_GUEST),
			 LP_MAP_TO_GUEST_NEVER);
	assert_true(strlen(nb) > 0 && strlen(nb) <= 15);
	for (i = 0; nb[i] != '\0'; i++) {
		assert_false(nb[i] >= 'a' && nb[i] <= 'z');
	}
	assert_int_equal(lp_num_shares(lp), 0);
	/* bad snum or id never crash */
	assert_string_equal(lp_str(lp, 99, LP_PATH), "");
	assert_string_equal(lp_str(lp, 0, (enum lp_param)9999), "");
	talloc_free(mem);
}

static void test_names(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	int s;

	lp = load(mem, "[a]\nRead Only = no\n[b]\nreadonly = no\n"
		       "[c]\nread_only = no\n[d]\n  READ   ONLY=no\n");
	for (s = 0; s < 4; s++) {
		assert_false(lp_bool(lp, s, LP_READ_ONLY));
	}
	talloc_free(mem);
}

static void test_synonyms(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	int a, b, c;

	lp = load(mem, "[global]\n debuglevel = 4\n max protocol = SMB3_02\n"
		       " min protocol = SMB2_10\n allow hosts = 10.0.0.1\n"
		       "[a]\n writable = yes\n directory = /srv/a\n"
		       " public = yes\n browsable = no\n create mode = 0600\n"
		       " directory mode = 0700\n smb encrypt = required\n"
		       "[b]\n writeable = no\n"
		       "[c]\n write ok = true\n deny hosts = 1.2.3.4\n");
	a = lp_find_share(lp, "a");
	b = lp_find_share(lp, "B");
	c = lp_find_share(lp, "c");
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, 2);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_LOG_LEVEL), 4);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL),
			 LP_PROTO_SMB3_02);
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL),
			 LP_PROTO_SMB2_10);
	assert_string_equal(lp_str(lp, a, LP_HOSTS_ALLOW), "10.0.0.1");
	assert_false(lp_bool(lp, a, LP_READ_ONLY));
	assert_true(lp_bool(lp, b, LP_READ_ONLY));
	assert_false(lp_bool(lp, c, LP_READ_ONLY));
	assert_string_equal(lp_str(lp, a, LP_PATH), "/srv/a");
	assert_true(lp_bool(lp, a, LP_GUEST_OK));
	assert_false(lp_bool(lp, a, LP_BROWSEABLE));
	assert_int_equal(lp_int(lp, a, LP_CREATE_MASK), 0600);
	assert_int_equal(lp_int(lp, a, LP_DIRECTORY_MASK), 0700);
	assert_int_equal(lp_int(lp, a, LP_SERVER_SMB_ENCRYPT),
			 LP_ENCRYPT_REQUIRED);
	assert_string_equal(lp_str(lp, c, LP_HOSTS_DENY), "1.2.3.4");
	talloc_free(mem);
}

static void test_booleans(void **state)
{
	static const char *const yes[] = {"yes", "YES", "true", "True", "1",
					  "on", "ON"};
	static const char *const no[] = {"no", "No", "false", "FALSE", "0",
					 "off", "Off"};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text;
	size_t i;

	for (i = 0; i < 7; i++) {
		text = talloc_asprintf(mem, "[s]\nguest ok = %s\n", yes[i]);
		assert_true(lp_load_string(lp, "t", text));
		assert_true(lp_bool(lp, 0, LP_GUEST_OK));
		text = talloc_asprintf(mem, "[s]\nguest ok = %s\n", no[i]);
		assert_true(lp_load_string(lp, "t", text));
		assert_false(lp_bool(lp, 0, LP_GUEST_OK));
	}
	log_capture();
	assert_false(lp_load_string(lp, "bool.conf",
				    "[s]\n\nguest ok = maybe\n"));
	text = log_text(mem);
	assert_non_null(strstr(text, "bool.conf:3"));
	assert_non_null(strstr(text, "guest ok"));
	assert_non_null(strstr(text, "maybe"));
	talloc_free(mem);
}

static void test_syntax(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	const char **l;
	int s;

	lp = load(mem, "\xef\xbb\xbf# comment\n; comment = [x]\n"
		       "   # indented comment \\\n"
		       "workgroup = before\r\n"
		       "[globals]\r\n"
		       "  server string = one \\\n     two\\\n three\n"
		       "  realm = a  \t b\\\n\\   \n  c\\\nd \n"
		       "  vfs objects = acl_xattr\\\n\tfruit \\\n"
		       " streams_xattr\n"
		       "[ share   one ]  ; trailing comment\n"
		       "  path = /srv/one\n"
		       "  comment =\n"
		       "  hosts allow = a \\\n"
		       "[homes]\n"
		       "[printers]\n"
		       "  printable = yes\n"
		       "[SHARE ONE]\n"
		       "  read only = no\n"
		       "[global] junk is ignored\n"
		       "  netbios name = averyveryverylongname\n"
		       "# comment \\\n"
		       "  workgroup = after\n");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "AFTER");
	/* whitespace runs squeezed to their first character, as Samba */
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_SERVER_STRING),
			    "one two three");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_REALM), "A B CD");
	l = lp_list(mem, lp, LP_GLOBAL, LP_VFS_OBJECTS);
	assert_string_equal(l[0], "acl_xattr");
	assert_string_equal(l[1], "fruit");
	assert_string_equal(l[2], "streams_xattr");
	assert_null(l[3]);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_NETBIOS_NAME),
			    "AVERYVERYVERYLO");
	assert_int_equal(lp_num_shares(lp), 2);
	s = lp_find_share(lp, "Share One");
	assert_int_equal(s, 0);
	assert_string_equal(lp_share_name(lp, s), "share one");
	assert_string_equal(lp_str(lp, s, LP_PATH), "/srv/one");
	assert_string_equal(lp_str(lp, s, LP_COMMENT), "");
	assert_string_equal(lp_str(lp, s, LP_VOLUME), "share one");
	/* "a \" continued onto "[homes]": one value, not a section */
	assert_string_equal(lp_str(lp, s, LP_HOSTS_ALLOW), "a [homes]");
	assert_false(lp_bool(lp, s, LP_READ_ONLY));
	assert_int_equal(lp_find_share(lp, "homes"), -1);
	assert_int_equal(lp_find_share(lp, "printers"), 1);
	assert_true(lp_bool(lp, 1, LP_PRINTABLE));
	assert_string_equal(lp_share_name(lp, LP_GLOBAL), "global");
	talloc_free(mem);
}

static void test_bad_lines(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text;

	log_capture();
	assert_false(lp_load_string(lp, "bad.conf",
				    "[ok]\npath = /x\njust some words\n"
				    "[broken\n= value\n[]\n[global\n"));
	text = log_text(mem);
	assert_non_null(strstr(text, "bad.conf:3"));
	assert_non_null(strstr(text, "bad.conf:4"));
	assert_non_null(strstr(text, "bad.conf:5"));
	assert_non_null(strstr(text, "bad.conf:6"));
	assert_non_null(strstr(text, "bad.conf:7"));
	/* a failed load keeps the previous configuration */
	assert_int_equal(lp_num_shares(lp), 0);

	assert_true(lp_load_string(lp, "ok.conf", "[a]\npath = /x\n"));
	assert_int_equal(lp_num_shares(lp), 1);
	talloc_free(mem);
}

static void test_nul_byte(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	static const char data[] = "[a]\npath = /x\0y\n";
	char *path = talloc_asprintf(mem, "%s/nul.conf", tmpdir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fwrite(data, 1, sizeof(data) - 1, f);
	fclose(f);
	log_capture();
	assert_false(lp_load_file(lp, path));
	assert_non_null(strstr(log_text(mem), "nul.conf:2"));
	talloc_free(mem);
}

static void test_unknown_and_scope(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text;

	log_capture();
	assert_true(lp_load_string(lp, "unk.conf",
				   "[global]\nfrobnicate = yes\n"
				   "[s]\npath = /s\nworkgroup = SHAREWG\n"
				   "fruit:aapl = yes\n"));
	text = log_text(mem);
	assert_int_equal(count_lines(text, "unknown parameter"), 1);
	assert_non_null(strstr(text, "unk.conf:2"));
	assert_non_null(strstr(text, "frobnicate"));
	assert_non_null(strstr(text, "unk.conf:5"));
	assert_int_equal(count_lines(text, "\n"), 2);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "WORKGROUP");
	assert_string_equal(lp_str(lp, 0, LP_WORKGROUP), "WORKGROUP");
	assert_string_equal(lp_parm_str(lp, 0, "fruit:aapl", "no"), "yes");
	talloc_free(mem);
}

/* Samba's parameters we lack are "not supported by this server", not
 * "unknown" (conf/samba_params.c, from Samba 4.17's testparm). */
static void test_samba_parameters(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text;

	log_capture();
	assert_true(lp_load_string(lp, "sp.conf",
				   "[global]\nlogging = file\n"
				   "usershare_path = /x\nNcalrpc Dir = /y\n"
				   "frobnicate = yes\n"));
	text = log_text(mem);
	assert_int_equal(count_lines(text, "not supported by this server"), 3);
	assert_non_null(strstr(text, "sp.conf:2: parameter \"logging\""));
	assert_non_null(strstr(text, "sp.conf:4: parameter \"Ncalrpc Dir\""));
	assert_int_equal(count_lines(text, "unknown parameter"), 1);
	assert_non_null(strstr(text, "sp.conf:5: unknown parameter"));
	assert_true(conf_samba_knows("usershare max shares"));
	assert_true(conf_samba_knows("include"));
	assert_false(conf_samba_knows("frobnicate"));
	assert_true(conf_num_samba_params > 500);
	/* Every parameter of ours that is not our own ("smbd ...") is
	 * Samba's: 4.17's list, or one of the few from later releases we
	 * implement, or named as its SMB3 siblings are. */
	{
		static const char *const later[] = {
			"smb3 directory leases", /* Samba 4.22 */
			"smb3 compression",	 /* ours: Samba has none */
		};
		size_t i, j;

		for (i = 0; i < LP__COUNT; i++) {
			bool is_later = false;

			for (j = 0; j < sizeof(later) / sizeof(later[0]); j++) {
				is_later |= strcmp(conf_params[i].name,
						   later[j]) == 0;
			}
			if (strncmp(conf_params[i].name, "smbd ", 5) != 0 &&
			    !is_later) {
				assert_true(conf_samba_knows(
					conf_params[i].name));
			}
		}
	}
	log_capture();
	assert_false(lp_set_cmdline(lp, "logging", "file"));
	text = log_text(mem);
	assert_non_null(strstr(text, "does not support"));
	talloc_free(mem);
}

/* `include` stays in the dump where it was set; --option cannot set it;
 * each compatibility-only parameter set is warned about once. */
static void test_include_and_compat(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *inc = talloc_asprintf(mem, "%s/inc.conf", tmpdir);
	char *incg = talloc_asprintf(mem, "%s/incg.conf", tmpdir);
	char *conf, *text, *dump = NULL;
	size_t dlen = 0;
	FILE *f = fopen(inc, "w");

	assert_non_null(f);
	fputs("comment = included\n", f);
	fclose(f);
	f = fopen(incg, "w");
	assert_non_null(f);
	fputs("server string = from include\n", f);
	fclose(f);
	conf = talloc_asprintf(mem,
			       "[global]\ninclude = %s\nkernel oplocks = no\n"
			       "socket options = x\n"
			       "[a]\npath = /a\ninclude = %s\n"
			       "kernel oplocks = yes\n"
			       "[b]\npath = /b\ninherit acls = no\n",
			       incg, inc);
	assert_true(lp_load_string(lp, "inc.conf", conf));
	assert_string_equal(lp_str(lp, 0, LP_COMMENT), "included");
	assert_string_equal(lp_str(lp, 0, LP_INCLUDE), inc);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_SERVER_STRING),
			    "from include");
	f = open_memstream(&dump, &dlen);
	lp_dump(lp, f, false);
	fclose(f);
	/* Where Samba's testparm prints it: with the share values. */
	assert_non_null(strstr(dump, talloc_asprintf(
					     mem, "\tinclude = %s\n\n\n[a]\n",
					     incg)));
	assert_non_null(strstr(dump, talloc_asprintf(mem, "[a]\n"
						     "\tcomment = included\n"
						     "\tinclude = %s\n", inc)));
	free(dump);
	log_capture();
	assert_int_equal(lp_warn_compat(lp), 3);
	text = log_text(mem);
	assert_int_equal(count_lines(text, "no effect yet"), 3);
	assert_int_equal(count_lines(text, "\"kernel oplocks\""), 1);
	assert_int_equal(count_lines(text, "\"socket options\""), 1);
	assert_int_equal(count_lines(text, "\"inherit acls\""), 1);
	assert_false(lp_set_cmdline(lp, "include", inc));
	assert_false(conf_params[LP_REALM].flags & CONF_F_COMPAT);
	assert_false(conf_params[LP_PRINTABLE].flags & CONF_F_COMPAT);
	talloc_free(mem);
}

static void test_invalid_values(void **state)
{
	static const char *const bad[] = {
		"max log size = 12abc",
		"smbd workers = 99999999999",
		"server signing = sometimes",
		"server max protocol = NT1",
		"server min protocol = SMB4",
		"create mask = 0789",
		"create mask = 077777",
		"smbd io backend = kqueue",
		"log level = loud",
		/* a debug class Samba does not have, a level that is not
		 * a number (lib/log.h log_parse_levels) */
		"log level = 1 nosuchclass:3",
		"log level = 1 auth:high",
		"log level = 1 2",
		"map to guest = sometimes",
		"smb ports = 445 http",
		"smb ports = 70000",
		"smb ports = ",
		"server smb3 encryption algorithms = AES-128-GCM, ROT13",
		"server smb3 signing algorithms = MD5",
		/* Samba's list edits: +NAME/-NAME only, known names */
		"server smb3 encryption algorithms = -ROT13",
		"server smb3 encryption algorithms = -AES-128-GCM AES-128-CCM",
		"server smb3 signing algorithms = +AES-128-GMAC HMAC-SHA256",
		"server smb3 signing algorithms = -",
	};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = talloc_asprintf(mem, "[global]\n# x\n%s\n",
					     bad[i]);
		char *name = talloc_strndup(mem, bad[i],
					    strcspn(bad[i], "="));
		char *log;

		name[strlen(name) - 1] = '\0';
		log_capture();
		assert_false(lp_load_string(lp, "inv.conf", text));
		log = log_text(mem);
		assert_non_null(strstr(log, "inv.conf:3"));
		assert_non_null(strstr(log, name));
	}
	talloc_free(mem);
}

static void test_enums(void **state)
{
	struct {
		const char *line;
		enum lp_param p;
		int value;
	} cases[] = {
		/* Samba has one name table for min and max. */
		{"server min protocol = SMB2", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB2_10},
		{"server max protocol = SMB2", LP_SERVER_MAX_PROTOCOL,
		 LP_PROTO_SMB2_10},
		{"server min protocol = smb3", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB3_11},
		{"server max protocol = SMB3", LP_SERVER_MAX_PROTOCOL,
		 LP_PROTO_SMB3_11},
		{"server max protocol = SMB3_00", LP_SERVER_MAX_PROTOCOL,
		 LP_PROTO_SMB3_00},
		{"server min protocol = NT1", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB2_02},
		{"server min protocol = LANMAN1", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB2_02},
		{"server min protocol = CORE", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB2_02},
		{"server signing = default", LP_SERVER_SIGNING,
		 LP_SIGNING_DEFAULT},
		{"server signing = auto", LP_SERVER_SIGNING, LP_SIGNING_AUTO},
		{"server signing = yes", LP_SERVER_SIGNING, LP_SIGNING_AUTO},
		{"server signing = mandatory", LP_SERVER_SIGNING,
		 LP_SIGNING_MANDATORY},
		{"server signing = Required", LP_SERVER_SIGNING,
		 LP_SIGNING_MANDATORY},
		{"server signing = disabled", LP_SERVER_SIGNING,
		 LP_SIGNING_DISABLED},
		{"server signing = no", LP_SERVER_SIGNING, LP_SIGNING_DISABLED},
		{"server signing = off", LP_SERVER_SIGNING,
		 LP_SIGNING_DISABLED},
		{"smbd io backend = epoll", LP_SMBD_IO_BACKEND, LP_IO_EPOLL},
		{"map to guest = bad user", LP_MAP_TO_GUEST,
		 LP_MAP_TO_GUEST_BAD_USER},
		{"map to guest = Bad Password", LP_MAP_TO_GUEST,
		 LP_MAP_TO_GUEST_BAD_PASSWORD},
		{"ntlm auth = yes", LP_NTLM_AUTH,
		 LP_NTLM_AUTH_NTLMV1_PERMITTED},
		{"ntlm auth = disabled", LP_NTLM_AUTH, LP_NTLM_AUTH_DISABLED},
		{"server role = standalone server", LP_SERVER_ROLE,
		 LP_ROLE_STANDALONE},
		{"security = USER", LP_SECURITY, LP_SEC_USER},
		{"case sensitive = yes", LP_CASE_SENSITIVE, LP_CASE_YES},
		{"mangled names = illegal", LP_MANGLED_NAMES,
		 LP_MANGLED_ILLEGAL},
		{"smb encrypt = desired", LP_SERVER_SMB_ENCRYPT,
		 LP_ENCRYPT_DESIRED},
		{"server smb encrypt = off", LP_SERVER_SMB_ENCRYPT,
		 LP_ENCRYPT_OFF},
		{"log level = 3 passdb:5 auth:10", LP_LOG_LEVEL, 3},
		{"log level = all:7", LP_LOG_LEVEL, 7},
		{"log level = auth_json_audit:3", LP_LOG_LEVEL, 0},
		{"log level = 1 auth_audit:3,smb2_credits:10", LP_LOG_LEVEL, 1},
		{"max connections = 0x10", LP_MAX_CONNECTIONS, 16},
		{"force create mode = 2775", LP_FORCE_CREATE_MODE, 02775},
		{"create mask = 0x1ff", LP_CREATE_MASK, 0777},
		{"server max protocol = default", LP_SERVER_MAX_PROTOCOL,
		 LP_PROTO_SMB3_11},
		{"server min protocol = default", LP_SERVER_MIN_PROTOCOL,
		 LP_PROTO_SMB2_02},
	};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = talloc_asprintf(mem, "%s\n", cases[i].line);

		assert_true(lp_load_string(lp, "enum.conf", text));
		assert_int_equal(lp_int(lp, LP_GLOBAL, cases[i].p),
				 cases[i].value);
	}
	talloc_free(mem);
}

static void test_inheritance(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;

	lp = load(mem, "[global]\nread only = no\ncomment = global comment\n"
		       "max connections = 7\n"
		       "acl_xattr:ignore system acls = yes\n"
		       "[a]\npath = /a\n"
		       "[b]\npath = /b\nread only = yes\nmax connections = 3\n"
		       "ACL_XATTR : Ignore System ACLs = no\n");
	assert_false(lp_bool(lp, LP_GLOBAL, LP_READ_ONLY));
	assert_false(lp_bool(lp, 0, LP_READ_ONLY));
	assert_true(lp_bool(lp, 1, LP_READ_ONLY));
	assert_string_equal(lp_str(lp, 0, LP_COMMENT), "global comment");
	assert_int_equal(lp_int(lp, 0, LP_MAX_CONNECTIONS), 7);
	assert_int_equal(lp_int(lp, 1, LP_MAX_CONNECTIONS), 3);
	/* not set anywhere: the built-in default */
	assert_true(lp_bool(lp, 0, LP_BROWSEABLE));
	/* global parameters read through a share give the global value */
	assert_int_equal(lp_int(lp, 1, LP_MAX_LOG_SIZE), 5000);
	assert_string_equal(lp_parm_str(lp, 0, "acl_xattr:ignore system acls",
					"def"),
			    "yes");
	assert_string_equal(lp_parm_str(lp, 1, "acl_xattr:ignore system acls",
					"def"),
			    "no");
	assert_true(lp_parm_bool(lp, 0, "ACL_XATTR:ignore system acls",
				 false));
	assert_false(lp_parm_bool(lp, 1, "acl_xattr:ignore system acls",
				  true));
	assert_string_equal(lp_parm_str(lp, 0, "fruit:none", "def"), "def");
	assert_null(lp_parm_str(lp, LP_GLOBAL, "fruit:none", NULL));
	talloc_free(mem);
}

/* The lp_parm_* readers vfs modules use (recycle:maxsize, recycle:
 * directory_mode, recycle:exclude): Samba's number, size and list rules. */
static void test_parm_typed(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	const char **l;

	(void)state;
	assert_true(lp_load_string(lp, "t",
				   "[global]\nrecycle:maxsize = 2M\n"
				   "recycle:directory_mode = 0750\n"
				   "[a]\npath = /a\n"
				   "recycle:maxsize = 100\n"
				   "recycle:minsize = 10kb\n"
				   "recycle:subdir_mode = 0x1ff\n"
				   "recycle:versions = 12\n"
				   "recycle:bad = 12x\n"
				   "recycle:huge = 99999999999P\n"
				   "recycle:neg = -5\n"
				   "recycle:exclude = *.tmp, \"a b\" ,*.o;x\n"));
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:maxsize", 7), 100);
	assert_int_equal(lp_parm_bytes(lp, LP_GLOBAL, "recycle:maxsize", 7),
			 2 * 1024 * 1024);
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:minsize", 7), 10240);
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:bad", 7), 7);
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:huge", 7), 7);
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:neg", 7), 7);
	assert_int_equal(lp_parm_bytes(lp, 0, "recycle:unset", 7), 7);
	/* share, then [global]; octal and hex as strtol base 0 */
	assert_int_equal(lp_parm_int(lp, 0, "recycle:directory_mode", 1),
			 0750);
	assert_int_equal(lp_parm_int(lp, 0, "recycle:subdir_mode", 1), 0777);
	assert_int_equal(lp_parm_int(lp, 0, "recycle:versions", 1), 12);
	assert_int_equal(lp_parm_int(lp, 0, "recycle:neg", 1), -5);
	assert_int_equal(lp_parm_int(lp, 0, "recycle:bad", 1), 1);
	assert_int_equal(lp_parm_int(lp, 0, "recycle:unset", 1), 1);
	l = lp_parm_list(mem, lp, 0, "recycle:exclude");
	assert_non_null(l);
	assert_string_equal(l[0], "*.tmp");
	assert_string_equal(l[1], "a b");
	assert_string_equal(l[2], "*.o");
	assert_string_equal(l[3], "x");
	assert_null(l[4]);
	l = lp_parm_list(mem, lp, 0, "recycle:unset");
	assert_non_null(l);
	assert_null(l[0]);
	talloc_free(mem);
}

static void test_many_shares(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text = talloc_strdup(mem, "");
	int i;

	for (i = 0; i < 3000; i++) {
		text = talloc_asprintf_append(text, "[Share%d]\npath = /s/%d\n",
					      i, i);
	}
	assert_true(lp_load_string(lp, "many", text));
	assert_int_equal(lp_num_shares(lp), 3000);
	for (i = 0; i < 3000; i += 7) {
		char name[32];

		snprintf(name, sizeof(name), "SHARE%d", i);
		assert_int_equal(lp_find_share(lp, name), i);
	}
	assert_int_equal(lp_find_share(lp, "share3000"), -1);
	assert_int_equal(lp_add_share(lp, "share2999"), 2999);
	assert_int_equal(lp_add_share(lp, "new"), 3000);
	assert_int_equal(lp_find_share(lp, "NEW"), 3000);
	talloc_free(mem);
}

static void test_copy(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	int c;

	lp = load(mem, "[base]\npath = /base\nread only = no\n"
		       "vfs:x = 1\n"
		       "[derived]\ncopy = BASE\npath = /derived\n");
	c = lp_find_share(lp, "derived");
	assert_string_equal(lp_str(lp, c, LP_PATH), "/derived");
	assert_false(lp_bool(lp, c, LP_READ_ONLY));
	assert_string_equal(lp_parm_str(lp, c, "vfs:x", ""), "1");
	lp = lp_new(mem);
	log_capture();
	assert_false(lp_load_string(lp, "copy.conf",
				    "[a]\ncopy = nosuch\n"));
	assert_non_null(strstr(log_text(mem), "copy.conf:2"));
	talloc_free(mem);
}

static void test_lists(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	const char **l;

	lp = load(mem, "[s]\nvalid users = alice, bob\tcarol,,  "
		       "\"dom user\" @\"staff group\"  \n"
		       "invalid users = \n");
	l = lp_list(mem, lp, 0, LP_VALID_USERS);
	assert_non_null(l);
	assert_string_equal(l[0], "alice");
	assert_string_equal(l[1], "bob");
	assert_string_equal(l[2], "carol");
	assert_string_equal(l[3], "dom user");
	assert_string_equal(l[4], "@staff group");
	assert_null(l[5]);
	l = lp_list(mem, lp, 0, LP_INVALID_USERS);
	assert_non_null(l);
	assert_null(l[0]);
	talloc_free(mem);
}

static void test_enum_lists(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	int v[8];

	/* Samba's default order. */
	assert_int_equal(lp_enum_list(lp, LP_GLOBAL,
				      LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS, v,
				      8),
			 4);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 1);
	assert_int_equal(v[2], 4);
	assert_int_equal(v[3], 3);
	lp = load(mem, "[global]\nserver smb3 encryption algorithms = "
		       "aes-256-gcm,AES-128-CCM\n");
	assert_int_equal(lp_enum_list(lp, LP_GLOBAL,
				      LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS, v,
				      8),
			 2);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[1], 1);
	/* max bounds what is returned */
	assert_int_equal(lp_enum_list(lp, LP_GLOBAL,
				      LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS, v,
				      1),
			 1);
	talloc_free(mem);
}

/* The list as testparm prints it. */
static const char *enum_list_of(TALLOC_CTX *mem, const char *lines)
{
	struct lp_ctx *lp = lp_new(mem);

	assert_non_null(lp);
	assert_true(lp_load_string(lp, "edit.conf",
				   talloc_asprintf(mem, "[global]\n%s", lines)));
	return lp_str(lp, LP_GLOBAL, LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS);
}

/* Samba's "+NAME" / "-NAME" edits of a list (its set_variable_helper):
 * relative to the default or to what an earlier line set. */
static void test_enum_list_edits(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *enc = "server smb3 encryption algorithms = ";
	struct lp_ctx *lp;
	int v[8];

	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%s-AES-128-GCM\n", enc)),
			    "AES-128-CCM, AES-256-GCM, AES-256-CCM");
	/* names in any case; removing what is not there is no error */
	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%s-aes-128-ccm, -AES-256-CCM "
				    "-AES-256-CCM\n", enc)),
			    "AES-128-GCM, AES-256-GCM");
	/* "+": at the end, once */
	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%sAES-256-GCM\n%s+AES-128-CCM "
				    "+AES-256-GCM +AES-128-CCM\n", enc, enc)),
			    "AES-256-GCM, AES-128-CCM");
	/* out and back in: moved to the end */
	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%s-AES-128-GCM +AES-128-GCM\n", enc)),
			    "AES-128-CCM, AES-256-GCM, AES-256-CCM, "
			    "AES-128-GCM");
	/* everything out: an empty list */
	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%s-AES-128-GCM -AES-128-CCM "
				    "-AES-256-GCM -AES-256-CCM\n", enc)), "");
	/* a plain value still replaces the list */
	assert_string_equal(enum_list_of(mem, talloc_asprintf(
				    mem, "%s-AES-128-GCM\n%sAES-256-CCM\n",
				    enc, enc)), "AES-256-CCM");
	/* what lp_enum_list() gives the negotiation */
	lp = load(mem, "[global]\nserver smb3 signing algorithms = "
		       "-AES-128-GMAC\n");
	assert_int_equal(lp_enum_list(lp, LP_GLOBAL,
				      LP_SERVER_SMB3_SIGNING_ALGORITHMS, v, 8),
			 2);
	assert_int_equal(v[0], 1);	/* AES-128-CMAC */
	assert_int_equal(v[1], 0);	/* HMAC-SHA256 */
	talloc_free(mem);
}

static void test_include(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *inc, *main_path, *text, *loop, *log;

	inc = write_file(mem, "inc.conf",
			 "workgroup = included\n[inc]\npath = /inc\n");
	(void)write_file(mem, "per-HOSTX.conf", "[perhost]\npath = /p\n");
	text = talloc_asprintf(mem,
			       "[global]\nnetbios name = hostx\n"
			       "include = %s\n"
			       "read only = no\n"
			       "include = %s/per-%%L.conf\n"
			       "include = %s/missing.%%m\n",
			       inc, tmpdir, tmpdir);
	main_path = write_file(mem, "main.conf", text);
	log_capture();
	assert_true(lp_load_file(lp, main_path));
	assert_string_equal(lp_config_file(lp), main_path);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "INCLUDED");
	assert_string_equal(lp_str(lp, 0, LP_PATH), "/inc");
	/* after the include we are still in [inc] (Samba does the same) */
	assert_false(lp_bool(lp, 0, LP_READ_ONLY));
	assert_true(lp_bool(lp, LP_GLOBAL, LP_READ_ONLY));
	assert_int_equal(lp_find_share(lp, "perhost"), 1);
	assert_non_null(strstr(log_text(mem), "missing."));

	/* a file including itself: bounded, an error, no hang */
	loop = talloc_asprintf(mem, "%s/loop.conf", tmpdir);
	text = talloc_asprintf(mem, "[global]\ninclude = %s\n", loop);
	(void)write_file(mem, "loop.conf", text);
	log_capture();
	assert_false(lp_load_file(lp, loop));
	log = log_text(mem);
	assert_non_null(strstr(log, "nested"));
	/* the old configuration is still there */
	assert_int_equal(lp_find_share(lp, "perhost"), 1);
	/* a relative include is relative to the current directory */
	(void)write_file(mem, "rel.conf", "[relative]\npath = /r\n");
	{
		char cwd[4096];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(tmpdir), 0);
		assert_true(lp_load_string(lp, "s", "include = rel.conf\n"));
		assert_int_equal(chdir(cwd), 0);
	}
	assert_int_equal(lp_find_share(lp, "relative"), 0);
	/* a missing main file fails */
	assert_false(lp_load_file(lp, "/nonexistent/smb.conf"));
	talloc_free(mem);
}

static void test_subst(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;
	struct lp_subst s = {
		.user = "alice",
		.group = "staff",
		.home = "/home/alice",
		.share = "data",
		.share_path = "/srv/data",
		.client_name = "../evil/x",
		.client_ip = "10.1.2.3",
		.unix_user = "ualice",
		.unix_group = "ustaff",
	};
	char *r;

	lp = load(mem, "[global]\nnetbios name = srv\nworkgroup = wg\n"
		       "log file = /var/log/log.%m\n"
		       "[data]\npath = /srv/%S\ncomment = %U on %L\n");
	r = lp_substitute(mem, lp, "%U %G %H %S %P %I %L %D %u %g %N %%", &s);
	assert_string_equal(r, "alice staff /home/alice data /srv/data "
			       "10.1.2.3 SRV WG ualice ustaff SRV %");
	r = lp_substitute(mem, lp, "/x/%m", &s);
	assert_string_equal(r, "/x/_._evil_x");
	r = lp_substitute(mem, lp, "%v", NULL);
	assert_string_equal(r, PACKAGE_VERSION);
	r = lp_substitute(mem, lp, "[%U][%m][%I]%Q%", NULL);
	assert_string_equal(r, "[][][]%Q%");
	setenv("TEST_CONF_VAR", "envval", 1);
	r = lp_substitute(mem, lp, "a%$(TEST_CONF_VAR)b%$(NOPE_XYZ)c%$(bad",
			  NULL);
	assert_string_equal(r, "aenvvalbc%$(bad");
	r = lp_substitute(mem, lp, "%T", NULL);
	assert_int_equal(strlen(r), 19);
	r = lp_substitute(mem, lp, "%h", NULL);
	assert_true(strlen(r) > 0);
	r = lp_str_subst(mem, lp, 0, LP_PATH, NULL);
	assert_string_equal(r, "/srv/data");
	s.server_name = "OTHER";
	r = lp_str_subst(mem, lp, 0, LP_COMMENT, &s);
	assert_string_equal(r, "alice on OTHER");
	r = lp_str_subst(mem, lp, LP_GLOBAL, LP_LOG_FILE, NULL);
	assert_string_equal(r, "/var/log/log.");
	talloc_free(mem);
}

static void test_cmdline(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *path;

	assert_true(lp_set_cmdline(lp, "workgroup", "cmdwg"));
	assert_true(lp_set_cmdline(lp, "Log Level", "5"));
	assert_true(lp_set_cmdline(lp, "vfs:opt", "cmd"));
	assert_false(lp_set_cmdline(lp, "no such param", "1"));
	assert_false(lp_set_cmdline(lp, "smbd workers", "many"));
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "CMDWG");
	path = write_file(mem, "cmd.conf",
			  "[global]\nworkgroup = filewg\nlog level = 1\n"
			  "vfs:opt = file\nserver string = from file\n"
			  "[s]\npath = /s\n");
	assert_true(lp_load_file(lp, path));
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "CMDWG");
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_LOG_LEVEL), 5);
	assert_string_equal(lp_parm_str(lp, LP_GLOBAL, "vfs:opt", ""), "cmd");
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_SERVER_STRING),
			    "from file");
	assert_true(lp_reload(lp));
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "CMDWG");
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_LOG_LEVEL), 5);
	assert_int_equal(lp_find_share(lp, "s"), 0);
	talloc_free(mem);
}

static void test_runtime_shares(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = load(mem, "[homes]\nread only = no\n");
	int h = lp_find_share(lp, "homes");
	int a;

	a = lp_add_share(lp, "alice");
	assert_int_equal(a, 1);
	assert_int_equal(lp_add_share(lp, "ALICE"), a);
	assert_int_equal(lp_add_share(lp, ""), -1);
	assert_int_equal(lp_add_share(lp, "global"), -1);
	assert_int_equal(lp_add_share(lp, "a]b"), -1);
	assert_true(lp_share_set(lp, a, "path", "/home/alice"));
	assert_true(lp_share_set(lp, a, "read only",
				 lp_str(lp, h, LP_READ_ONLY)));
	assert_false(lp_share_set(lp, a, "read only", "perhaps"));
	assert_false(lp_share_set(lp, a, "nonsense", "1"));
	assert_false(lp_share_set(lp, a, "workgroup", "X"));
	assert_false(lp_share_set(lp, a, "comment", "two\nlines"));
	assert_false(lp_share_set(lp, 42, "path", "/x"));
	assert_false(lp_share_set(lp, a, NULL, "/x"));
	assert_int_equal(lp_find_share(lp, NULL), -1);
	assert_false(lp_load_string(lp, "x", NULL));
	assert_false(lp_load_file(lp, NULL));
	assert_string_equal(lp_parm_str(lp, a, NULL, "d"), "d");
	assert_true(lp_share_set(lp, LP_GLOBAL, "workgroup", "X"));
	assert_string_equal(lp_str(lp, a, LP_PATH), "/home/alice");
	assert_false(lp_bool(lp, a, LP_READ_ONLY));
	/* [homes] clone */
	assert_true(lp_share_set(lp, h, "comment", "home of %U"));
	a = lp_clone_share(lp, h, "bob");
	assert_int_equal(a, 2);
	assert_string_equal(lp_str(lp, a, LP_COMMENT), "home of %U");
	assert_false(lp_bool(lp, a, LP_READ_ONLY));
	assert_int_equal(lp_clone_share(lp, h, "BOB"), a);
	assert_int_equal(lp_clone_share(lp, 99, "carol"), -1);
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_WORKGROUP), "X");
	talloc_free(mem);
}

static void assert_same_config(const struct lp_ctx *a, const struct lp_ctx *b)
{
	int snum;
	size_t p;

	assert_int_equal(lp_num_shares(a), lp_num_shares(b));
	for (snum = LP_GLOBAL; snum < lp_num_shares(a); snum++) {
		assert_string_equal(lp_share_name(a, snum),
				    lp_share_name(b, snum));
		for (p = 0; p < LP__COUNT; p++) {
			/* As Samba's testparm -v, the default winbind
			 * separator dumps as "\\" at the end of its line,
			 * which reads back as a continuation (so does Samba's) */
			if (p == LP_WINBIND_SEPARATOR ||
			    p == LP_WINBIND_USE_DEFAULT_DOMAIN) {
				continue;
			}
			assert_string_equal(lp_str(a, snum, (enum lp_param)p),
					    lp_str(b, snum, (enum lp_param)p));
			assert_int_equal(lp_int(a, snum, (enum lp_param)p),
					 lp_int(b, snum, (enum lp_param)p));
		}
		assert_string_equal(lp_parm_str(a, snum, "acl_xattr:x", "-"),
				    lp_parm_str(b, snum, "acl_xattr:x", "-"));
	}
}

static void test_dump_roundtrip(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp, *lp2, *lp3;
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *f;

	lp = load(mem, "[global]\nworkgroup = wg\nserver string = s %v\n"
		       "smb ports = 445, 4445\n"
		       "server min protocol = SMB3\nserver signing = yes\n"
		       "log level = 2 auth:3\nread only = no\n"
		       "create mask = 0600\nacl_xattr:x = g\n"
		       "smb ports = 4445\nsmbd workers = 3\n"
		       "[data]\npath = /srv/data\nread only = yes\n"
		       "valid users = a \"b c\"\nacl_xattr:x = s\n"
		       "create mask = 0744\ncase sensitive = no\n"
		       "[other]\npath = /srv/other\ncomment = =x= ; # y\n"
		       "read only = no\n");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	lp_dump(lp, f, false);
	fclose(f);
	assert_non_null(strstr(buf, "# Global parameters\n[global]\n"));
	assert_non_null(strstr(buf, "\tworkgroup = WG\n"));
	assert_non_null(strstr(buf, "\n[data]\n"));
	/* a share value equal to [global] is not repeated */
	assert_null(strstr(strstr(buf, "[other]"), "read only"));
	assert_non_null(strstr(buf, "\tcreate mask = 0744"));
	lp2 = lp_new(mem);
	assert_true(lp_load_string(lp2, "dump", buf));
	assert_same_config(lp, lp2);

	/* verbose dumps every global and loads back the same */
	f = open_memstream(&buf2, &len2);
	assert_non_null(f);
	lp_dump(lp, f, true);
	fclose(f);
	assert_non_null(strstr(buf2, "\tmax log size = 5000\n"));
	assert_non_null(strstr(buf2, "\twinbind separator = \\\n"));
	lp3 = lp_new(mem);
	assert_true(lp_load_string(lp3, "dump -v", buf2));
	assert_same_config(lp, lp3);
	free(buf);
	free(buf2);
	talloc_free(mem);
}

static void test_check(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp;

	lp = load(mem, "[s]\npath = /s\n");
	assert_true(lp_check(lp));
	lp = load(mem, "server min protocol = SMB3_11\n"
		       "server max protocol = SMB2_10\n");
	log_capture();
	assert_false(lp_check(lp));
	assert_non_null(strstr(log_text(mem), "min protocol"));
	/* issue 36: a domain member needs its realm and idmap range for
	 * '*', as Samba's testparm says; a dedicated keytab its file */
	lp = load(mem, "server role = member server\n");
	log_capture();
	assert_false(lp_check(lp));
	assert_non_null(strstr(log_text(mem), "realm"));
	lp = load(mem, "security = ads\n");
	assert_false(lp_check(lp));
	lp = load(mem, "security = ads\nrealm = smbng.test\n");
	log_capture();
	assert_false(lp_check(lp));
	assert_non_null(strstr(log_text(mem), "idmap range"));
	lp = load(mem, "security = ads\nrealm = smbng.test\n"
		       "idmap config * : range = 10000-19999\n");
	assert_true(lp_check(lp));
	assert_true(lp_security_ads(lp));
	assert_string_equal(lp_str(lp, LP_GLOBAL, LP_REALM), "SMBNG.TEST");
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_KERBEROS_METHOD),
			 LP_KRB5_DEFAULT);
	lp = load(mem, "server role = member server\nrealm = smbng.test\n"
		       "idmap config *:range = 10000-19999\n"
		       "kerberos method = secrets and keytab\n");
	assert_true(lp_check(lp));
	assert_true(lp_security_ads(lp));
	assert_int_equal(lp_int(lp, LP_GLOBAL, LP_KERBEROS_METHOD),
			 LP_KRB5_SECRETS_AND_KEYTAB);
	/* as Samba: an explicit security decides over the role */
	lp = load(mem, "server role = member server\nsecurity = user\n");
	assert_true(lp_check(lp));
	assert_false(lp_security_ads(lp));
	lp = load(mem, "security = ads\nrealm = smbng.test\n"
		       "idmap config * : range = 10000-19999\n"
		       "kerberos method = dedicated keytab\n");
	log_capture();
	assert_false(lp_check(lp));
	assert_non_null(strstr(log_text(mem), "dedicated keytab file"));
	lp = load(mem, "security = domain\n");
	assert_false(lp_check(lp));
	lp = load(mem, "server role = active directory domain controller\n");
	assert_false(lp_check(lp));
	lp = load(mem, "smbd workers = -1\n");
	assert_false(lp_check(lp));
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_synonyms),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_unknown_and_scope),
		cmocka_unit_test(test_invalid_values),
		cmocka_unit_test(test_samba_parameters),
		cmocka_unit_test(test_include_and_compat),
		cmocka_unit_test(test_enum_lists),
		cmocka_unit_test(test_enum_list_edits),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_inheritance),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_many_shares),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_subst),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_runtime_shares),
		cmocka_unit_test(test_dump_roundtrip),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_parm_typed),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
