/*
 * Unit tests for smbd/wire/sd.c: self-relative security descriptors (MS-DTYP
 * 2.4.6) and Samba's security.NTACL xattr.
 *
 * The captured blobs were written by Samba 4.17 (Debian, /usr/sbin/smbd)
 * on 2026-12-03: share with `vfs objects = acl_xattr`, smbclient as a
 * tdbsam user put a file and made a directory, and the values were read
 * with `getfattr -n security.NTACL -e hex`.  Samba writes version 4 with
 * the description "posix_acl"; the descriptor's offsets count from the
 * start of the blob (the descriptor is at 160, the owner offset is 180).
 *
 * The version 1 form ntacl_blob_push writes was checked against the same
 * Samba: the blob of test_round_trip's kind, made from samba_file_v4's
 * descriptor with the Everyone ACE's mask changed, was put on a file with
 * setfattr, and `smbcacls --numeric` through Samba showed that descriptor.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/wire/sd.h"

static const char samba_file_v4[] =
	"0400040000000200040002000100cdc0f33354cf5d24e504f1347ae8366b4bc8"
	"925d6c363d52daac10a014ed4c33000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c00d46117a4f782dd01"
	"eedab9c482735dfa6cd3f83010557558c548d99774c2c0815714f592c3edc6b8"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000ec000000010500000000000515000000"
	"09ecce15f6ccb4a16d0d5d88e803000001050000000000051500000009ecce15"
	"f6ccb4a16d0d5d8801020000020064000300000000002400ff011f0001050000"
	"000000051500000009ecce15f6ccb4a16d0d5d88e803000000002400a9001200"
	"01050000000000051500000009ecce15f6ccb4a16d0d5d880102000000001400"
	"a9001200010100000000000100000000";

static const char samba_dir_v4[] =
	"0400040000000200040002000100f98b35a2aeee28cf659de498ea00d28ea2fd"
	"29ed4740b7e5a96204ea0ba86028000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c007c0319a4f782dd01"
	"0ed418af2a35fa6fd564a68fadc9fd76344e205c62008d838212deb2ea55ce43"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000ec000000010500000000000515000000"
	"09ecce15f6ccb4a16d0d5d88e803000001050000000000051500000009ecce15"
	"f6ccb4a16d0d5d880102000002008c000500000000002400ff011f0001050000"
	"000000051500000009ecce15f6ccb4a16d0d5d88e8030000000b1400ff011f00"
	"01010000000000030000000000002400a9001200010500000000000515000000"
	"09ecce15f6ccb4a16d0d5d8801020000000b1400a90012000101000000000003"
	"0100000000031400a9001200010100000000000100000000";

#define SAMBA_SD_OFF 160 /* where the descriptor starts in both blobs */

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (; hex[0] != '\0' && hex[1] != '\0'; hex += 2) {
		unsigned v;

		assert_true(n < max);
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void test_samba_file_vector(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	uint8_t blob[512], *out;
	size_t len = unhex(samba_file_v4, blob, sizeof(blob)), olen;
	struct sd *sd;
	uint16_t ver = 0;

	(void)state;
	assert_int_equal(len, 336);
	assert_int_equal(ntacl_blob_parse(ctx, blob, len, &sd, &ver),
			 NT_STATUS_OK);
	assert_int_equal(ver, 4);
	assert_int_equal(sd->revision, 1);
	assert_int_equal(sd->control, SD_SE_SELF_RELATIVE | SD_SE_DACL_PRESENT);
	/* S-1-5-21-365882377-2712980726-2287799661-1000 and ...-513 */
	assert_non_null(sd->owner);
	assert_int_equal(sd->owner->num_auths, 5);
	assert_int_equal(sd->owner->id_auth[5], 5);
	assert_int_equal(sd->owner->sub_auths[0], 21);
	assert_int_equal(sd->owner->sub_auths[4], 1000);
	assert_int_equal(sd->group->sub_auths[4], 513);
	assert_null(sd->sacl);
	assert_non_null(sd->dacl);
	assert_int_equal(sd->dacl->revision, 2);
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_int_equal(sd->dacl->aces[0].type, 0);
	assert_int_equal(sd->dacl->aces[0].mask, 0x001f01ff);
	assert_int_equal(sd->dacl->aces[1].mask, 0x001200a9);
	/* Everyone */
	assert_int_equal(sd->dacl->aces[2].sid.num_auths, 1);
	assert_int_equal(sd->dacl->aces[2].sid.id_auth[5], 1);
	assert_null(sd->dacl->aces[2].opaque);

	/*
	 * Marshalled alone the descriptor is the blob's tail with its
	 * offsets counted from itself (Samba's count from the blob start).
	 */
	assert_int_equal(sd_marshal(ctx, sd, &out, &olen), NT_STATUS_OK);
	assert_int_equal(olen, len - SAMBA_SD_OFF);
	put_le32(blob + SAMBA_SD_OFF + 4, 20);
	put_le32(blob + SAMBA_SD_OFF + 8, 48);
	put_le32(blob + SAMBA_SD_OFF + 16, 76);
	assert_memory_equal(out, blob + SAMBA_SD_OFF, olen);
	talloc_free(ctx);
}

static void test_samba_dir_vector(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	uint8_t blob[512];
	size_t len = unhex(samba_dir_v4, blob, sizeof(blob));
	struct sd *sd;
	uint16_t ver = 0;

	(void)state;
	assert_int_equal(ntacl_blob_parse(ctx, blob, len, &sd, &ver),
			 NT_STATUS_OK);
	assert_int_equal(ver, 4);
	assert_int_equal(sd->dacl->num_aces, 5);
	/* CREATOR OWNER, inherit-only | object | container inherit */
	assert_int_equal(sd->dacl->aces[1].flags, 0x0b);
	assert_int_equal(sd->dacl->aces[1].sid.id_auth[5], 3);
	assert_int_equal(sd->dacl->aces[4].flags, 0x03);
	talloc_free(ctx);
}

/* Every prefix of a well-formed blob is refused, none crashes. */
static void test_every_truncation(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	uint8_t blob[512];
	size_t len = unhex(samba_dir_v4, blob, sizeof(blob)), n;
	struct sd *sd;
	uint16_t ver;

	(void)state;
	for (n = 0; n < len; n++) {
		uint8_t *copy = talloc_memdup(ctx, blob, n + 1);

		assert_int_not_equal(ntacl_blob_parse(ctx, copy, n, &sd, &ver),
				     NT_STATUS_OK);
		if (n >= SAMBA_SD_OFF) {
			/* the descriptor alone, offsets rebased */
			assert_int_not_equal(sd_parse_at(ctx, copy, n,
							 SAMBA_SD_OFF, &sd),
					     NT_STATUS_OK);
		}
		talloc_free(copy);
	}
	talloc_free(ctx);
}

static struct sd *sample_sd(TALLOC_CTX *ctx)
{
	static const uint8_t object_body[] = {
		/* mask, flags = OBJECT_TYPE_PRESENT, GUID, SID S-1-1-0 */
		0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		0x01, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
	struct sd *sd = talloc_zero(ctx, struct sd);
	struct sd_sid sys = {1, 1, {0, 0, 0, 0, 0, 5}, {18}};

	sd->revision = 1;
	sd->control = SD_SE_DACL_PRESENT | SD_SE_SACL_PRESENT;
	sd->owner = talloc_memdup(sd, &sys, sizeof(sys));
	sd->group = talloc_memdup(sd, &sys, sizeof(sys));
	sd->group->num_auths = 2;
	sd->group->sub_auths[0] = 32;
	sd->group->sub_auths[1] = 544;
	sd->sacl = talloc_zero(sd, struct sd_acl);
	sd->sacl->revision = 2;
	sd->sacl->num_aces = 1;
	sd->sacl->aces = talloc_zero_array(sd->sacl, struct sd_ace, 1);
	sd->sacl->aces[0].type = 2; /* audit */
	sd->sacl->aces[0].flags = 0xc0;
	sd->sacl->aces[0].mask = 0x10000;
	sd->sacl->aces[0].sid = sys;
	sd->dacl = talloc_zero(sd, struct sd_acl);
	sd->dacl->revision = 4;
	sd->dacl->num_aces = 2;
	sd->dacl->aces = talloc_zero_array(sd->dacl, struct sd_ace, 2);
	sd->dacl->aces[0].type = 1; /* denied */
	sd->dacl->aces[0].mask = 0x2;
	sd->dacl->aces[0].sid = *sd->group;
	sd->dacl->aces[1].type = 5; /* ACCESS_ALLOWED_OBJECT: kept opaque */
	sd->dacl->aces[1].opaque = talloc_memdup(sd, object_body,
						 sizeof(object_body));
	sd->dacl->aces[1].opaque_len = sizeof(object_body);
	return sd;
}

static void test_round_trip(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd *sd = sample_sd(ctx), *back, *back2;
	uint8_t *a, *b, *blob;
	size_t alen, blen, bloblen;
	uint16_t ver = 0;

	(void)state;
	assert_int_equal(sd_marshal(ctx, sd, &a, &alen), NT_STATUS_OK);
	assert_int_equal(alen % 4, 0);
	/* owner at 20, group 32, sacl 48, dacl after the 28-byte SACL */
	assert_int_equal(a[4], 20);
	assert_int_equal(a[8], 32);
	assert_int_equal(a[12], 48);
	assert_int_equal(a[16], 76);
	assert_int_equal(sd_parse(ctx, a, alen, &back), NT_STATUS_OK);
	assert_int_equal(back->control, sd->control | SD_SE_SELF_RELATIVE);
	assert_int_equal(back->dacl->num_aces, 2);
	assert_null(back->dacl->aces[0].opaque);
	assert_int_equal(back->dacl->aces[0].sid.sub_auths[1], 544);
	assert_non_null(back->dacl->aces[1].opaque);
	assert_int_equal(back->dacl->aces[1].opaque_len, 36);
	assert_int_equal(back->sacl->aces[0].flags, 0xc0);
	assert_int_equal(sd_marshal(ctx, back, &b, &blen), NT_STATUS_OK);
	assert_int_equal(blen, alen);
	assert_memory_equal(a, b, alen);

	/* NTACL v1: header, referent, descriptor counted from the blob. */
	assert_int_equal(ntacl_blob_push(ctx, sd, &blob, &bloblen),
			 NT_STATUS_OK);
	assert_int_equal(bloblen, 8 + alen);
	assert_int_equal(blob[0], 1);
	assert_int_equal(blob[2], 1);
	assert_int_equal(blob[8 + 4], 28);
	assert_int_equal(ntacl_blob_parse(ctx, blob, bloblen, &back2, &ver),
			 NT_STATUS_OK);
	assert_int_equal(ver, 1);
	assert_int_equal(sd_marshal(ctx, back2, &b, &blen), NT_STATUS_OK);
	assert_memory_equal(a, b, alen);
	talloc_free(ctx);
}

static void test_null_vs_empty_dacl(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd sd = {.revision = 1, .control = SD_SE_DACL_PRESENT};
	struct sd_acl empty = {.revision = 2};
	struct sd *back;
	uint8_t *a;
	size_t alen;

	(void)state;
	/* NULL DACL: present bit, no ACL, offset 0 */
	assert_int_equal(sd_marshal(ctx, &sd, &a, &alen), NT_STATUS_OK);
	assert_int_equal(alen, 20);
	assert_int_equal(a[16], 0);
	assert_int_equal(sd_parse(ctx, a, alen, &back), NT_STATUS_OK);
	assert_true(back->control & SD_SE_DACL_PRESENT);
	assert_null(back->dacl);
	/* Empty DACL: an 8-byte ACL with no ACEs */
	sd.dacl = &empty;
	assert_int_equal(sd_marshal(ctx, &sd, &a, &alen), NT_STATUS_OK);
	assert_int_equal(alen, 28);
	assert_int_equal(a[16], 20);
	assert_int_equal(sd_parse(ctx, a, alen, &back), NT_STATUS_OK);
	assert_non_null(back->dacl);
	assert_int_equal(back->dacl->num_aces, 0);
	talloc_free(ctx);
}

static void test_malformed(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd *sd = sample_sd(ctx), *back;
	uint8_t *a, bad[512], blob[512];
	size_t alen, len = unhex(samba_file_v4, blob, sizeof(blob));
	uint16_t ver;

	(void)state;
	assert_int_equal(sd_marshal(ctx, sd, &a, &alen), NT_STATUS_OK);
#define REFUSE(st) assert_int_equal(sd_parse(ctx, bad, alen, &back), st)
	/* owner offset past the end, and one that wraps */
	memcpy(bad, a, alen);
	put_le32(bad + 4, (uint32_t)alen);
	REFUSE(NT_STATUS_INVALID_SID);
	put_le32(bad + 4, 0xfffffffc);
	REFUSE(NT_STATUS_INVALID_SID);
	/* DACL offset past the end */
	memcpy(bad, a, alen);
	put_le32(bad + 16, (uint32_t)alen - 4);
	REFUSE(NT_STATUS_INVALID_ACL);
	/* AceCount claims one ACE more than AclSize holds */
	memcpy(bad, a, alen);
	bad[76 + 4] = 3;
	REFUSE(NT_STATUS_INVALID_ACL);
	/* AclSize larger than the buffer */
	memcpy(bad, a, alen);
	bad[76 + 2] = 0xff;
	REFUSE(NT_STATUS_INVALID_ACL);
	/* an ACE whose AceSize runs past its ACL */
	memcpy(bad, a, alen);
	bad[76 + 8 + 2] = 0x40;
	REFUSE(NT_STATUS_INVALID_ACL);
	/* SID sub-authority count 16 > 15, in the owner and in an ACE */
	memcpy(bad, a, alen);
	bad[20 + 1] = 16;
	REFUSE(NT_STATUS_INVALID_SID);
	memcpy(bad, a, alen);
	bad[76 + 8 + 8 + 1] = 16;
	REFUSE(NT_STATUS_INVALID_SID);
	/* SID revision 2 */
	memcpy(bad, a, alen);
	bad[32] = 2;
	REFUSE(NT_STATUS_INVALID_SID);
	/* descriptor revision 2, ACL revisions 1 and 5 */
	memcpy(bad, a, alen);
	bad[0] = 2;
	REFUSE(NT_STATUS_INVALID_SECURITY_DESCR);
	memcpy(bad, a, alen);
	bad[76] = 1;
	REFUSE(NT_STATUS_INVALID_ACL);
	memcpy(bad, a, alen);
	bad[76] = 5;
	REFUSE(NT_STATUS_INVALID_ACL);
	/* ACL revision 3, what smbcacls --set sends (issue 36): taken, as
	 * Windows and Samba take it, and kept */
	memcpy(bad, a, alen);
	bad[76] = 3;
	assert_int_equal(sd_parse(ctx, bad, alen, &back), NT_STATUS_OK);
	assert_int_equal(back->dacl->revision, 3);
	/* a short descriptor header */
	assert_int_equal(sd_parse(ctx, a, 19, &back),
			 NT_STATUS_INVALID_SECURITY_DESCR);
#undef REFUSE
	/* NTACL: unknown version, version/level mismatch, NULL pointer,
	 * description without its NUL */
	memcpy(bad, blob, len);
	bad[0] = 5;
	bad[2] = 5;
	assert_int_equal(ntacl_blob_parse(ctx, bad, len, &back, &ver),
			 NT_STATUS_INVALID_SECURITY_DESCR);
	memcpy(bad, blob, len);
	bad[2] = 3;
	assert_int_equal(ntacl_blob_parse(ctx, bad, len, &back, &ver),
			 NT_STATUS_INVALID_SECURITY_DESCR);
	memcpy(bad, blob, len);
	put_le32(bad + 8, 0);
	assert_int_equal(ntacl_blob_parse(ctx, bad, len, &back, &ver),
			 NT_STATUS_INVALID_SECURITY_DESCR);
	memset(bad, 'a', sizeof(bad));
	memcpy(bad, blob, 78);
	assert_int_equal(ntacl_blob_parse(ctx, bad, sizeof(bad), &back, &ver),
			 NT_STATUS_INVALID_SECURITY_DESCR);
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samba_file_vector),
		cmocka_unit_test(test_samba_dir_vector),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_null_vs_empty_dacl),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
