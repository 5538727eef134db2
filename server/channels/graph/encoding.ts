// What both of Meta's encoders (whatsapp-cloud/encode.ts, instagram/encode.ts) share: the error a form the send
// rules should have refused raises, and reading the one attachment a media, cards or buttons form holds.
import type { OutboundAttachment, OutboundCard, OutboundContent } from '../provider.js';

/** A form the encoder cannot write: the send rules should have refused it (our defect, logged). */
export class EncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodeError';
  }
}

/** The one attachment of a media, cards or buttons form. */
export function onlyAttachment(content: OutboundContent): OutboundAttachment {
  const [attachment, ...rest] = content.attachments;
  if (attachment === undefined || rest.length > 0) throw new EncodeError(`a ${content.form} needs one attachment`);
  return attachment;
}

/** The cards of a cards or buttons form (text with buttons is stored as one card whose title is the text). */
export function cardsOf(content: OutboundContent): OutboundCard[] {
  const attachment = onlyAttachment(content);
  if (attachment.type !== 'cards') throw new EncodeError(`a ${content.form} needs cards`);
  return attachment.cards;
}

/** Text with buttons: its one card, with buttons. */
export function buttonsCard(content: OutboundContent): OutboundCard {
  const [card, ...more] = cardsOf(content);
  if (card === undefined || more.length > 0 || card.buttons.length === 0)
    throw new EncodeError('text with buttons is one card with buttons');
  return card;
}
