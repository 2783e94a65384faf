/*
 * Name rules for vfs/: SMB2 path syntax, wildcard matching, Unicode
 * case-insensitive comparison and 8.3 (mangled) names.  Pure functions:
 * nothing here touches the file system.
 *
 * The path rules follow MS-FSCC 2.1.5 and MS-SMB2 3.3.5.9 where Samba 4.17
 * agrees, and Samba 4.17's answers where it decides ("." and ".."
 * components, empty components, stream types): each case was checked
 * against a Samba 4.17 smbd with raw SMB2 CREATE requests; see
 * testsuite/unit/test_vfs_name.c for the list and the answers.
 */
#ifndef VFS_NAME_H
#define VFS_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

/* Codes Samba answers for bad names that lib/ntstatus.h lacks so far. */
#ifndef NT_STATUS_OBJECT_PATH_SYNTAX_BAD
#define NT_STATUS_OBJECT_PATH_SYNTAX_BAD ((NTSTATUS)0xC000003B)
#endif
#ifndef NT_STATUS_ILLEGAL_CHARACTER
#define NT_STATUS_ILLEGAL_CHARACTER ((NTSTATUS)0xC0000161)
#endif

/* MS-FSCC 2.1.5: a component, and a whole path, in UTF-16 units. */
#define VFS_NAME_MAX_COMPONENT 255
#define VFS_NAME_MAX_PATH 32767

/*
 * An SMB2 path (UTF-16LE, '\' separated, as in CREATE's Buffer, MS-SMB2
 * 2.2.13) to a share-relative UTF-8 path with '/' separators.  "" is the
 * share root.  On success *path (and *stream, when not NULL) are talloc
 * children of mem_ctx; on failure both are left untouched.
 *
 * Answers, in the order they are checked:
 * - odd length, an unpaired surrogate: NT_STATUS_ILLEGAL_CHARACTER;
 * - a leading '\': NT_STATUS_INVALID_PARAMETER (MS-SMB2 3.3.5.9);
 * - more than 32767 units, a NUL anywhere (even a trailing one), a
 *   character 0x01-0x1F or one of " * / < > ? | in a path component, a
 *   component longer than 255 units: NT_STATUS_OBJECT_NAME_INVALID;
 * - ".." is resolved lexically against the components before it ("a\..\b"
 *   is "b"); one that climbs above the share root is
 *   NT_STATUS_OBJECT_PATH_SYNTAX_BAD; a "." left over is
 *   NT_STATUS_OBJECT_NAME_INVALID as the last component and
 *   NT_STATUS_OBJECT_PATH_NOT_FOUND before it (Samba's answers);
 * - empty components ("a\\b", a trailing '\') are dropped.
 *
 * Streams, "name:stream[:type]" (MS-FSCC 2.1.5.3/2.1.5.4): the first ':'
 * ends the path.  *stream gets the stream name (case kept), or NULL when
 * there is none or it is the default stream "::$DATA".  A stream name may
 * hold any character but \ / : and NUL and at most 255 units; the type, if
 * given, must be $DATA in any case (NT_STATUS_INVALID_PARAMETER for any
 * other, as Samba); an empty stream name without a type ("f:"), an empty
 * type ("f:s:"), a third ':' or a '\' before the ':' ("d\:s") are
 * NT_STATUS_OBJECT_NAME_INVALID.  ":s" alone is a stream of the root.
 *
 * Not checked here: the file system's own limit (255 UTF-8 bytes a
 * component on ext4/xfs; ENAMETOOLONG, which Samba answers as
 * NT_STATUS_OBJECT_NAME_INVALID).  Differs from Samba on purpose: '/' is
 * NT_STATUS_OBJECT_NAME_INVALID as MS-FSCC says (Samba takes it as a
 * separator).
 */
/* Whether a wire name (UTF-16LE, len bytes; NULL for none) has a stream
 * part, i.e. a ':', even "::$DATA": what a share without streams refuses
 * before parsing. */
bool vfs_name_wire_has_stream(const uint8_t *utf16, size_t len);

NTSTATUS vfs_name_from_wire(TALLOC_CTX *mem_ctx, const uint8_t *utf16,
			    size_t len, char **path, char **stream);

