// cards: a carousel of up to 10 cards of up to 3 buttons; output c×3+b for a tap, the 31st right after the send.
import { arrayOf, buttonReferences, fixed, isObject, referenceAt, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'cards'> = {
  outputs: fixed(31),
  sends: true,
  references: (data) =>
    arrayOf(data.cards).flatMap((card, c) =>
      isObject(card)
        ? [
            ...referenceAt('upload', card.upload_id, `data.cards[${c}].upload_id`),
            ...buttonReferences(card.buttons, `data.cards[${c}].buttons`),
          ]
        : [],
    ),
};
