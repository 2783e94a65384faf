/*
 * Unit tests for smbd/objects/ntacl.c: the MS-DTYP 2.5.3.2 access check with
 * MAXIMUM_ALLOWED, inheritance (2.5.3.4) and the SET_INFO merge.  The
 * expected masks are the ones smbtorture's smb2.acls tests get from
 * Windows and Samba.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/objects/ntacl.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"

static void sid_wk(struct sd_sid *s, uint8_t auth, uint32_t sub)
{
	memset(s, 0, sizeof(*s));
	s->revision = 1;
	s->num_auths = 1;
	s->id_auth[5] = auth;
	s->sub_auths[0] = sub;
}

/* A descriptor owned by uid 1000 with the given ACEs. */
static struct sd *mk_sd(TALLOC_CTX *ctx, size_t n, const struct sd_ace *aces)
{
	struct sd *sd = talloc_zero(ctx, struct sd);

	sd->revision = 1;
	sd->control = SD_SE_SELF_RELATIVE | SD_SE_DACL_PRESENT;
	sd->owner = talloc_zero(sd, struct sd_sid);
	ntacl_sid_unix_user(sd->owner, 1000);
	sd->dacl = talloc_zero(sd, struct sd_acl);
	sd->dacl->revision = 2;
	sd->dacl->num_aces = (uint16_t)n;
	sd->dacl->aces = talloc_memdup(sd->dacl, aces,
				       sizeof(*aces) * (n ? n : 1));
	return sd;
}

static struct ntacl_token *tok_user(TALLOC_CTX *ctx, uid_t uid)
{
	struct ntacl_token *t;
	gid_t g = 100;

	assert_true(NT_STATUS_IS_OK(
		ntacl_token_unix(ctx, uid, 100, &g, 1, false, &t)));
	return t;
}

static struct sd_ace ace(uint8_t type, uint8_t flags, uint32_t mask,
			 const struct sd_sid *sid)
{
	struct sd_ace a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.flags = flags;
	a.mask = mask;
	a.sid = *sid;
	return a;
}

static void test_null_and_empty_dacl(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd *sd = mk_sd(ctx, 0, NULL);
	struct ntacl_token *t = tok_user(ctx, 1000);
	struct ntacl_token *other = tok_user(ctx, 1001);

	(void)state;
	/* Empty DACL: the owner keeps READ_CONTROL | WRITE_DAC. */
	assert_int_equal(ntacl_max_access(sd, t),
			 SEC_STD_READ_CONTROL | SEC_STD_WRITE_DAC |
				 SEC_FILE_READ_ATTRIBUTE);
	assert_int_equal(ntacl_max_access(sd, other), SEC_FILE_READ_ATTRIBUTE);
	sd->dacl = NULL;
	assert_int_equal(ntacl_max_access(sd, other), SEC_FILE_ALL);
	talloc_free(ctx);
}

/* smb2.acls.GENERIC: an ACE with GENERIC_READ for the owner. */
static void test_generic(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_sid owner;
	struct sd_ace a;
	struct sd *sd;

	(void)state;
	ntacl_sid_unix_user(&owner, 1000);
	a = ace(NTACL_ACE_ALLOWED, 0, SEC_GENERIC_READ, &owner);
	sd = mk_sd(ctx, 1, &a);
	assert_int_equal(ntacl_max_access(sd, tok_user(ctx, 1000)),
			 SEC_RIGHTS_FILE_READ | SEC_STD_WRITE_DAC);
	assert_int_equal(ntacl_map_generic(SEC_GENERIC_ALL), SEC_FILE_ALL);
	talloc_free(ctx);
}

/* smb2.acls.OWNER-RIGHTS(-DENY): OWNER RIGHTS replaces the implicit
 * owner rights; deny ACEs win over later allows. */
static void test_owner_rights(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_sid owner, orights;
	struct sd_ace a[2];
	struct sd *sd;

	(void)state;
	ntacl_sid_unix_user(&owner, 1000);
	sid_wk(&orights, 3, 4);
	a[0] = ace(NTACL_ACE_ALLOWED, 0, SEC_FILE_READ_DATA, &orights);
	sd = mk_sd(ctx, 1, a);
	assert_int_equal(ntacl_max_access(sd, tok_user(ctx, 1000)),
			 SEC_FILE_READ_DATA | SEC_FILE_READ_ATTRIBUTE);
	a[0] = ace(NTACL_ACE_DENIED, 0, SEC_FILE_READ_DATA, &orights);
	a[1] = ace(NTACL_ACE_ALLOWED, 0, SEC_RIGHTS_FILE_READ, &owner);
	sd = mk_sd(ctx, 2, a);
	assert_int_equal(ntacl_max_access(sd, tok_user(ctx, 1000)),
			 SEC_RIGHTS_FILE_READ & ~SEC_FILE_READ_DATA);
	/* Inherit-only ACEs do not count. */
	a[0].flags = NTACL_INHERIT_ONLY | NTACL_OBJECT_INHERIT;
	sd = mk_sd(ctx, 2, a);
	assert_int_equal(ntacl_max_access(sd, tok_user(ctx, 1000)),
			 SEC_RIGHTS_FILE_READ | SEC_STD_WRITE_DAC);
	talloc_free(ctx);
}

