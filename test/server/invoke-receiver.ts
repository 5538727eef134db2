// A receiver on loopback for the invoke block's tests (engine-invoke, invoke-field-paths): it records each request
// and answers from its queue.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A receiver on loopback: records each request and answers from its queue (then `fallback`). */
export class Receiver {
  seen: Seen[] = [];
  answers: Answer[] = [];
  fallback: Answer = { status: 200, body: '{"ok":true}' };
  private server: Server;
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = this.answers.shift() ?? this.fallback;
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
  }
  async start() {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }
  port = 0;
  url(path = '/hook') {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  reset(...answers: Answer[]) {
    this.seen = [];
    this.answers = answers;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
