/*
 * MS-FSCC information classes: encoders for QUERY_INFO (file and file
 * system classes) and QUERY_DIRECTORY entries, decoders for SET_INFO.
 *
 * Layout: every fixed part is built in a zeroed local array with
 * put_le*() at the offsets of the MS-FSCC table, then appended to the
 * output wire_buf in one piece, followed by the UTF-16LE name where the
 * class has one.  Size checks come first, so a class that does not fit
 * appends nothing (STATUS_INFO_LENGTH_MISMATCH), and a name that does not
 * fit is cut with STATUS_BUFFER_OVERFLOW (MS-SMB2 3.3.5.20.1: "If the
 * underlying object store returns only a portion of the variable-length
 * data, the server MUST construct a success response ... but set the
 * Status field ... to STATUS_BUFFER_OVERFLOW").
 *
 * The directory classes share one field order (MS-FSCC 2.4 "...Directory
 * Information": NextEntryOffset, FileIndex, four times, EndOfFile,
 * AllocationSize, FileAttributes, FileNameLength) and differ only in which
 * optional fields follow and where; a table of offsets describes each, so
 * one function writes them all.
 *
 * SET_INFO buffers are read only through the checked cursor (lib/wire.h).
 * Names are converted with the UTF-16 helpers of lib/charset.h.
 */
#include "smbd/wire/fscc.h"

#include <string.h>

#include "lib/log.h"
#include "lib/charset.h"

/* Largest fixed part we build in a local array (FileAllInformation: 100,
 * FILE_ID_ALL_EXTD_BOTH_DIR_INFORMATION: 122). */
#define FSCC_HDR_MAX 128

static const struct vfs_file_info fscc_zero_fi;

/*
 * Classes MS-FSCC 2.4 documents, by Level.  MS-SMB2 3.3.5.20.1 and
 * 3.3.5.21.1: a documented class the server does not support fails with
 * STATUS_NOT_SUPPORTED, an undocumented one with STATUS_INVALID_INFO_CLASS.
 */
static bool fscc_file_class_documented(uint8_t cls)
{
	switch (cls) {
	case 44: /* FileSfioReserveInformation */
	case 45: /* FileSfioVolumeInformation */
	case 46: /* FileHardLinkInformation */
	case 48: /* FileNormalizedNameInformation */
	case 50: /* FileIdGlobalTxDirectoryInformation */
	case 54: /* FileStandardLinkInformation */
	case 59: /* FileIdInformation */
	case 60: /* FileIdExtdDirectoryInformation */
	case 63: /* FileIdExtdBothDirectoryInformation */
	case 64: /* FileDispositionInformationEx */
	case 65: /* FileRenameInformationEx */
	case 78: /* FileId64ExtdDirectoryInformation */
	case 79: /* FileId64ExtdBothDirectoryInformation */
	case 80: /* FileIdAllExtdDirectoryInformation */
	case 81: /* FileIdAllExtdBothDirectoryInformation */
		return true;
	default:
		/* 1 FileDirectoryInformation .. 40 FileShortNameInformation */
		return cls >= 1 && cls <= 40;
	}
}

/* FileAttributes as they go on the wire: FILE_ATTRIBUTE_NORMAL only
 * alone (MS-FSCC 2.6), DIRECTORY for directories. */
static uint32_t fscc_attrs(const struct vfs_file_info *fi)
{
	uint32_t a = fi->attributes;

	if (fi->is_dir) {
		a |= FILE_ATTRIBUTE_DIRECTORY;
	}
	if ((a & ~(uint32_t)FILE_ATTRIBUTE_NORMAL) != 0) {
		a &= ~(uint32_t)FILE_ATTRIBUTE_NORMAL;
	} else {
		a = FILE_ATTRIBUTE_NORMAL;
	}
	return a;
}

