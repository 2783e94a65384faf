/*
 * @GMT tokens and TWrp times (design in snapshot.h).
 */
#include "vfs/snapshot.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* FILETIME of 1970-01-01, in seconds (MS-DTYP 2.3.3). */
#define FILETIME_UNIX_EPOCH_S 11644473600LL

bool vfs_utc_time(const int v[6], int64_t *t)
{
	struct tm tm, back;
	time_t tt;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	tt = timegm(&tm);
	/* timegm normalises 30 Feb into 2 March: a real date reads back
	 * as it was written. */
	if (gmtime_r(&tt, &back) == NULL || back.tm_year != v[0] - 1900 ||
	    back.tm_mon != v[1] - 1 || back.tm_mday != v[2] ||
	    back.tm_hour != v[3] || back.tm_min != v[4] ||
	    back.tm_sec != v[5]) {
		return false;
	}
	*t = (int64_t)tt;
	return true;
}

bool vfs_date_parse(const char *s, size_t len, const char *layout,
		    int64_t *t)
{
	/* the field of each layout letter, in vfs_utc_time's order */
	static const char letters[] = "YMDhms";
	int v[6] = {0, 0, 0, 0, 0, 0};
	size_t i;

	if (len != strlen(layout)) {
		return false;
	}
	for (i = 0; i < len; i++) {
		const char *f = strchr(letters, layout[i]);

		if (f == NULL) {
			if (s[i] != layout[i]) {
				return false;
			}
			continue;
		}
		if (s[i] < '0' || s[i] > '9') {
			return false;
		}
		v[f - letters] = v[f - letters] * 10 + (s[i] - '0');
	}
	return vfs_utc_time(v, t);
}

bool vfs_gmt_token_parse(const char *s, size_t len, int64_t *t)
{
	/* the prefix apart: its 'M' is no month digit */
	if (len != VFS_GMT_TOKEN_LEN || memcmp(s, "@GMT-", 5) != 0) {
		return false;
	}
	return vfs_date_parse(s + 5, len - 5, "YYYY.MM.DD-hh.mm.ss", t);
}

bool vfs_gmt_token_format(int64_t t, char out[VFS_GMT_TOKEN_LEN + 1])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if ((int64_t)tt != t || gmtime_r(&tt, &tm) == NULL ||
	    tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
		return false;
	}
	{
		/* Each field within its range, so the token is exactly
		 * VFS_GMT_TOKEN_LEN characters (gmtime_r's fields are). */
		unsigned y = (unsigned)(tm.tm_year + 1900) % 10000;
		unsigned f[5] = {
			(unsigned)(tm.tm_mon + 1) % 100, (unsigned)tm.tm_mday % 100,
			(unsigned)tm.tm_hour % 100, (unsigned)tm.tm_min % 100,
			(unsigned)tm.tm_sec % 100,
		};

		snprintf(out, VFS_GMT_TOKEN_LEN + 1,
			 "@GMT-%04u.%02u.%02u-%02u.%02u.%02u", y, f[0], f[1],
			 f[2], f[3], f[4]);
	}
	return true;
}

NTSTATUS vfs_gmt_strip(TALLOC_CTX *mem_ctx, const char *path, char **out,
		       bool *found, int64_t *t)
{
	char *res = talloc_strdup(mem_ctx, "");
	const char *p = path;

	*found = false;
	*t = 0;
	*out = NULL;
	while (res != NULL && *p != '\0') {
		const char *slash = strchr(p, '/');
		size_t n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		int64_t tt;

		if (vfs_gmt_token_parse(p, n, &tt)) {
			if (*found && tt != *t) {
				talloc_free(res);
				return NT_STATUS_OBJECT_NAME_INVALID;
			}
			*found = true;
			*t = tt;
		} else if (n > 0) {
			res = talloc_asprintf_append(res, "%s%.*s",
						     res[0] ? "/" : "",
						     (int)n, p);
		}
		p += n;
		if (*p == '/') {
			p++;
		}
	}
	if (res == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*out = res;
	return NT_STATUS_OK;
}

int64_t vfs_filetime_to_unix(uint64_t ft)
{
	return (int64_t)(ft / 10000000ULL) - FILETIME_UNIX_EPOCH_S;
}
