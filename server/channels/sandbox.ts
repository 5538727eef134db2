// The sandbox channel: acts like instagram and whatsapp without a real phone. Every send is accepted unless
// an answer was arranged for the connection through the admin API (`/admin/v1/sandbox/…/send-outcomes`):
// each arranged answer is consumed by one send, in the order arranged. What the sandbox delivers is stored
// like a real channel's message; contacts act through the admin API too (domain/sandbox).
//
// The arranged answers are kept in the service's database, which this room does not reach: the provider is built
// with a port (`SandboxArrangements`, implemented by domain/sandbox/outcomes.ts and wired in server/services.ts)
// and takes each answer through it in the session the send runs in (the caller's transaction), so an answer is
// consumed by the send that commits, and on PGlite's one session no second connection waits for the first.
import { randomUUID } from 'node:crypto';
import type { ChannelDelivery, ChannelProvider, DeliveryResult } from './provider.js';

export const SANDBOX_OUTCOMES = [
  'accepted',
  'provider_rejected',
  'provider_throttled',
  'provider_unavailable',
  'outcome_unknown',
  'recipient_unavailable',
  'conversation_not_owned',
  'fails_later',
] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

export interface ArrangedOutcome {
  outcome: SandboxOutcome;
  provider_accepted?: boolean;
  provider_message?: string;
  provider_code?: string;
}

/** Where the sandbox's arranged answers are kept: each send takes the oldest of its connection, in order. */
export interface SandboxArrangements<Session> {
  /** Takes (removes and returns) the oldest answer arranged for the connection, in `session`; none: undefined. */
  takeNext(session: Session, accountId: string, connectionId: string): Promise<ArrangedOutcome | undefined>;
}

const isOutcome = (value: unknown): value is SandboxOutcome => SANDBOX_OUTCOMES.some((outcome) => outcome === value);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** An arranged answer as it was kept (JSON), read back; undefined when it is not one. */
export function arrangedOutcomeOf(kept: unknown): ArrangedOutcome | undefined {
  if (!isRecord(kept) || !isOutcome(kept.outcome)) return undefined;
  const { outcome, provider_accepted, provider_message, provider_code } = kept;
  return {
    outcome,
    ...(typeof provider_accepted === 'boolean' ? { provider_accepted } : {}),
    ...(typeof provider_message === 'string' ? { provider_message } : {}),
    ...(typeof provider_code === 'string' ? { provider_code } : {}),
  };
}

const messageId = () => `sandbox-${randomUUID()}`;

export function resultOf(arranged: ArrangedOutcome | undefined): DeliveryResult {
  switch (arranged?.outcome ?? 'accepted') {
    case 'accepted':
      return { outcome: 'accepted', providerMessageId: messageId() };
    case 'fails_later':
      return {
        outcome: 'accepted',
        providerMessageId: messageId(),
        failsLater: {
          provider_code: arranged?.provider_code ?? '131026',
          provider_message: arranged?.provider_message ?? 'Message undeliverable.',
        },
      };
    case 'provider_rejected':
      return {
        outcome: 'provider_rejected',
        providerMessage: arranged?.provider_message ?? 'The channel refused the message.',
      };
    case 'outcome_unknown': {
      const accepted = arranged?.provider_accepted ?? false;
      return {
        outcome: 'outcome_unknown',
        providerAccepted: accepted,
        providerMessageId: accepted ? messageId() : null,
      };
    }
    case 'provider_throttled':
      return { outcome: 'provider_throttled' };
    case 'provider_unavailable':
      return { outcome: 'provider_unavailable' };
    case 'recipient_unavailable':
      return { outcome: 'recipient_unavailable' };
    case 'conversation_not_owned':
      return { outcome: 'conversation_not_owned' };
  }
}

export class SandboxProvider<Session> implements ChannelProvider<Session> {
  constructor(private readonly arrangements: SandboxArrangements<Session>) {}

  async deliver(session: Session, delivery: ChannelDelivery): Promise<DeliveryResult> {
    const { connection } = delivery;
    return resultOf(await this.arrangements.takeNext(session, connection.accountId, connection.id));
  }
}
