// The automation block catalog (spec/catalog/graph-nodes.schema.json): it compiles in Ajv's strict mode, it is
// in sync with its source, it covers every block type of Part B, and each block type accepts a valid block and
// refuses each limit with exactly one error at the field (besides the validator's wrapper errors).
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { buildCatalog, readCatalogVersion } from '../scripts/build-catalog.js';
import catalogExamples, { catalogGraphs, type GraphNodes } from '../scripts/examples/catalog.js';
import { buildWorld, makeFaker } from '../scripts/examples/world.js';
import { seedList } from './helpers.js';

type Json = Record<string, unknown>;
type Block = { type: string; data: Json; [k: string]: unknown };

const catalog = JSON.parse(
  readFileSync(new URL('../spec/catalog/graph-nodes.schema.json', import.meta.url), 'utf8'),
) as Json;
const seedBlockTypes = seedList('block-types.txt');

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(catalog);

/** The real errors: the validator's wrappers (`if` around a `then`, `propertyNames` around its keyword) dropped. */
function errorsOf(nodes: unknown): string[] {
  if (validate(nodes)) return [];
  return (validate.errors ?? [])
    .filter((e: ErrorObject) => e.keyword !== 'if' && e.keyword !== 'propertyNames')
    .map((e: ErrorObject) => `${e.instancePath} ${e.keyword}`);
}

