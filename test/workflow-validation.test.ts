// Staged validation of an automation definition (server/domain/workflows/validation.ts), the block table
// (blocks.ts), the graph helpers (graph.ts) and the catalog's error mapping (catalog.ts), against a fake
// AccountLookups. Part B, "Validation"; docs/decisions.md, "Validation stages, as built".
import { describe, it, expect } from 'vitest';
import { BLOCK_TYPES, outputCount } from '../server/blocks/index.js';
import { catalogDocument, catalogIssues, catalogVersion } from '../server/domain/workflows/catalog.js';
import { fillNext, graphSize, layout, withPositions, MAX_GRAPH_BYTES } from '../server/domain/workflows/graph.js';
import { validateDefinition, writeProblem } from '../server/domain/workflows/validation.js';
import type {
  AccountLookups,
  ChannelToCheck,
  ChannelType,
  DefinitionToCheck,
  OtherWorkflow,
  TriggerInput,
  ValidationIssue,
  ValidationOptions,
} from '../server/domain/workflows/validation-types.js';

type Json = Record<string, unknown>;

const uuid = (n: number) => `7d9f3c52-1b8e-4f6a-9c0d-${String(n).padStart(12, '0')}`;
const WA = uuid(1); // whatsapp, connected
const WA_OFF = uuid(2); // whatsapp, disconnected
const IG = uuid(3); // instagram, connected (the account's connected instagram)
const IG2 = uuid(4); // another instagram connection
const UPLOAD = uuid(10);
const LIST = uuid(20);
const SELF = uuid(30);
const PUBLISHED_SAME = uuid(31);
const PUBLISHED_OTHER = uuid(32);
const UNPUBLISHED = uuid(33);
const DELETED = uuid(34);

/** An account: tags VIP and Lead, fields email and pedidos, one upload, one reply list, some automations. */
class FakeLookups implements AccountLookups {
  calls: Record<string, unknown[][]> = {};
  tags = new Set(['VIP', 'Lead']);
  fields = new Set(['email', 'pedidos']);
  uploads = new Set([UPLOAD]);
  lists = new Set([LIST]);
  conns = new Map<string, { channel: ChannelType; connected: boolean }>([
    [WA, { channel: 'whatsapp', connected: true }],
    [WA_OFF, { channel: 'whatsapp', connected: false }],
    [IG, { channel: 'instagram', connected: true }],
    [IG2, { channel: 'instagram', connected: false }],
  ]);
  igConnected: string | null = IG;
  all: OtherWorkflow[] = [
    { id: SELF, title: 'Self', deleted: false, live: null },
    {
      id: PUBLISHED_SAME,
      title: 'Same channel',
      deleted: false,
      live: { channel: { type: 'instagram', connection_id: IG }, trigger: { events: ['message'], match: 'any' } },
    },
    {
      id: PUBLISHED_OTHER,
      title: 'Other channel',
      deleted: false,
      live: { channel: { type: 'whatsapp', connection_id: WA }, trigger: { events: ['message'], match: 'any' } },
    },
    { id: UNPUBLISHED, title: 'Draft only', deleted: false, live: null },
    { id: DELETED, title: 'Trashed', deleted: true, live: null },
  ];
  /** What publishedWorkflows returns (set per test; the `all` list has collisions of its own). */
  published: OtherWorkflow[] = [];

  private note(name: string, args: unknown[]) {
    (this.calls[name] ??= []).push(args);
  }
  count(name: string) {
    return this.calls[name]?.length ?? 0;
  }
  existingTagNames(names: readonly string[]) {
    this.note('existingTagNames', [names]);
    return Promise.resolve(new Set(names.filter((n) => this.tags.has(n))));
  }
  existingCustomFieldKeys(keys: readonly string[]) {
    this.note('existingCustomFieldKeys', [keys]);
    return Promise.resolve(new Set(keys.filter((k) => this.fields.has(k))));
  }
  existingUploadIds(ids: readonly string[]) {
    this.note('existingUploadIds', [ids]);
    return Promise.resolve(new Set(ids.filter((i) => this.uploads.has(i))));
  }
  connections(ids: readonly string[]) {
    this.note('connections', [ids]);
    return Promise.resolve(new Map([...this.conns].filter(([id]) => ids.includes(id))));
  }
  connectedInstagram() {
    this.note('connectedInstagram', []);
    return Promise.resolve(this.igConnected);
  }
  repliesListExists(id: string) {
    this.note('repliesListExists', [id]);
    return Promise.resolve(this.lists.has(id));
  }
  workflows(ids: readonly string[]) {
    this.note('workflows', [ids]);
    return Promise.resolve(new Map(this.all.filter((w) => ids.includes(w.id)).map((w) => [w.id, w])));
  }
  publishedWorkflows(exceptId: string | null) {
    this.note('publishedWorkflows', [exceptId]);
    return Promise.resolve(this.published.filter((w) => w.id !== exceptId));
  }
}

const nulls = (n: number) => Array.from({ length: n }, () => null);
const root = (next: string | null = 'm') => ({ type: 'root', data: { next: [next] } });
const message = (next: string | null = null, text = 'Hi!') => ({ type: 'message', data: { text, next: [next] } });
const IG_CHANNEL: ChannelToCheck = { type: 'instagram', connection_id: null };
const TRIGGER: TriggerInput = { events: ['message'], match: 'contains', keywords: ['oi'] };

/** A definition: instagram (the connected account), `message` with keyword `oi`, root → m → (block b). */
function def(nodes: Json, over: { channel?: ChannelToCheck; trigger?: Partial<TriggerInput> } = {}): DefinitionToCheck {
  return { channel: over.channel ?? IG_CHANNEL, trigger: { ...TRIGGER, ...over.trigger }, nodes };
}
/** root → b, b alone. */
const withBlock = (b: Json, over: Parameters<typeof def>[1] = {}) => def({ root: root('b'), b }, over);

const SAVED: ValidationOptions = { route: 'saved', workflowId: SELF };
const UNSAVED: ValidationOptions = { route: 'unsaved' };

async function validate(d: DefinitionToCheck, options: ValidationOptions = SAVED, lookups = new FakeLookups()) {
  return validateDefinition(d, lookups, options);
}
const codes = (issues: ValidationIssue[]) => issues.map((i) => i.code);
const at = (issues: ValidationIssue[]) => issues.map((i) => `${i.code} ${i.path}`);

