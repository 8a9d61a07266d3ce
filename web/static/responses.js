// Chat over OpenAI's Responses API (POST v1/responses, streamed as server-sent events): the
// playground's alternative to the WebSocket. The server keeps the conversation (store), so
// each turn sends only the new message and the previous response's id; Clear forgets it.
// The handlers are stream.start's: on_delta({text}), on_done({finish_reason, usage}),
// on_error({message}).

import { stored_api_key, url_of } from './api.js';

// The settings' fields in the Responses API's names (max_tokens is max_output_tokens, the
// output format is text.format; logprobs are not shown in this mode).
function responses_fields(fields) {
  const { max_tokens, response_format, top_logprobs, logprobs, ...rest } = fields;
  const out = { ...rest };
  if (max_tokens !== undefined) out.max_output_tokens = max_tokens;
  if (response_format?.type === 'json_object') out.text = { format: { type: 'json_object' } };
  if (response_format?.type === 'json_schema') {
    out.text = { format: { type: 'json_schema', name: response_format.json_schema.name, schema: response_format.json_schema.schema } };
  }
  return out;
}

// The SSE body as events: each `data:` payload parsed.
async function* sse_events(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (data) yield JSON.parse(data.slice('data: '.length));
    }
  }
}

export class responses_chat {
  constructor() {
    this.previous_id = null;
    this.abort = null;
  }

  reset() {
    this.previous_id = null;
  }

  cancel() {
    this.abort?.abort();
  }

  async send({ model, text, instructions, fields }, handlers) {
    this.abort = new AbortController();
    const body = { model, input: text, stream: true, store: true, ...responses_fields(fields) };
    if (instructions) body.instructions = instructions;
    if (this.previous_id) body.previous_response_id = this.previous_id;
    const key = stored_api_key();
    try {
      const response = await fetch(url_of('v1/responses'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
        signal: this.abort.signal,
      });
      if (!response.ok) {
        const error = await response.json().catch(() => ({}));
        throw new Error(error?.error?.message ?? `HTTP ${response.status}`);
      }
      for await (const event of sse_events(response.body)) {
        if (event.type === 'response.output_text.delta') handlers.on_delta({ text: event.delta });
        if (event.type === 'error') throw new Error(event.message);
        if (event.type === 'response.completed' || event.type === 'response.incomplete') {
          this.previous_id = event.response.id;
          const usage = event.response.usage;
          handlers.on_done({
            finish_reason: event.type === 'response.incomplete' ? 'length' : 'stop',
            usage: usage && { completion_tokens: usage.output_tokens },
          });
          return;
        }
      }
      throw new Error('the stream ended without response.completed');
    } catch (err) {
      if (err.name === 'AbortError') handlers.on_done({ finish_reason: 'abort' });
      else handlers.on_error({ message: err.message });
    } finally {
      this.abort = null;
    }
  }
}
