// What the channel layer (channels/provider.ts) gets of a send: a channel object built from the store's rows,
// so no provider reads a row. The domain holds the provider as `MessagingProvider`: its sends run in a database
// session (the caller's transaction), which a provider with state of its own (the sandbox) takes its answers in.
import type { Kysely } from 'kysely';
import type {
  ChannelConnection,
  ChannelDelivery,
  ChannelProvider,
  OutboundContent,
  Recipient,
  ReplyContext,
} from '../../channels/provider.js';
import type { ConnectionRow } from '../../store/console.js';
import type { ContactRow } from '../../store/contacts.js';
import type { DB } from '../../store/schema.js';

/** The channel layer as the domain and the engine hold it: a send hands it the caller's database session. */
export type MessagingProvider = ChannelProvider<Kysely<DB>>;

/** The connection as a channel sees it. */
export function channelConnection(connection: ConnectionRow): ChannelConnection {
  return {
    id: connection.id,
    accountId: connection.account_id,
    channel: connection.channel,
    provider: connection.provider,
    phone: connection.phone,
    username: connection.username,
  };
}

/** The contact's address on the connection's channel. */
export function recipientOf(connection: ConnectionRow, contact: ContactRow): Recipient {
  return connection.channel === 'whatsapp'
    ? { channel: 'whatsapp', phone: contact.phone }
    : { channel: 'instagram', userId: contact.instagram_id };
}

/** The message `content` to `contact` through `connection`, answering `replyTo` when it answers something. */
export function channelDelivery(
  connection: ConnectionRow,
  contact: ContactRow,
  content: OutboundContent,
  replyTo: ReplyContext | null = null,
): ChannelDelivery {
  return { connection: channelConnection(connection), recipient: recipientOf(connection, contact), content, replyTo };
}
