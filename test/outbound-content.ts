// The seeds' message forms as the channel layer gets them (`OutboundContent`), built for the encoders' tests
// (WhatsApp Cloud's and Instagram's): a text, reply and link buttons, text with buttons, a card.
import type { OutboundCard, OutboundContent } from '../server/channels/provider.js';

export const content = (overrides: Partial<OutboundContent>): OutboundContent => ({
  text: null,
  attachments: [],
  template: null,
  form: 'text',
  ...overrides,
});

export const reply = (id: string, title: string) => ({ type: 'postback' as const, id, title, url: null });
export const link = (title: string, url: string) => ({ type: 'open_url' as const, id: null, title, url });

/** Text with buttons, as send-rules stores it: one card whose title is the text. */
export const buttonsCard = (title: string, buttons: OutboundCard['buttons']): OutboundContent =>
  content({
    form: 'text_buttons',
    attachments: [{ type: 'cards', cards: [{ title, subtitle: null, image: null, buttons }] }],
  });

/** A card; `mediaId` null: without an image. */
export const card = (
  title: string,
  subtitle: string | null,
  mediaId: string | null,
  buttons: OutboundCard['buttons'],
): OutboundCard => ({
  title,
  subtitle,
  image: mediaId === null ? null : { media_id: mediaId, content_type: 'image/png' },
  buttons,
});
