#!/bin/sh
# Builds the .deb with CPack, checks what it holds (size under 8 MB, a stripped binary with its
# debug information in the -dbgsym package, the ONNX module, copyright, man page, completions, a
# real maintainer), installs it as README says (`apt install ./trtlens_*.deb`, needs root), runs the
# installed binary and its bash completion, then removes the package again.
# Usage: tools/deb_install_test.sh [build-dir]   (the build dir must be configured)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
fail() { echo "deb install test: $*" >&2; exit 1; }
cmake --build "$BUILD" >/dev/null
rm -f "$BUILD"/trtlens_*.deb "$BUILD"/trtlens-dbgsym_*.ddeb
(cd "$BUILD" && cpack -G DEB >/dev/null)
deb=""
for f in "$BUILD"/trtlens_*.deb; do deb=$f; done
[ -f "$deb" ] || fail "cpack made no .deb"
size=$(wc -c < "$deb")
echo "package: $deb ($size bytes)"
[ "$size" -lt 8000000 ] || fail "the .deb is $size bytes, not under 8 MB"
dpkg-deb --field "$deb" Maintainer Depends
dpkg-deb --field "$deb" Maintainer | grep -q localhost && fail "placeholder maintainer"
dpkg-deb --field "$deb" Description | grep -q "no GPU" || fail "no long description"
# The libraries opened at run time, where dpkg-shlibdeps cannot see them.
for lib in libarchive libgvc libhyperscan zlib1g libsqlite3 libnettle libutf8proc; do
  dpkg-deb --field "$deb" Depends | grep -q "$lib" || fail "Depends does not name $lib"
done
contents=$(dpkg-deb --contents "$deb")
for f in ./usr/bin/trtlens ./usr/share/doc/trtlens/copyright ./usr/share/man/man1/trtlens.1 \
  ./usr/share/bash-completion/completions/trtlens ./usr/share/zsh/vendor-completions/_trtlens \
  ./usr/share/fish/vendor_completions.d/trtlens.fish ./usr/share/trtlens/grammar/ \
  ./usr/lib/trtlens/trtlens-onnx.so; do
  printf '%s\n' "$contents" | grep -q " $f\$" || fail "$f is not in the package"
done
dbg=""
for f in "$BUILD"/trtlens-dbgsym_*.ddeb; do dbg=$f; done
[ -f "$dbg" ] || fail "no -dbgsym package with the debug information"
# grep reads the whole list: with -q it would stop at the first match, and dpkg-deb, cut off,
# would print an error into the log of a test that passed.
dpkg-deb --contents "$dbg" | grep '/usr/lib/debug/' >/dev/null ||
  fail "the -dbgsym package holds no debug file"
# Installed, not merely known: a package removed before may have left its record behind.
if [ "$(dpkg-query -W -f='${db:Status-Status}' trtlens 2>/dev/null)" = installed ]; then
  echo "trtlens is already installed as a package; not touching it" >&2
  exit 1
fi
# Purged, not only removed: the package has a postrm (ldconfig, for the ONNX module), and a
# removal keeps its record until a purge.
cleanup() { dpkg --purge trtlens >/dev/null 2>&1 || true; }
trap cleanup EXIT
# apt resolves the libraries a laptop may lack (dpkg -i would not).
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$deb" >/dev/null
/usr/bin/trtlens --version
readelf -S /usr/bin/trtlens | grep -q '\.debug_info' && fail "the installed binary is not stripped"
out=$(/usr/bin/trtlens summary fixtures/capture/build.log)
printf '%s\n' "$out" | head -n 5
printf '%s\n' "$out" | grep -q 'layers' || fail "installed trtlens: unexpected summary"
tar=$(mktemp --suffix=.tar)
tar cf "$tar" -C fixtures capture
/usr/bin/trtlens summary "$tar" | grep -q 'capture/build.log' || fail "installed trtlens: cannot read a tar"
rm -f "$tar"
# The ONNX functions are a module the installed binary finds in ../lib/trtlens.
/usr/bin/trtlens provenance fixtures/provenance/cut_names.onnx | grep -q 'ONNX nodes' ||
  fail "installed trtlens: cannot read an ONNX model"
# zlib, SQLite and Nettle are opened by a gzip input and the store.
gz=$(mktemp --suffix=.log.gz)
gzip -c fixtures/capture/build.log > "$gz"
/usr/bin/trtlens summary "$gz" | grep -q 'layers' || fail "installed trtlens: cannot read gzip"
db=$(mktemp -u --suffix=.db)
/usr/bin/trtlens db add -q "$db" fixtures/capture/build.log >/dev/null ||
  fail "installed trtlens: cannot store a capture"
rm -f "$gz" "$db"
# Graphviz is opened when the first graph is drawn.
/usr/bin/trtlens dot --format svg fixtures/capture/build.log | grep -q '<svg' ||
  fail "installed trtlens: cannot draw a graph"
man -w trtlens >/dev/null 2>&1 || test -f /usr/share/man/man1/trtlens.1 || fail "man page not installed"
for s in EXAMPLES ENVIRONMENT 'EXIT STATUS'; do
  grep -q "^\.SH $s" /usr/share/man/man1/trtlens.1 || fail "man page has no $s section"
done
test -f /usr/share/doc/trtlens/copyright || fail "no copyright file"
got=$(bash -c '. /usr/share/bash-completion/completions/trtlens
  COMP_WORDS=(trtlens sum); COMP_CWORD=1; _trtlens; echo "${COMPREPLY[*]}"')
[ "$got" = summary ] || fail "installed bash completion gave '$got' for 'trtlens sum'"
dpkg --purge trtlens >/dev/null
trap - EXIT
echo "deb install test: ok"
