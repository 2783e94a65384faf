/*
 * Samba's security.NTACL xattr (vfs_acl_xattr) as raw bytes; smbd/wire/sd.h
 * decodes and encodes the blob.  Reading needs no privilege; writing a
 * security.* xattr needs CAP_SYS_ADMIN, so the write runs as root for
 * that one call (lib/tpool.h tpool_as_root) after smbd's access check.
 */
#ifndef VFS_NTACL_XATTR_H
#define VFS_NTACL_XATTR_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

#define NTACL_XATTR_NAME "security.NTACL"
#define NTACL_XATTR_MAX 65536

/* The value, or NT_STATUS_NOT_FOUND when the file has none.  fd may be
 * an O_PATH descriptor. */
NTSTATUS
vfs_ntacl_fget(TALLOC_CTX *mem_ctx, int fd, uint8_t **blob, size_t *len);
/* Replace the value. */
NTSTATUS vfs_ntacl_fset(int fd, const uint8_t *blob, size_t len);

#endif
