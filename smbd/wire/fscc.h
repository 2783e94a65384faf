/*
 * MS-FSCC information classes: the byte layouts behind SMB2 QUERY_INFO,
 * SET_INFO and QUERY_DIRECTORY (MS-SMB2 3.3.5.18, 3.3.5.20, 3.3.5.21).
 *
 * Pure marshalling, no I/O: the handlers gather what a class needs (a
 * struct vfs_file_info plus what the open handle adds) and these functions
 * turn it into wire bytes, or turn a SET_INFO buffer into a decoded
 * struct.  Every read of client bytes goes through the checked cursor
 * (lib/wire.h); writes go to a struct wire_buf.
 *
 * What is policy stays with the caller: access checks (FILE_READ_ATTRIBUTES
 * etc.), the dialect checks (FileIdInformation needs 3.x,
 * FileNormalizedNameInformation 3.1.1), zeroing FilePositionInformation
 * (MS-SMB2 3.3.5.20.1 SHOULD), and what a decoded SET_INFO means.
 */
#ifndef SMBD_FSCC_H
#define SMBD_FSCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"
#include "vfs/vfs.h"

/* Not (yet) in lib/ntstatus.h; MS-ERREF 2.3.1. */
#ifndef STATUS_EA_LIST_INCONSISTENT
#define STATUS_EA_LIST_INCONSISTENT ((NTSTATUS)0x80000014)
#endif

/* File information classes (MS-FSCC 2.4, "Level"). */
#define FSCC_FILE_DIRECTORY_INFORMATION 1
#define FSCC_FILE_FULL_DIRECTORY_INFORMATION 2
#define FSCC_FILE_BOTH_DIRECTORY_INFORMATION 3
#define FSCC_FILE_BASIC_INFORMATION 4
#define FSCC_FILE_STANDARD_INFORMATION 5
#define FSCC_FILE_INTERNAL_INFORMATION 6
#define FSCC_FILE_EA_INFORMATION 7
#define FSCC_FILE_ACCESS_INFORMATION 8
#define FSCC_FILE_NAME_INFORMATION 9
#define FSCC_FILE_RENAME_INFORMATION 10
#define FSCC_FILE_LINK_INFORMATION 11
#define FSCC_FILE_NAMES_INFORMATION 12
#define FSCC_FILE_DISPOSITION_INFORMATION 13
#define FSCC_FILE_POSITION_INFORMATION 14
#define FSCC_FILE_FULL_EA_INFORMATION 15
#define FSCC_FILE_MODE_INFORMATION 16
#define FSCC_FILE_ALIGNMENT_INFORMATION 17
#define FSCC_FILE_ALL_INFORMATION 18
#define FSCC_FILE_ALLOCATION_INFORMATION 19
#define FSCC_FILE_END_OF_FILE_INFORMATION 20
#define FSCC_FILE_ALTERNATE_NAME_INFORMATION 21
#define FSCC_FILE_STREAM_INFORMATION 22
#define FSCC_FILE_COMPRESSION_INFORMATION 28
#define FSCC_FILE_NETWORK_OPEN_INFORMATION 34
#define FSCC_FILE_ATTRIBUTE_TAG_INFORMATION 35
#define FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION 37
#define FSCC_FILE_ID_FULL_DIRECTORY_INFORMATION 38
#define FSCC_FILE_NORMALIZED_NAME_INFORMATION 48
#define FSCC_FILE_ID_INFORMATION 59
#define FSCC_FILE_ID_EXTD_DIRECTORY_INFORMATION 60
#define FSCC_FILE_ID_EXTD_BOTH_DIRECTORY_INFORMATION 63
#define FSCC_FILE_DISPOSITION_INFORMATION_EX 64
#define FSCC_FILE_RENAME_INFORMATION_EX 65
#define FSCC_FILE_ID_64_EXTD_DIRECTORY_INFORMATION 78
#define FSCC_FILE_ID_64_EXTD_BOTH_DIRECTORY_INFORMATION 79
#define FSCC_FILE_ID_ALL_EXTD_DIRECTORY_INFORMATION 80
#define FSCC_FILE_ID_ALL_EXTD_BOTH_DIRECTORY_INFORMATION 81

/* File system information classes (MS-FSCC 2.5). */
#define FSCC_FS_VOLUME_INFORMATION 1
#define FSCC_FS_LABEL_INFORMATION 2
#define FSCC_FS_SIZE_INFORMATION 3
#define FSCC_FS_DEVICE_INFORMATION 4
#define FSCC_FS_ATTRIBUTE_INFORMATION 5
#define FSCC_FS_CONTROL_INFORMATION 6
#define FSCC_FS_FULL_SIZE_INFORMATION 7
#define FSCC_FS_OBJECT_ID_INFORMATION 8
#define FSCC_FS_DRIVER_PATH_INFORMATION 9
#define FSCC_FS_VOLUME_FLAGS_INFORMATION 10
#define FSCC_FS_SECTOR_SIZE_INFORMATION 11

/* FileBasicInformation times with a meaning (MS-FSCC 2.4
 * FileBasicInformation). */
