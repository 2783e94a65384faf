#!/usr/bin/env python3
"""The layering check (issue 16), in the spirit of Chromium's checkdeps.

The daemon's rooms are directories, stacked from the top down in ROOMS. A
file may include the headers of its own room and of the rooms below it,
never of one above.  Two ways of breaking that are checked:

  includes  every `#include "..."` of a project header in a .c or .h under
            the rooms (tests, fuzz targets and benchmarks are not rooms);
  calls     every function or object a room's object file takes from another
            room's object file (nm: undefined here, defined there), which
            also catches a handler called by name through a prototype that a
            lower header declares.

A reference that runs upward must be listed in UPWARD with its reason; the
list is kept short on purpose (issue 16: at most five).  Programs (a file
with main(): *_main.c, smbd/process/main.c) sit above everything.

Within a room files may use each other, but a circle of them (files that
all reach each other through calls) may hold at most MAX_CIRCLE files: a
small circle is one mechanism (a connection and its dispatcher), a larger
one is a knot to untie.

Usage: layers.py [--srcdir DIR] [--builddir DIR]
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
    ("process", "smbd/process/"),   # master, workers, listeners, reload
    ("smb2", "smbd/smb2/"),         # one file per SMB2 command family
    ("objects", "smbd/objects/"),   # opens, durable handles, ACLs, encoders
    ("conn", "smbd/conn/"),         # connections, sessions, the pipeline
    ("rpc", "smbd/rpc/"),           # IPC$ pipes, DCE/RPC, NDR
    ("auth", "smbd/auth/"),         # SPNEGO, NTLMSSP, passdb, access lists
    ("locking", "locking/"),        # the shared DBs
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

PROGRAM_RE = re.compile(r"(_main\.c$|^smbd/process/main\.c$)")
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
    args = ap.parse_args()
    files = source_files(args.srcdir)
    bad = check_includes(args.srcdir, files)
    calls = check_calls(args.srcdir, args.builddir, files)
    if calls is None:
        print("layers: no objects in %s, calls not checked" % args.builddir)
        if "BUILDDIR" in os.environ:
            bad.append("no objects under %s (make check builds them)"
                       % args.builddir)
    else:
        bad += calls
    if len(UPWARD) > 5:
        bad.append("the UPWARD table holds %d entries; issue 16 allows 5"
                   % len(UPWARD))
    for line in bad:
        print(line)
    print("layers: %d files, %d violations" % (len(files), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
