/*
 * Unit tests for vfs/dosattrib.c (Samba's user.DOSATTRIB xattr).
 *
 * The "captured" blobs were written by Samba 4.17.12 (Debian) on ext4 on
 * 2026-12-02: smbd -F with `store dos attributes = yes`, `vfs objects =
 * streams_xattr`, on 127.0.0.1; smbclient put a file per case, then
 * `setmode FILE +h` (+s, +r, -a, +rhsa ...) or mkdir; the value was read
 * with `getfattr -n user.DOSATTRIB -e hex FILE`.
 *
 * The older versions (hex string, v1-v4) cannot be made by Samba 4.17's
 * smbd any more; those blobs were packed by Samba 4.17's own NDR code
 * (python3-samba: samba.dcerpc.xattr.DOSATTRIB, samba.ndr.ndr_pack) with
 * the values in the comments, and the malformed cases were checked with
 * its ndr_unpack, which refuses them too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "vfs/dosattrib.h"

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		char ch = *hex;
		int v;

		if (ch == ' ') {
			continue;
		}
		v = (ch >= '0' && ch <= '9') ? ch - '0' : ch - 'a' + 10;
		if (hi < 0) {
			hi = v;
		} else {
			assert_true(n < max);
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

struct captured {
	const char *what;
	const char *hex;
	uint32_t attrs;
	uint64_t create_time;
};

/* Samba 4.17.12 smbd, see the top of the file. */
static const struct captured samba417[] = {
	{"put plain.txt",
	 "00000500050000001100000020000000d71ddc825482dd01", 0x20,
	 0x01dd825482dc1dd7ULL},
	{"setmode +h", "000005000500000011000000220000005c3fde825482dd01",
	 0x22, 0x01dd825482de3f5cULL},
	{"setmode +s", "00000500050000001100000024000000a597de825482dd01",
	 0x24, 0x01dd825482de97a5ULL},
	{"setmode +r", "0000050005000000110000002100000083bbde825482dd01",
	 0x21, 0x01dd825482debb83ULL},
	{"setmode -a +a", "00000500050000001100000020000000d7e6de825482dd01",
	 0x20, 0x01dd825482dee6d7ULL},
	{"setmode -a", "00000500050000001100000000000000111adf825482dd01", 0,
	 0x01dd825482df1a11ULL},
	{"setmode +rhsa", "00000500050000001100000027000000ad59df825482dd01",
	 0x27, 0x01dd825482df59adULL},
	{"mkdir", "000005000500000011000000100000009974df825482dd01", 0x10,
	 0x01dd825482df7499ULL},
	{"mkdir, setmode +h",
	 "000005000500000011000000120000007389df825482dd01", 0x12,
	 0x01dd825482df8973ULL},
};

static void test_samba417_decode_encode(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(samba417) / sizeof(samba417[0]); i++) {
		uint8_t blob[64], *out;
		size_t len = unhex(samba417[i].hex, blob, sizeof(blob)), olen;
		struct dos_info info;

		assert_int_equal(dosattrib_decode(blob, len, &info),
				 NT_STATUS_OK);
		assert_int_equal(info.version, 5);
		assert_int_equal(info.attrs, samba417[i].attrs);
		assert_true(info.has_create_time);
		assert_true(info.create_time == samba417[i].create_time);
		assert_false(info.has_itime);
		/* Encoding the same values gives Samba's bytes. */
		assert_int_equal(dosattrib_encode(ctx, &info, &out, &olen),
				 NT_STATUS_OK);
		assert_int_equal(olen, len);
		assert_memory_equal(out, blob, len);
	}
	talloc_free(ctx);
}

