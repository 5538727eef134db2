// Every job kind of the service: its name (the `kind` stored in the jobs table, which rows already written keep)
// and its payload, in one map (`JobPayloads`). `enqueue` (store/jobs.ts) checks a job's payload against its
// kind, `JobRegistry.register` (jobs/registry.ts) hands each handler the payload of its kind, and
// `JOB_RETRY_SCHEDULES` (retries.ts) gives each kind its schedule.
//
// Neutral ground, which imports no room: the domain and the engine enqueue and run jobs through this module and
// `JobLease` (store/jobs.ts, beside the table it holds a claim of) without importing the worker (server/jobs/),
// which imports them.
import type { SchemaSendMessageRequest } from '../generated/api.js';

/** A stretch of an automation run (its start, a wait's end, a continuation). */
export const ADVANCE_RUN_JOB = 'workflow.advance';
/** A deleted automation's runs in progress end `stopped`. */
export const STOP_RUNS_JOB = 'workflow.stop_runs';
/** What a contact's message (or the account's own instagram message) does to automations. */
export const INBOUND_MESSAGE_JOB = 'messaging.inbound';
/** The sandbox's whatsapp reports a send it accepted as undelivered (the arranged `fails_later`). */
export const FAIL_LATER_JOB = 'sandbox.fail_message';
/** One attempt of a webhook delivery. */
export const DELIVER_JOB = 'webhook.deliver';
/** One attempt of an invoke block's HTTP call (its retries are later jobs of this kind). */
export const INVOKE_JOB = 'workflow.invoke';
/**
 * An automation's send through a channel reached over the network (WhatsApp Cloud): made after the stretch that
 * ran the block committed, with no transaction held while the channel answers; the run waits (`send`) meanwhile.
 */
export const LATER_SEND_JOB = 'workflow.send';
/**
 * The public reply under a comment, through a channel reached over the network (Instagram): `POST
 * /{comment_id}/replies` after the stretch commits; recorded as the run's `public_reply` step when the channel answers.
 */
export const PUBLIC_REPLY_JOB = 'workflow.public_reply';
/** A signed webhook payload of a real channel, committed as it came before the 200; the job decodes and applies it. */
export const CHANNEL_WEBHOOK_JOB = 'channels.webhook';
/**
 * An Instagram echo whose mid is not stored yet, looked at again a little later: Meta may echo our own send before
 * the send has stored the mid Meta answered with. Still unknown then, the account wrote it in Instagram's app.
 */
export const INSTAGRAM_ECHO_JOB = 'channels.instagram_echo';
/** A WhatsApp Cloud number's templates read again (Meta answered a send 132001: it no longer knows one). */
export const TEMPLATE_SYNC_JOB = 'channels.template_sync';
/** The periodic retention job (deliveries older than 7 days); one is pending at a time, it re-enqueues itself. */
export const PRUNE_JOB = 'webhook.prune';

/** What moves a run on. */
export type Wake =
  | { kind: 'start' }
  | { kind: 'continue' }
  /** A timed wait ended (sleep, start delay): `step` is the waiting step, so a stale job does nothing. */
  | { kind: 'timer'; step: number }
  /** A question or buttons waited 90 days. */
  | { kind: 'expire'; step: number }
  | { kind: 'answer'; text: string; messageId: string }
  /** A tap on the buttons of message `messageId` (the run's wait, or buttons whose after-send branch runs on). */
  | { kind: 'tap'; output: number; messageId: string }
  /** A tap on the buttons (step `step` at block `nodeId`) of a run that ended `stopped`: it runs again. */
  | { kind: 'resume'; step: number; nodeId: string; output: number }
  | { kind: 'child' }
  /**
   * The contact opened the tracked link of output `output` of the buttons (block `nodeId`) of message
   * `messageId` (instagram): followed like a tap, also by a run that ended `stopped` since.
   */
  | { kind: 'link'; output: number; messageId: string; nodeId: string }
  /**
   * The contact sent the code of the whatsapp handoff button of output `output` of the buttons (block `nodeId`)
   * of message `messageId` to the number: the person went on on whatsapp in a run of its own; this run closes
   * those buttons with that output and ends `completed` (also after it ended `stopped`).
   */
  | { kind: 'handoff'; output: number; messageId: string; nodeId: string }
  /**
   * The invoke block's call at step `step` ended (`output` 0 success, 1 failure), or its wait's bound passed
   * (the call row still pending): a stale wake for another step does nothing.
   */
  | { kind: 'call'; step: number; output: number }
  /**
   * The send of step `step` was made (LATER_SEND_JOB, with its outcome in hand), or its wait's bound passed (a
   * `workflow.advance` job: the run still waiting, the outcome is unknown).
   */
  | { kind: 'send'; step: number };

