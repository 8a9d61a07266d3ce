#!/usr/bin/env node
// Deterministic random weights of a Llama or a Qwen3-MoE shape, written twice with the same
// float32 bytes:
//   OUT/hf/          config.json, model.safetensors (fp32, HF names), tokenizer files (pagedserve)
//   OUT/model.gguf   GGUF v3, f32 tensors, llama.cpp names and metadata, a "llama" tokenizer
// Plain Node.js (>= 18), no dependencies. Run with --help for the flags.
//
// Weights: uniform in [-1/sqrt(in_features), +1/sqrt(in_features)) from a seeded xoshiro128**
// stream per tensor (seeded from --seed and the tensor's HF name, so a tensor does not depend
// on the order of the others); RMSNorm weights are 1 (llama) or uniform in [0.5, 1.5)
// (qwen3_moe: so that a swapped q_norm/k_norm or a misplaced norm shows in the logits).
//
// --arch llama: the Q and K projections go into the GGUF with their rows permuted as
// llama.cpp's convert_hf_to_gguf.py (LlamaModel.permute) does: HF applies rope with
// rotate_half (pair i with i + head_dim/2), GGML's rope for the llama arch pairs rows 2i and
// 2i+1; viewing the rows as [n_head, 2, head_dim/2] and swapping the last two axes maps one
// onto the other.
//
// --arch qwen3_moe: what transformers' Qwen3MoeForCausalLM saves (per-expert tensors
// model.layers.N.mlp.experts.E.{gate,up,down}_proj.weight, router mlp.gate.weight [E, hidden],
// self_attn.{q,k}_norm.weight [head_dim]) and what convert_hf_to_gguf.py's Qwen3MoeModel
// (conversion/qwen.py: Qwen2MoeModel) writes: arch "qwen3moe", the experts of a layer stacked
// in expert order (torch.stack(dim=0): ffn_gate_exps/ffn_up_exps [E, moe_inter, hidden],
// ffn_down_exps [E, hidden, moe_inter], i.e. GGML ne {hidden, moe_inter, E} and
// {moe_inter, hidden, E}), the router as ffn_gate_inp, attn_q_norm/attn_k_norm, and Q/K NOT
// permuted: Qwen2Model/Qwen3Model are not LlamaModel, and llama.cpp ropes qwen3moe with
// LLAMA_ROPE_TYPE_NEOX (rotate_half, as HF). llama.cpp's qwen3moe graph always renormalises the
// top-k router weights (build_moe_ffn(..., norm_w = true, ...)) and reads no key for it, so the
// config says norm_topk_prob true (--no-norm-topk-prob writes false: a model llama.cpp runs
// differently, on purpose).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const defaults = {
    hidden: 1024, layers: 8, heads: 16, 'kv-heads': 4, 'head-dim': 64, intermediate: 2816,
    vocab: 32000, 'max-pos': 2048, 'rope-theta': 10000, 'rms-eps': 1e-5, seed: 1234,
    tokenizer: path.join(repoRoot, 'tests', 'data', 'tokenizers', 'llama2'),
    out: '', name: '',
};
// The mixture-of-experts flags: kept apart from `defaults` so that a llama folder's stamp (the
// `defaults` keys) stays what it was before --arch existed.
const moeDefaults = { arch: 'llama', experts: 32, 'experts-per-tok': 4, 'moe-intermediate': 512 };
const ARCHS = ['llama', 'qwen3_moe'];

