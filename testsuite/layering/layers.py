#!/usr/bin/env python3
"""The layering check (issue 16), in the spirit of Chromium's checkdeps.

The daemon's rooms are directories, stacked from the top down in ROOMS. A
file may include the headers of its own room and of the rooms below it,
never of one above.  Two ways of breaking that are checked, and one rule
of the house:

  includes  every `#include "..."` of a project header in a .c or .h under
            the rooms (tests, fuzz targets and benchmarks are not rooms);
  calls     every function or object a room's object file takes from another
            room's object file (nm: undefined here, defined there), which
            also catches a handler called by name through a prototype that a
            lower header declares.

  banned    every call, in a .c or .h of the rooms, of a C library function
            listed in BANNED (unbounded copies, hidden static state, no
            error detection, predictable names or numbers), comments and
            string literals left aside; a use that is right is listed in
            BANNED_ALLOWED with its reason (kept near empty; issue 37).

  build     each room directory has one local.mk that lists the .c and .h
            files of that directory (with its subdirectories that have no
            local.mk of their own), every one of them, and no other
            room's (its unit tests under testsuite/ aside); and every
            testsuite/fuzz/fuzz_*.c is a target in FUZZ_TARGETS of
            testsuite/fuzz/local.mk with its _LDFLAGS (issue 37).

  bypass    the file-system room is the one way to the OS (issue 37 item
            1): no object of smbd/smb2/, smbd/objects/ or smbd/wire/
            calls a system call wrapper listed in SYSCALLS, no object
            outside vfs/ and lib/ reads errno (__errno_location in its
            nm), and no file outside vfs/ names a VFS module (MODULE_RE)
            in its code or includes a module's own header
            (MODULE_INCLUDE_RE).  What is left of each is listed in
            known-bypass.txt beside this file, and the list only
            shrinks: a use not listed fails, and so does a listed one
            that is gone (remove its line; the list is rewritten with
            --update-known).

A reference that runs upward must be listed in UPWARD with its reason; the
list is kept short on purpose (issue 16: at most five).  Programs (a file
with main(): *_main.c, smbd/process/main.c, and utils/, the admin's tools)
sit above everything.

Within a room files may use each other, but a circle of them (files that
all reach each other through calls) may hold at most MAX_CIRCLE files: a
small circle is one mechanism (a connection and its dispatcher), a larger
one is a knot to untie.

Usage: layers.py [--srcdir DIR] [--builddir DIR] [--update-known]
make check runs it as a test (BUILDDIR in the environment, the sources
found from this file's place).  Without objects in the build directory
only the includes are checked, and under make check that is a failure.
Exit status 1 on any violation, with one line per violation.
"""
import argparse
import os
import re
import subprocess
import sys

# Top to bottom.  (room, directory prefix); the longest prefix wins, so
# "smbd/" holds only what lies directly in smbd/ (smbd.h, smb2.h).
ROOMS = [
    ("utils", "utils/"),            # smbstatus, testparm, smbpasswd, ...
    ("process", "smbd/process/"),   # master, workers, listeners, reload
    ("smb2", "smbd/smb2/"),         # one file per SMB2 command family
    ("objects", "smbd/objects/"),   # opens, durable handles, ACLs, encoders
    ("conn", "smbd/conn/"),         # connections, sessions, the pipeline
    ("rpc", "smbd/rpc/"),           # IPC$ pipes, DCE/RPC, NDR
    ("auth", "smbd/auth/"),         # SPNEGO, NTLMSSP, passdb, access lists
    ("locking", "locking/"),        # the shared DBs
    ("wire", "smbd/wire/"),         # pure codecs: bytes in, structs out
    ("vfs", "vfs/"),                # the file-system layer and its modules
    ("conf", "conf/"),              # smb.conf and the parameter table
    ("msg", "smbd/msg/"),           # the inter-worker mailbox
    ("base", "smbd/"),              # smbd.h, smb2.h: shared types, constants
    ("lib", "lib/"),                # event loop, wire cursor, crypto, log
]
LEVEL = {name: i for i, (name, _) in enumerate(ROOMS)}

# Upward references that stay, each with why.  (from file, to file) for an
# include; (from file, symbol) for a call.  Keep it at five or fewer.
UPWARD = {
}

MAX_CIRCLE = 3

