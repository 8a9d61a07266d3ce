#!/usr/bin/env bash
# run-batch against bench offline on the same requests, one engine configuration, one run:
# prints both output tok/s and their ratio (run-batch goes through the OpenAI layer, the
# batch file and the builders; bench offline submits generation_requests directly).
#   bash bench/run_batch/compare-offline.sh [NUM_REQUESTS] [extra engine flags...]
# Greedy, ignore_eos, prompts of 16-64 ids and 16-64 output tokens (seeded).
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000}"
shift || true
bin="${PAGEDSERVE_BIN:-build/bin/pagedserve}"
work="$(mktemp -d "${TMPDIR:-/tmp}/run-batch-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
node - "$n" "$work" <<'JS'
const [n, dir] = [Number(process.argv[2]), process.argv[3]];
const fs = require('node:fs');
let s = 12345;
const rand = (k) => ((s = (s * 1103515245 + 12345) % 2147483648), s % k);
const w = [], b = [];
for (let i = 0; i < n; ++i) {
  const ids = Array.from({ length: 16 + rand(49) }, () => 3 + rand(500));
  const max_tokens = 16 + rand(49);
  w.push(JSON.stringify({ prompt_token_ids: ids, max_tokens }));
  b.push(JSON.stringify({ custom_id: `r${i}`, method: 'POST', url: '/v1/completions',
    body: { prompt: ids, max_tokens, temperature: 0, ignore_eos: true } }));
}
fs.writeFileSync(`${dir}/workload.jsonl`, w.join('\n') + '\n');
fs.writeFileSync(`${dir}/batch.jsonl`, b.join('\n') + '\n');
JS
flags=(--max-num-seqs 64 --max-model-len 256 "$@")
offline=$("$bin" bench offline --workload "$work/workload.jsonl" "${flags[@]}" --json 2>/dev/null)
batch=$("$bin" run-batch -i "$work/batch.jsonl" -o "$work/out.jsonl" "${flags[@]}" --json 2>/dev/null)
node - "$offline" "$batch" "$work/out.jsonl" "$n" <<'JS'
const [offline, batch, out, n] = process.argv.slice(2);
const o = JSON.parse(offline).engine, b = JSON.parse(batch);
const lines = require('node:fs').readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const ok = lines.filter((l) => l.response?.status_code === 200).length;
const cpu = require('node:os').cpus()[0]?.model ?? 'unknown CPU';
console.log(`${n} requests on ${cpu}; run-batch answered ${ok}/${lines.length} lines (${b.failed} failed)`);
console.log(`bench offline: ${o.output_tokens_per_s.toFixed(1)} output tok/s`);
console.log(`run-batch:     ${b.output_tokens_per_s.toFixed(1)} output tok/s`);
console.log(`run-batch / bench offline: ${(b.output_tokens_per_s / o.output_tokens_per_s).toFixed(3)}`);
JS
