// Staged validation of an automation definition (Part B, "Validation"; docs/decisions.md, "Validation stages,
// as built"). Pure over `AccountLookups`: each lookup method is called at most once per validation, with every
// id it needs in one batch.
//
//   1. shape: graph_too_large (500 blocks, 256 KiB with positions filled in), schema_violation (the catalog,
//      against the declared type only), node_id_invalid, root_missing. Any of them hides stages 2, 3 and 5
//      (the channel and trigger are still checked).
//   2. outputs: next_arity_invalid (missing or extra entries; extras are a warning on a draft saved by the
//      console editor), node_not_found.
//   3. resources: tag_not_found, custom_field_not_found, upload_not_found.
//   4. channel (channel_required, channel_not_found, channel_type_mismatch) and trigger (posts_without_event,
//      next_post_without_comment, next_post_with_posts, replies_list_not_supported, replies_list_not_found).
//   5. publish rules: link_button_url_empty, handoff_number_disconnected and every warning but the editor's
//      next_arity_invalid. On the unsaved route a channel error hides them too.
//   6. compiler: only when there is no other error at all, one error, from the first faulty block reachable
//      from `root` (breadth-first in `next` order).
//
// `writeProblem` is what create and update answer: channel, then trigger, then stages 1–3 of the graph.
import { ApiError } from '../../errors.js';
import { blockReferences, blockType, compileProblem, formatProblems, type BlockReference } from '../../blocks/index.js';
import { catalogIssues, type CatalogIssue } from './catalog.js';
import { graphSize, MAX_BLOCKS, MAX_GRAPH_BYTES, reachableFromRoot } from './graph.js';
import type {
  AccountLookups,
  ChannelToCheck,
  DefinitionToCheck,
  OtherWorkflow,
  TriggerInput,
  ValidationCode,
  ValidationIssue,
  ValidationOptions,
  ValidationResult,
} from './validation-types.js';

type Json = Record<string, unknown>;
type Extras = Partial<Pick<ValidationIssue, 'connection_id' | 'workflow_ids' | 'keywords' | 'workflows'>>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const item = (
  code: ValidationCode,
  message: string,
  node_id: string | null,
  path: string,
  extras: Extras = {},
): ValidationIssue => ({ code, message, node_id, path, ...extras });

/** Codes the catalog reports that belong to the compiler stage. */
const COMPILER_CODES = new Set<ValidationCode>([
  'media_source_invalid',
  'randomizer_options_invalid',
  'conditional_incomplete',
  'multichannel_mode_missing',
  'multichannel_channels_invalid',
]);

/** Events that read text (keywords apply to them); `story_mention` uses no keywords. */
const TEXT_EVENTS = new Set(['comment', 'live_comment', 'story_message', 'message', 'message_sent']);

// ---------------------------------------------------------------------------------------------------------
// Order: whole-graph items, then blocks in the order of their ids as given (then path), then channel, then
// trigger (then path). Equal keys keep the order found.

