/*
 * A share's module stack asked by property: the design is in
 * stack_props.h.  Here, and only here, each property is matched to the
 * module that gives it today.
 */
#include "vfs/stack_props.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/fruit_tm.h"

#include <string.h>

_Static_assert(VFS_DIR_ATTRS_FINDER_SIZE == VFS_FRUIT_DIR_FINDER_SIZE,
	       "the FinderInfo field is fruit's");

const struct vfs_name_map *vfs_stack_name_map(const struct vfs_stack *s)
{
	return vfs_stack_priv(s, "catia");
}

const char *vfs_stack_veto_extra(const struct vfs_stack *s)
{
	/* fruit:veto_appledouble: "._" AppleDouble files are vetoed like
	 * the names of `veto files` (fruit still reads them: it converts
	 * one to its file's streams when the file is opened, fruit.h). */
	const struct vfs_fruit_config *fc = vfs_fruit_config(s);

	return fc != NULL && fc->veto_appledouble ? "/._*/" : NULL;
}

const struct vfs_dir_attrs *vfs_stack_dir_attrs(const struct vfs_stack *s)
{
	return (const struct vfs_dir_attrs *)vfs_fruit_config(s);
}

static const struct vfs_fruit_config *
dir_attrs_fruit(const struct vfs_dir_attrs *a)
{
	return (const struct vfs_fruit_config *)a;
}

bool vfs_dir_attrs_zero_file_id(const struct vfs_dir_attrs *a)
{
	return dir_attrs_fruit(a)->zero_file_id;
}

bool vfs_dir_attrs_max_access(const struct vfs_dir_attrs *a)
{
	return dir_attrs_fruit(a)->readdir_max_access;
}

bool vfs_dir_attrs_unix_mode(const struct vfs_dir_attrs *a)
{
	return dir_attrs_fruit(a)->nfs_aces;
}

void vfs_dir_attrs_get(const struct vfs_dir_attrs *a, int fd, int dirfd,
		       const char *name, bool is_file, int64_t btime,
		       struct vfs_dir_attrs_meta *out)
{
	struct vfs_fruit_dir_meta m;

	vfs_fruit_dir_meta_get(dir_attrs_fruit(a), fd, dirfd, name, is_file,
			       btime, &m);
	out->rfork_size = m.rfork_size;
	memcpy(out->finder, m.finder, sizeof(out->finder));
}

/* AAPL: fruit's configuration is the answer (its fruit:* options). */
const struct vfs_aapl *vfs_stack_aapl(const struct vfs_stack *s)
{
	return (const struct vfs_aapl *)vfs_fruit_config(s);
}

static const struct vfs_fruit_config *aapl_fruit(const struct vfs_aapl *a)
{
	return (const struct vfs_fruit_config *)a;
}

bool vfs_aapl_answers(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->aapl;
}

const char *vfs_aapl_model(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->model;
}

bool vfs_aapl_nfs_aces(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->nfs_aces;
}

bool vfs_aapl_copyfile(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->copyfile;
}

bool vfs_aapl_full_sync(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->time_machine;
}

bool vfs_aapl_zero_file_id(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->zero_file_id;
}

bool vfs_aapl_posix_rename(const struct vfs_aapl *a)
{
	return aapl_fruit(a)->posix_rename;
}

/* fruit:time machine max size (vfs/fruit_tm.h). */
uint64_t vfs_stack_size_limit(const struct vfs_stack *s)
{
	const struct vfs_fruit_config *fc = vfs_fruit_config(s);

	return fc != NULL ? fc->time_machine_max_size : 0;
}

NTSTATUS vfs_size_limit_used(int root_fd, uint64_t *used)
{
	return vfs_fruit_tm_used(root_fd, used);
}

void vfs_size_limit_apply(uint64_t limit, uint64_t used, uint64_t *total,
			  uint64_t *free_b, uint64_t *caller)
{
	vfs_fruit_tm_limit(limit, used, total, free_b, caller);
}

/* fruit:resource = file: the fork's "._" file (vfs/fruit_rsrc.h). */
bool vfs_stack_companions(const struct vfs_stack *s)
{
	return vfs_fruit_rsrc_file(s);
}

NTSTATUS vfs_companion_rename(const struct vfs_share *sh, const char *from,
			      const char *to)
{
	return vfs_rsrc_rename(sh, from, to);
}
