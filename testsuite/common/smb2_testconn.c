/*
 * See smb2_testconn.h.
 */
#include "testsuite/common/smb2_testconn.h"
#include "smbd/conn.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <string.h>
#include <talloc.h>

static struct testconn *current;

static void testconn_sink(struct smbd_conn *conn, uint8_t *buf, size_t len)
{
	struct testconn *t = current;

	talloc_free(t->last);
	t->last = talloc_steal(t, buf);
	t->last_len = len;
	t->nframes++;
}

struct testconn *testconn_new(void *mem_ctx, const char *const *options)
{
	struct testconn *t = talloc_zero(mem_ctx, struct testconn);
	size_t i;

	clock_update();
	crypto_init();
	t->srv = talloc_zero(t, struct smbd_server);
	t->srv->lp = lp_new(t->srv);
	for (i = 0; options != NULL && options[i] != NULL; i += 2) {
		lp_set_cmdline(t->srv->lp, options[i], options[i + 1]);
	}
	memset(t->srv->server_guid, 0xAB, sizeof(t->srv->server_guid));
	t->srv->nworkers = 1;
	t->w = talloc_zero(t, struct smbd_worker);
	t->w->srv = t->srv;
	current = t;
	t->conn = smbd_conn_new_detached(t->w, testconn_sink);
	return t;
}

void testconn_input(struct testconn *t, const void *data, size_t len)
{
	current = t;
	if (!testconn_dropped(t)) {
		smbd_conn_input(t->conn, data, len);
	}
}

void testconn_frame(struct testconn *t, const void *payload, size_t len)
{
	uint8_t *buf = talloc_size(t, len + 4);

	put_be32(buf, (uint32_t)len);
	memcpy(buf + 4, payload, len);
	testconn_input(t, buf, len + 4);
	talloc_free(buf);
}

int testconn_dropped(const struct testconn *t)
{
	return t->w->nconns == 0;
}
