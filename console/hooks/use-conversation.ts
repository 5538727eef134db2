// The conversation of the contact played, as their phone shows it: read newest page first with the API's
// cursors, its messages live from the account's events (sent, received, updated, failed, deleted), and what the
// contact writes or taps sent through the sandbox (inbound, button-taps).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { LiveEvent } from '../live.js';
import type { Player, Session } from '../session.js';
import { toProblem } from '../ui.js';
import { useLatest } from './use-latest.js';

type Message = Schemas['Message'];

const PAGE = 20;

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

export interface ConversationProps {
  session: Session;
  player: Player | undefined;
  onPlayer: (p: Player) => void;
  /** Called with the contact once its newest page is shown (or there is none to read, or the read failed). */
  onRead: (contactId: string) => void;
}

export function useConversation(props: ConversationProps) {
  const { player, session } = props;
  const [messages, setMessages] = useState<Message[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | undefined>();
  const conversationId = player?.conversationId;
  const contactId = player?.contactId;
  // The conversation shown now: a page answered after the user chose someone else is dropped.
  const showing = useLatest(conversationId);
  // A conversation learned from the contact's own first message here is new: everything in it arrives live,
  // in order (a page would order messages of the same millisecond by id, not as they happened).
  const learned = useRef<string | undefined>(undefined);
  const show = (message: Message) => setMessages((list) => upsert(list, message));

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
  const shown = useRef<string | undefined>(undefined);
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

  useConversationEvents(props, { learned, show });
  const writes = useContactWrites(props, { learned, show, setProblem });
  return { messages, older, problem, loadPage, ...writes };
}

/**
 * Live: the conversation's messages as events bring them. One subscription for the pane, reading the current
 * player through a ref, so no event falls between two.
 */
function useConversationEvents(
  props: ConversationProps,
  conversation: { learned: { current: string | undefined }; show: (message: Message) => void },
) {
  const current = useLatest({ player: props.player, onPlayer: props.onPlayer });
  useEffect(
    () =>
      props.session.subscribe((event) => {
        const message = messageOf(event);
        const { player: now, onPlayer } = current.current;
        if (!message || !now) return;
        if (message.conversation_id === now.conversationId) conversation.show(message);
        else if (!now.conversationId && now.contactId !== undefined && message.contact_id === now.contactId) {
          conversation.learned.current = message.conversation_id;
          onPlayer({ ...now, conversationId: message.conversation_id });
          conversation.show(message);
        }
      }),
    [props.session],
  );
}

/** What the contact does: write `text` (the composer's draft) with `send`, and tap a reply button with `tap`. */
function useContactWrites(
  props: ConversationProps,
  conversation: {
    learned: { current: string | undefined };
    show: (message: Message) => void;
    setProblem: (problem: Problem | undefined) => void;
  },
) {
  const { session, player } = props;
  const { show, setProblem } = conversation;
  const [text, setText] = useState('');

  const send = async () => {
    if (!player || !text.trim()) return;
    setProblem(undefined);
    try {
      const result = ok(
        await session.admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
          params: { path: { connectionId: player.connection.id } },
          body: { from: player.sender, text },
        }),
      );
      setText('');
      if (!player.conversationId) conversation.learned.current = result.conversation.id;
      if (result.conversation.id !== player.conversationId || result.contact.id !== player.contactId)
        props.onPlayer({ ...player, contactId: result.contact.id, conversationId: result.conversation.id });
      show(result.message);
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
      show(result.message);
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  return { text, setText, send, tap };
}
