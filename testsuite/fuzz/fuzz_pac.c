/*
 * libFuzzer target: smbd/auth/pac.c, the MS-PAC parser.
 *
 * Input byte 0 picks the entry point: even, the whole PAC (pac_parse);
 * odd, one KERB_VALIDATION_INFO buffer (pac_parse_logon_info).  Whatever
 * parses must hold together: every buffer inside the input, counts that
 * match the arrays, a token whose first two SIDs are the user and the
 * primary group and that has no SID twice.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/log.h"
#include "smbd/auth/pac.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(-1);
	return 0;
}

static void check_token(TALLOC_CTX *mem, const struct pac_logon_info *li)
{
	struct auth_sid *sids, user;
	size_t n, i, j;

	if (!NT_STATUS_IS_OK(pac_token_sids(mem, li, &sids, &n))) {
		return;
	}
	if (n < 2 || n > 2 + li->num_groups + li->num_extra +
				 li->num_resource ||
	    !auth_sid_compose(&li->domain_sid, li->user_rid, &user) ||
	    !auth_sid_equal(&sids[0], &user)) {
		abort();
	}
	for (i = 0; i < n; i++) {
		char buf[AUTH_SID_STRING_MAX];
		struct auth_sid back;

		/* the string form reads back as the same SID */
		if (sids[i].num_auths > AUTH_SID_MAX_SUB_AUTHS ||
		    (auth_sid_parse(auth_sid_string(&sids[i], buf), &back) &&
		     !auth_sid_equal(&back, &sids[i]))) {
			abort();
		}
		for (j = 2; j < i; j++) {
			if (auth_sid_equal(&sids[i], &sids[j])) {
				abort();
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem;
	struct pac_logon_info *li = NULL;
	struct pac_data *d;
	size_t i;

	if (size < 1) {
		return 0;
	}
	mem = talloc_new(NULL);
	if (data[0] & 1) {
		if (NT_STATUS_IS_OK(pac_parse_logon_info(mem, data + 1,
							 size - 1, &li))) {
			check_token(mem, li);
		}
	} else if (NT_STATUS_IS_OK(pac_parse(mem, data + 1, size - 1, &d))) {
		for (i = 0; i < d->num_buffers; i++) {
			if (d->buffers[i].data < data + 1 ||
			    d->buffers[i].data + d->buffers[i].len >
				    data + size) {
				abort();
			}
		}
		check_token(mem, d->logon_info);
	}
	talloc_free(mem);
	return 0;
}