#define FSCC_TIME_NO_CHANGE 0
#define FSCC_TIME_FREEZE UINT64_C(0xFFFFFFFFFFFFFFFF)	/* -1 */
#define FSCC_TIME_UNFREEZE UINT64_C(0xFFFFFFFFFFFFFFFE) /* -2 */

/* FileDispositionInformationEx flags (MS-FSCC 2.4). */
#define FSCC_DISPOSITION_DELETE 0x00000001
#define FSCC_DISPOSITION_POSIX_SEMANTICS 0x00000002
#define FSCC_DISPOSITION_FORCE_IMAGE_SECTION_CHECK 0x00000004
#define FSCC_DISPOSITION_ON_CLOSE 0x00000008
#define FSCC_DISPOSITION_IGNORE_READONLY_ATTRIBUTE 0x00000010

/* FileRenameInformationEx flags (MS-FSCC 2.4 FileRenameInformation).
 * For the plain classes the decoder maps ReplaceIfExists to bit 0. */
#define FSCC_RENAME_REPLACE_IF_EXISTS 0x00000001
#define FSCC_RENAME_POSIX_SEMANTICS 0x00000002
#define FSCC_RENAME_IGNORE_READONLY_ATTRIBUTE 0x00000040

/* FILE_FULL_EA_INFORMATION Flags (MS-FSCC 2.4 FileFullEaInformation). */
#define FSCC_FILE_NEED_EA 0x80

/* FileFsDeviceInformation (MS-FSCC 2.5.10). */
#define FSCC_FILE_DEVICE_DISK 0x00000007
#define FSCC_FILE_DEVICE_IS_MOUNTED 0x00000020

/*
 * What an open handle adds to vfs_file_info for QUERY_INFO.
 *
 * Names are UTF-8 and are put on the wire exactly as given: name is the
 * share-relative path with '\' separators (the caller decides whether a
 * class wants a leading '\').  stream_names are full stream names as they
 * go on the wire ("::$DATA", ":foo:$DATA"); with nstreams == 0 a file gets
 * the one default stream "::$DATA" sized from fi, a directory none.
 * stream_alloc may be NULL (then the sizes are used).
 */
struct fscc_file_ctx {
	const struct vfs_file_info *fi;
	const char *name;
	const char *short_name;	/* 8.3 alias or NULL */
	uint32_t access_mask;	/* FileAccessInformation */
	uint64_t position;	/* FilePositionInformation */
	uint32_t mode;		/* FileModeInformation */
	uint32_t ea_size;	/* FileEaInformation */
	uint32_t reparse_tag;	/* FileAttributeTagInformation */
	uint64_t volume_serial; /* FileIdInformation */
	size_t nstreams;
	const char *const *stream_names;
	const uint64_t *stream_sizes;
	const uint64_t *stream_alloc;
};

/*
 * Append the class's buffer to out, at most max_len bytes.  Returns
 * NT_STATUS_OK; STATUS_BUFFER_OVERFLOW when a variable-length class was
 * cut (the fixed part plus as much of the name as fits, the length field
 * still saying the full length; FileStream: whole entries only);
 * NT_STATUS_INFO_LENGTH_MISMATCH when max_len is smaller than the fixed
 * part (FileStream: 32, MS-FSA 2.1.5.12.29; nothing appended);
 * NT_STATUS_OBJECT_NAME_NOT_FOUND for FileAlternateName without a short
 * name; NT_STATUS_NOT_SUPPORTED for a class MS-FSCC 2.4 documents that
 * this code does not produce (MS-SMB2 3.3.5.20.1); otherwise
 * NT_STATUS_INVALID_INFO_CLASS.
 */
NTSTATUS fscc_file_info_push(struct wire_buf *out, uint8_t info_class,
			     const struct fscc_file_ctx *ctx, uint32_t max_len);

struct fscc_fs_ctx {
	uint64_t total_units;
	uint64_t free_units;
	uint64_t caller_free_units;
	uint32_t sectors_per_unit;
	uint32_t bytes_per_sector;
	const char *volume_label;
	uint32_t volume_serial;
	uint64_t volume_create_time;
	const char *fs_name;	/* "NTFS" */
	uint32_t fs_attributes; /* FILE_CASE_SENSITIVE_SEARCH ... (2.5.1) */
	uint32_t max_name_len;	/* MaximumComponentNameLength, 255 */
	uint32_t device_characteristics; /* FileFsDevice, 2.5.10 */
	bool supports_objects;	/* FileFsVolume SupportsObjects */
	uint8_t object_id[16];
};

/* As fscc_file_info_push, for SMB2_0_INFO_FILESYSTEM (MS-SMB2 3.3.5.20.2,
 * MS-FSCC 2.5). */
NTSTATUS fscc_fs_info_push(struct wire_buf *out, uint8_t info_class,
			   const struct fscc_fs_ctx *ctx, uint32_t max_len);

/* One entry of FILE_FULL_EA_INFORMATION (MS-FSCC 2.4). */
struct fscc_ea {
	uint8_t flags;
	char *name;		/* the bytes as sent (no NUL inside) */
	uint8_t *value;		/* may be NULL when value_len is 0 */
	size_t value_len;
};

