// The playground's wiring: the API key (asked for when the server answers 401), the one
// WebSocket, the tabs (chat, completion, dashboard), the composer with Send and Stop, and
// the settings form.

import { http_error, served_model, store_api_key, stored_api_key } from './api.js';
import { transcript } from './conversation.js';
import { dashboard } from './dashboard.js';
import { responses_chat } from './responses.js';
import { request_logprobs, sampling_fields, system_prompt } from './sampling.js';
import { stream_connection } from './stream.js';

const $ = (id) => document.getElementById(id);
const ui = {
  connection: $('connection'), model: $('model-name'), transcript: $('transcript'),
  composer: $('composer'), prompt: $('prompt'), send: $('send'), stop: $('stop'), clear: $('clear'),
  settings: $('settings'), settings_error: $('settings-error'), playground: $('playground'),
  dashboard: $('dashboard'), key_dialog: $('key-dialog'), key_form: $('key-form'),
  key_input: $('key-input'), key_error: $('key-error'),
};

let mode = 'chat';
let model = '';
let active = null; // {id, view} of the request streaming now
const history = new transcript(ui.transcript);
const responses = new responses_chat(); // chat over v1/responses (settings: "API")
const board = new dashboard($('cards'), $('dashboard-error'), () => stream.connected);

function set_connection(state, text = state) {
  ui.connection.dataset.state = state;
  ui.connection.textContent = text;
  update_buttons();
}

function update_buttons() {
  ui.send.disabled = !stream.connected || active !== null;
  ui.stop.disabled = active === null;
}

// Resolves with the key once GET v1/models accepts it; a 401 opens the key dialog and
// rejects (the connection retries after the dialog's submit).
async function check_key() {
  const key = stored_api_key();
  try {
    model = await served_model(key);
    ui.model.textContent = model;
    return key;
  } catch (err) {
    if (err instanceof http_error && err.status === 401) ask_for_key(key ? err.message : '');
    throw err;
  }
}

function ask_for_key(error) {
  set_connection('unauthorized', 'API key needed');
  ui.key_error.textContent = error;
  if (!ui.key_dialog.open) ui.key_dialog.showModal();
  ui.key_input.focus();
}

const stream = new stream_connection({ on_state: (s) => set_connection(s), before_connect: check_key });

ui.key_form.addEventListener('submit', () => {
  store_api_key(ui.key_input.value);
  ui.key_input.value = '';
  stream.connect();
});

function select_tab(tab) {
  for (const button of document.querySelectorAll('[data-tab]')) {
    button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  }
  ui.dashboard.hidden = tab !== 'dashboard';
  ui.playground.hidden = tab === 'dashboard';
  board.show(tab === 'dashboard');
  if (tab !== 'dashboard' && tab !== mode) {
    mode = tab;
    document.body.dataset.mode = mode;
    history.clear();
    responses.reset();
    ui.prompt.placeholder = mode === 'chat' ? 'Send a message (Enter; Shift+Enter for a new line)' : 'A prompt to continue';
  }
}

function request_body(text) {
  const fields = request_logprobs(sampling_fields(ui.settings), mode);
  if (mode === 'chat') {
    history.add_user(text);
    return ['chat.completion', { model, messages: history.messages(system_prompt(ui.settings)), ...fields }];
  }
  history.add_prompt(text);
  return ['completion', { model, prompt: text, ...fields }];
}

// Chat through the Responses API, when the settings choose it: the server holds the
// conversation, so only the new message goes out.
function uses_responses() {
  return mode === 'chat' && new FormData(ui.settings).get('api') === 'responses';
}

function send_over_responses(text, handlers) {
  const fields = sampling_fields(ui.settings);
  history.add_user(text);
  responses.send({ model, text, instructions: system_prompt(ui.settings), fields }, handlers);
  return 'responses';
}

function send() {
  const text = ui.prompt.value;
  if (!text.trim() || active || !stream.connected) return;
  let type, body;
  try {
    if (!uses_responses()) [type, body] = request_body(text);
    else sampling_fields(ui.settings); // the same checks before anything is shown
  } catch (err) {
    ui.settings_error.hidden = false;
    ui.settings_error.textContent = err.message;
    return;
  }
  ui.settings_error.hidden = true;
  ui.prompt.value = '';
  const view = history.begin_reply(mode === 'chat' ? 'assistant' : 'completion');
  const end = () => {
    active = null;
    update_buttons();
  };
  const handlers = {
    on_delta: (m) => view.append(m.text, m.logprobs),
    on_done: (m) => {
      view.finish(m);
      if (mode === 'chat') history.keep_reply(view);
      end();
    },
    on_error: (e) => {
      view.fail(e);
      end();
    },
  };
  const id = uses_responses() ? send_over_responses(text, handlers) : stream.start(type, body, handlers);
  active = { id, view };
  update_buttons();
}

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
ui.prompt.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    send();
  }
});
ui.stop.addEventListener('click', () => {
  if (active?.id === 'responses') responses.cancel();
  else if (active) stream.cancel(active.id);
});
ui.clear.addEventListener('click', () => {
  if (active) return;
  history.clear();
  responses.reset();
});
ui.settings.elements.api.addEventListener('change', () => {
  if (active) return;
  history.clear(); // the two APIs do not share a conversation
  responses.reset();
});
ui.settings.elements.format.addEventListener('change', (event) => {
  ui.settings.querySelector('.format-detail').hidden = !['json_schema', 'regex'].includes(event.target.value);
});
for (const button of document.querySelectorAll('[data-tab]')) {
  button.addEventListener('click', () => select_tab(button.dataset.tab));
}

document.body.dataset.mode = mode;
stream.connect();
board.start();