function usage() {
    return `usage: node bench/peers/make-weights.mjs [flags]

  --arch A            llama or qwen3_moe          (default ${moeDefaults.arch})
  --hidden N          hidden_size                 (default ${defaults.hidden})
  --layers N          num_hidden_layers           (default ${defaults.layers})
  --heads N           num_attention_heads         (default ${defaults.heads})
  --kv-heads N        num_key_value_heads         (default ${defaults['kv-heads']})
  --head-dim N        head_dim                    (default ${defaults['head-dim']})
  --intermediate N    intermediate_size           (default ${defaults.intermediate}; qwen3_moe: written
                      to config.json and the GGUF, unused as every layer is sparse)
  --experts N         qwen3_moe: num_experts      (default ${moeDefaults.experts})
  --experts-per-tok N qwen3_moe: num_experts_per_tok (default ${moeDefaults['experts-per-tok']})
  --moe-intermediate N qwen3_moe: moe_intermediate_size (default ${moeDefaults['moe-intermediate']})
  --vocab N           vocab_size, >= the tokenizer's 32000 (default ${defaults.vocab})
  --max-pos N         max_position_embeddings     (default ${defaults['max-pos']})
  --rope-theta F      rope_theta                  (default ${defaults['rope-theta']})
  --rms-eps F         rms_norm_eps                (default ${defaults['rms-eps']})
  --seed N            PRNG seed                   (default ${defaults.seed})
  --tokenizer DIR     folder with tokenizer.json + tokenizer_config.json (Llama-2, 32000 tokens)
                      (default tests/data/tokenizers/llama2: bash scripts/test-data.sh)
  --name NAME         model name (default llama-<params>m-h<hidden>-l<layers>, qwen3_moe:
                      qwen3moe-<params>m-a<active params>m-e<experts>k<per tok>-h<hidden>-l<layers>)
  --out DIR           output folder (default build-peers/weights/NAME)
  --force             rewrite even when OUT holds files made with the same flags
  --no-qk-permute     write Q/K unpermuted into the GGUF (wrong on purpose: shows that
                      check-greedy.sh catches a bad conversion); default OUT gets a -nopermute suffix
                      (llama only: qwen3_moe's Q/K are never permuted)
  --no-norm-topk-prob qwen3_moe: config.json says norm_topk_prob false (wrong on purpose:
                      llama.cpp's qwen3moe always renormalises); default OUT gets a -nonorm suffix

Defaults of --arch qwen3_moe: hidden 1024, 8 layers, 16/4 heads, head_dim 64, 32 experts,
4 per token, moe_intermediate 512, vocab 32000, untied: 489M parameters, 137M active (a token's
experts, attention, norms, router, embedding and lm_head).

Writes OUT/hf/{config.json,model.safetensors,tokenizer.json,tokenizer_config.json} and
OUT/model.gguf, then prints OUT. Skips the work when OUT/stamp.json matches the flags.`;
}

function parseArgs(argv) {
    const all = { ...defaults, ...moeDefaults };
    const opts = { ...all, force: false, permute: true, normTopk: true };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '-h' || a === '--help') { console.log(usage()); process.exit(0); }
        if (a === '--force') { opts.force = true; continue; }
        if (a === '--no-qk-permute') { opts.permute = false; continue; }
        if (a === '--no-norm-topk-prob') { opts.normTopk = false; continue; }
        const m = a.match(/^--([a-z-]+)(?:=(.*))?$/);
        if (!m || !(m[1] in all)) { console.error(`unknown argument: ${a}\n\n${usage()}`); process.exit(2); }
        const v = m[2] !== undefined ? m[2] : argv[++i];
        if (v === undefined) { console.error(`missing value for --${m[1]}`); process.exit(2); }
        opts[m[1]] = typeof all[m[1]] === 'number' ? Number(v) : v;
        if (typeof all[m[1]] === 'number' && !Number.isFinite(opts[m[1]])) {
            console.error(`--${m[1]} needs a number, got '${v}'`); process.exit(2);
        }
    }
    for (const k of ['hidden', 'layers', 'heads', 'kv-heads', 'head-dim', 'intermediate', 'vocab', 'max-pos', 'seed']) {
        if (!Number.isInteger(opts[k]) || opts[k] < (k === 'seed' ? 0 : 1)) { console.error(`--${k} must be a positive integer`); process.exit(2); }
    }
    if (opts.heads % opts['kv-heads'] !== 0) { console.error('--kv-heads must divide --heads'); process.exit(2); }
    if (opts['head-dim'] % 2 !== 0) { console.error('--head-dim must be even'); process.exit(2); }
    if (!ARCHS.includes(opts.arch)) { console.error(`--arch must be one of ${ARCHS.join(', ')}`); process.exit(2); }
    if (opts.arch === 'qwen3_moe') {
        for (const k of ['experts', 'experts-per-tok', 'moe-intermediate']) {
            if (!Number.isInteger(opts[k]) || opts[k] < 1) { console.error(`--${k} must be a positive integer`); process.exit(2); }
        }
        if (opts['experts-per-tok'] > opts.experts) { console.error('--experts-per-tok must not exceed --experts'); process.exit(2); }
        if (!opts.permute) { console.error('--no-qk-permute is for --arch llama (qwen3_moe\'s Q/K are never permuted)'); process.exit(2); }
    } else {
        for (const k of Object.keys(moeDefaults).filter((k) => k !== 'arch')) {
            if (opts[k] !== moeDefaults[k]) { console.error(`--${k} needs --arch qwen3_moe`); process.exit(2); }
        }
        if (!opts.normTopk) { console.error('--no-norm-topk-prob needs --arch qwen3_moe'); process.exit(2); }
    }
    return opts;
}

