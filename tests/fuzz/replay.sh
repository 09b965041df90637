#!/usr/bin/env bash
# Replays tests/fuzz/corpus/ once through a build of the harness (no fuzzing, no mutation): every
# input must run clean under ASan/UBSan with the harness's oracles (tests/fuzz/fuzz_attend.cpp).
# The binary is the libFuzzer one of a fuzzing campaign, or fuzz_replay (the harness with a plain
# main, tests/fuzz/replay_main.cpp) that the sanitize suite builds; both take the same flags.
#   bash tests/fuzz/replay.sh [path/to/binary]     (default: build-asan/tests/fuzz/fuzz_attend)
# Prints one line: "fuzz replay: ok, N inputs in S s" or "fuzz replay: FAILED …" (and exits 1).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="${1:-$root/build-asan/tests/fuzz/fuzz_attend}"
corpus="$root/tests/fuzz/corpus"
if [[ ! -x "$binary" ]]; then
  echo "fuzz replay: FAILED, no fuzz binary at $binary (build with -DATTN_BUILD_FUZZ=ON)"
  exit 1
fi
count=$(find "$corpus" -type f | wc -l)
# The sanitizer's own limits too, for the plain main (libFuzzer sets its own from the flags below).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}malloc_limit_mb=1100:hard_rss_limit_mb=3000"
log="$(mktemp)"
start=$(date +%s)
# -runs=0 executes each corpus file once; the limits turn hangs and huge allocations into failures.
"$binary" -runs=0 -timeout=20 -rss_limit_mb=3000 -malloc_limit_mb=1100 "$corpus" >"$log" 2>&1
code=$?
seconds=$(( $(date +%s) - start ))
if [[ $code -eq 0 ]]; then
  echo "fuzz replay: ok, $count inputs in ${seconds} s"
  rm -f "$log"
  exit 0
fi
# Name every failing input (the first failure stops libFuzzer, so replay the files one by one).
failing=()
while IFS= read -r -d '' file; do
  "$binary" -timeout=20 -rss_limit_mb=3000 -malloc_limit_mb=1100 "$file" >/dev/null 2>&1 || failing+=("$(basename "$file")")
done < <(find "$corpus" -type f -print0 | sort -z)
grep -m1 -A3 -E "FUZZ FINDING|runtime error|ERROR: (AddressSanitizer|libFuzzer)" "$log" | sed 's/^/  /'
rm -f "$log"
echo "fuzz replay: FAILED, ${#failing[@]} of $count inputs fail: ${failing[*]}"
exit 1
