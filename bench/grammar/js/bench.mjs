// Baseline for `pagedserve bench grammar`: xgrammar built to WASM (@mlc-ai/web-xgrammar) on
// Node, on the workload the C++ side prepared (bench/grammar/xgrammar.cpp): the same
// grammars, the same token ids, the same vocabulary and stop tokens. Prints one JSON object
// with raw samples (the C++ side computes the statistics, so both engines' percentiles are
// computed the same way).
//
// usage: node bench.mjs <prepared.json>
//
// Each kind is compiled as vLLM's xgrammar backend does, with compact JSON to match ours
// (any_whitespace false, separators "," and ":", no indent, strict mode):
//   json        compileJSONSchema(schema, false, -1, [",", ":"], true)
//   grammar     compileGrammar(gbnf)
//   choice      compileGrammar('root ::= "a" | "b" ...') (vLLM's choice_as_grammar)
//   regex       compileGrammar(our regex_to_gbnf's output): web-xgrammar 0.1.27 exports no
//               regex compiler, so xgrammar compiles the grammar our translator wrote.
//   json_object compileJSONSchema('{"type":"object"}', true) as vLLM does, but with any
//               whitespace: xgrammar 0.1.27's generic JSON rules ignore the separators and
//               demand ", " between members when whitespace is off, which compact text does
//               not have (and our GBNF for it masks ~1000x slower in xgrammar than its own).
import { readFileSync } from "node:fs";
import { Module, createRequire } from "node:module";
import { dirname } from "node:path";

// The package is marked "type": "module" but ships a UMD (CommonJS) bundle, which Node can
// neither import nor require: it is compiled here as the CommonJS module it is.
function load_commonjs(specifier) {
  const file = createRequire(import.meta.url).resolve(specifier);
  const module = new Module(file);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  module._compile(readFileSync(file, "utf8"), file);
  return module.exports;
}

const { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } =
    load_commonjs("@mlc-ai/web-xgrammar/lib/index.js");
const input = JSON.parse(readFileSync(process.argv[2], "utf8"));

const now_us = () => Number(process.hrtime.bigint()) / 1e3;

// The tokenizer's tokens as written in tokenizer.json, by id; xgrammar decodes them itself.
function encoded_vocab(tokenizer, vocab_size) {
  const vocab = new Array(vocab_size).fill("");
  for (const [token, id] of Object.entries(tokenizer.model.vocab)) {
    if (id < vocab_size) vocab[id] = token;
  }
  for (const added of tokenizer.added_tokens ?? []) {
    if (added.id < vocab_size) vocab[added.id] = added.content;
  }
  return vocab;
}

function vocab_type(tokenizer) {
  const decoders = tokenizer.decoder?.decoders ?? [tokenizer.decoder ?? {}];
  if (decoders.some((d) => d.type === "ByteLevel")) return "byte_level";
  if (tokenizer.model.byte_fallback) return "byte_fallback";
  return "raw";
}

async function compile(compiler, entry) {
  const compact = [false, -1, [",", ":"], true];
  switch (entry.kind) {
    case "json":
      return compiler.compileJSONSchema(JSON.stringify(entry.spec), ...compact);
    case "choice":
      return compiler.compileGrammar("root ::= " + entry.spec.map((c) => JSON.stringify(c)).join(" | "));
    case "json_object":
      return compiler.compileJSONSchema('{"type":"object"}', true);
    case "regex":
      return compiler.compileGrammar(entry.gbnf);
    default:
      return compiler.compileGrammar(entry.spec);
  }
}

const allows = (mask, id) => ((mask[id >>> 5] >>> (id & 31)) & 1) === 1;

// One walk of entry.steps (the text's tokens, then a stop token): per step the mask's time
// in µs. Throws when a token is not allowed, so a broken setup cannot pass for a fast one.
async function walk(compiled, entry) {
  const matcher = await GrammarMatcher.createGrammarMatcher(compiled);
  const samples = [];
  const ids = entry.steps;
  for (let i = 0; i < ids.length; ++i) {
    const start = now_us();
    const mask = await matcher.getNextTokenBitmask();
    samples.push(now_us() - start);
    if (!allows(mask, ids[i]) || !matcher.acceptToken(ids[i])) {
      throw new Error(`xgrammar: token ${i} (id ${ids[i]}) of '${entry.name}' is not allowed`);
    }
  }
  if (!matcher.isTerminated()) throw new Error(`xgrammar: '${entry.name}' did not terminate`);
  matcher.dispose();
  return samples;
}

async function bench_entry(compiler, entry, repeats) {
  const out = { name: entry.name, compile_ms: [], cold_us: [], warm_us: [] };
  for (let r = 0; r < repeats; ++r) {
    const start = now_us();
    const compiled = await compile(compiler, entry);
    out.compile_ms.push((now_us() - start) / 1e3);
    out.cold_us.push(...(await walk(compiled, entry)));
    out.warm_us.push(...(await walk(compiled, entry)));
    compiled.dispose();
  }
  return out;
}

async function main() {
  const tokenizer = JSON.parse(readFileSync(input.tokenizer_json, "utf8"));
  const vocab = encoded_vocab(tokenizer, input.vocab_size);
  (await Grammar.fromEBNF('root ::= "a"')).dispose();  // loads the WASM module, not timed
  const vocab_start = now_us();
  const info = await TokenizerInfo.createTokenizerInfo(
      vocab, vocab_type(tokenizer), false, input.vocab_size, input.stop_token_ids);
  const vocabulary_ms = (now_us() - vocab_start) / 1e3;
  // No compiler cache: every compile below is a fresh one, as ours.
  const compiler = await GrammarCompiler.createGrammarCompiler(info, false);
  (await compiler.compileGrammar('root ::= "warm-up"')).dispose();  // first-call costs, not timed
  const entries = [];
  for (const entry of input.entries) {
    entries.push(await bench_entry(compiler, entry, input.repeats));
  }
  const version = JSON.parse(
      readFileSync(new URL("./node_modules/@mlc-ai/web-xgrammar/package.json", import.meta.url)))
      .version;
  console.log(JSON.stringify({ version, vocabulary_ms, entries }));
}

main().catch((e) => {
  console.log(JSON.stringify({ error: String(e?.message ?? e) }));
  process.exit(1);
});
