// Answers a test arranged: per recipient phone (the `to` of a send), per Instagram recipient (an IGSID or a
// comment id) or per Graph path (`{phone_number_id}`, `{waba_id}/message_templates`…), taken in the order given, a
// sticky one answering every request until cleared.
import type { ScriptedAnswer, ScriptOptions } from './types.js';
import { digitsOf } from './webhooks.js';

/** `/123/messages/` → `123/messages`. */
export const trimSlashes = (path: string): string => path.split('/').filter(Boolean).join('/');

interface Entry {
  answer: ScriptedAnswer;
  sticky: boolean;
}

export class Scripts {
  private readonly queues = new Map<string, Entry[]>();

  private add(key: string, answer: ScriptedAnswer, options: ScriptOptions = {}): void {
    const queue = this.queues.get(key) ?? [];
    queue.push({ answer, sticky: options.sticky === true });
    this.queues.set(key, queue);
  }

  private take(key: string): ScriptedAnswer | undefined {
    const queue = this.queues.get(key);
    const first = queue?.[0];
    if (!queue || !first) return undefined;
    if (!first.sticky) queue.shift();
    return first.answer;
  }

  /** The next sends to `phone` (any format: its digits are compared). */
  forRecipient(phone: string, answer: ScriptedAnswer, options?: ScriptOptions): void {
    this.add(`to:${digitsOf(phone)}`, answer, options);
  }

  /** The next requests to `path` (after the version, without the query: `123/message_templates`). */
  forPath(path: string, answer: ScriptedAnswer, options?: ScriptOptions): void {
    this.add(`path:${trimSlashes(path)}`, answer, options);
  }

  /** The next Instagram sends to `id`: a contact's IGSID (`recipient.id`) or a comment's (`recipient.comment_id`). */
  forInstagram(id: string, answer: ScriptedAnswer, options?: ScriptOptions): void {
    this.add(`ig:${id}`, answer, options);
  }

  takeInstagram(id: string): ScriptedAnswer | undefined {
    return this.take(`ig:${id}`);
  }

  takeRecipient(phone: string): ScriptedAnswer | undefined {
    return this.take(`to:${digitsOf(phone)}`);
  }

  takePath(path: string): ScriptedAnswer | undefined {
    return this.take(`path:${path}`);
  }

  clear(): void {
    this.queues.clear();
  }
}
