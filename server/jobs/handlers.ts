// Every job kind the service runs (server/job-kinds.ts), registered in one place: each handler reads the payload
// of its kind.
import type { Config } from '../config.js';
import { failSentMessage } from '../domain/messaging/failures.js';
import { runDeliveryJob, runPruneJob, type DeliveryDeps } from '../domain/webhooks/delivery.js';
import { releaseAbandonedSlot } from '../domain/webhooks/slots.js';
import { ApiError } from '../errors.js';
import {
  ADVANCE_RUN_JOB,
  DELIVER_JOB,
  FAIL_LATER_JOB,
  INBOUND_MESSAGE_JOB,
  INVOKE_JOB,
  LATER_SEND_JOB,
  PUBLIC_REPLY_JOB,
  INSTAGRAM_ECHO_JOB,
  PRUNE_JOB,
  STOP_RUNS_JOB,
  CHANNEL_WEBHOOK_JOB,
  TEMPLATE_SYNC_JOB,
} from '../job-kinds.js';
import { resyncTemplates } from '../domain/channels/numbers.js';
import type { Keyring } from '../domain/channels/credentials.js';
import type { WhatsAppCloudAccountApi } from '../channels/whatsapp-cloud/account.js';
import { applyChannelWebhook } from '../domain/channels/webhook-apply.js';
import { applyInstagramEcho } from '../domain/channels/instagram-apply.js';
import type { MediaStorage } from '../media/storage.js';
import type { TargetPolicy } from '../webhooks/targets.js';
import { JobRegistry } from './registry.js';
import { pruneFailedJobs } from './retention.js';
import { JOB_RETRY_SCHEDULES } from '../retries.js';
import type { MessagingProvider } from '../domain/messaging/delivery.js';
import type { SpreadsheetProvider } from '../spreadsheets/provider.js';
import { runAdvanceJob, runStopRunsJob } from '../engine/runs.js';
import { runInboundJob } from '../engine/triggers.js';
import { runInvokeJob } from '../engine/blocks/invoke/call.js';
import { runLaterSendJob } from '../engine/later-send-job.js';
import { runPublicReplyJob } from '../engine/public-reply-job.js';
import { INVOKE_TIMEOUT_MS } from '../engine/blocks/invoke/http.js';
import type { FieldPathEvaluator } from '../engine/blocks/invoke/field-evaluator.js';
import { DEFAULT_TIMEOUT_MS } from '../webhooks/sender.js';

export interface JobDeps {
  /** The webhook settings (dev targets, in-flight limit, pacing): their defaults live in config.ts only. */
  config: Pick<
    Config,
    | 'webhookDevTargets'
    | 'webhookMaxInFlight'
    | 'webhookPacePerMinute'
    | 'runsPerContactPerHour'
    | 'failedJobRetentionDays'
  >;
  /** The channel layer automations send through (server/services.ts). */
  provider: MessagingProvider;
  /** The spreadsheet layer sheets blocks write through (server/services.ts). */
  spreadsheets: SpreadsheetProvider;
  /** The URL rules at send (server/services.ts). Tests pass a resolver or a CA. */
  webhookTargets: TargetPolicy;
  /** The invoke block's address rules at call time (server/services.ts). */
  invokeTargets: TargetPolicy;
  /** The invoke block's field paths, read off the event loop (server/services.ts). */
  fieldPaths: FieldPathEvaluator;
  /** Where a contact's media fetched from a real channel is stored (server/services.ts). */
  storage: MediaStorage;
  /** The keyring numbers' tokens are sealed with, and the Graph API's reads (a template sync). */
  channelKeys: Keyring;
  whatsAppCloudAccount: WhatsAppCloudAccountApi;
  /** Tests: the invoke attempt deadline; default 60 s. */
  invokeTimeoutMs?: number;
  /** The service's public base URL, for the attachment URLs of message events. */
  baseUrl: string;
  /** The webhook answer deadline; default 10 s. */
  webhookTimeoutMs?: number;
}

/**
 * The leases (issue 23): each covers its kind's slowest stretch between two heartbeats (the worker renews a
 * running job's lease every 2 s), with room to spare; a crash frees the job within it, or sooner when the other
 * workers see the dead one's heartbeat stop (server/jobs/liveness.ts).
 */
