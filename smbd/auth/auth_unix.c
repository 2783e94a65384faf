/*
 * The Unix side of accounts, and small policy helpers (see auth.h).
 *
 * As Samba does, an SMB account maps to the Unix user of the same name;
 * its uid, primary gid and supplementary groups become the session's
 * credentials.  getpwnam_r/getgrouplist go through NSS, so this works
 * with /etc/passwd, LDAP or winbind alike.
 */
#include "smbd/auth/auth.h"
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int auth_ntlm_policy_from_string(const char *s)
{
	static const struct {
		const char *name;
		int value;
	} map[] = {
		{"ntlmv2-only", AUTH_NTLM_NTLMV2_ONLY},
		{"no", AUTH_NTLM_NTLMV2_ONLY},
		{"false", AUTH_NTLM_NTLMV2_ONLY},
		{"ntlmv1-permitted", AUTH_NTLM_NTLMV1_PERMITTED},
		{"yes", AUTH_NTLM_NTLMV1_PERMITTED},
		{"true", AUTH_NTLM_NTLMV1_PERMITTED},
		{"mschapv2-and-ntlmv2-only", AUTH_NTLM_MSCHAPV2_NTLMV2_ONLY},
		{"disabled", AUTH_NTLM_DISABLED},
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcasecmp(s, map[i].name) == 0) {
			return map[i].value;
		}
	}
	return -1;
}

NTSTATUS auth_unix_group_gid(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t bufsize = 16384;
	char *buf;
	int rc;

	if (name == NULL || name[0] == '\0') {
		return NT_STATUS_NO_SUCH_GROUP;
	}
	for (;;) {
		buf = talloc_size(NULL, bufsize);
		if (buf == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		rc = getgrnam_r(name, &gr, buf, bufsize, &res);
		if (rc != ERANGE || bufsize > (1 << 20)) {
			break;
		}
		talloc_free(buf);
		bufsize *= 2;
	}
	if (rc == 0 && res != NULL) {
		*gid = gr.gr_gid;
	}
	talloc_free(buf);
	return rc == 0 && res != NULL ? NT_STATUS_OK : NT_STATUS_NO_SUCH_GROUP;
}

NTSTATUS auth_unix_user_info(TALLOC_CTX *mem_ctx, const char *unix_name,
			     struct auth_user_info **out)
{
	struct auth_user_info *info;
	struct passwd pw, *res = NULL;
	long bufsize = sysconf(_SC_GETPW_R_SIZE_MAX);
	char *buf;
	int ngroups = 32, rc;

	if (unix_name == NULL || unix_name[0] == '\0') {
		return NT_STATUS_NO_SUCH_USER;
	}
	info = talloc_zero(mem_ctx, struct auth_user_info);
	if (info == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (bufsize < 1024) {
		bufsize = 16384;
	}
	for (;;) {
		buf = talloc_size(info, (size_t)bufsize);
		if (buf == NULL) {
			goto nomem;
		}
		rc = getpwnam_r(unix_name, &pw, buf, (size_t)bufsize, &res);
		if (rc != ERANGE || bufsize > (1 << 20)) {
			break;
		}
		talloc_free(buf);
		bufsize *= 2;
	}
	if (rc != 0 || res == NULL) {
		talloc_free(info);
		return NT_STATUS_NO_SUCH_USER;
	}
	info->uid = pw.pw_uid;
	info->gid = pw.pw_gid;
	info->unix_name = talloc_strdup(info, pw.pw_name);
	info->account_name = info->unix_name;
	if (pw.pw_dir != NULL && pw.pw_dir[0] == '/') {
		info->home_dir = talloc_strdup(info, pw.pw_dir);
	}
	if (info->unix_name == NULL) {
		goto nomem;
	}
	for (;;) {
		int n = ngroups;

		info->groups = talloc_array(info, gid_t, (size_t)ngroups);
		if (info->groups == NULL) {
			goto nomem;
		}
		if (getgrouplist(pw.pw_name, pw.pw_gid, info->groups, &n) >=
		    0) {
			info->ngroups = (size_t)n;
			break;
		}
		talloc_free(info->groups);
		if (n <= ngroups || n > 65536) {
			info->groups = NULL;
			break;
		}
		ngroups = n;
	}
	talloc_free(buf);
	*out = info;
	return NT_STATUS_OK;
nomem:
	talloc_free(info);
	return NT_STATUS_NO_MEMORY;
}
