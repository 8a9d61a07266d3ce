// chat.mjs: an instruction-style tail made from the corpus itself (no model writes any of it).
// Each example is one user turn and one assistant turn, from one of three templates:
//   continue:  "Continue the story: <sentence>"  ->  the next one or two sentences
//              ("Continue the text:" outside the fiction genres K-R)
//   noun:      "Write a sentence about <noun>."  ->  a sentence with that noun (tag nn)
//   name:      "What does the text say about <proper noun>?"  ->  a sentence naming it (np)
// Paragraphs are sampled with a fixed-seed generator, so the output is the same every run.

// mulberry32: a small deterministic PRNG; the seed fixes the whole tail.
function makeRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(random, list) {
  return list[Math.floor(random() * list.length)];
}

// A sentence that stands on its own as an answer: a capital (or a quote) first, a full stop
// (or ? !) last, quotes balanced, no symbols from the learned genre's formulas.
function isCleanSentence(text, words) {
  return (
    words.length >= 5 &&
    words.length <= 45 &&
    /^["A-Z]/.test(text) &&
    /[.?!]["')]?$/.test(text) &&
    (text.match(/"/g) || []).length % 2 === 0 &&
    !/[*&{}[\]]/.test(text)
  );
}

// Common nouns worth asking about: plain lowercase words of four letters or more.
function nounsOf(tokens) {
  return tokens.filter((t) => t.tag === 'nn' && /^[a-z]{4,}$/.test(t.word)).map((t) => t.word);
}

// Runs of consecutive proper nouns ("Ivan Allen Jr."), each a capitalized word.
function namesOf(tokens) {
  const names = [];
  let run = [];
  for (const t of [...tokens, { word: '', tag: '' }]) {
    if (t.tag === 'np' && /^[A-Z][A-Za-z.]*$/.test(t.word)) {
      run.push(t.word);
    } else {
      if (run.length > 0 && run.join(' ').length >= 3) names.push(run.join(' '));
      run = [];
    }
  }
  return names;
}

function example(user, assistant) {
  return {
    messages: [
      { role: 'user', content: user },
      { role: 'assistant', content: assistant },
    ],
  };
}

function continueExample(random, paragraph, fiction) {
  const n = paragraph.texts.length;
  const candidates = [];
  for (let i = 0; i + 1 < n; ++i) {
    if (isCleanSentence(paragraph.texts[i], paragraph.sentences[i])) candidates.push(i);
  }
  if (candidates.length === 0) return null;
  const i = pick(random, candidates);
  let answer = paragraph.texts[i + 1];
  if (i + 2 < n && random() < 0.5) answer += ' ' + paragraph.texts[i + 2];
  const verb = fiction ? 'Continue the story: ' : 'Continue the text: ';
  return example(verb + paragraph.texts[i], answer);
}

function aboutExample(random, paragraph, termsOf, question) {
  const choices = [];
  paragraph.texts.forEach((text, i) => {
    if (!isCleanSentence(text, paragraph.sentences[i])) return;
    for (const term of termsOf(paragraph.sentences[i])) choices.push({ term, text });
  });
  if (choices.length === 0) return null;
  const { term, text } = pick(random, choices);
  return example(question(term), text);
}

const templates = [
  (random, paragraph, fiction) => continueExample(random, paragraph, fiction),
  (random, paragraph) =>
    aboutExample(random, paragraph, nounsOf, (noun) => `Write a sentence about ${noun}.`),
  (random, paragraph) =>
    aboutExample(random, paragraph, namesOf, (name) => `What does the text say about ${name}?`),
];

// documents: [{genre: 'a'..'r', paragraphs: [{sentences: [[{word, tag}]], texts: [string]}]}]
// rate: the share of paragraphs that yield an example. Returns the examples in corpus order.
export function makeChatTail(documents, { rate, seed }) {
  const random = makeRandom(seed);
  const examples = [];
  for (const doc of documents) {
    const fiction = doc.genre >= 'k';
    for (const paragraph of doc.paragraphs) {
      if (random() >= rate) continue;
      const first = Math.floor(random() * templates.length);
      for (let k = 0; k < templates.length; ++k) {
        const made = templates[(first + k) % templates.length](random, paragraph, fiction);
        if (made) {
          examples.push(made);
          break;
        }
      }
    }
  }
  return examples;
}