const button = (over: Json = {}) => ({ id: 'b1', title: 'Go', ...over });
const buttons = (list: Json[], next: unknown[] = nulls(4)) => ({
  type: 'buttons',
  data: { subtitle: 'Pick', buttons: list, next },
});
const cards = (list: Json[]) => ({ type: 'cards', data: { cards: list, next: nulls(31) } });
const card = (over: Json = {}) => ({ title: 'Shoe', subtitle: 'R$ 1', buttons: [], ...over });
const randomizer = (percentages: number[], next: (string | null)[] = nulls(percentages.length)) => ({
  type: 'randomizer',
  data: { options: percentages.map((percentage) => ({ percentage })), next },
});
const multichannel = (channels: Json[], mode: string | null = 'first') => ({
  type: 'multichannel',
  data: { ...(mode ? { mode } : {}), channels, next: nulls(channels.length + 1) },
});
const channel = (connection_id: string) => ({ provider: 'whatsapp', connection_id });
const conditional = (conditions: Json[]) => ({ type: 'conditional', data: { conditions, next: [null, null] } });

describe('a valid definition', () => {
  it('has no errors and no warnings, with every kind of account resource named', async () => {
    const d = def({
      root: root('q'),
      q: { type: 'question', data: { text: 'E-mail?', answer_type: 'any', answer_field: 'email', next: ['t'] } },
      t: { type: 'tags', data: { operation: 'add', tags: ['VIP', 'Lead'], next: ['d'] } },
      d: { type: 'data', data: { name: 'pedidos', value: '$input', next: ['md'] } },
      md: { type: 'media', data: { upload_id: UPLOAD, next: ['c'] } },
      c: conditional([{ field_type: 'tag', field_name: 'VIP', operator: 'has_tag' }]),
      mc: multichannel([channel(WA)]),
    });
    (d.nodes.c as { data: { next: unknown[] } }).data.next = ['mc', null];
    expect(await validate(d)).toEqual({ errors: [], warnings: [] });
  });

  it('accepts a blank block without next, and with [null]', async () => {
    expect(await validate(def({ root: root('k'), k: { type: 'blank', data: {} } }))).toEqual({
      errors: [],
      warnings: [],
    });
    const withNext = def({ root: root('k'), k: { type: 'blank', data: { next: [null] } } });
    expect(await validate(withNext)).toEqual({ errors: [], warnings: [] });
  });

  it('accepts an empty question answer_field without asking for a custom field', async () => {
    const lookups = new FakeLookups();
    const q = { type: 'question', data: { text: 'Hi?', answer_type: 'any', answer_field: '', next: [null] } };
    expect(await validate(withBlock(q), SAVED, lookups)).toEqual({ errors: [], warnings: [] });
    expect(lookups.count('existingCustomFieldKeys')).toBe(0);
  });
});

