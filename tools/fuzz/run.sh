#!/bin/sh
# Builds the fuzz targets (the asan preset's tree, where they sit beside the sanitized tests) and
# runs each for SECONDS (default 60), seeded from fixtures/. Crashes are written to
# build-asan/crashes/<target>/ and make the script fail; turn each one into a regression fixture
# under fixtures/fuzz/.
# FUZZ_TARGETS="fuzz_a fuzz_b" runs only those; FUZZ_NO_BUILD=1 skips the build (for running
# two halves side by side on two cores).
set -eu
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-60}
dir=build-asan
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan >/dev/null
fi
status=0
for target in "$dir"/tools/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  if [ -n "${FUZZ_TARGETS:-}" ]; then
    case " $FUZZ_TARGETS " in *" $name "*) ;; *) continue ;; esac
  fi
  corpus=$dir/corpus/$name
  crashes=$dir/crashes/$name
  mkdir -p "$corpus" "$crashes"
  # Seeds: every fixture (and the regression inputs of earlier crashes).
  find fixtures -type f -size -1024k -exec cp {} "$corpus"/ \; 2>/dev/null || true
  printf '%-20s ' "$name"
  if "$target" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 \
      >"$dir/$name.log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$name.log" | grep -o '[0-9]*$')
    echo "ok, ${runs:-?} executions"
  else
    echo "FAILED (see $dir/$name.log and $crashes)"
    # CI keeps only this script's output: show why, and the input that did it (base64).
    grep -E '^(==[0-9]+==|SUMMARY|ALARM|    #[0-9]+ )|out-of-memory|timeout|deadly' \
      "$dir/$name.log" | head -40 | sed 's/^/    /'
    for crash in "$crashes"/*; do
      [ -f "$crash" ] || continue
      echo "    input $(basename "$crash") ($(wc -c <"$crash") bytes), base64:"
      head -c 8192 "$crash" | base64 | sed 's/^/      /'
    done
    status=1
  fi
done
exit $status