export interface AdvancePayload {
  run_id: string;
  wake: Wake;
}

export interface StopRunsPayload {
  workflow_id: string;
}

export interface InboundMessagePayload {
  message_id: string;
}

export interface FailLaterPayload {
  message_id: string;
  provider_code: string | null;
  provider_message: string | null;
  /** The service's public base URL, for the attachment URLs of the `message.updated` event. */
  base_url: string;
}

export interface InvokePayload {
  call_id: string;
  /**
   * The attempt this job makes (1 for the block's own job, 2 and 3 for the retries): its first claim calls
   * without a write first and records the count with the answer; a claim again (a crash, a fault) counts it as
   * made. Absent on jobs written before it: their attempt is counted before the call.
   */
  attempt?: number;
}

/** What a sending block does once the channel took its message: follow an output, or wait for the contact. */
export type SendThen = { next: number } | { wait: 'answer' | 'tap'; until: string; then_output?: number };

export interface LaterSendPayload {
  run_id: string;
  /** The step of the block that sends, which the run waits at (`waiting_for: 'send'`), and when it began. */
  step: number;
  started_at: string;
  /** The message's id, chosen before it goes out (a buttons block's links name it). */
  message_id: string;
  contact_id: string;
  workflow: { id: string; title: string };
  /** The account's platform signature as the stretch read it (the send's text is fitted to it). */
  platform_signature: string | null;
  /** The message as the block wrote it (its variables filled in): checked again by the channel's rules. */
  body: SchemaSendMessageRequest;
  /** The comment it answers privately (the first message of a comment-started run). */
  private_reply_to: string | null;
  then: SendThen;
}

export interface PublicReplyPayload {
  run_id: string;
  /** The run's step the reply is recorded as (numbered by the stretch that chose it), and when it began. */
  step: number;
  started_at: string;
  /** The reply's message id, chosen before it goes out. */
  message_id: string;
  contact_id: string;
  workflow: { id: string; title: string };
  platform_signature: string | null;
  /** The comment (the service's message id) the reply goes under. */
  comment_id: string;
  /** The reply's text, its variables filled in. */
  text: string;
}

export interface ChannelWebhookPayload {
  /** The provider whose route took the payload in (whose decoder reads it). */
  provider: 'whatsapp_cloud' | 'instagram_graph';
  /** The body as it came (its signature was checked on these bytes, UTF-8). */
  body: string;
  received_at: string;
  /** The service's public base URL, for the attachment URLs of the events. */
  base_url: string;
}

export interface InstagramEchoPayload {
  connection_id: string;
  /** The webhook's body as it came (decoded again: the echo is its item whose mid is `mid`). */
  body: string;
  mid: string;
  base_url: string;
}

export interface DeliverPayload {
  delivery_id: string;
}

/** The payload of each kind. */
export interface JobPayloads {
  [ADVANCE_RUN_JOB]: AdvancePayload;
  [STOP_RUNS_JOB]: StopRunsPayload;
  [INBOUND_MESSAGE_JOB]: InboundMessagePayload;
  [FAIL_LATER_JOB]: FailLaterPayload;
  [DELIVER_JOB]: DeliverPayload;
  [INVOKE_JOB]: InvokePayload;
  [PRUNE_JOB]: Record<string, never>;
  [CHANNEL_WEBHOOK_JOB]: ChannelWebhookPayload;
  [LATER_SEND_JOB]: LaterSendPayload;
  [PUBLIC_REPLY_JOB]: PublicReplyPayload;
  [TEMPLATE_SYNC_JOB]: { connection_id: string };
  [INSTAGRAM_ECHO_JOB]: InstagramEchoPayload;
}

export type JobKind = keyof JobPayloads;

/** The kinds that work for the whole service, not for one account (their `accountId` is null). */
type ServiceWideKind = typeof PRUNE_JOB | typeof CHANNEL_WEBHOOK_JOB;

/**
 * The payload of a job of kind `K`: the map's for the service's kinds; any JSON value for another kind (the
 * jobs machinery's own tests run kinds of their own).
 */
export type PayloadOf<K extends string> = K extends JobKind ? JobPayloads[K] : unknown;

/** The account of a job of kind `K`: none for a service-wide kind, one for the service's other kinds. */
export type AccountOf<K extends string> = K extends ServiceWideKind ? null : K extends JobKind ? string : string | null;

/** A job of kind `K` as its handler reads it. */
export interface JobOf<K extends JobKind> {
  id: string;
  accountId: AccountOf<K>;
  payload: JobPayloads[K];
  /** Claims so far, this one included (more than 1: an earlier claim ended in a crash or a fault). */
  attempts: number;
}
