/*
 * Previous-version ("@GMT token") names, pure functions with no I/O so
 * unit tests and a fuzzer drive them directly (issue 15 item 7).
 *
 * A client names a file as it was at a snapshot in one of two ways: a
 * path component "@GMT-YYYY.MM.DD-HH.MM.SS" (MS-SMB 2.2.1.1.1, the token
 * Windows puts anywhere in the path: "@GMT-.../dir/f", "dir/@GMT-.../f")
 * or, in SMB2, the TWrp create context (MS-SMB2 2.2.13.2.7
 * SMB2_CREATE_TIMEWARP_TOKEN, a FILETIME), which is what smbclient and
 * Windows send over SMB2.  Both come down to a time in seconds (UTC);
 * vfs_shadow_copy2 and vfs_snapper (vfs/snapdir.h) find the snapshot
 * taken then.
 */
#ifndef VFS_SNAPSHOT_H
#define VFS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

/* "@GMT-YYYY.MM.DD-HH.MM.SS": 24 characters. */
#define VFS_GMT_TOKEN_LEN 24

/* The time of a UTC date given as year, month (1-12), day, hour, minute,
 * second, if that date is real (no 30 Feb, hour < 24, ...): the check
 * behind both the @GMT token and snapper's info.xml date. */
bool vfs_utc_time(const int v[6], int64_t *t);

/* Whether s[0..len) is exactly a date written as layout says, where
 * the letters Y M D h m s stand for one decimal digit of the year,
 * month, day, hour, minute, second (so "YYYY-MM-DD hh:mm:ss") and every
 * other character (none of those letters) for itself; its time (the date read as UTC) in *t. */
bool vfs_date_parse(const char *s, size_t len, const char *layout,
		    int64_t *t);

/* Whether s[0..len) is exactly a token of a real UTC time (no 30 Feb,
 * hour < 24, ...); its time in *t. */
bool vfs_gmt_token_parse(const char *s, size_t len, int64_t *t);

/* The token of t (UTC) into out; false for a time no token can hold
 * (before year 0 or after 9999). */
bool vfs_gmt_token_format(int64_t t, char out[VFS_GMT_TOKEN_LEN + 1]);

/*
 * Take the @GMT components out of a share-relative path ('/'-separated,
 * as vfs_name_from_wire gives it): *out is path without them (on
 * mem_ctx, "" for the share root), *found whether there was one, *t its
 * time.  Two tokens with different times are OBJECT_NAME_INVALID (one
 * name cannot be in two snapshots).  A component that only starts like
 * a token ("@GMT-2024.01.02-03.04.05x") is an ordinary name.
 */
NTSTATUS vfs_gmt_strip(TALLOC_CTX *mem_ctx, const char *path, char **out,
		       bool *found, int64_t *t);

/* A FILETIME (100 ns since 1601, MS-DTYP 2.3.3) as seconds since 1970,
 * rounded down, as the TWrp token is matched to whole-second snapshots. */
int64_t vfs_filetime_to_unix(uint64_t ft);

#endif