// ---------- PRNG: xoshiro128** seeded through splitmix32 ----------
function fnv1a(str) {
    let h = 0x811c9dc5;
    for (let i = 0; i < str.length; i++) { h ^= str.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h >>> 0;
}
function makeRng(seed, name) {
    let s = (fnv1a(name) ^ Math.imul(seed >>> 0, 0x9e3779b9)) >>> 0;
    const splitmix = () => {
        s = (s + 0x9e3779b9) >>> 0;
        let z = s;
        z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
        z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
        return (z ^ (z >>> 16)) >>> 0;
    };
    let a = splitmix(), b = splitmix(), c = splitmix(), d = splitmix();
    if ((a | b | c | d) === 0) a = 1;
    return () => {  // uniform in [0, 1) with 24 random bits
        const r = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
        const t = (b << 9) >>> 0;
        c ^= a; d ^= b; b ^= c; a ^= d; c = (c ^ t) >>> 0; d = ((d << 11) | (d >>> 21)) >>> 0;
        return (r >>> 8) / 16777216;
    };
}

// ---------- the model's tensors ----------
// Each: HF name, GGUF name, HF shape [rows, cols] (cols = in_features; 1-D: [n]), kind.
// A GGUF tensor made of several HF tensors (qwen3_moe's stacked experts) has `parts`: the HF
// tensors in the order they are concatenated (expert 0 first) and the GGUF shape in `shape`
// ([E, rows, cols]: the torch.stack(dim=0) of convert_hf_to_gguf.py).
function tensorList(o) {
    const H = o.hidden, I = o.intermediate, V = o.vocab, D = o['head-dim'];
    const q = o.heads * D, kv = o['kv-heads'] * D;
    const moe = o.arch === 'qwen3_moe';
    const norm = moe ? 'random' : 'ones';
    const t = [{ hf: 'model.embed_tokens.weight', gguf: 'token_embd.weight', shape: [V, H] }];
    for (let l = 0; l < o.layers; l++) {
        const p = `model.layers.${l}.`, g = `blk.${l}.`;
        t.push(
            { hf: p + 'input_layernorm.weight', gguf: g + 'attn_norm.weight', shape: [H], norm },
            { hf: p + 'self_attn.q_proj.weight', gguf: g + 'attn_q.weight', shape: [q, H], permuteHeads: moe ? 0 : o.heads },
            { hf: p + 'self_attn.k_proj.weight', gguf: g + 'attn_k.weight', shape: [kv, H], permuteHeads: moe ? 0 : o['kv-heads'] },
            { hf: p + 'self_attn.v_proj.weight', gguf: g + 'attn_v.weight', shape: [kv, H] },
            { hf: p + 'self_attn.o_proj.weight', gguf: g + 'attn_output.weight', shape: [H, q] },
        );
        if (moe) {
            t.push(
                { hf: p + 'self_attn.q_norm.weight', gguf: g + 'attn_q_norm.weight', shape: [D], norm },
                { hf: p + 'self_attn.k_norm.weight', gguf: g + 'attn_k_norm.weight', shape: [D], norm },
            );
        }
        t.push({ hf: p + 'post_attention_layernorm.weight', gguf: g + 'ffn_norm.weight', shape: [H], norm });
        if (moe) {
            const E = o.experts, M = o['moe-intermediate'];
            t.push({ hf: p + 'mlp.gate.weight', gguf: g + 'ffn_gate_inp.weight', shape: [E, H] });
            for (const [proj, gname, shape] of [['gate_proj', 'ffn_gate_exps', [M, H]], ['up_proj', 'ffn_up_exps', [M, H]],
                ['down_proj', 'ffn_down_exps', [H, M]]]) {
                const parts = [];
                for (let e = 0; e < E; e++) parts.push({ hf: `${p}mlp.experts.${e}.${proj}.weight`, shape });
                t.push({ gguf: `${g}${gname}.weight`, shape: [E, ...shape], parts });
            }
        } else {
            t.push(
                { hf: p + 'mlp.gate_proj.weight', gguf: g + 'ffn_gate.weight', shape: [I, H] },
                { hf: p + 'mlp.up_proj.weight', gguf: g + 'ffn_up.weight', shape: [I, H] },
                { hf: p + 'mlp.down_proj.weight', gguf: g + 'ffn_down.weight', shape: [H, I] },
            );
        }
    }
    t.push(
        { hf: 'model.norm.weight', gguf: 'output_norm.weight', shape: [H], norm },
        { hf: 'lm_head.weight', gguf: 'output.weight', shape: [V, H] },
    );
    const numel = (x) => x.shape.reduce((a, b) => a * b, 1);
    for (const x of t) {
        x.numel = numel(x);
        if (!x.parts) x.parts = [x];
        for (const part of x.parts) part.numel = numel(part);
    }
    return t;
}
// The HF tensors (safetensors entries), in the order of the GGUF tensors that hold them.
const hfTensors = (tensors) => tensors.flatMap((t) => t.parts);

function generate(o, t) {  // t: one HF tensor
    const out = new Float32Array(t.numel);
    if (t.norm === 'ones') { out.fill(1); return out; }
    const rng = makeRng(o.seed, t.hf);
    if (t.norm === 'random') {
        for (let i = 0; i < out.length; i++) out[i] = 0.5 + rng();
        return out;
    }
    const bound = 1 / Math.sqrt(t.shape[1]);
    for (let i = 0; i < out.length; i++) out[i] = bound * (2 * rng() - 1);
    return out;
}

// llama.cpp's LlamaModel.permute: rows viewed as [n_head, 2, head_dim/2] -> [n_head, head_dim/2, 2].
function permuteRows(w, rows, cols, nHead) {
    const hd = rows / nHead, half = hd / 2;
    const out = new Float32Array(w.length);
    for (let h = 0; h < nHead; h++) {
        for (let i = 0; i < half; i++) {
            for (let j = 0; j < 2; j++) {
                const dst = h * hd + 2 * i + j, src = h * hd + j * half + i;
                out.set(w.subarray(src * cols, (src + 1) * cols), dst * cols);
            }
        }
    }
    return out;
}

// ---------- GGUF writer ----------
const GGUF = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
class ByteSink {
    constructor() { this.parts = []; this.length = 0; }
    push(buf) { this.parts.push(buf); this.length += buf.length; }
    u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); this.push(b); }
    i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.push(b); }
    u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
    f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
    str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
    concat() { return Buffer.concat(this.parts, this.length); }
}
function ggufKv(sink, key, type, value, elemType) {
    sink.str(key);
    sink.u32(type);
    const put = (t, v) => {
        switch (t) {
            case GGUF.UINT32: sink.u32(v); break;
            case GGUF.INT32: sink.i32(v); break;
            case GGUF.FLOAT32: sink.f32(v); break;
            case GGUF.BOOL: sink.push(Buffer.from([v ? 1 : 0])); break;
            case GGUF.STRING: sink.str(v); break;
            default: throw new Error(`unsupported gguf type ${t}`);
        }
    };
    if (type === GGUF.ARRAY) {
        sink.u32(elemType);
        sink.u64(value.length);
        for (const v of value) put(elemType, v);
    } else {
        put(type, value);
    }
}

