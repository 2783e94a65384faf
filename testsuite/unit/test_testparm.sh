#!/bin/sh
# testparm end to end: -s on a good file exits 0 and dumps it; a bad value
# exits 1 naming file and line; --parameter-name/--section-name/--option;
# every parameter testparm knows is documented in man/smb.conf.5.
# Run by automake in the build dir (./utils/testparm), sources in $srcdir.
set -u
tp=./utils/testparm
srcdir=${srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/err" ] && cat "$tmp/err"
	exit 1
}

cat >"$tmp/good.conf" <<EOT
[global]
	workgroup = test
	unknown thing = 1
[data]
	path = $tmp
	read only = no
EOT
$tp -s "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" || fail "good file: exit $?"
grep -q "Load smb config files from $tmp/good.conf" "$tmp/err" || fail "no Load line"
grep -q "Loaded services file OK." "$tmp/err" || fail "no OK line"
grep -q "good.conf:3.*unknown thing" "$tmp/err" || fail "no unknown warning"
grep -q '^\[data\]$' "$tmp/out" || fail "no [data] in dump"
grep -q '^	workgroup = TEST$' "$tmp/out" || fail "no workgroup in dump"
grep -q "Press enter" "$tmp/err" && fail "prompt despite -s"

# the dump loads back and dumps the same
$tp -s "$tmp/out" >"$tmp/out2" 2>"$tmp/err" || fail "dump does not load"
cmp -s "$tmp/out" "$tmp/out2" || fail "dump round trip differs"

# without -s it prompts and reads a line from stdin
echo | $tp "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" || fail "prompt run"
grep -q "Press enter" "$tmp/err" || fail "no prompt"

printf '[global]\n# comment\n\tmax log size = lots\n' >"$tmp/bad.conf"
$tp -s "$tmp/bad.conf" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "bad value: exit $rc, expected 1"
grep -q "bad.conf:3.*max log size" "$tmp/err" || fail "bad value: line not named"

# the thread pool's bounds (lib/tpool.h): refused, naming the parameter
printf '[global]\n\tsmbd pool max threads = 5000\n' >"$tmp/pool.conf"
$tp -s "$tmp/pool.conf" >"$tmp/out" 2>"$tmp/err" && fail "pool max 5000: exit 0"
grep -q "smbd pool max threads must be 1 to 1024" "$tmp/err" || fail "pool max: not named"
printf '[global]\n[d]\n\tpath = /tmp\n\tsmbd pool threads per share = 0\n' >"$tmp/pool.conf"
$tp -s "$tmp/pool.conf" >"$tmp/out" 2>"$tmp/err" && fail "share lane 0: exit 0"
grep -q "\[d\]: smbd pool threads per share must be 1 to 1024" "$tmp/err" || fail "share lane: not named"
printf '[global]\n\tsmbd pool max threads = 8\n[d]\n\tpath = /tmp\n\tsmbd pool threads per share = 2\n' >"$tmp/pool.conf"
$tp -s "$tmp/pool.conf" >"$tmp/out" 2>"$tmp/err" || fail "pool numbers in range: exit $?"

printf '[global]\nthis is not valid\n' >"$tmp/bad2.conf"
$tp -s "$tmp/bad2.conf" >"$tmp/out" 2>"$tmp/err" && fail "bad line: exit 0"
grep -q "bad2.conf:2" "$tmp/err" || fail "bad line: line not named"

$tp -s /nonexistent/smb.conf >"$tmp/out" 2>"$tmp/err" && fail "missing file: exit 0"

v=$($tp -s --parameter-name="read only" --section-name=data "$tmp/good.conf" 2>"$tmp/err")
[ "$v" = "No" ] || fail "--parameter-name read only: '$v'"
v=$($tp -s --parameter-name=writeable --section-name=data "$tmp/good.conf" 2>"$tmp/err")
v=$($tp -s --option="workgroup=cmd" --parameter-name=workgroup "$tmp/good.conf" 2>"$tmp/err")
[ "$v" = "CMD" ] || fail "--option: '$v'"
v=$($tp -s --option "server max protocol=SMB2" --parameter-name="max protocol" "$tmp/good.conf" 2>"$tmp/err")
[ "$v" = "SMB2_10" ] || fail "--option (separate arg): '$v'"
$tp -s --option="bogus=1" "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" && fail "bad --option: exit 0"
$tp -s --parameter-name=nosuch "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" && fail "unknown --parameter-name: exit 0"

# --section-name alone dumps that section only
$tp -s --section-name=DATA "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" || fail "--section-name"
grep -q '^\[data\]$' "$tmp/out" || fail "--section-name: no [data]"
grep -q 'global' "$tmp/out" && fail "--section-name: [global] dumped"
$tp -s --section-name=nosuch "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" && fail "unknown section: exit 0"

