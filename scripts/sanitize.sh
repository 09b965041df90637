#!/usr/bin/env bash
# The native tests and the fuzz corpus under AddressSanitizer + UndefinedBehaviorSanitizer.
# In the native build (build/, configured with -DATTN_SANITIZED_TESTS=ON): a copy of the libraries
# under ASan + UBSan linked with the test cases the native suite compiled (attn_tests_sanitized),
# and every fuzz harness replaying its tests/fuzz/corpus/<target>/ through a plain main (fuzz_replay_<target>; see
# tests/fuzz/replay.sh), and the threaded tests under ThreadSanitizer (attn_tests_tsan). Runs the
# GoogleTest binary, then the replay, then TSan. Called by `npm test` (suite
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
cmake --build "$build" -j2 --target attn_tests_sanitized fuzz_replay attn_tests_tsan 2>&1 | grep -E "error|warning: .*sanitize|Error" ;
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "build of attn_tests_sanitized/fuzz_replay/attn_tests_tsan"

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

# ThreadSanitizer: the pool on 2, 3 and 5 threads and the model's threaded paths on the default
# count (attn_tests_tsan, see CMakeLists.txt), without the three slowest cases (training to
# convergence, the training cap's big model, the capture cap: ~40 s more under TSan, nothing
# threaded that the others do not run).
tsan_skip="GptTrainer.AttentionOnlyTwoLayersLearnsToReverse:GptTraining.AModelAboveTheTrainingCapRunsButRefusesToStepNamingTheCap"
tsan_skip+=":CachedSequence.CaptureIsWhatIsAskedForAndGuardedByItsCap:*Speed*"
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" "$build/attn_tests_tsan" --gtest_brief=1 --gtest_filter="-$tsan_skip" \
  >"$build/attn_tests_tsan.log" 2>&1
tsan_code=$?
grep -E "WARNING: ThreadSanitizer|FAILED|SUMMARY|\[  PASSED  \]" "$build/attn_tests_tsan.log" | head -20
tsan_passed=$(grep -oE "\[  PASSED  \] [0-9]+" "$build/attn_tests_tsan.log" | grep -oE "[0-9]+$" || echo 0)
[[ $tsan_code -eq 0 ]] || fail "attn_tests_tsan under ThreadSanitizer (exit $tsan_code, $build/attn_tests_tsan.log)"

echo "sanitize: ok, attn_tests ${passed} passed under ASan/UBSan, ${replay##*$'\n'}, ${tsan_passed} threaded tests clean under TSan ($(( $(date +%s) - start )) s)"
