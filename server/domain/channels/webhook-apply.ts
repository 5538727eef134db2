// A real channel's webhook payload, applied after Meta heard 200 (the CHANNEL_WEBHOOK_JOB that ./webhook-intake.ts
// committed): each provider's facts by its own applier, the payload naming the provider whose route took it in.
import type { ChannelWebhookPayload } from '../../job-kinds.js';
import { applyInstagramWebhook, type InstagramApplied } from './instagram-apply.js';
import type { WebhookApplyDeps } from './received-media.js';
import { applyWhatsAppWebhook, type WhatsAppApplied } from './whatsapp-apply.js';

export type { WebhookApplyDeps };

/** What became of a payload's facts (logged, and read by the tests). */
export type WebhookApplied = WhatsAppApplied | InstagramApplied;

export function applyChannelWebhook(deps: WebhookApplyDeps, payload: ChannelWebhookPayload): Promise<WebhookApplied> {
  switch (payload.provider) {
    case 'whatsapp_cloud':
      return applyWhatsAppWebhook(deps, payload);
    case 'instagram_graph':
      return applyInstagramWebhook(deps, payload);
  }
}
