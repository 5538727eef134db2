// Examples of the sandbox actions of the admin API: a contact writes (someone new, or a known contact), taps a
// button, reacts, edits and unsends; whatsapp fails a sent message; the next sends' answers are arranged; the
// clock moves. The messages are the messaging area's fixtures (`messagingFixtures`), so the message a tap
// produces here is the very `ButtonTap` the public examples show, the failed send is `FailedWhatsappSend`, and
// so on. Only the new person (on instagram, then on whatsapp) is drawn here, from this area's faker.
import type { AreaBuilder, ExampleSet } from './world.js';
import { at } from './world.js';
import { contactOf } from './contacts.js';
import { messagingFixtures, type Conversation, type Message } from './messaging.js';

const DAY = 60 * 24;

const build: AreaBuilder = (w, f) => {
  const fx = messagingFixtures(w);
  const { anaIg, anaWa, brunoIg, conversations: cv } = fx;
  const err = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const invalid = (reason: string, message: string) => err('invalid_sandbox_action', message, { reason });
  const ig = w.connections.instagram;
  const wa = w.connections.whatsapp;
  const { anaInstagram: ana, anaWhatsapp: anaWaContact, bruno } = w.contacts;

  // ---------------------------------------------------------------- someone new, on instagram
  const newcomerFirst = f.person.firstName('male');
  const newcomerLast = f.person.lastName();
  const newcomerName = `${newcomerFirst} ${newcomerLast}`;
  const newcomerUsername = `${newcomerFirst}.${newcomerLast}`.toLowerCase().replace(/[^a-z0-9._]/g, '');
  const newcomerPerson = f.string.uuid();
  const newAt = at(-4, 318);
  const newcomerIg = {
    id: f.string.uuid(),
    channel: { type: 'instagram', connection_id: ig.id },
    instagram: { id: f.string.numeric({ length: 17, allowLeadingZeros: false }), username: newcomerUsername },
    whatsapp: null,
    name: newcomerName,
    person_id: newcomerPerson,
    tags: [],
    custom_fields: [],
    last_interaction_at: newAt,
    created_at: newAt,
    updated_at: newAt,
  };
  const newcomerIgConversation: Conversation = {
    id: f.string.uuid(),
    contact: { id: newcomerIg.id, name: newcomerName },
    person_id: newcomerPerson,
    channel: { type: 'instagram', connection_id: ig.id },
    last_message_at: newAt,
    unread: true,
    reply_window: { state: 'open', closes_at: at(-4 + DAY, 318) },
    created_at: newAt,
  };
  const newcomerText = 'Oi! Vi o Runner no feed de vocês. Tem no 40?';
  const newcomerMessage: Message = {
    id: f.string.uuid(),
    conversation_id: newcomerIgConversation.id,
    contact_id: newcomerIg.id,
    channel: { type: 'instagram', connection_id: ig.id },
    type: 'message',
    direction: 'inbound',
    sender: { type: 'contact', user_id: null, name: newcomerName, workflow_id: null, api_key_id: null },
    text: newcomerText,
    attachments: [],
    template: null,
    reply_to_message_id: null,
    button: null,
    post: null,
    status: 'received',
    failure: null,
    is_unsupported: false,
    is_removed: false,
    is_edited: false,
    reactions: [],
    read_at: null,
    created_at: newAt,
  };

  // ... then on whatsapp, a new contact too, until the sandbox says both are the same person.
  const newcomerPhone = `+55119${f.string.numeric({ length: 8, allowLeadingZeros: false })}`;
  const newcomerWaAt = at(-2, 77);
  const newcomerWa = {
    ...newcomerIg,
    id: f.string.uuid(),
    channel: { type: 'whatsapp', connection_id: wa.id },
    instagram: null,
    whatsapp: { phone: newcomerPhone },
    person_id: f.string.uuid(),
    tags: [],
    custom_fields: [],
    last_interaction_at: newcomerWaAt,
    created_at: newcomerWaAt,
    updated_at: newcomerWaAt,
  };

  // ---------------------------------------------------------------- known contacts writing
  const photo = anaWa.photo;
  const photoAttachment = photo.attachments[0];
  const photoSize = photoAttachment && 'size' in photoAttachment ? (photoAttachment.size ?? 1) : 1;
  const mention = anaIg.storyMention;
  const mentionAttachment = mention.attachments[0];
  const mentionSize = mentionAttachment && 'size' in mentionAttachment ? (mentionAttachment.size ?? 1) : 1;
  const igFrom = (c: typeof ana) => ({
    instagram_id: c.instagram?.id ?? '',
    username: c.instagram?.username ?? '',
    name: c.name,
  });
  const waFrom = (c: typeof anaWaContact) => ({ phone: c.whatsapp?.phone ?? '', name: c.name });
  /** A message's `post` as the request gives it (no `url` when the channel gives none). */
  const postOf = (p: Message['post']) => (p ? { id: p.id, type: p.type, ...(p.url ? { url: p.url } : {}) } : undefined);
  const comment = { ...brunoIg.comment, read_at: null };
  const brunoAfterComment: Conversation = {
    ...cv.bruno,
    last_message_at: comment.created_at,
    unread: true,
  };

  // ---------------------------------------------------------------- reactions, edits, unsends
  const greeting = anaIg.greeting;
  const edited: Message = { ...anaIg.dm, text: 'Oi! Vocês têm o Runner no 38 ou no 39?', is_edited: true };

  // ---------------------------------------------------------------- clock
  const clockNow = at(0, 518);

  // ---------------------------------------------------------------- typed in the native app
  // Carla's window closed 2 hours ago (she last wrote 26 hours ago); the WhatsApp Business app is not held to
  // it. Drawn last, so the ids drawn above stay put.
  const nativeText = 'Oi Carla! Vi que seu pedido ainda não saiu, já estou verificando com a transportadora.';
  const nativeMessage: Message = {
    ...fx.carla.template,
    id: f.string.uuid(),
    sender: { type: 'unattributed', user_id: null, name: null, workflow_id: null, api_key_id: null },
    text: nativeText,
    attachments: [],
    template: null,
    created_at: at(-50, 377),
  };
  // What waits on the clock (drawn after the rest, so the ids above stay put).
  const waitIds = { delivery: f.string.uuid(), sleeping: f.string.uuid(), asking: f.string.uuid() };

  const set: ExampleSet = {
    SandboxOff: {
      summary: 'Sandbox off',
      description: 'Every sandbox route answers this when the server runs without the sandbox (`SANDBOX_ENABLED`).',
      value: err('not_found', 'The sandbox is off on this server.'),
    },

    // ------------------------------------------------ POST /admin/v1/sandbox/connections/{connectionId}/inbound
    SandboxInboundNewContact: {
      summary: 'Someone new writes on instagram',
      description: `To the instagram connection \`${ig.id}\`. The account does not know this \`instagram_id\` yet.`,
      value: {
        from: { instagram_id: newcomerIg.instagram.id, username: newcomerUsername, name: newcomerName },
        text: newcomerText,
      },
    },
    SandboxInboundNewContactResult: {
      summary: 'Contact and conversation created',
      description: '`contact.created` and `message.received` went out; the reply window is open for 24 hours.',
      value: {
        contact: newcomerIg,
        conversation: newcomerIgConversation,
        message: newcomerMessage,
        contact_created: true,
      },
    },
    SandboxInboundNewWhatsappContact: {
      summary: 'The same person writes on whatsapp',
      description: `To the whatsapp number \`${wa.id}\`: a new contact too, with its own \`person_id\` until the sandbox links both.`,
      value: {
        from: { phone: newcomerPhone, name: newcomerName },
        text: `Oi, é o ${newcomerFirst} do Instagram! Prefiro continuar por aqui.`,
      },
    },
    SandboxInboundWhatsappPhoto: {
      summary: 'A known contact sends a photo with caption (whatsapp)',
      description: 'The sandbox makes a 384 KB JPEG file; its `url` answers 404 for a few seconds while it is stored.',
      value: {
        from: waFrom(anaWaContact),
        text: photo.text,
        attachment: { type: 'image', content_type: 'image/jpeg', size: photoSize },
      },
    },
    SandboxInboundWhatsappPhotoResult: {
      summary: 'Message received from a known contact',
      value: {
        contact: {
          ...contactOf(w, 'anaWhatsapp'),
          updated_at: photo.created_at,
          last_interaction_at: photo.created_at,
        },
        conversation: cv.anaWhatsapp,
        message: photo,
        contact_created: false,
      },
    },
    SandboxInboundComment: {
      summary: 'A comment on a post (instagram)',
      value: { from: igFrom(bruno), type: 'comment', text: comment.text, post: postOf(brunoIg.comment.post) },
    },
    SandboxInboundCommentResult: {
      summary: 'Comment received',
      description:
        '`comment.received` went out. A comment opens no reply window and leaves the conversation out of the list.',
      value: {
        contact: { ...contactOf(w, 'bruno'), updated_at: comment.created_at, last_interaction_at: comment.created_at },
        conversation: brunoAfterComment,
        message: comment,
        contact_created: false,
      },
    },
    SandboxInboundLiveComment: {
      summary: 'A comment on a live (instagram)',
      value: { from: igFrom(bruno), type: 'live_comment', text: brunoIg.live.text, post: postOf(brunoIg.live.post) },
    },
    SandboxInboundStoryReply: {
      summary: 'A reply to a story (instagram)',
      value: {
        from: igFrom(ana),
        type: 'story_message',
        text: anaIg.storyReply.text,
        post: postOf(anaIg.storyReply.post),
      },
    },
    SandboxInboundStoryMention: {
      summary: 'A mention in the contact’s story (instagram)',
      value: {
        from: igFrom(ana),
        type: 'story_mention',
        attachment: { type: 'image', content_type: 'image/jpeg', size: mentionSize },
        post: postOf(mention.post),
      },
    },
    SandboxInboundQuote: {
      summary: 'A message quoting an earlier one (whatsapp)',
      value: {
        from: waFrom(anaWaContact),
        text: 'O código TRC-4821 vale até quando?',
        reply_to_message_id: anaWa.sentText.id,
      },
    },
    SandboxInboundUnsupported: {
      summary: 'A kind the service cannot show, delivered 2 seconds late',
      description: 'Like a shared location on whatsapp: it reads back with `is_unsupported` true.',
      value: { from: waFrom(anaWaContact), is_unsupported: true, created_at: at(-2 / 60, 233) },
    },
    SandboxPostRequired: {
      summary: 'Comment without its post',
      value: invalid('post_required', 'A comment needs the post it is on.'),
    },
    SandboxIdentityMismatch: {
      summary: 'instagram user on a whatsapp number',
      value: invalid('identity_mismatch', 'A whatsapp number receives from a phone, not from an instagram user.'),
    },
    SandboxCommentOnWhatsapp: {
      summary: 'Comment on a whatsapp number',
      value: invalid('not_instagram', 'whatsapp has no comments, lives or stories.'),
    },
    SandboxConnectionDisconnected: {
      summary: 'Connection disconnected',
      description: `The number \`${w.connections.whatsappOld.id}\` lost its authorization.`,
      value: invalid('connection_disconnected', 'The connection is disconnected: the channel delivers nothing.'),
    },
    SandboxNotSandbox: {
      summary: 'A WhatsApp Cloud number serves the connection',
      description: 'Once a WhatsApp Cloud API number is attached, the real channel carries what its contacts do.',
      value: invalid(
        'not_sandbox',
        "A real channel (the WhatsApp Cloud API) carries this connection's messages: the sandbox does not act as its contact or channel.",
      ),
    },

    // ------------------------------------------------ POST /admin/v1/sandbox/messages/{messageId}/button-taps
    SandboxTapButton: {
      summary: 'Tap "Azul"',
      description: `On the message \`${anaIg.sentButtons.id}\`, a text with buttons sent through the API.`,
      value: { button_id: 'color_blue' },
    },
    SandboxButtonTapped: {
      summary: 'The tap, as a contact message',
      description: '`text` is the button title, `button.source` is `api`; `message.received` went out.',
      value: { message: anaIg.tap },
    },
    SandboxNoSuchButton: {
      summary: 'No such reply button',
      value: invalid('no_such_button', 'The message has no reply button color_green.'),
    },
    SandboxNotOutbound: {
      summary: 'Tap on a contact message',
      value: invalid('not_outbound', 'Only a message the account sent has buttons to tap.'),
    },

    // ------------------------------------------------ POST /admin/v1/sandbox/links/open, GET /links/{token}
    SandboxOpenLink: {
      summary: 'Open the link of a button',
      description: "The address the link button of an automation's message carries.",
      value: { url: 'https://api.engagement.example/links/q3Vb8TzL0pXc4mWn7RkA2sYd9HfJ6uEo' },
    },
    SandboxLinkOpened: {
      summary: "Taken to the button's address",
      description: "`link.clicked` went out; on instagram the run follows the button's output.",
      value: { status: 302, location: 'https://loja.example.com/black-friday?c=ana' },
    },
    SandboxLinkExpired: {
      summary: 'Expired',
      description: 'Opened more than a year after its last send: nothing was recorded.',
      value: { status: 410, location: null },
    },
    TrackedLinkNotFound: {
      summary: 'Not a link of this server',
      value: '<!doctype html><title>Link not found</title><p>This link does not exist.</p>',
    },
    TrackedLinkExpired: {
      summary: 'Expired link',
      value: '<!doctype html><title>Link expired</title><p>This link has expired.</p>',
    },

    // ------------------------------------------------ PUT and DELETE /admin/v1/sandbox/messages/{messageId}/reaction
    SandboxReact: { summary: 'A heart', value: { emoji: '❤️' } },
    SandboxReacted: {
      summary: 'Reaction added',
      description: '`message.updated` went out; `last_message_at` did not move.',
      value: greeting,
    },
    SandboxReactionRemoved: { summary: 'Reaction taken back', value: { ...greeting, reactions: [] } },
    SandboxReactionNotInstagram: {
      summary: 'Reaction on whatsapp',
      value: invalid('not_instagram', 'Reactions are carried on instagram only.'),
    },

    // ------------------------------------------------ PATCH and DELETE /admin/v1/sandbox/messages/{messageId}
    SandboxEditMessage: { summary: 'The contact corrects its question', value: { text: edited.text } },
    SandboxMessageEdited: { summary: 'Edited message', description: '`message.updated` went out.', value: edited },
    SandboxMessageUnsent: {
      summary: 'Unsent message',
      description: '`message.deleted` went out. The message stays readable, without text.',
      value: anaIg.removed,
    },
    SandboxNotInbound: {
      summary: 'A message the account sent',
      value: invalid('not_inbound', 'The contact edits and unsends only its own messages.'),
    },
    SandboxMessageAlreadyRemoved: {
      summary: 'Already unsent',
      value: invalid('message_removed', 'The message was already removed.'),
    },

    // ------------------------------------------------ POST /admin/v1/sandbox/messages/{messageId}/failure
    SandboxReportFailure: {
      summary: 'Undeliverable',
      description: `On the message \`${anaWa.failed.id}\`, accepted by whatsapp a moment earlier.`,
      value: {
        provider_code: anaWa.failed.failure?.provider_code ?? '131026',
        provider_message: anaWa.failed.failure?.provider_message ?? 'Message undeliverable',
      },
    },
    SandboxMessageFailed: {
      summary: 'The message failed',
      description: '`message.failed` went out.',
      value: anaWa.failed,
    },
    SandboxFailureNotWhatsapp: {
      summary: 'instagram message',
      value: invalid('not_whatsapp', 'Only whatsapp reports a failure after accepting a message.'),
    },
    SandboxNotSent: {
      summary: 'Already failed',
      value: invalid('not_sent', 'The message is not sent: it already failed.'),
    },

    // ------------------------------------------------ /admin/v1/sandbox/connections/{connectionId}/send-outcomes
    SandboxArrangeProviderRejected: {
      summary: 'The next send is refused for good',
      value: { outcome: 'provider_rejected', provider_message: 'The user is not allowed to receive this message.' },
    },
    SandboxArrangeOutcomeUnknown: {
      summary: 'The next send goes out unconfirmed',
      description: 'The send answers `502 outcome_unknown` with `provider_accepted` true; the message is stored.',
      value: { outcome: 'outcome_unknown', provider_accepted: true },
    },
    SandboxArrangeThrottled: { summary: 'The channel holds the next send', value: { outcome: 'provider_throttled' } },
    SandboxArrangeFailsLater: {
      summary: 'The next whatsapp send fails later',
      value: { outcome: 'fails_later', provider_code: '131026', provider_message: 'Message undeliverable' },
    },
    SandboxSendOutcomeQueued: {
      summary: 'Queued, first in line',
      value: {
        outcome: { outcome: 'fails_later', provider_code: '131026', provider_message: 'Message undeliverable' },
        queued: 1,
      },
    },
    SandboxSendOutcomeQueuedSecond: {
      summary: 'Queued behind another answer',
      value: { outcome: { outcome: 'provider_throttled' }, queued: 2 },
    },
    SandboxFailsLaterNotWhatsapp: {
      summary: 'fails_later on instagram',
      value: invalid('not_whatsapp', 'Only whatsapp reports a failure after accepting a message.'),
    },
    SandboxSendOutcomesCleared: { summary: 'Queue emptied', value: { queued: 0 } },

    // ------------------------------------------------ PATCH /admin/v1/sandbox/contacts/{contactId}
    SandboxBlockContact: { summary: 'Block from automations', value: { blocked_from_automations: true } },
    SandboxContactBlocked: {
      summary: 'Contact blocked',
      description: 'The public contact does not show the block; sends to it now answer `422 contact_blocked`.',
      value: contactOf(w, 'carla'),
    },

    // ------------------------------------------------ POST /admin/v1/sandbox/contacts/{contactId}/same-person
    SandboxSamePerson: {
      summary: 'The whatsapp contact is the instagram one',
      description: `On the whatsapp contact \`${newcomerWa.id}\`.`,
      value: { contact_id: newcomerIg.id },
    },
    SandboxSamePersonResult: {
      summary: 'One person_id for both',
      value: { contacts: [{ ...newcomerWa, person_id: newcomerPerson }, newcomerIg] },
    },
    SandboxSameContact: {
      summary: 'The contact itself',
      value: invalid('same_contact', 'contact_id is the contact itself.'),
    },
    SandboxSameConnection: {
      summary: 'Two contacts on one connection',
      value: invalid('same_connection', 'The person would have two contacts on the same connection.'),
    },

    // ------------------------------------------------ PATCH /admin/v1/sandbox/conversations/{conversationId}
    SandboxReadConversation: { summary: 'The team opens the conversation', value: { read: true } },
    SandboxConversationRead: {
      summary: 'Conversation read',
      description: 'Every contact message got `read_at`; `last_message_at` did not move.',
      value: { ...cv.anaWhatsapp, unread: false },
    },
    SandboxMarkUnread: { summary: 'Mark unread', value: { unread: true } },
    SandboxConversationMarkedUnread: { summary: 'Marked unread', value: { ...cv.carla, unread: true } },

    // ------------------------------------------------ POST /admin/v1/sandbox/conversations/{conversationId}/native-messages
    SandboxNativeMessage: {
      summary: 'A reply typed in the WhatsApp Business app',
      description: `On Carla's conversation \`${cv.carla.id}\`, whose reply window is closed: the native app is not held to it.`,
      value: { text: nativeText },
    },
    SandboxNativeMessageSent: {
      summary: 'Stored as sent, unattributed',
      description:
        "`message.sent` went out with `sender.type` `unattributed`; the conversation's `last_message_at` moved. No platform signature.",
      value: nativeMessage,
    },
    SandboxNativeTextTooLong: {
      summary: 'Too long for instagram',
      value: invalid('text_too_long', 'instagram carries at most 1000 characters in a message.'),
    },

    // ------------------------------------------------ GET and PATCH /admin/v1/sandbox/clock
    SandboxClock: { summary: 'Never advanced', value: { now: clockNow, offset_seconds: 0 } },
    SandboxAdvanceClockDay: {
      summary: 'One day later',
      description: 'Reply windows opened before now close; download links expire; due retries run.',
      value: { advance_seconds: 86_400 },
    },
    SandboxClockAdvanced: {
      summary: 'Advanced by one day',
      value: { now: at(DAY, 731), offset_seconds: 86_400 },
    },

    // ------------------------------------------------ GET /admin/v1/sandbox/accounts/{accountId}/waits
    SandboxWaitList: {
      summary: 'A run asleep, a question waiting, a webhook retry',
      value: {
        data: [
          { kind: 'webhook_attempt', due_at: at(1, 518), subject: { type: 'webhook_delivery', id: waitIds.delivery } },
          { kind: 'run_sleep', due_at: at(60, 518), subject: { type: 'workflow_run', id: waitIds.sleeping } },
          {
            kind: 'run_question_timeout',
            due_at: at(90 * DAY, 518),
            subject: { type: 'workflow_run', id: waitIds.asking },
          },
        ],
        next_cursor: null,
      },
    },
  };
  return set;
};

export default build;
