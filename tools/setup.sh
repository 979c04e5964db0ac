#!/bin/sh
# Installs what trtlens needs on Debian 12. Idempotent; quiet when everything is already there.
# Runs apt-get as root (through sudo when not root).
#   tools/setup.sh          what building and running trtlens need
#   tools/setup.sh --test   also the test tools (GoogleTest, Chromium, clang for the fuzzers,
#                           the shells the capture script is tested under, Python's onnx, ...)
set -eu
PACKAGES="g++ cmake ninja-build pkg-config libre2-dev nlohmann-json3-dev libsimdjson-dev libboost-graph-dev
libgraphviz-dev libcli11-dev zlib1g-dev libsqlite3-dev nettle-dev libarchive-dev libonnx-dev libprotobuf-dev protobuf-compiler
libutf8proc-dev libmimalloc-dev"
# Hyperscan (the log screen's literal scan) is packaged for amd64; elsewhere trtlens builds without it.
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] && PACKAGES="$PACKAGES libhyperscan-dev"
TEST_PACKAGES="git ccache graphviz libgtest-dev python3 python3-onnx dash busybox shellcheck
chromium clang libclang-rt-14-dev dpkg-dev zsh fish time"
case "${1:-}" in
  "") ;;
  --test) PACKAGES="$PACKAGES $TEST_PACKAGES" ;;
  *) echo "usage: tools/setup.sh [--test]" >&2; exit 2 ;;
esac
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "tools/setup.sh: installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
