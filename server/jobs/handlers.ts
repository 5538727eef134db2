// Every job kind the service runs, registered in one place (webhook deliveries, automation timers… arrive with
// their issues and add themselves here).
import type { Config } from '../config.js';
import { failSentMessage } from '../domain/messaging/failures.js';
import { FAIL_LATER_JOB } from '../domain/messaging/send.js';
import { DELIVER_JOB, PRUNE_JOB, runDeliveryJob, runPruneJob, type DeliveryDeps } from '../domain/webhooks/delivery.js';
import { ApiError } from '../errors.js';
import type { TargetPolicy } from '../webhooks/targets.js';
import { JobRegistry } from './registry.js';
import { databaseFaultRetryAt } from '../retries.js';
import type { ChannelProvider } from '../channels/provider.js';
import { STOP_RUNS_JOB } from '../domain/workflows/workflows.js';
import { ADVANCE_RUN_JOB, runAdvanceJob, runStopRunsJob } from '../engine/runs.js';
import { INBOUND_MESSAGE_JOB, runInboundJob } from '../engine/triggers.js';

interface FailLaterPayload {
  message_id: string;
  provider_code: string | null;
  provider_message: string | null;
  base_url: string;
}

export interface JobDeps {
  /** The webhook settings (dev targets, in-flight limit, pacing): their defaults live in config.ts only. */
  config: Pick<Config, 'webhookDevTargets' | 'webhookMaxInFlight' | 'webhookPacePerMinute' | 'runsPerContactPerHour'>;
  /** The channel layer automations send through (server/services.ts). */
  provider: ChannelProvider;
  /** The URL rules at send (server/services.ts). Tests pass a resolver or a CA. */
  webhookTargets: TargetPolicy;
  /** The service's public base URL, for the attachment URLs of message events. */
  baseUrl: string;
  /** The webhook answer deadline; default 10 s. */
  webhookTimeoutMs?: number;
}

export function createJobRegistry(deps: JobDeps): JobRegistry {
  const config = deps.config;
  const delivery: DeliveryDeps = {
    targets: deps.webhookTargets,
    baseUrl: deps.baseUrl,
    maxInFlight: config.webhookMaxInFlight,
    pacePerMinute: config.webhookPacePerMinute,
    ...(deps.webhookTimeoutMs !== undefined ? { timeoutMs: deps.webhookTimeoutMs } : {}),
  };
  const engine = {
    provider: deps.provider,
    baseUrl: deps.baseUrl,
    runsPerContactPerHour: config.runsPerContactPerHour,
  };
  return (
    new JobRegistry()
      .register(FAIL_LATER_JOB, {
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
      })
      .register(DELIVER_JOB, {
        // One attempt of a webhook delivery (at least once: the job completes with the attempt's outcome).
        run: (job, ctx) => runDeliveryJob(job, ctx, delivery),
        // A database fault, not the endpoint's: try again (the delivery must not stay stuck).
        retryAt: databaseFaultRetryAt,
      })
      // Automations: a contact's message (answers, taps, triggers) and a run's stretch (starts, waits ending).
      .register(INBOUND_MESSAGE_JOB, {
        run: (job, ctx) => runInboundJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
        retryAt: databaseFaultRetryAt,
      })
      .register(ADVANCE_RUN_JOB, {
        run: (job, ctx) => runAdvanceJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
        retryAt: databaseFaultRetryAt,
      })
      .register(STOP_RUNS_JOB, {
        run: (job, ctx) => runStopRunsJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
        retryAt: databaseFaultRetryAt,
      })
      .register(PRUNE_JOB, {
        // Deliveries are kept 7 days; the job re-enqueues itself every hour.
        async run(_job, ctx) {
          await runPruneJob(ctx);
        },
      })
  );
}
