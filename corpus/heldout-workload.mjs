// node corpus/heldout-workload.mjs TEXT > WORKLOAD.jsonl: the held-out paragraphs as a
// `pagedserve eval` workload, one {"text": ...} a line. A paragraph over 1,200 characters
// (about 340 tokens, within the demo model's 512 positions) is cut at sentence ends into
// pieces of at most that many characters; a sentence longer than that is a piece of its own.
import { readFileSync } from 'node:fs';

const max_chars = 1200;

export function pieces_of(paragraph) {
  if (paragraph.length <= max_chars) return [paragraph];
  const sentences = paragraph.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [paragraph];
  const out = [];
  let piece = '';
  for (const sentence of sentences) {
    if (piece && piece.length + sentence.length > max_chars) {
      out.push(piece.trim());
      piece = '';
    }
    piece += sentence;
  }
  if (piece.trim()) out.push(piece.trim());
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const text = readFileSync(process.argv[2], 'utf8');
  for (const line of text.split('\n')) {
    if (!line) continue;
    for (const piece of pieces_of(line)) console.log(JSON.stringify({ text: piece }));
  }
}
