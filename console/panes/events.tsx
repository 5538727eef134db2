// Every event the account emits, newest first, as it happens (the same envelopes webhook endpoints receive).
import type { LiveEvent } from '../live.js';

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null && name in value ? Reflect.get(value, name) : undefined;

/** A message with buttons or cards has no text: its first card's title says what it was. */
function cardTitle(data: object): string | undefined {
  const attachments = field(data, 'attachments');
  const cards = Array.isArray(attachments)
    ? field(
        attachments.find((a) => field(a, 'type') === 'cards'),
        'cards',
      )
    : [];
  const title = Array.isArray(cards) ? field(cards[0], 'title') : undefined;
  return typeof title === 'string' ? `${title} [buttons]` : undefined;
}

function summary(event: LiveEvent): string {
  const data = event.data;
  if (typeof data !== 'object' || data === null) return '';
  const text = 'text' in data && typeof data.text === 'string' ? data.text : cardTitle(data);
  const status = 'status' in data && typeof data.status === 'string' ? data.status : undefined;
  return [text && `“${text.length > 60 ? `${text.slice(0, 60)}…` : text}”`, status].filter(Boolean).join(' · ');
}

export function EventsPane(props: { events: LiveEvent[] }) {
  return (
    <section class="pane events" aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      {props.events.length === 0 ? (
        <p class="note">The account's events appear here as they happen.</p>
      ) : (
        <ol class="event-list" aria-label="Account events">
          {props.events.map((e) => (
            <li key={e.id}>
              <code>{e.type}</code>
              <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleTimeString()}</time>
              <span>{summary(e)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
