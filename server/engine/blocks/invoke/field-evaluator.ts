// The invoke block's field paths are read off the event loop (issue 33: no tenant can hold the event loop). A
// JSONPath is interpreted without any script evaluation (field-path.ts), but what it costs still depends on the
// tenant: nested descendant segments over a 1 MiB answer, or a `match()`/`search()` pattern that backtracks. So
// every answer's fields are read in one worker thread per process, one answer at a time, each within a budget
// (1 s from when the worker takes it). Past the budget the worker is terminated (V8 interrupts a running
// regular expression too), the answer copies nothing and the next answer gets a new worker; a worker that runs
// out of its heap (128 MB) or fails ends the same way. The API and the other runs never wait for a path.
import { Worker } from 'node:worker_threads';
import type { InvokeRequest } from '../../../store/schema.js';
import type { FieldAnswer, FieldRequest } from './field-worker.js';

export const FIELD_PATHS_BUDGET_MS = 1_000;

/** How an answer's fields were read: `values` null when the answer is not JSON or the reading did not finish. */
export interface FieldReading {
  values: Record<string, string> | null;
  status: 'read' | 'over_budget' | 'failed';
  /** The fields whose path the library refuses (an automation saved before validation checked them). */
  refused?: string[];
}

interface Pending {
  request: FieldRequest;
  settle: (reading: FieldReading) => void;
}

// Compiled (production), the worker is the .js beside this file. From source (`npm start`, vitest) it is the .ts,
// which a worker thread of Node 20 cannot load with `--import tsx` in its execArgv: a fixed line of ours registers
// tsx in the worker first, then imports it (no tenant text is ever part of it).
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './field-worker.ts' : './field-worker.js', import.meta.url);
const FROM_SOURCE_BOOT = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;

export class FieldPathEvaluator {
  private worker: Worker | null = null;
  private ready = false;
  private readonly queue: Pending[] = [];
  private current: { pending: Pending; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  constructor(private readonly budgetMs = FIELD_PATHS_BUDGET_MS) {}

  /** The values `fields` take from the answer's text (at most one answer is read at a time, in order). */
  read(fields: InvokeRequest['fields'], answer: string): Promise<FieldReading> {
    if (fields.length === 0) return Promise.resolve({ values: {}, status: 'read' });
    return new Promise((settle) => {
      this.queue.push({ request: { id: this.nextId++, fields, answer }, settle });
      this.pump();
    });
  }

  /** Stops the worker (shutdown); answers still queued copy nothing. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    for (const pending of this.queue.splice(0)) pending.settle({ values: null, status: 'failed' });
    this.end('failed');
    await worker?.terminate();
  }

  private pump(): void {
    if (this.current) return;
    if (!this.worker) this.worker = this.start();
    if (!this.ready) return;
    const pending = this.queue.shift();
    if (!pending) return;
    const timer = setTimeout(() => this.restart('over_budget'), this.budgetMs);
    this.current = { pending, timer };
    this.worker.postMessage(pending.request);
  }

  private start(): Worker {
    this.ready = false;
    const worker = new Worker(FROM_SOURCE ? FROM_SOURCE_BOOT : WORKER_URL, {
      eval: FROM_SOURCE,
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    // An idle worker does not keep the process alive.
    worker.unref();
    worker.on('message', (message: FieldAnswer | 'ready') => {
      if (worker !== this.worker) return;
      if (message === 'ready') {
        this.ready = true;
      } else if (this.current?.pending.request.id === message.id) {
        this.end('read', message.values, message.refused);
      }
      this.pump();
    });
    worker.on('error', () => {
      if (worker === this.worker) this.restart('failed');
    });
    worker.on('exit', () => {
      if (worker === this.worker) this.restart('failed');
    });
    return worker;
  }

  /** Settles the answer being read. */
  private end(status: FieldReading['status'], values: FieldReading['values'] = null, refused: string[] = []): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    clearTimeout(current.timer);
    current.pending.settle({ values, status, ...(refused.length > 0 ? { refused } : {}) });
  }

  /** The answer being read copies nothing; its worker goes, and the next answer gets a new one. */
  private restart(status: 'over_budget' | 'failed'): void {
    const worker = this.worker;
    const started = this.ready;
    this.worker = null;
    this.ready = false;
    this.end(status);
    void worker?.terminate();
    // A worker that cannot even start would fail again: what waits copies nothing, the next answer tries anew.
    if (!started) for (const pending of this.queue.splice(0)) pending.settle({ values: null, status: 'failed' });
    else if (this.queue.length > 0) this.pump();
  }
}
