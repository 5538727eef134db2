// Every job kind the service runs, registered in one place (webhook deliveries, automation timers… arrive with
// their issues and add themselves here).
import { failSentMessage } from '../domain/messaging/failures.js';
import { FAIL_LATER_JOB } from '../domain/messaging/send.js';
import { ApiError } from '../errors.js';
import { JobRegistry } from './registry.js';

interface FailLaterPayload {
  message_id: string;
  provider_code: string | null;
  provider_message: string | null;
  base_url: string;
}

export function createJobRegistry(): JobRegistry {
  return new JobRegistry().register(FAIL_LATER_JOB, {
    // The sandbox's whatsapp reports a send it accepted as undelivered (the arranged `fails_later`).
    async run(job, ctx) {
      const p = job.payload as FailLaterPayload;
      await ctx.db.transaction().execute(async (trx) => {
        try {
          const failure = { provider_code: p.provider_code, provider_message: p.provider_message };
          await failSentMessage(trx, ctx.clock, job.accountId!, p.message_id, failure, p.base_url);
        } catch (error) {
          // Already failed (a repeat run after a crash), or the message is gone: nothing left to do.
          if (!(error instanceof ApiError)) throw error;
        }
        await ctx.complete(trx);
      });
    },
  });
}
