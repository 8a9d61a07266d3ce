// The transcript: chat turns (user and assistant messages, sent with the history) or
// completion runs (a prompt and the text generated after it). A reply grows one delta at a
// time as the stream delivers it; its status line ends with the finish reason and usage.

function element(tag, class_name, text) {
  const node = document.createElement(tag);
  if (class_name) node.className = class_name;
  if (text !== undefined) node.textContent = text;
  return node;
}

export class reply_view {
  constructor(container, role) {
    this.node = element('div', `message ${role === 'assistant' ? 'assistant' : 'completion'}`);
    this.node.dataset.state = 'streaming';
    this.node.append(element('span', 'role', role), (this.text = element('span', 'text generated')));
    this.node.append((this.status = element('span', 'status', 'streaming…')));
    container.append(this.node);
    this.content = '';
    this.container = container;
  }

  // One node per delta: the DOM shows the tokens as they arrived. With logprobs the node is
  // a span whose tooltip lists each token's logprob and its top alternatives (token ids: a
  // delta's text may not split at token boundaries).
  append(text, logprobs) {
    if (!text) return;
    this.content += text;
    if (logprobs?.length) {
      const span = element('span', 'token', text);
      span.title = logprobs
        .map((l) => `${l.token_id}: ${l.logprob.toFixed(3)}` + (l.top?.length ? ` (top: ${l.top.map((t) => `${t.token_id} ${t.logprob.toFixed(2)}`).join(', ')})` : ''))
        .join('\n');
      this.text.append(span);
    } else {
      this.text.append(document.createTextNode(text));
    }
    this.container.scrollTop = this.container.scrollHeight;
  }

  finish(done) {
    const usage = done.usage ? `, ${done.usage.completion_tokens} tokens` : '';
    const reason = done.finish_reason === 'abort' ? 'stopped' : done.finish_reason;
    this.node.dataset.state = done.finish_reason === 'abort' ? 'stopped' : 'done';
    this.status.textContent = `${reason}${usage}`;
  }

  fail(error) {
    this.node.dataset.state = 'error';
    this.status.textContent = `error: ${error.message}`;
  }
}

export class transcript {
  constructor(container) {
    this.container = container;
    this.turns = []; // chat history: {role, content}
  }

  clear() {
    this.turns = [];
    this.container.replaceChildren();
  }

  add_user(text) {
    this.turns.push({ role: 'user', content: text });
    const node = element('div', 'message user');
    node.append(element('span', 'role', 'user'), element('span', 'text', text));
    this.container.append(node);
  }

  add_prompt(text) {
    const node = element('div', 'message prompt');
    node.append(element('span', 'role', 'prompt'), element('span', 'text', text));
    this.container.append(node);
  }

  begin_reply(role) {
    return new reply_view(this.container, role);
  }

  // A finished assistant reply joins the history; a failed or empty one does not.
  keep_reply(view) {
    if (view.content) this.turns.push({ role: 'assistant', content: view.content });
  }

  messages(system) {
    return system ? [{ role: 'system', content: system }, ...this.turns] : [...this.turns];
  }
}