# C library functions the rooms do not call: why, and what to use instead.
BANNED = {
    "strcpy": "no bound; memcpy of a checked length, snprintf, talloc_strdup",
    "strcat": "no bound; snprintf, talloc_asprintf_append",
    "sprintf": "no bound; snprintf, talloc_asprintf",
    "vsprintf": "no bound; vsnprintf, talloc_vasprintf",
    "gets": "no bound at all (removed in C11); fgets",
    "strtok": "hidden static state, not thread-safe; strtok_r, strcspn",
    "strncpy": "no NUL when the source fills the bound, and NUL padding; "
               "snprintf, memcpy of a checked length",
    "atoi": "no error detection (\"12x\", overflow); strtol with checks",
    "atol": "no error detection (\"12x\", overflow); strtol with checks",
    "atoll": "no error detection (\"12x\", overflow); strtoll with checks",
    "tmpnam": "a name another process can take first; mkstemp, O_TMPFILE",
    "tempnam": "a name another process can take first; mkstemp, O_TMPFILE",
    "mktemp": "a name another process can take first; mkstemp, mkdtemp",
    "asctime": "a static buffer, not thread-safe; strftime, gmtime_r",
    "ctime": "a static buffer, not thread-safe; strftime, localtime_r",
    "gmtime": "a static struct, not thread-safe; gmtime_r",
    "localtime": "a static struct, not thread-safe; localtime_r",
    "readdir_r": "deprecated by glibc 2.24 (a fixed d_name); readdir",
    "rand": "predictable, shared state; getrandom(), lib/crypto",
    "srand": "predictable, shared state; getrandom(), lib/crypto",
    "random": "predictable, shared state; getrandom(), lib/crypto",
    "srandom": "predictable, shared state; getrandom(), lib/crypto",
}
# (file, function) -> why that use is right.  Keep it near empty.
BANNED_ALLOWED = {
}
# A call: the name, not part of a longer identifier nor a member (s.f(),
# p->f()), then "(".
BANNED_RE = re.compile(r"(?<![\w.])(?<!->)(%s)\s*\("
                       % "|".join(sorted(BANNED, key=len, reverse=True)))

# The C library's wrappers of file-system and process system calls that
# smbd/smb2/ and smbd/objects/ leave to vfs/ (issue 37 item 1): the
# handlers say what to do to a file, vfs/ says how, and maps errno once.
SYSCALLS = set("""
    open openat openat2 creat close close_range read write pread pwrite
    pread64 pwrite64 preadv pwritev preadv2 pwritev2 readv writev lseek
    lseek64 fstat fstat64 stat stat64 lstat lstat64 fstatat fstatat64
    statx fstatfs statfs fstatvfs statvfs fcntl fcntl64 ioctl flock
    ftruncate ftruncate64 truncate fallocate fallocate64 posix_fallocate
    fsync fdatasync sync_file_range futimens utimensat utimes futimes
    fchmod fchmodat chmod fchown fchownat chown lchown access faccessat
    unlink unlinkat rmdir mkdir mkdirat rename renameat renameat2 link
    linkat symlink symlinkat readlink readlinkat getxattr fgetxattr
    lgetxattr setxattr fsetxattr lsetxattr removexattr fremovexattr
    lremovexattr listxattr flistxattr llistxattr opendir fdopendir
    readdir readdir64 closedir rewinddir seekdir telldir dirfd scandir
    getdents64 copy_file_range sendfile sendfile64 splice tee vmsplice
    mmap mmap64 munmap madvise posix_fadvise posix_fadvise64 dup dup2
    dup3 pipe pipe2 fopen fdopen fclose syscall inotify_init1
    inotify_add_watch inotify_rm_watch fanotify_init fanotify_mark
    name_to_handle_at open_by_handle_at fork vfork execve execv execvp
    waitpid wait4 kill poll ppoll
""".split())
# Where SYSCALLS are checked (errno is checked in every room but these);
# smbd/wire/ too, whose codecs do no I/O at all (issue 37 item 2).
BYPASS_ROOMS = ("smb2", "objects", "wire")
ERRNO_FREE_EXCEPT = ("vfs", "lib")
# A VFS module's name in code (identifiers, not comments or strings).
MODULE_RE = re.compile(r"\b\w*?(fruit|afp|rsrc|catia|recycle|shadow)\w*",
                       re.I)
# ... and a module's own header included outside vfs/ (the neutral ones
# stand beside them: vfs/handle.h, stack_props.h, stream_policy.h,
# name_map.h, copyfile.h).
MODULE_INCLUDE_RE = re.compile(
    r'^\s*#\s*include\s+"vfs/(fruit\w*|adouble|catia|recycle|'
    r'shadow_copy2|snapper\w*|snapdir)\.h"', re.M)
KNOWN_BYPASS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "known-bypass.txt")

# The programs: their main() files, and the whole of utils/ (the admin's
# tools, which may use any room).
PROGRAM_RE = re.compile(r"(_main\.c$|^smbd/process/main\.c$|^utils/)")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(path):
    best = None
    for name, prefix in ROOMS:
        if path.startswith(prefix):
            if best is None or len(prefix) > len(best[1]):
                best = (name, prefix)
    return best[0] if best else None


def is_program(path):
    return PROGRAM_RE.search(path) is not None