function comparePaths(a: string, b: string): number {
  const pa = a.split(/(\d+)/);
  const pb = b.split(/(\d+)/);
  for (const [i, x] of pa.entries()) {
    const y = pb[i];
    if (y === undefined) break;
    if (x === y) continue;
    if (i % 2 === 1) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

function sortIssues(issues: ValidationIssue[], order: Map<string, number>): ValidationIssue[] {
  const group = (i: ValidationIssue) =>
    i.node_id !== null ? 1 : i.path.startsWith('nodes') ? 0 : i.path.startsWith('channel') ? 2 : 3;
  return [...issues].sort((a, b) => {
    const g = group(a) - group(b);
    if (g !== 0) return g;
    if (a.node_id !== null && b.node_id !== null && a.node_id !== b.node_id) {
      return (order.get(a.node_id) ?? Infinity) - (order.get(b.node_id) ?? Infinity);
    }
    return comparePaths(a.path, b.path);
  });
}

// ---------------------------------------------------------------------------------------------------------

interface Mode {
  /** create/update: no publish rules, no compiler, no warnings; extra `next` entries are errors. */
  write: boolean;
  route: ValidationOptions['route'];
  workflowId: string | null;
  savedByEditor: boolean;
}

interface Findings {
  order: Map<string, number>;
  shape: ValidationIssue[];
  outputs: ValidationIssue[];
  resources: ValidationIssue[];
  channel: ValidationIssue[];
  trigger: ValidationIssue[];
  publish: ValidationIssue[];
  warnings: ValidationIssue[];
  /** Set when the compiler stage ran and found a problem. */
  compiler: ValidationIssue | null;
}

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

/** Stage 1: size, root, the catalog. Also returns the catalog items of later stages, by code. */
function shapeStage(nodes: unknown): { shape: ValidationIssue[]; later: CatalogIssue[] } {
  const shape: ValidationIssue[] = [];
  if (isObject(nodes)) {
    const blocks = Object.keys(nodes).length;
    const bytes = graphSize(nodes);
    if (blocks > MAX_BLOCKS || bytes > MAX_GRAPH_BYTES) {
      const why = [
        blocks > MAX_BLOCKS ? `${blocks} blocks (at most ${MAX_BLOCKS})` : null,
        bytes > MAX_GRAPH_BYTES ? `${bytes} bytes with positions (at most ${MAX_GRAPH_BYTES})` : null,
      ].filter((s) => s !== null);
      shape.push(item('graph_too_large', `The graph is too large: ${why.join(', ')}.`, null, 'nodes'));
    }
    const root = nodes.root;
    if (!isObject(root) || root.type !== 'root') {
      shape.push(
        item(
          'root_missing',
          root === undefined ? 'The graph has no `root` block.' : 'The `root` block must have type `root`.',
          null,
          'nodes.root',
        ),
      );
    }
  }
  const later: CatalogIssue[] = [];
  for (const issue of catalogIssues(nodes)) {
    switch (issue.code) {
      case 'graph_too_large': // counted above, with the byte size
      case 'root_missing': // checked above, also for a `root` without a type
        break;
      case 'schema_violation':
      case 'node_id_invalid':
        shape.push(issue);
        break;
      default: // next_arity_invalid (recounted by the outputs stage), link_button_url_empty, compiler codes
        later.push(issue);
    }
  }
  // Formats the catalog cannot state (an invoke field's JSONPath that does not parse), on fields it accepted.
  if (isObject(nodes))
    for (const [id, node] of Object.entries(nodes))
      for (const p of formatProblems(node)) {
        const path = `nodes.${id}.${p.path}`;
        shape.push(item(p.code, `${path} ${p.message}.`, id, path));
      }
  return { shape, later };
}

/** Stage 2: one entry per output, and targets that exist. */
function outputsStage(nodes: Json, mode: Mode): { errors: ValidationIssue[]; warnings: ValidationIssue[] } {
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  for (const [id, node] of Object.entries(nodes)) {
    if (!isObject(node) || !isObject(node.data)) continue;
    const type = blockType(node.type);
    if (!type) continue;
    const path = `nodes.${id}.data.next`;
    const next = node.data.next;
    if (next === undefined) {
      if (!type.nextOptional) errors.push(item('next_arity_invalid', `${path} is missing.`, id, path));
      continue;
    }
    if (!Array.isArray(next)) continue;
    const count = type.outputs(node.data);
    if (count !== null && next.length !== count) {
      const message = `${path} has ${next.length} entries; this block has ${count} output${count === 1 ? '' : 's'}.`;
      const extraOnly = next.length > count;
      if (extraOnly && mode.savedByEditor && !mode.write) warnings.push(item('next_arity_invalid', message, id, path));
      else errors.push(item('next_arity_invalid', message, id, path));
    }
    next.forEach((target, i) => {
      if (typeof target === 'string' && !Object.hasOwn(nodes, target)) {
        errors.push(
          item(
            'node_not_found',
            `${path}[${i}] names a block that is not in the graph: ${target}.`,
            id,
            `${path}[${i}]`,
          ),
        );
      }
    });
  }
  return { errors, warnings };
}

function channelStage(
  channel: ChannelToCheck,
  connections: Map<string, { channel: ChannelToCheck['type']; connected: boolean }>,
): ValidationIssue[] {
  const id = channel.connection_id ?? null;
  const path = 'channel.connection_id';
  if (id === null) {
    return channel.type === 'whatsapp'
      ? [item('channel_required', 'A whatsapp automation needs channel.connection_id.', null, path)]
      : [];
  }
  const connection = connections.get(id);
  if (!connection) return [item('channel_not_found', 'The account has no such connection.', null, path)];
  if (connection.channel !== channel.type) {
    return [
      item(
        'channel_type_mismatch',
        `The connection is a ${connection.channel} connection, not ${channel.type}.`,
        null,
        path,
      ),
    ];
  }
  return [];
}

/** Stage 4, trigger: the rules that need no lookup, then the reply list. */
function triggerStage(
  channel: ChannelToCheck,
  trigger: TriggerInput,
  repliesListExists: boolean | null,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const events = new Set<string>(trigger.events ?? []);
  const posts = trigger.posts ?? null;
  if (posts !== null && posts.length > 0) {
    const limitsAnEvent = posts.some(
      (p) => (p.type === 'feed' && events.has('comment')) || (p.type === 'story' && events.has('story_message')),
    );
    if (!limitsAnEvent) {
      issues.push(
        item(
          'posts_without_event',
          'trigger.posts limits no event: feed posts need `comment` and stories need `story_message` among the events.',
          null,
          'trigger.posts',
        ),
      );
    }
  }
  if (trigger.next_post === true) {
    if (!events.has('comment')) {
      issues.push(
        item('next_post_without_comment', 'trigger.next_post needs the `comment` event.', null, 'trigger.next_post'),
      );
    }
    if (posts?.some((p) => p.type === 'feed')) {
      issues.push(
        item('next_post_with_posts', 'trigger.next_post cannot combine with feed posts.', null, 'trigger.next_post'),
      );
    }
  }
  const list = trigger.replies_list_id ?? null;
  if (list !== null) {
    if (channel.type === 'whatsapp') {
      issues.push(
        item(
          'replies_list_not_supported',
          'Reply lists work only on instagram automations.',
          null,
          'trigger.replies_list_id',
        ),
      );
    } else if (repliesListExists === false) {
      issues.push(
        item('replies_list_not_found', 'The account has no such reply list.', null, 'trigger.replies_list_id'),
      );
    }
  }
  return issues;
}

const RESOURCE_CODE = {
  tag: 'tag_not_found',
  custom_field: 'custom_field_not_found',
  upload: 'upload_not_found',
} as const;
const RESOURCE_NAME = { tag: 'tag', custom_field: 'custom field', upload: 'upload' } as const;

/** The events that can start an automation on its channel (on whatsapp only `message`). */
const firingEvents = (channel: ChannelToCheck, trigger: TriggerInput): Set<string> =>
  new Set((trigger.events ?? []).filter((e) => channel.type === 'instagram' || e === 'message'));

/**
 * The keywords of `mine` that `other` also answers (`any` on one side: every keyword of the other side), or
 * null when the two never answer the same text. Keywords compare ignoring letter case (not accents), whatever
 * the match mode.
 */
function keywordOverlap(mine: TriggerInput, other: TriggerInput): string[] | null {
  const mk = mine.keywords ?? [];
  const ok = other.keywords ?? [];
  if (mine.match === 'any' && other.match === 'any') return [];
  if (mine.match === 'any') return ok.length > 0 ? unique(ok) : null;
  if (other.match === 'any') return mk.length > 0 ? unique(mk) : null;
  const theirs = new Set(ok.map((k) => k.toLowerCase()));
  const common = unique(mk.filter((k) => theirs.has(k.toLowerCase())));
  return common.length > 0 ? common : null;
}

/** A block's reference to an account resource, with the block that makes it. */
interface PlacedReference {
  id: string;
  ref: BlockReference;
}

type Connections = Map<string, { channel: ChannelToCheck['type']; connected: boolean }>;

/** What the account holds of what the definition names: each lookup asked at most once, in one batch. */
interface AccountFacts {
  tags: Set<string>;
  fields: Set<string>;
  uploads: Set<string>;
  connections: Connections;
  listExists: boolean | null;
  targets: Map<string, OtherWorkflow>;
  published: OtherWorkflow[];
  /** Whether two channels are the same (the connected instagram account asked once, only if needed). */
  sameChannel(a: ChannelToCheck, b: ChannelToCheck): Promise<boolean>;
}

/** The references of every block, in graph order. */
function placedReferences(graph: Json): PlacedReference[] {
  const references: PlacedReference[] = [];
  for (const [id, node] of Object.entries(graph)) {
    for (const ref of blockReferences(node)) references.push({ id, ref });
  }
  return references;
}

const valuesOf = (references: readonly PlacedReference[], kind: BlockReference['kind']) =>
  unique(references.filter((r) => r.ref.kind === kind).map((r) => r.ref.value));

/** Asks the account, in one batch, for everything the stages will compare with. */
async function accountFacts(
  def: DefinitionToCheck,
  lookups: AccountLookups,
  mode: Mode,
  references: readonly PlacedReference[],
  publishMayRun: boolean,
): Promise<AccountFacts> {
  const { channel, trigger } = def;
  const instagram = channel.type === 'instagram';
  const channelId = channel.connection_id ?? null;
  const handoffIds = publishMayRun && instagram ? valuesOf(references, 'whatsapp_connection') : [];
  const connectionIds = unique([...(channelId !== null ? [channelId] : []), ...handoffIds]);
  const startIds = publishMayRun ? valuesOf(references, 'workflow').filter((id) => id !== mode.workflowId) : [];
  const listId = trigger.replies_list_id ?? null;
  const tagNames = valuesOf(references, 'tag');
  const fieldKeys = valuesOf(references, 'custom_field');
  const uploadIds = valuesOf(references, 'upload');

  const none = <T>(value: T) => Promise.resolve(value);
  const [tags, fields, uploads, connections, listExists, targets, published] = await Promise.all([
    tagNames.length > 0 ? lookups.existingTagNames(tagNames) : none(new Set<string>()),
    fieldKeys.length > 0 ? lookups.existingCustomFieldKeys(fieldKeys) : none(new Set<string>()),
    uploadIds.length > 0 ? lookups.existingUploadIds(uploadIds) : none(new Set<string>()),
    connectionIds.length > 0 ? lookups.connections(connectionIds) : none<Connections>(new Map()),
    listId !== null && instagram ? lookups.repliesListExists(listId) : none(null),
    startIds.length > 0 ? lookups.workflows(startIds) : none(new Map<string, OtherWorkflow>()),
    collisionsMayRun(def, publishMayRun) ? lookups.publishedWorkflows(mode.workflowId) : none<OtherWorkflow[]>([]),
  ]);
  return { tags, fields, uploads, connections, listExists, targets, published, sameChannel: channelComparer(lookups) };
}

/** Whether two channels are the same; the connected instagram account asked once, only if a comparison needs it. */
function channelComparer(lookups: AccountLookups): AccountFacts['sameChannel'] {
  let connectedInstagram: Promise<string | null> | undefined;
  const effectiveConnection = async (c: ChannelToCheck): Promise<string | null> =>
    c.connection_id ?? (c.type === 'instagram' ? await (connectedInstagram ??= lookups.connectedInstagram()) : null);
  return async (a, b) => {
    if (a.type !== b.type) return false;
    if (a.connection_id && b.connection_id) return a.connection_id === b.connection_id;
    return (await effectiveConnection(a)) === (await effectiveConnection(b));
  };
}

/** The keyword-collision check runs on the publish stage of an automation that some event can start. */
const collisionsMayRun = (def: DefinitionToCheck, publishMayRun: boolean) =>
  publishMayRun && firingEvents(def.channel, def.trigger).size > 0;

/** Stage 3: every tag, custom field and upload a block names is the account's. */
function resourcesStage(references: readonly PlacedReference[], facts: AccountFacts): ValidationIssue[] {
  const resources: ValidationIssue[] = [];
  const found = { tag: facts.tags, custom_field: facts.fields, upload: facts.uploads };
  for (const { id, ref } of references) {
    if (ref.kind !== 'tag' && ref.kind !== 'custom_field' && ref.kind !== 'upload') continue;
    if (found[ref.kind].has(ref.value)) continue;
    resources.push(
      item(
        RESOURCE_CODE[ref.kind],
        `The account has no ${RESOURCE_NAME[ref.kind]} ${JSON.stringify(ref.value)}.`,
        id,
        `nodes.${id}.${ref.path}`,
      ),
    );
  }
  return resources;
}

/** What the publish stage reads: the definition, its checked graph, its references and the account's facts. */
interface PublishInput {
  def: DefinitionToCheck;
  graph: Json;
  mode: Mode;
  references: readonly PlacedReference[];
  later: readonly CatalogIssue[];
  facts: AccountFacts;
}

/** Stage 5: the publish rules (errors) and every warning but the editor's next_arity_invalid, in this order. */
async function publishStage(input: PublishInput): Promise<{ publish: ValidationIssue[]; warnings: ValidationIssue[] }> {
  const { def, graph } = input;
  return {
    publish: [...linkButtonIssues(input.later), ...handoffIssues(input)],
    warnings: [
      ...(await startWorkflowWarnings(input)),
      ...answerTypeWarnings(graph),
      ...whatsappEventWarnings(def),
      ...noKeywordsWarnings(def.trigger),
      ...(await collisionWarnings(input)),
    ],
  };
}

function linkButtonIssues(later: readonly CatalogIssue[]): ValidationIssue[] {
  return later
    .filter((issue) => issue.code === 'link_button_url_empty')
    .map((issue) => ({ ...issue, message: `${issue.path} is empty: a link button needs an http or https address.` }));
}

/** An instagram automation's hand-off buttons lead to a connected whatsapp number of the account. */
function handoffIssues({ def, references, facts }: PublishInput): ValidationIssue[] {
  if (def.channel.type !== 'instagram') return [];
  const issues: ValidationIssue[] = [];
  for (const { id, ref } of references) {
    if (ref.kind !== 'whatsapp_connection') continue;
    const c = facts.connections.get(ref.value);
    if (!c || c.channel !== 'whatsapp' || !c.connected) {
      issues.push(
        item(
          'handoff_number_disconnected',
          'The button leads to a whatsapp number that is not connected.',
          id,
          `nodes.${id}.${ref.path}`,
          {
            connection_id: ref.value,
          },
        ),
      );
    }
  }
  return issues;
}

/** A `start` block names another automation of the account, live on the same channel. */
async function startWorkflowWarnings({ def, mode, references, facts }: PublishInput): Promise<ValidationIssue[]> {
  const warnings: ValidationIssue[] = [];
  for (const { id, ref } of references) {
    if (ref.kind !== 'workflow' || ref.value === mode.workflowId) continue;
    const path = `nodes.${id}.${ref.path}`;
    const target = facts.targets.get(ref.value);
    const named = { workflow_ids: [ref.value] };
    const withTitle = target ? { ...named, workflows: [{ id: target.id, title: target.title }] } : named;
    if (!target) {
      warnings.push(item('start_workflow_not_found', 'The account has no such automation.', id, path, named));
    } else if (target.deleted) {
      warnings.push(item('start_workflow_deleted', 'The automation is in the trash.', id, path, withTitle));
    } else if (!target.live) {
      warnings.push(item('start_workflow_unpublished', 'The automation is not published.', id, path, withTitle));
    } else if (!(await facts.sameChannel(def.channel, target.live.channel))) {
      warnings.push(
        item('start_workflow_other_channel', 'The automation is published on another channel.', id, path, withTitle),
      );
    }
  }
  return warnings;
}

function answerTypeWarnings(graph: Json): ValidationIssue[] {
  const warnings: ValidationIssue[] = [];
  for (const [id, node] of Object.entries(graph)) {
    if (isObject(node) && node.type === 'question' && isObject(node.data) && node.data.answer_type === 'number') {
      warnings.push(
        item(
          'answer_type_deprecated',
          'answer_type `number` is obsolete: it runs as `any`, with no number check.',
          id,
          `nodes.${id}.data.answer_type`,
        ),
      );
    }
  }
  return warnings;
}

function whatsappEventWarnings({ channel, trigger }: DefinitionToCheck): ValidationIssue[] {
  if (channel.type !== 'whatsapp') return [];
  const warnings: ValidationIssue[] = [];
  (trigger.events ?? []).forEach((event, i) => {
    if (event !== 'message') {
      warnings.push(
        item(
          'trigger_event_not_supported',
          `On whatsapp only \`message\` starts an automation; \`${event}\` never fires.`,
          null,
          `trigger.events[${i}]`,
        ),
      );
    }
  });
  return warnings;
}

function noKeywordsWarnings(trigger: TriggerInput): ValidationIssue[] {
  if (
    trigger.match !== 'any' &&
    (trigger.keywords ?? []).length === 0 &&
    (trigger.events ?? []).some((e) => TEXT_EVENTS.has(e))
  ) {
    return [
      item(
        'trigger_has_no_keywords',
        `match \`${trigger.match}\` with no keywords: text events never fire.`,
        null,
        'trigger.keywords',
      ),
    ];
  }
  return [];
}

/** Another published automation on the same channel answers the same trigger: one warning naming them all. */
async function collisionWarnings({ def, mode, facts }: PublishInput): Promise<ValidationIssue[]> {
  const { channel, trigger } = def;
  if (!collisionsMayRun(def, true)) return [];
  const mine = firingEvents(channel, trigger);
  const ids: string[] = [];
  const keywords: string[] = [];
  const others = [...facts.published].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const other of others) {
    if (other.id === mode.workflowId || other.deleted || !other.live) continue;
    const theirs = firingEvents(other.live.channel, other.live.trigger);
    const common = [...mine].filter((e) => theirs.has(e));
    if (common.length === 0) continue;
    const overlap = common.some((e) => TEXT_EVENTS.has(e)) ? keywordOverlap(trigger, other.live.trigger) : null;
    if (overlap === null && !common.includes('story_mention')) continue;
    if (!(await facts.sameChannel(channel, other.live.channel))) continue;
    ids.push(other.id);
    keywords.push(...(overlap ?? []));
  }
  if (ids.length === 0) return [];
  const kw = unique(keywords);
  return [
    item(
      'keyword_collision',
      'Another published automation on this channel answers the same trigger.',
      null,
      kw.length > 0 ? 'trigger.keywords' : 'trigger.events',
      { workflow_ids: ids, keywords: kw },
    ),
  ];
}

/** Stage 6: one item, from the first faulty block reachable from root (breadth-first in `next` order). */
function compilerStage(graph: Json, later: readonly CatalogIssue[]): ValidationIssue | null {
  const fromCatalog = new Map<string, CatalogIssue>();
  for (const issue of later) {
    if (COMPILER_CODES.has(issue.code) && issue.node_id !== null && !fromCatalog.has(issue.node_id)) {
      fromCatalog.set(issue.node_id, issue);
    }
  }
  for (const id of reachableFromRoot(graph).keys()) {
    const p = compileProblem(graph[id]);
    if (p) return item(p.code, p.message, id, `nodes.${id}.${p.path}`);
    const c = fromCatalog.get(id);
    if (c) return c;
  }
  return null;
}

/** Runs the stages in order (see the top of this file); each stage's findings kept apart for the two callers. */
async function examine(def: DefinitionToCheck, lookups: AccountLookups, mode: Mode): Promise<Findings> {
  const nodes: unknown = def.nodes;
  const order = new Map<string, number>(isObject(nodes) ? Object.keys(nodes).map((id, i) => [id, i]) : []);
  const { shape, later } = shapeStage(nodes);
  // A shape problem hides the stages that read the graph.
  const graph = shape.length === 0 && isObject(nodes) ? nodes : null;
  const publishMayRun = graph !== null && !mode.write;
  const references = graph ? placedReferences(graph) : [];
  const facts = await accountFacts(def, lookups, mode, references, publishMayRun);

  const outputs = graph ? outputsStage(graph, mode) : { errors: [], warnings: [] };
  const resources = resourcesStage(references, facts);
  const channel = channelStage(def.channel, facts.connections);
  const trigger = triggerStage(def.channel, def.trigger, facts.listExists);
  // On the unsaved route a channel error hides the publish rules too.
  const publishRuns = graph !== null && publishMayRun && !(mode.route === 'unsaved' && channel.length > 0);
  const rules = publishRuns
    ? await publishStage({ def, graph, mode, references, later, facts })
    : { publish: [], warnings: [] };

  const otherErrors = [shape, outputs.errors, resources, channel, trigger, rules.publish].some((s) => s.length > 0);
  const compiler = !mode.write && graph !== null && !otherErrors ? compilerStage(graph, later) : null;
  return {
    order,
    shape,
    outputs: outputs.errors,
    resources,
    channel,
    trigger,
    publish: rules.publish,
    warnings: [...outputs.warnings, ...rules.warnings],
    compiler,
  };
}

/** The validate routes and publish: every stage (see the top of this file). */
export async function validateDefinition(
  def: DefinitionToCheck,
  lookups: AccountLookups,
  options: ValidationOptions,
): Promise<ValidationResult> {
  const f = await examine(def, lookups, {
    write: false,
    route: options.route,
    workflowId: options.workflowId ?? null,
    savedByEditor: options.savedByEditor ?? false,
  });
  const errors = [...f.shape, ...f.outputs, ...f.resources, ...f.channel, ...f.trigger, ...f.publish];
  if (f.compiler) errors.push(f.compiler);
  return { errors: sortIssues(errors, f.order), warnings: sortIssues(f.warnings, f.order) };
}

const CHANNEL_REASON: Partial<Record<ValidationCode, string>> = {
  channel_required: 'required',
  channel_not_found: 'not_found',
  channel_type_mismatch: 'type_mismatch',
};

/**
 * What create and update answer, or null: 422 `invalid_channel` (`reason` required, not_found or
 * type_mismatch), else 422 `invalid_trigger` (`reason`: the first trigger code), else 422 `invalid_graph`
 * (`errors`: shape, output and resource problems; extra `next` entries included). Publish rules, compiler
 * codes and warnings are not checked here.
 */
export async function writeProblem(
  def: DefinitionToCheck,
  lookups: AccountLookups,
  { workflowId }: { workflowId: string | null },
): Promise<ApiError | null> {
  const f = await examine(def, lookups, { write: true, route: 'saved', workflowId, savedByEditor: false });
  const channel = f.channel[0];
  if (channel) {
    return new ApiError(422, 'invalid_channel', channel.message, { reason: CHANNEL_REASON[channel.code] });
  }
  const trigger = f.trigger[0];
  if (trigger) return new ApiError(422, 'invalid_trigger', trigger.message, { reason: trigger.code });
  const errors = sortIssues([...f.shape, ...f.outputs, ...f.resources], f.order);
  const [first] = errors;
  if (first) {
    return new ApiError(422, 'invalid_graph', `The graph does not follow the contract: ${first.message}`, {
      errors,
    });
  }
  return null;
}
