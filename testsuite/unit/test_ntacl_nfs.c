/*
 * Unit tests for smbd/objects/ntacl_nfs.c: vfs_fruit's NFS ACEs, built for
 * QUERY_INFO and taken out of SET_INFO's DACL the way Samba 4.17's fruit
 * does (S-1-5-88-3-<st_mode>, S-1-5-88-1-<uid>, S-1-5-88-2-<gid>).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/objects/secdesc.h"

static struct sd_sid sid_of(uint8_t auth, uint8_t n, const uint32_t *subs)
{
	struct sd_sid s;

	memset(&s, 0, sizeof(s));
	s.revision = 1;
	s.num_auths = n;
	s.id_auth[5] = auth;
	memcpy(s.sub_auths, subs, sizeof(*subs) * n);
	return s;
}

static struct sd_ace ace(uint8_t type, uint32_t mask, struct sd_sid sid)
{
	struct sd_ace a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.mask = mask;
	a.sid = sid;
	return a;
}

static struct sd_sid nfs(uint32_t kind, uint32_t value)
{
	struct sd_sid s;

	ntacl_nfs_sid(&s, kind, value);
	return s;
}

static struct sd_sid everyone(void)
{
	struct sd_sid s;

	ntacl_sid_wellknown(&s, 1, 0);
	return s;
}

/* A descriptor with these DACL ACEs (n 0: an empty DACL). */
static struct sd *mk_sd(TALLOC_CTX *ctx, size_t n, const struct sd_ace *aces)
{
	struct sd *sd = talloc_zero(ctx, struct sd);

	sd->revision = 1;
	sd->control = SD_SE_SELF_RELATIVE | SD_SE_DACL_PRESENT;
	sd->dacl = talloc_zero(sd, struct sd_acl);
	sd->dacl->revision = 2;
	sd->dacl->num_aces = (uint16_t)n;
	sd->dacl->aces = talloc_memdup(sd->dacl, aces,
				       sizeof(*aces) * (n ? n : 1));
	return sd;
}

static void assert_nfs_ace(const struct sd_ace *a, uint32_t kind,
			   uint32_t value)
{
	struct sd_sid want = nfs(kind, value);

	assert_int_equal(a->type, NTACL_ACE_DENIED);
	assert_int_equal(a->flags, 0);
	assert_int_equal(a->mask, 0);
	assert_null(a->opaque);
	assert_true(ntacl_sid_equal(&a->sid, &want));
}

static void test_sid(void **state)
{
	static const uint8_t wire[] = {
		1, 3, 0, 0, 0, 0, 0, 5,	/* S-1-5 */
		88, 0, 0, 0, 3, 0, 0, 0,
		0xa4, 0x81, 0, 0,	/* 0100644 */
	};
	static const uint32_t nfs_root[] = {88}, mode_only[] = {88, 3},
			      other[] = {8}, unix_user[] = {1, 88},
			      domain[] = {21, 88};
	struct sd_sid s = nfs(NTACL_NFS_MODE, 0100644), t;
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_ace a = ace(NTACL_ACE_DENIED, 0, s);
	struct sd *sd = mk_sd(ctx, 1, &a), *back;
	uint8_t *blob;
	size_t len;

	(void)state;
	/* the SID as it goes on the wire, inside its ACE */
	assert_true(NT_STATUS_IS_OK(sd_marshal(ctx, sd, &blob, &len)));
	assert_int_equal(len, 20 + 8 + 8 + sizeof(wire));
	assert_memory_equal(blob + len - sizeof(wire), wire, sizeof(wire));
	assert_true(NT_STATUS_IS_OK(sd_parse(ctx, blob, len, &back)));
	assert_true(ntacl_sid_equal(&back->dacl->aces[0].sid, &s));

	assert_true(ntacl_nfs_sid_is(&s));
	t = sid_of(5, 1, nfs_root);
	assert_true(ntacl_nfs_sid_is(&t));
	t = sid_of(5, 2, mode_only);
	assert_true(ntacl_nfs_sid_is(&t));
	t = sid_of(5, 1, other);
	assert_false(ntacl_nfs_sid_is(&t));
	t = sid_of(22, 2, unix_user);
	assert_false(ntacl_nfs_sid_is(&t));
	t = sid_of(5, 2, domain);
	assert_false(ntacl_nfs_sid_is(&t));
	t = sid_of(5, 0, nfs_root); /* S-1-5 itself */
	assert_false(ntacl_nfs_sid_is(&t));
	t = sid_of(22, 1, nfs_root); /* S-1-22-88: not the NT authority */
	assert_false(ntacl_nfs_sid_is(&t));
	talloc_free(ctx);
}

