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

void vfs_fill_dos_attributes(const struct vfs_share *sh, int fd, bool opath,
			     const char *path, struct vfs_file_info *fi)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	struct dos_info di;
	uint32_t a;

	base = base ? base + 1 : path;
	memset(&di, 0, sizeof(di));
	if (sh->store_dos_attributes && !opath && fd != -1 &&
	    NT_STATUS_IS_OK(dosattrib_fget(fd, &di))) {
		a = di.attrs & ~(FILE_ATTRIBUTE_DIRECTORY |
				 FILE_ATTRIBUTE_NORMAL);
		if (di.has_create_time) {
			fi->create_time = di.create_time;
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
	if (a == 0) {
		a = FILE_ATTRIBUTE_NORMAL;
	}
	fi->attributes = a;
}