const LEASE_MARGIN_MS = 20_000;
/** An engine stretch, an inbound message, a sandbox failure: transactions of a few statements. */
const SHORT_JOB_LEASE_MS = 30_000;
/** The hourly retention job deletes in batches (each a statement, its lease renewed while it runs). */
const PRUNE_LEASE_MS = 120_000;
/** An automation's send to a real channel: its media uploaded (up to 120 s), then the send (up to 15 s). */
const LATER_SEND_LEASE_MS = 150_000;
/** A channel webhook: a few statements per fact, and up to 15 s per media fetched. */
const CHANNEL_WEBHOOK_LEASE_MS = 120_000;

/** The invoke block's own services and settings. */
const invokeDeps = (deps: JobDeps) => ({
  targets: deps.invokeTargets,
  fieldPaths: deps.fieldPaths,
  ...(deps.invokeTimeoutMs !== undefined ? { timeoutMs: deps.invokeTimeoutMs } : {}),
});

/** What the delivery engine reads of the settings and services. */
function deliveryDeps(deps: JobDeps): DeliveryDeps {
  return {
    targets: deps.webhookTargets,
    baseUrl: deps.baseUrl,
    maxInFlight: deps.config.webhookMaxInFlight,
    pacePerMinute: deps.config.webhookPacePerMinute,
    ...(deps.webhookTimeoutMs !== undefined ? { timeoutMs: deps.webhookTimeoutMs } : {}),
  };
}

/** What the engine's jobs run with (each adds its clock and logger). */
function engineDeps(deps: JobDeps, registry: JobRegistry) {
  return {
    provider: deps.provider,
    spreadsheets: deps.spreadsheets,
    baseUrl: deps.baseUrl,
    runsPerContactPerHour: deps.config.runsPerContactPerHour,
    // An invoke block's call, or a send to a real channel, runs at once in this process after its transaction
    // commits (engine/commit.ts).
    soonRunner: registry,
  };
}

export function createJobRegistry(deps: JobDeps): JobRegistry {
  const config = deps.config;
  const delivery = deliveryDeps(deps);
  // Each kind's retry schedule is retries.ts's.
  const registry = new JobRegistry(JOB_RETRY_SCHEDULES);
  const engine = engineDeps(deps, registry);
  registerChannelJobs(registry, deps);
  registry.register(LATER_SEND_JOB, {
    leaseMs: LATER_SEND_LEASE_MS,
    run: (job, ctx) => runLaterSendJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
  });
  // The public reply under a comment on a real channel: one call, as a send's.
  registry.register(PUBLIC_REPLY_JOB, {
    leaseMs: LATER_SEND_LEASE_MS,
    run: (job, ctx) => runPublicReplyJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
  });
  return (
    registry
      .register(FAIL_LATER_JOB, {
        leaseMs: SHORT_JOB_LEASE_MS,
        // The sandbox's whatsapp reports a send it accepted as undelivered (the arranged `fails_later`).
        async run(job, ctx) {
          const p = job.payload;
          await ctx.db.transaction().execute(async (trx) => {
            try {
              const failure = { provider_code: p.provider_code, provider_message: p.provider_message };
              await failSentMessage(trx, ctx.clock, job.accountId, p.message_id, failure, p.base_url);
            } catch (error) {
              // Already failed (a repeat run after a crash), or the message is gone: nothing left to do.
              if (!(error instanceof ApiError)) throw error;
            }
            await ctx.complete(trx);
          });
        },
      })
      .register(DELIVER_JOB, {
        // One attempt of a webhook delivery (at least once: the job completes with the attempt's outcome): its
        // answer deadline and a margin. Cut short by a crash, it gives back its endpoint slot at once.
        leaseMs: (deps.webhookTimeoutMs ?? DEFAULT_TIMEOUT_MS) + LEASE_MARGIN_MS,
        run: (job, ctx) => runDeliveryJob(job, ctx, delivery),
        abandoned: (trx, job) => releaseAbandonedSlot(trx, job.payload.delivery_id),
      })
      // Automations: a contact's message (answers, taps, triggers) and a run's stretch (starts, waits ending).
      .register(INBOUND_MESSAGE_JOB, {
        leaseMs: SHORT_JOB_LEASE_MS,
        run: (job, ctx) => runInboundJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
      })
      .register(ADVANCE_RUN_JOB, {
        leaseMs: SHORT_JOB_LEASE_MS,
        run: (job, ctx) => runAdvanceJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
      })
      .register(STOP_RUNS_JOB, {
        leaseMs: SHORT_JOB_LEASE_MS,
        run: (job, ctx) => runStopRunsJob(job, ctx, { ...engine, clock: ctx.clock, logger: ctx.logger }),
      })
      .register(INVOKE_JOB, {
        // One attempt of an invoke block's call: no transaction held while the request waits; its deadline and
        // a margin.
        leaseMs: (deps.invokeTimeoutMs ?? INVOKE_TIMEOUT_MS) + LEASE_MARGIN_MS,
        run: (job, ctx) =>
          runInvokeJob(job, ctx, {
            ...engine,
            clock: ctx.clock,
            logger: ctx.logger,
            random: ctx.random,
            ...invokeDeps(deps),
          }),
      })
      .register(PRUNE_JOB, {
        leaseMs: PRUNE_LEASE_MS,
        // Failed jobs are kept FAILED_JOB_RETENTION_DAYS, deliveries 7 days; the job re-enqueues itself hourly.
        async run(_job, ctx) {
          const retentionDays = config.failedJobRetentionDays;
          const failed = await pruneFailedJobs(ctx.db, ctx.clock, { retentionDays });
          if (failed > 0) ctx.logger.info({ jobs: failed, retention_days: retentionDays }, 'failed jobs pruned');
          await runPruneJob(ctx);
        },
      })
  );
}

