/*
 * The smb.conf text parser (conf/parse.c) and the interface through which
 * it hands what it reads to its caller.
 *
 * Who calls whom: loadparm.c calls conf_parse_text() and conf_read_file()
 * and fills in a struct conf_parse_ops; the parser calls back only through
 * those pointers, never a function of loadparm.c, so it holds no idea of
 * how values are stored.  Below the parser are conf/subst.c (for
 * `include = smb.conf.%L`), the parameter table's name comparison and the
 * log.
 */
#ifndef CONF_PARSE_H
#define CONF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>

/* Bounds on what a file can make the parser do and hold. */
#define CONF_MAX_INCLUDE_DEPTH 16
#define CONF_MAX_FILE_SIZE (16 * 1024 * 1024)

/* Where a value came from, for messages: "smb.conf:12" or "--option". */
struct conf_where {
	const char *file;
	unsigned line;
};

/* Why `copy = SHARE` did not copy; the parser says it, with the line. */
enum conf_copy_result {
	CONF_COPY_OK,
	CONF_COPY_IN_GLOBAL, /* copy is not allowed in [global] */
	CONF_COPY_NO_SHARE,  /* no share of that name read before the line */
	CONF_COPY_NOMEM
};

/*
 * What the parser hands its caller, in the order of the text (an include
 * is read in place).  priv is the caller's, passed back unchanged.  The
 * parser logs what is wrong with the syntax; the callee logs what is wrong
 * with a value, since only it knows the parameters.
 */
struct conf_parse_ops {
	/*
	 * `[name]`, name trimmed and not empty: what follows goes into that
	 * section (the callee knows [global] / [globals] from a share).
	 * false: the share could not be added; the parser reports it and
	 * drops the lines up to the next section header.
	 */
	bool (*section)(void *priv, const char *name);
	/*
	 * `name = value` for the current section, `include` lines too (the
	 * callee keeps them for testparm's dump).  false: an invalid value,
	 * already logged; the load fails.
	 */
	bool (*parameter)(void *priv, const char *name, const char *value,
			  const struct conf_where *where);
	/* `copy = share`: every value set in that share, into this section */
	enum conf_copy_result (*copy)(void *priv, const char *share);
	/*
	 * %L and %D for an `include` path: the netbios name and workgroup
	 * the text read so far gives, since the new [global] is not in
	 * force yet.  Strings that stay valid while the parse runs.
	 */
	void (*include_vars)(void *priv, const char **server_name,
			     const char **workgroup);
};

/*
 * Parse smb.conf text, label naming it in messages.  Parsing goes on past
 * errors so that all are reported at once; false when there was one.
 */
bool conf_parse_text(const struct conf_parse_ops *ops, void *priv,
		     const char *label, const char *text, size_t len);

/* A whole file, NUL-terminated (limit CONF_MAX_FILE_SIZE); NULL with
 * errno's value in *err (lib/file.h, file_read_all). */
char *conf_read_file(TALLOC_CTX *mem_ctx, const char *path, size_t *len,
		     int *err);

#endif
