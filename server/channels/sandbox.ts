// The sandbox channel: acts like instagram and whatsapp without a real phone. Every send is accepted unless
// an answer was arranged for the connection through the admin API (`/admin/v1/sandbox/…/send-outcomes`):
// each arranged answer is consumed by one send, in the order arranged. What the sandbox delivers is stored
// like a real channel's message; contacts act through the admin API too (domain/sandbox).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import { takeNextArrangement } from '../store/sandbox.js';
import type { ChannelProvider, Delivery, DeliveryResult } from './provider.js';

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

export class SandboxProvider implements ChannelProvider {
  async deliver(db: Kysely<DB>, delivery: Delivery): Promise<DeliveryResult> {
    const arranged = await takeNextArrangement(db, delivery.accountId, delivery.connection.id);
    return resultOf(arranged as ArrangedOutcome | undefined);
  }
}