static void test_encode(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct dos_info in = {.attrs = 0x1022,
			      .has_create_time = true,
			      .create_time = 0x01dd825482df59adULL};
	uint8_t want[24], *out;
	size_t olen;

	(void)state;
	/* OFFLINE (0x1000) is never stored, as Samba's
	 * set_ea_dos_attribute. */
	unhex("000005000500000011000000220000" "00ad59df825482dd01", want,
	      sizeof(want));
	assert_int_equal(dosattrib_encode(ctx, &in, &out, &olen),
			 NT_STATUS_OK);
	assert_int_equal(olen, 24);
	assert_memory_equal(out, want, 24);
	/* Without a create time: only the ATTRIB flag, time 0 (as
	 * ndr_pack of that DosInfo5 gives). */
	in.has_create_time = false;
	in.attrs = 0x10;
	unhex("000005000500000001000000100000000000000000000000", want,
	      sizeof(want));
	assert_int_equal(dosattrib_encode(ctx, &in, &out, &olen),
			 NT_STATUS_OK);
	assert_memory_equal(out, want, 24);
	talloc_free(ctx);
}

static void decode_hex(const char *hex, NTSTATUS want, struct dos_info *info)
{
	uint8_t blob[128];
	size_t len = unhex(hex, blob, sizeof(blob));
	NTSTATUS st = dosattrib_decode(blob, len, info);

	if (st != want) {
		fail_msg("%s: 0x%08x, expected 0x%08x", hex, st, want);
	}
}

static void test_old_versions(void **state)
{
	struct dos_info i;

	(void)state;
	/* v1 (attrib_hex "0x21"): attrib 0x21, ea_size 7, size 0x1234,
	 * alloc 0x2000, create 0x01dd825482df59ad, change 0x01d0000011223344 */
	decode_hex("3078323100 00 0100 0100 0000 21000000 07000000"
		   "3412000000000000 0020000000000000 ad59df825482dd01"
		   "443322110000d001",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.version, 1);
	assert_int_equal(i.attrs, 0x21);
	assert_true(i.has_create_time);
	assert_true(i.create_time == 0x01dd825482df59adULL);
	/* v1 with a null create time (0 and all ones) has none. */
	decode_hex("3078323100 00 0100 0100 0000 21000000 07000000"
		   "3412000000000000 0020000000000000 ffffffffffffffff"
		   "443322110000d001",
		   NT_STATUS_OK, &i);
	assert_false(i.has_create_time);
	/* v2 ("0x24"): flags 1, attrib 0x24, ..., write_time, name "abc".
	 * Samba never takes v2's create time. */
	decode_hex("30783234 00 00 0200 0200 0000 01000000 24000000 07000000"
		   "3412000000000000 0020000000000000 ad59df825482dd01"
		   "443322110000d001 887766550000c001 61626300",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.version, 2);
	assert_int_equal(i.attrs, 0x24);
	assert_false(i.has_create_time);
	/* v2 name may run to the end without its NUL, but must be there. */
	decode_hex("30783234 00 00 0200 0200 0000 01000000 24000000 07000000"
		   "3412000000000000 0020000000000000 ad59df825482dd01"
		   "443322110000d001 887766550000c001 616263",
		   NT_STATUS_OK, &i);
	decode_hex("30783234 00 00 0200 0200 0000 01000000 24000000 07000000"
		   "3412000000000000 0020000000000000 ad59df825482dd01"
		   "443322110000d001 887766550000c001",
		   NT_STATUS_INVALID_PARAMETER, &i);
	/* v3 ("0x20"): valid_flags ATTRIB|CREATE_TIME, attrib 0x20, ea 0,
	 * size 6, alloc 4096, create, change. */
	decode_hex("3078323000 00 0300 0300 0000 11000000 20000000 00000000"
		   "0600000000000000 0010000000000000 ad59df825482dd01"
		   "443322110000d001",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.version, 3);
	assert_int_equal(i.attrs, 0x20);
	assert_true(i.has_create_time);
	assert_true(i.create_time == 0x01dd825482df59adULL);
	/* v3 with "0x2": no pad before the version. valid_flags without
	 * CREATE_TIME: the time is ignored. */
	decode_hex("30783200 0300 0300 01000000 02000000 00000000"
		   "0000000000000000 0000000000000000 0500000000000000"
		   "0000000000000000",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.attrs, 2);
	assert_false(i.has_create_time);
	/* v4 (""): valid_flags ATTRIB|CREATE_TIME|ITIME, attrib 2, itime,
	 * create. */
	decode_hex("00 00 0400 0400 0000 51000000 02000000 887766550000c001"
		   "ad59df825482dd01",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.version, 4);
	assert_int_equal(i.attrs, 2);
	assert_true(i.has_itime);
	assert_true(i.itime == 0x01c0000055667788ULL);
	assert_true(i.has_create_time);
	assert_true(i.create_time == 0x01dd825482df59adULL);
	/* v5 with a hex string in front still reads the binary part. */
	decode_hex("3078323000 00 0500 0500 0000 11000000 27000000"
		   "00000000ad59df82",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.attrs, 0x27);
	assert_true(i.create_time == 0x82df59ad00000000ULL);
	/* Trailing bytes are ignored (ndr_pull_struct_blob). */
	decode_hex("00000500050000001100000027000000ad59df825482dd01ff",
		   NT_STATUS_OK, &i);
	assert_int_equal(i.attrs, 0x27);
}