def source_files(srcdir):
    out = []
    for name, prefix in ROOMS:
        top = os.path.join(srcdir, prefix)
        for dirpath, _, files in os.walk(top):
            for f in files:
                if f.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, f), srcdir)
                    if room_of(rel) == name:
                        out.append(rel)
    return sorted(set(out))


def check_includes(srcdir, files):
    bad = []
    for rel in files:
        if is_program(rel):
            continue
        with open(os.path.join(srcdir, rel), encoding="utf-8",
                  errors="replace") as fh:
            text = fh.read()
        here = room_of(rel)
        for inc in INCLUDE_RE.findall(text):
            there = room_of(inc)
            if there is None or LEVEL[there] >= LEVEL[here]:
                continue
            if (rel, inc) in UPWARD:
                continue
            bad.append("include: %s (%s) includes %s (%s), a room above it"
                       % (rel, here, inc, there))
    return bad


def code_only(text):
    """text with comments and string and character literals blanked (their
    newlines kept, so line numbers hold): prose is not code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] not in (q, "\n"):
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
        else:
            j = i + 1
            while j < n and text[j] not in "/\"'":
                j += 1
            out.append(text[i:j])
        i = j
    return "".join(out)


def check_banned(srcdir, files):
    bad = []
    for rel in files:
        with open(os.path.join(srcdir, rel), encoding="utf-8",
                  errors="replace") as fh:
            code = code_only(fh.read())
        for m in BANNED_RE.finditer(code):
            fn = m.group(1)
            if (rel, fn) in BANNED_ALLOWED:
                continue
            line = code.count("\n", 0, m.start()) + 1
            bad.append("banned: %s:%d calls %s(): %s"
                       % (rel, line, fn, BANNED[fn]))
    return bad


MK_PATH_RE = re.compile(r"(?<![\w./-])([\w./-]+\.[ch])(?![\w.])")


def mk_text(path):
    """a make fragment's text, comments dropped"""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return "".join(re.sub(r"#.*", "", line) for line in fh)


def check_build(srcdir, files):
    """the build fragments follow the rooms (see the docstring)"""
    bad = []
    dirs = sorted({prefix for _, prefix in ROOMS})

    def owner(rel):
        # the deepest directory of rel that has a fragment of its own
        best = None
        for d in dirs:
            if rel.startswith(d) and os.path.exists(
                    os.path.join(srcdir, d, "local.mk")):
                if best is None or len(d) > len(best):
                    best = d
        return best

    listed = set()
    for d in dirs:
        mk = os.path.join(d, "local.mk")
        if not os.path.exists(os.path.join(srcdir, mk)):
            bad.append("build: room directory %s has no local.mk" % d)
            continue
        for rel in MK_PATH_RE.findall(mk_text(os.path.join(srcdir, mk))):
            if rel.startswith("testsuite/"):
                continue
            if owner(rel) != d:
                bad.append("build: %s lists %s, a file of %s"
                           % (mk, rel, owner(rel) or "no room"))
            listed.add(rel)
    for rel in files:
        if rel not in listed:
            bad.append("build: %s is in no local.mk (%slocal.mk)"
                       % (rel, owner(rel)))
    fuzz_mk = os.path.join(srcdir, "testsuite", "fuzz", "local.mk")
    fuzz_dir = os.path.dirname(fuzz_mk)
    text = mk_text(fuzz_mk) if os.path.exists(fuzz_mk) else ""
    m = re.search(r"^FUZZ_TARGETS\s*=((?:.*\\\n)*.*)$", text, re.M)
    targets = set(m.group(1).replace("\\", " ").split()) if m else set()
    for f in sorted(os.listdir(fuzz_dir)):
        if not (f.startswith("fuzz_") and f.endswith(".c")):
            continue
        name = f[:-2]
        if "testsuite/fuzz/" + name not in targets:
            bad.append("build: testsuite/fuzz/%s is not in FUZZ_TARGETS "
                       "(testsuite/fuzz/local.mk)" % f)
        elif not re.search(r"^testsuite_fuzz_%s_LDFLAGS\s*=" % name, text,
                           re.M):
            bad.append("build: testsuite/fuzz/local.mk gives %s no "
                       "_LDFLAGS (libFuzzer's main)" % name)
    return bad


def nm_symbols(obj):
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(sym)
        elif kind in "TDBRGSCVW" and kind.isupper():
            defined.add(sym)
    return defined, undefined


