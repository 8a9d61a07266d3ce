// corpus/*.mjs: Brown's tagged tokens to English text, and the chat tail made from them.
// Run with `node --test` (CTest: demo_corpus_scripts).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseDocument, splitToken } from '../../../corpus/brown.mjs';
import { makeChatTail } from '../../../corpus/chat.mjs';
import { detokenize, detokenizeParagraph } from '../../../corpus/detokenize.mjs';

const words = (text) => text.split(' ');

test('the tag is what follows the last slash, less -hl/-tl/-nc', () => {
  assert.deepEqual(splitToken('Fulton/np-tl'), { word: 'Fulton', tag: 'np', headline: false });
  assert.deepEqual(splitToken('and/or/cc'), { word: 'and/or', tag: 'cc', headline: false });
  assert.deepEqual(splitToken('//in'), { word: '/', tag: 'in', headline: false });
  assert.deepEqual(splitToken('Merger/nn-hl'), { word: 'Merger', tag: 'nn', headline: true });
  assert.deepEqual(splitToken('Club/nn-tl-hl'), { word: 'Club', tag: 'nn', headline: true });
});

test('blocks are paragraphs, lines are sentences, headlines stand alone', () => {
  const text =
    '\n\n\tThe/at jury/nn said/vbd ./.\n\tIt/pps ended/vbd ./.\n\n\n' +
    '\tMerger/nn-hl proposed/vbn-hl\n\tHowever/rb ,/, no/at ./.\n';
  const paragraphs = parseDocument(text).map((p) => p.map((s) => s.map((t) => t.word).join(' ')));
  assert.deepEqual(paragraphs, [
    ['The jury said .', 'It ended .'],
    ['Merger proposed'],
    ['However , no .'],
  ]);
});

test('punctuation attaches to the word before, openers to the word after', () => {
  assert.equal(detokenize(words("He said : `` yes , ( maybe ) so '' .")), 'He said: "yes, (maybe) so."');
  assert.equal(detokenize(words('Is it ? Yes ; 50 % ! do n\'t')), "Is it? Yes; 50%! don't");
});

test("Brown's quirks are undone: doubled ? and !, marks outside quotes, Jr. .", () => {
  assert.equal(detokenize(words("`` What is it '' ? ? He asked .")), '"What is it?" He asked.');
  assert.equal(detokenize(words("`` Chicken '' , Mose said .")), '"Chicken," Mose said.');
  assert.equal(detokenize(words('won by Ivan Allen Jr. .')), 'won by Ivan Allen Jr.');
  assert.equal(detokenize(words("`` No '' ; he left .")), '"No"; he left.');
});

test('single quotes open and close in turn, across the sentences of a paragraph', () => {
  const { text, sentences } = detokenizeParagraph([
    words("more ' pro ' letters than ' con ."),
    words("Still ' . It ended .")
  ]);
  assert.equal(text, "more 'pro' letters than 'con. Still'. It ended.");
  assert.deepEqual(sentences, ["more 'pro' letters than 'con.", "Still'. It ended."]);
});

test('the chat tail quotes the corpus and is the same every run', () => {
  const tagged = (sentence) =>
    sentence.split(' ').map((token) => {
      const [word, tag] = token.split('/');
      return { word, tag };
    });
  const sentences = [
    'The/at jury/nn praised/vbd Atlanta/np for/in the/at election/nn ./.',
    'The/at mayor/nn thanked/vbd the/at jury/nn for/in its/pp$ report/nn ./.',
  ].map(tagged);
  const texts = sentences.map((s) => detokenize(s.map((t) => t.word)));
  const documents = [{ genre: 'a', paragraphs: [{ sentences, texts }] }];
  const examples = makeChatTail(documents, { rate: 1, seed: 7 });
  assert.equal(examples.length, 1);
  const [user, assistant] = examples[0].messages;
  assert.equal(user.role, 'user');
  assert.equal(assistant.role, 'assistant');
  const allowed = [
    `Continue the text: ${texts[0]}`,
    'Write a sentence about jury.',
    'Write a sentence about election.',
    'Write a sentence about mayor.',
    'Write a sentence about report.',
    'What does the text say about Atlanta?',
  ];
  assert.ok(allowed.includes(user.content), user.content);
  assert.ok(texts.includes(assistant.content), assistant.content);
  assert.deepEqual(makeChatTail(documents, { rate: 1, seed: 7 }), examples);
});