describe('one rule per error code', () => {
  type Row = [name: string, definition: DefinitionToCheck, code: string, path: string, nodeId: string | null];
  const rows: Row[] = [
    [
      'schema_violation: missing field',
      withBlock({ type: 'message', data: { next: [null] } }),
      'schema_violation',
      'nodes.b.data.text',
      'b',
    ],
    [
      'schema_violation: unquoted math constant',
      withBlock({
        type: 'math',
        data: {
          result_field: 'pedidos',
          operand_a: { type: 'field', value: 'pedidos' },
          operand_b: { type: 'constant', value: 2 },
          operator: 'add',
          next: [null],
        },
      }),
      'schema_violation',
      'nodes.b.data.operand_b.value',
      'b',
    ],
    [
      'schema_violation: a non-empty url that is not http',
      withBlock(buttons([button({ url: 'ftp://x' })])),
      'schema_violation',
      'nodes.b.data.buttons[0].url',
      'b',
    ],
    [
      'node_id_invalid',
      def({ root: root('pedirEmail'), pedirEmail: message() }),
      'node_id_invalid',
      'nodes.pedirEmail',
      'pedirEmail',
    ],
    ['root_missing: none', def({ m: message() }), 'root_missing', 'nodes.root', null],
    ['root_missing: root of another type', def({ root: message(), m: message() }), 'root_missing', 'nodes.root', null],
    [
      'next_arity_invalid: fixed count',
      withBlock(buttons([button()], nulls(3))),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    [
      'next_arity_invalid: extra entry',
      withBlock({ type: 'message', data: { text: 'x', next: [null, null] } }),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    [
      'next_arity_invalid: randomizer',
      withBlock(randomizer([50, 50], nulls(3))),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    [
      'next_arity_invalid: multichannel',
      withBlock({ ...multichannel([channel(WA)]), data: { mode: 'all', channels: [channel(WA)], next: [null] } }),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    [
      'next_arity_invalid: blank with []',
      withBlock({ type: 'blank', data: { next: [] } }),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    [
      'next_arity_invalid: next missing',
      withBlock({ type: 'comment', data: { text: 'note' } }),
      'next_arity_invalid',
      'nodes.b.data.next',
      'b',
    ],
    ['node_not_found', withBlock(message('nope')), 'node_not_found', 'nodes.b.data.next[0]', 'b'],
    [
      'tag_not_found: other letter case',
      withBlock({ type: 'tags', data: { operation: 'add', tags: ['VIP', 'vip'], next: [null] } }),
      'tag_not_found',
      'nodes.b.data.tags[1]',
      'b',
    ],
    [
      'tag_not_found: condition',
      withBlock(conditional([{ field_type: 'tag', field_name: 'Gold', operator: 'has_tag' }])),
      'tag_not_found',
      'nodes.b.data.conditions[0].field_name',
      'b',
    ],
    [
      'custom_field_not_found: data',
      withBlock({ type: 'data', data: { name: 'nope', next: [null] } }),
      'custom_field_not_found',
      'nodes.b.data.name',
      'b',
    ],
    [
      'custom_field_not_found: question',
      withBlock({ type: 'question', data: { text: 'x', answer_type: 'any', answer_field: 'nope', next: [null] } }),
      'custom_field_not_found',
      'nodes.b.data.answer_field',
      'b',
    ],
    [
      'custom_field_not_found: math operand',
      withBlock({
        type: 'math',
        data: {
          result_field: 'pedidos',
          operand_a: { type: 'field', value: 'nope' },
          operand_b: { type: 'constant', value: '2' },
          operator: 'add',
          next: [null],
        },
      }),
      'custom_field_not_found',
      'nodes.b.data.operand_a.value',
      'b',
    ],
    [
      'custom_field_not_found: math result',
      withBlock({
        type: 'math',
        data: {
          result_field: 'nope',
          operand_a: { type: 'constant', value: '1' },
          operand_b: { type: 'constant', value: '2' },
          operator: 'add',
          next: [null],
        },
      }),
      'custom_field_not_found',
      'nodes.b.data.result_field',
      'b',
    ],
    [
      'custom_field_not_found: condition',
      withBlock(conditional([{ field_type: 'custom_field', field_name: 'nope', operator: 'has_field' }])),
      'custom_field_not_found',
      'nodes.b.data.conditions[0].field_name',
      'b',
    ],
    [
      'custom_field_not_found: invoke field',
      withBlock({
        type: 'invoke',
        data: {
          method: 'GET',
          endpoint: 'https://x',
          fields: [
            { path: '$.a', name: 'email' },
            { path: '$.b', name: 'nope' },
          ],
          next: [null, null],
        },
      }),
      'custom_field_not_found',
      'nodes.b.data.fields[1].name',
      'b',
    ],
    [
      'upload_not_found: media',
      withBlock({ type: 'media', data: { upload_id: uuid(99), next: [null] } }),
      'upload_not_found',
      'nodes.b.data.upload_id',
      'b',
    ],
    [
      'upload_not_found: card',
      withBlock(cards([card({ upload_id: UPLOAD }), card({ upload_id: uuid(98) })])),
      'upload_not_found',
      'nodes.b.data.cards[1].upload_id',
      'b',
    ],
    [
      'link_button_url_empty: buttons',
      withBlock(buttons([button({ url: '' })])),
      'link_button_url_empty',
      'nodes.b.data.buttons[0].url',
      'b',
    ],
    [
      'link_button_url_empty: cards',
      withBlock(cards([card({ buttons: [button(), button({ url: '' })] })])),
      'link_button_url_empty',
      'nodes.b.data.cards[0].buttons[1].url',
      'b',
    ],
    [
      'handoff_number_disconnected: buttons',
      withBlock(buttons([button({ whatsapp_connection_id: WA_OFF })])),
      'handoff_number_disconnected',
      'nodes.b.data.buttons[0].whatsapp_connection_id',
      'b',
    ],
    [
      'handoff_number_disconnected: not whatsapp',
      withBlock(cards([card({ buttons: [button({ whatsapp_connection_id: IG })] })])),
      'handoff_number_disconnected',
      'nodes.b.data.cards[0].buttons[0].whatsapp_connection_id',
      'b',
    ],
    [
      'handoff_number_disconnected: unknown',
      withBlock(buttons([button({ whatsapp_connection_id: uuid(97) })])),
      'handoff_number_disconnected',
      'nodes.b.data.buttons[0].whatsapp_connection_id',
      'b',
    ],
    [
      'media_source_invalid: neither',
      withBlock({ type: 'media', data: { next: [null] } }),
      'media_source_invalid',
      'nodes.b.data',
      'b',
    ],
    [
      'media_source_invalid: both',
      withBlock({ type: 'media', data: { upload_id: UPLOAD, media_url: 'https://x/y.png', next: [null] } }),
      'media_source_invalid',
      'nodes.b.data',
      'b',
    ],
    [
      'randomizer_options_invalid: sum',
      withBlock(randomizer([50, 40])),
      'randomizer_options_invalid',
      'nodes.b.data.options',
      'b',
    ],
    [
      'randomizer_options_invalid: one option',
      withBlock(randomizer([100])),
      'randomizer_options_invalid',
      'nodes.b.data.options',
      'b',
    ],
    [
      'randomizer_options_invalid: 21 options',
      withBlock(randomizer([...Array(20).fill(5), 0])),
      'randomizer_options_invalid',
      'nodes.b.data.options',
      'b',
    ],
    [
      'randomizer_options_invalid: negative',
      withBlock(randomizer([110, -10])),
      'randomizer_options_invalid',
      'nodes.b.data.options[1].percentage',
      'b',
    ],
    [
      'conditional_incomplete: no condition',
      withBlock(conditional([])),
      'conditional_incomplete',
      'nodes.b.data.conditions',
      'b',
    ],
    [
      'conditional_incomplete: no field_name',
      withBlock(conditional([{ field_type: 'variable', operator: 'has_field' }])),
      'conditional_incomplete',
      'nodes.b.data.conditions[0].field_name',
      'b',
    ],
    [
      'conditional_incomplete: no operator',
      withBlock(conditional([{ field_type: 'score', value: '1' }])),
      'conditional_incomplete',
      'nodes.b.data.conditions[0].operator',
      'b',
    ],
    [
      'multichannel_mode_missing',
      withBlock(multichannel([channel(WA)], null)),
      'multichannel_mode_missing',
      'nodes.b.data.mode',
      'b',
    ],
    [
      'multichannel_channels_invalid: none',
      withBlock(multichannel([])),
      'multichannel_channels_invalid',
      'nodes.b.data.channels',
      'b',
    ],
    [
      'multichannel_channels_invalid: 11',
      withBlock(multichannel(Array.from({ length: 11 }, (_, i) => channel(uuid(50 + i))))),
      'multichannel_channels_invalid',
      'nodes.b.data.channels',
      'b',
    ],
    [
      'multichannel_channels_invalid: empty connection',
      withBlock(multichannel([channel('')])),
      'multichannel_channels_invalid',
      'nodes.b.data.channels[0].connection_id',
      'b',
    ],
    [
      'multichannel_channels_invalid: repeated',
      withBlock(multichannel([channel(WA), channel(IG), channel(WA)])),
      'multichannel_channels_invalid',
      'nodes.b.data.channels[2].connection_id',
      'b',
    ],
    [
      'channel_required',
      def({ root: root(), m: message() }, { channel: { type: 'whatsapp', connection_id: null } }),
      'channel_required',
      'channel.connection_id',
      null,
    ],
    [
      'channel_not_found',
      def({ root: root(), m: message() }, { channel: { type: 'whatsapp', connection_id: uuid(96) } }),
      'channel_not_found',
      'channel.connection_id',
      null,
    ],
    [
      'channel_type_mismatch',
      def({ root: root(), m: message() }, { channel: { type: 'instagram', connection_id: WA } }),
      'channel_type_mismatch',
      'channel.connection_id',
      null,
    ],
    [
      'posts_without_event',
      def(
        { root: root(), m: message() },
        { trigger: { events: ['message', 'story_message'], posts: [{ type: 'feed', id: 'p1' }] } },
      ),
      'posts_without_event',
      'trigger.posts',
      null,
    ],
    [
      'next_post_without_comment',
      def({ root: root(), m: message() }, { trigger: { events: ['message'], next_post: true } }),
      'next_post_without_comment',
      'trigger.next_post',
      null,
    ],
    [
      'next_post_with_posts',
      def(
        { root: root(), m: message() },
        { trigger: { events: ['comment'], next_post: true, posts: [{ type: 'feed', id: 'p1' }] } },
      ),
      'next_post_with_posts',
      'trigger.next_post',
      null,
    ],
    [
      'replies_list_not_supported',
      def(
        { root: root(), m: message() },
        { channel: { type: 'whatsapp', connection_id: WA }, trigger: { replies_list_id: LIST } },
      ),
      'replies_list_not_supported',
      'trigger.replies_list_id',
      null,
    ],
    [
      'replies_list_not_found',
      def({ root: root(), m: message() }, { trigger: { events: ['comment'], replies_list_id: uuid(95) } }),
      'replies_list_not_found',
      'trigger.replies_list_id',
      null,
    ],
  ];

  it.each(rows)('%s', async (_name, definition, code, path, nodeId) => {
    const { errors } = await validate(definition);
    expect(errors).toContainEqual(expect.objectContaining({ code, path, node_id: nodeId }));
    expect(errors.every((e) => typeof e.message === 'string' && e.message.length > 0)).toBe(true);
  });

  it('reports exactly one item for the error rows of one problem each (no wrapper or duplicate items)', async () => {
    for (const [name, definition, code, path] of rows) {
      if (name.startsWith('root_missing: root of another')) continue; // the root's own catalog errors come too
      const { errors } = await validate(definition);
      expect(at(errors), name).toEqual([`${code} ${path}`]);
    }
  });

  it('handoff_number_disconnected carries connection_id and is not checked on a whatsapp automation', async () => {
    const b = buttons([button({ whatsapp_connection_id: WA_OFF })]);
    const ig = await validate(withBlock(b));
    expect(ig.errors[0]).toMatchObject({ code: 'handoff_number_disconnected', connection_id: WA_OFF });
    const wa = await validate(withBlock(b, { channel: { type: 'whatsapp', connection_id: WA } }));
    expect(wa.errors).toEqual([]);
    const connected = await validate(withBlock(buttons([button({ whatsapp_connection_id: WA })])));
    expect(connected.errors).toEqual([]);
  });

  it('posts_without_event: a story post with story_message, or a feed post with comment, is fine', async () => {
    const ok = async (trigger: Partial<TriggerInput>) =>
      (await validate(def({ root: root(), m: message() }, { trigger }))).errors;
    expect(await ok({ events: ['story_message'], posts: [{ type: 'story', id: 's' }] })).toEqual([]);
    expect(await ok({ events: ['comment'], posts: [{ type: 'feed', id: 'p' }] })).toEqual([]);
    expect(codes(await ok({ events: ['comment'], posts: [{ type: 'story', id: 's' }] }))).toEqual([
      'posts_without_event',
    ]);
    expect(await ok({ events: ['comment'], next_post: true })).toEqual([]);
  });
});

describe('warnings', () => {
  it('answer_type_deprecated', async () => {
    const q = { type: 'question', data: { text: 'Age?', answer_type: 'number', answer_field: '', next: [null] } };
    const { errors, warnings } = await validate(withBlock(q));
    expect(errors).toEqual([]);
    expect(at(warnings)).toEqual(['answer_type_deprecated nodes.b.data.answer_type']);
  });

  it('trigger_event_not_supported on whatsapp, one per event', async () => {
    const d = def(
      { root: root(), m: message() },
      {
        channel: { type: 'whatsapp', connection_id: WA },
        trigger: { events: ['comment', 'message', 'story_mention'] },
      },
    );
    const { errors, warnings } = await validate(d);
    expect(errors).toEqual([]);
    expect(at(warnings)).toEqual([
      'trigger_event_not_supported trigger.events[0]',
      'trigger_event_not_supported trigger.events[2]',
    ]);
  });

  it('trigger_has_no_keywords: match other than any, no keywords, a text event', async () => {
    const w = async (trigger: Partial<TriggerInput>) =>
      codes((await validate(def({ root: root(), m: message() }, { trigger }))).warnings);
    expect(await w({ match: 'equals', keywords: [] })).toEqual(['trigger_has_no_keywords']);
    expect(await w({ match: 'any', keywords: [] })).toEqual([]);
    expect(await w({ match: 'equals', keywords: [], events: ['story_mention'] })).toEqual([]);
    expect(await w({ match: 'equals', keywords: [], events: [] })).toEqual([]);
  });

  it('start_workflow_*: not found, deleted, unpublished, other channel; none for the same channel or itself', async () => {
    const start = (workflow_id: string) => ({ type: 'start', data: { workflow_id, parallel: true, next: [null] } });
    const d = def({
      root: root('s1'),
      s1: start(uuid(90)),
      s2: start(DELETED),
      s3: start(UNPUBLISHED),
      s4: start(PUBLISHED_OTHER),
      s5: start(PUBLISHED_SAME),
      s6: start(SELF),
    });
    const lookups = new FakeLookups();
    const { errors, warnings } = await validate(d, SAVED, lookups);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'start_workflow_not_found', node_id: 's1', workflow_ids: [uuid(90)] }),
      expect.objectContaining({
        code: 'start_workflow_deleted',
        path: 'nodes.s2.data.workflow_id',
        workflow_ids: [DELETED],
        workflows: [{ id: DELETED, title: 'Trashed' }],
      }),
      expect.objectContaining({
        code: 'start_workflow_unpublished',
        workflows: [{ id: UNPUBLISHED, title: 'Draft only' }],
      }),
      expect.objectContaining({ code: 'start_workflow_other_channel', workflow_ids: [PUBLISHED_OTHER] }),
    ]);
    expect(warnings[0]).not.toHaveProperty('workflows');
    // PUBLISHED_SAME is pinned to IG, this automation runs on the connected instagram (IG): same channel.
    expect(lookups.count('connectedInstagram')).toBe(1);
    expect(lookups.calls.workflows?.[0]?.[0]).not.toContain(SELF);
  });

  it('start_workflow_other_channel when the instagram connections differ', async () => {
    const lookups = new FakeLookups();
    lookups.igConnected = IG2;
    const s = { type: 'start', data: { workflow_id: PUBLISHED_SAME, parallel: false, next: [null] } };
    expect(codes((await validate(withBlock(s), SAVED, lookups)).warnings)).toEqual(['start_workflow_other_channel']);
  });

  describe('keyword_collision', () => {
    const other = (id: string, channel: ChannelToCheck, trigger: TriggerInput, over: Partial<OtherWorkflow> = {}) => ({
      id,
      title: id,
      deleted: false,
      live: { channel, trigger },
      ...over,
    });
    const run = async (published: OtherWorkflow[], over: Parameters<typeof def>[1] = {}) => {
      const lookups = new FakeLookups();
      lookups.published = published;
      const result = await validate(def({ root: root(), m: message() }, over), SAVED, lookups);
      expect(result.errors).toEqual([]);
      return { warnings: result.warnings, lookups };
    };
    const igPinned = { type: 'instagram', connection_id: IG } as const;

    it('same channel (effective connection), overlapping event, keywords equal ignoring case', async () => {
      const { warnings, lookups } = await run([
        other(uuid(61), igPinned, { events: ['message', 'comment'], match: 'equals', keywords: ['OI', 'tchau'] }),
        other(uuid(60), IG_CHANNEL, { events: ['message'], match: 'starts_with', keywords: ['Oi'] }),
      ]);
      expect(warnings).toEqual([
        {
          code: 'keyword_collision',
          message: expect.any(String),
          node_id: null,
          path: 'trigger.keywords',
          workflow_ids: [uuid(60), uuid(61)],
          keywords: ['oi'],
        },
      ]);
      expect(lookups.count('publishedWorkflows')).toBe(1);
      expect(lookups.calls.publishedWorkflows?.[0]).toEqual([SELF]);
    });

    it('this automation on match any collides with the keywords of the other', async () => {
      const { warnings } = await run(
        [
          other(uuid(71), igPinned, { events: ['message'], match: 'equals', keywords: ['Promo', 'promo'] }),
          other(uuid(72), igPinned, { events: ['message'], match: 'equals', keywords: [] }),
        ],
        { trigger: { match: 'any', keywords: [] } },
      );
      expect(warnings).toEqual([expect.objectContaining({ workflow_ids: [uuid(71)], keywords: ['Promo', 'promo'] })]);
    });

    it('match any on either side collides with every keyword of the other', async () => {
      const { warnings } = await run([other(uuid(62), igPinned, { events: ['message'], match: 'any' })]);
      expect(warnings).toEqual([expect.objectContaining({ workflow_ids: [uuid(62)], keywords: ['oi'] })]);
    });

    it('no collision: other keywords, other event, other connection, other channel type, trash, itself', async () => {
      const { warnings } = await run([
        other(uuid(63), igPinned, { events: ['message'], match: 'contains', keywords: ['olá'] }),
        other(uuid(64), igPinned, { events: ['comment'], match: 'contains', keywords: ['oi'] }),
        other(uuid(65), { type: 'instagram', connection_id: IG2 }, { events: ['message'], match: 'any' }),
        other(uuid(66), { type: 'whatsapp', connection_id: WA }, { events: ['message'], match: 'any' }),
        other(uuid(67), igPinned, { events: ['message'], match: 'any' }, { deleted: true }),
        other(SELF, igPinned, { events: ['message'], match: 'any' }),
        other(uuid(68), igPinned, { events: ['message'], match: 'contains', keywords: [] }),
      ]);
      expect(warnings).toEqual([]);
    });

    it('on whatsapp only `message` counts as an overlapping event', async () => {
      const wa = { type: 'whatsapp', connection_id: WA } as const;
      const { warnings } = await run(
        [
          other(uuid(69), wa, { events: ['comment'], match: 'any' }),
          other(uuid(70), wa, { events: ['message'], match: 'any' }),
        ],
        { channel: wa, trigger: { events: ['message', 'comment'] } },
      );
      expect(warnings.filter((w) => w.code === 'keyword_collision')).toEqual([
        expect.objectContaining({ workflow_ids: [uuid(70)], keywords: ['oi'] }),
      ]);
    });
  });
});

describe('stages', () => {
  const faultyEverywhere = (nodes: Json, over: Parameters<typeof def>[1] = {}) =>
    def(
      {
        root: root('t'),
        t: { type: 'tags', data: { operation: 'add', tags: ['Nope'], next: ['missing'] } },
        b: buttons([button({ url: '' })]),
        q: { type: 'question', data: { text: 'Age?', answer_type: 'number', answer_field: '', next: [null] } },
        ...nodes,
      },
      over,
    );

  it('a shape error hides outputs, resources and publish rules, not the channel and trigger', async () => {
    const d = faultyEverywhere(
      { x: { type: 'message', data: { text: 'x', next: [null], extra: 1 } } },
      { channel: { type: 'whatsapp', connection_id: null }, trigger: { next_post: true } },
    );
    const lookups = new FakeLookups();
    const { errors, warnings } = await validate(d, SAVED, lookups);
    expect(at(errors)).toEqual([
      'schema_violation nodes.x.data.extra',
      'channel_required channel.connection_id',
      'next_post_without_comment trigger.next_post',
    ]);
    expect(warnings).toEqual([]);
    expect(lookups.count('existingTagNames')).toBe(0);
    expect(lookups.count('workflows')).toBe(0);
    expect(lookups.count('publishedWorkflows')).toBe(0);
  });

  it.each([
    ['graph_too_large', { big: { type: 'comment', data: { text: 'x'.repeat(MAX_GRAPH_BYTES), next: [null] } } }],
    ['node_id_invalid', { Bad: message() }],
    ['root_missing', { root: message('t') }],
  ])('%s hides the later stages too', async (code, nodes) => {
    const { errors, warnings } = await validate(faultyEverywhere(nodes));
    expect(codes(errors)).toEqual([code]);
    expect(warnings).toEqual([]);
  });

  it('without shape errors: outputs, resources, publish rules and warnings together', async () => {
    const { errors, warnings } = await validate(faultyEverywhere({}));
    expect(at(errors)).toEqual([
      'node_not_found nodes.t.data.next[0]',
      'tag_not_found nodes.t.data.tags[0]',
      'link_button_url_empty nodes.b.data.buttons[0].url',
    ]);
    expect(at(warnings)).toEqual(['answer_type_deprecated nodes.q.data.answer_type']);
  });

  it('on the unsaved route a channel problem also hides publish rules; on the saved route it does not', async () => {
    const d = faultyEverywhere({}, { channel: { type: 'instagram', connection_id: uuid(96) } });
    const unsaved = await validate(d, UNSAVED);
    expect(codes(unsaved.errors)).toEqual(['node_not_found', 'tag_not_found', 'channel_not_found']);
    expect(unsaved.warnings).toEqual([]);
    const saved = await validate(d, SAVED);
    expect(codes(saved.errors)).toEqual([
      'node_not_found',
      'tag_not_found',
      'link_button_url_empty',
      'channel_not_found',
    ]);
    expect(codes(saved.warnings)).toEqual(['answer_type_deprecated']);
  });

  it('a trigger problem does not hide publish rules on the unsaved route', async () => {
    const d = faultyEverywhere({}, { trigger: { next_post: true } });
    expect(codes((await validate(d, UNSAVED)).errors)).toContain('link_button_url_empty');
  });
});

describe('compiler errors', () => {
  const faulty = {
    r: randomizer([50, 40]),
    md: { type: 'media', data: { next: [null] } },
    mc: multichannel([channel(WA)], null),
  };

  it('one at a time, from the first faulty block reachable from root, breadth-first in next order', async () => {
    // root → c; c true → r, false → md; r → mc. Breadth-first: c, r, md, mc (ids given in another order).
    const nodes: Json = {
      mc: faulty.mc,
      md: faulty.md,
      r: { ...faulty.r, data: { ...faulty.r.data, next: ['mc', null] } },
      root: root('c'),
      c: {
        type: 'conditional',
        data: { conditions: [{ field_type: 'messaging_window', operator: 'window_open' }], next: ['r', 'md'] },
      },
    };
    const first = await validate(def(nodes));
    expect(at(first.errors)).toEqual(['randomizer_options_invalid nodes.r.data.options']);
    (nodes.r as { data: Json }).data.options = [{ percentage: 60 }, { percentage: 40 }];
    const second = await validate(def(nodes));
    expect(at(second.errors)).toEqual(['media_source_invalid nodes.md.data']);
    nodes.md = { type: 'media', data: { media_url: 'https://x/y.png', next: [null] } };
    const third = await validate(def(nodes));
    expect(at(third.errors)).toEqual(['multichannel_mode_missing nodes.mc.data.mode']);
  });

  it('an unreachable faulty block neither shows nor blocks the reachable one', async () => {
    const unreachableOnly = await validate(def({ root: root('m'), m: message(), md: faulty.md }));
    expect(unreachableOnly.errors).toEqual([]);
    const both = await validate(def({ md: faulty.md, root: root('r'), r: faulty.r }));
    expect(at(both.errors)).toEqual(['randomizer_options_invalid nodes.r.data.options']);
  });

  it.each([
    ['an output error', { m: message('missing') }, {}],
    ['a resource error', { m: { type: 'tags', data: { operation: 'add', tags: ['Nope'], next: [null] } } }, {}],
    ['a trigger error', { m: message() }, { trigger: { next_post: true } }],
    ['a channel error', { m: message() }, { channel: { type: 'whatsapp', connection_id: null } }],
    ['a publish-rule error', { m: buttons([button({ url: '' })]) }, {}],
  ] as const)('do not appear with %s', async (_name, nodes, over) => {
    const d = def(
      { root: root('r'), r: { ...faulty.r, data: { ...faulty.r.data, next: ['m', null] } }, ...nodes },
      over,
    );
    const { errors } = await validate(d);
    expect(errors.length).toBeGreaterThan(0);
    expect(codes(errors)).not.toContain('randomizer_options_invalid');
  });
});

describe('editor-saved drafts and extra next entries', () => {
  const extra = withBlock({ type: 'message', data: { text: 'x', next: [null, null] } });
  const missing = withBlock(buttons([button()], nulls(2)));

  it('extra entries are a warning when saved by the editor', async () => {
    const { errors, warnings } = await validate(extra, { ...SAVED, savedByEditor: true });
    expect(errors).toEqual([]);
    expect(at(warnings)).toEqual(['next_arity_invalid nodes.b.data.next']);
  });

  it('missing entries stay an error when saved by the editor', async () => {
    const { errors, warnings } = await validate(missing, { ...SAVED, savedByEditor: true });
    expect(at(errors)).toEqual(['next_arity_invalid nodes.b.data.next']);
    expect(warnings).toEqual([]);
  });

  it('extra entries are an error otherwise, and on create/update', async () => {
    expect(codes((await validate(extra)).errors)).toEqual(['next_arity_invalid']);
    const problem = await writeProblem(extra, new FakeLookups(), { workflowId: SELF });
    expect(problem?.body().context).toMatchObject({
      code: 'invalid_graph',
      errors: [expect.objectContaining({ code: 'next_arity_invalid' })],
    });
  });
});

describe('size limits', () => {
  /** root → c, a comment whose text makes the graph (positions filled in) exactly `bytes` long. */
  function graphOfSize(bytes: number, positions = false): Json {
    const make = (text: string): Json => {
      const nodes: Json = { root: root('c'), c: { type: 'comment', data: { text, next: [null] } } };
      return positions ? withPositions(nodes) : nodes;
    };
    const base = graphSize(make(''));
    const nodes = make('x'.repeat(bytes - base));
    expect(graphSize(nodes)).toBe(bytes);
    return nodes;
  }

  it('256 KiB is accepted, one byte more is graph_too_large (positions filled in count)', async () => {
    expect(codes((await validate(def(graphOfSize(MAX_GRAPH_BYTES)))).errors)).toEqual([]);
    const over = graphOfSize(MAX_GRAPH_BYTES + 1);
    // Without the positions the service fills in, the JSON would fit.
    expect(Buffer.byteLength(JSON.stringify({ nodes: over }))).toBeLessThanOrEqual(MAX_GRAPH_BYTES);
    expect(at((await validate(def(over))).errors)).toEqual(['graph_too_large nodes']);
    expect(codes((await validate(def(graphOfSize(MAX_GRAPH_BYTES, true)))).errors)).toEqual([]);
    expect(codes((await validate(def(graphOfSize(MAX_GRAPH_BYTES + 1, true)))).errors)).toEqual(['graph_too_large']);
  });

  it('bytes count UTF-8', () => {
    const nodes = { root: root(null) };
    const accented = { root: root(null), c: { type: 'comment', data: { text: 'é', next: [null] } } };
    const plain = { root: root(null), c: { type: 'comment', data: { text: 'e', next: [null] } } };
    expect(graphSize(accented) - graphSize(plain)).toBe(1);
    expect(graphSize(nodes)).toBe(Buffer.byteLength(JSON.stringify({ nodes: withPositions(nodes) })));
  });

  const chain = (count: number): Json => {
    const nodes: Json = { root: root(count > 1 ? 'm1' : null) };
    for (let i = 1; i < count; i++) nodes[`m${i}`] = message(i + 1 < count ? `m${i + 1}` : null);
    return nodes;
  };

  it('500 blocks are accepted, 501 give one graph_too_large', async () => {
    expect(Object.keys(chain(500))).toHaveLength(500);
    expect((await validate(def(chain(500)))).errors).toEqual([]);
    const { errors } = await validate(def(chain(501)));
    expect(errors).toEqual([expect.objectContaining({ code: 'graph_too_large', path: 'nodes', node_id: null })]);
  });
});

describe('unknown types and fields', () => {
  it('an unknown type is one schema_violation at nodes.<id>.type, whatever its data', async () => {
    const { errors } = await validate(withBlock({ type: 'teleport', data: { anything: true, next: [null, 'x'] } }));
    expect(errors).toEqual([expect.objectContaining({ code: 'schema_violation', path: 'nodes.b.type', node_id: 'b' })]);
  });

  it('a field the type does not define is a schema_violation at the field; unsupported keeps any field', async () => {
    expect(
      at((await validate(withBlock({ type: 'sleep', data: { seconds: 5, minutes: 1, next: [null] } }))).errors),
    ).toEqual(['schema_violation nodes.b.data.minutes']);
    expect(
      at((await validate(withBlock({ type: 'sleep', data: { seconds: 5, next: [null] }, color: 'red' }))).errors),
    ).toEqual(['schema_violation nodes.b.color']);
    const unsupported = { type: 'unsupported', data: { next: [null], original: { kind: 'x' } } };
    expect((await validate(withBlock(unsupported))).errors).toEqual([]);
  });

  it('errors refer only to the declared type', async () => {
    // A `message` with buttons' fields: errors are about message fields, never "must match buttons".
    const { errors } = await validate(
      withBlock({ type: 'message', data: { subtitle: 'x', buttons: [], next: [null] } }),
    );
    expect(at(errors)).toEqual([
      'schema_violation nodes.b.data.buttons',
      'schema_violation nodes.b.data.subtitle',
      'schema_violation nodes.b.data.text',
    ]);
  });

  it('an id such as __proto__ is node_id_invalid and stays a key of the graph helpers', async () => {
    const nodes = JSON.parse(
      '{"root": {"type": "root", "data": {"next": [null]}}, "__proto__": {"type": "message", "data": {"text": "x", "next": [null]}}}',
    ) as Json;
    expect(at((await validate(def(nodes))).errors)).toEqual(['node_id_invalid nodes.__proto__']);
    expect(Object.keys(withPositions(nodes))).toEqual(['root', '__proto__']);
    expect(Object.keys(fillNext(nodes))).toEqual(['root', '__proto__']);
  });

  it('nodes that are not an object: one schema_violation at nodes', async () => {
    const d = { ...def({}), nodes: [] as unknown as Json };
    expect(at((await validate(d)).errors)).toEqual(['schema_violation nodes']);
  });
});

describe('lookups', () => {
  it('each method is called at most once, with each value once', async () => {
    const nodes: Json = { root: root('n0') };
    for (let i = 0; i < 40; i++) {
      const next = i < 39 ? `n${i + 1}` : null;
      nodes[`n${i}`] =
        i % 4 === 0
          ? { type: 'tags', data: { operation: 'add', tags: ['VIP', `T${i % 3}`], next: [next] } }
          : i % 4 === 1
            ? { type: 'data', data: { name: i % 2 ? 'email' : 'x', next: [next] } }
            : i % 4 === 2
              ? { type: 'media', data: { upload_id: UPLOAD, next: [next] } }
              : {
                  type: 'buttons',
                  data: {
                    subtitle: 's',
                    buttons: [button({ whatsapp_connection_id: WA }), button({ whatsapp_connection_id: WA_OFF })],
                    next: [null, null, null, next],
                  },
                };
    }
    nodes.s1 = { type: 'start', data: { workflow_id: PUBLISHED_SAME, parallel: true, next: [null] } };
    nodes.s2 = { type: 'start', data: { workflow_id: PUBLISHED_SAME, parallel: true, next: [null] } };
    const lookups = new FakeLookups();
    lookups.published = lookups.all.filter((w) => w.live);
    await validate(def(nodes, { trigger: { events: ['comment', 'message'], replies_list_id: LIST } }), SAVED, lookups);
    for (const name of [
      'existingTagNames',
      'existingCustomFieldKeys',
      'existingUploadIds',
      'connections',
      'connectedInstagram',
      'repliesListExists',
      'workflows',
      'publishedWorkflows',
    ]) {
      expect(lookups.count(name), name).toBe(1);
    }
    expect(lookups.calls.existingTagNames![0]![0]).toEqual(['VIP', 'T0', 'T1', 'T2']);
    expect(lookups.calls.existingUploadIds![0]![0]).toEqual([UPLOAD]);
    expect(lookups.calls.connections![0]![0]).toEqual([WA, WA_OFF]);
    expect(lookups.calls.workflows![0]![0]).toEqual([PUBLISHED_SAME]);
  });

  it('the channel connection and the hand-off numbers share one connections call', async () => {
    const lookups = new FakeLookups();
    const d = withBlock(buttons([button({ whatsapp_connection_id: WA })]), {
      channel: { type: 'instagram', connection_id: IG },
    });
    expect(await validate(d, SAVED, lookups)).toEqual({ errors: [], warnings: [] });
    expect(lookups.calls.connections).toEqual([[[IG, WA]]]);
  });
});

describe('order', () => {
  it('whole graph, then blocks in the order given (then path), then channel, then trigger', async () => {
    const d = def(
      {
        z: { type: 'tags', data: { operation: 'add', tags: ['A', 'B'], next: ['gone'] } },
        root: root('z'),
        a: { type: 'data', data: { name: 'nope', next: [null] } },
      },
      { channel: { type: 'instagram', connection_id: WA }, trigger: { next_post: true } },
    );
    const { errors } = await validate(d);
    expect(at(errors)).toEqual([
      'node_not_found nodes.z.data.next[0]',
      'tag_not_found nodes.z.data.tags[0]',
      'tag_not_found nodes.z.data.tags[1]',
      'custom_field_not_found nodes.a.data.name',
      'channel_type_mismatch channel.connection_id',
      'next_post_without_comment trigger.next_post',
    ]);
    expect(await validate(d)).toEqual(await validate(d));
  });

  it('indexes compare as numbers', async () => {
    const tags = Array.from({ length: 12 }, (_, i) => `X${i}`);
    const { errors } = await validate(withBlock({ type: 'tags', data: { operation: 'add', tags, next: [null] } }));
    expect(errors.map((e) => e.path)).toEqual(tags.map((_, i) => `nodes.b.data.tags[${i}]`));
  });
});

describe('writeProblem (create and update)', () => {
  const lookups = () => new FakeLookups();
  const body = async (d: DefinitionToCheck) => (await writeProblem(d, lookups(), { workflowId: null }))?.body();

  it('channel first, with its reason', async () => {
    const d = withBlock(message('missing'), {
      channel: { type: 'whatsapp', connection_id: null },
      trigger: { next_post: true },
    });
    const problem = await writeProblem(d, lookups(), { workflowId: null });
    expect(problem?.status).toBe(422);
    expect(problem?.body().context).toEqual({ code: 'invalid_channel', reason: 'required' });
    const notFound = withBlock(message(), { channel: { type: 'whatsapp', connection_id: uuid(96) } });
    expect((await body(notFound))?.context).toEqual({ code: 'invalid_channel', reason: 'not_found' });
    const mismatch = withBlock(message(), { channel: { type: 'whatsapp', connection_id: IG } });
    expect((await body(mismatch))?.context).toEqual({ code: 'invalid_channel', reason: 'type_mismatch' });
  });

  it('then the trigger, one code at a time', async () => {
    const d = withBlock(message('missing'), {
      trigger: { events: ['message'], next_post: true, posts: [{ type: 'feed', id: 'p' }] },
    });
    expect((await body(d))?.context).toEqual({ code: 'invalid_trigger', reason: 'posts_without_event' });
  });

  it('then the graph: shape, outputs and resources, with node_id and path', async () => {
    const d = def({
      root: root('t'),
      t: { type: 'tags', data: { operation: 'add', tags: ['Nope'], next: ['gone'] } },
      u: { type: 'media', data: { upload_id: uuid(99), next: [null] } },
    });
    expect((await body(d))?.context).toEqual({
      code: 'invalid_graph',
      errors: [
        expect.objectContaining({ code: 'node_not_found', node_id: 't', path: 'nodes.t.data.next[0]' }),
        expect.objectContaining({ code: 'tag_not_found', node_id: 't', path: 'nodes.t.data.tags[0]' }),
        expect.objectContaining({ code: 'upload_not_found', node_id: 'u', path: 'nodes.u.data.upload_id' }),
      ],
    });
    const shape = await body(withBlock({ type: 'message', data: { next: [null] } }));
    expect(shape?.context).toMatchObject({
      code: 'invalid_graph',
      errors: [expect.objectContaining({ code: 'schema_violation' })],
    });
  });

  it('does not check compiler codes, publish rules or warnings', async () => {
    const d = def(
      {
        root: root('r'),
        r: randomizer([10, 10], ['b', null]),
        b: buttons([button({ url: '' }), button({ id: 'b2', whatsapp_connection_id: WA_OFF })]),
        q: { type: 'question', data: { text: 'Age?', answer_type: 'number', answer_field: '', next: [null] } },
        s: { type: 'start', data: { workflow_id: uuid(90), parallel: true, next: [null] } },
      },
      { trigger: { match: 'equals', keywords: [] } },
    );
    const l = lookups();
    expect(await writeProblem(d, l, { workflowId: null })).toBeNull();
    expect(l.count('workflows') + l.count('publishedWorkflows') + l.count('connectedInstagram')).toBe(0);
  });
});

describe('the block table and the catalog', () => {
  it('the table covers exactly the catalog block types', () => {
    expect(Object.keys(BLOCK_TYPES).sort()).toEqual(Object.keys(catalogDocument.$defs as Json).sort());
    expect(catalogVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it.each([
    ['buttons', { next: [] }, 4],
    ['cards', { next: [] }, 31],
    ['conditional', {}, 2],
    ['invoke', {}, 2],
    ['randomizer', { options: [{}, {}, {}] }, 3],
    ['multichannel', { channels: [{}, {}] }, 3],
    ['blank', {}, 1],
    ['message', {}, 1],
    ['randomizer', {}, null],
    ['teleport', {}, null],
  ] as const)('%s %j has %s outputs', (type, data, count) => {
    expect(outputCount({ type, data })).toBe(count);
  });

  it('catalogIssues maps the catalog-encoded rules to their codes, not schema_violation', () => {
    const issues = catalogIssues({
      root: root('r'),
      r: randomizer([-5, 105]),
      mc: {
        type: 'multichannel',
        data: { channels: [{ provider: 'whatsapp', connection_id: '' }], next: [null, null] },
      },
      c: conditional([{ field_type: 'tag', operator: 'has_tag' }]),
      b: buttons([button({ url: '' })]),
      m: { type: 'message', data: { text: 'x', next: [] } },
      'Bad-Id': message(),
    });
    expect(at(issues as ValidationIssue[]).sort()).toEqual(
      [
        'conditional_incomplete nodes.c.data.conditions[0].field_name',
        'link_button_url_empty nodes.b.data.buttons[0].url',
        'multichannel_channels_invalid nodes.mc.data.channels[0].connection_id',
        'multichannel_mode_missing nodes.mc.data.mode',
        'next_arity_invalid nodes.m.data.next',
        'node_id_invalid nodes.Bad-Id',
        'randomizer_options_invalid nodes.r.data.options[0].percentage',
      ].sort(),
    );
  });
});

describe('graph helpers', () => {
  it('fillNext pads with null up to the output count, never cuts, leaves unknown types alone', () => {
    const nodes: Json = {
      root: root('b'),
      b: buttons([button()], ['m']),
      m: { type: 'message', data: { text: 'x', next: [null, 'b'] } },
      r: randomizer([50, 50], []),
      u: { type: 'teleport', data: { next: [] } },
      k: { type: 'blank', data: {} },
    };
    const filled = fillNext(nodes);
    expect((filled.b as { data: Json }).data.next).toEqual(['m', null, null, null]);
    expect((filled.m as { data: Json }).data.next).toEqual([null, 'b']);
    expect((filled.r as { data: Json }).data.next).toEqual([null, null]);
    expect(filled.u).toBe(nodes.u);
    expect(filled.k).toBe(nodes.k);
    expect((nodes.b as { data: Json }).data.next).toEqual(['m']); // not mutated
  });

  it('positions: computed by depth from root, deterministic, sent ones kept', () => {
    const nodes: Json = {
      lost: message(),
      root: root('a'),
      a: { type: 'conditional', data: { conditions: [], next: ['b', 'c'] } },
      b: message(),
      c: { ...message(), position: { x: 7, y: 9 } },
    };
    const p = layout(nodes);
    expect(p.get('root')).toEqual({ x: 0, y: 0 });
    expect(p.get('a')).toEqual({ x: 320, y: 0 });
    expect(p.get('b')).toEqual({ x: 640, y: 0 });
    expect(p.get('c')).toEqual({ x: 640, y: 160 });
    expect(p.get('lost')).toEqual({ x: 960, y: 0 });
    const placed = withPositions(nodes);
    expect((placed.c as Json).position).toEqual({ x: 7, y: 9 });
    expect((placed.b as Json).position).toEqual({ x: 640, y: 0 });
    expect(withPositions(nodes)).toEqual(placed);
    expect(nodes.b).not.toHaveProperty('position');
  });
});
