// The transcript: chat turns (user and assistant messages, sent with the history) or
// completion runs (a prompt and the text generated after it). A reply grows one delta at a
// time as the stream delivers it; its status line ends with the finish reason and usage.

function element(tag, class_name, text) {
  const node = document.createElement(tag);
  if (class_name) node.className = class_name;
  if (text !== undefined) node.textContent = text;
  return node;
}

function logprob_line(l) {
  const top = l.top?.length ? ` (top: ${l.top.map((t) => `${t.token_id} ${t.logprob.toFixed(2)}`).join(', ')})` : '';
  return `${l.token_id}: ${l.logprob.toFixed(3)}${top}`;
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
    this.pending_logprobs = []; // of deltas without text yet (a UTF-8 character still incomplete)
    this.last_span = null;
  }

  // One node per delta with text: the DOM shows the tokens as they arrived. With logprobs the
  // node is a span whose tooltip lists its tokens' logprobs and top alternatives, one line per
  // token (token ids: a delta's text may not split at token boundaries), those of textless
  // deltas before it included.
  append(text, logprobs) {
    if (logprobs?.length) this.pending_logprobs.push(...logprobs);
    if (!text) return;
    this.content += text;
    if (this.pending_logprobs.length) {
      this.last_span = element('span', 'token', text);
      this.last_span.title = this.pending_logprobs.map(logprob_line).join('\n');
      this.pending_logprobs = [];
      this.text.append(this.last_span);
    } else {
      this.text.append(document.createTextNode(text));
    }
    this.scroll_soon();
  }

  // One scroll per frame, not per delta: reading scrollHeight forces a layout, and a fast
  // stream (hundreds of deltas a second) would otherwise keep the main thread busy with it.
  scroll_soon() {
    if (this.scroll_pending) return;
    this.scroll_pending = true;
    requestAnimationFrame(() => {
      this.scroll_pending = false;
      this.container.scrollTop = this.container.scrollHeight;
    });
  }

  finish(done) {
    if (this.last_span && this.pending_logprobs.length) {
      this.last_span.title += `\n${this.pending_logprobs.map(logprob_line).join('\n')}`;
    }
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