// Token types of llama.cpp (gguf-py TokenType).
const TT = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 };

function buildVocab(o) {
    const tj = JSON.parse(fs.readFileSync(path.join(o.tokenizer, 'tokenizer.json'), 'utf8'));
    const tc = JSON.parse(fs.readFileSync(path.join(o.tokenizer, 'tokenizer_config.json'), 'utf8'));
    if (tj.model?.type !== 'BPE' || !tj.model.byte_fallback) {
        throw new Error(`${o.tokenizer}/tokenizer.json is not a Llama-2 style BPE tokenizer with byte fallback`);
    }
    const byId = [];
    for (const [tok, id] of Object.entries(tj.model.vocab)) byId[id] = tok;
    for (const a of tj.added_tokens ?? []) byId[a.id] = a.content;
    const n = byId.length;
    if (n > o.vocab) throw new Error(`the tokenizer has ${n} tokens, more than --vocab ${o.vocab}`);
    const idOf = (name) => {
        const v = tc[name];
        const s = typeof v === 'string' ? v : v?.content;
        if (s === undefined || s === null) return undefined;
        const id = byId.indexOf(s);
        return id >= 0 ? id : undefined;
    };
    const bos = idOf('bos_token'), eos = idOf('eos_token'), unk = idOf('unk_token');
    const special = new Set((tj.added_tokens ?? []).filter((a) => a.special).map((a) => a.id));
    const tokens = [], scores = [], types = [];
    for (let id = 0; id < o.vocab; id++) {
        const tok = id < n ? byId[id] : undefined;
        if (tok === undefined) { tokens.push(`[PAD${id}]`); scores.push(-1000); types.push(TT.UNUSED); continue; }
        tokens.push(tok);
        if (id === unk) { scores.push(0); types.push(TT.UNKNOWN); }
        else if (special.has(id)) { scores.push(0); types.push(TT.CONTROL); }
        else if (/^<0x[0-9A-Fa-f]{2}>$/.test(tok)) { scores.push(0); types.push(TT.BYTE); }
        // SentencePiece-style scores: a piece's score is minus its rank, so the merge order of the
        // BPE vocabulary (ids after the 3 specials and 256 bytes) is what llama.cpp's SPM tokenizer uses.
        else { scores.push(-(id - 259)); types.push(TT.NORMAL); }
    }
    return {
        tokens, scores, types, bos, eos, unk,
        addBos: tc.add_bos_token ?? true, addEos: tc.add_eos_token ?? false,
    };
}

