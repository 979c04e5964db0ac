#!/bin/sh
# Builds the .deb with CPack, installs it with dpkg -i (needs root), runs the installed
# binary on a fixture, checks the man page is there, then removes the package again.
# Usage: tools/deb_install_test.sh [build-dir]   (the build dir must be configured and built)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake --build "$BUILD" >/dev/null
(cd "$BUILD" && cpack -G DEB >/dev/null)
deb=""
for f in "$BUILD"/trtlens_*.deb; do deb=$f; done
[ -f "$deb" ] || { echo "cpack made no .deb" >&2; exit 1; }
echo "package: $deb"
dpkg-deb --field "$deb" Depends
if dpkg -s trtlens >/dev/null 2>&1; then
  echo "trtlens is already installed as a package; not touching it" >&2
  exit 1
fi
cleanup() { dpkg -r trtlens >/dev/null 2>&1 || true; }
trap cleanup EXIT
dpkg -i "$deb" >/dev/null
/usr/bin/trtlens --version
out=$(/usr/bin/trtlens summary fixtures/capture/build.log)
printf '%s\n' "$out" | head -n 5
printf '%s\n' "$out" | grep -q 'layers' || { echo "installed trtlens: unexpected summary" >&2; exit 1; }
test -f /usr/share/man/man1/trtlens.1 || { echo "man page not installed" >&2; exit 1; }
test -d /usr/share/trtlens/grammar || { echo "grammar files not installed" >&2; exit 1; }
dpkg -r trtlens >/dev/null
trap - EXIT
echo "deb install test: ok"
