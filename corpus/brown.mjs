// brown.mjs: reads one Brown Corpus file (Form C, POS-tagged) into paragraphs of sentences of
// {word, tag}. In the file a paragraph is a block of lines between blank lines, each line one
// sentence indented with a tab, each token `word/tag` separated by spaces.

// The tag is everything after the LAST '/': the word may itself hold one ("and/or/cc",
// "1/2/cd", "//in").
// A token of a headline carries -hl in its tag ("nn-hl", "np-tl-hl").
export function splitToken(token) {
  const slash = token.lastIndexOf('/');
  if (slash <= 0) return { word: token, tag: '', headline: false };
  const fullTag = token.slice(slash + 1);
  return { word: token.slice(0, slash), tag: baseTag(fullTag), headline: /-hl(-|$)/.test(fullTag) };
}

// Drops the suffixes that mark headlines (-hl), titles (-tl) and cited words (-nc), which
// say nothing about the word class: "nn-tl" is a noun, "np-hl" a proper noun.
export function baseTag(tag) {
  let base = tag;
  for (;;) {
    const stripped = base.replace(/-(hl|tl|nc)$/, '');
    if (stripped === base) return base;
    base = stripped;
  }
}

// A headline (a sentence whose tokens are all tagged -hl) that Brown put in the block of the
// paragraph below it becomes a paragraph of its own, so it does not run into the text.
function splitHeadlines(sentences) {
  const paragraphs = [];
  let body = [];
  for (const sentence of sentences) {
    if (sentence.every((t) => t.headline)) {
      if (body.length > 0) paragraphs.push(body);
      paragraphs.push([sentence]);
      body = [];
    } else {
      body.push(sentence);
    }
  }
  if (body.length > 0) paragraphs.push(body);
  return paragraphs;
}

// [[ [ {word, tag, headline}, ... ] (a sentence), ... ] (a paragraph), ... ]
export function parseDocument(text) {
  const paragraphs = [];
  for (const block of text.split(/\n[ \t]*\n/)) {
    const sentences = block
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .map((line) => line.split(/[ \t]+/).map(splitToken));
    paragraphs.push(...splitHeadlines(sentences));
  }
  return paragraphs;
}
