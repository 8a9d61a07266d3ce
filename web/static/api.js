// The server's HTTP side as the page uses it: relative URLs (the page may sit under a path
// prefix behind a proxy), the API key for this tab (sessionStorage), and errors that carry
// the HTTP status and the server's OpenAI error message.

const key_slot = 'pagedserve.api_key';

export class http_error extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function stored_api_key() {
  return sessionStorage.getItem(key_slot) ?? '';
}

export function store_api_key(key) {
  if (key) sessionStorage.setItem(key_slot, key);
  else sessionStorage.removeItem(key_slot);
}

// An absolute URL for a path relative to the page ("v1/models", not "/v1/models").
export function url_of(path, scheme) {
  const url = new URL(path, document.baseURI);
  if (scheme) url.protocol = scheme;
  return url;
}

function auth_headers(key) {
  return key ? { authorization: `Bearer ${key}` } : {};
}

async function error_message(response) {
  try {
    const body = await response.json();
    return body?.error?.message ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

// GET path (relative) with the key; resolves with the response, rejects with http_error on
// a non-2xx answer and with a TypeError when the server cannot be reached.
export async function get(path, key = stored_api_key()) {
  const response = await fetch(url_of(path), { headers: auth_headers(key), cache: 'no-store' });
  if (!response.ok) throw new http_error(response.status, await error_message(response));
  return response;
}

// The served model's id (GET v1/models): also how the page checks a key before it opens the
// WebSocket (a browser hides a refused upgrade's status).
export async function served_model(key = stored_api_key()) {
  const body = await (await get('v1/models', key)).json();
  return body.data?.[0]?.id ?? '';
}
