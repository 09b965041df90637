#!/usr/bin/env bash
# The native tests and the fuzz corpus under AddressSanitizer + UndefinedBehaviorSanitizer.
# Configures build-asan/ with clang, -DATTN_SANITIZE=address,undefined and the libFuzzer target,
# builds attn_tests and fuzz_attend (-j2), runs the GoogleTest binary, then replays
# tests/fuzz/corpus/ once (tests/fuzz/replay.sh). Called by `npm test` (suite "sanitize").
# Last line: "sanitize: ok, …" or "sanitize: FAILED, …"; exits non-zero on any failure.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-asan"
cd "$root"
start=$(date +%s)
fail() {
  echo "sanitize: FAILED, $1 ($(( $(date +%s) - start )) s)"
  exit 1
}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  # The core at -O1 with line tables (readable reports, quick to compile), the test files at -O0.
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTN_SANITIZE=address,undefined \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DATTN_TEST_OPTIMIZE="-O0" \
    -DATTN_BUILD_FUZZ=ON -DATTN_BUILD_DEMO=OFF -DATTN_BUILD_TESTS=ON >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; fail "cmake configure (see above)"; }
fi
cmake --build "$build" -j2 --target attn_tests fuzz_attend 2>&1 | grep -E "error|warning: .*sanitize|Error" ;
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "build of attn_tests/fuzz_attend"

# halt_on_error and abort_on_error make every report a failing exit; detect_leaks catches leaks.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
"$build/attn_tests" --gtest_brief=1 2>&1 | tee "$build/attn_tests.log" | grep -vE "^\[ *(OK|RUN) *\]"
tests_code=${PIPESTATUS[0]}
passed=$(grep -oE "\[  PASSED  \] [0-9]+" "$build/attn_tests.log" | grep -oE "[0-9]+$" || echo 0)
[[ $tests_code -eq 0 ]] || fail "attn_tests under ASan/UBSan (exit $tests_code)"

replay=$(bash "$root/tests/fuzz/replay.sh" "$build/tests/fuzz/fuzz_attend")
replay_code=$?
echo "$replay"
[[ $replay_code -eq 0 ]] || fail "${replay##*$'\n'}"

echo "sanitize: ok, attn_tests ${passed} passed under ASan/UBSan, ${replay##*$'\n'} ($(( $(date +%s) - start )) s)"
