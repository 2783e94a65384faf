/*
 * A helper program run to completion with its output captured
 * (spawn.c): `username map script` (smbd/smb2/user_map.c) runs
 * `sh -c 'SCRIPT "$1"' sh NAME` this way in a pool thread.  A
 * process-level thing, not a file-system one, so it lives in lib/.
 *
 * The child gets /dev/null as stdin, a pipe as stdout and no other
 * descriptor of the daemon (closefrom 3).  Its output is read until EOF,
 * max bytes or the deadline; past the deadline or the bound it is killed;
 * either way it is reaped here, never left to the caller.
 */
#ifndef LIB_SPAWN_H
#define LIB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Run argv[0] with argv; its output (at most max bytes, not terminated)
 * in out, its length in *n.  true when it ran and exited with status 0
 * within seconds; false with why in err ("cannot start: ...", "killed
 * after S s or M bytes", "failed (status N)").
 */
bool spawn_capture(char *const argv[], char *out, size_t max,
		   unsigned seconds, size_t *n, char *err, size_t errlen);

#endif
