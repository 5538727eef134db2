// Examples of the messaging area: conversations, messages, sends (every form, both channels), media and the
// route-specific error variants. Everything is drawn from the world, so a message's conversation_id is its
// contact's conversation, a button tap points at the message that carried the button, and so on.
//
// `messagingFixtures(world)` is exported so other areas (the message events of the webhooks area) can reuse
// the very same messages: it has its own seeded faker, so it returns the same values whoever calls it.
import type { AreaBuilder, ExampleSet, World, WorldContact } from './world.js';
import { at, makeFaker } from './world.js';

export const API_BASE = 'https://api.engagement.example';
const UPLOAD_BASE = 'https://uploads.engagement.example';
/** What the platform signature adds to a lone text and to the text above buttons (the account plan has it). */
export const SIGNATURE = '\n\nEnviado com Engagement Platform';
const DAY = 60 * 24;

type ChannelType = 'instagram' | 'whatsapp';
type SenderType = 'contact' | 'user' | 'workflow' | 'api' | 'unattributed';

export interface MessageSender {
  type: SenderType;
  user_id: string | null;
  name: string | null;
  workflow_id: string | null;
  api_key_id: string | null;
}
export interface MediaAttachment {
  type: 'image' | 'video' | 'audio' | 'file' | 'sticker';
  media_id: string;
  url: string;
  content_type: string | null;
  size: number | null;
  filename: string | null;
  expires_at: string | null;
}
export interface CardButton {
  type: 'postback' | 'open_url';
  id: string | null;
  title: string;
  url: string | null;
}
export interface Card {
  title: string;
  subtitle: string | null;
  image: { media_id: string; url: string; content_type: string | null } | null;
  buttons: CardButton[];
}
export interface CardsAttachment {
  type: 'cards';
  cards: Card[];
}
export interface Message {
  id: string;
  conversation_id: string;
  contact_id: string;
  channel: { type: ChannelType; connection_id: string };
  type:
    'message' | 'comment' | 'comment_reply' | 'comment_dm_reply' | 'story_message' | 'story_mention' | 'live_comment';
  direction: 'inbound' | 'outbound';
  sender: MessageSender;
  text: string | null;
  attachments: (MediaAttachment | CardsAttachment)[];
  template: { name: string; language: string } | null;
  reply_to_message_id: string | null;
  button: { id: string | null; title: string; source: 'api' | 'workflow' | 'ice_breaker' | 'other' } | null;
  post: { id: string; type: 'feed' | 'story' | 'live'; url: string | null } | null;
  status: 'received' | 'sent' | 'failed';
  failure: { failed_at: string; provider_code: string | null; provider_message: string | null } | null;
  is_unsupported: boolean;
  is_removed: boolean;
  is_edited: boolean;
  reactions: { emoji: string; by: 'contact' | 'account'; created_at: string }[];
  read_at: string | null;
  created_at: string;
}
export interface Conversation {
  id: string;
  contact: { id: string; name: string };
  person_id: string;
  channel: { type: ChannelType; connection_id: string };
  last_message_at: string | null;
  unread: boolean;
  reply_window: { state: 'open' | 'closed'; closes_at: string | null };
  created_at: string;
}

// Request shapes (the body of POST /v1/conversations/{conversationId}/messages).
type SendButton = { type: 'open_url'; title: string; url: string } | { type: 'reply'; id: string; title: string };
interface SendCard {
  title: string;
  subtitle?: string;
  media_id?: string;
  buttons?: SendButton[];
}
interface SendMessageRequest {
  text?: string;
  buttons?: SendButton[];
  attachments?: (
    { type: 'image' | 'video' | 'audio' | 'file'; media_id: string } | { type: 'cards'; cards: SendCard[] }
  )[];
  template?: { name: string; language: string; body_variables?: string[] };
}

export const mediaUrl = (id: string): string => `${API_BASE}/v1/media/${id}/content`;

/** Turns the buttons of a send into the buttons of a card as read back. */
function readButtons(buttons: SendButton[] = []): CardButton[] {
  return buttons.map((b) =>
    b.type === 'reply'
      ? { type: 'postback', id: b.id, title: b.title, url: null }
      : { type: 'open_url', id: null, title: b.title, url: b.url },
  );
}