const UUID = '7d9f3c52-1b8e-4f6a-9c0d-2e5b7a1f4c83';
const s = (n: number) => 'x'.repeat(n);
const nulls = (n: number) => Array.from({ length: n }, () => null);
const rootTo = (next: string | null = null): Block => ({ type: 'root', data: { next: [next] } });
/** A graph with a root and block `b` (or with `b` as the root, for a root block). */
const withBlock = (b: Block): Json => (b.type === 'root' ? { root: b } : { root: rootTo('b'), b });
/** An expected error of block `b`, placed at `root` for a root block. */
const at = (type: string, error: string): string => (type === 'root' ? error.replace(/^\/b\//, '/root/') : error);
const clone = (b: Block | undefined): Block => structuredClone(b!);

/** A valid block of each type. */
const valid: Record<string, Block> = {
  root: rootTo(),
  message: { type: 'message', data: { text: 'Hi {contact.first_name}!', next: [null] } },
  question: {
    type: 'question',
    data: { text: 'Your e-mail?', answer_type: 'any', answer_field: 'email', next: [null] },
  },
  media: { type: 'media', data: { upload_id: UUID, next: [null] } },
  buttons: {
    type: 'buttons',
    data: {
      subtitle: 'Pick one',
      buttons: [
        { id: 'b1', title: 'Offers', url: 'https://shop.example.com' },
        { title: 'Coupon' },
        { id: 'b3', title: 'WhatsApp', whatsapp_connection_id: UUID, whatsapp_message: 'Hi!' },
      ],
      next: [null, null, null, null],
    },
  },
  cards: {
    type: 'cards',
    data: {
      caption: 'Best sellers',
      cards: [
        {
          title: 'Shoe',
          subtitle: 'R$ 299',
          upload_id: UUID,
          buttons: [{ id: 'c1', title: 'Buy', url: 'https://s.example' }],
        },
      ],
      next: nulls(31),
    },
  },
  tags: { type: 'tags', data: { operation: 'add', tags: ['VIP'], next: [null] } },
  data: { type: 'data', data: { name: 'email', value: '$input', next: [null] } },
  math: {
    type: 'math',
    data: {
      result_field: 'pedidos',
      operand_a: { type: 'field', value: 'pedidos' },
      operand_b: { type: 'constant', value: '1.5' },
      operator: 'pct_add',
      next: [null],
    },
  },
  conditional: {
    type: 'conditional',
    data: {
      conditions: [
        { field_type: 'tag', field_name: 'VIP', operator: 'has_tag' },
        { field_type: 'score', operator: 'field_between', value: '10,20' },
        { field_type: 'variable', field_name: 'system.current_time', operator: 'time_between', value: '22:00,06:00' },
        { field_type: 'messaging_window', operator: 'window_open' },
      ],
      combinator: 'or',
      next: [null, null],
    },
  },
  randomizer: {
    type: 'randomizer',
    data: { options: [{ id: 'a', percentage: 50 }, { percentage: 50 }], next: [null, null] },
  },
  sleep: { type: 'sleep', data: { seconds: 82800, next: [null] } },
  start: { type: 'start', data: { workflow_id: UUID, parallel: true, delay_seconds: 0, next: [null] } },
  invoke: {
    type: 'invoke',
    data: {
      method: 'POST',
      endpoint: 'https://crm.example.com/leads',
      headers: [{ name: 'Authorization', value: 'Bearer {secret.crm}' }],
      data: '{"email": "{email}"}',
      fields: [{ path: '$.plan', name: 'plano' }],
      next: [null, null],
    },
  },
  sheets: {
    type: 'sheets',
    data: {
      sheets_external_id: 'acct_1',
      spreadsheet_id: 'sheet_1',
      tab_title: 'Leads',
      operation: 'upsert',
      match: [{ column: 'Email', value: '{email}' }],
      values: { Email: '{email}', When: '$timestamp' },
      next: [null],
    },
  },
  multichannel: {
    type: 'multichannel',
    data: { mode: 'first', channels: [{ id: 'c', provider: 'whatsapp', connection_id: UUID }], next: [null, null] },
  },
  'pause-automations': { type: 'pause-automations', data: { minutes: 52034400, next: [null] } },
  comment: { type: 'comment', data: { text: 'Note', next: [null] } },
  blank: { type: 'blank', data: {} },
  unsupported: { type: 'unsupported', data: { next: [null], anything: { from: 'another tool' } } },
};

describe('the catalog document', () => {
  it('compiles in Ajv strict mode (draft 2020-12, formats)', () => {
    expect(typeof validate).toBe('function');
    expect(catalog.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(catalog.$id).toMatch(/^https:\/\//);
    expect(catalog.title).toBeTruthy();
    expect(String(catalog.description).length).toBeGreaterThan(200);
  });

  it('is the build of its source (run `npm run generate` after editing the source)', () => {
    expect(catalog).toEqual(buildCatalog());
  });

  it('carries its catalog_version', () => {
    const version = readCatalogVersion();
    expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(catalog.$comment).toContain(`catalog_version ${version}`);
  });

  it('has one $defs entry per block type of Part B, and the type enum lists exactly them', () => {
    const defs = catalog.$defs as Record<string, Json>;
    expect(Object.keys(defs).sort()).toEqual([...seedBlockTypes].sort());
    const block = catalog.additionalProperties as { properties: { type: { enum: string[] } }; allOf: unknown[] };
    expect([...block.properties.type.enum].sort()).toEqual([...seedBlockTypes].sort());
    expect(block.allOf).toHaveLength(seedBlockTypes.length);
  });

  it('holds no $ref, so it can be embedded in the OpenAPI example and validated without a resolver', () => {
    expect(JSON.stringify(catalog)).not.toContain('"$ref"');
  });

  it('describes every block and every data field', () => {
    const missing: string[] = [];
    const walk = (schema: unknown, path: string): void => {
      if (!schema || typeof schema !== 'object') return;
      const node = schema as Json;
      const props = node.properties as Record<string, Json> | undefined;
      for (const [name, sub] of Object.entries(props ?? {})) {
        const here = `${path}.${name}`;
        // The block's own `type` (a const) and `data` (described by the block) need no description.
        if (typeof sub === 'object' && !('const' in sub) && name !== 'data' && !sub.description) missing.push(here);
        walk(sub, here);
      }
      if (node.items) walk(node.items, `${path}[]`);
    };
    for (const [type, def] of Object.entries(catalog.$defs as Record<string, Json>)) {
      if (!def.description) missing.push(type);
      walk(def, type);
    }
    walk(catalog.additionalProperties, 'block');
    expect(missing).toEqual([]);
  });

  it('names every variable of Part B, with $input and $timestamp', () => {
    const description = String(catalog.description);
    const variables = [
      'contact.id',
      'contact.name',
      'contact.first_name',
      'contact.alias',
      'contact.score',
      'contact.is_verified',
      'contact.follower_count',
      'contact.picture_url',
      'contact.picture_url_base64',
      'contact.tags',
      'message.trigger',
      'message.last_contact',
      'message.last_sender',
      'message.interaction_type',
      'message.post_id',
      'message.post_url',
      'message.collaborator_email',
      'conversation.last_30m',
      'conversation.last_1h',
      'conversation.last_24h',
      'system.current_date',
      'system.current_time',
      'system.current_datetime',
      'account.<name>',
      'secret.<name>',
      '$input',
      '$timestamp',
    ];
    expect(variables.filter((v) => !description.includes(`\`${v}\``))).toEqual([]);
  });

  it('validates its own examples', () => {
    for (const example of catalog.examples as unknown[]) expect(errorsOf(example)).toEqual([]);
  });

  it('is what the example of GET /v1/workflow-graph-schema serves', () => {
    const world = buildWorld();
    const set = catalogExamples(world, makeFaker(1));
    expect(set.WorkflowGraphSchema?.value).toEqual({ schema: catalog, catalog_version: readCatalogVersion() });
  });
});

describe('graph.nodes', () => {
  it('accepts valid block ids and refuses the others (node_id_invalid)', () => {
    for (const id of ['pedir_email', 'passo2', 'a', '2', 'passo_2_b', s(64)]) {
      expect(errorsOf({ root: rootTo(), [id]: clone(valid.message) }), id).toEqual([]);
    }
    for (const id of [
      'pedirEmail',
      'pedir-email',
      '_pedir',
      'pedir__email',
      'pedir_',
      'Pedir',
      'pedir email',
      '',
      s(65),
    ]) {
      const errors = errorsOf({ root: rootTo(), [id]: clone(valid.message) });
      expect(errors.length, id).toBeGreaterThan(0);
      expect(
        errors.every((e) => e === ' pattern' || e === ' maxLength'),
        `${id}: ${errors.join(', ')}`,
      ).toBe(true);
    }
  });

  it('accepts 500 blocks and refuses 501 (graph_too_large)', () => {
    const nodes: Json = { root: rootTo() };
    for (let i = 1; i < 500; i += 1) nodes[`passo${i}`] = clone(valid.comment);
    expect(errorsOf(nodes)).toEqual([]);
    nodes.passo500 = clone(valid.comment);
    expect(errorsOf(nodes)).toEqual([' maxProperties']);
  });

  it('needs the root block (root_missing) and allows type root only there', () => {
    expect(errorsOf({ inicio: clone(valid.message) })).toEqual([' required']);
    expect(errorsOf({ root: clone(valid.message) })).toEqual(['/root/type const']);
    expect(errorsOf({ root: rootTo(), outro: rootTo() })).toEqual(['/outro/type not']);
  });

  it('gives one error at <id>.type for an unknown type, whatever its data', () => {
    expect(errorsOf(withBlock({ type: 'gif', data: { anything: 1 } }))).toEqual(['/b/type enum']);
    expect(errorsOf(withBlock({ type: 'Message', data: { text: 1 } }))).toEqual(['/b/type enum']);
    expect(errorsOf(withBlock({ type: 5 as unknown as string, data: {} }))).toEqual(['/b/type enum']);
  });

  it('checks a block only against the type it declares', () => {
    // A message block carrying button fields: errors name message's own rules, never another type's.
    expect(errorsOf(withBlock({ type: 'message', data: { subtitle: 'x', next: [null] } }))).toEqual([
      '/b/data required',
      '/b/data additionalProperties',
    ]);
  });

  it('checks the block envelope: type and data required, position {x, y}, editor-only fields, nothing else', () => {
    const b = { ...clone(valid.media), position: { x: 10.5, y: -20 }, group_id: 'grp_1', media_kind: 'image' };
    expect(errorsOf(withBlock(b))).toEqual([]);
    expect(errorsOf(withBlock({ ...clone(valid.media), group_id: null, media_kind: null }))).toEqual([]);
    expect(errorsOf(withBlock({ ...clone(valid.media), position: { x: 1 } }))).toEqual(['/b/position required']);
    expect(errorsOf(withBlock({ ...clone(valid.media), position: { x: '1', y: 2 } }))).toEqual(['/b/position/x type']);
    expect(errorsOf(withBlock({ ...clone(valid.media), color: 'red' }))).toEqual(['/b additionalProperties']);
    expect(errorsOf(withBlock({ type: 'media' } as Block))).toEqual(['/b required']);
    expect(errorsOf({ root: rootTo(), b: 'message' })).toEqual(['/b type', '/b type']);
  });

  it('accepts the sample graphs, which use every block type', () => {
    const graphs = catalogGraphs(buildWorld());
    for (const [name, nodes] of Object.entries(graphs)) expect(errorsOf(nodes), name).toEqual([]);
    const used = new Set(Object.values(graphs.blackFriday as GraphNodes).map((b) => b.type));
    expect([...used].sort()).toEqual([...seedBlockTypes].sort());
  });
});

describe('each block type', () => {
  it.each(seedBlockTypes)('%s: a valid block passes', (type) => {
    expect(valid[type], `no valid ${type} block in the test`).toBeDefined();
    expect(errorsOf(withBlock(clone(valid[type]!)))).toEqual([]);
  });

  it.each(seedBlockTypes.filter((t) => t !== 'unsupported'))('%s: an extra data field is refused', (type) => {
    const b = clone(valid[type]!);
    b.data.extra_field = 'x';
    expect(errorsOf(withBlock(b))).toEqual([at(type, '/b/data additionalProperties')]);
  });

  // [case, type, change of the valid block, the one expected error ('' when the catalog accepts it)]
  const cases: [string, string, (d: Json) => void, string][] = [
    ['root: no next', 'root', (d) => delete d.next, '/b/data required'],
    ['root: next []', 'root', (d) => (d.next = []), '/b/data/next minItems'],
    ['root: 2 next', 'root', (d) => (d.next = [null, null]), '/b/data/next maxItems'],
    ['root: next not string', 'root', (d) => (d.next = [3]), '/b/data/next/0 type'],
    ['message: 4096 chars', 'message', (d) => (d.text = s(4096)), ''],
    ['message: 4096 emoji (characters, not bytes)', 'message', (d) => (d.text = '😀'.repeat(4096)), ''],
    ['message: 4097 chars', 'message', (d) => (d.text = s(4097)), '/b/data/text maxLength'],
    ['message: empty text (minimum not checked)', 'message', (d) => (d.text = ''), ''],
    ['message: no text', 'message', (d) => delete d.text, '/b/data required'],
    ['message: text not a string', 'message', (d) => (d.text = 42), '/b/data/text type'],
    ['message: next []', 'message', (d) => (d.next = []), '/b/data/next minItems'],
    ['message: 2 next', 'message', (d) => (d.next = ['a', null]), '/b/data/next maxItems'],
    ['question: long text (maximum not checked)', 'question', (d) => (d.text = s(5000)), ''],
    ['question: obsolete number', 'question', (d) => (d.answer_type = 'number'), ''],
    ['question: unknown answer_type', 'question', (d) => (d.answer_type = 'email'), '/b/data/answer_type enum'],
    ['question: answer not saved', 'question', (d) => (d.answer_field = ''), ''],
    ['question: no answer_field', 'question', (d) => delete d.answer_field, '/b/data required'],
    ['media: url source', 'media', (d) => (delete d.upload_id, (d.media_url = 'https://x.example/{id}.png')), ''],
    ['media: neither source (validation rule)', 'media', (d) => delete d.upload_id, ''],
    ['media: upload_id not a uuid', 'media', (d) => (d.upload_id = 'file-1'), '/b/data/upload_id format'],
    ['buttons: no buttons', 'buttons', (d) => (d.buttons = []), ''],
    [
      'buttons: 4 buttons',
      'buttons',
      (d) => (d.buttons = [1, 2, 3, 4].map((i) => ({ title: `B${i}` }))),
      '/b/data/buttons maxItems',
    ],
    ['buttons: subtitle 4097', 'buttons', (d) => (d.subtitle = s(4097)), '/b/data/subtitle maxLength'],
    ['buttons: empty title (minimum not checked)', 'buttons', (d) => ((d.buttons as Json[])[1]!.title = ''), ''],
    [
      'buttons: title 21',
      'buttons',
      (d) => ((d.buttons as Json[])[1]!.title = s(21)),
      '/b/data/buttons/1/title maxLength',
    ],
    [
      'buttons: button without title',
      'buttons',
      (d) => delete (d.buttons as Json[])[1]!.title,
      '/b/data/buttons/1 required',
    ],
    [
      'buttons: url not http',
      'buttons',
      (d) => ((d.buttons as Json[])[0]!.url = 'ftp://x.example'),
      '/b/data/buttons/0/url pattern',
    ],
    [
      'buttons: empty url (link_button_url_empty)',
      'buttons',
      (d) => ((d.buttons as Json[])[0]!.url = ''),
      '/b/data/buttons/0/url pattern',
    ],
    ['buttons: whatsapp_message 300', 'buttons', (d) => ((d.buttons as Json[])[2]!.whatsapp_message = s(300)), ''],
    [
      'buttons: whatsapp_message 301',
      'buttons',
      (d) => ((d.buttons as Json[])[2]!.whatsapp_message = s(301)),
      '/b/data/buttons/2/whatsapp_message maxLength',
    ],
    [
      'buttons: connection not a uuid',
      'buttons',
      (d) => ((d.buttons as Json[])[2]!.whatsapp_connection_id = 'wa'),
      '/b/data/buttons/2/whatsapp_connection_id format',
    ],
    [
      'buttons: unknown button field',
      'buttons',
      (d) => ((d.buttons as Json[])[0]!.color = 'red'),
      '/b/data/buttons/0 additionalProperties',
    ],
    ['buttons: 3 next', 'buttons', (d) => (d.next = nulls(3)), '/b/data/next minItems'],
    ['buttons: 5 next', 'buttons', (d) => (d.next = nulls(5)), '/b/data/next maxItems'],
    ['cards: no caption', 'cards', (d) => delete d.caption, ''],
    ['cards: caption 4097', 'cards', (d) => (d.caption = s(4097)), '/b/data/caption maxLength'],
    ['cards: 0 cards', 'cards', (d) => (d.cards = []), '/b/data/cards minItems'],
    [
      'cards: 10 cards',
      'cards',
      (d) => (d.cards = nulls(10).map(() => ({ title: 't', subtitle: 's', buttons: [] }))),
      '',
    ],
    [
      'cards: 11 cards',
      'cards',
      (d) => (d.cards = nulls(11).map(() => ({ title: 't', subtitle: 's', buttons: [] }))),
      '/b/data/cards maxItems',
    ],
    ['cards: title 81', 'cards', (d) => ((d.cards as Json[])[0]!.title = s(81)), '/b/data/cards/0/title maxLength'],
    [
      'cards: subtitle 81',
      'cards',
      (d) => ((d.cards as Json[])[0]!.subtitle = s(81)),
      '/b/data/cards/0/subtitle maxLength',
    ],
    [
      'cards: 4 buttons',
      'cards',
      (d) => ((d.cards as Json[])[0]!.buttons = nulls(4).map(() => ({ title: 'b' }))),
      '/b/data/cards/0/buttons maxItems',
    ],
    ['cards: 30 next', 'cards', (d) => (d.next = nulls(30)), '/b/data/next minItems'],
    ['cards: 32 next', 'cards', (d) => (d.next = nulls(32)), '/b/data/next maxItems'],
    ['tags: remove', 'tags', (d) => (d.operation = 'remove'), ''],
    ['tags: unknown operation', 'tags', (d) => (d.operation = 'toggle'), '/b/data/operation enum'],
    ['tags: tags not a list', 'tags', (d) => (d.tags = 'VIP'), '/b/data/tags type'],
    ['data: no value (clears)', 'data', (d) => delete d.value, ''],
    ['data: name 51', 'data', (d) => (d.name = s(51)), '/b/data/name maxLength'],
    ['data: value 100', 'data', (d) => (d.value = s(100)), ''],
    ['data: value 101', 'data', (d) => (d.value = s(101)), '/b/data/value maxLength'],
    ['math: unquoted number', 'math', (d) => ((d.operand_b as Json).value = 1.5), '/b/data/operand_b/value type'],
    [
      'math: unknown operand type',
      'math',
      (d) => ((d.operand_a as Json).type = 'number'),
      '/b/data/operand_a/type enum',
    ],
    ['math: unknown operator', 'math', (d) => (d.operator = 'pow'), '/b/data/operator enum'],
    ['math: result_field 51', 'math', (d) => (d.result_field = s(51)), '/b/data/result_field maxLength'],
    ['math: no operand_b', 'math', (d) => delete d.operand_b, '/b/data required'],
    ['conditional: 1 next', 'conditional', (d) => (d.next = [null]), '/b/data/next minItems'],
    ['conditional: 3 next', 'conditional', (d) => (d.next = nulls(3)), '/b/data/next maxItems'],
    ['conditional: unknown combinator', 'conditional', (d) => (d.combinator = 'xor'), '/b/data/combinator enum'],
    [
      'conditional: unknown field_type',
      'conditional',
      (d) => ((d.conditions as Json[])[0]!.field_type = 'email'),
      '/b/data/conditions/0/field_type enum',
    ],
    [
      'conditional: operator of another field_type',
      'conditional',
      (d) => ((d.conditions as Json[])[0]!.operator = 'field_equals'),
      '/b/data/conditions/0/operator enum',
    ],
    [
      'conditional: no operator (conditional_incomplete)',
      'conditional',
      (d) => delete (d.conditions as Json[])[3]!.operator,
      '/b/data/conditions/3 required',
    ],
    [
      'conditional: tag without field_name',
      'conditional',
      (d) => delete (d.conditions as Json[])[0]!.field_name,
      '/b/data/conditions/0 required',
    ],
    [
      'conditional: numeric value',
      'conditional',
      (d) => ((d.conditions as Json[])[1]!.value = 10),
      '/b/data/conditions/1/value type',
    ],
    [
      'conditional: old one-condition form',
      'conditional',
      (d) => (delete d.conditions, Object.assign(d, { field_type: 'tag', field_name: 'VIP', operator: 'has_tag' })),
      '',
    ],
    [
      'randomizer: 1 option',
      'randomizer',
      (d) => ((d.options = [{ percentage: 100 }]), (d.next = [null])),
      '/b/data/options minItems',
    ],
    ['randomizer: 20 options', 'randomizer', (d) => (d.options = nulls(20).map(() => ({ percentage: 5 }))), ''],
    [
      'randomizer: 21 options',
      'randomizer',
      (d) => (d.options = nulls(21).map(() => ({ percentage: 1 }))),
      '/b/data/options maxItems',
    ],
    [
      'randomizer: negative percentage',
      'randomizer',
      (d) => ((d.options as Json[])[0]!.percentage = -1),
      '/b/data/options/0/percentage minimum',
    ],
    ['randomizer: sum not 100 (validation rule)', 'randomizer', (d) => ((d.options as Json[])[0]!.percentage = 10), ''],
    ['sleep: 0 seconds', 'sleep', (d) => (d.seconds = 0), '/b/data/seconds minimum'],
    ['sleep: 82801 seconds', 'sleep', (d) => (d.seconds = 82801), '/b/data/seconds maximum'],
    ['sleep: fractional seconds', 'sleep', (d) => (d.seconds = 1.5), '/b/data/seconds type'],
    ['start: no delay', 'start', (d) => delete d.delay_seconds, ''],
    ['start: delay 82801', 'start', (d) => (d.delay_seconds = 82801), '/b/data/delay_seconds maximum'],
    ['start: negative delay', 'start', (d) => (d.delay_seconds = -1), '/b/data/delay_seconds minimum'],
    ['start: workflow_id not a uuid', 'start', (d) => (d.workflow_id = 'wf_1'), '/b/data/workflow_id format'],
    ['start: no parallel', 'start', (d) => delete d.parallel, '/b/data required'],
    ['invoke: minimal', 'invoke', (d) => (delete d.headers, delete d.data, delete d.fields), ''],
    ['invoke: unknown method', 'invoke', (d) => (d.method = 'FETCH'), '/b/data/method enum'],
    [
      'invoke: empty header name',
      'invoke',
      (d) => ((d.headers as Json[])[0]!.name = ''),
      '/b/data/headers/0/name minLength',
    ],
    [
      'invoke: header name 101',
      'invoke',
      (d) => ((d.headers as Json[])[0]!.name = s(101)),
      '/b/data/headers/0/name maxLength',
    ],
    [
      'invoke: empty header value',
      'invoke',
      (d) => ((d.headers as Json[])[0]!.value = ''),
      '/b/data/headers/0/value minLength',
    ],
    [
      'invoke: header value 1001',
      'invoke',
      (d) => ((d.headers as Json[])[0]!.value = s(1001)),
      '/b/data/headers/0/value maxLength',
    ],
    [
      'invoke: empty field path',
      'invoke',
      (d) => ((d.fields as Json[])[0]!.path = ''),
      '/b/data/fields/0/path minLength',
    ],
    [
      'invoke: field path 501',
      'invoke',
      (d) => ((d.fields as Json[])[0]!.path = s(501)),
      '/b/data/fields/0/path maxLength',
    ],
    [
      'invoke: field name 51',
      'invoke',
      (d) => ((d.fields as Json[])[0]!.name = s(51)),
      '/b/data/fields/0/name maxLength',
    ],
    ['invoke: 1 next', 'invoke', (d) => (d.next = [null]), '/b/data/next minItems'],
    ['sheets: number value (fails at run time)', 'sheets', (d) => ((d.values as Json).Total = 10), ''],
    ['sheets: unknown operation', 'sheets', (d) => (d.operation = 'insert'), '/b/data/operation enum'],
    ['sheets: match without value', 'sheets', (d) => delete (d.match as Json[])[0]!.value, '/b/data/match/0 required'],
    ['sheets: no tab_title', 'sheets', (d) => delete d.tab_title, '/b/data required'],
    ['multichannel: no mode', 'multichannel', (d) => delete d.mode, '/b/data required'],
    ['multichannel: unknown mode', 'multichannel', (d) => (d.mode = 'any'), '/b/data/mode enum'],
    ['multichannel: no channels', 'multichannel', (d) => (d.channels = []), '/b/data/channels minItems'],
    [
      'multichannel: 11 channels',
      'multichannel',
      (d) => (d.channels = nulls(11).map(() => ({ provider: 'whatsapp', connection_id: UUID }))),
      '/b/data/channels maxItems',
    ],
    [
      'multichannel: unknown provider',
      'multichannel',
      (d) => ((d.channels as Json[])[0]!.provider = 'telegram'),
      '/b/data/channels/0/provider enum',
    ],
    [
      'multichannel: empty connection_id',
      'multichannel',
      (d) => ((d.channels as Json[])[0]!.connection_id = ''),
      '/b/data/channels/0/connection_id minLength',
    ],
    ['pause-automations: 0 minutes', 'pause-automations', (d) => (d.minutes = 0), '/b/data/minutes minimum'],
    [
      'pause-automations: 52034401 minutes',
      'pause-automations',
      (d) => (d.minutes = 52034401),
      '/b/data/minutes maximum',
    ],
    ['pause-automations: a next block', 'pause-automations', (d) => (d.next = ['b']), '/b/data/next/0 type'],
    ['pause-automations: next []', 'pause-automations', (d) => (d.next = []), '/b/data/next minItems'],
    ['comment: no text', 'comment', (d) => delete d.text, ''],
    ['blank: next [] (a block without output omits next)', 'blank', (d) => (d.next = []), '/b/data/next minItems'],
    ['blank: 1 null next', 'blank', (d) => (d.next = [null]), ''],
    ['blank: 1 next', 'blank', (d) => (d.next = ['root']), ''],
    ['blank: 2 next', 'blank', (d) => (d.next = [null, null]), '/b/data/next maxItems'],
    ['unsupported: no next', 'unsupported', (d) => delete d.next, '/b/data required'],
    ['unsupported: 2 next', 'unsupported', (d) => (d.next = [null, null]), '/b/data/next maxItems'],
  ];

  it.each(cases)('%s', (_name, type, change, expected) => {
    const b = clone(valid[type]!);
    change(b.data);
    expect(errorsOf(withBlock(b))).toEqual(expected ? [at(type, expected)] : []);
  });
});
