#!/usr/bin/env bash
# One chunk of a fuzzing campaign, logged so that the campaign's table in tests/fuzz/README.md
# can be written from what ran (not from memory):
#   bash tests/fuzz/campaign.sh <target> <seconds> [max_len]
# target: attend, safetensors, model, torch_random (libFuzzer binaries of build-fuzz/, see the
# README's "A campaign"), or tokenizer (tests/fuzz/js/tokenizer_fuzz.mjs, one seed per chunk).
# The working folder, $ATTN_FUZZ_WORK (default /tmp/fz), keeps per target:
#   <target>/          the corpus the chunks grow (seeded from tests/fuzz/corpus/<target>/)
#   logs/<target>-<n>.log   the chunk's output, its command on the first line
#   crash/             libFuzzer's artifacts (crash-*, timeout-*, oom-*)
#   chunks.tsv         a row per chunk: target, chunk, binary (sha256 prefix), start (UTC), wall s,
#                      seconds asked, max_len, executions, cov / ft / corpus, ended by
# A chunk ends "done" (its time ran out), "finding" (libFuzzer or the JS fuzzer reported one;
# the input is in crash/ or named in the log) or "interrupted" (SIGINT: libFuzzer prints its
# final stats, so the executions still count). A chunk waits to start while
# $ATTN_FUZZ_WORK/PAUSE exists (so that a lane of chunks can leave the cores to a timed npm test).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${1:?target: attend, safetensors, model, torch_random or tokenizer}"
seconds="${2:?seconds}"
work="${ATTN_FUZZ_WORK:-/tmp/fz}"
case "$target" in
  safetensors) max_len="${3:-16384}" ;;
  attend) max_len="${3:-512}" ;;
  *) max_len="${3:-4096}" ;;
esac
mkdir -p "$work/logs" "$work/crash"
while [[ -e "$work/PAUSE" ]]; do sleep 20; done
if [[ ! -f "$work/chunks.tsv" ]]; then
  printf 'target\tchunk\tbinary\tstart\twall_s\tseconds\tmax_len\texecutions\tcov/ft/corpus\tended_by\n' >"$work/chunks.tsv"
fi
n=$(find "$work/logs" -name "$target-*.log" | wc -l)
log="$work/logs/$target-$n.log"
start=$(date -u +%H:%M:%S)
t0=$(date +%s)

if [[ "$target" == tokenizer ]]; then
  seed=$((100000 + n))
  binary="$(cat "$root"/web/lib/tokenizer/*.js "$root/tests/fuzz/js/tokenizer_fuzz.mjs" | sha256sum | cut -c1-8)"
  cmd=(node "$root/tests/fuzz/js/tokenizer_fuzz.mjs" --seed "$seed" --seconds "$seconds" --keep-going)
  echo "${cmd[*]}" >"$log"
  "${cmd[@]}" >>"$log" 2>&1
  code=$?
  summary=$(grep -m1 '^tokenizer fuzz:' "$log")
  executions=$(sed -E 's/.*, ([0-9]+) executions.*/\1/' <<<"$summary")
  findings=$(sed -E 's/.* ([0-9]+) findings$/\1/' <<<"$summary")
  stats="texts/compared/files $(sed -E 's/.*\(([0-9]+) texts, ([0-9]+) compared.*, ([0-9]+) hostile.*/\1\/\2\/\3/' <<<"$summary")"
  ended=done
  [[ "${findings:-0}" != 0 || $code -gt 1 ]] && ended=finding
  [[ -z "$summary" ]] && ended="interrupted" && executions=0
else
  binary_path="$root/build-fuzz/tests/fuzz/fuzz_$target"
  [[ -x "$binary_path" ]] || { echo "campaign: no $binary_path (build it: tests/fuzz/README.md)" >&2; exit 2; }
  binary="$(sha256sum "$binary_path" | cut -c1-8)"
  if [[ ! -d "$work/$target" ]]; then
    mkdir -p "$work/$target"
    cp "$root/tests/fuzz/corpus/$target/"* "$work/$target/"
  fi
  cmd=("$binary_path" -max_total_time="$seconds" -len_control=0 -max_len="$max_len" -timeout=60
    -rss_limit_mb=3000 -malloc_limit_mb=1600 -print_final_stats=1
    -artifact_prefix="$work/crash/$target-" "$work/$target")
  echo "${cmd[*]}" >"$log"
  "${cmd[@]}" >>"$log" 2>&1
  code=$?
  executions=$(grep -m1 '^stat::number_of_executed_units:' "$log" | awk '{print $2}')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  [[ -z "$executions" ]] && executions=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
  stats=$(sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/\1 \/ \2 \/ \3/' <<<"$last")
  ended=done
  if grep -qE 'FUZZ FINDING|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error|ALARM: working on the last Unit|out-of-memory' "$log"; then
    ended=finding
  elif [[ $code -ne 0 ]] || grep -q 'libFuzzer: run interrupted' "$log"; then
    ended=interrupted
  fi
fi
wall=$(($(date +%s) - t0))
printf '%s\t%s-%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$target" "$n" "$binary" "$start" "$wall" "$seconds" \
  "$max_len" "${executions:-0}" "$stats" "$ended" >>"$work/chunks.tsv"
echo "campaign: $target-$n: ${executions:-0} executions in $wall s, $ended ($log)"
[[ "$ended" == finding ]] && exit 1
exit 0
