// Baseline for bench/tokenizer: encodes a text file with @lenml/tokenizers (the JavaScript
// port of transformers.js tokenizers) and prints one JSON line with its figures.
// usage: node bench.mjs <tokenizer_dir> <text_file> <ids_out_file> <runs>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenizerLoader } from "@lenml/tokenizers";

const [dir, textFile, idsFile, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);

const loadStart = performance.now();
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
  tokenizerConfig: JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")),
});
const loadMs = performance.now() - loadStart;

const text = readFileSync(textFile, "utf8");
const bytes = Buffer.byteLength(text, "utf8");
let ids = [];
const seconds = [];
for (let i = 0; i < runs; ++i) {
  const start = performance.now();
  ids = tokenizer.encode(text, { add_special_tokens: false });
  seconds.push((performance.now() - start) / 1000);
}
writeFileSync(idsFile, ids.join("\n") + "\n");
const mbps = (s) => bytes / 1e6 / s;
console.log(JSON.stringify({
  load_ms: loadMs,
  first_mb_per_s: mbps(seconds[0]),
  best_mb_per_s: mbps(Math.min(...seconds)),
  num_ids: ids.length,
}));
