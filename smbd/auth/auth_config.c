/*
 * struct auth_config copies (auth.h): a logon's work that runs in the
 * worker's pool takes its own copy of the settings, since the session
 * that holds the original may end while the work runs.
 */
#include "smbd/auth/auth.h"

static bool dup_str(TALLOC_CTX *mem_ctx, const char **dst, const char *src)
{
	if (src == NULL) {
		*dst = NULL;
		return true;
	}
	*dst = talloc_strdup(mem_ctx, src);
	return *dst != NULL;
}

struct auth_config *auth_config_copy(TALLOC_CTX *mem_ctx,
				     const struct auth_config *cfg)
{
	struct auth_config *c = talloc(mem_ctx, struct auth_config);

	if (c == NULL) {
		return NULL;
	}
	*c = *cfg;
	if (!dup_str(c, &c->netbios_name, cfg->netbios_name) ||
	    !dup_str(c, &c->workgroup, cfg->workgroup) ||
	    !dup_str(c, &c->dns_domain, cfg->dns_domain) ||
	    !dup_str(c, &c->dns_hostname, cfg->dns_hostname) ||
	    !dup_str(c, &c->guest_account, cfg->guest_account) ||
	    !dup_str(c, &c->realm, cfg->realm) ||
	    !dup_str(c, &c->dedicated_keytab, cfg->dedicated_keytab) ||
	    !dup_str(c, &c->private_dir, cfg->private_dir)) {
		talloc_free(c);
		return NULL;
	}
	return c;
}
