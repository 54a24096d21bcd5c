#!/bin/sh
# Installs everything nexus needs on a fresh Debian machine: the C++ and
# protobuf toolchain for pools, Python's grpcio and msgpack, and Go modules.
# Safe to run again: it skips what is already there.
set -eu

need_apt=""
# C++ pools need g++, pkg-config, gRPC for C++ and msgpack-cxx.
for pkg in protobuf-compiler libgrpc++-dev protobuf-compiler-grpc libmsgpack-cxx-dev g++ pkg-config; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
done
if [ -n "$need_apt" ]; then
	echo "setup: installing Debian packages:$need_apt"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_apt >/dev/null
fi

if ! python3 -c 'import grpc, msgpack' 2>/dev/null; then
	echo "setup: installing Python packages grpcio and msgpack"
	python3 -m pip install -q grpcio msgpack
fi

go mod download
