#!/bin/sh
# Quick start on a fresh Debian 12 machine, as root: install the build
# dependencies, build, and run smbd in the foreground on a demo
# configuration: share [demo] = ./demo/share, 127.0.0.1 port 4455, user
# "demo" with password "demo" (Unix account created if missing).
# Ctrl-C stops the server.  Environment: PORT (default 4455), DEMO_DIR
# (default ./demo), SKIP_INSTALL=1 to skip apt-get.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
PORT=${PORT:-4455}
DEMO_DIR=${DEMO_DIR:-$top/demo}

if [ "$(id -u)" != 0 ]; then
	echo "quickstart: run as root (it installs packages and adds a user)" >&2
	exit 1
fi
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q build-essential autoconf automake libtool \
		pkg-config liburing-dev libtalloc-dev libtdb-dev libunwind-dev \
		libcmocka-dev libssl-dev libsmbclient-dev libsystemd-dev liblz4-dev libpam0g-dev \
		libkrb5-dev libwbclient-dev smbclient
fi
[ -x configure ] || ./autogen.sh
mkdir -p build
if [ ! -f build/Makefile ]; then
	(cd build && ../configure -q)
fi
make -C build -j"$(nproc)" >/dev/null

mkdir -p "$DEMO_DIR/share" "$DEMO_DIR/private" "$DEMO_DIR/lock" \
	"$DEMO_DIR/state" "$DEMO_DIR/cache" "$DEMO_DIR/pid" "$DEMO_DIR/log"
id demo >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin demo
chown demo "$DEMO_DIR/share"
cat > "$DEMO_DIR/smb.conf" <<CONF
# The quick start's configuration: Samba's smb.conf syntax.
[global]
	server role = standalone server
	netbios name = SMBD-NG-DEMO
	smb ports = $PORT
	interfaces = 127.0.0.1
	bind interfaces only = yes
	disable netbios = yes
	passdb backend = tdbsam
	private dir = $DEMO_DIR/private
	lock directory = $DEMO_DIR/lock
	state directory = $DEMO_DIR/state
	cache directory = $DEMO_DIR/cache
	pid directory = $DEMO_DIR/pid
	log file = $DEMO_DIR/log/log.smbd
	log level = 1
[demo]
	comment = smbd-ng demo share
	path = $DEMO_DIR/share
	read only = no
CONF
printf 'demo\ndemo\n' | build/utils/smbpasswd -c "$DEMO_DIR/smb.conf" \
	-a -s demo >/dev/null
echo "hello from smbd-ng" > "$DEMO_DIR/share/README.txt"
chown demo "$DEMO_DIR/share/README.txt"

cat <<MSG
smbd is starting on 127.0.0.1 port $PORT (Ctrl-C stops it).
Connect from another terminal with:

    smbclient //127.0.0.1/demo -p $PORT -U demo%demo -c ls

Configuration: $DEMO_DIR/smb.conf   Log: $DEMO_DIR/log/log.smbd
MSG
exec build/smbd/smbd -F --no-process-group -s "$DEMO_DIR/smb.conf"
