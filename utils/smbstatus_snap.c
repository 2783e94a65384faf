/*
 * smbstatus's snapshot helpers (see smbstatus.h), shared by the text and
 * the JSON output.
 */
#include "config.h"
#include "utils/smbstatus.h"
#include "locking/locking.h"
#include "lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void smbstatus_collect(char kind, uint32_t pid, uint64_t a, uint64_t b,
		       const char *text, void *priv)
{
	struct snapshot *s = priv;
	struct rec *r = talloc_realloc(s->mem, s->r, struct rec, s->n + 1);

	if (r == NULL) {
		return;
	}
	s->r = r;
	r[s->n] = (struct rec){.kind = kind, .pid = pid, .a = a, .b = b,
			       .text = talloc_strdup(s->mem, text)};
	s->n++;
}

const char *smbstatus_field(TALLOC_CTX *mem, const char *text,
			    const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p != NULL && *p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			return talloc_strndup(mem, p + kl + 1, len - kl - 1);
		}
		p = eol ? eol + 1 : NULL;
	}
	return "";
}

const char *smbstatus_dialect_name(const char *hex)
{
	unsigned d = (unsigned)strtoul(hex, NULL, 16);

	switch (d) {
	case 0x0202:
		return "SMB2_02";
	case 0x0210:
		return "SMB2_10";
	case 0x0300:
		return "SMB3_00";
	case 0x0302:
		return "SMB3_02";
	case 0x0311:
		return "SMB3_11";
	default:
		return "SMB2";
	}
}

void smbstatus_crypto_of(TALLOC_CTX *mem, const struct rec *r, bool tree,
			 struct smbstatus_crypto *out)
{
	bool encrypted =
		strcmp(smbstatus_field(mem, r->text, "encryption"), "yes") == 0;
	bool required =
		strcmp(smbstatus_field(mem, r->text, "signing"), "required") == 0;

	out->enc_cipher = smbstatus_field(mem, r->text, "cipher");
	out->enc_degree = encrypted ? "full" : "none";
	out->sign_cipher = smbstatus_field(mem, r->text, "signalgo");
	/* As Samba reports it: an encrypted session's own messages are
	 * sealed rather than signed ("partial"), its trees' are "full". */
	out->sign_degree = encrypted ? (tree ? "full" : "partial")
			   : required ? "full"
				      : "none";
}

const char *smbstatus_crypto_text(TALLOC_CTX *mem, const char *cipher,
				  const char *degree)
{
	if (strcmp(degree, "none") == 0) {
		return "-";
	}
	if (strcmp(degree, "full") == 0) {
		return cipher;
	}
	return talloc_asprintf(mem, "%s(%s)", degree, cipher);
}

const char *smbstatus_ctime(TALLOC_CTX *mem, const char *nttime)
{
	struct timespec ts;
	struct tm tm;
	char buf[64];

	timespec_from_nttime(strtoull(nttime, NULL, 10), &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm);
	return talloc_strdup(mem, buf);
}

const struct rec *smbstatus_find_session(const struct snapshot *s,
					 uint32_t pid, uint64_t id)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->r[i].kind == STATUS_SESSION && s->r[i].pid == pid &&
		    s->r[i].a == id) {
			return &s->r[i];
		}
	}
	return NULL;
}

const struct rec *smbstatus_find_open(const struct snapshot *s, uint32_t pid,
				      uint64_t id)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->r[i].kind == STATUS_OPEN && s->r[i].pid == pid &&
		    s->r[i].a == id) {
			return &s->r[i];
		}
	}
	return NULL;
}

const char *smbstatus_deny_mode(uint32_t share)
{
	switch (share & 7) {
	case 0:
		return "DENY_ALL";
	case 1:
		return "DENY_WRITE";
	case 2:
		return "DENY_READ";
	default:
		return "DENY_NONE";
	}
}
