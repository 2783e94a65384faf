/*
 * vfs_fruit: what macOS clients expect of an SMB share (Samba's
 * vfs_fruit, documented in man/vfs_fruit.8), as far as it is built.
 *
 * - The module (vfs/fruit.c) reads its fruit:* options once per tree
 *   connect into an immutable struct vfs_fruit_config; options it does
 *   not implement yet, and values it does not support, are logged by
 *   name and value, never taken silently.
 * - The AFP_AfpInfo stream (fruit:metadata = stream): the Finder's
 *   metadata, a 60-byte AfpInfo record (Apple's "AFP_AfpInfo" named
 *   stream of the SMB/AFP bridge, the layout smbtorture's vfs.fruit
 *   builds: big-endian signature 'AFP\0', version 0x00000100, 4
 *   reserved bytes, backup time, then the 32-byte FinderInfo), kept
 *   like any stream in the xattr user.DosStream.AFP_AfpInfo:$DATA
 *   (vfs/streams.h), so files Samba's fruit wrote with metadata=stream
 *   read the same here.  With fruit:metadata = netatalk (the default,
 *   as Samba's) only the FinderInfo is kept, in Netatalk's AppleDouble
 *   xattr "user.org.netatalk.Metadata" (layout in vfs/adouble.h), and
 *   the record is made around it when read, as Samba's fruit does.  The stream exists only while it holds a valid
 *   record with a FinderInfo that is not all zero: macOS deletes the
 *   metadata by writing zeros, and a record written by a client that
 *   bypassed fruit (a share without it) that is not valid is not shown.
 *   The rules of reading, writing and sizing it are the functions below,
 *   called by the READ, WRITE, SET_INFO and CREATE jobs for a handle on
 *   that stream of a share whose stack has fruit (vfs_fruit_afpinfo).
 *
 * Everything here runs in the pool thread like the rest of vfs/; the fd
 * is the base file's.
 */
#ifndef VFS_FRUIT_H
#define VFS_FRUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ntstatus.h"
#include "vfs/module.h"
#include "vfs/handle.h"

#define VFS_AFPINFO_SIZE 60
#define VFS_AFPINFO_FINDER_OFF 16
#define VFS_AFPINFO_FINDER_SIZE 32

/* fruit:metadata: where AFP_AfpInfo's record is kept (NONE: the share
 * has no fruit, or the handle is not on AFP_AfpInfo). */
enum vfs_fruit_meta {
	VFS_FRUIT_META_NONE,
	VFS_FRUIT_META_STREAM,
	VFS_FRUIT_META_NETATALK,
};

/* fruit:resource: FILE (the default, as Samba's): AFP_Resource is the
 * fork in the "._" AppleDouble file (vfs/fruit_rsrc.h); STREAM: an
 * ordinary stream in its xattr; XATTR: the fork alone in Netatalk's
 * xattr VFS_RSRC_XATTR (vfs/fruit_rsrc.h). */
enum vfs_fruit_rsrc {
	VFS_FRUIT_RSRC_FILE,
	VFS_FRUIT_RSRC_STREAM,
	VFS_FRUIT_RSRC_XATTR,
};

