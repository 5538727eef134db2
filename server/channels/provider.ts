// The channel layer: one interface for instagram and whatsapp. The service checks a send against the seeds'
// rules first (domain/messaging/send-rules); a provider delivers what passed and reports how the channel
// answered. The default provider is the sandbox (./sandbox.ts), which acts like the real channels; a whatsapp
// number connected through Meta is served by ./whatsapp-cloud/provider.ts; ./registry.ts picks per connection.
//
// A provider sees a channel object of its own (`ChannelDelivery`: whom, what, in answer to what), never a store
// row: this room imports neither the domain nor the store (test/layers.test.ts). The caller's database session
// reaches a provider only as the opaque `Session` its builder chose (the sandbox's arranged answers are read in
// it, through a port the domain implements); a real channel ignores it.
import type { components } from '../../generated/api.js';

type Schemas = components['schemas'];

export type ChannelName = 'instagram' | 'whatsapp';

/** Who serves a connection: the sandbox (the default), or the real channel's API (registry.ts picks it). */
export type ProviderName = 'sandbox' | 'whatsapp_cloud' | 'instagram_graph';

/** A card image as a message carries it: the API's without its `url` (the service base may change). */
export type OutboundCardImage = Omit<Schemas['MessageCardImage'], 'url'>;
/** A card as a message carries it: its image without the `url`. */
export type OutboundCard = Omit<Schemas['MessageCard'], 'image'> & { image: OutboundCardImage | null };
/**
 * An attachment as a message carries it: the API's read-back shape without the `url` fields (the same shape the
 * messages table stores, both derived from the spec's schemas).
 */
export type OutboundAttachment = Omit<Schemas['MediaAttachment'], 'url'> | { type: 'cards'; cards: OutboundCard[] };

/** What will be delivered and stored: the message content in its read-back form (domain/messaging/send-rules). */
export interface OutboundContent {
  text: string | null;
  attachments: OutboundAttachment[];
  /**
   * A whatsapp template: its name and language, and the values of its body's numbered placeholders in order (the
   * channel fills them; `text` holds the body already filled, as stored). Only `name` and `language` are stored.
   */
  template: { name: string; language: string; body_variables: string[] } | null;
  form: 'text' | 'text_buttons' | 'media' | 'cards' | 'template';
}

/** The connection a message goes out through: the account's instagram account or whatsapp number. */
export interface ChannelConnection {
  id: string;
  accountId: string;
  channel: ChannelName;
  /** Who serves it; the domain never branches on it (registry.ts does). */
  provider: ProviderName;
  /** whatsapp: the number in E.164 form; null on instagram. */
  phone: string | null;
  /** instagram: the username (lowercase, no `@`); null on whatsapp. */
  username: string | null;
}

/**
 * Whom the message goes to, as the channel addresses them: a whatsapp number (E.164, as the channel identifies
 * it) or an instagram user's id on the platform. Null when the contact has no such address (a provider answers
 * `recipient_unavailable` if it needs one).
 */
export type Recipient = { channel: 'whatsapp'; phone: string | null } | { channel: 'instagram'; userId: string | null };

/**
 * What the message answers, when it answers something: a comment, privately (the first message of a
 * comment-started run) or publicly under the post, or a contact's message. `messageId` is the service's id of it.
 */
export type ReplyContext =
  | {
      kind: 'comment_private_reply' | 'comment_public_reply';
      messageId: string;
      /** The channel's id of the comment (instagram answers a comment by it); null: the channel never gave one. */
      providerMessageId: string | null;
    }
  /** A contact's message this one answers (whatsapp quotes it by the channel's id, its `wamid`). */
  | { kind: 'message_reply'; messageId: string; providerMessageId: string };

/** A message to deliver: through which connection, to whom, what, and in answer to what. */
export interface ChannelDelivery {
  connection: ChannelConnection;
  recipient: Recipient;
  content: OutboundContent;
  replyTo: ReplyContext | null;
}

/** How the channel answered a send. */
export type DeliveryResult =
  | {
      outcome: 'accepted';
      providerMessageId: string;
      /** whatsapp: the channel will report non-delivery later (the message then reads as failed). */
      failsLater?: { provider_code: string | null; provider_message: string | null };
    }
  /** `providerCode`: the channel's own error code, when it gave one (whatsapp: Meta's `code`). */
  | { outcome: 'provider_rejected'; providerMessage: string; providerCode?: string | null }
  | { outcome: 'provider_throttled' }
  | { outcome: 'provider_unavailable' }
  /** The channel did not confirm. `providerAccepted`: it accepted the message (which then went out). */
  | { outcome: 'outcome_unknown'; providerAccepted: boolean; providerMessageId: string | null }
  | { outcome: 'recipient_unavailable' }
  | { outcome: 'conversation_not_owned' }
  /** The channel's own clock closed the 24-hour window (whatsapp 131047): answered as the window module does. */
  | { outcome: 'window_closed' }
  /**
   * The channel refused the template as asked. `resync`: it no longer knows the template (read the templates
   * again). `providerCode`: Meta's code (132015 paused, 132016 disabled, …).
   */
  | {
      outcome: 'template_refused';
      code: 'template_variables_mismatch' | 'template_not_found' | 'template_not_approved';
      resync: boolean;
      providerCode: string;
    }
  /** The token or its permissions are gone: the connection must be disconnected (`authorization_lost`). */
  | { outcome: 'authorization_lost' };

/** A contact's message the account has read, as the channel knows it. */
export interface InboundMessageRef {
  connection: ChannelConnection;
  /** The channel's id of the message (whatsapp: its `wamid`). */
  providerMessageId: string;
}

/** Media a contact sent, as the channel hands it over. */
export interface InboundMedia {
  bytes: Uint8Array;
  contentType: string | null;
  filename: string | null;
}

/**
 * A channel. `Session` is the caller's handle on the database session the send runs in: opaque here, it is for a
 * provider that keeps state of its own in the service's database (the sandbox's arranged answers, through the
 * port it was built with); a provider that talks to a real channel ignores it.
 */
export interface ChannelProvider<Session> {
  /** Delivers the message and says how the channel answered. */
  deliver(session: Session, delivery: ChannelDelivery, now: Date): Promise<DeliveryResult>;
  /**
   * Whether a send through `connection` waits on a real channel over the network: a caller inside a transaction
   * then delivers after it commits, so no transaction waits on the channel (issue 35). Absent: never.
   */
  remote?(connection: ChannelConnection): boolean;
  /** Tells the channel the account read a contact's message (whatsapp's read receipt); absent: nothing to tell. */
  markRead?(message: InboundMessageRef): Promise<void>;
  /** Fetches the bytes of media a contact sent, by the channel's media id; absent: the channel hands them inline. */
  fetchInboundMedia?(connection: ChannelConnection, mediaId: string): Promise<InboundMedia>;
}