/* smb2.acls.INHERITANCE's table: CREATOR OWNER with each flag set. */
static void test_inherit(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_sid owner, group, co, world;
	struct sd_ace a[2];
	struct sd *parent, *child;

	(void)state;
	ntacl_sid_unix_user(&owner, 1000);
	ntacl_sid_unix_group(&group, 100);
	sid_wk(&co, 3, 0);
	sid_wk(&world, 1, 0);
	a[1] = ace(NTACL_ACE_ALLOWED, 0, SEC_FILE_ALL, &world);

	/* CI: the directory gets the owner's ACE and an inherit-only
	 * CREATOR OWNER one; a file gets the default DACL. */
	a[0] = ace(NTACL_ACE_ALLOWED, NTACL_CONTAINER_INHERIT,
		   SEC_FILE_WRITE_DATA, &co);
	parent = mk_sd(ctx, 2, a);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, true, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 2);
	assert_true(ntacl_sid_equal(&child->dacl->aces[0].sid, &owner));
	assert_int_equal(child->dacl->aces[0].flags, 0);
	assert_true(ntacl_sid_equal(&child->dacl->aces[1].sid, &co));
	assert_int_equal(child->dacl->aces[1].flags,
			 NTACL_CONTAINER_INHERIT | NTACL_INHERIT_ONLY);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, false, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 2);
	assert_int_equal(child->dacl->aces[0].mask, SEC_FILE_ALL);

	/* OI: a file gets the owner's ACE, a directory an inherit-only
	 * OI ACE; with NO_PROPAGATE the directory gets nothing. */
	a[0].flags = NTACL_OBJECT_INHERIT;
	parent = mk_sd(ctx, 2, a);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, false, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 1);
	assert_true(ntacl_sid_equal(&child->dacl->aces[0].sid, &owner));
	assert_int_equal(child->dacl->aces[0].flags, 0);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, true, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 1);
	assert_int_equal(child->dacl->aces[0].flags,
			 NTACL_OBJECT_INHERIT | NTACL_INHERIT_ONLY);
	a[0].flags = NTACL_OBJECT_INHERIT | NTACL_NO_PROPAGATE;
	parent = mk_sd(ctx, 2, a);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, true, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 2); /* default */

	/* CI|NP: in force on the directory, passed no further. */
	a[0].flags = NTACL_CONTAINER_INHERIT | NTACL_NO_PROPAGATE |
		     NTACL_INHERIT_ONLY;
	parent = mk_sd(ctx, 2, a);
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, true, &owner, &group, &child)));
	assert_int_equal(child->dacl->num_aces, 1);
	assert_int_equal(child->dacl->aces[0].flags, 0);

	/* AUTO_INHERITED parents mark what they pass on. */
	a[0].flags = NTACL_OBJECT_INHERIT;
	parent = mk_sd(ctx, 2, a);
	parent->control |= NTACL_SE_DACL_AUTO_INHERITED;
	assert_true(NT_STATUS_IS_OK(
		ntacl_inherit(ctx, parent, false, &owner, &group, &child)));
	assert_int_equal(child->dacl->aces[0].flags, NTACL_INHERITED);
	assert_true(child->control & NTACL_SE_DACL_AUTO_INHERITED);
	talloc_free(ctx);
}

static void test_merge(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd_sid owner;
	struct sd_ace a;
	struct sd *old, *new, *out;

	(void)state;
	ntacl_sid_unix_user(&owner, 1000);
	a = ace(NTACL_ACE_ALLOWED, 0, SEC_GENERIC_ALL, &owner);
	old = mk_sd(ctx, 0, NULL);
	new = mk_sd(ctx, 1, &a);
	new->owner = NULL;
	new->control |= NTACL_SE_DACL_AUTO_INHERITED;
	assert_true(NT_STATUS_IS_OK(
		ntacl_merge(ctx, old, new, SECINFO_DACL, &out)));
	assert_non_null(out->owner);
	assert_int_equal(out->dacl->aces[0].mask, SEC_FILE_ALL);
	assert_false(out->control & NTACL_SE_DACL_AUTO_INHERITED);
	assert_int_equal(ntacl_merge(ctx, old, new, SECINFO_OWNER, &out),
			 NT_STATUS_INVALID_OWNER);
	/* DACL_PRESENT without an ACL: the NULL DACL. */
	new->dacl = NULL;
	assert_true(NT_STATUS_IS_OK(
		ntacl_merge(ctx, old, new, SECINFO_DACL, &out)));
	assert_null(out->dacl);
	assert_true(out->control & SD_SE_DACL_PRESENT);
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_and_empty_dacl),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_owner_rights),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