struct vfs_fruit_config {
	enum vfs_fruit_meta metadata;
	enum vfs_fruit_rsrc resource;
	/* fruit:aapl (default yes): the AAPL create context is answered */
	bool aapl;
	/* fruit:model (default "MacSamba"): the model string of AAPL's
	 * server query, the icon a Mac shows for the server */
	const char *model;
	/* fruit:zero_file_id (default yes): on a session that negotiated
	 * AAPL, file ids (FileInternalInformation, IndexNumber, listings'
	 * FileId) are 0: a Mac takes a non-zero one for an HFS+ catalog node
	 * id that is never reused, which a recycled inode number is not */
	bool zero_file_id;
	/* fruit:posix_rename (default yes): on a session that negotiated
	 * AAPL a directory may be renamed while files below it are open,
	 * as on a Mac's own disk (smb2_setinfo.c) */
	bool posix_rename;
	/* fruit:veto_appledouble (default yes, as Samba): "._" files are
	 * vetoed, so a Mac sees its metadata only as streams (the share
	 * adds "._*" to `veto files` at tree connect) */
	bool veto_appledouble;
	/* fruit:time machine: AAPL's volume caps say FULL_SYNC (FLUSH
	 * reaches the disk: it is an fsync here), which is what makes
	 * macOS offer the share as a Time Machine destination */
	bool time_machine;
	/* fruit:time machine max size: 0 for none, else the size the share
	 * reports, less its sparse bundles' bands as free (fruit_tm.h) */
	uint64_t time_machine_max_size;
	/* fruit:wipe_intentionally_left_blank_rfork (default no): the
	 * AppleDouble conversion takes Apple's empty resource fork (the
	 * 286 bytes "This resource fork intentionally left blank") for no
	 * fork */
	bool wipe_blank_rfork;
	/* fruit:delete_empty_adfiles (default no): a "._" file the
	 * conversion leaves without a fork is deleted; else it stays, its
	 * metadata moved out */
	bool delete_empty_adfiles;
	/* readdir_attr:aapl_rsize, readdir_attr:aapl_finder_info,
	 * readdir_attr:aapl_max_access (all default yes, as Samba): what a
	 * listing for a session that negotiated AAPL's READ_DIR_ATTR
	 * carries (smbd/smb2/smb2_querydir.c): the resource fork's size,
	 * the compressed FinderInfo, the entry's maximal access (else
	 * FILE_GENERIC_ALL, so the Mac asks no more) */
	bool readdir_rsize;
	bool readdir_finder_info;
	bool readdir_max_access;
	/* fruit:nfs_aces (default yes): on a session that negotiated AAPL,
	 * the DACL of a security descriptor carries the Unix owner, group
	 * and mode as NFS ACEs, and one that carries a mode sets it
	 * (smbd/objects/ntacl_nfs.h); AAPL's server caps say NFS_ACE */
	bool nfs_aces;
	/* fruit:copyfile (default no): AAPL's server caps say
	 * OSX_COPYFILE, and on a session that negotiated AAPL a copychunk
	 * of 0 chunks copies the whole file with its streams
	 * (smb2_copychunk.c, vfs/fruit_copy.h) */
	bool copyfile;
};

/* The share's fruit configuration, NULL when fruit is not stacked.
 * Inline, so that fruit.c does not call back into the registry that
 * lists it (testsuite/layering). */
static inline const struct vfs_fruit_config *
vfs_fruit_config(const struct vfs_stack *s)
{
	return vfs_stack_priv(s, "fruit");
}

/* Where AFP_AfpInfo is kept on the share: NONE without fruit. */
static inline enum vfs_fruit_meta vfs_fruit_meta(const struct vfs_stack *s)
{
	const struct vfs_fruit_config *c = vfs_fruit_config(s);

	return c != NULL ? c->metadata : VFS_FRUIT_META_NONE;
}

/* The options of the AppleDouble conversion (vfs_fruit_convert_adouble),
 * taken on the loop thread. */
#define VFS_FRUIT_CONV_WIPE_BLANK 0x1
#define VFS_FRUIT_CONV_DELETE_EMPTY 0x2
/* fruit:resource = xattr: a fork goes to Netatalk's xattr */
#define VFS_FRUIT_CONV_RSRC_XATTR 0x4
static inline unsigned vfs_fruit_conv_flags(const struct vfs_stack *s)
{
	const struct vfs_fruit_config *c = vfs_fruit_config(s);

	if (c == NULL) {
		return 0;
	}
	return (c->wipe_blank_rfork ? VFS_FRUIT_CONV_WIPE_BLANK : 0) |
	       (c->delete_empty_adfiles ? VFS_FRUIT_CONV_DELETE_EMPTY : 0) |
	       (c->resource == VFS_FRUIT_RSRC_XATTR ? VFS_FRUIT_CONV_RSRC_XATTR
						    : 0);
}

