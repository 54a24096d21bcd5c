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

# npm_ci DIR MARKER installs DIR's pinned npm packages, only when MARKER (a
# package folder) is missing or the lock file changed since they were
# installed (npm writes node_modules/.package-lock.json then).
npm_ci() {
	if [ ! -d "$1/node_modules/$2" ] ||
		[ ! -f "$1/node_modules/.package-lock.json" ] ||
		[ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
		echo "setup: installing the npm packages of ${1#"$root"/}"
		# --silent hides npm's own error too: say where to look.
		(cd "$1" && npm ci --no-audit --no-fund --silent) || {
			echo "setup: npm ci failed in $1; run it there without --silent to see why" >&2
			exit 1
		}
	fi
}

root="$(cd "$(dirname "$0")/.." && pwd)"
# The TypeScript SDK client the MCP integration tests drive servers with.
npm_ci "$root/integration/mcpclient" "@modelcontextprotocol/sdk"
# The MCP conformance suite (it brings its own Node 22 as a package).
npm_ci "$root/integration/conformance" "@modelcontextprotocol/conformance"
