#!/bin/sh
# Installs everything nexus needs on a fresh Debian machine: the C++ and
# protobuf toolchain for pools, Python's grpcio and msgpack, Go modules, and
# node with the TypeScript MCP SDK client the integration tests drive.
# Safe to run again: it skips what is already there.
set -eu

# apt_install PKG... installs Debian packages, as root or through sudo.
apt_install() {
	echo "setup: installing Debian packages: $*"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

need_apt=""
# C++ pools need g++, pkg-config, gRPC for C++ and msgpack-cxx.
for pkg in protobuf-compiler libgrpc++-dev protobuf-compiler-grpc libmsgpack-cxx-dev g++ pkg-config; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
done
if [ -n "$need_apt" ]; then
	apt_install $need_apt
fi

if ! python3 -c 'import grpc, msgpack' 2>/dev/null; then
	echo "setup: installing Python packages grpcio and msgpack"
	python3 -m pip install -q grpcio msgpack
fi

go mod download

# The MCP integration tests run integration/mcpclient/client.mjs, which needs
# node and its pinned npm packages. Checked by command, not by Debian package,
# since node may come from elsewhere (e.g. a nodejs build that bundles npm).
need_apt=""
command -v node >/dev/null 2>&1 || need_apt="$need_apt nodejs"
command -v npm >/dev/null 2>&1 || need_apt="$need_apt npm"
if [ -n "$need_apt" ]; then
	apt_install $need_apt
fi

# npm ci only when the packages are missing or the lock file changed since
# they were installed (npm writes node_modules/.package-lock.json then).
mcpclient="$(dirname "$0")/../integration/mcpclient"
if [ ! -d "$mcpclient/node_modules/@modelcontextprotocol/sdk" ] ||
	[ ! -f "$mcpclient/node_modules/.package-lock.json" ] ||
	[ "$mcpclient/package-lock.json" -nt "$mcpclient/node_modules/.package-lock.json" ]; then
	echo "setup: installing the MCP test client's npm packages"
	# --silent hides npm's own error too: say where to look.
	(cd "$mcpclient" && npm ci --no-audit --no-fund --silent) || {
		echo "setup: npm ci failed in integration/mcpclient; run it there without --silent to see why" >&2
		exit 1
	}
fi
