#!/usr/bin/env node
// Small helpers of compare-engine.sh and compare-serving.sh (plain Node.js, no dependencies):
//   report.mjs workload FILE N PROMPT_LEN MAX_TOKENS SEED VOCAB   N requests of random ids in [259, VOCAB)
//   report.mjs avg-ts FILE                                         avg_ts of llama-bench -o jsonl's first line
//   report.mjs engine RESULTS.jsonl ROUNDS OUT_DIR                 medians + ratios -> OUT/table.md, summary.json
//   report.mjs serving OUT_DIR RATES [PLOT_DIR]                    per-rate tables (+ gnuplot data and script)
//   report.mjs quantized RESULTS.jsonl ROUNDS OUT_DIR              compare-quantized.sh's table and ratios
import fs from 'node:fs';

const [cmd, ...args] = process.argv.slice(2);
const f2 = (x) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const median = (a) => {
    if (!a.length) return NaN;
    const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function workload([file, n, len, maxTokens, seed, vocab]) {
    [n, len, maxTokens, seed, vocab] = [n, len, maxTokens, seed, vocab].map(Number);
    let s = seed >>> 0;
    const lines = [];
    for (let r = 0; r < n; r++) {
        const ids = [];
        for (let i = 0; i < len; i++) {
            s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
            ids.push(259 + ((s >>> 8) % (vocab - 259)));
        }
        lines.push(JSON.stringify({ prompt_token_ids: ids, max_tokens: maxTokens }));
    }
    fs.writeFileSync(file, lines.join('\n') + '\n');
}

function avgTs([file]) {
    const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.trim().startsWith('{'));
    if (!line) throw new Error(`no JSON line in ${file}`);
    console.log(JSON.parse(line).avg_ts);
}

