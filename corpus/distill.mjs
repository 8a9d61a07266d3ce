// Sequence-level distillation data for the demo model's speculative draft (Kim and Rush,
// 2016; DistillSpec, Zhou et al., 2023): the demo model's own greedy continuations of starts
// of *training* paragraphs, so the draft learns the choices the model it drafts for makes.
// Held-out text is never used (the benchmarks continue held-out starts).
//   node corpus/distill.mjs requests TRAIN.txt COUNT > requests.jsonl   (a run-batch file)
//   node corpus/distill.mjs text requests.jsonl results.jsonl > distill.txt
// Each request: the first 8..48 words of a training paragraph (by its index), 96 greedy
// tokens past any end of text (as the benchmarks' ignore_eos requests write); each text
// line: that start and its continuation, one document per line.
import { readFileSync } from 'node:fs';

const [mode, a, b] = process.argv.slice(2);
const lines = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');

if (mode === 'requests') {
  const paragraphs = lines(a).filter((p) => p.split(/\s+/).length >= 24);
  const count = Math.min(Number(b), paragraphs.length);
  const step = paragraphs.length / count;
  for (let k = 0; k < count; ++k) {
    const words = paragraphs[Math.floor(k * step)].split(/\s+/);
    const prompt = words.slice(0, Math.min(words.length - 8, 8 + (k % 41))).join(' ');
    const body = { prompt, max_tokens: 96, temperature: 0, ignore_eos: true };
    console.log(JSON.stringify({ custom_id: `d${k}`, method: 'POST', url: '/v1/completions', body }));
  }
} else if (mode === 'text') {
  const prompts = new Map(lines(a).map((l) => JSON.parse(l)).map((r) => [r.custom_id, r.body.prompt]));
  for (const result of lines(b).map((l) => JSON.parse(l))) {
    const text = result.response?.body?.choices?.[0]?.text;
    if (text === undefined) continue;
    console.log((prompts.get(result.custom_id) + text).replace(/\s*\n\s*/g, ' ').trim());
  }
} else {
  throw new Error('usage: node corpus/distill.mjs requests|text ...');
}
