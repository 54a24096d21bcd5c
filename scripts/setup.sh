#!/bin/sh
# Installs everything nexus needs on a fresh Debian machine, or on macOS
# with Homebrew (docs/platforms.md): the C++ and protobuf toolchain for
# pools, Python's grpcio and msgpack, Go modules, and node with the
# TypeScript MCP SDK client the integration tests drive.
# Safe to run again: it skips what is already there.
set -eu

macos=""
[ "$(uname -s)" = Darwin ] && macos=1

# apt_install PKG... installs Debian packages, as root or through sudo.
apt_install() {
	echo "setup: installing Debian packages: $*"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# brew_install PKG... installs Homebrew formulae not installed yet.
brew_install() {
	need_brew=""
	for pkg in "$@"; do
		brew list --versions "$pkg" >/dev/null 2>&1 || need_brew="$need_brew $pkg"
	done
	[ -n "$need_brew" ] || return 0
	command -v brew >/dev/null 2>&1 || {
		echo "setup: Homebrew (https://brew.sh) is needed to install:$need_brew" >&2
		exit 1
	}
	echo "setup: installing Homebrew packages:$need_brew"
	brew install $need_brew
}

# C++ pools need a C++ compiler, pkg-config, gRPC for C++ and msgpack-cxx
# (on macOS the compiler is Xcode's command line tools' clang); the replica
# test (integration/replicas_test.go) runs HAProxy in front of nexus; the
# status page's test (integration/status_test.go) drives headless Chromium
# (on macOS, an installed Google Chrome); the metrics test
# (integration/metrics_test.go) scrapes nexus with Prometheus and checks
# its exposition with promtool.
if [ -n "$macos" ]; then
	brew_install protobuf grpc msgpack-cxx pkg-config haproxy prometheus
else
	need_apt=""
	for pkg in protobuf-compiler libgrpc++-dev protobuf-compiler-grpc libmsgpack-cxx-dev g++ pkg-config haproxy chromium prometheus; do
		dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
	done
	if [ -n "$need_apt" ]; then
		apt_install $need_apt
	fi
fi

if ! python3 -c 'import grpc, msgpack' 2>/dev/null; then
	echo "setup: installing Python packages grpcio and msgpack"
	python3 -m pip install -q grpcio msgpack
fi

go mod download

# The MCP integration tests run integration/mcpclient/client.mjs, which needs
# node and its pinned npm packages. Checked by command, not by Debian package,
# since node may come from elsewhere (e.g. a nodejs build that bundles npm).
if [ -n "$macos" ]; then
	command -v npm >/dev/null 2>&1 || brew_install node
else
	need_apt=""
	command -v node >/dev/null 2>&1 || need_apt="$need_apt nodejs"
	command -v npm >/dev/null 2>&1 || need_apt="$need_apt npm"
	if [ -n "$need_apt" ]; then
		apt_install $need_apt
	fi
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
# Other MCP servers, at pinned versions, that the tests of nexus's MCP
# client (internal/nexus/mcpsrc) call: server-everything from npm, and
# mcp-server-time and FastMCP from PyPI in a private venv (their pins,
# dependencies included, are integration/mcpservers/requirements.txt).
npm_ci "$root/integration/mcpservers" "@modelcontextprotocol/server-everything"
servers="$root/integration/mcpservers"
if [ ! -x "$servers/.venv/bin/mcp-server-time" ] || [ ! -x "$servers/.venv/bin/fastmcp" ] ||
	[ "$servers/requirements.txt" -nt "$servers/.venv/bin/mcp-server-time" ]; then
	echo "setup: installing mcp-server-time and fastmcp into integration/mcpservers/.venv"
	[ -x "$servers/.venv/bin/pip" ] || python3 -m venv "$servers/.venv" || {
		echo "setup: python3 -m venv failed (Debian needs python3-venv)" >&2
		exit 1
	}
	"$servers/.venv/bin/pip" install -q -r "$servers/requirements.txt"
	touch "$servers/.venv/bin/mcp-server-time"
fi