static void test_add(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_ace aces[3] = {
		ace(NTACL_ACE_ALLOWED, 0x1f01ff, everyone()),
		ace(NTACL_ACE_DENIED, 0, nfs(NTACL_NFS_USER, 27)),
		ace(NTACL_ACE_ALLOWED, 0x120089, everyone()),
	};
	struct sd *sd = mk_sd(ctx, 3, aces), *back;
	uint8_t *blob;
	size_t len;

	(void)state;
	/* an NFS ACE already there goes; ours end the DACL */
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_add(ctx, sd, 1001, 1002,
						  0100640)));
	assert_int_equal(sd->dacl->num_aces, 5);
	assert_int_equal(sd->dacl->aces[0].mask, 0x1f01ff);
	assert_int_equal(sd->dacl->aces[1].mask, 0x120089);
	assert_nfs_ace(&sd->dacl->aces[2], NTACL_NFS_MODE, 0100640);
	assert_nfs_ace(&sd->dacl->aces[3], NTACL_NFS_USER, 1001);
	assert_nfs_ace(&sd->dacl->aces[4], NTACL_NFS_GROUP, 1002);
	/* and it marshals to what parses back the same */
	assert_true(NT_STATUS_IS_OK(sd_marshal(ctx, sd, &blob, &len)));
	assert_true(NT_STATUS_IS_OK(sd_parse(ctx, blob, len, &back)));
	assert_int_equal(back->dacl->num_aces, 5);
	assert_nfs_ace(&back->dacl->aces[4], NTACL_NFS_GROUP, 1002);

	/* added twice: still three */
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_add(ctx, sd, 1, 2, 3)));
	assert_int_equal(sd->dacl->num_aces, 5);
	assert_nfs_ace(&sd->dacl->aces[2], NTACL_NFS_MODE, 3);

	/* a NULL DACL becomes one with just them, as in Samba */
	sd->dacl = NULL;
	sd->control = SD_SE_SELF_RELATIVE;
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_add(ctx, sd, 1, 2, 040755)));
	assert_true(sd->control & SD_SE_DACL_PRESENT);
	assert_int_equal(sd->dacl->revision, 2);
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_nfs_ace(&sd->dacl->aces[0], NTACL_NFS_MODE, 040755);
	talloc_free(ctx);
}

/* An ACL with no room left for three more ACEs: INVALID_ACL. */
static void test_add_too_big(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_ace big;
	struct sd *sd;

	(void)state;
	memset(&big, 0, sizeof(big));
	big.type = 0x05; /* an object ACE: kept opaque */
	big.opaque_len = 65500;
	big.opaque = talloc_zero_size(ctx, big.opaque_len);
	sd = mk_sd(ctx, 1, &big);
	assert_int_equal(ntacl_nfs_add(ctx, sd, 1, 2, 3),
			 NT_STATUS_INVALID_ACL);
	big.opaque_len = 65400;
	sd = mk_sd(ctx, 1, &big);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_add(ctx, sd, 1, 2, 3)));
	talloc_free(ctx);
}

static void test_strip(void **state)
{
	static const uint32_t mode_only[] = {88, 3};
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_ace aces[6] = {
		ace(NTACL_ACE_DENIED, 0, sid_of(5, 2, mode_only)),
		ace(NTACL_ACE_ALLOWED, 0x1f01ff, everyone()),
		/* any ACE type counts, as in Samba; the first one wins */
		ace(NTACL_ACE_ALLOWED, 0, nfs(NTACL_NFS_MODE, 0600)),
		ace(NTACL_ACE_DENIED, 0, nfs(NTACL_NFS_MODE, 0644)),
		ace(NTACL_ACE_DENIED, 0, nfs(NTACL_NFS_GROUP, 300)),
		ace(0x05, 0, everyone()),
	};
	struct sd *sd;
	uint32_t mode = 7;

	(void)state;
	aces[5].opaque = talloc_zero_size(ctx, 40);
	aces[5].opaque_len = 40;
	sd = mk_sd(ctx, 6, aces);
	assert_true(ntacl_nfs_acl_has(sd->dacl));
	assert_true(ntacl_nfs_strip(sd->dacl, &mode));
	assert_int_equal(mode, 0600);
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_int_equal(sd->dacl->aces[0].mask, 0x1f01ff);
	assert_non_null(sd->dacl->aces[1].opaque);
	assert_false(ntacl_nfs_acl_has(sd->dacl));
	/* nothing left to take */
	mode = 7;
	assert_false(ntacl_nfs_strip(sd->dacl, &mode));
	assert_int_equal(mode, 7);
	assert_false(ntacl_nfs_strip(NULL, &mode));
	assert_false(ntacl_nfs_acl_has(NULL));
	talloc_free(ctx);
}

