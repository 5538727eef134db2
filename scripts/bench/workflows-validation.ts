// `npm run bench:validation`: staged validation (server/domain/workflows/validation.ts) of a valid 500-block
// automation graph, the Part B maximum, with many account references: tags, custom fields (data, question,
// math, invoke, conditions), uploads (media, cards), whatsapp hand-off buttons, `start` blocks, randomizers,
// multichannel blocks; every block without a position, so the 256 KiB check lays the graph out each time.
// The account is an in-memory fake AccountLookups (the database is not measured: each lookup is one batch query
// in ./lookups.ts), with 50 published automations for the keyword-collision check.
//
// Prints p50/p99 of `validateDefinition` (saved route, the most work: every stage and warning) and of
// `writeProblem` (what create/update run) over --runs N (200) runs after a warm-up. Goal: p50 ≤ 10 ms.
import { performance } from 'node:perf_hooks';
import { graphSize } from '../../server/domain/workflows/graph.js';
import { validateDefinition, writeProblem } from '../../server/domain/workflows/validation.js';
import type {
  AccountLookups,
  ChannelType,
  DefinitionToCheck,
  OtherWorkflow,
} from '../../server/domain/workflows/validation-types.js';
import { argInt, ms, quantile, table } from './common.js';

const runs = argInt('runs', 200);
const uuid = (n: number) => `7d9f3c52-1b8e-4f6a-9c0d-${String(n).padStart(12, '0')}`;
const IG = uuid(1);
const WA = uuid(2);
const TAGS = Array.from({ length: 200 }, (_, i) => `Tag ${i}`);
const FIELDS = Array.from({ length: 100 }, (_, i) => `field_${i}`);
const UPLOADS = Array.from({ length: 100 }, (_, i) => uuid(1000 + i));
const WORKFLOWS: OtherWorkflow[] = Array.from({ length: 50 }, (_, i) => ({
  id: uuid(2000 + i),
  title: `Automation ${i}`,
  deleted: false,
  live: {
    channel: { type: 'instagram', connection_id: IG },
    trigger: { events: ['message', 'comment'], match: 'contains', keywords: [`other${i}`, `promo${i}`] },
  },
}));

const tagSet = new Set(TAGS);
const fieldSet = new Set(FIELDS);
const uploadSet = new Set(UPLOADS);
const connectionMap = new Map<string, { channel: ChannelType; connected: boolean }>([
  [IG, { channel: 'instagram', connected: true }],
  [WA, { channel: 'whatsapp', connected: true }],
]);
const workflowMap = new Map(WORKFLOWS.map((w) => [w.id, w]));

const lookups: AccountLookups = {
  existingTagNames: (names) => Promise.resolve(new Set(names.filter((n) => tagSet.has(n)))),
  existingCustomFieldKeys: (keys) => Promise.resolve(new Set(keys.filter((k) => fieldSet.has(k)))),
  existingUploadIds: (ids) => Promise.resolve(new Set(ids.filter((i) => uploadSet.has(i)))),
  connections: (ids) => Promise.resolve(new Map([...connectionMap].filter(([id]) => ids.includes(id)))),
  connectedInstagram: () => Promise.resolve(IG),
  repliesListExists: () => Promise.resolve(true),
  workflows: (ids) =>
    Promise.resolve(new Map(ids.flatMap((id) => (workflowMap.has(id) ? [[id, workflowMap.get(id)!]] : [])))),
  publishedWorkflows: (exceptId) => Promise.resolve(WORKFLOWS.filter((w) => w.id !== exceptId)),
};

