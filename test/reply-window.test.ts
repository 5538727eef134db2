// The two rules that issue 34 gave one home each, read on their own (the routes' tests cover them end to end):
// the 24-hour window (server/domain/messaging/window.ts), and a workflow's If-Match
// (server/domain/workflows/if-match.ts).
import { describe, expect, it } from 'vitest';
import {
  freeFormRefusal,
  isProviderWindowClosed,
  replyWindow,
  windowClosed,
} from '../server/domain/messaging/window.js';
import { etagOf, requireIfMatch, requireRevision, revisionOfIfMatch } from '../server/domain/workflows/if-match.js';

const WROTE = '2026-03-01 10:00:00.123456+00';
const CLOSES_MS = Date.parse('2026-03-02T10:00:00.123Z');

describe('the 24-hour window', () => {
  it('closes 24 hours after the last direct message, to the microsecond; never open for a contact who never wrote', () => {
    expect(replyWindow(WROTE, new Date(CLOSES_MS - 1))).toEqual({
      state: 'open',
      closes_at: '2026-03-02T10:00:00.123456Z',
    });
    // The millisecond of closes_at still holds 456 µs of the window: a Date cannot say so, and is past it.
    expect(replyWindow(WROTE, new Date(CLOSES_MS)).state).toBe('open');
    expect(replyWindow(WROTE, new Date(CLOSES_MS + 1)).state).toBe('closed');
    expect(replyWindow(null, new Date(CLOSES_MS))).toEqual({ state: 'closed', closes_at: null });
  });

  it('answers each asker in the seeds’ words, and lets a template or a comment’s answer through', () => {
    const now = new Date(CLOSES_MS + 1);
    const ask = { channel: 'whatsapp', lastInboundAt: WROTE } as const;
    expect(freeFormRefusal({ ...ask, asker: 'conversation_send' }, now)?.body().context).toEqual({
      code: 'template_required',
      channel: 'whatsapp',
      last_inbound_at: WROTE,
    });
    expect(freeFormRefusal({ ...ask, channel: 'instagram', asker: 'conversation_send' }, now)?.code).toBe(
      'messaging_window_closed',
    );
    expect(freeFormRefusal({ ...ask, asker: 'automation_send' }, now)?.code).toBe('messaging_window_closed');
    expect(freeFormRefusal({ ...ask, asker: 'run_start' }, now)?.body().context).toEqual({
      code: 'messaging_window_closed',
      last_inbound_at: WROTE,
    });
    expect(freeFormRefusal({ ...ask, asker: 'conversation_send', passes: 'template' }, now)).toBeNull();
    expect(freeFormRefusal({ ...ask, asker: 'automation_send', passes: 'comment_reply' }, now)).toBeNull();
    expect(freeFormRefusal({ ...ask, asker: 'conversation_send' }, new Date(CLOSES_MS - 1))).toBeNull();
    expect(windowClosed('conversation_send', 'whatsapp', null).status).toBe(422);
  });

  it('knows Meta’s own window answers, each on its channel', () => {
    expect(isProviderWindowClosed('whatsapp', '131047')).toBe(true);
    expect(isProviderWindowClosed('instagram', '2534022')).toBe(true);
    expect(isProviderWindowClosed('instagram', '131047')).toBe(false);
    expect(isProviderWindowClosed('whatsapp', null)).toBe(false);
  });
});

describe('If-Match of an automation', () => {
  it('reads "3" or 3, nothing else', () => {
    expect(revisionOfIfMatch('"3"')).toBe(3);
    expect(revisionOfIfMatch(' 12 ')).toBe(12);
    expect(revisionOfIfMatch(undefined)).toBeUndefined();
    expect(() => revisionOfIfMatch('W/"3"')).toThrow(expect.objectContaining({ status: 400 }));
    expect(etagOf({ revision: 3 })).toEqual({ ETag: '"3"' });
  });

  it('428 when a change needs it and it is absent, 412 when stale', () => {
    expect(() => requireIfMatch(undefined)).toThrow(expect.objectContaining({ status: 428 }));
    expect(requireIfMatch(4)).toBe(4);
    expect(() => requireRevision({ revision: 5 }, 4)).toThrow(
      expect.objectContaining({ status: 412, code: 'version_conflict', extras: { current_revision: 5 } }),
    );
    expect(() => requireRevision({ revision: 5 }, undefined)).not.toThrow();
    expect(() => requireRevision({ revision: 5 }, 5)).not.toThrow();
  });
});
