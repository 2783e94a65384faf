/*
 * fruit:copyfile: the streams of a file that a whole-file copy takes
 * (design in fruit_copy.h).  Runs in the pool thread.
 */
#include "vfs/fruit_copy.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/streams.h"

#include <string.h>
#include <strings.h>

/* ":NAME:$DATA" -> "NAME" on mem_ctx; NULL when out of memory. */
static char *listed_name(TALLOC_CTX *mem_ctx, const char *listed)
{
	size_t len = strlen(listed), sfx = strlen(VFS_STREAM_SUFFIX);

	if (len < 1 + sfx) {
		return talloc_strdup(mem_ctx, "");
	}
	return talloc_strndup(mem_ctx, listed + 1, len - 1 - sfx);
}

static NTSTATUS add_name(TALLOC_CTX *mem_ctx, char ***names, size_t *count,
			 char *name)
{
	char **n = talloc_realloc(mem_ctx, *names, char *, *count + 1);

	if (n == NULL || name == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n[(*count)++] = talloc_steal(n, name);
	*names = n;
	return NT_STATUS_OK;
}

/* Whether a listed xattr stream is left out, as getinfo leaves it out
 * of FileStreamInformation. */
static bool xattr_stream_hidden(const struct vfs_fruit_file *f,
				const char *listed)
{
	static const char rsrc[] = ":" VFS_FRUIT_RESOURCE VFS_STREAM_SUFFIX;

	if (f->meta != VFS_FRUIT_META_NONE &&
	    vfs_fruit_stream_hidden(f->fd, f->meta, listed)) {
		return true;
	}
	return (f->rsrc_file || f->rsrc_xattr) && strcasecmp(listed, rsrc) == 0;
}

NTSTATUS vfs_fruit_stream_names(TALLOC_CTX *mem_ctx,
				const struct vfs_fruit_file *f, char ***names,
				size_t *count)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char **listed = NULL;
	uint64_t *sizes = NULL, fork = 0;
	size_t n = 0, i;
	NTSTATUS st = tmp != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;

	*names = NULL;
	*count = 0;
	if (NT_STATUS_IS_OK(st) && f->sh.streams) {
		st = vfs_stream_list(tmp, f->fd, &listed, &sizes, &n);
	}
	for (i = 0; NT_STATUS_IS_OK(st) && i < n; i++) {
		if (!xattr_stream_hidden(f, listed[i])) {
			st = add_name(mem_ctx, names, count,
				      listed_name(mem_ctx, listed[i]));
		}
	}
	if (NT_STATUS_IS_OK(st) && vfs_fruit_netatalk_listed(f->fd, f->meta)) {
		st = add_name(mem_ctx, names, count,
			      talloc_strdup(mem_ctx, "AFP_AfpInfo"));
	}
	/* a "._" file that is not one fruit can use is not listed, so it
	 * is not copied either */
	if (NT_STATUS_IS_OK(st) &&
	    ((f->rsrc_file &&
	      NT_STATUS_IS_OK(vfs_rsrc_path_size(&f->sh, f->path, &fork))) ||
	     (f->rsrc_xattr &&
	      NT_STATUS_IS_OK(vfs_stream_size(f->fd, VFS_RSRC_XATTR, &fork)))) &&
	    fork > 0) {
		st = add_name(mem_ctx, names, count,
			      talloc_strdup(mem_ctx, VFS_FRUIT_RESOURCE));
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(st)) {
		TALLOC_FREE(*names);
		*count = 0;
	}
	return st;
}