/* Whether AFP_Resource is Netatalk's fork xattr on the share. */
static inline bool vfs_fruit_rsrc_xattr(const struct vfs_stack *s)
{
	const struct vfs_fruit_config *c = vfs_fruit_config(s);

	return c != NULL && c->resource == VFS_FRUIT_RSRC_XATTR;
}

/* Whether AFP_Resource is the fork of the "._" file on the share. */
static inline bool vfs_fruit_rsrc_file(const struct vfs_stack *s)
{
	const struct vfs_fruit_config *c = vfs_fruit_config(s);

	return c != NULL && c->resource == VFS_FRUIT_RSRC_FILE;
}

/*
 * Whether stream xattr `xattr` is the resource fork AFP_Resource.  On a
 * share with fruit, delete-on-close on it (at CREATE or by SET_INFO) is
 * ignored, as macOS does: a resource fork goes by truncating it to 0.
 */
bool vfs_fruit_resource_xattr(const char *xattr);

/* Whether stream xattr `xattr` is AFP_AfpInfo (the name compared without
 * case, as NTFS does): on a share whose fruit config is non-NULL, a
 * handle on it gets the rules below.  The caller takes that from the
 * stack on the loop thread (a pool job may outlive the tree). */
bool vfs_fruit_afpinfo_xattr(const char *xattr);

/*
 * FileStreamInformation on a share whose fruit keeps AFP_AfpInfo as
 * `meta` (not NONE): whether the stream listed as ":NAME:$DATA"
 * (vfs_stream_list) of fd is left out, an AFP_AfpInfo that holds no
 * valid record, or with netatalk any AFP_AfpInfo stream xattr (Samba
 * drops it from the list too: the record is the netatalk xattr's).
 */
bool vfs_fruit_stream_hidden(int fd, enum vfs_fruit_meta meta,
			     const char *listed);
/* With netatalk: whether fd has a record, which FileStreamInformation
 * then lists as AFP_AfpInfo (60 bytes) after the other streams. */
bool vfs_fruit_netatalk_listed(int fd, enum vfs_fruit_meta meta);

/*
 * In the calls below, `meta` says where the record is kept (STREAM: in
 * the stream's xattr `xattr`; NETATALK: its FinderInfo in Netatalk's
 * xattr, `xattr` unused).
 *
 * The on-disk record of fd, NT_STATUS_OBJECT_NAME_NOT_FOUND when there is
 * none or it is not a valid AfpInfo (a CREATE then sees no stream).
 */
NTSTATUS vfs_afpinfo_get(int fd, enum vfs_fruit_meta meta, const char *xattr,
			 uint8_t rec[VFS_AFPINFO_SIZE]);
/* The stream's size: 60 with a record, else 0. */
NTSTATUS vfs_afpinfo_size(int fd, enum vfs_fruit_meta meta,
			  const char *xattr, uint64_t *size);
/* Delete-on-close of the stream: the record goes (with netatalk the
 * whole xattr, as Samba removes it). */
NTSTATUS vfs_afpinfo_delete(int fd, enum vfs_fruit_meta meta,
			    const char *xattr);
/* Whether buf (len bytes) starts a valid AfpInfo: signature and
 * version. */
bool vfs_afpinfo_valid(const uint8_t *buf, size_t len);

/*
 * READ: macOS reads the record from its start whatever offset at or
 * below 60 is asked for, and nothing beyond (smbtorture "read
 * metadata"); a handle made by CREATE on a file without metadata reads
 * an empty record (signature, version, zero FinderInfo).
 */
NTSTATUS vfs_afpinfo_pread(int fd, enum vfs_fruit_meta meta,
			   const char *xattr, uint8_t *buf, size_t len,
			   uint64_t off, size_t *got);
