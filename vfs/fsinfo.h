/*
 * The file-system calls behind the sparse-file FSCTLs (MS-FSA
 * 2.1.5.10.36 SET_SPARSE, .37 SET_ZERO_DATA, .22 QUERY_ALLOCATED_RANGES)
 * and the volume sizes of FileFsSizeInformation (MS-FSCC 2.5.8, 2.5.4):
 * fallocate(2) modes, the SEEK_DATA/SEEK_HOLE walk and fstatvfs(3), each
 * behind a function that says in its result what the handler decides on
 * (issue 37 item 1: no errno above vfs/).  The handlers keep the policy
 * (which mode a sparse file gets, when to fall back to writing zeros,
 * how ranges are encoded); these run in the caller's thread, the pool
 * job's.
 */
#ifndef VFS_FSINFO_H
#define VFS_FSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/statvfs.h>

#include "vfs/vfs.h"

/* Give every byte of [0, size) of fd blocks again (fallocate KEEP_SIZE:
 * holes become unwritten extents, which read as zeros), as clearing the
 * sparse attribute does on NTFS.  Best effort: a file system without
 * fallocate keeps its holes. */
void vfs_fill_holes(int fd, uint64_t size);

/* Zero [off, off + len) of fd in place without changing its size: a
 * hole punched when punch, else the blocks kept and zeroed (ZERO_RANGE).
 * false when the file system can do neither (the caller writes zeros). */
bool vfs_zero_range(int fd, uint64_t off, uint64_t len, bool punch);

/*
 * The data extents of [off, end) of fd, as SEEK_DATA and SEEK_HOLE find
 * them, each handed to add (clipped to end) in order until add returns
 * false.  false when the file system cannot tell (the caller reports
 * the whole range as allocated).
 */
bool vfs_data_extents(int fd, uint64_t off, uint64_t end,
		      bool (*add)(void *priv, uint64_t off, uint64_t len),
		      void *priv);

/* fstatvfs(3) of the file system holding fd. */
NTSTATUS vfs_fstatvfs(int fd, struct statvfs *out);

#endif
