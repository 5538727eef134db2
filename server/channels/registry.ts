// The provider of each connection (issue 35, "The provider seam"): a ChannelProvider itself, which hands every
// call to the provider the connection names (`ChannelConnection.provider`: `sandbox`, the default, or
// `whatsapp_cloud`; later `instagram_graph`). The engine, the send rules and the domain hold this one provider and
// never branch on which serves a connection.
import type {
  ChannelConnection,
  ChannelDelivery,
  ChannelProvider,
  DeliveryResult,
  InboundMedia,
  InboundMessageRef,
  ProviderName,
} from './provider.js';

/** The providers a process has: the sandbox always; a real one when it is configured. */
export type ProviderTable<Session> = { sandbox: ChannelProvider<Session> } & {
  readonly [P in Exclude<ProviderName, 'sandbox'>]?: ChannelProvider<Session>;
};

export class ProviderRegistry<Session> implements ChannelProvider<Session> {
  constructor(private readonly providers: ProviderTable<Session>) {}

  /** The provider that serves `connection`; a connection naming one this process lacks is a wiring fault. */
  providerFor(connection: Pick<ChannelConnection, 'id' | 'provider'>): ChannelProvider<Session> {
    const provider = this.providers[connection.provider];
    if (!provider) throw new Error(`no ${connection.provider} provider is configured (connection ${connection.id})`);
    return provider;
  }

  async deliver(session: Session, delivery: ChannelDelivery, now: Date): Promise<DeliveryResult> {
    return this.providerFor(delivery.connection).deliver(session, delivery, now);
  }

  remote(connection: ChannelConnection): boolean {
    return this.providerFor(connection).remote?.(connection) ?? false;
  }

  /** Nothing to tell when the connection's provider has no read receipts (the sandbox). */
  async markRead(message: InboundMessageRef): Promise<void> {
    await this.providerFor(message.connection).markRead?.(message);
  }

  async fetchInboundMedia(connection: ChannelConnection, mediaId: string): Promise<InboundMedia> {
    const provider = this.providerFor(connection);
    if (!provider.fetchInboundMedia) throw new Error(`the ${connection.provider} provider hands media inline`);
    return provider.fetchInboundMedia(connection, mediaId);
  }
}
