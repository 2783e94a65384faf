/*
 * Windows attributes of a file: from Samba's user.DOSATTRIB xattr when
 * `store dos attributes` (the default), else mapped from the mode bits
 * as `map archive/hidden/system/readonly` say; `hide dot files` adds
 * HIDDEN to names starting with a dot.
 */
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/name.h"
#include "vfs/dosattrib.h"

#include <string.h>
#include <sys/stat.h>

static uint32_t dosmode_from_mode(const struct vfs_share *sh, uint32_t mode)
{
	uint32_t a = 0;

	if (sh->map_readonly && !(mode & S_IWUSR)) {
		a |= FILE_ATTRIBUTE_READONLY;
	}
	if (sh->map_archive && (mode & S_IXUSR) && !S_ISDIR(mode)) {
		a |= FILE_ATTRIBUTE_ARCHIVE;
	}
	if (sh->map_system && (mode & S_IXGRP) && !S_ISDIR(mode)) {
		a |= FILE_ATTRIBUTE_SYSTEM;
	}
	if (sh->map_hidden && (mode & S_IXOTH) && !S_ISDIR(mode)) {
		a |= FILE_ATTRIBUTE_HIDDEN;
	}
	return a;
}

mode_t vfs_mode_from_dos(const struct vfs_share *sh, uint32_t attrs,
			 bool is_dir, mode_t parent_mode)
{
	mode_t m;

	if (is_dir) {
		/* The owner may always write: a DOS read-only directory
		 * still takes new files. */
		if (parent_mode != 0) {
			return S_IWUSR | (parent_mode & 07777);
		}
		return (0777 & sh->directory_mask) | sh->force_directory_mode;
	}
	/* Inheriting takes the parent's read/write bits and no mask. */
	m = parent_mode != 0 ? (parent_mode & 0666) : 0666;
	if (!sh->store_dos_attributes && (attrs & FILE_ATTRIBUTE_READONLY)) {
		m &= ~(mode_t)(S_IWUSR | S_IWGRP | S_IWOTH);
	}
	/* The execute bits carry the attributes the `map` parameters name;
	 * set before the mask, so a mask without them drops them. */
	if (sh->map_archive && (attrs & FILE_ATTRIBUTE_ARCHIVE)) {
		m |= S_IXUSR;
	}
	if (sh->map_system && (attrs & FILE_ATTRIBUTE_SYSTEM)) {
		m |= S_IXGRP;
	}
	if (sh->map_hidden && (attrs & FILE_ATTRIBUTE_HIDDEN)) {
		m |= S_IXOTH;
	}
	if (parent_mode == 0) {
		m = (m & sh->create_mask) | sh->force_create_mode;
	}
	return m;
}

mode_t vfs_mode_with_dos(const struct vfs_share *sh, uint32_t attrs,
			 mode_t old_mode)
{
	const uint32_t mapped = FILE_ATTRIBUTE_READONLY |
				FILE_ATTRIBUTE_ARCHIVE |
				FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_HIDDEN;
	mode_t keep = 07000;

	/* Attributes that read back the same leave the mode alone: with
	 * `map readonly = no` a client that re-sets what it read must not
	 * undo the READONLY it set just before (smbclient's setmode does
	 * both; Samba compares the same way). */
	if ((attrs & mapped) == (dosmode_from_mode(sh, old_mode) & mapped)) {
		return old_mode & 07777;
	}
	if (!sh->map_archive) {
		keep |= S_IXUSR;
	}
	if (!sh->map_system) {
		keep |= S_IXGRP;
	}
	if (!sh->map_hidden) {
		keep |= S_IXOTH;
	}
	return vfs_mode_from_dos(sh, attrs, false, 0) | (old_mode & keep);
}

/* fi->attributes from di (NULL: from the mode bits) and the name
 * rules; path's last component is the name. */
static void fill_attributes(const struct vfs_share *sh,
			    const struct dos_info *di, const char *path,
			    struct vfs_file_info *fi)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	uint32_t a;

	base = base ? base + 1 : path;
	if (di != NULL) {
		a = di->attrs & ~(FILE_ATTRIBUTE_DIRECTORY |
				  FILE_ATTRIBUTE_NORMAL);
		if (di->has_create_time) {
			fi->create_time = di->create_time;
		}
	} else {
		a = dosmode_from_mode(sh, fi->mode);
	}
	if (sh->hide_dot_files && base != NULL && base[0] == '.' &&
	    strcmp(base, ".") != 0 && strcmp(base, "..") != 0) {
		a |= FILE_ATTRIBUTE_HIDDEN;
	}
	if (base != NULL && strcmp(base, ".") != 0 && strcmp(base, "..") != 0 &&
	    vfs_name_in_list(sh->hide_files, base, sh->case_sensitive)) {
		a |= FILE_ATTRIBUTE_HIDDEN;
	}
	if (fi->is_dir) {
		a |= FILE_ATTRIBUTE_DIRECTORY;
	}
	/* A symbolic link or special file is a reparse point (MS-FSCC
	 * 2.1.2.1), whatever DOSATTRIB says: the attribute follows the
	 * type, as Samba 4.21+ sets it. */
	a &= ~(uint32_t)FILE_ATTRIBUTE_REPARSE_POINT;
	if (fi->reparse_tag != 0) {
		a |= FILE_ATTRIBUTE_REPARSE_POINT;
	}
	if (a == 0) {
		a = FILE_ATTRIBUTE_NORMAL;
	}
	fi->attributes = a;
}

void vfs_fill_dos_attributes(const struct vfs_share *sh, int fd, bool opath,
			     const char *path, struct vfs_file_info *fi)
{
	struct dos_info di;
	bool have;

	memset(&di, 0, sizeof(di));
	have = sh->store_dos_attributes && !opath && fd != -1 &&
	       NT_STATUS_IS_OK(dosattrib_fget(fd, &di));
	fill_attributes(sh, have ? &di : NULL, path, fi);
}

void vfs_fill_dos_attributes_known(const struct vfs_share *sh,
				   const struct dos_info *di,
				   const char *path, struct vfs_file_info *fi)
{
	fill_attributes(sh, di, path, fi);
}

/* Whether a listxattr answer (n bytes) names want. */
static bool xattr_listed(const char *list, ssize_t n, const char *want)
{
	ssize_t i = 0;

	while (i < n) {
		if (strcmp(list + i, want) == 0) {
			return true;
		}
		i += (ssize_t)strlen(list + i) + 1;
	}
	return false;
}

void vfs_fill_dos_attributes_at(const struct vfs_share *sh, int dirfd,
				const char *name, struct vfs_file_info *fi,
				uint32_t *ea_size)
{
	char list[4096];
	ssize_t n = -1;
	struct dos_info di;
	bool have = false;

	memset(&di, 0, sizeof(di));
	if (ea_size != NULL) {
		n = vfs_xattr_list_at(dirfd, name, list, sizeof(list));
		*ea_size = vfs_ea_size_list_at(list, n, dirfd, name);
	}
	/* A list that was read and lacks DOSATTRIB spares the get: most
	 * files made outside SMB have none. */
	if (sh->store_dos_attributes &&
	    (n < 0 || xattr_listed(list, n, DOSATTRIB_XATTR_NAME))) {
		have = NT_STATUS_IS_OK(dosattrib_get_at(dirfd, name, &di));
	}
	fill_attributes(sh, have ? &di : NULL, name, fi);
}
