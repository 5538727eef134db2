// Which messages a live trigger answers (server/engine/triggers.ts `triggerMatches`, Part B "Trigger"): posts
// limit comments (feed) and story replies (story), `next_post` needs a post published after the automation (none
// in the sandbox), story mentions ignore keywords, whatsapp fires on `message` only.
import { describe, expect, it } from 'vitest';
import { triggerMatches } from '../server/engine/triggers.js';

type Trigger = Parameters<typeof triggerMatches>[0];
const trigger = (t: Partial<Trigger>): Trigger => ({
  events: ['comment', 'story_message'],
  match: 'any',
  keywords: [],
  posts: null,
  next_post: false,
  replies_list_id: null,
  ...t,
});
const comment = (postId: string, text = 'quero') => ({
  type: 'comment' as const,
  text,
  post: { id: postId, type: 'feed' as const, url: null },
});
const storyReply = (postId: string) => ({
  type: 'story_message' as const,
  text: 'oi',
  post: { id: postId, type: 'story' as const, url: null },
});

describe('trigger matching', () => {
  it('feed posts limit comments, stories limit story replies, each only its own kind', () => {
    const t = trigger({
      posts: [
        { type: 'feed', id: 'p1' },
        { type: 'story', id: 's1' },
      ],
    });
    expect(triggerMatches(t, 'instagram', comment('p1'))).toBe(true);
    expect(triggerMatches(t, 'instagram', comment('p2'))).toBe(false);
    expect(triggerMatches(t, 'instagram', storyReply('s1'))).toBe(true);
    expect(triggerMatches(t, 'instagram', storyReply('s2'))).toBe(false);
    // Only stories listed: comments on any post still start it.
    expect(triggerMatches(trigger({ posts: [{ type: 'story', id: 's1' }] }), 'instagram', comment('p9'))).toBe(true);
  });

  it('next_post limits comments to a post published after the automation: none in the sandbox', () => {
    expect(triggerMatches(trigger({ next_post: true }), 'instagram', comment('p1'))).toBe(false);
    expect(triggerMatches(trigger({ next_post: true }), 'instagram', storyReply('s1'))).toBe(true);
  });

  it('a story mention ignores keywords; a match needing keywords with none fires on nothing else', () => {
    const t = trigger({ events: ['story_mention', 'message'], match: 'contains', keywords: [] });
    expect(triggerMatches(t, 'instagram', { type: 'story_mention', text: null, post: null })).toBe(true);
    expect(triggerMatches(t, 'instagram', { type: 'message', text: 'qualquer', post: null })).toBe(false);
  });

  it('an event the trigger does not list never fires; on whatsapp only message does', () => {
    expect(triggerMatches(trigger({ events: ['message'] }), 'instagram', comment('p1'))).toBe(false);
    const all = trigger({ events: ['message', 'comment'] });
    expect(triggerMatches(all, 'whatsapp', { type: 'message', text: 'oi', post: null })).toBe(true);
    expect(triggerMatches(all, 'whatsapp', comment('p1'))).toBe(false);
  });
});