/** The real channels' jobs: a webhook's payload applied after the 200, a number's templates read again. */
function registerChannelJobs(registry: JobRegistry, deps: JobDeps): void {
  registry
    .register(CHANNEL_WEBHOOK_JOB, {
      // A real channel's payload, after Meta heard 200: its media fetches wait on the Graph API (15 s each).
      leaseMs: CHANNEL_WEBHOOK_LEASE_MS,
      // Its facts apply one by one, each idempotent (a wamid once, statuses forward only), so a run again after
      // a crash redoes nothing; the job completes once all are applied.
      async run(job, ctx) {
        const { provider, storage } = deps;
        // A message's own job runs at once after the message commits, in this process (JobRegistry.runSoon).
        const applying = { db: ctx.db, clock: ctx.clock, logger: ctx.logger, provider, storage, jobs: registry };
        const applied = await applyChannelWebhook(applying, job.payload);
        ctx.logger.debug({ ...applied, received_at: job.payload.received_at }, 'a channel webhook was applied');
        // No transaction of its own to complete it: the worker deletes the job once `run` returns (one statement).
      },
    })
    .register(INSTAGRAM_ECHO_JOB, {
      // An echo looked at again: at most one media fetch (15 s), as a webhook's.
      leaseMs: CHANNEL_WEBHOOK_LEASE_MS,
      // Idempotent as a webhook's facts (the mid is checked under the contact's lock): a run again redoes nothing.
      async run(job, ctx) {
        const { provider, storage } = deps;
        const applying = { db: ctx.db, clock: ctx.clock, logger: ctx.logger, provider, storage, jobs: registry };
        const outcome = await applyInstagramEcho(applying, job.payload);
        ctx.logger.debug(
          { outcome, connection_id: job.payload.connection_id },
          'an instagram echo was looked at again',
        );
      },
    })
    .register(TEMPLATE_SYNC_JOB, {
      leaseMs: CHANNEL_WEBHOOK_LEASE_MS,
      // Meta no longer knew a template a send named: the number's templates are read again.
      async run(job, ctx) {
        const numbers = { db: ctx.db, clock: ctx.clock, logger: ctx.logger, keyring: deps.channelKeys };
        try {
          await resyncTemplates({ ...numbers, graph: deps.whatsAppCloudAccount }, job.payload.connection_id);
        } catch (error) {
          // The number detached meanwhile, or its token refused (which disconnected it): nothing to retry.
          if (!(error instanceof ApiError) || error.status >= 500) throw error;
          ctx.logger.warn({ err: error, connection_id: job.payload.connection_id }, 'a template sync was refused');
        }
        await ctx.db.transaction().execute((trx) => ctx.complete(trx));
      },
    });
}