def check_calls(srcdir, builddir, files):
    objs = {}
    for rel in files:
        if not rel.endswith(".c"):
            continue
        o = os.path.join(builddir, rel[:-2] + ".o")
        if os.path.exists(o):
            objs[rel] = o
    if not objs:
        return None
    owner = {}
    uses = {}
    for rel, o in objs.items():
        defined, undefined = nm_symbols(o)
        for sym in defined:
            owner.setdefault(sym, rel)
        uses[rel] = undefined
    bad = []
    graph = {rel: set() for rel in uses}
    for rel, undefined in sorted(uses.items()):
        if is_program(rel):
            continue
        here = room_of(rel)
        for sym in sorted(undefined):
            src = owner.get(sym)
            if src is None or is_program(src):
                continue
            if src != rel:
                graph[rel].add(src)
            there = room_of(src)
            if LEVEL[there] >= LEVEL[here] or (rel, sym) in UPWARD:
                continue
            bad.append("call: %s (%s) uses %s of %s (%s), a room above it"
                       % (rel, here, sym, src, there))
    for circle in circles(graph):
        print("layers: circle of %d in %s: %s"
              % (len(circle), "/".join(sorted({room_of(f) for f in circle})),
                 " ".join(circle)))
        if len({room_of(f) for f in circle}) > 1:
            bad.append("circle across rooms: %s" % " ".join(circle))
        if len(circle) > MAX_CIRCLE:
            bad.append("circle of %d files (at most %d): %s"
                       % (len(circle), MAX_CIRCLE, " ".join(circle)))
    return bad


def bypass_uses(srcdir, builddir, files):
    """{(file, what): count} of the uses the bypass rule counts: what is
    "syscall NAME", "errno" or "module"; None without objects."""
    uses = {}
    seen_obj = False
    for rel in files:
        room = room_of(rel)
        if rel.endswith(".c") and not is_program(rel):
            o = os.path.join(builddir, rel[:-2] + ".o")
            if os.path.exists(o):
                seen_obj = True
                _, undefined = nm_symbols(o)
                if room in BYPASS_ROOMS:
                    for sym in undefined & SYSCALLS:
                        uses[(rel, "syscall " + sym)] = 1
                if (room not in ERRNO_FREE_EXCEPT
                        and "__errno_location" in undefined):
                    uses[(rel, "errno")] = 1
        if room != "vfs":
            with open(os.path.join(srcdir, rel), encoding="utf-8",
                      errors="replace") as fh:
                text = fh.read()
                n = (len(MODULE_RE.findall(code_only(text))) +
                     len(MODULE_INCLUDE_RE.findall(text)))
            if n:
                uses[(rel, "module")] = n
    return uses if seen_obj else None


def read_known(path):
    known = {}
    if not os.path.exists(path):
        return known
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            rel, count, what = line[0], int(line[1]), " ".join(line[2:])
            known[(rel, what)] = count
    return known


def write_known(path, uses):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("# What is left of the file-system bypass (layers.py, "
                 "issue 37 item 1):\n# FILE COUNT WHAT, one per line; "
                 "the list only shrinks.  Rewrite it with\n# "
                 "testsuite/layering/layers.py --builddir BUILD "
                 "--update-known\n")
        for (rel, what), n in sorted(uses.items()):
            fh.write("%s %d %s\n" % (rel, n, what))


def check_bypass(uses, known):
    bad = []
    for key in sorted(set(uses) | set(known)):
        rel, what = key
        now, was = uses.get(key, 0), known.get(key, 0)
        if now > was:
            bad.append("bypass: %s: %s%s (vfs/ is the way to the file "
                       "system; known-bypass.txt lists %d)"
                       % (rel, what, "" if now == 1 else " x%d" % now, was))
        elif now < was:
            bad.append("bypass: %s: %s is down to %d from %d: lower "
                       "its line in known-bypass.txt" % (rel, what, now, was))
    return bad


def circles(graph):
    """The strongly connected components of more than one file (Tarjan,
    iterative: the graph has a few hundred nodes)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--srcdir",
                    default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--builddir", default=os.environ.get("BUILDDIR", "."))
    ap.add_argument("--update-known", action="store_true",
                    help="rewrite known-bypass.txt from the tree")
    args = ap.parse_args()
    files = source_files(args.srcdir)
    bad = check_includes(args.srcdir, files)
    bad += check_banned(args.srcdir, files)
    bad += check_build(args.srcdir, files)
    calls = check_calls(args.srcdir, args.builddir, files)
    if calls is None:
        print("layers: no objects in %s, calls not checked" % args.builddir)
        if "BUILDDIR" in os.environ:
            bad.append("no objects under %s (make check builds them)"
                       % args.builddir)
    else:
        bad += calls
        uses = bypass_uses(args.srcdir, args.builddir, files)
        if args.update_known:
            write_known(KNOWN_BYPASS, uses)
        bad += check_bypass(uses, read_known(KNOWN_BYPASS))
    if len(UPWARD) > 5:
        bad.append("the UPWARD table holds %d entries; issue 16 allows 5"
                   % len(UPWARD))
    for line in bad:
        print(line)
    print("layers: %d files, %d violations" % (len(files), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
