// node bench/speculative/workloads.mjs PAGEDSERVE_BIN DIR: the workloads of compare.sh from
// the demo corpus's held-out documents (prepared into DIR/corpus by
// scripts/prepare-demo-corpus.sh unless it is there; the model never saw them), tokenized
// with the demo model's tokenizer (`pagedserve tokenize`). 64 tokens to write each:
//   repeat.jsonl     32 prompts in which the answer is already written: a held-out start S
//                    (40 words), an answer G, a blank line, then S again, where G is what
//                    the model writes after "S G <blank> S" (found by iterating: G0 = its
//                    continuation of S, G(i+1) = its continuation of "S G(i) <blank> S", at
//                    most 6 rounds, stopping when one round changes nothing). The model's
//                    answer copies from its prompt, as when an agent loop, a regenerated
//                    answer or an edit repeats what the context holds
//   paragraph.jsonl  32 prompts: a held-out paragraph, a blank line, its first 8 words (the
//                    demo model is too small to go on copying a paragraph it did not write)
//   heldout.jsonl    32 prompts: the first 40 words of other held-out paragraphs
//   repeat16.jsonl, heldout16.jsonl   those prompts twice, for 16 sequences at once
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [bin, dir] = process.argv.slice(2);
if (!existsSync(`${dir}/corpus/text/heldout.txt`)) {
  execFileSync('bash', ['scripts/prepare-demo-corpus.sh', `${dir}/corpus`], { stdio: 'ignore' });
}
const paragraphs = readFileSync(`${dir}/corpus/text/heldout.txt`, 'utf8')
  .split('\n')
  .filter((p) => p.length > 300 && p.length < 700);
if (paragraphs.length < 64) throw new Error(`only ${paragraphs.length} held-out paragraphs`);
const words = (p, n) => p.split(/\s+/).slice(0, n).join(' ');
const pick = (k) => paragraphs[(k * 7) % paragraphs.length];

const tokenize = (texts, special) =>
  execFileSync(bin, ['tokenize', '--tokenizer', 'models/pagedserve-demo'], {
    input: texts.map((text) => JSON.stringify({ text, add_special_tokens: special })).join('\n') + '\n',
  })
    .toString()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).ids);
const greedy = (ids) =>
  JSON.parse(
    execFileSync(bin, ['generate', '--prompt-ids', ids.join(','), '--max-tokens', '64',
      '--temperature', '0', '--ignore-eos', '--json'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString(),
  ).token_ids;

const starts = tokenize(Array.from({ length: 32 }, (_, k) => words(pick(k), 40)), true);
const restarts = tokenize(Array.from({ length: 32 }, (_, k) => words(pick(k), 40)), false);
const [blank] = tokenize(['\n\n'], false);
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const repeat = starts.map((s, k) => {
  let answer = greedy(s);
  for (let round = 0; round < 6; ++round) {
    const next = greedy([...s, ...answer, ...blank, ...restarts[k]]);
    if (same(next, answer)) break;
    answer = next;
  }
  return [...s, ...answer, ...blank, ...restarts[k]];
});
const paragraph = tokenize(
  Array.from({ length: 32 }, (_, k) => `${pick(k + 40)}\n\n${words(pick(k + 40), 8)}`), true);
const heldout = tokenize(Array.from({ length: 32 }, (_, k) => words(pick(k + 100), 40)), true);

const write = (name, prompts) =>
  writeFileSync(`${dir}/${name}.jsonl`,
    prompts.map((p) => JSON.stringify({ prompt_token_ids: p, max_tokens: 64 })).join('\n') + '\n');
write('repeat', repeat);
write('paragraph', paragraph);
write('heldout', heldout);
write('repeat16', [...repeat, ...repeat]);
write('heldout16', [...heldout, ...heldout]);