# -v shows defaults
$tp -s -v "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" || fail "-v"
grep -q '^	smbd io backend = io_uring$' "$tmp/out" || fail "-v: no defaults"

# Samba's parameters we lack are "not supported by this server"
printf '[global]\n\tlogging = file\n\tusershare path = /x\n\tncalrpc dir = /y\n\tfrob = 1\n' >"$tmp/samba.conf"
$tp -s "$tmp/samba.conf" >"$tmp/out" 2>"$tmp/err" || fail "samba params: exit $?"
for n in logging "usershare path" "ncalrpc dir"; do
	grep -q "parameter \"$n\" is not supported by this server" "$tmp/err" ||
		fail "$n: not reported as not supported"
done
grep -q 'unknown parameter "frob"' "$tmp/err" || fail "frob: not unknown"
grep -q 'unknown parameter "logging"' "$tmp/err" && fail "logging: unknown"

# include is kept in the dump, after what it brought in
printf 'server string = from include\n' >"$tmp/inc.conf"
printf 'comment = from include 2\n' >"$tmp/inc2.conf"
printf '[global]\n\tinclude = %s\n[data]\n\tpath = %s\n\tinclude = %s\n' \
	"$tmp/inc.conf" "$tmp" "$tmp/inc2.conf" >"$tmp/withinc.conf"
$tp -s "$tmp/withinc.conf" >"$tmp/out" 2>"$tmp/err" || fail "include: exit $?"
grep -q "^	include = $tmp/inc.conf\$" "$tmp/out" || fail "include not in dump"
grep -q '^	server string = from include$' "$tmp/out" || fail "include not read"
grep -q "^	include = $tmp/inc2.conf\$" "$tmp/out" || fail "share include not in dump"
$tp -s --option="include=$tmp/inc.conf" "$tmp/good.conf" >"$tmp/out" 2>"$tmp/err" &&
	fail "--option include: exit 0"

# --show-unsupported lists the compatibility-only parameters, each one
# documented as such; a file setting them gets one warning each
$tp --show-all-parameters >"$tmp/params0" || fail "--show-all-parameters"
$tp --show-unsupported >"$tmp/unsup" || fail "--show-unsupported"
[ "$(wc -l <"$tmp/unsup")" -gt 5 ] || fail "--show-unsupported: too few"
grep -q '^socket options (global)$' "$tmp/unsup" || fail "no socket options"
grep -q '^realm ' "$tmp/unsup" && fail "realm is used (NTLMSSP target info)"
grep -q '^printable ' "$tmp/unsup" && fail "printable is used"
[ "$(grep -c ',COMPAT$' "$tmp/params0")" -eq "$(wc -l <"$tmp/unsup")" ] ||
	fail "--show-unsupported and --show-all-parameters COMPAT differ"
while IFS= read -r line; do
	name=${line% (*}
	awk -v n="\\\\fB$name\\\\fR (" 'index($0, n) == 1 {f = 1; next}
		f && /^\.TP/ {exit} f && /Accepted for compatibility; no effect yet/ {ok = 1}
		END {exit !ok}' "$srcdir/man/smb.conf.5" ||
		fail "$name: not documented as accepted for compatibility"
done <"$tmp/unsup"
printf '[global]\n\tkernel oplocks = no\n\tsocket options = TCP_NODELAY\n[d]\n\tpath = /d\n\tkernel oplocks = yes\n' >"$tmp/compat.conf"
$tp -s "$tmp/compat.conf" >"$tmp/out" 2>"$tmp/err" || fail "compat: exit $?"
[ "$(grep -c 'accepted for compatibility and has no effect yet' "$tmp/err")" -eq 2 ] ||
	fail "compat: not one warning per parameter"

# conf/samba_params.c is what conf/gen-samba-params.sh makes from the
# installed Samba 4.17 testparm (when there is one)
if [ -x /usr/bin/testparm ] && /usr/bin/testparm -V 2>/dev/null | grep -q '^Version 4\.17\.'; then
	sh "$srcdir/conf/gen-samba-params.sh" /usr/bin/testparm >"$tmp/sp.c" ||
		fail "gen-samba-params.sh"
	cmp -s "$tmp/sp.c" "$srcdir/conf/samba_params.c" ||
		fail "conf/samba_params.c differs from Samba's testparm"
fi

# every parameter is documented
$tp --show-all-parameters >"$tmp/params" || fail "--show-all-parameters"
[ "$(wc -l <"$tmp/params")" -gt 90 ] || fail "too few parameters"
missing=""
while IFS='=' read -r name rest; do
	grep -qF "\\fB$name\\fR (" "$srcdir/man/smb.conf.5" || missing="$missing '$name'"
done <"$tmp/params"
[ -z "$missing" ] || fail "not in man/smb.conf.5:$missing"
echo "PASS: testparm"
exit 0
