#!/usr/bin/env node
// A slow, plain reference forward (float64 sums) of a make-weights.mjs HF folder, llama or
// qwen3_moe, over one prompt: prints the top-5 logprobs of the token after the prompt (the first
// greedy token check-greedy.sh compares) and, for a MoE, the smallest router margins (the k-th
// minus the (k+1)-th router logit of a token in a layer). Use it when check-greedy.sh disagrees:
// it says which engine is right, and whether a router near-tie (a margin ~1e-5, which float
// rounding may break either way) explains the difference. ~25 s for the 489M MoE and 64 ids.
//
//   node bench/peers/reference-forward.mjs --weights DIR [--prompt-ids 1,2,3 | --check-json FILE]
//                                          [--flip LAYER,TOKEN]
//   --check-json FILE  take the prompt from check-greedy.sh's JSON (build-peers/logs/check-greedy.json)
//                      and compare the reference with both engines' first top-5
//   --flip L,T         route token T (0-based prompt position) of layer L to the (k+1)-th expert
//                      instead of the k-th: the other side of a near-tie
import fs from 'node:fs';

const usage = 'usage: node bench/peers/reference-forward.mjs --weights DIR (--prompt-ids IDS | --check-json FILE) [--flip L,T]';
if (process.argv.includes('-h') || process.argv.includes('--help')) { console.log(usage); process.exit(0); }
const args = {};
for (let i = 2; i < process.argv.length; i += 2) {
    const k = process.argv[i].replace(/^--/, '');
    if (!['weights', 'prompt-ids', 'check-json', 'flip'].includes(k) || process.argv[i + 1] === undefined) {
        console.error(`${usage}\n(bad argument ${process.argv[i]})`);
        process.exit(2);
    }
    args[k] = process.argv[i + 1];
}
if (!args.weights || !(args['prompt-ids'] || args['check-json'])) { console.error(usage); process.exit(2); }
const check = args['check-json'] ? JSON.parse(fs.readFileSync(args['check-json'], 'utf8')) : null;
const ids = check ? check.prompt_ids : args['prompt-ids'].split(',').map(Number);

const cfg = JSON.parse(fs.readFileSync(`${args.weights}/hf/config.json`, 'utf8'));
const st = fs.readFileSync(`${args.weights}/hf/model.safetensors`);
const hl = Number(st.readBigUInt64LE(0));
const meta = JSON.parse(st.toString('utf8', 8, 8 + hl));
const W = (name) => {
    const m = meta[name];
    if (!m) throw new Error(`no tensor ${name}`);
    const off = st.byteOffset + 8 + hl + m.data_offsets[0];
    return new Float32Array(st.buffer.slice(off, off + m.data_offsets[1] - m.data_offsets[0]));
};
const H = cfg.hidden_size, L = cfg.num_hidden_layers, NH = cfg.num_attention_heads;
const NKV = cfg.num_key_value_heads ?? NH, D = cfg.head_dim ?? H / NH, V = cfg.vocab_size;
const eps = cfg.rms_norm_eps, theta = cfg.rope_theta;
const moe = (cfg.num_experts ?? 0) > 0, qkNorm = cfg.model_type === 'qwen3_moe' || cfg.model_type === 'qwen3';
const E = cfg.num_experts, K = cfg.num_experts_per_tok, T = ids.length;

const matvec = (w, rows, cols, x) => {
    const y = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
        let s = 0;
        for (let c = 0, o = r * cols; c < cols; c++) s += w[o + c] * x[c];
        y[r] = s;
    }
    return y;
};
const rmsNorm = (x, w, n = x.length, at = 0) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[at + i] * x[at + i];
    const r = 1 / Math.sqrt(s / n + eps), y = new Float64Array(n);
    for (let i = 0; i < n; i++) y[i] = x[at + i] * r * w[i];
    return y;
};
const silu = (v) => v / (1 + Math.exp(-v));
// HF rope: rotate_half, pairs (i, i + D/2); optional per-head RMSNorm first (qwen3 q_norm/k_norm).
const headsRope = (vec, nHeads, normW, t) => {
    const out = new Float64Array(vec.length);
    for (let h = 0; h < nHeads; h++) {
        const x = normW ? rmsNorm(vec, normW, D, h * D) : vec.subarray(h * D, (h + 1) * D);
        for (let i = 0; i < D / 2; i++) {
            const f = t / Math.pow(theta, (2 * i) / D), c = Math.cos(f), s = Math.sin(f);
            out[h * D + i] = x[i] * c - x[i + D / 2] * s;
            out[h * D + i + D / 2] = x[i + D / 2] * c + x[i] * s;
        }
    }
    return out;
};