/*
 * WRITE: a write of 60 bytes or more at any offset is the whole record
 * (its first 60 bytes); a shorter one only from offset 0, over the start
 * of the record there is (or of an empty one).  Anything else, data
 * that does not start with the signature ("AFP" does, its NUL implied;
 * "A" does not) or a record without the version, is
 * NT_STATUS_INVALID_PARAMETER.  A record whose FinderInfo is all zero
 * removes the stream.  On success the whole length counts as written.
 */
NTSTATUS vfs_afpinfo_pwrite(int fd, enum vfs_fruit_meta meta,
			    const char *xattr, const uint8_t *data, size_t len,
			    uint64_t off);
/* SET_INFO EndOfFile: beyond 60 bytes NT_STATUS_ALLOTTED_SPACE_EXCEEDED,
 * else success without effect (macOS keeps the record). */
NTSTATUS vfs_afpinfo_set_eof(uint64_t size);

/*
 * AAPL READ_DIR_ATTR (Apple's SMB2 extension, as Samba's fruit gives it):
 * a listing entry carries a compressed FinderInfo of 16 bytes in place of
 * part of its short name: the FinderInfo's type and creator (bytes 0-7,
 * files only: zero for a directory), its Finder flags (bytes 8-9), its
 * extended flags (bytes 24-25 of the FinderInfo, a directory's too), and
 * big-endian the date the item was added, in seconds since 2000-01-01
 * (AFP time), taken from its creation time.  finder: the 32-byte
 * FinderInfo of the entry's AfpInfo record, NULL when it has none; the
 * date is then AFP's "no date" (0x80000000), as Samba leaves it.
 * btime: the creation time in Unix seconds.
 */
#define VFS_FRUIT_DIR_FINDER_SIZE 16
void vfs_fruit_finder_compress(const uint8_t *finder, bool is_file,
			       int64_t btime,
			       uint8_t out[VFS_FRUIT_DIR_FINDER_SIZE]);

/*
 * What the AAPL listing says of one directory entry, read with as few
 * calls as there are pieces (each piece off when its readdir_attr option
 * is): the resource fork's size (the AFP_Resource stream's, or with
 * fruit:resource = file the fork of "._NAME" beside it) and the
 * compressed FinderInfo from the AFP_AfpInfo record.  fd: an O_PATH (or
 * any) fd of the entry, -1 for one that is not a file or directory (it
 * then has neither); dirfd and name: the entry in its directory, as on
 * disk.  Errors read as "none" (a vanished entry, a "._" file that is
 * not AppleDouble): a listing does not fail for them, as Samba's does
 * not.
 */
struct vfs_fruit_dir_meta {
	uint64_t rfork_size;
	uint8_t finder[VFS_FRUIT_DIR_FINDER_SIZE];
};
void vfs_fruit_dir_meta_get(const struct vfs_fruit_config *c, int fd,
			    int dirfd, const char *name, bool is_file,
			    int64_t btime, struct vfs_fruit_dir_meta *out);

struct vfs_share;

/*
 * AppleDouble conversion (vfs/adouble.h): when the "._" file of
 * share-relative `path` (an existing file or directory) is a valid
 * AppleDouble file, its FinderInfo (as the AFP_AfpInfo record kept as
 * `meta`; not with NONE), extended attributes and resource fork become
 * path's streams, as Samba's fruit converts them.  A "._" file that does
 * not parse or does not fit in streams is left alone.  With rsrc_file
 * (fruit:resource = file) a resource fork stays in the "._" file, which
 * keeps only it (vfs/fruit_rsrc.h); one that holds nothing else is left
 * as it is.  With VFS_FRUIT_CONV_WIPE_BLANK in `flags` Apple's empty
 * fork is taken for none.  A "._" file left without a fork is deleted
 * with VFS_FRUIT_CONV_DELETE_EMPTY, else kept as a bare header (nothing
 * in it to convert again), as Samba keeps it.  Errors are the file
 * system's.
 */
NTSTATUS vfs_fruit_convert_adouble(const struct vfs_share *sh,
				   const char *path, enum vfs_fruit_meta meta,
				   bool rsrc_file, unsigned flags);

#endif
