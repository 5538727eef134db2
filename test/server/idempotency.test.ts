// Idempotency-Key (Part A, idempotency rules 1–5; 24 hours per account), on every engine of the run. The
// handlers are stand-ins that record each effect as a row, so "exactly one effect" is counted in the database.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operations } from '../../generated/operations.js';
import { ApiError } from '../../server/errors.js';
import type { Handlers, UntypedHandlerInput } from '../../server/http/context.js';
import { SqlIdempotencyStore, type IdempotencyStore } from '../../server/store/idempotency.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { SchemaTag } from '../../generated/api.js';
import type { ErrorBody } from './http-helpers.js';

/**
 * The seed's 24 hours a key is kept (Part A, Limits: "kept 24 hours per account"), written here rather than
 * imported from the server, so that a wrong retention constant fails these tests.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

/** Requests the test holds open: the tag name `slow:<id>` waits until the gate `<id>` opens. */
const gates = new Map<string, Promise<void>>();
const releases = new Set<() => void>();
function gate(): { name: string; release: () => void } {
  const id = randomUUID();
  let release!: () => void;
  gates.set(id, new Promise<void>((ok) => (release = ok)));
  releases.add(release);
  return { name: `slow:${id}`, release };
}
/** Lets every held request finish (a failed test must not leave the server unable to close). */
const openGates = () => releases.forEach((release) => release());
/** How many times each account's tag name reached the handler. */
const runs = new Map<string, number>();
const runsOf = (c: TestCaller, name: string) => runs.get(`${c.accountId}:${name}`);
/** Waits until the held request is inside its handler (an app's first request also compiles the spec). */
const reached = (c: TestCaller, name: string) =>
  vi.waitFor(() => expect(runsOf(c, name)).toBe(1), { timeout: 15_000, interval: 10 });

/** The audit action that stands for a handler's effect: a real one, which no request of this file writes. */
const EFFECT = 'account.updated';

async function recordEffect({ app, caller }: Pick<UntypedHandlerInput, 'app' | 'caller'>, id: string): Promise<void> {
  await app.database.db
    .insertInto('audit_log')
    .values({
      account_id: caller.account.id,
      actor_type: 'api_key',
      actor_id: caller.key.id,
      action: EFFECT,
      target_type: 'account',
      target_id: id,
      details: null,
      created_at: app.clock.now().toISOString(),
    })
    .execute();
}

const handlers: Handlers = {
  createTag: async (input) => {
    const name = (input.body as { name: string }).name;
    const seen = (runs.get(`${input.caller.account.id}:${name}`) ?? 0) + 1;
    runs.set(`${input.caller.account.id}:${name}`, seen);
    if (name.startsWith('slow:')) await gates.get(name.slice(5));
    if (name.startsWith('fail-once:') && seen === 1)
      throw new ApiError(409, 'tag_already_exists', 'A tag has this name.', { tag_id: randomUUID() });
    if (name.startsWith('crash-once:') && seen === 1) throw new Error('boom');
    const id = randomUUID();
    await recordEffect(input, id);
    await sleep(20); // long enough for concurrent repeats to find the key running
    return {
      status: 201,
      body: { id, name, created_at: input.app.clock.now().toISOString() },
      headers: { Location: `/v1/tags/${id}` },
    };
  },
  deleteTag: async (input) => {
    await recordEffect(input, input.params.tagId ?? 'none');
    return { status: 204 };
  },
  createContact: async (input) => {
    await recordEffect(input, 'contact');
    throw new ApiError(502, 'outcome_unknown', 'The contact may or may not have been written.');
  },
};

const effects = async (t: TestApp, accountId: string) =>
  Number(
    (
      await t.database.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .where('action', '=', EFFECT)
        .executeTakeFirstOrThrow()
    ).n,
  );