function ggufHeader(o, tensors, vocab, name) {
    const kv = new ByteSink();
    let nkv = 0;
    const add = (...args) => { ggufKv(kv, ...args); nkv++; };
    if (o.arch === 'qwen3_moe') {
        // The keys TextModel.set_gguf_parameters + Qwen2MoeModel write for Qwen3MoeForCausalLM
        // (no vocab_size, no rope.dimension_count: llama.cpp takes n_rot = head_dim).
        const A = 'qwen3moe';
        add('general.architecture', GGUF.STRING, A);
        add('general.name', GGUF.STRING, name);
        add('general.file_type', GGUF.UINT32, 0);  // LLAMA_FTYPE_ALL_F32
        add('general.quantization_version', GGUF.UINT32, 2);
        add('general.alignment', GGUF.UINT32, 32);
        add(`${A}.block_count`, GGUF.UINT32, o.layers);
        add(`${A}.context_length`, GGUF.UINT32, o['max-pos']);
        add(`${A}.embedding_length`, GGUF.UINT32, o.hidden);
        add(`${A}.feed_forward_length`, GGUF.UINT32, o.intermediate);
        add(`${A}.attention.head_count`, GGUF.UINT32, o.heads);
        add(`${A}.attention.head_count_kv`, GGUF.UINT32, o['kv-heads']);
        add(`${A}.rope.freq_base`, GGUF.FLOAT32, o['rope-theta']);
        add(`${A}.attention.layer_norm_rms_epsilon`, GGUF.FLOAT32, o['rms-eps']);
        add(`${A}.expert_count`, GGUF.UINT32, o.experts);
        add(`${A}.expert_used_count`, GGUF.UINT32, o['experts-per-tok']);
        add(`${A}.attention.key_length`, GGUF.UINT32, o['head-dim']);
        add(`${A}.attention.value_length`, GGUF.UINT32, o['head-dim']);
        add(`${A}.expert_feed_forward_length`, GGUF.UINT32, o['moe-intermediate']);
    } else {
        const A = 'llama';
        add('general.architecture', GGUF.STRING, A);
        add('general.name', GGUF.STRING, name);
        add('general.file_type', GGUF.UINT32, 0);  // LLAMA_FTYPE_ALL_F32
        add('general.quantization_version', GGUF.UINT32, 2);
        add('general.alignment', GGUF.UINT32, 32);
        add(`${A}.vocab_size`, GGUF.UINT32, o.vocab);
        add(`${A}.context_length`, GGUF.UINT32, o['max-pos']);
        add(`${A}.embedding_length`, GGUF.UINT32, o.hidden);
        add(`${A}.block_count`, GGUF.UINT32, o.layers);
        add(`${A}.feed_forward_length`, GGUF.UINT32, o.intermediate);
        add(`${A}.attention.head_count`, GGUF.UINT32, o.heads);
        add(`${A}.attention.head_count_kv`, GGUF.UINT32, o['kv-heads']);
        add(`${A}.attention.key_length`, GGUF.UINT32, o['head-dim']);
        add(`${A}.attention.value_length`, GGUF.UINT32, o['head-dim']);
        add(`${A}.attention.layer_norm_rms_epsilon`, GGUF.FLOAT32, o['rms-eps']);
        add(`${A}.rope.freq_base`, GGUF.FLOAT32, o['rope-theta']);
        add(`${A}.rope.dimension_count`, GGUF.UINT32, o['head-dim']);
    }
    add('tokenizer.ggml.model', GGUF.STRING, 'llama');
    add('tokenizer.ggml.pre', GGUF.STRING, 'default');
    add('tokenizer.ggml.tokens', GGUF.ARRAY, vocab.tokens, GGUF.STRING);
    add('tokenizer.ggml.scores', GGUF.ARRAY, vocab.scores, GGUF.FLOAT32);
    add('tokenizer.ggml.token_type', GGUF.ARRAY, vocab.types, GGUF.INT32);
    if (vocab.bos !== undefined) add('tokenizer.ggml.bos_token_id', GGUF.UINT32, vocab.bos);
    if (vocab.eos !== undefined) add('tokenizer.ggml.eos_token_id', GGUF.UINT32, vocab.eos);
    if (vocab.unk !== undefined) add('tokenizer.ggml.unknown_token_id', GGUF.UINT32, vocab.unk);
    add('tokenizer.ggml.add_bos_token', GGUF.BOOL, vocab.addBos);
    add('tokenizer.ggml.add_eos_token', GGUF.BOOL, vocab.addEos);

    const ti = new ByteSink();
    let off = 0;
    for (const t of tensors) {
        ti.str(t.gguf);
        ti.u32(t.shape.length);
        for (let j = t.shape.length - 1; j >= 0; j--) ti.u64(t.shape[j]);  // ne[0] = the fastest axis
        ti.u32(0);  // GGML_TYPE_F32
        ti.u64(off);
        t.ggufOffset = off;
        off += Math.ceil((t.numel * 4) / 32) * 32;
    }
    const head = new ByteSink();
    head.push(Buffer.from('GGUF', 'ascii'));
    head.u32(3);
    head.u64(tensors.length);
    head.u64(nkv);
    head.push(kv.concat());
    head.push(ti.concat());
    const h = head.concat();
    const pad = (32 - (h.length % 32)) % 32;
    return Buffer.concat([h, Buffer.alloc(pad)]);
}