function engine([results, rounds, out]) {
    const rows = fs.readFileSync(results, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const figs = [...new Set(rows.map((r) => r.figure))];
    let t = `| figure (tok/s, median of ${rounds} round(s)) | pagedserve | llama.cpp | ratio pagedserve/llama.cpp |\n|---|---:|---:|---:|\n`;
    const summary = [];
    for (const f of figs) {
        const p = median(rows.filter((r) => r.figure === f && r.engine === 'pagedserve').map((r) => r.value));
        const l = median(rows.filter((r) => r.figure === f && r.engine === 'llama.cpp').map((r) => r.value));
        const ratio = p / l;
        t += `| ${f} | ${Number.isFinite(p) ? p.toFixed(1) : 'n/a'} | ${l.toFixed(1)} | ${f2(ratio)} |\n`;
        summary.push({ figure: f, pagedserve: Number.isFinite(p) ? p : null, llama_cpp: l, ratio: Number.isFinite(ratio) ? ratio : null });
    }
    fs.writeFileSync(`${out}/table.md`, t);
    fs.writeFileSync(`${out}/summary.json`, JSON.stringify(summary, null, 1) + '\n');
    console.log(t);
}

function serving([out, rates, plotDir]) {
    const load = (e, r) => JSON.parse(fs.readFileSync(`${out}/raw/${e}-rate-${r}.json`, 'utf8'));
    const metrics = [
        ['output tok/s', 'output_throughput', 'higher is better'],
        ['mean TTFT ms', 'mean_ttft_ms', 'lower is better'],
        ['mean TPOT ms', 'mean_tpot_ms', 'lower is better'],
        ['median ITL ms', 'median_itl_ms', 'lower is better'],
        ['mean ITL ms', 'mean_itl_ms', 'lower is better'],
    ];
    let t = '';
    const summary = [];
    for (const r of rates.split(',')) {
        const p = load('pagedserve', r), l = load('llama-server', r);
        t += `\nrequest rate ${r} (completed: pagedserve ${p.completed}, llama-server ${l.completed}; ` +
            `failed: ${p.failed ?? 0}, ${l.failed ?? 0})\n`;
        t += '| figure | pagedserve | llama-server | ratio pagedserve/llama-server |\n|---|---:|---:|---:|\n';
        const row = { rate: r };
        for (const [name, key, better] of metrics) {
            const ratio = p[key] / l[key];
            t += `| ${name} (${better}) | ${f2(p[key])} | ${f2(l[key])} | ${f2(ratio)} |\n`;
            row[key] = { pagedserve: p[key], llama_server: l[key], ratio: Number.isFinite(ratio) ? ratio : null };
        }
        summary.push(row);
    }
    fs.writeFileSync(`${out}/table.md`, t);
    fs.writeFileSync(`${out}/summary.json`, JSON.stringify(summary, null, 1) + '\n');
    console.log(t);
    if (!plotDir) return;
    fs.mkdirSync(plotDir, { recursive: true });
    for (const e of ['pagedserve', 'llama-server']) {
        const lines = rates.split(',').map((r) => {
            const j = load(e, r);
            return `${j.output_throughput} ${j.mean_ttft_ms} ${j.median_itl_ms} "${r}"`;
        });
        fs.writeFileSync(`${plotDir}/${e}.dat`, '# out_tok_s mean_ttft_ms median_itl_ms rate\n' + lines.join('\n') + '\n');
    }
    const plot = (col) => `plot "${plotDir}/pagedserve.dat" u 1:${col} w lp t "pagedserve", "" u 1:${col}:4 w labels offset 1,1 notitle, ` +
        `"${plotDir}/llama-server.dat" u 1:${col} w lp t "llama-server", "" u 1:${col}:4 w labels offset 1,1 notitle`;
    fs.writeFileSync(`${plotDir}/serving.gp`, [
        'set terminal pngcairo size 1200,500',
        `set output "${plotDir}/serving.png"`,
        'set multiplot layout 1,2 title "pagedserve vs llama-server, same weights (labels: request rate)"',
        'set xlabel "output tokens/s"; set grid; set key below',
        'set ylabel "mean TTFT (ms)"', plot(2),
        'set ylabel "median ITL (ms)"', plot(3),
        'unset multiplot', '',
    ].join('\n'));
}

// Medians per (figure, configuration), then the ratios the quantized kernels are judged by.
function quantized([results, rounds, out]) {
    const rows = fs.readFileSync(results, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const figs = [...new Set(rows.map((r) => r.figure))];
    const configs = [...new Set(rows.map((r) => r.engine))];
    const med = (f, c) => median(rows.filter((r) => r.figure === f && r.engine === c).map((r) => r.value));
    let t = `| configuration (tok/s, median of ${rounds} round(s)) | ${figs.join(' | ')} |\n|---|${figs.map(() => '---:').join('|')}|\n`;
    for (const c of configs) t += `| ${c} | ${figs.map((f) => med(f, c).toFixed(1)).join(' | ')} |\n`;
    const ratios = [
        ['ours int4 (GPTQ) / ours fp32', 'pagedserve gptq-int4', 'pagedserve fp32'],
        ['ours int4 (AWQ, fp32 lm_head) / ours fp32', 'pagedserve awq-int4', 'pagedserve fp32'],
        ['ours fp8 / ours fp32', 'pagedserve fp8', 'pagedserve fp32'],
        ['ours int4 (GPTQ), int8 activations / ours fp32', 'pagedserve gptq-int4-a8', 'pagedserve fp32'],
        ['ours int4 (GPTQ) / llama.cpp Q4_0', 'pagedserve gptq-int4', 'llama.cpp q4_0'],
        ['ours int4 (GPTQ), int8 activations / llama.cpp Q4_0', 'pagedserve gptq-int4-a8', 'llama.cpp q4_0'],
        ['ours fp8 / llama.cpp Q8_0', 'pagedserve fp8', 'llama.cpp q8_0'],
        ['ours fp32 / llama.cpp f32', 'pagedserve fp32', 'llama.cpp f32'],
        ['llama.cpp Q4_0 / llama.cpp f32', 'llama.cpp q4_0', 'llama.cpp f32'],
        ['llama.cpp Q8_0 / llama.cpp f32', 'llama.cpp q8_0', 'llama.cpp f32'],
    ];
    t += `\n| ratio | ${figs.join(' | ')} |\n|---|${figs.map(() => '---:').join('|')}|\n`;
    const summary = { medians: {}, ratios: {} };
    for (const c of configs) summary.medians[c] = Object.fromEntries(figs.map((f) => [f, med(f, c)]));
    for (const [name, a, b] of ratios) {
        if (!configs.includes(a) || !configs.includes(b)) continue;  // a configuration not run (--ours/--theirs)
        const values = figs.map((f) => med(f, a) / med(f, b));
        t += `| ${name} | ${values.map(f2).join(' | ')} |\n`;
        summary.ratios[name] = Object.fromEntries(figs.map((f, i) => [f, values[i]]));
    }
    fs.writeFileSync(`${out}/table.md`, t);
    fs.writeFileSync(`${out}/summary.json`, JSON.stringify(summary, null, 1) + '\n');
    console.log(t);
}

const commands = { workload, 'avg-ts': avgTs, engine, serving, quantized };
if (!commands[cmd]) {
    console.error('usage: report.mjs workload|avg-ts|engine|serving ARGS... (see the comment at the top)');
    process.exit(2);
}
commands[cmd](args);
