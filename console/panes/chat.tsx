// "Be the contact": a phone. What the contact writes goes through the sandbox (inbound), a tap on a reply button
// too (button-taps); what the account sends arrives live from the event stream and is drawn as the contact
// would see it: text, the text above its buttons, cards as a carousel, media, templates. The conversation is
// read newest page first with the API's cursors (hooks/use-conversation.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { useConversation, type ConversationProps } from '../hooks/use-conversation.js';
import { PROVIDER_LABELS, type Player } from '../session.js';
import { ProblemNote } from '../ui.js';

type Message = Schemas['Message'];

export function ChatPane(
  props: ConversationProps & {
    /** Buttons messages by id: whether a tap still answers a waiting run (absent: not known yet). */
    answering: Record<string, boolean>;
  },
) {
  const { player } = props;
  const conversation = useConversation(props);
  // Taps on buttons that answered no waiting run: the bubble says so.
  const [unanswered, setUnanswered] = useState<Set<string>>(new Set());
  useEffect(() => setUnanswered(new Set()), [player?.contactId]);
  const list = useRef<HTMLOListElement>(null);
  const { messages, older } = conversation;
  // On a real channel the contact is a person with a phone: the page shows the conversation and plays no part.
  const played = player?.connection.provider === 'sandbox';

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

  return (
    <section class="pane chat" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat as the contact</h2>
      <div class="phone">
        <div class="phone-top">
          <strong>{player.connection.name}</strong>
          <span>
            as {player.name} · {player.connection.channel} · {PROVIDER_LABELS[player.connection.provider]}
          </span>
        </div>
        <ol class="messages" ref={list} aria-label="Conversation" aria-live="polite">
          {older && (
            <li class="older">
              <button type="button" onClick={() => void conversation.loadPage(older)}>
                Load older messages
              </button>
            </li>
          )}
          {messages.map((m) => (
            <Bubble
              key={m.id}
              message={m}
              live={props.answering[m.id]}
              tappedNothing={unanswered.has(m.id)}
              onTap={
                played
                  ? (id) => {
                      if (props.answering[m.id] === false) setUnanswered((old) => new Set(old).add(m.id));
                      void conversation.tap(m, id);
                    }
                  : undefined
              }
            />
          ))}
        </ol>
        {played ? (
          <Composer player={player} conversation={conversation} />
        ) : (
          <p class="composer note" role="note" aria-label="Not played here">
            {PROVIDER_LABELS[player.connection.provider]} carries this conversation: {player.name} writes and taps from
            their phone, and it shows here live.
          </p>
        )}
      </div>
      <ProblemNote problem={conversation.problem} />
    </section>
  );
}

function Composer(props: { player: Player; conversation: ReturnType<typeof useConversation> }) {
  const { text, setText, send } = props.conversation;
  return (
    <form
      class="composer"
      aria-label="Write as the contact"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label class="visually-hidden" for="composer-text">
        Message
      </label>
      <input
        id="composer-text"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        placeholder={`Write as ${props.player.name}`}
        autocomplete="off"
      />
      <button type="submit">Send</button>
    </form>
  );
}

/**
 * `onTap` undefined: the buttons are the contact's to tap on their own phone (a real channel). `live` false: the
 * run that sent the buttons no longer waits for them (answered, or ended), so they are greyed and a tap says it
 * answered nothing.
 */
function Bubble(props: {
  message: Message;
  onTap: ((buttonId: string) => void) | undefined;
  live: boolean | undefined;
  tappedNothing: boolean;
}) {
  const m = props.message;
  const stale = props.live === false;
  const mine = m.direction === 'inbound'; // the phone is the contact's: what they wrote is theirs
  const cards = m.attachments.flatMap((a) => (a.type === 'cards' ? [a] : []));
  const media = m.attachments.flatMap((a) => (a.type !== 'cards' ? [a] : []));
  const time = new Date(m.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return (
    <li
      class={`bubble ${mine ? 'mine' : 'theirs'}${m.status === 'failed' ? ' failed' : ''}${stale ? ' stale' : ''}`}
      data-message-id={m.id}
    >
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
            <Cards key={i} cards={a.cards} onTap={props.onTap} stale={stale} />
          ))}
          {stale && !props.tappedNothing && <p class="stale-note">No run waits for these buttons now.</p>}
          {props.tappedNothing && (
            <p class="stale-note" role="status" aria-label="Tap answered nothing">
              Tapped: it answered nothing, no run was waiting for these buttons.
            </p>
          )}
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
function Cards(props: {
  cards: Schemas['MessageCard'][];
  onTap: ((buttonId: string) => void) | undefined;
  stale: boolean;
}) {
  const onTap = props.onTap;
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
                  class={`card-button${props.stale ? ' stale' : ''}`}
                  aria-description={props.stale ? 'answers no waiting run' : undefined}
                  disabled={!b.id || !onTap}
                  onClick={() => b.id && onTap?.(b.id)}
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