static void test_hex_string(void **state)
{
	static const struct {
		const char *hex;
		uint32_t attrs;
	} cases[] = {
		{"3078323200", 0x22},	/* "0x22", as 0xFFFF packs */
		{"30783230", 0x20},		/* no NUL */
		{"30783200", 0x2},
		{"3078", 0},			/* "0x" */
		{"307800", 0},
		{"307a3230", 0},		/* "0z20": the 0 only */
		{"3078475a00", 0},		/* "0xGZ" */
		{"3078324700", 0x2},		/* "0x2G" */
		{"2030783200", 0x2},		/* " 0x2" */
		{"0930783500", 0x5},		/* "\t0x5" */
		{"3078203200", 0},		/* "0x 2" */
		{"30782b3200", 0},		/* "0x+2" */
		{"30782d3100", 0},		/* "0x-1" */
		{"2b3200", 0x2},		/* "+2" */
		{"2d3100", 0xffffffff},		/* "-1" */
		{"30580a00", 0},		/* "0X\n" */
		{"30783132333435363738393000", 0x34567890},
		{"30786666666666666666666600", 0xffffffff},
		{"3078303030303030303030303100", 0x1},
	};
	struct dos_info i;
	size_t k;

	(void)state;
	/* Each answer is what Samba 4.17's ndr_unpack gave. */
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		decode_hex(cases[k].hex, NT_STATUS_OK, &i);
		assert_int_equal(i.version, DOSATTRIB_VERSION_HEX);
		if (i.attrs != cases[k].attrs) {
			fail_msg("%s: 0x%x", cases[k].hex, i.attrs);
		}
		assert_false(i.has_create_time);
	}
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"",			/* empty */
		"00",			/* "" alone (Samba: garbage) */
		"7a7a00",		/* "zz" */
		"0000",			/* no version */
		"000005",		/* half a version */
		"00000500",		/* no level */
		/* truncated v5 */
		"00000500050000001100000027000000ad59df825482dd",
		"0000050005000000110000002700",
		"00000500050000",
		/* version 6, 0, 0xffff in binary */
		"00000600060000001100000027000000ad59df825482dd01",
		"000000000000000011000000270000000000000000000000",
		"0000ffffffff0000",
		/* level differs from version */
		"00000500040000001100000027000000ad59df825482dd01",
		/* non-ASCII in the hex string */
		"ffff0000",
		"30e278320000050005000000110000002700000000000000ad59df82",
		/* truncated v1, v3, v4 */
		"307832310000010001000000210000000700000034120000",
		"3078323000000300030000001100000020000000",
		"000004000400000051000000020000008877665500",
		/* hex string then one stray byte */
		"3078320000",
		"307832000100",
	};
	struct dos_info i;
	size_t k;

	(void)state;
	assert_int_equal(dosattrib_decode(NULL, 0, &i),
			 NT_STATUS_INVALID_PARAMETER);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		decode_hex(bad[k], NT_STATUS_INVALID_PARAMETER, &i);
	}
}

