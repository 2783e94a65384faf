/*
 * libFuzzer target: vfs/fault.c, the SMBD_FAULT_INJECT parser.
 *
 * The input is the variable's value.  What parses must be armable and
 * consistent: at most VFS_FAULT_MAX_RULES rules, each with a non-empty
 * NUL-terminated match and a count of -1 or more than 0; a call whose
 * path contains a rule's match fails with an errno while the rule has
 * failures left.  What does not parse leaves a message.
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
		    (r->left != -1 && r->left <= 0) || r->err == 0 ||
		    (unsigned)r->op >= VFS_FAULT_NOPS) {
			abort();
		}
	}
	vfs_fault_arm(&t);
	for (i = 0; i < t.nrules; i++) {
		if (!vfs_fault_armed(t.rules[i].op) ||
		    vfs_fault_hit(t.rules[i].op, t.rules[i].match, -1) == 0) {
			abort();
		}
	}
	vfs_fault_arm(NULL);
	if (vfs_fault_hit(t.rules[0].op, t.rules[0].match, -1) != 0) {
		abort();
	}
	return 0;
}
