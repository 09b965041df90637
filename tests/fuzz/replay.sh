#!/usr/bin/env bash
# Replays every committed corpus once (no fuzzing, no mutation): each input of
# tests/fuzz/corpus/<target>/ through that target's harness must run clean under ASan/UBSan with
# the harness's oracles (tests/fuzz/fuzz_<target>.cpp).
#   bash tests/fuzz/replay.sh [binary pattern] [target …]
# The pattern names each target's binary with {} for the target: the libFuzzer binaries of a
# campaign (default: build-fuzz/tests/fuzz/fuzz_{}), or the plain-main replays the sanitize suite
# builds (build/fuzz_replay_{}, tests/fuzz/replay_main.cpp); both take the same flags. Without
# targets, every folder under tests/fuzz/corpus/.
# Prints a line per target, then "fuzz replay: ok, N inputs of K targets in S s" or
# "fuzz replay: FAILED …" (and exits 1).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
pattern="${1:-$root/build-fuzz/tests/fuzz/fuzz_{\}}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for dir in "$root"/tests/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
# The sanitizer's own limits too, for the plain main (libFuzzer sets its own from the flags below).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}malloc_limit_mb=1100:hard_rss_limit_mb=3000"
flags=(-runs=0 -timeout=20 -rss_limit_mb=3000 -malloc_limit_mb=1100)
start=$(date +%s)
total=0
failed=()
for target in "${targets[@]}"; do
  binary="${pattern//\{\}/$target}"
  corpus="$root/tests/fuzz/corpus/$target"
  if [[ ! -x "$binary" ]]; then
    echo "fuzz replay: $target: no binary at $binary"
    failed+=("$target (no binary)")
    continue
  fi
  count=$(find "$corpus" -type f | wc -l)
  total=$((total + count))
  log="$(mktemp)"
  t0=$(date +%s)
  if "$binary" "${flags[@]}" "$corpus" >"$log" 2>&1; then
    echo "fuzz replay: $target: ok, $count inputs in $(( $(date +%s) - t0 )) s"
    rm -f "$log"
    continue
  fi
  # Name every failing input (the first failure stops the run, so replay the files one by one).
  failing=()
  while IFS= read -r -d '' file; do
    "$binary" "${flags[@]}" "$file" >/dev/null 2>&1 || failing+=("$(basename "$file")")
  done < <(find "$corpus" -type f -print0 | sort -z)
  grep -m1 -A3 -E "FUZZ FINDING|runtime error|ERROR: (AddressSanitizer|libFuzzer)|timeout on" "$log" | sed 's/^/  /'
  rm -f "$log"
  echo "fuzz replay: $target: FAILED, ${#failing[@]} of $count inputs fail: ${failing[*]}"
  failed+=("$target")
done
seconds=$(( $(date +%s) - start ))
if [[ ${#failed[@]} -eq 0 ]]; then
  echo "fuzz replay: ok, $total inputs of ${#targets[@]} targets in ${seconds} s"
  exit 0
fi
echo "fuzz replay: FAILED (${failed[*]}), $total inputs of ${#targets[@]} targets in ${seconds} s"
exit 1
