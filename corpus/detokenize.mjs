// detokenize.mjs: Brown's tokens back to running English text. Brown writes double quotes as
// `` and '' and puts every punctuation mark in a token of its own; here quotes become '"'
// and each mark attaches to the word it belongs to: closing marks to the previous word,
// opening ones to the next. Capitalization is kept as it is.
//
// Three quirks of the tagged Brown text are undone on the way:
//   - a period, comma, ? or ! after a closing quote goes back inside it, as the printed
//     (American) text had it: `word '' .` is `word."`;
//   - ? and ! after a quotation are doubled (`it '' ? ?`): the second one goes;
//   - an abbreviation that ends a sentence is followed by its own period (`Jr. .`): one goes.

// Attach to the previous word: no space before.
const closing = new Set(['.', ',', ';', ':', '?', '!', ')', ']', '}', '%', "''", '...']);
// Attach to the next word: no space after.
const opening = new Set(['(', '[', '{', '``']);
// Clitics that Brown (rarely) splits off the word they belong to.
const clitics = new Set(["n't", "'s", "'re", "'ve", "'m", "'ll", "'d"]);
// Marks that American typography puts inside a closing quote.
const insideQuote = new Set(['.', ',', '?', '!']);

class ParagraphWriter {
  text = '';
  glueNext = true; // no space before the next word (start of text, after an opener)
  singleQuoteOpen = false;
  lastWord = '';

  add(word) {
    const previous = this.lastWord;
    this.lastWord = word;
    if ((word === '?' || word === '!') && previous === word) return;
    if (word === '.' && this.text.endsWith('.')) return;
    if (insideQuote.has(word) && previous === "''") {
      const beforeQuote = this.text.slice(0, -1);
      if (word === '.' && beforeQuote.endsWith('.')) return;
      this.text = beforeQuote + word + '"';
      return;
    }
    let attachPrevious = closing.has(word) || clitics.has(word.toLowerCase());
    let attachNext = opening.has(word);
    if (word === "'") {
      attachNext = !this.singleQuoteOpen;
      attachPrevious = this.singleQuoteOpen;
      this.singleQuoteOpen = !this.singleQuoteOpen;
    }
    if (!this.glueNext && !attachPrevious) this.text += ' ';
    this.text += word === '``' || word === "''" ? '"' : word;
    this.glueNext = attachNext;
  }
}

// One paragraph (a list of sentences, each a list of words) as text, plus each sentence as
// text of its own. The state of the single quote (Brown's `'` token, which opens and closes)
// carries across the sentences of a paragraph, as a quotation can span sentences.
export function detokenizeParagraph(sentences) {
  const writer = new ParagraphWriter();
  const starts = [];
  for (const sentence of sentences) {
    starts.push(writer.text.length);
    for (const word of sentence) writer.add(word);
  }
  const text = writer.text;
  const texts = starts.map((start, i) =>
    text.slice(start, i + 1 < starts.length ? starts[i + 1] : text.length).trim(),
  );
  return { text, sentences: texts };
}

export function detokenize(words) {
  return detokenizeParagraph([words]).text;
}
