// "Be the contact": a phone. What the contact writes goes through the sandbox (inbound), a tap on a reply button
// too (button-taps); what the account sends arrives live from the event stream and is drawn as the contact
// would see it: text, the text above its buttons, cards as a carousel, media, templates. The conversation is
// read newest page first with the API's cursors.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { Player, Session } from '../session.js';
import type { LiveEvent } from '../live.js';
import { ProblemNote, toProblem } from '../ui.js';

type Message = Schemas['Message'];

/** A message event's data (every `message.*` event carries the message as the API reads it). */
function messageOf(event: LiveEvent): Message | undefined {
  if (!event.type.startsWith('message.')) return undefined;
  const data = event.data;
  if (typeof data !== 'object' || data === null) return undefined;
  return isMessage(data) ? data : undefined;
}

function isMessage(data: object): data is Message {
  return 'conversation_id' in data && 'direction' in data && 'id' in data && 'attachments' in data;
}

const PAGE = 20;

/**
 * The list is oldest first, each message once. Timestamps may tie (several sends in one millisecond), so the
 * order is the order things arrived: an older page goes before, a new message after (before any message with a
 * strictly later timestamp), and a newer copy of a message replaces it where it stands.
 */
function withOlder(list: Message[], newestFirst: Message[]): Message[] {
  const known = new Set(list.map((m) => m.id));
  return [...newestFirst.filter((m) => !known.has(m.id)).reverse(), ...list];
}

function upsert(list: Message[], message: Message): Message[] {
  const at = list.findIndex((m) => m.id === message.id);
  if (at >= 0) return list.map((m, i) => (i === at ? message : m));
  const later = list.findIndex((m) => m.created_at > message.created_at);
  return later < 0 ? [...list, message] : [...list.slice(0, later), message, ...list.slice(later)];
}

