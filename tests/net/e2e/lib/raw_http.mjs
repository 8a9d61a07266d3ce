// HTTP/1.1 over a bare TCP socket, so tests can send what no HTTP client would (broken
// request lines, bad chunking, pipelining, half a header) and see exactly what comes back.

import net from 'node:net';

// Parses as many complete responses as `buf` holds. Returns {responses, rest}; a response
// without a length is complete only at end of stream (`ended`).
export function parse_responses(buf, ended) {
  const responses = [];
  let pos = 0;
  for (;;) {
    const head_end = buf.indexOf('\r\n\r\n', pos);
    if (head_end < 0) break;
    const head = buf.subarray(pos, head_end).toString('latin1').split('\r\n');
    const m = /^HTTP\/(\d\.\d) (\d{3})/.exec(head[0]);
    if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(head[0])}`);
    const headers = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(m[2]);
    let body_start = head_end + 4;
    let body;
    let next;
    if (status < 200 || status === 204 || status === 304) {
      body = Buffer.alloc(0);
      next = body_start;
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks = [];
      let p = body_start;
      let complete = false;
      for (;;) {
        const line_end = buf.indexOf('\r\n', p);
        if (line_end < 0) break;
        const size = parseInt(buf.subarray(p, line_end).toString('latin1'), 16);
        if (size === 0) {
          const trailer_end = buf.indexOf('\r\n\r\n', line_end);
          if (trailer_end < 0 && buf.length < line_end + 4) break;
          next = trailer_end < 0 ? line_end + 4 : trailer_end + 4;
          complete = true;
          break;
        }
        if (buf.length < line_end + 2 + size + 2) break;
        chunks.push(buf.subarray(line_end + 2, line_end + 2 + size));
        p = line_end + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(chunks);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (buf.length < body_start + length) break;
      body = buf.subarray(body_start, body_start + length);
      next = body_start + length;
    } else {
      if (!ended) break;
      body = buf.subarray(body_start);
      next = buf.length;
    }
    responses.push({ status, headers, body: body.toString('utf8') });
    pos = next;
  }
  return { responses, rest: buf.subarray(pos) };
}

// Sends `bytes` on a fresh connection and collects responses until `num_responses` have
// arrived and the server closed, or the server closed, or timeout_ms passed. Returns
// {responses, closed, closed_after_ms, reset, timed_out, unparsed}.
export function exchange(port, bytes, { num_responses = 1, timeout_ms = 10000, wait_for_close = false } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let buf = Buffer.alloc(0);
    let settled = false;
    const result = { responses: [], closed: false, closed_after_ms: null, reset: false, timed_out: false };
    const finish = (ended) => {
      if (settled) return;
      try {
        const { responses, rest } = parse_responses(buf, ended);
        result.responses = responses;
        result.unparsed = rest.toString('latin1').slice(0, 200);
      } catch (err) {
        result.parse_error = err.message;
      }
      if (!ended && !result.timed_out) {
        const enough = result.responses.length >= num_responses;
        if (!enough || wait_for_close) return;
      }
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      result.timed_out = true;
      finish(false);
    }, timeout_ms);
    socket.on('connect', () => {
      if (bytes.length > 0) socket.write(bytes);
    });
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      finish(false);
    });
    const closed = () => {
      result.closed = true;
      result.closed_after_ms ??= Date.now() - started;
      finish(true);
    };
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', (err) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') result.reset = true;
      else result.error = err.message;
      closed();
    });
  });
}

// Builds one request's bytes. headers: an object; body: Buffer or undefined. Adds Host,
// Content-Length (unless chunked or given) and Connection: close (unless given).
export function build_request(method, path, headers, body, { chunked = false } = {}) {
  const h = { Host: '127.0.0.1', Connection: 'close', ...headers };
  const lower = Object.keys(h).map((k) => k.toLowerCase());
  let payload = body ?? Buffer.alloc(0);
  if (chunked) {
    h['Transfer-Encoding'] = 'chunked';
    const parts = [];
    for (let i = 0; i < payload.length; i += 8192) {
      const piece = payload.subarray(i, i + 8192);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    payload = Buffer.concat(parts);
  } else if (body !== undefined && !lower.includes('content-length')) {
    h['Content-Length'] = String(body.length);
  }
  const head = `${method} ${path} HTTP/1.1\r\n` + Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}
