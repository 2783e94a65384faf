/*
 * `%` macros in smb.conf values (smb.conf(5) "VARIABLE SUBSTITUTIONS").
 *
 * Values come from struct lp_subst (NULL fields expand to ""), from the
 * caller (%L, %N: the netbios name, %D: the workgroup) or from the system
 * (%h, %v, %T, %d, %$(VAR)).  An unknown "%X" is kept as written, as Samba
 * does.
 *
 * The lowest file of conf/: it calls no other file of it.  loadparm.c
 * (lp_substitute, lp_str_subst) and parse.c (`include`) call down into
 * conf_substitute() with the configuration values it needs, so this file
 * never looks at a loaded configuration.
 *
 * The client chooses its NetBIOS name and its user name, and the result
 * often becomes a path (`path = /srv/%U`, `include = smb.conf.%m`), so
 * client-supplied fields are made path-safe: '/' and '\' become '_' and a
 * leading '.' becomes '_', so none can climb out with "..".
 */
#include "conf/subst.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CONF_ENVVAR_MAX 255

static char *append(char *buf, const char *s, size_t len)
{
	if (buf == NULL) {
		return NULL;
	}
	return talloc_strndup_append_buffer(buf, s, len);
}

static char *append_str(char *buf, const char *s)
{
	return append(buf, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static char *append_safe(char *buf, const char *s)
{
	size_t i, start;

	if (buf == NULL || s == NULL) {
		return buf;
	}
	start = strlen(buf);
	buf = append_str(buf, s);
	if (buf == NULL) {
		return NULL;
	}
	for (i = start; buf[i] != '\0'; i++) {
		if (buf[i] == '/' || buf[i] == '\\' ||
		    (i == start && buf[i] == '.')) {
			buf[i] = '_';
		}
	}
	return buf;
}

/* %$(NAME): the environment variable NAME; *len gets the macro's length. */
static char *append_env(char *buf, const char *p, size_t *len)
{
	char name[CONF_ENVVAR_MAX + 1];
	size_t n = 0;

	/* p points at '$' */
	if (p[1] != '(') {
		return NULL;
	}
	while (p[2 + n] != ')' && p[2 + n] != '\0') {
		char c = p[2 + n];

		if (n >= CONF_ENVVAR_MAX ||
		    !(isalnum((unsigned char)c) || c == '_')) {
			return NULL;
		}
		name[n++] = c;
	}
	if (p[2 + n] != ')' || n == 0) {
		return NULL;
	}
	name[n] = '\0';
	*len = n + 4; /* "%$(" NAME ")" */
	return append_str(buf, getenv(name));
}

static char *append_time(char *buf)
{
	char t[64];
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm) == NULL ||
	    strftime(t, sizeof(t), "%Y/%m/%d %H:%M:%S", &tm) == 0) {
		t[0] = '\0';
	}
	return append_str(buf, t);
}

static char *append_host(char *buf)
{
	char h[256];

	if (gethostname(h, sizeof(h)) != 0) {
		h[0] = '\0';
	}
	h[sizeof(h) - 1] = '\0';
	return append_str(buf, h);
}

char *conf_substitute(TALLOC_CTX *mem_ctx, const char *server_name,
		      const char *workgroup, const char *str,
		      const struct lp_subst *s)
{
	static const struct lp_subst none;
	char *buf = talloc_strdup(mem_ctx, "");
	const char *p = str != NULL ? str : "";

	if (s == NULL) {
		s = &none;
	}
	if (s->server_name != NULL) {
		server_name = s->server_name;
	}
	while (buf != NULL && *p != '\0') {
		const char *pct = strchr(p, '%');
		size_t mlen = 2;

		if (pct == NULL) {
			buf = append_str(buf, p);
			break;
		}
		buf = append(buf, p, (size_t)(pct - p));
		if (buf == NULL) {
			break;
		}
		switch (pct[1]) {
		case 'U': buf = append_safe(buf, s->user); break;
		case 'G': buf = append_safe(buf, s->group); break;
		case 'H': buf = append_str(buf, s->home); break;
		case 'S': buf = append_str(buf, s->share); break;
		case 'P': buf = append_str(buf, s->share_path); break;
		case 'm': buf = append_safe(buf, s->client_name); break;
		case 'I': buf = append_safe(buf, s->client_ip); break;
		case 'L':
		case 'N': buf = append_str(buf, server_name); break;
		case 'h': buf = append_host(buf); break;
		case 'v': buf = append_str(buf, PACKAGE_VERSION); break;
		case 'T': buf = append_time(buf); break;
		case 'D': buf = append_str(buf, workgroup); break;
		case 'u': buf = append_safe(buf, s->unix_user); break;
		case 'g': buf = append_safe(buf, s->unix_group); break;
		case 'd': {
			char pid[32];

			snprintf(pid, sizeof(pid), "%d", (int)getpid());
			buf = append_str(buf, pid);
			break;
		}
		case '%': buf = append(buf, "%", 1); break;
		case '$': {
			char *nb = append_env(buf, pct + 1, &mlen);

			if (nb == NULL) {
				/* not a well-formed %$(VAR): keep "%$" */
				buf = append(buf, pct, 2);
				mlen = 2;
			} else {
				buf = nb;
			}
			break;
		}
		case '\0':
			buf = append(buf, "%", 1);
			mlen = 1;
			break;
		default:
			buf = append(buf, pct, 2);
			break;
		}
		p = pct + mlen;
	}
	return buf;
}