static void marshal(TALLOC_CTX *ctx, const struct sd *sd, uint8_t **blob,
		    size_t *len)
{
	assert_true(NT_STATUS_IS_OK(sd_marshal(ctx, sd, blob, len)));
}

static void test_set_prepare(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_ace aces[3] = {
		ace(NTACL_ACE_ALLOWED, 0x1f01ff, everyone()),
		ace(NTACL_ACE_DENIED, 0, nfs(NTACL_NFS_MODE, 0104644)),
		ace(NTACL_ACE_DENIED, 0, nfs(NTACL_NFS_USER, 27)),
	};
	struct sd *sd, *back;
	uint8_t *in, *out;
	size_t in_len, out_len;
	uint32_t secinfo = SECINFO_DACL;
	bool chmod;
	mode_t mode;

	(void)state;
	/* a Mac's whole DACL: ours go, the mode is its 0777 bits */
	marshal(ctx, mk_sd(ctx, 3, aces), &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_true(chmod);
	assert_int_equal(mode, 0644);
	assert_int_equal(secinfo, SECINFO_DACL);
	assert_true(NT_STATUS_IS_OK(sd_parse(ctx, out, out_len, &back)));
	assert_int_equal(back->dacl->num_aces, 1);
	assert_int_equal(back->dacl->aces[0].mask, 0x1f01ff);

	/* a bare chmod: no DACL is left to set */
	marshal(ctx, mk_sd(ctx, 1, &aces[1]), &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_true(chmod);
	assert_int_equal(mode, 0644);
	assert_int_equal(secinfo, 0);
	assert_true(NT_STATUS_IS_OK(sd_parse(ctx, out, out_len, &back)));
	assert_null(back->dacl);
	assert_false(back->control & SD_SE_DACL_PRESENT);

	/* only a uid ACE: no chmod, no DACL */
	secinfo = SECINFO_DACL | SECINFO_OWNER;
	marshal(ctx, mk_sd(ctx, 1, &aces[2]), &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_false(chmod);
	assert_int_equal(secinfo, SECINFO_OWNER);

	/* DACL not sent, or none of ours in it: the bytes as they came */
	secinfo = SECINFO_OWNER;
	marshal(ctx, mk_sd(ctx, 3, aces), &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_false(chmod);
	assert_int_equal(secinfo, SECINFO_OWNER);
	assert_int_equal(out_len, in_len);
	assert_memory_equal(out, in, in_len);
	secinfo = SECINFO_DACL;
	marshal(ctx, mk_sd(ctx, 1, aces), &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_false(chmod);
	assert_int_equal(out_len, in_len);
	assert_memory_equal(out, in, in_len);
	/* a NULL DACL too */
	sd = mk_sd(ctx, 0, aces);
	sd->dacl = NULL;
	marshal(ctx, sd, &in, &in_len);
	assert_true(NT_STATUS_IS_OK(ntacl_nfs_set_prepare(
		ctx, in, in_len, &secinfo, &out, &out_len, &chmod, &mode)));
	assert_false(chmod);
	assert_int_equal(secinfo, SECINFO_DACL);

	/* what does not parse: SET_INFO's INVALID_PARAMETER */
	marshal(ctx, mk_sd(ctx, 3, aces), &in, &in_len);
	assert_int_equal(ntacl_nfs_set_prepare(ctx, in, in_len - 1, &secinfo,
					       &out, &out_len, &chmod, &mode),
			 NT_STATUS_INVALID_PARAMETER);
	assert_false(chmod);
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sid),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_add_too_big),
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_set_prepare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
