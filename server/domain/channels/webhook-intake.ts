// A real channel's webhook, taken in: the payload whose signature the route checked is committed as it came, as
// one job, before Meta hears 200; the job (./webhook-apply.ts) decodes and applies it after the answer. So a
// crash between the answer and the work loses nothing (the job is in the database), and Meta, which disables a
// webhook that keeps failing or answering slowly, never waits on the decoding.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { CHANNEL_WEBHOOK_JOB } from '../../job-kinds.js';
import { enqueue } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';

export async function acceptChannelWebhook(
  db: Kysely<DB>,
  clock: Clock,
  provider: 'whatsapp_cloud',
  body: string,
  baseUrl: string,
): Promise<void> {
  const receivedAt = clock.now().toISOString();
  await db.transaction().execute((tx) =>
    enqueue(tx, clock, {
      kind: CHANNEL_WEBHOOK_JOB,
      accountId: null,
      payload: { provider, body, received_at: receivedAt, base_url: baseUrl },
    }),
  );
}
