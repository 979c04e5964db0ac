#!/bin/sh
# Runs tools/trtlens-capture under one shell against the stand-in trtexec for each emulated
# TensorRT release, checks the flags it chose, the bundle it wrote, the failure cases, and that
# the bundle (directory and .tar.gz) reads back through `trtlens summary` and `trtlens json`.
#
# usage: run_tests.sh "SHELL [ARGS]" TRTLENS_BINARY      e.g. run_tests.sh "busybox sh" build/trtlens

shell_cmd=$1
trtlens=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
script=$src/tools/trtlens-capture
fixtures=$src/fixtures/capture
TRTEXEC=$here/trtexec
export TRTEXEC
work=$(mktemp -d "${TMPDIR:-/tmp}/trtlens-capture-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

fail() {
  printf 'FAIL [%s] %s\n' "$shell_cmd" "$*"
  failures=$((failures + 1))
}
check() {  # description command...
  what=$1
  shift
  checks=$((checks + 1))
  "$@" >/dev/null 2>&1 || fail "$what"
}
capture() {  # runs the script under the shell being tested; rc in $rc
  # shellcheck disable=SC2086  # the shell command is deliberately split ("busybox sh")
  $shell_cmd "$script" "$@" >"$work/stdout" 2>"$work/stderr"
  rc=$?
}
has_line() { grep -qxF -e "$1" "$2"; }
lacks() { ! grep -qF -e "$1" "$2"; }

# Protobuf-shaped, as a real .onnx is (field 1 varint first, NULs inside).
printf '\010\007\022\004test\000' >"$work/model.onnx"
# Independent expectations, counted from the fixtures themselves.
n_layers=$(grep -c '^Layer(' "$fixtures/build.log")
n_json_layers=$(grep -c '"LayerType"' "$fixtures/layers.json")
[ "$n_layers" = "$n_json_layers" ] || fail "fixtures disagree: $n_layers log layers, $n_json_layers JSON layers"
# The extra argument carries a quote and a backslash: the manifest must escape both.
extra='--shapes=in:1x3"q\x'
extra_json='"--shapes=in:1x3\"q\\x"'

for v in 8.0.1 8.4.3 8.6.1 10.3.0 11.0.0; do
  args=$work/args-$v
  FAKE_TRT_VERSION=$v FAKE_TRT_ARGLOG=$args
  export FAKE_TRT_VERSION FAKE_TRT_ARGLOG
  capture -o "$work/out" --name "b$v" --onnx "$work/model.onnx" -- --fp16 "$extra"
  check "$v: exit code 0 (got $rc: $(tail -n 1 "$work/stderr"))" [ "$rc" = 0 ]
  b=$work/out/b$v
  major=${v%%.*}
  rest=${v#*.}
  ver=$((major * 100 + ${rest%%.*}))
  # Flags: the stand-in rejects what its release does not know, so rc 0 already says a lot;
  # these say the wanted flags were there.
  check "$v: --verbose" has_line --verbose "$args"
  check "$v: --saveEngine" grep -q -e "^--saveEngine=$b/engine.plan\$" "$args"
  check "$v: --loadEngine" grep -q -e "^--loadEngine=$b/engine.plan\$" "$args"
  check "$v: --dumpProfile" has_line --dumpProfile "$args"
  check "$v: --exportProfile" has_line "--exportProfile=$b/profile.json" "$args"
  check "$v: --exportTimes" has_line "--exportTimes=$b/times.json" "$args"
  check "$v: extra args reach trtexec" has_line "$extra" "$args"
  if [ "$ver" -ge 802 ]; then
    check "$v: --profilingVerbosity=detailed" has_line --profilingVerbosity=detailed "$args"
    check "$v: no --nvtxMode" lacks --nvtxMode "$args"
  else
    check "$v: --nvtxMode=verbose" has_line --nvtxMode=verbose "$args"
    check "$v: no --profilingVerbosity" lacks --profilingVerbosity "$args"
  fi
  if [ "$ver" -ge 804 ]; then
    check "$v: --dumpLayerInfo" has_line --dumpLayerInfo "$args"
    check "$v: --exportLayerInfo" has_line "--exportLayerInfo=$b/layers.json" "$args"
    check "$v: layers.json written" [ -s "$b/layers.json" ]
    check "$v: manifest lists layer-json" grep -q '"path": "layers.json", "kind": "layer-json"' "$b/manifest.json"
  else
    check "$v: no --dumpLayerInfo" lacks LayerInfo "$args"
    check "$v: no layers.json" [ ! -e "$b/layers.json" ]
  fi
  if [ "$ver" -lt 1100 ]; then
    check "$v: --separateProfileRun" has_line --separateProfileRun "$args"
  else
    check "$v: no --separateProfileRun" lacks --separateProfileRun "$args"
  fi
  # The bundle.
  for f in build.log runtime.log profile.json times.json manifest.json env/uname.txt env/trtexec-help.txt; do
    check "$v: $f in the bundle" [ -s "$b/$f" ]
  done
  check "$v: engine not kept" [ ! -e "$b/engine.plan" ]
  check "$v: archive next to the directory" [ -s "$work/out/b$v.tar.gz" ]
  check "$v: manifest version" grep -q "\"trt_version\": \"$v\"" "$b/manifest.json"
  check "$v: manifest status" grep -q '"status": "ok"' "$b/manifest.json"
  check "$v: manifest escapes the extra argument" grep -qF -e "$extra_json" "$b/manifest.json"
  size=$(wc -c <"$b/build.log" | tr -d ' ')
  check "$v: manifest size of build.log" grep -q "\"path\": \"build.log\", \"kind\": \"build-log\", \"size\": $size," "$b/manifest.json"
  sum=$(sha256sum "$b/build.log" | cut -d ' ' -f 1)
  check "$v: manifest sha256 of build.log" grep -q "\"sha256\": \"$sum\"" "$b/manifest.json"
  check "$v: both runs exit 0" [ "$(grep -c '"exit_code": 0' "$b/manifest.json")" = 2 ]
  if command -v python3 >/dev/null 2>&1; then
    check "$v: manifest is valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$b/manifest.json"
  fi

  # Round trip: the directory and the archive read back.
  for input in "$b" "$work/out/b$v.tar.gz"; do
    "$trtlens" json "$input" >"$work/json" 2>"$work/err"
    check "$v: trtlens json $input exits 0 ($(head -n 1 "$work/err"))" [ $? = 0 ]
    got=$(grep -c '"type":' "$work/json")
    check "$v: $input has $n_layers layers (got $got)" [ "$got" = "$n_layers" ]
    check "$v: $input keeps the seed's tactic" grep -q '"tactic": "0x02d9f5211e4d2d82"' "$work/json"
    check "$v: $input version from the log" grep -q "\"trt_version\": \"$v\"" "$work/json"
    if [ "$ver" -ge 804 ]; then
      check "$v: $input layer JSON enriched the log's layers" grep -q handmade_int8_fprop_3x3_tile128x64 "$work/json"
    fi
    "$trtlens" summary "$input" >"$work/summary" 2>"$work/err"
    check "$v: trtlens summary $input exits 0" [ $? = 0 ]
    check "$v: summary names a layer" grep -q 'CaskConvolution' "$work/summary"
  done
done
unset FAKE_TRT_ARGLOG
FAKE_TRT_VERSION=8.6.1
export FAKE_TRT_VERSION

# --loadEngine: one run that also dumps the layer information; --keep-engine copies the engine.
printf 'engine bytes\n' >"$work/model.plan"
capture -o "$work/out" --name fromengine --keep-engine --loadEngine "$work/model.plan"
check "loadEngine: exit 0" [ "$rc" = 0 ]
check "loadEngine: no build log" [ ! -e "$work/out/fromengine/build.log" ]
check "loadEngine: layers.json from the runtime run" [ -s "$work/out/fromengine/layers.json" ]
check "loadEngine: engine kept" cmp "$work/model.plan" "$work/out/fromengine/engine.plan"
check "loadEngine: engine listed" grep -q '"path": "engine.plan", "kind": "engine"' "$work/out/fromengine/manifest.json"
"$trtlens" json "$work/out/fromengine" >"$work/json" 2>/dev/null
check "loadEngine: round trip" [ "$(grep -c '"type":' "$work/json")" = "$n_layers" ]

# Environment tools (stand-ins for nvidia-smi, tegrastats and QNX pidin) are recorded.
saved_path=$PATH
PATH=$here/bin:$PATH
capture -o "$work/out" --name env --no-profile --onnx "$work/model.onnx"
PATH=$saved_path
check "env: exit 0" [ "$rc" = 0 ]
check "env: nvidia-smi -q" grep -q 'Driver Version' "$work/out/env/env/nvidia-smi.txt"
check "env: one tegrastats sample" [ "$(grep -c '^RAM ' "$work/out/env/env/tegrastats.txt")" = 1 ]
check "env: pidin info" grep -q 'Release:7.1.0' "$work/out/env/env/pidin-info.txt"
for f in nvidia-smi.txt tegrastats.txt pidin-info.txt uname.txt; do
  check "env: manifest lists $f" grep -q "\"path\": \"env/$f\", \"kind\": \"env\"" "$work/out/env/manifest.json"
done
# Control characters in arguments are escaped too (tab, newline).
tabbed=$(printf '%s\t%s\n%s' --shapes=a b c)
capture -o "$work/out" --name ctl --no-profile --onnx "$work/model.onnx" -- "$tabbed"
check "control characters: exit 0" [ "$rc" = 0 ]
check "control characters: escaped" grep -qF '"--shapes=a\tb\nc"' "$work/out/ctl/manifest.json"
if command -v python3 >/dev/null 2>&1; then
  check "control characters: valid JSON with the same argument" python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["runs"][0]["argv"][-1] == "--shapes=a\tb\nc"' "$work/out/ctl/manifest.json"
fi

# A backslash in the output path: GNU sha256sum would prefix its line with '\' for such a
# file name; the manifest must stay valid JSON with plain hex checksums.
mkdir -p "$work/back\\slash"
capture -o "$work/back\\slash" --name bs --no-profile --onnx "$work/model.onnx"
check "backslash path: exit 0" [ "$rc" = 0 ]
check "backslash path: hex checksums" grep -qE '"sha256": "[0-9a-f]{64}"' "$work/back\\slash/bs/manifest.json"
check "backslash path: every checksum plain hex" [ "$(grep -c '"sha256": "[0-9a-f]\{64\}"' "$work/back\\slash/bs/manifest.json")" = "$(grep -c '"sha256"' "$work/back\\slash/bs/manifest.json")" ]
if command -v python3 >/dev/null 2>&1; then
  check "backslash path: valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/back\\slash/bs/manifest.json"
fi

# A trtexec whose --help has no banner: flags come from its option list.
FAKE_TRT_NOBANNER=1 FAKE_TRT_ARGLOG=$work/args-nobanner
export FAKE_TRT_NOBANNER FAKE_TRT_ARGLOG
capture -o "$work/out" --name nobanner --onnx "$work/model.onnx"
check "no banner: exit 0" [ "$rc" = 0 ]
check "no banner: says so" grep -q 'could not read the TensorRT version' "$work/stderr"
check "no banner: still --exportLayerInfo" grep -q '^--exportLayerInfo=' "$work/args-nobanner"
unset FAKE_TRT_NOBANNER FAKE_TRT_ARGLOG

# --no-profile: the build only.
capture -o "$work/out" --name noprof --no-profile --onnx "$work/model.onnx"
check "no-profile: exit 0" [ "$rc" = 0 ]
check "no-profile: no runtime log" [ ! -e "$work/out/noprof/runtime.log" ]

# Failure: the build fails. Partial log kept, exit code recorded, non-zero exit.
FAKE_TRT_FAIL=build
export FAKE_TRT_FAIL
capture -o "$work/out" --name failbuild --onnx "$work/model.onnx"
check "failing build: non-zero exit" [ "$rc" != 0 ]
check "failing build: says so" grep -q 'build failed with exit code 1' "$work/stderr"
check "failing build: partial log kept" grep -q 'Engine could not be created' "$work/out/failbuild/build.log"
check "failing build: no profiling run" [ ! -e "$work/out/failbuild/runtime.log" ]
check "failing build: status" grep -q '"status": "failed"' "$work/out/failbuild/manifest.json"
check "failing build: exit code recorded" grep -q '"role": "build", "log": "build.log", "exit_code": 1,' "$work/out/failbuild/manifest.json"
"$trtlens" json "$work/out/failbuild.tar.gz" >"$work/json" 2>/dev/null
check "failing build: trtlens reports the failed run" grep -q 'build run exited with code 1' "$work/json"

FAKE_TRT_FAIL=runtime
capture -o "$work/out" --name failrun --onnx "$work/model.onnx"
check "failing profiling run: non-zero exit" [ "$rc" != 0 ]
check "failing profiling run: partial log kept" grep -q 'out of memory' "$work/out/failrun/runtime.log"
check "failing profiling run: exit code recorded" grep -q '"role": "runtime", "log": "runtime.log", "exit_code": 1,' "$work/out/failrun/manifest.json"
unset FAKE_TRT_FAIL

# Failure: no trtexec anywhere.
mkdir "$work/emptybin"
(
  unset TRTEXEC
  PATH=$work/emptybin:/usr/bin:/bin
  # shellcheck disable=SC2086
  $shell_cmd "$script" -o "$work/out" --onnx "$work/model.onnx" >"$work/stdout" 2>"$work/stderr"
  echo $? >"$work/rc"
)
if [ -x /usr/src/tensorrt/bin/trtexec ] || command -v trtexec >/dev/null 2>&1; then
  echo "note: a real trtexec is installed; skipping the no-trtexec case"
else
  check "no trtexec: exit 2" [ "$(cat "$work/rc")" = 2 ]
  check "no trtexec: says so" grep -q 'trtexec not found' "$work/stderr"
fi
TRTEXEC=$work/model.onnx
capture -o "$work/out" --onnx "$work/model.onnx"
TRTEXEC=$here/trtexec
check "TRTEXEC not executable: exit 2" [ "$rc" = 2 ]
check "TRTEXEC not executable: says so" grep -q 'is not an executable' "$work/stderr"

# Failure: unwritable output directory (/proc refuses new entries even to root), and a path
# through a regular file.
capture -o /proc --name x --onnx "$work/model.onnx"
check "unwritable output: exit 2" [ "$rc" = 2 ]
check "unwritable output: says so" grep -q 'cannot write to output directory' "$work/stderr"
capture -o "$work/model.onnx/sub" --onnx "$work/model.onnx"
check "output under a file: exit 2" [ "$rc" = 2 ]
check "output under a file: says so" grep -q 'cannot create output directory' "$work/stderr"
capture -o "$work/out" --name b8.6.1 --onnx "$work/model.onnx"
check "existing bundle: refused" [ "$rc" = 2 ]
capture -o "$work/out"
check "no model: usage error" [ "$rc" = 2 ]
capture --bogus
check "unknown option: usage error" [ "$rc" = 2 ]

echo "[$shell_cmd] $checks checks, $failures failed"
[ "$failures" = 0 ]