static void test_every_truncation(void **state)
{
	uint8_t blob[64];
	size_t len = unhex(samba417[6].hex, blob, sizeof(blob)), n;
	struct dos_info i;

	(void)state;
	/* A prefix is either the hex-string form (n <= 1: "" is refused)
	 * or a truncated binary: never OK. */
	for (n = 0; n < len; n++) {
		assert_int_equal(dosattrib_decode(blob, n, &i),
				 NT_STATUS_INVALID_PARAMETER);
	}
}

/*
 * Differential test against Samba's own NDR code: python3-samba packs
 * random values in every version (what Samba wrote over the years) and
 * the v5 blob Samba 4.17's smbd would write for them; we must decode the
 * former to the same values and encode exactly the latter.  Skipped when
 * python3-samba is not installed.
 */
static const char ndr_script[] =
	"import random,sys\n"
	"from samba.dcerpc import xattr\n"
	"from samba.ndr import ndr_pack\n"
	"r=random.Random(4171)\n"
	"def t():\n"
	"  return r.choice([0,0xffffffffffffffff,r.getrandbits(64)])\n"
	"def pk(v,i):\n"
	"  d=xattr.DOSATTRIB();d.version=v;d.info=i;return ndr_pack(d).hex()\n"
	"for n in range(300):\n"
	"  v=r.choice([1,2,3,4,5]);a=r.getrandbits(32);ct=t();it=t()\n"
	"  f=r.getrandbits(7)\n"
	"  k={1:'DosInfo1',2:'DosInfo2Old'}.get(v,'DosInfo%d'%v)\n"
	"  c=getattr(xattr,k)()\n"
	"  c.attrib=a;c.create_time=ct\n"
	"  if v==2: c.flags=f;c.name='n%d'%n;c.write_time=t()\n"
	"  if v in(1,2,3):\n"
	"    c.ea_size=r.getrandbits(32);c.size=t();c.alloc_size=t()\n"
	"    c.change_time=t()\n"
	"  if v>=3: c.valid_flags=f\n"
	"  if v==4: c.itime=it\n"
	"  nul=ct in(0,0xffffffffffffffff)\n"
	"  has=not nul and (v==1 or (v>=3 and f&16!=0))\n"
	"  hit=v==4 and f&64!=0\n"
	"  e=xattr.DosInfo5();e.valid_flags=0x11;e.attrib=a&~0x1000\n"
	"  e.create_time=ct if has else 0\n"
	"  if not has: e.valid_flags=1\n"
	"  print(pk(v,c),v,a,int(has),ct,int(hit),it,pk(5,e))\n";

static void test_samba_ndr(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *cmd, line[1024];
	FILE *f;
	int n = 0;

	(void)state;
	if (access("/usr/bin/python3", X_OK) != 0 ||
	    system("/usr/bin/python3 -c 'import samba.ndr' 2>/dev/null") !=
		    0) {
		talloc_free(ctx);
		skip();
	}
	cmd = talloc_asprintf(ctx, "/usr/bin/python3 -c \"%s\"", ndr_script);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char blob_hex[512], v5_hex[128];
		unsigned ver, has, hit;
		unsigned long attrs;
		unsigned long long ct, it;
		uint8_t blob[256], v5[64], *out;
		size_t len, v5len, olen;
		struct dos_info info;

		assert_int_equal(sscanf(line, "%511s %u %lu %u %llu %u %llu "
					      "%127s",
					blob_hex, &ver, &attrs, &has, &ct, &hit,
					&it, v5_hex),
				 8);
		len = unhex(blob_hex, blob, sizeof(blob));
		v5len = unhex(v5_hex, v5, sizeof(v5));
		if (dosattrib_decode(blob, len, &info) != NT_STATUS_OK) {
			fail_msg("Samba's %s does not decode", blob_hex);
		}
		assert_int_equal(info.version, ver);
		assert_int_equal(info.attrs, (uint32_t)attrs);
		assert_int_equal(info.has_create_time, has != 0);
		if (has) {
			assert_true(info.create_time == ct);
		}
		assert_int_equal(info.has_itime, hit != 0);
		if (hit) {
			assert_true(info.itime == it);
		}
		assert_int_equal(dosattrib_encode(ctx, &info, &out, &olen),
				 NT_STATUS_OK);
		assert_int_equal(olen, v5len);
		assert_memory_equal(out, v5, v5len);
		n++;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(n, 300);
	talloc_free(ctx);
}