// ---------- safetensors ----------
function safetensorsHeader(tensors) {
    const meta = { __metadata__: { format: 'pt' } };
    let off = 0;
    for (const t of tensors) {
        meta[t.hf] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + t.numel * 4] };
        t.stOffset = off;
        off += t.numel * 4;
    }
    let json = JSON.stringify(meta);
    json += ' '.repeat((8 - ((json.length + 8) % 8)) % 8);
    const b = Buffer.alloc(8 + json.length);
    b.writeBigUInt64LE(BigInt(json.length), 0);
    b.write(json, 8, 'utf8');
    return b;
}

function writeAt(fd, buf, pos) {
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done, pos + done);
}

function main() {
    const o = parseArgs(process.argv.slice(2));
    const tensors = tensorList(o);
    const nParams = tensors.reduce((a, t) => a + t.numel, 0);
    const moe = o.arch === 'qwen3_moe';
    // Parameters a token runs through: all but the experts it does not pick.
    const nActive = moe ? nParams - o.layers * (o.experts - o['experts-per-tok']) * 3 * o.hidden * o['moe-intermediate'] : nParams;
    const M = (x) => Math.round(x / 1e6);
    const defaultName = moe
        ? `qwen3moe-${M(nParams)}m-a${M(nActive)}m-e${o.experts}k${o['experts-per-tok']}-h${o.hidden}-l${o.layers}`
        : `llama-${M(nParams)}m-h${o.hidden}-l${o.layers}`;
    const name = (o.name || defaultName) + (o.permute ? '' : '-nopermute') + (o.normTopk ? '' : '-nonorm');
    const out = path.resolve(o.out || path.join(repoRoot, 'build-peers', 'weights', name));
    const stampKeys = Object.keys(defaults).filter((k) => k !== 'out' && k !== 'tokenizer');
    // A llama folder's stamp is what it was before --arch (its folders stay up to date).
    const moeStamp = moe ? { ...Object.fromEntries(Object.keys(moeDefaults).map((k) => [k, o[k]])), normTopk: o.normTopk } : {};
    const stamp = JSON.stringify({ version: 1, ...Object.fromEntries(stampKeys.map((k) => [k, o[k]])), name, permute: o.permute, ...moeStamp });
    const stampPath = path.join(out, 'stamp.json');
    if (!o.force && fs.existsSync(stampPath) && fs.readFileSync(stampPath, 'utf8') === stamp
        && fs.existsSync(path.join(out, 'model.gguf')) && fs.existsSync(path.join(out, 'hf', 'model.safetensors'))) {
        console.error(`[make-weights] ${out} is up to date (${(nParams / 1e6).toFixed(1)}M parameters` +
            `${moe ? `, ${(nActive / 1e6).toFixed(1)}M active` : ''})`);
        console.log(out);
        return;
    }
    fs.mkdirSync(path.join(out, 'hf'), { recursive: true });
    fs.rmSync(stampPath, { force: true });

    const vocab = buildVocab(o);
    const config = moe ? {
        // The keys of transformers' Qwen3MoeConfig.to_dict() (4.5x), every layer sparse.
        architectures: ['Qwen3MoeForCausalLM'], model_type: 'qwen3_moe', torch_dtype: 'float32',
        vocab_size: o.vocab, hidden_size: o.hidden, intermediate_size: o.intermediate,
        num_hidden_layers: o.layers, num_attention_heads: o.heads, num_key_value_heads: o['kv-heads'],
        head_dim: o['head-dim'], max_position_embeddings: o['max-pos'], rope_theta: o['rope-theta'],
        rope_scaling: null, rms_norm_eps: o['rms-eps'], hidden_act: 'silu', tie_word_embeddings: false,
        attention_bias: false, attention_dropout: 0.0, initializer_range: 0.02,
        use_sliding_window: false, sliding_window: null, max_window_layers: o.layers,
        num_experts: o.experts, num_experts_per_tok: o['experts-per-tok'],
        moe_intermediate_size: o['moe-intermediate'], norm_topk_prob: o.normTopk,
        decoder_sparse_step: 1, mlp_only_layers: [], output_router_logits: false, router_aux_loss_coef: 0.001,
        bos_token_id: vocab.bos ?? 1, eos_token_id: vocab.eos ?? 2, use_cache: true,
    } : {
        architectures: ['LlamaForCausalLM'], model_type: 'llama', torch_dtype: 'float32',
        vocab_size: o.vocab, hidden_size: o.hidden, intermediate_size: o.intermediate,
        num_hidden_layers: o.layers, num_attention_heads: o.heads, num_key_value_heads: o['kv-heads'],
        head_dim: o['head-dim'], max_position_embeddings: o['max-pos'], rope_theta: o['rope-theta'],
        rope_scaling: null, rms_norm_eps: o['rms-eps'], hidden_act: 'silu', tie_word_embeddings: false,
        attention_bias: false, mlp_bias: false, initializer_range: 0.02,
        bos_token_id: vocab.bos ?? 1, eos_token_id: vocab.eos ?? 2, use_cache: true,
    };
    fs.writeFileSync(path.join(out, 'hf', 'config.json'), JSON.stringify(config, null, 2) + '\n');
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
        fs.copyFileSync(path.join(o.tokenizer, f), path.join(out, 'hf', f));
        fs.chmodSync(path.join(out, 'hf', f), 0o644);
    }

    const stHead = safetensorsHeader(hfTensors(tensors));
    const ggHead = ggufHeader(o, tensors, vocab, name);
    const stPath = path.join(out, 'hf', 'model.safetensors'), ggPath = path.join(out, 'model.gguf');
    const st = fs.openSync(stPath + '.tmp', 'w'), gg = fs.openSync(ggPath + '.tmp', 'w');
    writeAt(st, stHead, 0);
    writeAt(gg, ggHead, 0);
    const t0 = Date.now();
    for (const t of tensors) {
        let at = ggHead.length + t.ggufOffset;  // a stacked tensor's parts follow one another
        for (const part of t.parts) {
            const w = generate(o, part);
            writeAt(st, Buffer.from(w.buffer, w.byteOffset, w.byteLength), stHead.length + part.stOffset);
            const g = t.permuteHeads && o.permute ? permuteRows(w, t.shape[0], t.shape[1], t.permuteHeads) : w;
            writeAt(gg, Buffer.from(g.buffer, g.byteOffset, g.byteLength), at);
            at += g.byteLength;
        }
        const padded = Math.ceil((t.numel * 4) / 32) * 32;
        if (padded > t.numel * 4) writeAt(gg, Buffer.alloc(padded - t.numel * 4), ggHead.length + t.ggufOffset + t.numel * 4);
    }
    fs.closeSync(st);
    fs.closeSync(gg);
    fs.renameSync(stPath + '.tmp', stPath);
    fs.renameSync(ggPath + '.tmp', ggPath);
    fs.writeFileSync(stampPath, stamp);
    console.error(`[make-weights] ${name}: ${(nParams / 1e6).toFixed(1)}M parameters` +
        `${moe ? ` (${(nActive / 1e6).toFixed(1)}M active)` : ''}, ${tensors.length} GGUF tensors, ` +
        `${((Date.now() - t0) / 1000).toFixed(1)} s -> ${out}/hf and ${out}/model.gguf`);
    console.log(out);
}

main();
