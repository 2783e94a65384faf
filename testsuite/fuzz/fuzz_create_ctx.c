/*
 * libFuzzer target: the CREATE context chain parser, each context body
 * as a lease, durable and AAPL request (and AAPL's reply to it), and the
 * security descriptor -> mode mapping (all take client bytes).
 */
#include <stdint.h>
#include <stddef.h>
#include <talloc.h>

#include "smbd/wire/create_ctx.h"
#include "smbd/objects/secdesc.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct create_ctx_list l;
	mode_t m;

	if (NT_STATUS_IS_OK(create_ctx_parse(t, data, size, &l))) {
		size_t i;

		for (i = 0; i < l.n; i++) {
			volatile uint8_t sink = 0;
			size_t j;

			for (j = 0; j < l.ctx[i].data_len; j++) {
				sink ^= l.ctx[i].data[j];
			}
			(void)sink;
			/* Any context body as a lease request, both ways. */
			{
				struct create_lease ls;

				if (NT_STATUS_IS_OK(create_ctx_lease_parse(
					    &l.ctx[i], true, &ls)) &&
				    ((ls.state & ~7u) != 0 ||
				     (ls.version != 1 && ls.version != 2))) {
					abort();
				}
				(void)create_ctx_lease_parse(&l.ctx[i], false,
							     &ls);
			}
			/* Any context body as an AAPL query, and its reply
			 * (no more than asked for, at most 40 + model). */
			{
				struct create_aapl q;
				size_t rl = 0;
				uint8_t *r;

				if (NT_STATUS_IS_OK(create_ctx_aapl_parse(
					    &l.ctx[i], &q)) &&
				    q.command == SMB2_AAPL_SERVER_QUERY) {
					r = create_ctx_aapl_reply(
						t, &q, 4, 2, "MacSamba", &rl);
					if (r == NULL || rl > 40 + 16 ||
					    (le64(r + 8) & ~7ULL) != 0) {
						abort();
					}
				}
			}
			/* Any context body as each durable context. */
			{
				static const char *const tags[] = {
					"DHnQ", "DHnC", "DH2Q", "DH2C",
				};
				struct create_ctx dc = l.ctx[i];
				struct create_durable du;
				size_t k;

				for (k = 0; k < 4; k++) {
					memcpy(dc.tag, tags[k], 5);
					if (NT_STATUS_IS_OK(
						    create_ctx_durable_parse(
							    &dc, &du)) &&
					    du.reconnect != (tags[k][3] == 'C')) {
						abort();
					}
				}
			}
		}
	}
	(void)secdesc_to_mode(data, size, SECINFO_DACL | SECINFO_OWNER, 1000,
			      100, 0100644, &m);
	talloc_free(t);
	return 0;
}
