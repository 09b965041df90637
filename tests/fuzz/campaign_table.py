#!/usr/bin/env python3
"""The campaign tables of tests/fuzz/README.md, written from campaign.sh's chunks.tsv:
    python3 tests/fuzz/campaign_table.py tests/fuzz/campaigns/2026-11-26.tsv ade51b93=C ae116450=C′ ...
Arguments after the file name the binaries (sha256 prefix=label); prints the libFuzzer chunks'
table, the tokenizer's, then executions per target and in all."""
import csv
import sys

ORDER = ['attend', 'model', 'safetensors', 'torch_random', 'tokenizer']
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
labels = dict(arg.split('=', 1) for arg in sys.argv[2:])
rows.sort(key=lambda r: (ORDER.index(r['target']), int(r['chunk'].split('-')[-1])))
totals = {}
print('| target | chunk | binary | start (UTC) | wall s | -max_total_time | -max_len | executions | exec/s | cov / ft / corpus at its end | ended by |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for r in rows:
    totals[r['target']] = totals.get(r['target'], 0) + int(r['executions'])
    if r['target'] == 'tokenizer':
        continue
    e, w = int(r['executions']), int(r['wall_s'])
    print(f"| {r['target']} | {r['chunk']} | {labels.get(r['binary'], r['binary'])} | {r['start']} | {w:,} | "
          f"{r['seconds']} | {r['max_len']} | {e:,} | {e / w:.0f} | {r['cov/ft/corpus']} | {r['ended_by']} |")
print()
print('| command | executions | texts | compared with the peers | hostile files | seconds | findings |')
print('|---|---|---|---|---|---|---|')
for r in rows:
    if r['target'] != 'tokenizer':
        continue
    seed = 100000 + int(r['chunk'].split('-')[-1])
    texts, compared, files = (int(v) for v in r['cov/ft/corpus'].split()[-1].split('/'))
    findings = 0 if r['ended_by'] == 'done' else r['ended_by']
    print(f"| `nice -n 10 node tests/fuzz/js/tokenizer_fuzz.mjs --seed {seed} --seconds {r['seconds']} --keep-going` | "
          f"{int(r['executions']):,} | {texts:,} | {compared:,} | {files:,} | {r['wall_s']} | {findings} |")
print()
for target, executions in totals.items():
    print(f'{target}: {executions:,}')
print(f'all: {sum(totals.values()):,}')