/*
 * MS-FSA 2.1.4.4: does name (UTF-8, no wildcards) match pattern (UTF-8)
 * with * ? and the DOS wildcards < (DOS_STAR) > (DOS_QM) " (DOS_DOT)?
 * Case-insensitive (vfs_strcasecmp's folding) unless case_sensitive.
 * "*" and "*.*" match every non-empty name; an empty name matches only an
 * empty pattern.  Time is O(pattern * name), no recursion.
 *
 * Samba 4.17 differs in a few corners the caller may want to know about:
 * it lists "." and ".." for any pattern that matches "." (e.g. "?", ">",
 * "\""), its "*.*" matches only names with a '.', and its "<" also matches
 * a name whose only '.' is the first character.
 */
bool vfs_name_matches(const char *pattern, const char *name,
		      bool case_sensitive);
bool vfs_name_has_wildcard(const char *pattern);

/*
 * Whether name matches one of the patterns of a Samba name list such as
 * `veto files = /~$*.docx/.DS_Store/` ('/' separates patterns, empty ones
 * are skipped; each pattern as vfs_name_matches).  A NULL or empty list
 * matches nothing; a pattern over 255 bytes matches nothing.
 */
bool vfs_name_in_list(const char *list, const char *name,
		      bool case_sensitive);

/*
 * Unicode case-insensitive equality/ordering of UTF-8 strings: each code
 * point of the Basic Multilingual Plane is mapped by the simple upper-case
 * mapping (as NTFS's upcase table; code points above U+FFFF are left
 * alone), then code points are compared.  Invalid UTF-8 bytes compare as
 * themselves, after every valid code point.
 */
int vfs_strcasecmp(const char *a, const char *b);
/* A hash of name's folded code points: names vfs_strcasecmp calls equal
 * hash alike (the key of vfs/dircache.h's tables). */
uint32_t vfs_name_case_hash(const char *name);

/*
 * 8.3 names (MS-FSCC 2.1.5.2.1; FileBothDirectoryInformation's ShortName,
 * FileAlternateNameInformation).
 *
 * vfs_name_is_8_3: "." and "..", or 1-8 characters, optionally '.' and 1-3
 * more, all from A-Z a-z 0-9 and $ % ' - _ @ ~ ` ! ( ) { } ^ # &.  Case does
 * not matter (Samba's default `mangle case = no`: "plain.txt" is its own
 * short name).
 *
 * vfs_name_mangle: the alias of a long name in Samba's hash2 shape,
 * "P HHHHH ~ H . EXT": the first `prefix` characters of the name (upper
 * case, '_' for a character outside the 8.3 set), hash characters (0-9 A-Z)
 * up to six in all, '~', one more hash character, and the first 3
 * characters of the extension (after the last '.', if not leading).  The
 * hash is FNV-1a over the name's UTF-8 bytes: the same name gives the same
 * alias on every run and machine (but not Samba's alias: Samba's hash is
 * its own).  vfs_name_mangle uses prefix 1, Samba's `mangle prefix`
 * default; vfs_name_mangle_prefix takes 1-6 (clamped).  It does not check
 * whether the name needs an alias: ask vfs_name_is_8_3 first.
 *
 * vfs_name_is_mangled: does a client-supplied name have that shape (any
 * case), so that it may be an alias: the caller then scans the directory
 * for the entry whose vfs_name_mangle equals it (vfs_strcasecmp).
 */
bool vfs_name_is_8_3(const char *name);
char *vfs_name_mangle(TALLOC_CTX *mem_ctx, const char *name);
char *vfs_name_mangle_prefix(TALLOC_CTX *mem_ctx, const char *name,
			     unsigned prefix);
bool vfs_name_is_mangled(const char *name);

/*
 * The long name whose alias this process last made with vfs_name_mangle*
 * (a cache of 4096 slots, shared by the process's threads), or NULL.
 * For a CREATE of an alias that matches no directory entry: Samba then
 * uses the long name (smbtorture smb2.mangle deletes a file by its alias,
 * creates it by the alias again and expects the long name back).
 */
char *vfs_name_demangle_cached(TALLOC_CTX *mem_ctx, const char *alias);

#endif
