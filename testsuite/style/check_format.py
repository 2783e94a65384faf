#!/usr/bin/env python3
"""The layout of changed lines (issue 37 item 3): every line of C a commit
since BASE added or changed, in the rooms (lib/ smbd/ vfs/ conf/ locking/
utils/) and the tests (testsuite/unit, testsuite/fuzz), is laid out as
clang-format (.clang-format at the top) would lay it out.

Only changed lines are held to it: most of the tree predates the file,
and reformatting it whole would bury its history.  BASE is the commit in
testsuite/style/format-base (the commit the rule started at; it need not
move, as lines checked once stay checked).

What is compared is the spacing between tokens (`if (`, `a + b`,
`char *p`, `) {`, no space before `;`), hunk by hunk, with line breaks and
the amount of whitespace left aside; and each changed line must fit in 80
columns (tabs 8 wide).  Where a line breaks is the author's: clang-format
14 joins the early breaks the house style likes and mis-parses a
member `NTSTATUS (*fn)(...)` as a call, and the house style's tab before a
trailing comment is not expressible in it.  `git clang-format-14 BASE`
fixes what this reports (then re-break lines by hand where it joined
them).

Usage: check_format.py [--base COMMIT] [--srcdir DIR]
Exit 0 when clean, 1 with one report per hunk, 77 (SKIP) without
clang-format or outside a git checkout (a release tarball).
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys

DIRS = ("lib/", "smbd/", "vfs/", "conf/", "locking/", "utils/",
        "testsuite/unit/", "testsuite/fuzz/")
HUNK_RE = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def run(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True,
                          timeout=120, **kw)


def clang_format():
    for name in ("clang-format-14", "clang-format"):
        path = shutil.which(name)
        if path:
            return path
    return None


def changed_ranges(srcdir, base):
    """{file: [(first, last), ...]} of lines added or changed since base,
    in the working tree (a moved file's unchanged lines are not changed)."""
    out = {}
    diff = run(["git", "diff", "-M", "-U0", "--diff-filter=AMR", base,
                "--", "*.c", "*.h"], srcdir).stdout
    rel = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            rel = line[6:] if line.startswith("+++ b/") else None
            if rel is not None and not rel.startswith(DIRS):
                rel = None
            continue
        m = HUNK_RE.match(line)
        if m and rel is not None:
            first, count = int(m.group(1)), int(m.group(2) or "1")
            if count > 0:
                out.setdefault(rel, []).append((first, first + count - 1))
    return out


TOKEN_RE = re.compile(r"""
      /\*.*?\*/ | //[^\n]* | "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*'
    | [A-Za-z_0-9.]+ | \\\n
    | ->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\.\.|\#\#
    | \S""", re.S | re.X)


def tokens(lines):
    """(token, spaced) for each token of the lines: spaced is True or
    False for whether whitespace comes before it on its line, None for the
    first token of a line (where a break may be the author's)."""
    out = []
    for line in lines:
        pos, first = 0, True
        for m in TOKEN_RE.finditer(line):
            gap = line[pos:m.start()]
            pos = m.end()
            if m.group(0) == "\\\n":
                continue
            out.append((m.group(0), None if first else gap != ""))
            first = False
        if line.rstrip().endswith("\\"):
            out = [t for t in out if t[0] != "\\"]
    return out


def same_spacing(a, b):
    ta, tb = tokens(a), tokens(b)
    if [t for t, _ in ta] != [t for t, _ in tb]:
        return False
    return all(x is None or y is None or x == y
               for (_, x), (_, y) in zip(ta, tb))


def too_wide(text, ranges):
    out = []
    lines = text.splitlines()
    for first, last in ranges:
        for no in range(first, min(last, len(lines)) + 1):
            if len(lines[no - 1].expandtabs(8)) > 80:
                out.append(no)
    return out


def check_file(cf, srcdir, rel, ranges):
    path = os.path.join(srcdir, rel)
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    bad = ["%s:%d: longer than 80 columns" % (rel, no)
           for no in too_wide(text, ranges)]
    args = [cf, "--style=file", "--assume-filename=" + path]
    args += ["--lines=%d:%d" % r for r in ranges]
    res = run(args, srcdir, input=text)
    if res.returncode != 0:
        return bad + ["%s: clang-format failed: %s"
                      % (rel, res.stderr.strip())]
    before, after = text.splitlines(), res.stdout.splitlines()
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for op, b1, b2, a1, a2 in sm.get_opcodes():
        if op == "equal" or same_spacing(before[b1:b2], after[a1:a2]):
            continue
        bad.append("%s:%d: spacing differs from .clang-format's:\n%s"
                   % (rel, b1 + 1, "\n".join(
                       ["-" + l for l in before[b1:b2]] +
                       ["+" + l for l in after[a1:a2]])))
    return bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--srcdir",
                    default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--base")
    args = ap.parse_args()
    cf = clang_format()
    if cf is None:
        print("SKIP: no clang-format (Debian package clang-format)")
        return 77
    if run(["git", "rev-parse", "--git-dir"], args.srcdir).returncode != 0:
        print("SKIP: not a git checkout, no changed lines to check")
        return 77
    base = args.base
    if base is None:
        with open(os.path.join(here, "format-base"), encoding="utf-8") as fh:
            base = fh.read().split()[0]
    if run(["git", "cat-file", "-e", base + "^{commit}"],
           args.srcdir).returncode != 0:
        print("SKIP: base commit %s is not in this clone" % base)
        return 77
    bad = []
    ranges = changed_ranges(args.srcdir, base)
    for rel in sorted(ranges):
        bad += check_file(cf, args.srcdir, rel, ranges[rel])
    for b in bad:
        print(b)
    print("check_format: %d files changed since %s, %d reports"
          % (len(ranges), base[:12], len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