const emb = W('model.embed_tokens.weight');
let hs = ids.map((id) => Float64Array.from(emb.subarray(id * H, (id + 1) * H)));
const margins = [];
for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    const wq = W(p + 'self_attn.q_proj.weight'), wk = W(p + 'self_attn.k_proj.weight');
    const wv = W(p + 'self_attn.v_proj.weight'), wo = W(p + 'self_attn.o_proj.weight');
    const qn = qkNorm ? W(p + 'self_attn.q_norm.weight') : null, kn = qkNorm ? W(p + 'self_attn.k_norm.weight') : null;
    const ln1 = W(p + 'input_layernorm.weight'), ln2 = W(p + 'post_attention_layernorm.weight');
    const Q = [], Kc = [], Vc = [];
    for (let t = 0; t < T; t++) {
        const x = rmsNorm(hs[t], ln1);
        Q.push(headsRope(matvec(wq, NH * D, H, x), NH, qn, t));
        Kc.push(headsRope(matvec(wk, NKV * D, H, x), NKV, kn, t));
        Vc.push(matvec(wv, NKV * D, H, x));
    }
    const experts = moe ? [...Array(E).keys()].map((e) => ['gate', 'up', 'down'].map((n) => W(`${p}mlp.experts.${e}.${n}_proj.weight`))) : null;
    const mlp = moe ? null : ['gate', 'up', 'down'].map((n) => W(`${p}mlp.${n}_proj.weight`));
    const router = moe ? W(p + 'mlp.gate.weight') : null;
    const I = moe ? cfg.moe_intermediate_size : cfg.intermediate_size;
    const ffn = ([g, u, d], x) => {
        const gv = matvec(g, I, H, x), uv = matvec(u, I, H, x);
        for (let i = 0; i < I; i++) gv[i] = silu(gv[i]) * uv[i];
        return matvec(d, H, I, gv);
    };
    const next = [];
    for (let t = 0; t < T; t++) {
        const att = new Float64Array(NH * D);
        for (let h = 0; h < NH; h++) {
            const kh = Math.floor(h / (NH / NKV)), sc = new Float64Array(t + 1);
            for (let u = 0; u <= t; u++) {
                let s = 0;
                for (let i = 0; i < D; i++) s += Q[t][h * D + i] * Kc[u][kh * D + i];
                sc[u] = s / Math.sqrt(D);
            }
            const mx = Math.max(...sc);
            let z = 0;
            for (let u = 0; u <= t; u++) { sc[u] = Math.exp(sc[u] - mx); z += sc[u]; }
            for (let u = 0; u <= t; u++) for (let i = 0; i < D; i++) att[h * D + i] += (sc[u] / z) * Vc[u][kh * D + i];
        }
        const o = matvec(wo, H, NH * D, att);
        const h1 = new Float64Array(H);
        for (let i = 0; i < H; i++) h1[i] = hs[t][i] + o[i];
        const x = rmsNorm(h1, ln2);
        let y;
        if (moe) {
            const lg = matvec(router, E, H, x);
            const order = [...lg.keys()].sort((a, b) => lg[b] - lg[a]);
            margins.push({ layer: l, token: t, margin: lg[order[K - 1]] - lg[order[K]] });
            if (args.flip === `${l},${t}`) [order[K - 1], order[K]] = [order[K], order[K - 1]];
            const mx = lg[order[0]];
            let z = 0;
            for (const v of lg) z += Math.exp(v - mx);
            let w = order.slice(0, K).map((e) => Math.exp(lg[e] - mx) / z);
            if (cfg.norm_topk_prob) { const s = w.reduce((a, b) => a + b, 0); w = w.map((v) => v / s); }
            y = new Float64Array(H);
            for (let j = 0; j < K; j++) {
                const d = ffn(experts[order[j]], x);
                for (let i = 0; i < H; i++) y[i] += w[j] * d[i];
            }
        } else {
            y = ffn(mlp, x);
        }
        for (let i = 0; i < H; i++) h1[i] += y[i];
        next.push(h1);
    }
    hs = next;
}
const logits = matvec(W('lm_head.weight'), V, H, rmsNorm(hs[T - 1], W('model.norm.weight')));
const mx = Math.max(...logits);
let z = 0;
for (const v of logits) z += Math.exp(v - mx);
const logZ = mx + Math.log(z);
const top = [...logits.keys()].sort((a, b) => logits[b] - logits[a]).slice(0, 5).map((i) => [i, logits[i] - logZ]);
const fmt = (t) => t.map(([id, lp]) => `${id}:${lp.toFixed(4)}`).join(' ');
console.log(`prompt: ${T} ids${args.flip ? `; layer,token ${args.flip} routed to its (k+1)-th expert` : ''}`);
console.log(`reference    top-5 after the prompt: ${fmt(top)}`);
if (check) {
    for (const [name, side] of [['pagedserve', check.pagedserve], ['llama-server', check.llama]]) {
        const m = new Map(side.top?.[0] ?? []);
        const diffs = top.filter(([id]) => m.has(id)).map(([id, lp]) => Math.abs(lp - m.get(id)));
        console.log(`${name.padEnd(12)} top-5 after the prompt: ${fmt(side.top?.[0] ?? [])}  ` +
            `(max |difference| from the reference ${diffs.length ? Math.max(...diffs).toExponential(2) : 'n/a'} over ${diffs.length})`);
    }
}
if (moe) {
    margins.sort((a, b) => a.margin - b.margin);
    console.log('smallest router margins (k-th minus (k+1)-th logit; layer, prompt position): ' +
        margins.slice(0, 5).map((m) => `L${m.layer},t${m.token} ${m.margin.toExponential(2)}`).join('; '));
}