export function ChatPane(props: {
  session: Session;
  player: Player | undefined;
  onPlayer: (p: Player) => void;
  /** Called with the contact once its newest page is shown (or there is none to read, or the read failed). */
  onRead: (contactId: string) => void;
}) {
  const { player, session } = props;
  const [messages, setMessages] = useState<Message[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const list = useRef<HTMLOListElement>(null);
  const conversationId = player?.conversationId;
  const contactId = player?.contactId;

  // The conversation shown now: a page answered after the user chose someone else is dropped.
  const showing = useRef(conversationId);
  showing.current = conversationId;
  const loadPage = async (cursor?: string) => {
    if (!conversationId) return;
    try {
      const page = ok(
        await session.api.GET('/v1/conversations/{conversationId}/messages', {
          params: { path: { conversationId }, query: { limit: PAGE, order: 'desc', ...(cursor ? { cursor } : {}) } },
        }),
      );
      if (showing.current !== conversationId) return;
      setMessages((now) => withOlder(now, page.data));
      setOlder(page.next_cursor);
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  // A new conversation (another contact) starts empty; the conversation of the same contact, learned from its
  // first message, keeps what arrived already. Then its newest page.
  // A conversation learned from the contact's own first message here is new: everything in it arrives live,
  // in order (a page would order messages of the same millisecond by id, not as they happened).
  const shown = useRef<string | undefined>(undefined);
  const learned = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (shown.current !== contactId) {
      setMessages([]);
      setOlder(null);
      setProblem(undefined);
    }
    shown.current = contactId;
    const read = conversationId !== learned.current ? loadPage() : Promise.resolve();
    if (contactId !== undefined) void read.then(() => props.onRead(contactId));
  }, [conversationId, contactId]);

  // Live: the conversation's messages as events bring them (sent, received, updated, failed, deleted). One
  // subscription for the pane, reading the current player through a ref, so no event falls between two.
  const current = useRef({ player, onPlayer: props.onPlayer });
  current.current = { player, onPlayer: props.onPlayer };
  useEffect(
    () =>
      session.subscribe((event) => {
        const message = messageOf(event);
        const { player: now, onPlayer } = current.current;
        if (!message || !now) return;
        if (message.conversation_id === now.conversationId) setMessages((list) => upsert(list, message));
        else if (!now.conversationId && now.contactId !== undefined && message.contact_id === now.contactId) {
          learned.current = message.conversation_id;
          onPlayer({ ...now, conversationId: message.conversation_id });
          setMessages((list) => upsert(list, message));
        }
      }),
    [session],
  );

  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length]);

  if (!player)
    return (
      <section class="pane chat" aria-labelledby="chat-title">
        <h2 id="chat-title">Chat as the contact</h2>
        <p class="note">Choose a connection and a contact (or make one) to write as them.</p>
      </section>
    );

  const send = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    setProblem(undefined);
    try {
      const result = ok(
        await session.admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
          params: { path: { connectionId: player.connection.id } },
          body: { from: player.sender, text },
        }),
      );
      setText('');
      if (!conversationId) learned.current = result.conversation.id;
      if (result.conversation.id !== conversationId || result.contact.id !== contactId)
        props.onPlayer({ ...player, contactId: result.contact.id, conversationId: result.conversation.id });
      setMessages((now) => upsert(now, result.message));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  const tap = async (message: Message, buttonId: string) => {
    setProblem(undefined);
    try {
      const result = ok(
        await session.admin.POST('/admin/v1/sandbox/messages/{messageId}/button-taps', {
          params: { path: { messageId: message.id } },
          body: { button_id: buttonId },
        }),
      );
      setMessages((now) => upsert(now, result.message));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  return (
    <section class="pane chat" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat as the contact</h2>
      <div class="phone">
        <div class="phone-top">
          <strong>{player.connection.name}</strong>
          <span>
            as {player.name} · {player.connection.channel}
          </span>
        </div>
        <ol class="messages" ref={list} aria-label="Conversation" aria-live="polite">
          {older && (
            <li class="older">
              <button type="button" onClick={() => void loadPage(older)}>
                Load older messages
              </button>
            </li>
          )}
          {messages.map((m) => (
            <Bubble key={m.id} message={m} onTap={(id) => void tap(m, id)} />
          ))}
        </ol>
        <form class="composer" aria-label="Write as the contact" onSubmit={(e) => void send(e)}>
          <label class="visually-hidden" for="composer-text">
            Message
          </label>
          <input
            id="composer-text"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            placeholder={`Write as ${player.name}`}
            autocomplete="off"
          />
          <button type="submit">Send</button>
        </form>
      </div>
      <ProblemNote problem={problem} />
    </section>
  );
}

function Bubble(props: { message: Message; onTap: (buttonId: string) => void }) {
  const m = props.message;
  const mine = m.direction === 'inbound'; // the phone is the contact's: what they wrote is theirs
  const cards = m.attachments.flatMap((a) => (a.type === 'cards' ? [a] : []));
  const media = m.attachments.flatMap((a) => (a.type !== 'cards' ? [a] : []));
  const time = new Date(m.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return (
    <li class={`bubble ${mine ? 'mine' : 'theirs'}${m.status === 'failed' ? ' failed' : ''}`} data-message-id={m.id}>
      {m.is_removed ? (
        <p class="removed">This message was deleted</p>
      ) : (
        <>
          {m.template && (
            <p class="template">
              Template {m.template.name} ({m.template.language})
            </p>
          )}
          {media.map((a) => (
            <Media key={a.media_id} attachment={a} />
          ))}
          {m.text !== null && <p class="text">{m.text}</p>}
          {cards.map((a, i) => (
            <Cards key={i} cards={a.cards} onTap={props.onTap} />
          ))}
        </>
      )}
      <span class="meta">
        {m.is_edited && 'edited · '}
        {time}
        {m.status === 'failed' &&
          ` · failed${m.failure ? `: ${m.failure.provider_code ?? m.failure.provider_message ?? ''}` : ''}`}
      </span>
    </li>
  );
}

function Media(props: { attachment: Schemas['MediaAttachment'] }) {
  const a = props.attachment;
  if (a.type === 'image' || a.type === 'sticker') return <img class="media" src={a.url} alt={a.filename ?? a.type} />;
  if (a.type === 'video') return <video class="media" src={a.url} controls aria-label={a.filename ?? 'video'} />;
  if (a.type === 'audio') return <audio class="media" src={a.url} controls aria-label={a.filename ?? 'audio'} />;
  return (
    <a class="file" href={a.url} download>
      {a.filename ?? 'file'}
    </a>
  );
}

/** One card with no image is a text with buttons; more (or with images) are a carousel. */
function Cards(props: { cards: Schemas['MessageCard'][]; onTap: (buttonId: string) => void }) {
  const single = props.cards.length === 1 && !props.cards[0]?.image;
  return (
    <div class={single ? 'buttons-card' : 'carousel'} role={single ? undefined : 'group'} aria-label="Cards">
      {props.cards.map((card, i) => (
        <div class="card" key={i}>
          {card.image && <img src={card.image.url} alt={card.title} />}
          <p class="card-title">{card.title}</p>
          {card.subtitle && <p class="card-subtitle">{card.subtitle}</p>}
          <div class="card-buttons">
            {card.buttons.map((b, j) =>
              b.type === 'open_url' && b.url ? (
                <a key={j} class="card-button" href={b.url} target="_blank" rel="noopener noreferrer">
                  {b.title}
                </a>
              ) : (
                <button
                  key={j}
                  type="button"
                  class="card-button"
                  disabled={!b.id}
                  onClick={() => b.id && props.onTap(b.id)}
                >
                  {b.title}
                </button>
              ),
            )}
          </div>
        </div>
      ))}
    </div>
  );
}
