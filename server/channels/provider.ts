// The channel layer: one interface for instagram and whatsapp. The service checks a send against the seeds'
// rules first (domain/messaging/send-rules); a provider delivers what passed and reports how the channel
// answered. The default provider is the sandbox (./sandbox.ts), which acts like the real channels.
import type { Kysely } from 'kysely';
import type { ConnectionRow } from '../store/console.js';
import type { ContactRow } from '../store/contacts.js';
import type { DB, StoredAttachment } from '../store/schema.js';

/** What will be delivered and stored: the message content in its read-back form (domain/messaging/send-rules). */
export interface OutboundContent {
  text: string | null;
  attachments: StoredAttachment[];
  template: { name: string; language: string } | null;
  form: 'text' | 'text_buttons' | 'media' | 'cards' | 'template';
}

export interface Delivery {
  accountId: string;
  connection: ConnectionRow;
  contact: ContactRow;
  content: OutboundContent;
}

/** How the channel answered a send. */
export type DeliveryResult =
  | {
      outcome: 'accepted';
      providerMessageId: string;
      /** whatsapp: the channel will report non-delivery later (the message then reads as failed). */
      failsLater?: { provider_code: string | null; provider_message: string | null };
    }
  | { outcome: 'provider_rejected'; providerMessage: string }
  | { outcome: 'provider_throttled' }
  | { outcome: 'provider_unavailable' }
  /** The channel did not confirm. `providerAccepted`: it accepted the message (which then went out). */
  | { outcome: 'outcome_unknown'; providerAccepted: boolean; providerMessageId: string | null }
  | { outcome: 'recipient_unavailable' }
  | { outcome: 'conversation_not_owned' };

export interface ChannelProvider {
  /** Delivers the message. `db` is for the provider's own state (the sandbox's arranged answers). */
  deliver(db: Kysely<DB>, delivery: Delivery, now: Date): Promise<DeliveryResult>;
}
