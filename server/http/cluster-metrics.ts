// /metrics across the server processes of a cluster (WEB_CONCURRENCY > 1, node:cluster): the port is shared, so
// a scrape lands on any one process, which alone knows its own counters. The process that took the scrape asks
// the primary over the cluster's IPC channel; the primary asks every server process for its registries
// (prom-client's AggregatorRegistry.clusterMetrics, its own IPC messages) and answers with their sum (counters and
// histograms added, each default process metric by its own aggregator). The jobs' gauges are not in the sum:
// they are read once, at scrape time, by the process that took the scrape (http/observability.ts).
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const ASK = 'engagement:cluster-metrics';
const ANSWER = 'engagement:cluster-metrics-answer';
/** The primary waits 5 s for the server processes (prom-client's own bound); a scrape waits a little more. */
const ANSWER_TIMEOUT_MS = 8000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** A message of the cluster's channel is JSON of any shape: its `type` says which one it is. */
const isMessage = <T extends { type: string }>(type: T['type'], message: unknown): message is T =>
  typeof message === 'object' && message !== null && 'type' in message && message.type === type;

/** In the primary: answers each server process's ask with the sum of every server process's registries. */
export function answerClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<Ask>(ASK, message)) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer } satisfies Answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/** Whether this process is a server process of a cluster, which can ask its primary. */
export function inCluster(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

let nextId = 0;
const waiting = new Map<number, { ok: (text: string) => void; fail: (error: Error) => void }>();
let listening = false;

/**
 * In a server process of a cluster: `registries` are what the primary sums from this process (prom-client reads
 * them when the primary asks); the function returned asks the primary for the sum of every process's.
 */
export function clusterMetricsOf(registries: Registry[]): () => Promise<string> {
  AggregatorRegistry.setRegistries(registries);
  // Constructing one subscribes this process to the primary's asks for its registries (prom-client/lib/cluster.js).
  new AggregatorRegistry();
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      if (!isMessage<Answer>(ANSWER, message)) return;
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.text !== undefined) pending?.ok(message.text);
      else pending?.fail(new Error(`the cluster's metrics: ${message.error ?? 'no answer'}`));
    });
  }
  return () =>
    new Promise<string>((ok, fail) => {
      const send = process.send?.bind(process);
      if (!send) return fail(new Error("the cluster's metrics: this process has no channel to its primary"));
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        fail(new Error("the cluster's metrics: the primary did not answer"));
      }, ANSWER_TIMEOUT_MS);
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          then(value);
        };
      waiting.set(id, { ok: settle(ok), fail: settle(fail) });
      send({ type: ASK, id } satisfies Ask);
    });
}