/** The fixed set of conversations, messages, media and sends every messaging example is drawn from. */
export function messagingFixtures(w: World) {
  const f = makeFaker(4242);
  const uuid = () => f.string.uuid();
  // Ids added later come from their own faker, so the ids drawn from `f` (and the examples built on them) stay put.
  const f2 = makeFaker(4243);
  const laterUuid = () => f2.string.uuid();
  const igMediaId = () => f.string.numeric({ length: 17, allowLeadingZeros: false });
  const cursor = () => f.string.alphanumeric({ length: 64 });

  const ana = w.contacts.anaInstagram;
  const anaWa = w.contacts.anaWhatsapp;
  const bruno = w.contacts.bruno;
  const carla = w.contacts.carla;
  const first = (c: WorldContact) => c.name.split(' ')[0] ?? c.name;
  const m = w.ids.messages;

  // Media: media[0] is an uploaded product photo; media[1] a 7 MB photo (too large for whatsapp), media[2] was
  // never uploaded, media[3] is not in the account (see the shared error examples).
  const media = {
    photo: w.ids.media[0]!,
    invoice: uuid(),
    cardBlack: uuid(),
    cardBlue: uuid(),
    receivedPhoto: uuid(),
    storyMention: uuid(),
    webpPhoto: laterUuid(),
  };
  const extra = {
    anaComment: uuid(),
    liveComment: uuid(),
    publicReply: uuid(),
    privateReply: uuid(),
    storyMention: uuid(),
    removed: uuid(),
    unsupported: uuid(),
    sentTextWa: uuid(),
    sentLinkWa: uuid(),
    sentDocumentWa: uuid(),
    sentImageIg: uuid(),
    workflowGreeting: uuid(),
    teamMember: uuid(),
  };
  const liveId = igMediaId();
  const mentionStoryId = igMediaId();

  const senders = {
    contact: (c: WorldContact): MessageSender => ({
      type: 'contact',
      user_id: null,
      name: c.name,
      workflow_id: null,
      api_key_id: null,
    }),
    api: {
      type: 'api',
      user_id: null,
      name: w.apiKey.name,
      workflow_id: null,
      api_key_id: w.apiKey.id,
    } as MessageSender,
    workflow: (id: string, title: string): MessageSender => ({
      type: 'workflow',
      user_id: null,
      name: title,
      workflow_id: id,
      api_key_id: null,
    }),
  };
  const channelOf = (c: WorldContact) => ({ type: c.channel, connection_id: c.connection_id });

  const base = (c: WorldContact, id: string, created_at: string): Message => ({
    id,
    conversation_id: c.conversation_id,
    contact_id: c.id,
    channel: channelOf(c),
    type: 'message',
    direction: 'outbound',
    sender: senders.api,
    text: null,
    attachments: [],
    template: null,
    reply_to_message_id: null,
    button: null,
    post: null,
    status: 'sent',
    failure: null,
    is_unsupported: false,
    is_removed: false,
    is_edited: false,
    reactions: [],
    read_at: null,
    created_at,
  });
  const inbound = (c: WorldContact, id: string, created_at: string, rest: Partial<Message>): Message => ({
    ...base(c, id, created_at),
    direction: 'inbound',
    sender: senders.contact(c),
    status: 'received',
    ...rest,
  });
  /** What a send returns: the request as the service stores and reads it back. */
  const sent = (
    c: WorldContact,
    id: string,
    created_at: string,
    req: SendMessageRequest,
    extraFields: Partial<Message> = {},
  ): Message => {
    const msg = base(c, id, created_at);
    const att = req.attachments?.[0];
    if (req.template) {
      msg.template = { name: req.template.name, language: req.template.language };
    } else if (req.buttons) {
      msg.attachments = [
        {
          type: 'cards',
          cards: [
            { title: `${req.text ?? ''}${SIGNATURE}`, subtitle: null, image: null, buttons: readButtons(req.buttons) },
          ],
        },
      ];
    } else if (att && att.type === 'cards') {
      msg.text = req.text ?? null;
      msg.attachments = [
        {
          type: 'cards',
          cards: att.cards.map((card) => ({
            title: card.title,
            subtitle: card.subtitle ?? null,
            image: card.media_id
              ? { media_id: card.media_id, url: mediaUrl(card.media_id), content_type: 'image/jpeg' }
              : null,
            buttons: readButtons(card.buttons),
          })),
        },
      ];
    } else if (att) {
      msg.text = req.text ?? null;
      const known = mediaInfo[att.media_id];
      msg.attachments = [
        {
          type: att.type,
          media_id: att.media_id,
          url: mediaUrl(att.media_id),
          content_type: known?.content_type ?? null,
          size: known?.size ?? null,
          filename: known?.filename ?? null,
          expires_at: null,
        },
      ];
    } else if (req.text !== undefined) {
      msg.text = `${req.text}${SIGNATURE}`;
    }
    return { ...msg, ...extraFields };
  };
  const mediaInfo: Record<string, { content_type: string; size: number; filename: string | null }> = {
    [media.photo]: { content_type: 'image/jpeg', size: 245_760, filename: null },
    [media.invoice]: { content_type: 'application/pdf', size: 88_412, filename: 'nota-fiscal-4821.pdf' },
  };
  const shopUrl = 'https://loja.example.com/tenis/runner';

  // ----- Requests: every form, for both channels -----
  const requests = {
    textInstagram: { text: `Temos sim, ${first(ana)}! O Runner 38 está disponível em preto e em azul.` },
    textWhatsapp: {
      text: `Oi ${first(anaWa)}! Sua troca foi aprovada. Pode postar o par na agência mais próxima com o código TRC-4821.`,
    },
    buttonsInstagram: {
      text: 'Qual cor você prefere?',
      buttons: [
        { type: 'reply', id: 'color_black', title: 'Preto' },
        { type: 'reply', id: 'color_blue', title: 'Azul' },
        { type: 'open_url', title: 'Ver na loja', url: `${shopUrl}?tamanho=38` },
      ],
    },
    replyButtonsWhatsapp: {
      text: 'Como foi sua experiência com a troca?',
      buttons: [
        { type: 'reply', id: 'rate_good', title: 'Ótima' },
        { type: 'reply', id: 'rate_ok', title: 'Regular' },
        { type: 'reply', id: 'rate_bad', title: 'Ruim' },
      ],
    },
    linkButtonWhatsapp: {
      text: 'Acompanhe a entrega do seu novo par pelo link abaixo.',
      buttons: [{ type: 'open_url', title: 'Rastrear pedido', url: 'https://loja.example.com/pedidos/4821/rastreio' }],
    },
    imageInstagram: { attachments: [{ type: 'image', media_id: media.photo }] },
    imageWithCaptionWhatsapp: {
      text: 'Segue a foto do modelo azul.',
      attachments: [{ type: 'image', media_id: media.photo }],
    },
    documentWhatsapp: {
      text: 'Sua nota fiscal do pedido #4821.',
      attachments: [{ type: 'file', media_id: media.invoice }],
    },
    cardsInstagram: {
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: 'Runner Preto',
              subtitle: 'R$ 349,90 · numeração 34 a 44',
              media_id: media.cardBlack,
              buttons: [
                { type: 'reply', id: 'buy_runner_black', title: 'Quero este' },
                { type: 'open_url', title: 'Ver detalhes', url: `${shopUrl}-preto` },
              ],
            },
            {
              title: 'Runner Azul',
              subtitle: 'R$ 349,90 · numeração 34 a 44',
              media_id: media.cardBlue,
              buttons: [
                { type: 'reply', id: 'buy_runner_blue', title: 'Quero este' },
                { type: 'open_url', title: 'Ver detalhes', url: `${shopUrl}-azul` },
              ],
            },
          ],
        },
      ],
    },
    cardsWhatsapp: {
      text: 'Escolha o seu novo par 👇',
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: 'Runner Preto',
              subtitle: 'R$ 349,90',
              media_id: media.cardBlack,
              buttons: [
                { type: 'reply', id: 'pick_black', title: 'Quero este' },
                { type: 'reply', id: 'sizes_black', title: 'Ver numeração' },
              ],
            },
            {
              title: 'Runner Azul',
              subtitle: 'R$ 349,90',
              media_id: media.cardBlue,
              buttons: [
                { type: 'reply', id: 'pick_blue', title: 'Quero este' },
                { type: 'reply', id: 'sizes_blue', title: 'Ver numeração' },
              ],
            },
          ],
        },
      ],
    },
    templateWhatsapp: {
      template: { name: 'order_shipped', language: 'pt_BR', body_variables: [first(carla), '4821'] },
    },
  } satisfies Record<string, SendMessageRequest>;

  // ----- Messages -----
  // Ana on instagram: a comment answered in private, a DM that started the welcome automation, a story
  // mention, a story reply, a DM, API sends, then she taps a button (her last message, 35 min ago).
  const anaIg = {
    comment: inbound(ana, extra.anaComment, at(-3 * DAY - 2, 640), {
      type: 'comment',
      text: 'Quanto está o Runner? 👀',
      post: { id: w.ids.posts[0]!, type: 'feed', url: 'https://www.instagram.com/p/DB3xK9aPq2L/' },
      read_at: at(-3 * DAY + 25),
    }),
    privateReply: {
      ...base(ana, extra.privateReply, at(-3 * DAY)),
      type: 'comment_dm_reply',
      sender: senders.workflow(w.ids.workflows[0]!, 'Preço nos comentários'),
      text: `Oi ${first(ana)}! O Runner sai por R$ 349,90. Veja aqui: ${shopUrl}`,
      reply_to_message_id: extra.anaComment,
      post: { id: w.ids.posts[0]!, type: 'feed', url: 'https://www.instagram.com/p/DB3xK9aPq2L/' },
    } satisfies Message,
    comeback: inbound(ana, laterUuid(), at(-2 * DAY - 0.1, 530), {
      text: 'Oi! Voltei 😊',
      read_at: at(-2 * DAY + 47),
    }),
    greeting: {
      ...base(ana, extra.workflowGreeting, at(-2 * DAY)),
      sender: senders.workflow(w.ids.workflows[1]!, 'Boas-vindas'),
      text: `Bem-vinda de volta, ${first(ana)}! 👋 Em que posso ajudar?`,
      reactions: [{ emoji: '❤️', by: 'contact', created_at: at(-2 * DAY + 3, 412) }],
    } satisfies Message,
    storyMention: inbound(ana, extra.storyMention, at(-30 * 60, 118), {
      type: 'story_mention',
      attachments: [
        {
          type: 'image',
          media_id: media.storyMention,
          url: mediaUrl(media.storyMention),
          content_type: 'image/jpeg',
          size: 512_331,
          filename: null,
          expires_at: at(-30 * 60 + 90 * DAY, 118),
        },
      ],
      post: { id: mentionStoryId, type: 'story', url: null },
      read_at: at(-29 * 60),
    }),
    removed: inbound(ana, extra.removed, at(-6 * 60, 7), { is_removed: true, read_at: at(-5 * 60 - 50) }),
    storyReply: inbound(ana, m[2]!, at(-5 * 60, 551), {
      type: 'story_message',
      text: 'Que lindo esse modelo! Tem em azul?',
      post: { id: w.ids.posts[1]!, type: 'story', url: null },
      read_at: at(-39, 220),
    }),
    dm: inbound(ana, m[0]!, at(-40, 903), { text: 'Oi! Vocês têm o Runner no 38?', read_at: at(-39, 220) }),
    sentText: sent(ana, m[3]!, at(-39, 220), requests.textInstagram),
    sentButtons: sent(ana, m[4]!, at(-38, 640), requests.buttonsInstagram),
    sentCards: sent(ana, m[6]!, at(-37, 75), requests.cardsInstagram),
    tap: inbound(ana, m[5]!, at(-35, 12), {
      text: 'Azul',
      button: { id: 'color_blue', title: 'Azul', source: 'api' },
      reply_to_message_id: m[4]!,
    }),
  };
  const anaIgImage = sent(ana, extra.sentImageIg, at(-36, 330), requests.imageInstagram);

  // Bruno on instagram only commented (and watched a live): his conversation is left out of the list.
  const brunoIg = {
    live: inbound(bruno, extra.liveComment, at(-20 * 60, 64), {
      type: 'live_comment',
      text: 'Manda o link!! 🔥',
      post: { id: liveId, type: 'live', url: null },
    }),
    comment: inbound(bruno, m[1]!, at(-180.5, 301), {
      type: 'comment',
      text: 'Quanto custa? 😍',
      post: { id: w.ids.posts[0]!, type: 'feed', url: 'https://www.instagram.com/p/DB3xK9aPq2L/' },
      read_at: at(-170),
    }),
    publicReply: {
      ...base(bruno, extra.publicReply, at(-180, 77)),
      type: 'comment_reply',
      sender: senders.workflow(w.ids.workflows[0]!, 'Preço nos comentários'),
      text: `@${bruno.instagram?.username ?? 'bruno'} te mandei no direct 😉`,
      reply_to_message_id: m[1]!,
      post: { id: w.ids.posts[0]!, type: 'feed', url: 'https://www.instagram.com/p/DB3xK9aPq2L/' },
    } satisfies Message,
  };

  // Ana on whatsapp: API sends during the afternoon, a failed one, and her photo 12 minutes ago.
  const anaWaMsgs = {
    unsupported: inbound(anaWa, extra.unsupported, at(-5 * 60, 880), { is_unsupported: true, read_at: at(-4 * 60) }),
    sentText: sent(anaWa, extra.sentTextWa, at(-3 * 60, 145), requests.textWhatsapp),
    sentImage: sent(anaWa, m[7]!, at(-3 * 60 + 1, 610), requests.imageWithCaptionWhatsapp),
    sentReplyButtons: sent(anaWa, m[10]!, at(-2 * 60, 33), requests.replyButtonsWhatsapp),
    sentLink: sent(anaWa, extra.sentLinkWa, at(-2 * 60 + 1, 480), requests.linkButtonWhatsapp),
    sentDocument: sent(anaWa, extra.sentDocumentWa, at(-60, 292), requests.documentWhatsapp),
    sentCards: sent(anaWa, m[11]!, at(-30, 505), requests.cardsWhatsapp),
    failed: sent(
      anaWa,
      m[9]!,
      at(-20, 250),
      { text: 'Seu cupom de 10% para a próxima compra: VOLTA10' },
      {
        status: 'failed',
        failure: { failed_at: at(-19, 871), provider_code: '131026', provider_message: 'Message undeliverable' },
      },
    ),
    photo: inbound(anaWa, uuid(), at(-12, 404), {
      text: 'Chegou assim, com a caixa amassada 😕',
      attachments: [
        {
          type: 'image',
          media_id: media.receivedPhoto,
          url: mediaUrl(media.receivedPhoto),
          content_type: 'image/jpeg',
          size: 384_512,
          filename: null,
          expires_at: at(-12 + 90 * DAY, 404),
        },
      ],
    }),
  };

  // Carla on whatsapp last wrote 26 hours ago: only a template reaches her. The template goes out next minute.
  const carlaMsgs = {
    template: {
      ...sent(carla, m[8]!, at(1, 902), requests.templateWhatsapp),
      text: `Olá ${first(carla)}! Seu pedido #4821 foi enviado e chega em até 3 dias úteis. Qualquer dúvida, é só responder esta mensagem.`,
    } satisfies Message,
  };

  // ----- Conversations -----
  const conversation = (
    c: WorldContact,
    last: string | null,
    unread: boolean,
    lastInbound: number | null,
  ): Conversation => ({
    id: c.conversation_id,
    contact: { id: c.id, name: c.name },
    person_id: c.person_id,
    channel: channelOf(c),
    last_message_at: last,
    unread,
    reply_window:
      lastInbound === null
        ? { state: 'closed', closes_at: null }
        : { state: lastInbound + DAY > 0 ? 'open' : 'closed', closes_at: at(lastInbound + DAY) },
    created_at: c.created_at,
  });
  const conversations = {
    anaWhatsapp: conversation(anaWa, anaWaMsgs.photo.created_at, true, -12),
    anaInstagram: conversation(ana, anaIg.tap.created_at, true, -35),
    carla: conversation(carla, at(-26 * 60), false, -26 * 60),
    bruno: conversation(bruno, brunoIg.publicReply.created_at, false, null),
  };

  /** A media as `POST /v1/media` returns it: a pre-signed upload address valid 5 minutes. */
  const created = (id: string, content_type: string, filename: string | null, minutes: number, micros: number) => {
    const expires = at(minutes + 5, micros);
    const signature = f.string.hexadecimal({ length: 40, casing: 'lower', prefix: '' });
    return {
      id,
      content_type,
      filename,
      upload_url: `${UPLOAD_BASE}/u/${id}?expires=${Math.floor(Date.parse(expires) / 1000)}&signature=${signature}`,
      upload_expires_at: expires,
      created_at: at(minutes, micros),
    };
  };
  const mediaCreated = {
    image: created(media.photo, 'image/jpeg', null, -3 * 60 - 5, 0),
    invoice: created(media.invoice, 'application/pdf', 'nota-fiscal-4821.pdf', -62, 318),
  };

  return {
    requests,
    anaIg,
    anaIgImage,
    brunoIg,
    anaWa: anaWaMsgs,
    carla: carlaMsgs,
    conversations,
    media,
    mediaCreated,
    cursors: { conversations: cursor(), messages: cursor() },
  };
}

