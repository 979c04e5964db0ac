#!/bin/sh
# Installs what trtlens needs to build and test on Debian 12. Idempotent; quiet when
# everything is already there. Runs apt-get as root (through sudo when not root).
set -eu
PACKAGES="g++ cmake ninja-build pkg-config git ccache libre2-dev nlohmann-json3-dev libsimdjson-dev libboost-graph-dev
libgraphviz-dev graphviz libcli11-dev libgtest-dev zlib1g-dev libsqlite3-dev libssl-dev libonnx-dev libprotobuf-dev libarchive-dev
protobuf-compiler python3 python3-onnx dash busybox shellcheck chromium clang libclang-rt-14-dev"
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