/** A chain of 499 blocks after root, cycling through block kinds; branch outputs lead to the next block. */
function buildNodes(): Record<string, unknown> {
  const count = 500;
  const id = (i: number) => (i === 0 ? 'root' : `bloco_${i}`);
  const nodes: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const next = i + 1 < count ? id(i + 1) : null;
    const tag = (k: number) => TAGS[(i * 3 + k) % TAGS.length]!;
    const field = (k: number) => FIELDS[(i * 7 + k) % FIELDS.length]!;
    const upload = (k: number) => UPLOADS[(i * 5 + k) % UPLOADS.length]!;
    if (i === 0) {
      nodes[id(i)] = { type: 'root', data: { next: [next] } };
      continue;
    }
    const kinds = [
      () => ({ type: 'message', data: { text: `Olá {contact.first_name}, passo ${i}!`, next: [next] } }),
      () => ({ type: 'tags', data: { operation: 'add', tags: [tag(0), tag(1), tag(2)], next: [next] } }),
      () => ({ type: 'data', data: { name: field(0), value: '$input', next: [next] } }),
      () => ({
        type: 'question',
        data: { text: 'Seu e-mail?', answer_type: 'any', answer_field: field(1), next: [next] },
      }),
      () => ({
        type: 'math',
        data: {
          result_field: field(2),
          operand_a: { type: 'field', value: field(3) },
          operand_b: { type: 'constant', value: '1.5' },
          operator: 'add',
          next: [next],
        },
      }),
      () => ({
        type: 'conditional',
        data: {
          conditions: [
            { field_type: 'tag', field_name: tag(3), operator: 'has_tag' },
            { field_type: 'custom_field', field_name: field(4), operator: 'field_equals', value: 'x' },
            { field_type: 'score', operator: 'field_between', value: '10,20' },
          ],
          combinator: 'or',
          next: [next, next],
        },
      }),
      () => ({ type: 'media', data: { upload_id: upload(0), next: [next] } }),
      () => ({
        type: 'buttons',
        data: {
          subtitle: 'Escolha',
          buttons: [
            { id: `b${i}a`, title: 'Loja', url: 'https://shop.example.com' },
            { id: `b${i}b`, title: 'WhatsApp', whatsapp_connection_id: WA, whatsapp_message: 'Oi!' },
            { id: `b${i}c`, title: 'Cupom' },
          ],
          next: [next, next, next, null],
        },
      }),
      () => ({
        type: 'cards',
        data: {
          caption: 'Mais vendidos',
          cards: [0, 1, 2].map((c) => ({
            title: `Produto ${c}`,
            subtitle: 'R$ 99',
            upload_id: upload(c + 1),
            buttons: [{ id: `c${i}${c}`, title: 'Comprar', url: 'https://shop.example.com/p' }],
          })),
          next: [next, ...Array.from({ length: 30 }, () => null)],
        },
      }),
      () => ({
        type: 'invoke',
        data: {
          method: 'POST',
          endpoint: 'https://crm.example.com/leads',
          headers: [{ name: 'Authorization', value: 'Bearer {secret.crm}' }],
          fields: [
            { path: '$.plan', name: field(5) },
            { path: '$.id', name: field(6) },
          ],
          next: [next, next],
        },
      }),
      () => ({ type: 'randomizer', data: { options: [{ percentage: 30 }, { percentage: 70 }], next: [next, next] } }),
      () => ({
        type: 'start',
        data: { workflow_id: WORKFLOWS[i % WORKFLOWS.length]!.id, parallel: true, next: [next] },
      }),
      () => ({
        type: 'multichannel',
        data: { mode: 'first', channels: [{ provider: 'whatsapp', connection_id: WA }], next: [next, null] },
      }),
      () => ({ type: 'sleep', data: { seconds: 60, next: [next] } }),
    ];
    nodes[id(i)] = kinds[i % kinds.length]!();
  }
  return nodes;
}

const definition: DefinitionToCheck = {
  channel: { type: 'instagram', connection_id: null },
  trigger: { events: ['message', 'comment'], match: 'contains', keywords: ['preço', 'quero'] },
  nodes: buildNodes(),
};

async function measure(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn(); // warm-up (JIT, the compiled catalog)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const check = await validateDefinition(definition, lookups, { route: 'saved', workflowId: uuid(9999) });
if (check.errors.length > 0) {
  console.error(check.errors.slice(0, 5));
  throw new Error('the bench graph should be valid');
}
const nodes = definition.nodes;
const refs = JSON.stringify(nodes).match(
  /"(upload_id|whatsapp_connection_id|workflow_id|field_name|name|result_field)"/g,
);
console.log(
  `graph: ${Object.keys(nodes).length} blocks, ${graphSize(nodes)} bytes with positions, ` +
    `${refs?.length ?? 0}+ resource references; ${check.warnings.length} warnings`,
);

const validateTimes = await measure(() =>
  validateDefinition(definition, lookups, { route: 'saved', workflowId: uuid(9999) }),
);
const writeTimes = await measure(() => writeProblem(definition, lookups, { workflowId: uuid(9999) }));
console.log(
  table([
    ['operation', 'runs', 'p50 ms', 'p99 ms'],
    [
      'validateDefinition (saved route)',
      String(runs),
      ms(quantile(validateTimes, 0.5)),
      ms(quantile(validateTimes, 0.99)),
    ],
    ['writeProblem (create/update)', String(runs), ms(quantile(writeTimes, 0.5)), ms(quantile(writeTimes, 0.99))],
  ]),
);
const p50 = quantile(validateTimes, 0.5);
console.log(p50 <= 10 ? `goal met: p50 ${ms(p50)} ms ≤ 10 ms` : `goal MISSED: p50 ${ms(p50)} ms > 10 ms`);
