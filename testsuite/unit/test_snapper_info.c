/*
 * vfs/snapper_info.c: the <date> of snapper's info.xml, read from the
 * documents snapper writes and refused from malformed ones (a snapshot
 * whose info.xml is refused is not listed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vfs/snapper_info.h"

/* 2024-01-02 03:04:05 UTC */
#define T_2024 1704164645LL

static bool date(const char *s, int64_t *t)
{
	return vfs_snapper_info_date(s, strlen(s), t);
}

static void test_snapper_documents(void **state)
{
	/* as snapper writes them: single, pre/post with userdata */
	static const char *const good[] = {
		"<?xml version=\"1.0\"?>\n<snapshot>\n  <type>single</type>\n"
		"  <num>1</num>\n  <date>2024-01-02 03:04:05</date>\n"
		"  <description>first root filesystem</description>\n"
		"</snapshot>\n",
		"<?xml version=\"1.0\"?>\n<snapshot>\n  <type>post</type>\n"
		"  <num>7</num>\n  <date>2024-01-02 03:04:05</date>\n"
		"  <pre_num>6</pre_num>\n  <description>zypp(zypper) "
		"&amp; more</description>\n  <cleanup>number</cleanup>\n"
		"  <userdata>\n    <key>important</key>\n    <value>yes"
		"</value>\n  </userdata>\n</snapshot>\n",
		/* a BOM, a comment, attributes, white space in the date */
		"\xef\xbb\xbf<!-- by hand --><snapshot a=\"x>y\" b='1'>"
		"<date>\n 2024-01-02 03:04:05\t</date><empty/></snapshot >",
		/* a <date> deeper down is not the snapshot's */
		"<snapshot><userdata><date>1999-01-01 00:00:00</date>"
		"</userdata><date>2024-01-02 03:04:05</date></snapshot>",
	};
	int64_t t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		t = 0;
		assert_true(date(good[i], &t));
		assert_int_equal(t, T_2024);
	}
	assert_true(date("<snapshot><date>1970-01-01 00:00:00</date>"
			 "</snapshot>", &t));
	assert_int_equal(t, 0);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"<snapshot></snapshot>",			/* no date */
		"<snapshot><date></date></snapshot>",
		"<snapshot><date/></snapshot>",
		"<snapshot><date>2024-01-02 03:04:05</date>",	/* unclosed */
		"<snapshot><date>2024-01-02 03:04:05</snapshot></date>",
		"<snapshot><date>2024-01-02 03:04:05</dat></snapshot>",
		"<snap><date>2024-01-02 03:04:05</date></snap>",/* root */
		"<snapshot><date>2024-01-02 03:04:05</date></snapshot>"
		"<snapshot/>",					/* two roots */
		"junk<snapshot><date>2024-01-02 03:04:05</date></snapshot>",
		"<snapshot><date>2024-01-02 03:04:05</date></snapshot>x",
		"<snapshot><date>2024-01-02 03:04:05</date>"
		"<date>2024-01-02 03:04:05</date></snapshot>",	/* two dates */
		"<snapshot><date>2024-01-02 03:04:05<b/></date></snapshot>",
		"<snapshot><date>2024-01-02<!--x--> 03:04:05</date>"
		"</snapshot>",
		"<snapshot><date>2024-01-02T03:04:05</date></snapshot>",
		"<snapshot><date>2024-02-30 03:04:05</date></snapshot>",
		"<snapshot><date>2024-01-02 24:00:00</date></snapshot>",
		"<snapshot><date>2024-1-02 03:04:05</date></snapshot>",
		"<snapshot><date>2024-01-02 03:04:05 </date x></snapshot>",
		"<!DOCTYPE snapshot [<!ENTITY d \"2024-01-02 03:04:05\">]>"
		"<snapshot><date>&d;</date></snapshot>",
		"<snapshot><date><![CDATA[2024-01-02 03:04:05]]></date>"
		"</snapshot>",
		"<snapshot a=\"unterminated><date>2024-01-02 03:04:05</date>"
		"</snapshot>",
		"<snapshot><!-- unterminated <date>2024-01-02 03:04:05</date>"
		"</snapshot>",
		"< snapshot><date>2024-01-02 03:04:05</date></snapshot>",
		"<snapshot><date>2024-01-02 03:04:05</date></snapshot",
	};
	int64_t t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (date(bad[i], &t)) {
			fail_msg("accepted: %s", bad[i]);
		}
	}
	/* a NUL inside (the same document without it is read) */
	{
		static const char nul[] = "<snapshot>\0<date>2024-01-02 "
					  "03:04:05</date></snapshot>";

		assert_false(vfs_snapper_info_date(nul, sizeof(nul) - 1, &t));
		assert_true(vfs_snapper_info_date(
			"<snapshot> <date>2024-01-02 03:04:05</date></snapshot>",
			sizeof(nul) - 1, &t));
	}
}

static void test_bounds(void **state)
{
	static const char head[] = "<snapshot><date>2024-01-02 03:04:05"
				   "</date><description>";
	static const char tail[] = "</description></snapshot>";
	size_t fill = VFS_SNAPPER_INFO_MAX - strlen(head) - strlen(tail);
	char *doc = malloc(VFS_SNAPPER_INFO_MAX + 2);
	int64_t t;
	size_t i;

	(void)state;
	assert_non_null(doc);
	/* exactly the limit: read; one byte more: refused */
	memcpy(doc, head, strlen(head));
	memset(doc + strlen(head), 'x', fill);
	memcpy(doc + strlen(head) + fill, tail, strlen(tail));
	assert_true(vfs_snapper_info_date(doc, VFS_SNAPPER_INFO_MAX, &t));
	assert_int_equal(t, T_2024);
	memmove(doc + strlen(head) + 1, doc + strlen(head),
		fill + strlen(tail));
	doc[strlen(head)] = 'x';
	assert_false(vfs_snapper_info_date(doc, VFS_SNAPPER_INFO_MAX + 1, &t));
	/* nesting: VFS_SNAPPER_INFO_DEPTH levels read, one more refused */
	for (i = 0; i <= 1; i++) {
		char buf[1024] = "<snapshot><date>2024-01-02 03:04:05</date>";
		size_t d, levels = VFS_SNAPPER_INFO_DEPTH - 1 + i;

		for (d = 0; d < levels; d++) {
			strcat(buf, "<a>");
		}
		for (d = 0; d < levels; d++) {
			strcat(buf, "</a>");
		}
		strcat(buf, "</snapshot>");
		assert_int_equal(date(buf, &t), i == 0);
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapper_documents),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