/* UTF-8 (NULL = empty) to UTF-16LE on mem_ctx. */
static NTSTATUS fscc_utf16(TALLOC_CTX *mem_ctx, const char *s, uint8_t **p,
			   size_t *len)
{
	NTSTATUS status;

	status = charset_utf8_to_utf16(mem_ctx, s != NULL ? s : "", p, len);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("name is not valid UTF-8\n");
		return status;
	}
	/* Names come from the file system: far below this, but the
	 * length fields are 32 bits. */
	if (*len > UINT32_MAX / 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS fscc_buf_status(const struct wire_buf *out, NTSTATUS ok)
{
	return out->failed ? NT_STATUS_NO_MEMORY : ok;
}

/* A fixed-size class: all of it or STATUS_INFO_LENGTH_MISMATCH. */
static NTSTATUS fscc_push_fixed(struct wire_buf *out, const uint8_t *hdr,
				size_t fixed, uint32_t max_len)
{
	if (max_len < fixed) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	wire_push_bytes(out, hdr, fixed);
	return fscc_buf_status(out, NT_STATUS_OK);
}

/*
 * A fixed part hdr[0..fixed) followed by a UTF-16 name whose 32-bit length
 * lives at hdr + len_off.  max_len below min_len (the fixed part, or more
 * where MS-FSA rounds it up) fails with STATUS_INFO_LENGTH_MISMATCH.  A
 * name that does not fit is cut to the bytes that do, with
 * STATUS_BUFFER_OVERFLOW; the length field always holds the full length,
 * what the client must allocate (MS-FSA 2.1.5.13.1, 2.1.5.13.5:
 * "...NameLength set to the length, in bytes, of the name", then
 * "BytesToCopy" of it).
 */
static NTSTATUS fscc_push_var(struct wire_buf *out, uint8_t *hdr, size_t fixed,
			      size_t min_len, size_t len_off, const char *name,
			      uint32_t max_len)
{
	TALLOC_CTX *tmp;
	uint8_t *u16;
	size_t u16_len, n;
	NTSTATUS status;

	if (max_len < fixed || max_len < min_len) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = fscc_utf16(tmp, name, &u16, &u16_len);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	n = u16_len;
	if (n > max_len - fixed) {
		n = max_len - fixed;
	}
	put_le32(hdr + len_off, (uint32_t)u16_len);
	wire_push_bytes(out, hdr, fixed);
	wire_push_bytes(out, u16, n);
	talloc_free(tmp);
	return fscc_buf_status(out, n < u16_len ? STATUS_BUFFER_OVERFLOW
					       : NT_STATUS_OK);
}

/* FILE_BASIC_INFORMATION, 40 bytes (MS-FSCC 2.4 FileBasicInformation). */
static void fscc_put_basic(uint8_t *p, const struct vfs_file_info *fi)
{
	put_le64(p + 0, fi->create_time);
	put_le64(p + 8, fi->access_time);
	put_le64(p + 16, fi->write_time);
	put_le64(p + 24, fi->change_time);
	put_le32(p + 32, fscc_attrs(fi));
	/* 36: Reserved (4) */
}

/* FILE_STANDARD_INFORMATION, 24 bytes (MS-FSCC 2.4
 * FileStandardInformation). */
static void fscc_put_standard(uint8_t *p, const struct vfs_file_info *fi)
{
	put_le64(p + 0, fi->allocation_size);
	put_le64(p + 8, fi->end_of_file);
	put_le32(p + 16, fi->nlink);
	p[20] = fi->delete_pending ? 1 : 0;
	p[21] = fi->is_dir ? 1 : 0;
	/* 22: Reserved (2) */
}

/*
 * FILE_STREAM_INFORMATION list (MS-FSCC 2.4 FileStreamInformation):
 * NextEntryOffset(4) StreamNameLength(4) StreamSize(8)
 * StreamAllocationSize(8) StreamName, entries 8-byte aligned.  MS-FSA
 * 2.1.5.12.29: a buffer below sizeof(FILE_STREAM_INFORMATION) (24 + one
 * WCHAR, rounded to 8: 32) fails with STATUS_INFO_LENGTH_MISMATCH; only
 * whole entries are returned, the first that does not fit (with its
 * padding) ends the list with STATUS_BUFFER_OVERFLOW.
 */
static NTSTATUS fscc_push_streams(struct wire_buf *out,
				  const struct fscc_file_ctx *ctx,
				  const struct vfs_file_info *fi,
				  uint32_t max_len)
{
	static const char *const default_name[] = {"::$DATA"};
	const char *const *names = ctx->stream_names;
	const uint64_t *sizes = ctx->stream_sizes;
	const uint64_t *allocs = ctx->stream_alloc;
	size_t n = ctx->nstreams, start = out->len, prev = (size_t)-1, i;
	TALLOC_CTX *tmp;
	NTSTATUS status = NT_STATUS_OK;

	if (max_len < 32) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	if (n == 0 || names == NULL) {
		/* A file has its unnamed data stream, a directory none. */
		n = fi->is_dir ? 0 : 1;
		names = default_name;
		sizes = &fi->end_of_file;
		allocs = &fi->allocation_size;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		uint8_t hdr[24] = {0};
		size_t rel = out->len - start, pad, u16_len;
		uint8_t *u16;
		uint64_t size = sizes != NULL ? sizes[i] : 0;

		status = fscc_utf16(tmp, names[i], &u16, &u16_len);
		if (!NT_STATUS_IS_OK(status)) {
			break;
		}
		pad = prev == (size_t)-1 ? 0 : (8 - rel % 8) % 8;
		if ((uint64_t)rel + pad + 24 + u16_len > max_len) {
			status = STATUS_BUFFER_OVERFLOW;
			break;
		}
		wire_push_zero(out, pad);
		if (prev != (size_t)-1 && !out->failed) {
			put_le32(out->data + prev,
				 (uint32_t)(out->len - prev));
		}
		prev = out->len;
		put_le32(hdr + 4, (uint32_t)u16_len);
		put_le64(hdr + 8, size);
		put_le64(hdr + 16, allocs != NULL ? allocs[i] : size);
		wire_push_bytes(out, hdr, sizeof(hdr));
		wire_push_bytes(out, u16, u16_len);
		talloc_free(u16);
	}
	talloc_free(tmp);
	return fscc_buf_status(out, status);
}

/* The fixed-size file classes; false when cls is not one of them. */
static bool fscc_file_fixed(uint8_t cls, const struct fscc_file_ctx *ctx,
			    const struct vfs_file_info *fi, uint8_t *h,
			    size_t *size)
{
	switch (cls) {
	case FSCC_FILE_BASIC_INFORMATION:
		fscc_put_basic(h, fi);
		*size = 40;
		return true;
	case FSCC_FILE_STANDARD_INFORMATION:
		fscc_put_standard(h, fi);
		*size = 24;
		return true;
	case FSCC_FILE_INTERNAL_INFORMATION:
		/* MS-FSCC 2.4 FileInternalInformation: IndexNumber (8) */
		put_le64(h, fi->file_id);
		*size = 8;
		return true;
	case FSCC_FILE_EA_INFORMATION:
		/* MS-FSCC 2.4 FileEaInformation: EaSize (4) */
		put_le32(h, ctx->ea_size);
		*size = 4;
		return true;
	case FSCC_FILE_ACCESS_INFORMATION:
		/* MS-FSCC 2.4 FileAccessInformation: AccessFlags (4) */
		put_le32(h, ctx->access_mask);
		*size = 4;
		return true;
	case FSCC_FILE_POSITION_INFORMATION:
		/* MS-FSCC 2.4 FilePositionInformation: CurrentByteOffset */
		put_le64(h, ctx->position);
		*size = 8;
		return true;
	case FSCC_FILE_MODE_INFORMATION:
		/* MS-FSCC 2.4 FileModeInformation: Mode (4) */
		put_le32(h, ctx->mode);
		*size = 4;
		return true;
	case FSCC_FILE_ALIGNMENT_INFORMATION:
		/* MS-FSCC 2.4 FileAlignmentInformation: 0 = FILE_BYTE_
		 * ALIGNMENT, no requirement on buffers. */
		*size = 4;
		return true;
	case FSCC_FILE_COMPRESSION_INFORMATION:
		/* MS-FSCC 2.4 FileCompressionInformation: CompressedFileSize
		 * (8), CompressionFormat (2) = COMPRESSION_FORMAT_NONE,
		 * CompressionUnitShift, ChunkShift, ClusterShift (1 each),
		 * Reserved (3). Not compressed: the file's size. */
		put_le64(h, fi->end_of_file);
		*size = 16;
		return true;
	case FSCC_FILE_NETWORK_OPEN_INFORMATION:
		/* MS-FSCC 2.4 FileNetworkOpenInformation: four times,
		 * AllocationSize, EndOfFile, FileAttributes, Reserved. */
		put_le64(h + 0, fi->create_time);
		put_le64(h + 8, fi->access_time);
		put_le64(h + 16, fi->write_time);
		put_le64(h + 24, fi->change_time);
		put_le64(h + 32, fi->allocation_size);
		put_le64(h + 40, fi->end_of_file);
		put_le32(h + 48, fscc_attrs(fi));
		*size = 56;
		return true;
	case FSCC_FILE_ATTRIBUTE_TAG_INFORMATION:
		/* MS-FSCC 2.4 FileAttributeTagInformation: FileAttributes,
		 * ReparseTag. */
		put_le32(h + 0, fscc_attrs(fi));
		put_le32(h + 4, ctx->reparse_tag);
		*size = 8;
		return true;
	case FSCC_FILE_ID_INFORMATION:
		/* MS-FSCC 2.4 FileIdInformation: VolumeSerialNumber (8),
		 * FileId (16, FILE_ID_128: our 64-bit id, high half 0). */
		put_le64(h + 0, ctx->volume_serial);
		put_le64(h + 8, fi->file_id);
		*size = 24;
		return true;
	default:
		return false;
	}
}

NTSTATUS fscc_file_info_push(struct wire_buf *out, uint8_t info_class,
			     const struct fscc_file_ctx *ctx, uint32_t max_len)
{
	const struct vfs_file_info *fi = ctx->fi != NULL ? ctx->fi
							 : &fscc_zero_fi;
	uint8_t h[FSCC_HDR_MAX];
	size_t size;

	memset(h, 0, sizeof(h));
	if (fscc_file_fixed(info_class, ctx, fi, h, &size)) {
		return fscc_push_fixed(out, h, size, max_len);
	}
	switch (info_class) {
	case FSCC_FILE_NAME_INFORMATION:
	case FSCC_FILE_NORMALIZED_NAME_INFORMATION:
		/* MS-FSCC 2.4 FileNameInformation (FILE_NAME_INFORMATION:
		 * FileNameLength (4), FileName); FileNormalizedName-
		 * Information uses the same structure. */
		return fscc_push_var(out, h, 4, 4, 0, ctx->name, max_len);
	case FSCC_FILE_ALTERNATE_NAME_INFORMATION:
		/* MS-FSCC 2.4 FileAlternateNameInformation: a
		 * FILE_NAME_INFORMATION with the 8.3 name.  A file without
		 * one fails as on NTFS without short names. */
		if (ctx->short_name == NULL || ctx->short_name[0] == '\0') {
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		return fscc_push_var(out, h, 4, 4, 0, ctx->short_name,
				     max_len);
	case FSCC_FILE_ALL_INFORMATION:
		/* MS-FSCC 2.4 FileAllInformation: Basic (40), Standard
		 * (24), Internal (8), Ea (4), Access (4), Position (8),
		 * Mode (4), Alignment (4), Name (4 + name): 100 fixed. */
		fscc_put_basic(h, fi);
		fscc_put_standard(h + 40, fi);
		put_le64(h + 64, fi->file_id);
		put_le32(h + 72, ctx->ea_size);
		put_le32(h + 76, ctx->access_mask);
		put_le64(h + 80, ctx->position);
		put_le32(h + 88, ctx->mode);
		/* 92: AlignmentRequirement 0 */
		return fscc_push_var(out, h, 100, 100, 96, ctx->name,
				     max_len);
	case FSCC_FILE_STREAM_INFORMATION:
		return fscc_push_streams(out, ctx, fi, max_len);
	default:
		break;
	}
	if (fscc_file_class_documented(info_class)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	return NT_STATUS_INVALID_INFO_CLASS;
}

/* The fixed-size file system classes; false when cls is not one. */
static bool fscc_fs_fixed(uint8_t cls, const struct fscc_fs_ctx *ctx,
			  uint8_t *h, size_t *size)
{
	switch (cls) {
	case FSCC_FS_SIZE_INFORMATION:
		/* MS-FSCC 2.5.8 FileFsSizeInformation */
		put_le64(h + 0, ctx->total_units);
		put_le64(h + 8, ctx->caller_free_units);
		put_le32(h + 16, ctx->sectors_per_unit);
		put_le32(h + 20, ctx->bytes_per_sector);
		*size = 24;
		return true;
	case FSCC_FS_DEVICE_INFORMATION:
		/* MS-FSCC 2.5.10 FileFsDeviceInformation */
		put_le32(h + 0, FSCC_FILE_DEVICE_DISK);
		put_le32(h + 4, ctx->device_characteristics);
		*size = 8;
		return true;
	case FSCC_FS_CONTROL_INFORMATION:
		/* MS-FSCC 2.5.2 FileFsControlInformation: the three
		 * FreeSpace* fields 0 (unused), DefaultQuotaThreshold and
		 * DefaultQuotaLimit -1 (no limit), FileSystemControlFlags 0
		 * (quotas off), Padding. */
		put_le64(h + 24, UINT64_MAX);
		put_le64(h + 32, UINT64_MAX);
		*size = 48;
		return true;
	case FSCC_FS_FULL_SIZE_INFORMATION:
		/* MS-FSCC 2.5.4 FileFsFullSizeInformation */
		put_le64(h + 0, ctx->total_units);
		put_le64(h + 8, ctx->caller_free_units);
		put_le64(h + 16, ctx->free_units);
		put_le32(h + 24, ctx->sectors_per_unit);
		put_le32(h + 28, ctx->bytes_per_sector);
		*size = 32;
		return true;
	case FSCC_FS_OBJECT_ID_INFORMATION:
		/* MS-FSCC 2.5.6 FileFsObjectIdInformation: ObjectId (16),
		 * ExtendedInfo (48) zero. */
		memcpy(h, ctx->object_id, 16);
		*size = 64;
		return true;
	case FSCC_FS_SECTOR_SIZE_INFORMATION:
		/* MS-FSCC 2.5.7 FileFsSectorSizeInformation: the logical,
		 * two physical and the effective sector sizes, Flags
		 * SSINFO_FLAGS_ALIGNED_DEVICE |
		 * SSINFO_FLAGS_PARTITION_ALIGNED_ON_DEVICE, both alignment
		 * offsets 0. */
		put_le32(h + 0, ctx->bytes_per_sector);
		put_le32(h + 4, ctx->bytes_per_sector);
		put_le32(h + 8, ctx->bytes_per_sector);
		put_le32(h + 12, ctx->bytes_per_sector);
		put_le32(h + 16, 0x00000003);
		*size = 28;
		return true;
	default:
		return false;
	}
}

NTSTATUS fscc_fs_info_push(struct wire_buf *out, uint8_t info_class,
			   const struct fscc_fs_ctx *ctx, uint32_t max_len)
{
	uint8_t h[FSCC_HDR_MAX];
	size_t size;

	memset(h, 0, sizeof(h));
	if (fscc_fs_fixed(info_class, ctx, h, &size)) {
		return fscc_push_fixed(out, h, size, max_len);
	}
	switch (info_class) {
	case FSCC_FS_VOLUME_INFORMATION:
		/* MS-FSCC 2.5.9 FileFsVolumeInformation: VolumeCreationTime
		 * (8), VolumeSerialNumber (4), VolumeLabelLength (4),
		 * SupportsObjects (1), Reserved (1), VolumeLabel.  MS-FSA
		 * 2.1.5.13.1: the buffer must hold BlockAlign(18, 8) = 24
		 * bytes; the label is copied after the 18. */
		put_le64(h + 0, ctx->volume_create_time);
		put_le32(h + 8, ctx->volume_serial);
		h[16] = ctx->supports_objects ? 1 : 0;
		return fscc_push_var(out, h, 18, 24, 12, ctx->volume_label,
				     max_len);
	case FSCC_FS_ATTRIBUTE_INFORMATION:
		/* MS-FSCC 2.5.1 FileFsAttributeInformation:
		 * FileSystemAttributes (4), MaximumComponentNameLength (4),
		 * FileSystemNameLength (4), FileSystemName; MS-FSA
		 * 2.1.5.13.5: at least BlockAlign(12, 4) = 12 bytes. */
		put_le32(h + 0, ctx->fs_attributes);
		put_le32(h + 4, ctx->max_name_len);
		return fscc_push_var(out, h, 12, 12, 8, ctx->fs_name, max_len);
	case FSCC_FS_LABEL_INFORMATION:	  /* set only */
	case FSCC_FS_DRIVER_PATH_INFORMATION: /* not listed in MS-SMB2 */
	case FSCC_FS_VOLUME_FLAGS_INFORMATION:
		/* MS-SMB2 3.3.5.20.2: documented in MS-FSCC 2.5 but not in
		 * MS-SMB2 2.2.37 */
		return NT_STATUS_NOT_SUPPORTED;
	default:
		return NT_STATUS_INVALID_INFO_CLASS;
	}
}

/* ---- SET_INFO decoders (MS-SMB2 3.3.5.21.1) ---- */

/* A UTF-16 name of name_len bytes at the cursor, to UTF-8 on mem_ctx. */
static NTSTATUS fscc_pull_name(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			       uint32_t name_len, char **out)
{
	const uint8_t *p;

	if (name_len % 2 != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(wire_pull_ref(c, &p, name_len))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (name_len == 0) {
		*out = talloc_strdup(mem_ctx, "");
		return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	return charset_utf16_to_utf8(mem_ctx, p, name_len, out);
}

/*
 * FILE_RENAME_INFORMATION_TYPE_2 (MS-FSCC 2.4 FileRenameInformation
 * for SMB2) and FILE_LINK_INFORMATION_TYPE_2 (MS-FSCC 2.4 FileLinkInfor-
 * mation for SMB2): ReplaceIfExists (1), Reserved (7), RootDirectory (8),
 * FileNameLength (4), FileName.  FILE_RENAME_INFORMATION_EX (MS-FSCC 2.4
 * FileRenameInformationEx): Flags (4), Reserved (4), then the same.
 */
static NTSTATUS fscc_pull_rename(TALLOC_CTX *mem_ctx, struct wire_cur *c,
				 bool ex, struct fscc_set_info *out)
{
	uint32_t name_len;

	if (wire_remaining(c) < 20) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	if (ex) {
		(void)wire_pull_le32(c, &out->rename.flags);
		out->rename.replace_if_exists =
			(out->rename.flags & FSCC_RENAME_REPLACE_IF_EXISTS) !=
			0;
	} else {
		uint8_t replace;

		(void)wire_pull_u8(c, &replace);
		out->rename.replace_if_exists = replace != 0;
		out->rename.flags =
			replace != 0 ? FSCC_RENAME_REPLACE_IF_EXISTS : 0;
	}
	(void)wire_seek(c, 8);
	(void)wire_pull_le64(c, &out->rename.root_dir);
	(void)wire_pull_le32(c, &name_len);
	return fscc_pull_name(mem_ctx, c, name_len, &out->rename.new_name);
}

/* Walk the FILE_FULL_EA_INFORMATION list (MS-FSCC 2.4 FileFullEa-
 * Information): NextEntryOffset (4), Flags (1), EaNameLength (1),
 * EaValueLength (2), EaName + NUL, EaValue; entries 4-byte aligned.
 * With eas NULL only counts and validates. */
static NTSTATUS fscc_walk_eas(const uint8_t *buf, size_t len,
			      struct fscc_ea *eas, size_t *count)
{
	struct wire_cur c;
	size_t off = 0, n = 0;

	wire_cur_init(&c, buf, len);
	for (;;) {
		uint32_t next;
		uint8_t flags, name_len;
		uint16_t value_len;
		const uint8_t *name, *nul, *value;

		if (!NT_STATUS_IS_OK(wire_seek(&c, off)) ||
		    !NT_STATUS_IS_OK(wire_pull_le32(&c, &next)) ||
		    !NT_STATUS_IS_OK(wire_pull_u8(&c, &flags)) ||
		    !NT_STATUS_IS_OK(wire_pull_u8(&c, &name_len)) ||
		    !NT_STATUS_IS_OK(wire_pull_le16(&c, &value_len)) ||
		    !NT_STATUS_IS_OK(wire_pull_ref(&c, &name, name_len)) ||
		    !NT_STATUS_IS_OK(wire_pull_ref(&c, &nul, 1)) ||
		    !NT_STATUS_IS_OK(wire_pull_ref(&c, &value, value_len))) {
			return STATUS_EA_LIST_INCONSISTENT;
		}
		/* The name is NUL-terminated and holds no NUL itself. */
		if (name_len == 0 || *nul != 0 ||
		    memchr(name, 0, name_len) != NULL) {
			return STATUS_EA_LIST_INCONSISTENT;
		}
		if (eas != NULL) {
			struct fscc_ea *ea = &eas[n];

			ea->flags = flags;
			ea->name = talloc_strndup(eas, (const char *)name,
						  name_len);
			ea->value_len = value_len;
			ea->value = value_len == 0
					    ? NULL
					    : talloc_memdup(eas, value,
							    value_len);
			if (ea->name == NULL ||
			    (value_len != 0 && ea->value == NULL)) {
				return NT_STATUS_NO_MEMORY;
			}
		}
		n++;
		if (next == 0) {
			break;
		}
		/* The next entry starts after this one, 4-byte aligned. */
		if (next < c.off - off || next % 4 != 0) {
			return STATUS_EA_LIST_INCONSISTENT;
		}
		off += next;
	}
	*count = n;
	return NT_STATUS_OK;
}

NTSTATUS fscc_ea_list_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct fscc_ea **eas, size_t *count)
{
	size_t n;
	NTSTATUS status;

	/* One entry is at least its 8-byte header plus a 1-byte name and
	 * its NUL. */
	if (len < 8) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	status = fscc_walk_eas(buf, len, NULL, &n);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*eas = talloc_zero_array(mem_ctx, struct fscc_ea, n);
	if (*eas == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = fscc_walk_eas(buf, len, *eas, &n);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*count = n;
	return NT_STATUS_OK;
}

static NTSTATUS fscc_pull_eas(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			      size_t len, struct fscc_set_info *out)
{
	return fscc_ea_list_pull(mem_ctx, buf, len, &out->eas, &out->num_eas);
}

/* Fixed sizes of the SET_INFO classes; 0 for the others. */
static size_t fscc_set_fixed(uint8_t cls)
{
	switch (cls) {
	case FSCC_FILE_BASIC_INFORMATION:
		return 40;
	case FSCC_FILE_RENAME_INFORMATION:
	case FSCC_FILE_LINK_INFORMATION:
	case FSCC_FILE_RENAME_INFORMATION_EX:
		return 20;
	case FSCC_FILE_DISPOSITION_INFORMATION:
		return 1;
	case FSCC_FILE_POSITION_INFORMATION:
	case FSCC_FILE_ALLOCATION_INFORMATION:
	case FSCC_FILE_END_OF_FILE_INFORMATION:
	case FSCC_FILE_FULL_EA_INFORMATION:
		return 8;
	case FSCC_FILE_MODE_INFORMATION:
	case FSCC_FILE_DISPOSITION_INFORMATION_EX:
		return 4;
	default:
		return 0;
	}
}

static NTSTATUS fscc_set_info_pull_class(TALLOC_CTX *mem_ctx,
					 const uint8_t *buf, size_t len,
					 struct fscc_set_info *out)
{
	struct wire_cur c;

	/* Every size was checked against fscc_set_fixed() before, so the
	 * fixed-field pulls below cannot fail. */
	wire_cur_init(&c, buf, len);
	switch (out->info_class) {
	case FSCC_FILE_BASIC_INFORMATION:
		/* MS-FSCC 2.4 FileBasicInformation */
		(void)wire_pull_le64(&c, &out->basic.create_time);
		(void)wire_pull_le64(&c, &out->basic.access_time);
		(void)wire_pull_le64(&c, &out->basic.write_time);
		(void)wire_pull_le64(&c, &out->basic.change_time);
		(void)wire_pull_le32(&c, &out->basic.attributes);
		return NT_STATUS_OK;
	case FSCC_FILE_RENAME_INFORMATION:
	case FSCC_FILE_LINK_INFORMATION:
		return fscc_pull_rename(mem_ctx, &c, false, out);
	case FSCC_FILE_RENAME_INFORMATION_EX:
		return fscc_pull_rename(mem_ctx, &c, true, out);
	case FSCC_FILE_DISPOSITION_INFORMATION: {
		/* MS-FSCC 2.4 FileDispositionInformation: DeletePending */
		uint8_t v;

		(void)wire_pull_u8(&c, &v);
		out->delete_pending = v != 0;
		return NT_STATUS_OK;
	}
	case FSCC_FILE_DISPOSITION_INFORMATION_EX:
		/* MS-FSCC 2.4 FileDispositionInformationEx: Flags (4) */
		(void)wire_pull_le32(&c, &out->disposition_flags);
		out->delete_pending =
			(out->disposition_flags & FSCC_DISPOSITION_DELETE) != 0;
		return NT_STATUS_OK;
	case FSCC_FILE_POSITION_INFORMATION:
		/* MS-FSCC 2.4 FilePositionInformation */
		(void)wire_pull_le64(&c, &out->position);
		return NT_STATUS_OK;
	case FSCC_FILE_MODE_INFORMATION:
		/* MS-FSCC 2.4 FileModeInformation */
		(void)wire_pull_le32(&c, &out->mode);
		return NT_STATUS_OK;
	case FSCC_FILE_ALLOCATION_INFORMATION:
		/* MS-FSCC 2.4 FileAllocationInformation */
		(void)wire_pull_le64(&c, &out->allocation_size);
		return NT_STATUS_OK;
	case FSCC_FILE_END_OF_FILE_INFORMATION:
		/* MS-FSCC 2.4 FileEndOfFileInformation */
		(void)wire_pull_le64(&c, &out->end_of_file);
		return NT_STATUS_OK;
	case FSCC_FILE_FULL_EA_INFORMATION:
		return fscc_pull_eas(mem_ctx, buf, len, out);
	default:
		return NT_STATUS_INVALID_INFO_CLASS;
	}
}

NTSTATUS fscc_set_info_pull(TALLOC_CTX *mem_ctx, uint8_t info_class,
			    const uint8_t *buf, size_t len,
			    struct fscc_set_info *out)
{
	size_t fixed = fscc_set_fixed(info_class);
	NTSTATUS status;

	memset(out, 0, sizeof(*out));
	out->info_class = info_class;
	if (fixed == 0) {
		return fscc_file_class_documented(info_class)
			       ? NT_STATUS_NOT_SUPPORTED
			       : NT_STATUS_INVALID_INFO_CLASS;
	}
	if (buf == NULL || len < fixed) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	status = fscc_set_info_pull_class(mem_ctx, buf, len, out);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(out->rename.new_name);
		talloc_free(out->eas);
		memset(out, 0, sizeof(*out));
		out->info_class = info_class;
	}
	return status;
}

/* ---- QUERY_DIRECTORY entries (MS-SMB2 3.3.5.18) ---- */

/*
 * Where a directory class puts its fields.  All share NextEntryOffset (0),
 * FileIndex (4); all but FileNames the four times (8..40), EndOfFile (40),
 * AllocationSize (48), FileAttributes (56).  0 means "no such field" for
 * the optional ones.  ShortName (24 bytes) follows ShortNameLength and a
 * reserved byte.
 */
struct fscc_dir_layout {
	uint8_t cls;
	uint8_t name_len_off; /* FileNameLength */
	uint8_t name_off;     /* FileName: the size of the fixed part */
	uint8_t ea_off;	      /* EaSize */
	uint8_t tag_off;      /* ReparsePointTag */
	uint8_t short_off;    /* ShortNameLength */
	uint8_t id64_off;     /* FileId (8) */
	uint8_t id128_off;    /* FileId (16) or FileId128 */
};

static const struct fscc_dir_layout fscc_dir_layouts[] = {
	/* MS-FSCC 2.4 FileDirectoryInformation */
	{FSCC_FILE_DIRECTORY_INFORMATION, 60, 64, 0, 0, 0, 0, 0},
	/* MS-FSCC 2.4 FileFullDirectoryInformation */
	{FSCC_FILE_FULL_DIRECTORY_INFORMATION, 60, 68, 64, 0, 0, 0, 0},
	/* MS-FSCC 2.4 FileBothDirectoryInformation */
	{FSCC_FILE_BOTH_DIRECTORY_INFORMATION, 60, 94, 64, 0, 68, 0, 0},
	/* MS-FSCC 2.4 FileNamesInformation: NextEntryOffset, FileIndex,
	 * FileNameLength, FileName */
	{FSCC_FILE_NAMES_INFORMATION, 8, 12, 0, 0, 0, 0, 0},
	/* MS-FSCC 2.4 FileIdBothDirectoryInformation: Reserved2 (2) at 94 */
	{FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION, 60, 104, 64, 0, 68, 96, 0},
	/* MS-FSCC 2.4 FileIdFullDirectoryInformation: Reserved (4) at 68 */
	{FSCC_FILE_ID_FULL_DIRECTORY_INFORMATION, 60, 80, 64, 0, 0, 72, 0},
	/* MS-FSCC 2.4 FileIdExtdDirectoryInformation */
	{FSCC_FILE_ID_EXTD_DIRECTORY_INFORMATION, 60, 88, 64, 68, 0, 0, 72},
	/* MS-FSCC 2.4 FileIdExtdBothDirectoryInformation */
	{FSCC_FILE_ID_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 114, 64, 68, 88, 0,
	 72},
	/* MS-FSCC 2.4 FileId64ExtdDirectoryInformation */
	{FSCC_FILE_ID_64_EXTD_DIRECTORY_INFORMATION, 60, 80, 64, 68, 0, 72, 0},
	/* MS-FSCC 2.4 FileId64ExtdBothDirectoryInformation */
	{FSCC_FILE_ID_64_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 106, 64, 68, 80,
	 72, 0},
	/* MS-FSCC 2.4 FileIdAllExtdDirectoryInformation */
	{FSCC_FILE_ID_ALL_EXTD_DIRECTORY_INFORMATION, 60, 96, 64, 68, 0, 72,
	 80},
	/* MS-FSCC 2.4 FileIdAllExtdBothDirectoryInformation */
	{FSCC_FILE_ID_ALL_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 122, 64, 68, 96,
	 72, 80},
};

static const struct fscc_dir_layout *fscc_dir_layout(uint8_t cls)
{
	size_t i;

	for (i = 0; i < sizeof(fscc_dir_layouts) / sizeof(fscc_dir_layouts[0]);
	     i++) {
		if (fscc_dir_layouts[i].cls == cls) {
			return &fscc_dir_layouts[i];
		}
	}
	return NULL;
}

bool fscc_dir_class_known(uint8_t info_class)
{
	return fscc_dir_layout(info_class) != NULL;
}

bool fscc_dir_class_has_ea_size(uint8_t info_class)
{
	const struct fscc_dir_layout *l = fscc_dir_layout(info_class);

	return l != NULL && l->ea_off != 0;
}

bool fscc_dir_class_has_times(uint8_t info_class)
{
	return fscc_dir_class_known(info_class) &&
	       info_class != FSCC_FILE_NAMES_INFORMATION;
}

void fscc_dir_entry_set_change_time(uint8_t *entry, uint64_t change_time)
{
	/* MS-FSCC 2.4: ChangeTime is at 32 in every class with times. */
	put_le64(entry + 32, change_time);
}

/* READ_DIR_ATTR's fields of a FileIdBothDirectoryInformation entry
 * (fscc.h): EaSize at 64, ShortNameLength 24 at 68 (Reserved1 0), the
 * fork size at 70, the FinderInfo at 78, the mode in Reserved2 at 94. */
static void fscc_put_aapl(uint8_t *h, const struct fscc_dir_layout *l,
			  const struct fscc_aapl_dir_attr *a)
{
	put_le32(h + l->ea_off, a->max_access);
	h[l->short_off] = 24;
	put_le64(h + l->short_off + 2, a->rfork_size);
	memcpy(h + l->short_off + 10, a->finder_info,
	       sizeof(a->finder_info));
	put_le16(h + l->short_off + 26, a->unix_mode);
}

/* The fixed part of one entry; FileNameLength and FileName by caller. */
static void fscc_put_dir_fixed(uint8_t *h, const struct fscc_dir_layout *l,
			       const struct fscc_dir_entry *e,
			       const struct vfs_file_info *fi,
			       const uint8_t *short16, size_t short_len)
{
	uint32_t attrs = fscc_attrs(fi);

	/* NextEntryOffset patched later; FileIndex 0, as NTFS (MS-FSA
	 * 2.1.5.6.3: "Entry.FileIndex set to zero"). */
	if (l->cls != FSCC_FILE_NAMES_INFORMATION) {
		put_le64(h + 8, fi->create_time);
		put_le64(h + 16, fi->access_time);
		put_le64(h + 24, fi->write_time);
		put_le64(h + 32, fi->change_time);
		put_le64(h + 40, fi->end_of_file);
		put_le64(h + 48, fi->allocation_size);
		put_le32(h + 56, attrs);
	}
	if (l->ea_off != 0) {
		/* MS-FSCC 2.4 FileFullDirectoryInformation: without a
		 * ReparsePointTag field, EaSize carries the reparse tag
		 * of a reparse point. */
		uint32_t ea = e->ea_size;

		if (l->tag_off == 0 &&
		    (attrs & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
			ea = e->reparse_tag;
		}
		put_le32(h + l->ea_off, ea);
	}
	if (l->tag_off != 0) {
		put_le32(h + l->tag_off, e->reparse_tag);
	}
	if (e->aapl != NULL &&
	    l->cls == FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION &&
	    (attrs & FILE_ATTRIBUTE_REPARSE_POINT) == 0) {
		fscc_put_aapl(h, l, e->aapl);
	} else if (l->short_off != 0) {
		h[l->short_off] = (uint8_t)short_len;
		if (short_len > 0) {
			memcpy(h + l->short_off + 2, short16, short_len);
		}
	}
	if (l->id64_off != 0) {
		put_le64(h + l->id64_off, fi->file_id);
	}
	if (l->id128_off != 0) {
		/* FILE_ID_128: the 64-bit id, high half zero. */
		put_le64(h + l->id128_off, fi->file_id);
	}
}

NTSTATUS fscc_dir_entry_push(struct wire_buf *out, size_t base,
			     uint8_t info_class, const struct fscc_dir_entry *e,
			     uint32_t max_len, size_t *prev_entry)
{
	const struct fscc_dir_layout *l = fscc_dir_layout(info_class);
	const struct vfs_file_info *fi = e->fi != NULL ? e->fi : &fscc_zero_fi;
	uint8_t h[FSCC_HDR_MAX];
	uint8_t *name16, *short16 = NULL;
	size_t name_len, short_len = 0, rel, pad, start;
	TALLOC_CTX *tmp;
	NTSTATUS status;

	if (l == NULL) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (base > out->len ||
	    (*prev_entry != (size_t)-1 &&
	     (*prev_entry < base || *prev_entry + 4 > out->len))) {
		DBG_ERR("bad base %zu / previous entry %zu (len %zu)\n", base,
			*prev_entry, out->len);
		return NT_STATUS_INTERNAL_ERROR;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = fscc_utf16(tmp, e->name, &name16, &name_len);
	if (NT_STATUS_IS_OK(status) && l->short_off != 0 &&
	    e->short_name != NULL) {
		status = fscc_utf16(tmp, e->short_name, &short16, &short_len);
		/* ShortName is a 24-byte field: 12 UTF-16 units at most. */
		if (short_len > 24) {
			short_len = 24;
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	/* MS-FSCC 2.4: "each MUST be aligned on an 8-byte boundary"; no
	 * padding after the last entry. */
	rel = out->len - base;
	pad = (8 - rel % 8) % 8;
	if ((uint64_t)rel + pad + l->name_off + name_len > max_len) {
		talloc_free(tmp);
		return STATUS_BUFFER_OVERFLOW;
	}
	memset(h, 0, sizeof(h));
	fscc_put_dir_fixed(h, l, e, fi, short16, short_len);
	put_le32(h + l->name_len_off, (uint32_t)name_len);
	wire_push_zero(out, pad);
	start = out->len;
	wire_push_bytes(out, h, l->name_off);
	wire_push_bytes(out, name16, name_len);
	talloc_free(tmp);
	if (out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	if (*prev_entry != (size_t)-1) {
		put_le32(out->data + *prev_entry,
			 (uint32_t)(start - *prev_entry));
	}
	*prev_entry = start;
	return NT_STATUS_OK;
}