static char tmpl[] = "/tmp/test_dosattrib.XXXXXX";

static void test_fget_fset(void **state)
{
	struct dos_info in = {.attrs = 0x23,
			      .has_create_time = true,
			      .create_time = 0x01dd825482df59adULL};
	struct dos_info out;
	uint8_t raw[64], want[64];
	char path[sizeof(tmpl)];
	ssize_t n;
	size_t wlen;
	int fd, pfd;

	(void)state;
	memcpy(path, tmpl, sizeof(tmpl));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	if (fsetxattr(fd, "user.test_probe", "x", 1, 0) != 0 &&
	    errno == ENOTSUP) {
		close(fd);
		unlink(path);
		skip();	/* no user xattrs on this file system */
	}
	assert_int_equal(dosattrib_fget(fd, &out), NT_STATUS_NOT_FOUND);
	assert_int_equal(dosattrib_fset(fd, &in), NT_STATUS_OK);
	assert_int_equal(dosattrib_fget(fd, &out), NT_STATUS_OK);
	assert_int_equal(out.attrs, 0x23);
	assert_true(out.has_create_time);
	assert_true(out.create_time == in.create_time);
	/* On disk: exactly Samba 4.17's bytes for these values. */
	n = fgetxattr(fd, "user.DOSATTRIB", raw, sizeof(raw));
	wlen = unhex("00000500050000001100000023000000ad59df825482dd01", want,
		     sizeof(want));
	assert_int_equal(n, (ssize_t)wlen);
	assert_memory_equal(raw, want, wlen);
	/* A value Samba wrote is read back (the hidden dir capture). */
	wlen = unhex(samba417[8].hex, want, sizeof(want));
	assert_int_equal(fsetxattr(fd, "user.DOSATTRIB", want, wlen, 0), 0);
	assert_int_equal(dosattrib_fget(fd, &out), NT_STATUS_OK);
	assert_int_equal(out.attrs, 0x12);
	/* Garbage is INVALID_PARAMETER, not a crash. */
	assert_int_equal(fsetxattr(fd, "user.DOSATTRIB", "\0\0\x09", 3, 0), 0);
	assert_int_equal(dosattrib_fget(fd, &out),
			 NT_STATUS_INVALID_PARAMETER);
	/* O_PATH handles work through /proc/self/fd. */
	pfd = open(path, O_PATH);
	assert_true(pfd >= 0);
	in.attrs = 0x21;
	assert_int_equal(dosattrib_fset(pfd, &in), NT_STATUS_OK);
	assert_int_equal(dosattrib_fget(pfd, &out), NT_STATUS_OK);
	assert_int_equal(out.attrs, 0x21);
	close(pfd);
	/* A closed descriptor. */
	close(fd);
	assert_int_equal(dosattrib_fget(fd, &out), NT_STATUS_INVALID_HANDLE);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samba417_decode_encode),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_old_versions),
		cmocka_unit_test(test_hex_string),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_samba_ndr),
		cmocka_unit_test(test_fget_fset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