const createTag = (c: TestCaller, key: string | undefined, name: string) =>
  c.call('POST', '/v1/tags', { body: { name }, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

const contactBody = { phone: '+5511987654321', name: 'Ana', connection_id: randomUUID(), consent: true };

async function errorCode(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { context?: { code?: string } }).context?.code;
}

describe.each(engines)('idempotency on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { handlers });
  });
  afterAll(async () => {
    openGates();
    await t?.close();
  });

  it('applies to every mutating route the spec marks, and requires the key on send and run start', () => {
    const marked = Object.entries(operations).filter(([, op]) => op.idempotency !== 'none');
    expect(marked.every(([, op]) => op.method !== 'get')).toBe(true);
    expect(
      Object.entries(operations)
        .filter(([, op]) => op.idempotency === 'required')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['sendMessage', 'startWorkflowRun']);
  });

  it('rule 1: replays the first 201 with its body and headers, without running the handler again', async () => {
    const me = await t.account();
    const first = await createTag(me, 'k1', 'VIP');
    expect(first.status).toBe(201);
    const body = await first.json();
    const again = await createTag(me, 'k1', 'VIP');
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('cache-control')).toBe('no-store');
    // Only the replay says it is one.
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await createTag(me, 'k1', 'VIP')).headers.get('idempotent-replayed')).toBe('true');
    // The gateway's headers are this request's own, not the first one's.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(Number(again.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
    expect(runsOf(me, 'VIP')).toBe(1);
    expect(await effects(t, me.accountId)).toBe(1);
    // A request without a key is never a replay.
    expect((await createTag(me, undefined, 'Other')).headers.get('idempotent-replayed')).toBeNull();
  });

  it('rule 1: replays a bodyless 204', async () => {
    const me = await t.account();
    const path = `/v1/tags/${randomUUID()}`;
    const first = await me.call('DELETE', path, { headers: { 'Idempotency-Key': 'del' } });
    const again = await me.call('DELETE', path, { headers: { 'Idempotency-Key': 'del' } });
    expect([first.status, again.status]).toEqual([204, 204]);
    expect(await again.text()).toBe('');
    expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([
      null,
      'true',
    ]);
    expect(await effects(t, me.accountId)).toBe(1);
  });

  it('runs every time without a key, and keeps keys per account', async () => {
    const me = await t.account();
    const other = await t.account();
    expect((await createTag(me, undefined, 'no-key')).status).toBe(201);
    expect((await createTag(me, undefined, 'no-key')).status).toBe(201);
    expect(await effects(t, me.accountId)).toBe(2);
    expect((await createTag(me, 'shared-key', 'a')).status).toBe(201);
    expect((await createTag(other, 'shared-key', 'b')).status).toBe(201);
    expect(await effects(t, other.accountId)).toBe(1);
  });

  it('rule 2: answers 422 idempotency_key_reused for the same key with another body or operation', async () => {
    const me = await t.account();
    expect((await createTag(me, 'k2', 'First')).status).toBe(201);
    const otherBody = await createTag(me, 'k2', 'Second');
    expect(otherBody.status).toBe(422);
    expect(await otherBody.json()).toEqual({
      type: 'error',
      message: expect.any(String),
      context: { code: 'idempotency_key_reused' },
    });
    const otherOperation = await me.call('DELETE', `/v1/tags/${randomUUID()}`, {
      headers: { 'Idempotency-Key': 'k2' },
    });
    expect(otherOperation.status).toBe(422);
    expect(await errorCode(otherOperation)).toBe('idempotency_key_reused');
    // The same body with its keys in another order is the same request.
    const reordered = await me.call('POST', '/v1/tags', {
      body: '{ "name" : "First" }',
      headers: { 'Idempotency-Key': 'k2' },
    });
    expect(reordered.status).toBe(201);
    expect(await effects(t, me.accountId)).toBe(1);
  });

  it('rule 3: answers 409 idempotency_in_progress while the first request runs', async () => {
    const me = await t.account();
    const { name, release } = gate();
    const first = createTag(me, 'k3', name);
    await reached(me, name);
    const during = await createTag(me, 'k3', name);
    expect(during.status).toBe(409);
    expect(during.headers.get('idempotent-replayed')).toBeNull();
    expect(await during.json()).toEqual({
      type: 'error',
      message: expect.any(String),
      context: { code: 'idempotency_in_progress' },
    });
    release();
    expect((await first).status).toBe(201);
    expect((await createTag(me, 'k3', name)).status).toBe(201);
    expect(runsOf(me, name)).toBe(1);
  });

  it('rule 4: a 4xx or a 500 releases the key, so the repeat runs again', async () => {
    const me = await t.account();
    const refused = await createTag(me, 'k4', 'fail-once:x');
    expect(refused.status).toBe(409);
    expect(await errorCode(refused)).toBe('tag_already_exists');
    expect((await createTag(me, 'k4', 'fail-once:x')).status).toBe(201);
    expect(runsOf(me, 'fail-once:x')).toBe(2);

    const crashed = await createTag(me, 'k5', 'crash-once:x');
    expect(crashed.status).toBe(500);
    expect((await createTag(me, 'k5', 'crash-once:x')).status).toBe(201);
    expect(runsOf(me, 'crash-once:x')).toBe(2);

    // A 501 (no handler yet) releases too.
    const missing = await me.call('POST', `/v1/workflows/${randomUUID()}/runs`, {
      body: { contact_id: randomUUID() },
      headers: { 'Idempotency-Key': 'k6' },
    });
    expect(missing.status).toBe(501);
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('account_id', '=', me.accountId)
      .where('key', '=', 'k6')
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('rule 4: keeps a 502 outcome_unknown and replays it without running again', async () => {
    const me = await t.account();
    const first = await me.call('POST', '/v1/contacts', { body: contactBody, headers: { 'Idempotency-Key': 'k7' } });
    expect(first.status).toBe(502);
    const body = await first.json();
    expect(body).toMatchObject({ type: 'error', context: { code: 'outcome_unknown' } });
    const again = await me.call('POST', '/v1/contacts', { body: contactBody, headers: { 'Idempotency-Key': 'k7' } });
    expect(again.status).toBe(502);
    expect(await again.json()).toEqual(body);
    expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([
      null,
      'true',
    ]);
    expect(await effects(t, me.accountId)).toBe(1);
  });

  it('rule 4: answers 409 outcome_unknown from then on when the first request stopped before answering', async () => {
    const me = await t.account();
    const { name, release } = gate();
    const first = createTag(me, 'k8', name);
    await reached(me, name);
    // Its lease (60 s) runs out with no answer and no renewal, as when its process dies.
    t.clock.advance(61_000);
    for (let i = 0; i < 2; i++) {
      const res = await createTag(me, 'k8', name);
      expect(res.status).toBe(409);
      // The key's answer, not a run of this request.
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await res.json()).toEqual({
        type: 'error',
        message: expect.any(String),
        context: { code: 'outcome_unknown' },
      });
    }
    // If the first request was only slow, its own client still gets its answer; the key keeps outcome_unknown.
    release();
    expect((await first).status).toBe(201);
    const after = await createTag(me, 'k8', name);
    expect(after.status).toBe(409);
    expect(await errorCode(after)).toBe('outcome_unknown');
    expect(runsOf(me, name)).toBe(1);
  });

  it('keeps a key 24 hours: replays until then, and runs anew after', async () => {
    const me = await t.account();
    const first = await createTag(me, 'k9', 'Day');
    const firstBody = (await first.json()) as SchemaTag;
    t.clock.advance(DAY_MS - 1_000); // 23:59:59 after the first request: still kept
    const replay = await createTag(me, 'k9', 'Day');
    expect(((await replay.json()) as SchemaTag).id).toBe(firstBody.id);
    t.clock.advance(2_000); // 24:00:01
    // Expired: another request may take the key, and the same one runs again.
    expect((await createTag(me, 'k9', 'Night')).status).toBe(201);
    t.clock.advance(DAY_MS + 1_000);
    const fresh = await createTag(me, 'k9', 'Day');
    expect(fresh.status).toBe(201);
    expect(((await fresh.json()) as SchemaTag).id).not.toBe(firstBody.id);
    expect(await effects(t, me.accountId)).toBe(3);
  });

  it('answers 400 on send and run start without the key (the validator), and lets a key through', async () => {
    const me = await t.account();
    const conversation = `/v1/conversations/${randomUUID()}/messages`;
    const run = `/v1/workflows/${randomUUID()}/runs`;
    for (const path of [conversation, run]) {
      const res = await me.call('POST', path, { body: {} });
      expect(res.status, path).toBe(400);
      const json = (await res.json()) as ErrorBody;
      expect(json.context.code).toBeUndefined();
      expect(json.context.details).toContainEqual(
        expect.objectContaining({ location: 'header', path: expect.stringMatching(/idempotency-key/i) }),
      );
    }
    const tooLong = await createTag(me, 'x'.repeat(256), 'Long');
    expect(tooLong.status).toBe(400);
    const empty = await createTag(me, '', 'Empty');
    expect(empty.status).toBe(400);
    const withKey = await me.call('POST', conversation, {
      body: { text: 'hi' },
      headers: { 'Idempotency-Key': 'k10' },
    });
    expect(withKey.status).toBe(501);
  });

  it('lets exactly one of 20 parallel identical requests with one key take effect', async () => {
    const me = await t.account();
    const answers = await Promise.all(Array.from({ length: 20 }, () => createTag(me, 'k11', 'Parallel')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    const bodies = await Promise.all(
      answers.map((r) => r.json() as Promise<{ id?: string; context?: { code: string } }>),
    );
    expect(new Set(bodies.filter((b) => b.id).map((b) => b.id)).size).toBe(1);
    expect(bodies.filter((b) => !b.id).every((b) => b.context?.code === 'idempotency_in_progress')).toBe(true);
    const later = await Promise.all(Array.from({ length: 20 }, () => createTag(me, 'k11', 'Parallel')));
    expect(later.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(await effects(t, me.accountId)).toBe(1);
    expect(runsOf(me, 'Parallel')).toBe(1);
  });
});

describe.each(engines)('idempotency leases and pruning on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { handlers, idempotency: { heartbeatMs: 20, maxHoldMs: 400 } });
  });
  afterAll(async () => {
    openGates();
    await t?.close();
  });

  it('renews the lease of a request still running, up to the longest hold', async () => {
    const me = await t.account();
    const { name, release } = gate();
    const first = createTag(me, 'h1', name);
    await reached(me, name);
    t.clock.advance(50_000);
    await sleep(100); // heartbeats move the lease to 50 s + 60 s
    t.clock.advance(40_000); // 90 s: past the first lease
    const during = await createTag(me, 'h1', name);
    expect(during.status).toBe(409);
    expect(await errorCode(during)).toBe('idempotency_in_progress');
    // After the longest hold the heartbeat stops: a hung request ends as outcome_unknown.
    await sleep(500);
    t.clock.advance(61_000);
    const hung = await createTag(me, 'h1', name);
    expect(hung.status).toBe(409);
    expect(await errorCode(hung)).toBe('outcome_unknown');
    release();
    await first;
  });

  it('prunes keys past their 24 hours', async () => {
    const me = await t.account();
    expect((await createTag(me, 'p1', 'Old')).status).toBe(201);
    t.clock.advance(DAY_MS + 3_600_000);
    expect((await createTag(me, 'p2', 'New')).status).toBe(201);
    const keys = () =>
      t.database.db
        .selectFrom('idempotency_keys')
        .select('key')
        .where('account_id', '=', me.accountId)
        .orderBy('key')
        .execute();
    await vi.waitFor(async () => expect((await keys()).map((r) => r.key)).toEqual(['p2']));
  });
});

