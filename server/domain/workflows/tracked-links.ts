// Tracked links (issue 22; Part B, buttons and cards `url`; Part C, `link.clicked`). A link button an automation
// sends carries this service's address `/links/{token}` instead of its own: public (no key), a random token
// of 192 bits. Opening it answers `302` to the button's address and, each time (reloads included), emits
// `link.clicked`; on instagram it also follows the button's output like a tap (a `workflow.advance` job, off
// the redirect's path). A link opened more than a year after its last send has expired: nothing is emitted.
//
// The click is recorded in one short transaction (the event, its deliveries, the job) before the 302; a fault
// there is logged and the contact is still redirected: that click has no event (best effort, Part C).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { SchemaLinkClickedData } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ADVANCE_RUN_JOB } from '../../job-kinds.js';
import { findContact } from '../../store/contacts.js';
import { enqueue } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import {
  selectTrackedLink,
  updateTrackedLinksMessage,
  upsertTrackedLink,
  type TrackedLinkRow,
} from '../../store/tracked-links.js';
import { recordEvents } from '../events/outbox.js';
import { trimEnd } from '../../text.js';

/** Where the tracking addresses live, below the service's public base. */
export const LINKS_PATH = '/links/';
/** The beginning of every tracking address of the service at `baseUrl`. */
export const trackingPrefix = (baseUrl: string) => `${trimEnd(baseUrl, '/')}${LINKS_PATH}`;
/** 24 random bytes in base64url: 32 characters. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** A link button a block sends to the run's contact. */
export interface LinkSend {
  accountId: string;
  workflowId: string;
  runId: string;
  contactId: string;
  channel: 'instagram' | 'whatsapp';
  nodeId: string;
  /** The button's place in its block (`b<i>`, `c<card>b<i>`). */
  buttonKey: string;
  buttonId: string | null;
  /** The output an open follows: instagram only (on whatsapp the output does not work yet, Part B). */
  output: number | null;
  url: string;
  at: Date;
}

/** The tracking address of the button (its token reused when the same link goes to the contact again). */
export async function trackLink(db: Kysely<DB>, baseUrl: string, send: LinkSend) {
  const at = send.at.toISOString();
  const token = await upsertTrackedLink(db, {
    id: randomUUID(),
    token: randomBytes(24).toString('base64url'),
    account_id: send.accountId,
    workflow_id: send.workflowId,
    contact_id: send.contactId,
    channel: send.channel,
    node_id: send.nodeId,
    button_key: send.buttonKey,
    button_id: send.buttonId,
    output: send.channel === 'instagram' ? send.output : null,
    url: send.url,
    run_id: send.runId,
    last_sent_at: at,
    created_at: at,
  });
  return { token, address: `${trackingPrefix(baseUrl)}${token}` };
}

/** The message that carried the links (an open follows the buttons of that message). */
export const linksSentIn = (db: Kysely<DB>, tokens: readonly string[], messageId: string) =>
  updateTrackedLinksMessage(db, tokens, messageId);

/** What an open of a tracking address answers. */
export type LinkOpening = { location: string } | { refusal: 'not_found' | 'expired' };

/** A link opened more than a year after its last send has expired. */
function expired(link: TrackedLinkRow, now: Date): boolean {
  const until = new Date(link.last_sent_at);
  until.setUTCFullYear(until.getUTCFullYear() + 1);
  return now.getTime() > until.getTime();
}

/** The token of a tracking address of this service (`{base}/v1/links/{token}`), or null. */
export function tokenOfAddress(address: string): string | null {
  let path: string;
  try {
    path = new URL(address).pathname;
  } catch {
    return null;
  }
  return path.startsWith(LINKS_PATH) ? path.slice(LINKS_PATH.length) : null;
}

/** Opens the link `token` as its contact: where to redirect, after recording the click; or why not. */
export async function openTrackedLink(
  db: Kysely<DB>,
  clock: Clock,
  token: string,
  logger?: Logger,
): Promise<LinkOpening> {
  if (!TOKEN.test(token)) return { refusal: 'not_found' };
  const link = await selectTrackedLink(db, token);
  if (!link) return { refusal: 'not_found' };
  const now = clock.now();
  if (expired(link, now)) return { refusal: 'expired' };
  try {
    await db.transaction().execute((tx) => recordClick(tx, clock, link, now));
  } catch (error) {
    // Best effort (Part C): the contact is taken to the address all the same; this click has no event.
    logger?.error({ err: error, link_id: link.id }, 'link click not recorded');
  }
  return { location: link.url };
}

/** `link.clicked`, and on instagram the job that follows the button's output like a tap. */
async function recordClick(tx: Transaction<DB>, clock: Clock, link: TrackedLinkRow, now: Date): Promise<void> {
  const contact = await findContact(tx, link.account_id, link.contact_id);
  const at = apiTimestamp(now);
  const data: SchemaLinkClickedData = {
    workflow_id: link.workflow_id,
    run_id: link.run_id,
    contact_id: contact ? contact.id : null,
    node_id: link.node_id,
    button_id: link.button_id,
    url: link.url,
    clicked_at: at,
  };
  await recordEvents(tx, link.account_id, at, [
    { type: 'link.clicked', resource: { type: 'tracked_link', id: link.id }, data },
  ]);
  if (contact && link.channel === 'instagram' && link.output !== null && link.message_id)
    await enqueue(tx, clock, {
      kind: ADVANCE_RUN_JOB,
      accountId: link.account_id,
      payload: {
        run_id: link.run_id,
        wake: { kind: 'link', output: link.output, messageId: link.message_id, nodeId: link.node_id },
      },
    });
}

/** The sandbox's contact opens a tracking address: what its browser gets (`POST /admin/v1/sandbox/links/open`). */
export async function contactOpensLink(db: Kysely<DB>, clock: Clock, address: string, logger?: Logger) {
  const token = tokenOfAddress(address);
  const opened: LinkOpening =
    token === null ? { refusal: 'not_found' } : await openTrackedLink(db, clock, token, logger);
  if ('location' in opened) return { status: 302 as const, location: opened.location };
  return { status: opened.refusal === 'expired' ? (410 as const) : (404 as const), location: null };
}