const build: AreaBuilder = (w) => {
  const fx = messagingFixtures(w);
  const { requests: r, anaIg, brunoIg, anaWa, carla, conversations: cv } = fx;
  const e = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const byNewest = (a: { created_at: string }, b: { created_at: string }) => (a.created_at < b.created_at ? 1 : -1);
  const anaIgAll = [...Object.values(anaIg), fx.anaIgImage].sort(byNewest);

  const set: ExampleSet = {
    // ----- Conversations -----
    ConversationListPage: {
      summary: 'First page, newest first',
      description: '`GET /v1/conversations?limit=2`. Bruno, who only commented, is not listed.',
      value: { data: [cv.anaWhatsapp, cv.anaInstagram], next_cursor: fx.cursors.conversations },
    },
    ConversationListLastPage: {
      summary: 'Last page',
      description: '`GET /v1/conversations?limit=2&cursor=…`: the last page has `next_cursor` null.',
      value: { data: [cv.carla], next_cursor: null },
    },
    ConversationListEmpty: {
      summary: 'Nothing matches',
      description: '`GET /v1/conversations?channel=whatsapp&unread=true&last_message_after=2026-11-20T13:55:00Z`.',
      value: { data: [], next_cursor: null },
    },
    ConversationWindowOpen: {
      summary: 'instagram, window open, unread',
      description: 'The contact tapped a button 35 minutes ago: the window closes 24 hours after that.',
      value: cv.anaInstagram,
    },
    ConversationWindowClosed: {
      summary: 'whatsapp, window closed',
      description: 'The contact last wrote 26 hours ago: only a template reaches her.',
      value: cv.carla,
    },
    ConversationOnlyComments: {
      summary: 'Only comments (not in the list)',
      description: 'The contact only commented: the list leaves the conversation out, and no window ever opened.',
      value: cv.bruno,
    },

    // ----- Messages as read -----
    IncomingDirectMessage: { summary: 'instagram direct message', value: anaIg.dm },
    IncomingWhatsappImage: {
      summary: 'whatsapp photo with caption, unread',
      description:
        'Received media is kept 90 days (`expires_at`). Its `url` can answer 404 for a few seconds after the message arrives.',
      value: anaWa.photo,
    },
    IncomingComment: { summary: 'Comment on a post', value: brunoIg.comment },
    CommentPublicReply: { summary: 'Public reply by an automation', value: brunoIg.publicReply },
    CommentPrivateReply: { summary: 'Private reply to a comment', value: anaIg.privateReply },
    IncomingStoryReply: { summary: 'Story reply', value: anaIg.storyReply },
    IncomingStoryMention: { summary: 'Story mention', value: anaIg.storyMention },
    IncomingLiveComment: { summary: 'Live comment', value: brunoIg.live },
    ButtonTap: {
      summary: 'Tap on a reply button sent through the API',
      description: '`text` is the button title; `reply_to_message_id` is the message that carried the button.',
      value: anaIg.tap,
    },
    WorkflowMessageWithReaction: { summary: 'Automation message the contact reacted to', value: anaIg.greeting },
    RemovedMessage: { summary: 'Removed by the contact', value: anaIg.removed },
    UnsupportedMessage: {
      summary: 'A kind the service cannot show',
      description: 'For example a shared location on whatsapp.',
      value: anaWa.unsupported,
    },
    FailedWhatsappSend: {
      summary: 'whatsapp send that failed later',
      description: 'whatsapp accepted the send, then reported non-delivery: `message.failed` went out.',
      value: anaWa.failed,
    },
    MessageListPage: {
      summary: 'First page, newest first',
      description: '`GET /v1/conversations/{conversationId}/messages?limit=3`',
      value: { data: anaIgAll.slice(0, 3), next_cursor: fx.cursors.messages },
    },
    MessageListLastPage: {
      summary: 'Last page',
      description:
        '`GET /v1/conversations/{conversationId}/messages?limit=50&cursor=…`: every type of message, `next_cursor` null.',
      value: { data: anaIgAll.slice(3), next_cursor: null },
    },

    // ----- Send requests -----
    SendTextInstagram: { summary: 'Text (instagram, up to 1000 characters)', value: r.textInstagram },
    SendTextWhatsapp: { summary: 'Text (whatsapp, up to 4096 characters)', value: r.textWhatsapp },
    SendButtonsInstagram: { summary: 'Text with reply and link buttons (instagram)', value: r.buttonsInstagram },
    SendReplyButtonsWhatsapp: { summary: 'Text with 3 reply buttons (whatsapp)', value: r.replyButtonsWhatsapp },
    SendLinkButtonWhatsapp: { summary: 'Text with one link button (whatsapp)', value: r.linkButtonWhatsapp },
    SendImageInstagram: { summary: 'Image (instagram, no text)', value: r.imageInstagram },
    SendImageWithCaptionWhatsapp: { summary: 'Image with caption (whatsapp)', value: r.imageWithCaptionWhatsapp },
    SendDocumentWhatsapp: { summary: 'PDF with caption (whatsapp)', value: r.documentWhatsapp },
    SendCardsInstagram: { summary: 'Cards (instagram, no text)', value: r.cardsInstagram },
    SendCardsWhatsapp: {
      summary: 'Cards (whatsapp, text above, same buttons in every card)',
      value: r.cardsWhatsapp,
    },
    SendTemplateWhatsapp: { summary: 'Approved template (whatsapp)', value: r.templateWhatsapp },

    // ----- Send responses -----
    SentTextInstagram: { summary: 'Text sent (signature appended)', value: anaIg.sentText },
    SentTextWhatsapp: { summary: 'Text sent on whatsapp', value: anaWa.sentText },
    SentButtonsReadBack: {
      summary: 'Text with buttons, read back as cards',
      description:
        'One `cards` attachment with a single card whose `title` is the text; `text` is null. Reply buttons read as `postback`.',
      value: anaIg.sentButtons,
    },
    SentReplyButtonsWhatsapp: { summary: 'Reply buttons sent on whatsapp', value: anaWa.sentReplyButtons },
    SentLinkButtonWhatsapp: { summary: 'Link button sent on whatsapp', value: anaWa.sentLink },
    SentImageInstagram: { summary: 'Image sent on instagram', value: fx.anaIgImage },
    SentImageWithCaptionWhatsapp: { summary: 'Image with caption sent on whatsapp', value: anaWa.sentImage },
    SentDocumentWhatsapp: { summary: 'PDF sent on whatsapp', value: anaWa.sentDocument },
    SentCardsInstagram: { summary: 'Cards sent on instagram', value: anaIg.sentCards },
    SentCardsWhatsapp: {
      summary: 'Cards sent on whatsapp',
      description: 'The text above the cards is `text`.',
      value: anaWa.sentCards,
    },
    SentTemplateWhatsapp: {
      summary: 'Template sent, body filled into text',
      value: carla.template,
    },

    // ----- Media -----
    CreateMediaImage: { summary: 'An image', value: { content_type: 'image/jpeg' } },
    CreateMediaDocument: {
      summary: 'A PDF with its file name',
      value: { content_type: 'application/pdf', filename: 'nota-fiscal-4821.pdf' },
    },
    MediaCreatedImage: { summary: 'Image waiting for its file', value: fx.mediaCreated.image },
    MediaCreatedDocument: { summary: 'PDF waiting for its file', value: fx.mediaCreated.invoice },

    // ----- Route-specific errors -----
    ValidationErrorButtonTitle: {
      summary: 'Button title over 20 characters',
      value: {
        type: 'error',
        message: 'The request does not follow the API format.',
        context: {
          details: [{ location: 'body', path: '/buttons/0/title', message: 'must NOT have more than 20 characters' }],
        },
      },
    },
    ValidationErrorIdempotencyKeyMissing: {
      summary: 'Idempotency-Key missing',
      value: {
        type: 'error',
        message: 'The request does not follow the API format.',
        context: {
          details: [
            { location: 'header', path: 'idempotency-key', message: "must have required property 'idempotency-key'" },
          ],
        },
      },
    },
    ConversationNotFound: { summary: 'No such conversation', value: e('not_found', 'No conversation with this id.') },
    SendInterruptedOutcomeUnknown: {
      summary: 'First request stopped before answering',
      value: e(
        'outcome_unknown',
        'The first request with this Idempotency-Key stopped before answering. Check the conversation, then send with a new key.',
      ),
    },
    InvalidMessageEmpty: {
      summary: 'Nothing to send',
      value: e('invalid_message', 'The message is empty.', { reason: 'empty', field: null }),
    },
    InvalidMessageTemplateWithContent: {
      summary: 'Template with text',
      value: e('invalid_message', 'A template goes alone, without text, attachments or buttons.', {
        reason: 'template_with_content',
        field: 'text',
      }),
    },
    InvalidMessageButtonsWithoutText: {
      summary: 'Buttons without text',
      value: e('invalid_message', 'Buttons need a text above them.', {
        reason: 'buttons_without_text',
        field: 'buttons',
      }),
    },
    InvalidMessageButtonsWithAttachment: {
      summary: 'Buttons with an attachment',
      value: e('invalid_message', 'Buttons cannot go with an attachment; cards carry their own buttons.', {
        reason: 'buttons_with_attachment',
        field: 'buttons',
      }),
    },
    InvalidMessageInvalidUrl: {
      summary: 'Link that is not https',
      value: e('invalid_message', 'A link button needs an absolute https address.', {
        reason: 'invalid_url',
        field: 'buttons[2].url',
      }),
    },
    ContentNotSupportedCaptionOnAudio: {
      summary: 'Caption on audio (whatsapp)',
      value: e('content_not_supported', 'whatsapp does not carry a caption on audio.', {
        channel: 'whatsapp',
        field: 'text',
      }),
    },
    ContentNotSupportedMixedButtons: {
      summary: 'Link and reply buttons together (whatsapp)',
      value: e('content_not_supported', 'whatsapp sends either one link button or 1 to 3 reply buttons.', {
        channel: 'whatsapp',
        field: 'buttons',
      }),
    },
    ContentNotSupportedCardsDifferentButtons: {
      summary: 'Cards with different buttons (whatsapp)',
      value: e('content_not_supported', 'On whatsapp every card needs the same kind and count of buttons.', {
        channel: 'whatsapp',
        field: 'attachments[0].cards[1].buttons',
      }),
    },
    ContentNotSupportedSingleCardWhatsapp: {
      summary: 'One card on whatsapp',
      value: e('content_not_supported', 'whatsapp sends 2 to 10 cards.', {
        channel: 'whatsapp',
        field: 'attachments[0].cards',
      }),
    },
    TextTooLongButtonsWhatsapp: {
      summary: 'Text above buttons over 1024 characters (whatsapp)',
      value: e('text_too_long', 'whatsapp delivers at most 1024 characters above buttons.', {
        channel: 'whatsapp',
        field: 'text',
        max_length: 1024,
      }),
    },
    MediaNotSupportedContentType: {
      summary: 'WebP image on instagram',
      value: e('media_not_supported', 'instagram accepts JPEG, PNG or GIF images.', {
        channel: 'instagram',
        field: 'attachments[0]',
        media_id: fx.media.webpPhoto,
        reason: 'content_type',
        content_type: 'image/webp',
        size: 182_044,
        max_size: 8_388_608,
      }),
    },
    MediaNotSupportedTypeMismatch: {
      summary: 'A PDF sent as an image',
      value: e('media_not_supported', 'The media is not an image.', {
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: fx.media.invoice,
        reason: 'type_mismatch',
        content_type: 'application/pdf',
        size: 88_412,
        max_size: 5_242_880,
      }),
    },
    TemplateNotSupportedNamedVariables: {
      summary: 'Template with named variables',
      value: e('template_not_supported', 'This template uses named variables, which the API does not send.', {
        reason: 'named_variables',
      }),
    },
    ChannelDisconnectedWhatsapp: {
      summary: 'whatsapp number disconnected',
      value: e('channel_disconnected', 'The whatsapp number of this conversation is disconnected.', {
        channel: 'whatsapp',
      }),
    },
    SendRateLimited: {
      summary: 'Send calls used up',
      value: e('rate_limited', 'Too many send calls this minute.', { kind: 'send', limit: 20, retry_after: 41 }),
    },
    SendOutcomeUnknownAccepted: {
      summary: 'instagram video: accepted, not confirmed',
      value: e(
        'outcome_unknown',
        'instagram accepted the video but did not confirm it. Check the conversation before sending again.',
        {
          provider_accepted: true,
        },
      ),
    },
    MediaStorageUnavailable: {
      summary: 'Media storage did not answer',
      value: e('service_unavailable', 'Media storage did not answer. Nothing ran; retry.'),
    },
    MediaNotStoredYet: {
      summary: 'Received media still being stored',
      value: e('not_found', 'This media is not available yet. Retry in a few seconds.'),
    },
  };
  return set;
};
export default build;
