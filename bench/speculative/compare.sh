#!/usr/bin/env bash
# Speculative decoding against none, same engine, same run: output tok/s of `bench offline`
# with and without --speculative-config on the demo model, and their ratio, for the
# workloads of workloads.mjs (held-out text of the demo corpus; the docs say how each is made):
#   repeat b1:     batch 1, answers that copy from their prompts
#   paragraph b1:  batch 1, a paragraph then its start again
#   held-out b1:   batch 1, held-out text continued
#   repeat x16:    16 concurrent sequences of the repeat workload (the adaptive depth must not
#                  lose to no speculation there), and held-out x16 likewise
#   twice b1:      batch 1, the held-out prompts twice in a row, with suffix decoding (the
#                  second answers are proposed from the first ones: repeated requests)
#   draft b1, draft x16: held-out b1 and x16 with the demo's draft model ($DRAFT_CONFIG,
#                  default {"method": "draft_model", "model": "pagedserve-demo-draft",
#                  "num_speculative_tokens": 4})
# Greedy and ignore_eos (bench offline's), so both runs produce the same tokens. Each pair
# runs ROUNDS times (default 5), off then on; the ratio is the median of the rounds' on/off
# ratios (a pair runs seconds apart, so the machine's drift, 10-30% within minutes on the
# development VM, cancels more than between medians taken apart), the tok/s columns the
# medians. The workloads take about a minute to make (the repeat
# answers are found by running the model).
#   bash bench/speculative/compare.sh [SPECULATIVE_CONFIG_JSON] [extra engine flags...]
set -euo pipefail
cd "$(dirname "$0")/../.."
spec="${1:-{\"method\": \"ngram\", \"num_speculative_tokens\": 8, \"prompt_lookup_max\": 4, \"prompt_lookup_min\": 2}}"
shift || true
bin="${PAGEDSERVE_BIN:-build/bin/pagedserve}"
work="$(mktemp -d "${TMPDIR:-/tmp}/spec-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
node bench/speculative/workloads.mjs "$bin" "$work"
run() {  # run NAME WORKLOAD MAX_NUM_SEQS [flags]: one bench offline --json, or a clear failure
  local name=$1 workload=$2 seqs=$3 out
  shift 3
  if ! out=$("$bin" bench offline --workload "$work/$workload" --max-num-seqs "$seqs" \
    --max-model-len 512 --json "$@" 2>"$work/$name.err"); then
    echo "compare.sh: bench offline ($name) failed:" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
  echo "$out" >"$work/$name.json"
}
suffix='{"method": "suffix", "num_speculative_tokens": 8}'
draft="${DRAFT_CONFIG:-{\"method\": \"draft_model\", \"model\": \"pagedserve-demo-draft\", \"num_speculative_tokens\": 4}}"
rounds="${ROUNDS:-5}"
for w in repeat:repeat.jsonl:1 paragraph:paragraph.jsonl:1 heldout:heldout.jsonl:1 \
  repeat16:repeat16.jsonl:16 heldout16:heldout16.jsonl:16 twice:heldout16.jsonl:1 \
  draft:heldout.jsonl:1 draft16:heldout16.jsonl:16; do
  IFS=: read -r name file seqs <<<"$w"
  config=$spec
  [[ $name == twice ]] && config=$suffix
  [[ $name == draft* ]] && config=$draft
  for ((r = 0; r < rounds; ++r)); do
    run "$name-off-$r" "$file" "$seqs" "$@"
    run "$name-on-$r" "$file" "$seqs" --speculative-config "$config" "$@"
  done
done
node - "$work" "$spec" "$rounds" "$suffix" "$draft" <<'JS'
const [dir, spec, rounds, suffix, draft] = process.argv.slice(2);
const fs = require('node:fs');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = (n) => Array.from({ length: Number(rounds) }, (_, r) =>
  JSON.parse(fs.readFileSync(`${dir}/${n}-${r}.json`, 'utf8')).engine);
// The median run by output tok/s, with its figures.
const read = (n) => {
  const all = runs(n);
  const m = median(all.map((e) => e.output_tokens_per_s));
  return all.find((e) => e.output_tokens_per_s === m);
};
// The median of the rounds' on/off ratios.
const ratio = (name) => {
  const off = runs(`${name}-off`), on = runs(`${name}-on`);
  return median(on.map((e, r) => e.output_tokens_per_s / off[r].output_tokens_per_s));
};
const cpu = require('node:os').cpus()[0]?.model ?? 'unknown CPU';
console.log(`speculative_config ${spec} (twice: ${suffix}; draft: ${draft}); demo model on ${cpu}; medians of ${rounds} (ratio: of the rounds' on/off)`);
console.log('workload       off tok/s    on tok/s   ratio   accepted / proposed');
for (const [name, label] of [['repeat', 'repeat b1'], ['paragraph', 'paragraph b1'],
  ['heldout', 'held-out b1'], ['repeat16', 'repeat x16'], ['heldout16', 'held-out x16'],
  ['twice', 'twice b1'], ['draft', 'draft b1'], ['draft16', 'draft x16']]) {
  const off = read(`${name}-off`), on = read(`${name}-on`);
  const rate = on.spec_decode_num_draft_tokens > 0
    ? (on.spec_decode_num_accepted_tokens / on.spec_decode_num_draft_tokens).toFixed(3) : '-';
  console.log(`${label.padEnd(13)} ${off.output_tokens_per_s.toFixed(1).padStart(10)} ` +
    `${on.output_tokens_per_s.toFixed(1).padStart(11)} ` +
    `${ratio(name).toFixed(3).padStart(7)}   ` +
    `${on.spec_decode_num_accepted_tokens} / ${on.spec_decode_num_draft_tokens} (${rate})`);
}
JS
