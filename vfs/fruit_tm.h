/*
 * vfs_fruit's Time Machine share (fruit:time machine, fruit:time machine
 * max size; man/vfs_fruit.8).  A Mac backs up into a sparse bundle at
 * the top of the share: NAME.sparsebundle/, whose Info.plist gives the
 * size of each band and whose bands/ directory holds one file per band
 * written.  With a maximum size set, the share reports that size as its
 * total and what is left of it after the bundles' bands as free, so Time
 * Machine thins old backups instead of filling the disk (Samba's
 * approximation: only the bundles count, so the share must hold nothing
 * else).
 */
#ifndef VFS_FRUIT_TM_H
#define VFS_FRUIT_TM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ntstatus.h"

/* Largest Info.plist read: Apple's are about 500 bytes. */
#define VFS_FRUIT_PLIST_MAX (64 * 1024)

/*
 * The band size an Info.plist (len bytes of XML, not NUL-terminated)
 * gives: the <integer> after <key>band-size</key>, whitespace between
 * them allowed.  false when there is none, it is not a decimal number
 * or it is 0 or does not fit 64 bits.  The file is the client's: it is
 * read as untrusted bytes.
 */
bool vfs_fruit_plist_band_size(const char *text, size_t len,
			       uint64_t *band_size);

/*
 * The bytes the sparse bundles directly in directory root hold: for each
 * NAME.sparsebundle directory, its band size times the files in its
 * bands/ (a bundle whose Info.plist cannot be read or parsed counts 0).
 * Saturates at UINT64_MAX.  Runs in the pool (it reads directories).
 */
NTSTATUS vfs_fruit_tm_used(int root, uint64_t *used);

/*
 * A share's sizes under a maximum (all in bytes): total becomes
 * min(total, max); free and caller_free at most total - used (0 when the
 * bundles hold more).
 */
void vfs_fruit_tm_limit(uint64_t max, uint64_t used, uint64_t *total,
			uint64_t *free_bytes, uint64_t *caller_free);

#endif
