// A reverse proxy that serves a server under a path prefix, as nginx's
// `location /prefix/ { proxy_pass http://upstream/; }` does: "/prefix/x" goes upstream as
// "/x" (WebSocket upgrades too, piped both ways); any other path is answered 404 here, so a
// page that uses an absolute URL shows up as a 404 and in `outside`.

import http from 'node:http';
import net from 'node:net';

export class prefix_proxy {
  constructor(prefix, upstream_port) {
    this.prefix = prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.upstream_port = upstream_port;
    this.seen = []; // every path asked for, prefix included
    this.outside = []; // paths outside the prefix
    this.sockets = new Set();
  }

  get base_url() {
    return `http://127.0.0.1:${this.port}${this.prefix}`;
  }

  // The upstream path of a request path, or null when it is outside the prefix.
  upstream_path(path) {
    this.seen.push(path);
    if (!path.startsWith(this.prefix)) {
      this.outside.push(path);
      return null;
    }
    return `/${path.slice(this.prefix.length)}`;
  }

  async start() {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('upgrade', (req, socket, head) => this.tunnel(req, socket, head));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server.address().port;
    return this;
  }

  forward(req, res) {
    const path = this.upstream_path(req.url);
    if (path === null) {
      res.writeHead(404).end('outside the prefix');
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: this.upstream_port, method: req.method, path, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  // Replays the upgrade request upstream with the new path and pipes the two sockets.
  tunnel(req, socket, head) {
    const path = this.upstream_path(req.url);
    if (path === null) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(this.upstream_port, '127.0.0.1', () => {
      const lines = [`${req.method} ${path} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    const close_both = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', close_both);
    socket.on('error', close_both);
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve());
  }
}
