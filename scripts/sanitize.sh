#!/usr/bin/env bash
# The native tests and the fuzz corpus under AddressSanitizer + UndefinedBehaviorSanitizer.
# In the native build (build/, configured with -DATTN_SANITIZED_TESTS=ON): a copy of the libraries
# under ASan + UBSan linked with the test cases the native suite compiled (attn_tests_sanitized),
# and every fuzz harness replaying its tests/fuzz/corpus/<target>/ through a plain main (fuzz_replay_<target>; see
# tests/fuzz/replay.sh). Runs the GoogleTest binary, then the replay. Called by `npm test` (suite
# "sanitize"). Last line: "sanitize: ok, …" or "sanitize: FAILED, …"; exits non-zero on any failure.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
cd "$root"
start=$(date +%s)
fail() {
  echo "sanitize: FAILED, $1 ($(( $(date +%s) - start )) s)"
  exit 1
}

# Keeps what the native suite configured (build type, warnings); only adds the sanitized targets.
configure=(-DATTN_SANITIZED_TESTS=ON)
[[ -f "$build/CMakeCache.txt" ]] || configure+=(-DCMAKE_BUILD_TYPE=Release)
mkdir -p "$build"
cmake -S . -B "$build" "${configure[@]}" >"$build/sanitize-configure.log" 2>&1 \
  || { cat "$build/sanitize-configure.log"; fail "cmake configure (see above)"; }
cmake --build "$build" -j2 --target attn_tests_sanitized fuzz_replay 2>&1 | grep -E "error|warning: .*sanitize|Error" ;
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "build of attn_tests_sanitized/fuzz_replay"

# halt_on_error and abort_on_error make every report a failing exit; detect_leaks catches leaks.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
"$build/attn_tests_sanitized" --gtest_brief=1 2>&1 | tee "$build/attn_tests_sanitized.log" | grep -vE "^\[ *(OK|RUN) *\]"
tests_code=${PIPESTATUS[0]}
passed=$(grep -oE "\[  PASSED  \] [0-9]+" "$build/attn_tests_sanitized.log" | grep -oE "[0-9]+$" || echo 0)
[[ $tests_code -eq 0 ]] || fail "attn_tests_sanitized under ASan/UBSan (exit $tests_code)"

replay=$(bash "$root/tests/fuzz/replay.sh" "$build/fuzz_replay_{}")
replay_code=$?
echo "$replay"
[[ $replay_code -eq 0 ]] || fail "${replay##*$'\n'}"

echo "sanitize: ok, attn_tests ${passed} passed under ASan/UBSan, ${replay##*$'\n'} ($(( $(date +%s) - start )) s)"
