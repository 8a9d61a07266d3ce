// The settings form as request fields: numbers left empty are not sent (the server applies
// its defaults, the model's generation_config among them), and the output format becomes
// response_format or structured_outputs (docs/structured-outputs.md). Throws an Error naming
// the field when a value cannot be sent (a schema that is not JSON).

const number_fields = [
  'temperature', 'top_p', 'top_k', 'min_p', 'max_tokens',
  'presence_penalty', 'frequency_penalty', 'repetition_penalty', 'seed',
];

function output_format(format, detail) {
  if (format === 'json_object') return { response_format: { type: 'json_object' } };
  if (format === 'json_schema') {
    let schema;
    try {
      schema = JSON.parse(detail);
    } catch (err) {
      throw new Error(`the JSON schema is not JSON: ${err.message}`);
    }
    return { response_format: { type: 'json_schema', json_schema: { name: 'playground', schema } } };
  }
  if (format === 'regex') {
    if (!detail) throw new Error('the regex is empty');
    return { structured_outputs: { regex: detail } };
  }
  return {};
}

export function sampling_fields(form) {
  const data = new FormData(form);
  const fields = {};
  for (const name of number_fields) {
    const text = String(data.get(name) ?? '').trim();
    if (text === '') continue;
    const value = Number(text);
    if (!Number.isFinite(value)) throw new Error(`${name} is not a number`);
    fields[name] = value;
  }
  const stop = String(data.get('stop') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (stop.length) fields.stop = stop;
  if (data.get('ignore_eos')) fields.ignore_eos = true;
  const top = String(data.get('top_logprobs') ?? '').trim();
  if (top !== '') fields.top_logprobs = Number(top); // sent as the mode needs: request_logprobs
  Object.assign(fields, output_format(data.get('format'), String(data.get('format_detail') ?? '').trim()));
  return fields;
}

// Chat asks for logprobs with `logprobs: true, top_logprobs: N`, completions with
// `logprobs: N` (OpenAI's two shapes).
export function request_logprobs(fields, mode) {
  if (!('top_logprobs' in fields)) return fields;
  const { top_logprobs, ...rest } = fields;
  return mode === 'chat' ? { ...rest, logprobs: true, top_logprobs } : { ...rest, logprobs: top_logprobs };
}

export function system_prompt(form) {
  return String(new FormData(form).get('system') ?? '').trim();
}
