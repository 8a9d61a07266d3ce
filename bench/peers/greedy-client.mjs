#!/usr/bin/env node
// Greedy agreement between a pagedserve server and a llama-server on the same prompt ids.
// Run with `node --experimental-websocket` on Node 20 (WebSocket is global from Node 22).
//   node --experimental-websocket bench/peers/greedy-client.mjs \
//       --pagedserve http://127.0.0.1:P1 --llama http://127.0.0.1:P2 --prompt-ids 1,2,3 --max-tokens 16
// pagedserve: WebSocket /v1/stream (its deltas carry token_ids), greedy, ignore_eos, top-5 logprobs.
// llama-server: POST /completion with the ids as the prompt, temperature 0, return_tokens, n_probs 5.
// Prints both id lists, whether they agree, and at the first difference both sides' top logprobs
// (a near-tie there is float noise; a large gap is a real model mismatch). Agreement needs both
// the same ids and top-5 logprobs within --logprob-tol (default 1e-2). Exit 0 when they agree.

function parseArgs(argv) {
    const o = { 'max-tokens': 16, 'logprob-tol': 1e-2 };
    for (let i = 0; i < argv.length; i += 2) {
        const k = argv[i].replace(/^--/, '');
        if (!['pagedserve', 'llama', 'prompt-ids', 'max-tokens', 'json-out', 'logprob-tol'].includes(k)) {
            console.error(`unknown argument ${argv[i]}`);
            process.exit(2);
        }
        o[k] = argv[i + 1];
    }
    if (!o.pagedserve || !o.llama || !o['prompt-ids']) {
        console.error('usage: greedy-client.mjs --pagedserve URL --llama URL --prompt-ids 1,2,3 [--max-tokens 16] [--logprob-tol 0.01] [--json-out FILE]');
        process.exit(2);
    }
    o.ids = o['prompt-ids'].split(',').map(Number);
    o['max-tokens'] = Number(o['max-tokens']);
    o.tol = Number(o['logprob-tol']);
    return o;
}

async function pagedserveGreedy(base, ids, maxTokens) {
    if (typeof WebSocket === 'undefined') throw new Error('no global WebSocket: run node with --experimental-websocket (Node 20) or Node >= 22');
    const url = base.replace(/^http/, 'ws') + '/v1/stream';
    return new Promise((resolve, reject) => {
        const ws = new WebSocket(url);
        const out = { ids: [], text: '', top: [] };
        const timer = setTimeout(() => { ws.close(); reject(new Error('pagedserve: timeout')); }, 300000);
        ws.onopen = () => ws.send(JSON.stringify({
            type: 'completion', id: 'g', prompt: ids, max_tokens: maxTokens, temperature: 0,
            ignore_eos: true, logprobs: 5,
        }));
        ws.onerror = (e) => { clearTimeout(timer); reject(new Error(`pagedserve websocket: ${e.message ?? e.type}`)); };
        ws.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.type === 'delta') {
                out.ids.push(...m.token_ids);
                out.text += m.text;
                for (const lp of m.logprobs ?? []) out.top.push((lp.top ?? []).map((t) => [t.token_id, t.logprob]));
            } else if (m.type === 'done') {
                clearTimeout(timer); ws.close(); resolve(out);
            } else if (m.type === 'error') {
                clearTimeout(timer); ws.close(); reject(new Error(`pagedserve: ${JSON.stringify(m.error)}`));
            }
        };
    });
}

async function llamaGreedy(base, ids, maxTokens) {
    const r = await fetch(base + '/completion', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
            prompt: ids, n_predict: maxTokens, temperature: 0, top_k: 1, ignore_eos: true,
            cache_prompt: false, return_tokens: true, n_probs: 5, stream: false,
        }),
    });
    if (!r.ok) throw new Error(`llama-server: HTTP ${r.status}: ${await r.text()}`);
    const j = await r.json();
    const top = (j.completion_probabilities ?? []).map((p) =>
        (p.top_logprobs ?? p.probs ?? []).map((t) => [t.id ?? t.tok, t.logprob ?? Math.log(t.prob)]));
    const promptN = j.tokens_evaluated ?? j.timings?.prompt_n;
    return { ids: j.tokens ?? [], text: j.content ?? '', top, promptN };
}

const fmtTop = (top) => (top ?? []).map(([id, lp]) => `${id}:${lp.toFixed(3)}`).join(' ');

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const p = await pagedserveGreedy(o.pagedserve, o.ids, o['max-tokens']);
    const l = await llamaGreedy(o.llama, o.ids, o['max-tokens']);
    console.log(`prompt ids (${o.ids.length}): ${o.ids.join(',')}`);
    if (l.promptN !== undefined && l.promptN !== o.ids.length) {
        console.log(`note: llama-server evaluated ${l.promptN} prompt tokens for ${o.ids.length} ids`);
    }
    console.log(`pagedserve   : ${p.ids.join(',')}`);
    console.log(`llama-server : ${l.ids.join(',')}`);
    console.log(`pagedserve text  : ${JSON.stringify(p.text)}`);
    console.log(`llama-server text: ${JSON.stringify(l.text)}`);
    let first = -1;
    const n = Math.max(p.ids.length, l.ids.length);
    for (let i = 0; i < n; i++) if (p.ids[i] !== l.ids[i]) { first = i; break; }
    const idsAgree = first < 0 && p.ids.length === o['max-tokens'];
    // logprobs of every token id both sides list in their top-5, at every position before any
    // divergence: random weights often repeat one token, which a wrong conversion (e.g. Q/K
    // rows not permuted) still picks, while its logprobs move by ~1e-1 instead of ~1e-3.
    let maxDiff = 0, compared = 0;
    const upto = first < 0 ? n : first;
    for (let i = 0; i < upto; i++) {
        const lm = new Map(l.top[i] ?? []);
        for (const [id, lp] of p.top[i] ?? []) {
            if (lm.has(id)) { maxDiff = Math.max(maxDiff, Math.abs(lp - lm.get(id))); compared++; }
        }
    }
    const logprobsAgree = compared > 0 && maxDiff <= o.tol;
    if (idsAgree) {
        console.log(`ids AGREE: all ${p.ids.length} greedy token ids are identical`);
        const margins = p.top.map((t) => (t.length > 1 ? t[0][1] - t[1][1] : NaN)).filter(Number.isFinite);
        if (margins.length) console.log(`smallest top-1/top-2 logprob margin (pagedserve): ${Math.min(...margins).toFixed(4)}`);
    } else {
        console.log(`ids DISAGREE at output token ${first} (pagedserve ${p.ids[first]}, llama-server ${l.ids[first]})`);
        console.log(`  pagedserve top-5   : ${fmtTop(p.top[first])}`);
        console.log(`  llama-server top-5 : ${fmtTop(l.top[first])}`);
    }
    console.log(`logprobs ${logprobsAgree ? 'AGREE' : 'DISAGREE'}: max |difference| ${maxDiff.toExponential(2)} over ${compared} ` +
        `(position, token) pairs of the top-5 lists (tolerance ${o.tol}; float noise is ~1e-5, ~1e-3 with llama.cpp's flash attention)`);
    const agree = idsAgree && logprobsAgree;
    console.log(agree ? 'RESULT: AGREE' : 'RESULT: DISAGREE');
    if (o['json-out']) {
        (await import('node:fs')).writeFileSync(o['json-out'], JSON.stringify({ prompt_ids: o.ids, pagedserve: p, llama: l, agree, first_difference: first }, null, 1));
    }
    process.exit(agree ? 0 : 1);
}

main().catch((e) => { console.error(`greedy-client: ${e.message}`); process.exit(2); });
