/*
 * NBENCH load file: the operation list dbench and Netbench replay.
 *
 * A load file is text, one operation a line:
 *     [TIMESTAMP] OPNAME ARG... EXPECTED_STATUS
 * with paths in double quotes (Windows separators), numbers in decimal or
 * 0x hex, and the NTSTATUS the original capture saw last.  Debian's dbench
 * ships /usr/share/dbench/client.txt in this format (no timestamps).
 *
 * nb_load_parse() turns the text into a compact array of struct nb_op.
 * Paths are converted once to '/' separators and interned (a load file of
 * 458,000 lines names only ~1,000 distinct paths), so every forked client
 * shares one copy of the table through copy-on-write.  The parser takes a
 * buffer and a length, never trusts either, and reports the first bad line
 * with its number: it is a file parser and has unit tests
 * (testsuite/unit/test_nbench_load.c) and a fuzz target
 * (testsuite/fuzz/fuzz_nbench_load.c).
 */
#ifndef TESTSUITE_BENCH_NBENCH_LOAD_H
#define TESTSUITE_BENCH_NBENCH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

enum nb_op_type {
	NB_NTCREATEX = 0,
	NB_CLOSE,
	NB_READX,
	NB_WRITEX,
	NB_QPATHINFO,
	NB_QFILEINFO,
	NB_QFSINFO,
	NB_FINDFIRST,
	NB_SETFILEINFO,
	NB_UNLINK,
	NB_RENAME,
	NB_FLUSH,
	NB_LOCKX,
	NB_UNLOCKX,
	NB_DELTREE,
	NB_MKDIR,
	NB_RMDIR,
	NB_OP_COUNT
};

/*
 * The outcome the load file expects, in the classes a POSIX-style client
 * library (errno) can tell apart.
 */
enum nb_expect {
	NB_EXPECT_OK = 0,
	NB_EXPECT_NOENT,  /* OBJECT_NAME/PATH_NOT_FOUND, NO_SUCH_FILE */
	NB_EXPECT_EXISTS, /* OBJECT_NAME_COLLISION */
	NB_EXPECT_ERROR   /* any other failure */
};

/* Largest ReadX/WriteX the replayer accepts (it owns one buffer this big). */
#define NB_MAX_IO (16u * 1024 * 1024)
/* SMB1 FIDs are 16 bits: every handle number fits a table of 65536. */
#define NB_MAX_FNUM 0xffffu
/* Longest line and longest path the parser accepts. */
#define NB_MAX_LINE 4096
#define NB_MAX_PATH 1024

/* NTCreateX fields (MS-SMB2 2.2.13 CreateOptions / CreateDisposition). */
#define NB_FILE_DIRECTORY_FILE 0x1u
#define NB_FILE_SUPERSEDE 0x0u
#define NB_FILE_OPEN 0x1u
#define NB_FILE_CREATE 0x2u
#define NB_FILE_OPEN_IF 0x3u
#define NB_FILE_OVERWRITE 0x4u
#define NB_FILE_OVERWRITE_IF 0x5u

struct nb_op {
	uint8_t type;   /* enum nb_op_type */
	uint8_t expect; /* enum nb_expect */
	uint32_t line;  /* 1-based line in the load file */
	uint32_t fnum;  /* handle ops and NTCreateX */
	/*
	 * NTCreateX: a = create options, b = disposition.
	 * Q*INFO, SET_FILE_INFORMATION, FIND_FIRST: a = info level.
	 * FIND_FIRST: b = max count, c = count found.  Unlink: a = attributes.
	 */
	uint32_t a, b, c;
	uint64_t offset;   /* ReadX, WriteX, LockX, UnlockX */
	uint64_t size;     /* ReadX, WriteX, LockX, UnlockX */
	uint64_t ret;      /* ReadX, WriteX: bytes the capture transferred */
	const char *path;  /* '/'-separated, interned; NULL if none */
	const char *path2; /* Rename target */
};

struct nb_load {
	struct nb_op *ops;
	size_t num_ops;
	size_t num_paths; /* distinct interned paths */
};

/*
 * Parse LEN bytes of BUF (need not be NUL-terminated).  On success returns
 * 0 and *out, allocated on MEM_CTX.  On failure returns -1 and writes a
 * message naming the line into ERR (ERRLEN bytes); nothing is left
 * allocated on MEM_CTX.  An empty load (no operations) is an error.
 */
int nb_load_parse(TALLOC_CTX *mem_ctx,
                  const char *buf,
                  size_t len,
                  struct nb_load **out,
                  char *err,
                  size_t errlen);

/* Read and parse a whole file; same contract, errors include the path. */
int nb_load_file(TALLOC_CTX *mem_ctx,
                 const char *path,
                 struct nb_load **out,
                 char *err,
                 size_t errlen);

/*
 * Does NAME match the FIND_FIRST pattern PAT ('*' '?' and the DOS
 * wildcards '<' '>' '"')?  Used by the replayer, since libsmbclient lists
 * a directory without a pattern.
 */
bool nb_dos_match(const char *pat, const char *name);

/* The load-file spelling of an operation ("NTCreateX"), never NULL. */
const char *nb_op_name(enum nb_op_type t);

#endif