/* A FILE_FULL_EA_INFORMATION list (SET_INFO FileFullEaInformation, the
 * CREATE context ExtA): *eas (*count entries) hang off mem_ctx.
 * STATUS_EA_LIST_INCONSISTENT when malformed. */
NTSTATUS fscc_ea_list_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct fscc_ea **eas, size_t *count);

/*
 * A decoded SET_INFO buffer (MS-SMB2 3.3.5.21.1).  Only the fields of
 * info_class are set; the rest are zero.
 */
struct fscc_set_info {
	uint8_t info_class;
	struct {
		/* Raw values: 0 no change, -1 freeze, -2 unfreeze. */
		uint64_t create_time, access_time, write_time, change_time;
		uint32_t attributes;
	} basic;
	uint64_t end_of_file;
	uint64_t allocation_size;
	uint64_t position;
	uint32_t mode;
	/* Disposition: delete_pending; DispositionEx: flags and
	 * delete_pending = flags & FSCC_DISPOSITION_DELETE. */
	bool delete_pending;
	uint32_t disposition_flags;
	/* Rename, RenameEx and Link: replace_if_exists mirrors bit 0 of
	 * flags.  new_name is UTF-8, '\' kept as given. */
	struct {
		bool replace_if_exists;
		uint32_t flags;
		uint64_t root_dir;
		char *new_name;
	} rename;
	/* FullEa */
	size_t num_eas;
	struct fscc_ea *eas;
};

/*
 * Decode a SET_INFO buffer of a file class.  Allocations hang off mem_ctx.
 * NT_STATUS_INFO_LENGTH_MISMATCH when len is below the fixed size;
 * NT_STATUS_INVALID_PARAMETER for a FileNameLength past the buffer, odd,
 * or not valid UTF-16; STATUS_EA_LIST_INCONSISTENT for a malformed EA
 * list; NT_STATUS_NOT_SUPPORTED for a documented class this code does not
 * decode; NT_STATUS_INVALID_INFO_CLASS otherwise.  On failure *out is
 * zeroed and nothing stays allocated.
 */
NTSTATUS fscc_set_info_pull(TALLOC_CTX *mem_ctx, uint8_t info_class,
			    const uint8_t *buf, size_t len,
			    struct fscc_set_info *out);

/*
 * Apple's READ_DIR_ATTR extension (AAPL create context; not in MS-FSCC),
 * as Samba's fruit answers it: in FileIdBothDirectoryInformation entries
 * EaSize holds the entry's maximal access, the ShortName area (length
 * 24, as macOS expects) the resource fork's size (8 bytes LE) and the
 * compressed FinderInfo (16 bytes, vfs/fruit.h), Reserved2 the low 16
 * bits of the UNIX mode (type and permissions).  Other classes keep
 * their NTFS fields.
 */
struct fscc_aapl_dir_attr {
	uint32_t max_access;
	uint64_t rfork_size;
	uint8_t finder_info[16];
	uint16_t unix_mode;
};

/* What a QUERY_DIRECTORY entry needs. */
struct fscc_dir_entry {
	const struct vfs_file_info *fi;
	const char *name;
	const char *short_name; /* 8.3 alias or NULL */
	uint32_t ea_size;
	uint32_t reparse_tag;	/* replaces EaSize for reparse points */
	/* NULL but on a READ_DIR_ATTR session's listing; for a reparse
	 * point it is not used (its tag stays) */
	const struct fscc_aapl_dir_attr *aapl;
};

/*
 * Append one entry of the class to out, 8-byte aligned (counting from
 * base, where the output buffer starts in out) after the previous one,
 * and patch the previous entry's NextEntryOffset.  *prev_entry is the
 * offset in out of the previous entry, or (size_t)-1 before the first;
 * it is updated to the new entry.  max_len bounds the whole buffer from
 * base.  Returns NT_STATUS_OK; STATUS_BUFFER_OVERFLOW when the entry
 * (with its alignment padding) does not fit (nothing is appended then);
 * NT_STATUS_INVALID_INFO_CLASS for a class that is not a directory class.
 */
NTSTATUS fscc_dir_entry_push(struct wire_buf *out, size_t base,
			     uint8_t info_class, const struct fscc_dir_entry *e,
			     uint32_t max_len, size_t *prev_entry);

/* True when info_class is a QUERY_DIRECTORY class fscc_dir_entry_push
 * knows. */
bool fscc_dir_class_known(uint8_t info_class);
/* True when the class's entries have an EaSize field (MS-FSCC 2.4:
 * the Full, Both, Id* and IdExtd* directory classes). */
bool fscc_dir_class_has_ea_size(uint8_t info_class);
/* True when the class's entries carry the file's times (all but
 * FileNamesInformation). */
bool fscc_dir_class_has_times(uint8_t info_class);
/* Overwrite the ChangeTime of the entry fscc_dir_entry_push wrote at
 * entry (a class with times). */
void fscc_dir_entry_set_change_time(uint8_t *entry, uint64_t change_time);

#endif
