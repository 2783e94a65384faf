/*
 * libFuzzer target: vfs/fault.c, the SMBD_FAULT_INJECT parser.
 *
 * The input is the variable's value.  What parses must be armable and
 * consistent: at most VFS_FAULT_MAX_RULES rules, each with a non-empty
 * NUL-terminated match and a count of -1 or more than 0, and either an
 * errno or a SLEEP of 1 to VFS_FAULT_SLEEP_MAX_MS ms, never both; a call
 * whose path contains a rule's match fails with an errno, or is to wait,
 * while the rule has failures left (vfs_fault_decide: nothing waits
 * here).  What does not parse leaves a message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vfs/fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vfs_fault_table t;
	char spec[512], err[160];
	unsigned i;

	if (size >= sizeof(spec)) {
		return 0;
	}
	memcpy(spec, data, size);
	spec[size] = '\0';
	err[0] = '\0';
	if (!vfs_fault_parse(spec, &t, err, sizeof(err))) {
		if (err[0] == '\0') {
			abort();
		}
		return 0;
	}
	if (t.nrules == 0 || t.nrules > VFS_FAULT_MAX_RULES) {
		abort();
	}
	for (i = 0; i < t.nrules; i++) {
		const struct vfs_fault_rule *r = &t.rules[i];

		if (r->match[0] == '\0' ||
		    memchr(r->match, '\0', sizeof(r->match)) == NULL ||
		    (r->left != -1 && r->left <= 0) ||
		    (r->err == 0) == (r->sleep_ms == 0) ||
		    r->sleep_ms > VFS_FAULT_SLEEP_MAX_MS ||
		    (unsigned)r->op >= VFS_FAULT_NOPS) {
			abort();
		}
	}
	for (i = 0; i < t.nrules; i++) {
		unsigned ms;
		int e;

		/* Armed afresh (full counts), a call on rule i's own match
		 * ends in an earlier rule's error or reaches rule i, which
		 * fails it or makes it wait. */
		vfs_fault_arm(&t);
		e = vfs_fault_decide(t.rules[i].op, t.rules[i].match, &ms);
		if (!vfs_fault_armed(t.rules[i].op) || (e == 0 && ms == 0) ||
		    ms > VFS_FAULT_MAX_RULES * VFS_FAULT_SLEEP_MAX_MS) {
			abort();
		}
	}
	vfs_fault_arm(NULL);
	{
		unsigned ms = 1;

		if (vfs_fault_decide(t.rules[0].op, t.rules[0].match, &ms) !=
			    0 ||
		    ms != 0) {
			abort();
		}
	}
	return 0;
}
