#!/bin/sh
# smbpasswd end to end against Samba's own tools: accounts our smbpasswd
# writes are listed by Samba's pdbedit with the right flags, and Samba's
# smbd (on a free loopback port) accepts the password through smbclient;
# accounts Samba's smbpasswd writes are modified by ours; Samba's messages
# and exit codes for the error cases.  Skipped (77) unless root with
# Samba's smbd, pdbedit and smbclient installed.
# Run by automake in the build dir (./utils/smbpasswd).
set -u
ours=./utils/smbpasswd
for t in /usr/sbin/smbd /usr/bin/pdbedit /usr/bin/smbclient; do
	[ -x "$t" ] || { echo "SKIP: $t missing (apt-get install samba smbclient)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (Samba's tools edit passdb.tdb as root)"; exit 77; }
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/err" ] && cat "$tmp/err"
	exit 1
}
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/private" "$tmp/share"
cat >"$tmp/smb.conf" <<EOT
[global]
	netbios name = TESTSRV
	passdb backend = tdbsam
	private dir = $tmp/private
	lock directory = $tmp
	state directory = $tmp
	cache directory = $tmp
	pid directory = $tmp
	log file = $tmp/log.smbd
	smb ports = $port
	interfaces = 127.0.0.1
	bind interfaces only = yes
	disable netbios = yes
[share]
	path = $tmp/share
EOT
conf=$tmp/smb.conf

printf 'Secr3t\nSecr3t\n' | $ours -c "$conf" -a -s root >"$tmp/out" 2>"$tmp/err" || fail "add root: exit $?"
grep -qx "Added user root." "$tmp/out" || fail "no 'Added user' line"
printf 'a\nb\n' | $ours -c "$conf" -a -s daemon >"$tmp/out" 2>"$tmp/err" && fail "mismatch accepted"
grep -q "Mismatch - password unchanged." "$tmp/err" || fail "no mismatch message"
printf 'a\na\n' | $ours -c "$conf" -a -s no_such_unix_user_x >/dev/null 2>"$tmp/err" && fail "user without Unix account added"
grep -q "Failed to add entry for user no_such_unix_user_x." "$tmp/err" || fail "no failed-add message"
printf 'pw\npw\n' | $ours -c "$conf" -a -s daemon >/dev/null 2>"$tmp/err" || fail "add daemon"
$ours -c "$conf" -d daemon >"$tmp/out" 2>"$tmp/err" || fail "disable"
grep -qx "Disabled user daemon." "$tmp/out" || fail "no 'Disabled user' line"
$ours -c "$conf" -e nosuch >/dev/null 2>"$tmp/err" && fail "enable of unknown user"
grep -q "Failed to find user nosuch in passdb backend." "$tmp/err" || fail "no find failure"

/usr/bin/pdbedit -L -w -s "$conf" >"$tmp/list" 2>"$tmp/err" || fail "pdbedit -L: exit $?"
grep -q '^root:0:.*:[0-9A-F]\{32\}:\[U' "$tmp/list" || fail "pdbedit does not list root: $(cat "$tmp/list")"
grep -q '^daemon:.*\[DU' "$tmp/list" || fail "pdbedit does not see daemon disabled"

/usr/sbin/smbd -F -s "$conf" >"$tmp/smbd.out" 2>&1 &
pid=$!
ok=
for i in 1 2 3 4 5 6 7 8 9 10; do
	timeout 10 /usr/bin/smbclient -s "$conf" -p "$port" //127.0.0.1/share \
		-U root%Secr3t -c 'ls' >"$tmp/out" 2>&1 && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || fail "Samba's smbd refused our password: $(cat "$tmp/out")"
timeout 10 /usr/bin/smbclient -s "$conf" -p "$port" //127.0.0.1/share \
	-U root%wrong -c 'ls' >"$tmp/out" 2>&1 && fail "wrong password accepted"
grep -q LOGON_FAILURE "$tmp/out" || fail "no LOGON_FAILURE: $(cat "$tmp/out")"

# Samba writes, ours modifies, Samba reads back.
printf 'pw2\npw2\n' | /usr/bin/smbpasswd -c "$conf" -a -s bin >/dev/null 2>&1 || fail "Samba's smbpasswd -a bin"
$ours -c "$conf" -d bin >/dev/null 2>"$tmp/err" || fail "disable Samba-made user"
/usr/bin/pdbedit -L -w -s "$conf" 2>/dev/null | grep -q '^bin:.*\[DU' || fail "Samba does not see bin disabled"
$ours -c "$conf" -x bin >"$tmp/out" 2>"$tmp/err" || fail "delete"
grep -qx "Deleted user bin." "$tmp/out" || fail "no 'Deleted user' line"
/usr/bin/pdbedit -L -s "$conf" 2>/dev/null | grep -q '^bin:' && fail "bin still listed"
echo "PASS"
exit 0