describe.each(engines)('idempotency key store unavailable on %s', (engine) => {
  it('answers 503 service_unavailable and runs nothing when the store fails or does not answer', async () => {
    const failing: IdempotencyStore = new Proxy(new SqlIdempotencyStore(undefined as never), {
      get: () => () => Promise.reject(new Error('connection refused')),
    });
    const silent: IdempotencyStore = new Proxy(new SqlIdempotencyStore(undefined as never), {
      get: () => () => new Promise(() => {}),
    });
    for (const store of [failing, silent]) {
      const t = await startTestApp(engine, { handlers, idempotency: { store, storeTimeoutMs: 100 } });
      try {
        const me = await t.account();
        const res = await createTag(me, 'u1', 'Unavailable');
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({
          type: 'error',
          message: expect.any(String),
          context: { code: 'service_unavailable' },
        });
        expect(runsOf(me, 'Unavailable')).toBeUndefined();
        expect(await effects(t, me.accountId)).toBe(0);
        // Without a key the route does not need the store.
        expect((await createTag(me, undefined, 'No key needed')).status).toBe(201);
      } finally {
        await t.close();
      }
    }
  });

  it('answers 503 too when the database holding keys and counters is down (the rate limit meets it first)', async () => {
    const down = () => Promise.reject(new Error('connection refused'));
    const t = await startTestApp(engine, { handlers, rateLimiter: { hit: down } });
    try {
      const me = await t.account();
      const res = await createTag(me, 'u2', 'Down');
      expect(res.status).toBe(503);
      expect(await errorCode(res)).toBe('service_unavailable');
      expect(runsOf(me, 'Down')).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
