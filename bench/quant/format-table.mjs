#!/usr/bin/env node
// compare-formats.sh's table (OUT/table.md) and, when gnuplot is installed, OUT/formats.png:
// output tok/s against weight MiB per format, labelled with the mean KL against the source.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const [out, budgetGib, maxLen] = process.argv.slice(2);
const rows = fs.readFileSync(`${out}/summary.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const fmt = (x, d) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const source = rows.find((r) => r.format === 'source' && r.kv_cache_dtype === 'auto');
let t = `| format | KV | weight MiB | KV bytes/token | max concurrency (${budgetGib} GiB KV, ${maxLen} tokens) | output tok/s | x source | mean KL | top-1 agreement | perplexity |\n`;
t += '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n';
for (const r of rows) {
  const e = r.eval ?? {};
  t += `| ${r.format} | ${r.kv_cache_dtype} | ${fmt(r.weight_mib, 2)} | ${r.kv_bytes_per_token} | ${fmt(r.max_concurrency, 1)} | `;
  t += `${fmt(r.output_tokens_per_s, 1)} | ${fmt(r.output_tokens_per_s / source.output_tokens_per_s, 2)} | `;
  t += `${fmt(e.mean_kl, 5)} | ${fmt(e.top1_agreement, 4)} | ${fmt(e.perplexity, 2)} |\n`;
}
fs.writeFileSync(`${out}/table.md`, t);
console.log(t);

const auto = rows.filter((r) => r.kv_cache_dtype === 'auto');
fs.writeFileSync(`${out}/formats.dat`, auto.map((r) => `"${r.format}" ${r.weight_mib} ${r.output_tokens_per_s} ${r.eval?.mean_kl ?? 0}`).join('\n') + '\n');
const script = `set terminal pngcairo size 900,500 font ",11"
set output "${out}/formats.png"
set xlabel "weight MiB on the CPU backend"
set ylabel "output tokens/s (bench offline)"
set grid
set key off
set offsets graph 0.05, graph 0.2, graph 0.1, graph 0.1
plot "${out}/formats.dat" using 2:3 with points pt 7 ps 1.5, \\
     "" using 2:3:(sprintf("%s  KL %.4f", stringcolumn(1), $4)) with labels offset 1,0.8 left
`;
const g = spawnSync('gnuplot', [], { input: script });
if (g.error || g.status !== 0) console.error('no plot (gnuplot missing or failed)');
