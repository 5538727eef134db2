// The mock's check of a sent automation graph: the server's own validation (server/domain/workflows/validation.ts),
// run against an account where everything a block names exists (the mock keeps no state). What is left is what
// the definition alone decides: the catalog's schema, node ids, root, `next` arity, targets, and the channel and
// trigger rules that need no account. Create and update answer the API's `422 invalid_graph` (or
// `invalid_channel` / `invalid_trigger`), the unsaved validate route the API's validation body.
import { validateDefinition, writeProblem } from '../server/domain/workflows/validation.js';
import type {
  AccountLookups,
  ChannelToCheck,
  ChannelType,
  DefinitionToCheck,
  OtherWorkflow,
  TriggerInput,
} from '../server/domain/workflows/validation-types.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const CHANNEL_TYPES: readonly ChannelType[] = ['instagram', 'whatsapp'];
const isChannelType = (v: unknown): v is ChannelType => CHANNEL_TYPES.some((t) => t === v);

/** A neutral trigger for a PATCH that sends a graph without a trigger (the mock does not know the stored one). */
const NEUTRAL_TRIGGER: TriggerInput = { events: [], match: 'any' };

/**
 * The trigger as sent. Prism has already checked the body against the spec (a wrong trigger is its 400 before
 * this runs), so the required fields are enough to tell a trigger here.
 */
function isTrigger(v: unknown): v is TriggerInput {
  return isObject(v) && Array.isArray(v.events) && typeof v.match === 'string';
}

/** Everything a block or the channel names exists; a connection is of the channel asked about. */
function lookupsFor(channel: ChannelToCheck, trigger: TriggerInput): AccountLookups {
  const all = (values: readonly string[]) => Promise.resolve(new Set(values));
  return {
    existingTagNames: all,
    existingCustomFieldKeys: all,
    existingUploadIds: all,
    connections: (ids) =>
      Promise.resolve(
        new Map(
          ids.map((id) => [
            id,
            // The automation's own connection is of its channel; any other (a handoff's) is a whatsapp number.
            { channel: id === channel.connection_id ? channel.type : 'whatsapp', connected: true },
          ]),
        ),
      ),
    connectedInstagram: () => Promise.resolve(null),
    repliesListExists: () => Promise.resolve(true),
    workflows: (ids) =>
      Promise.resolve(
        new Map(
          ids.map((id): [string, OtherWorkflow] => [
            id,
            { id, title: 'Automation', deleted: false, live: { channel, trigger } },
          ]),
        ),
      ),
    publishedWorkflows: () => Promise.resolve([]),
  };
}

export type GraphRoute = 'create' | 'update' | 'validate';

/** The graph routes of the public API the mock checks, by method and path template. */
export function graphRouteOf(method: string, template: string): GraphRoute | null {
  if (method === 'POST' && template === '/v1/workflows') return 'create';
  if (method === 'PATCH' && template === '/v1/workflows/{workflowId}') return 'update';
  if (method === 'POST' && template === '/v1/workflows/validate') return 'validate';
  return null;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
}

/**
 * The API's answer to `body` on a graph route when the definition decides it (a problem, or the validation
 * result), else null (the example answers). A PATCH is checked only for what it sends.
 */
export async function checkGraph(route: GraphRoute, body: unknown): Promise<GraphAnswer | null> {
  if (!isObject(body)) return null;
  const sentChannel = isObject(body.channel) && isChannelType(body.channel.type) ? body.channel : null;
  const channel: ChannelToCheck = sentChannel
    ? {
        type: isChannelType(sentChannel.type) ? sentChannel.type : 'instagram',
        connection_id: typeof sentChannel.connection_id === 'string' ? sentChannel.connection_id : null,
      }
    : { type: 'instagram', connection_id: null };
  const trigger = isTrigger(body.trigger) ? body.trigger : NEUTRAL_TRIGGER;
  const nodes = isObject(body.graph) && isObject(body.graph.nodes) ? body.graph.nodes : null;
  if (route === 'update' && nodes === null && sentChannel === null && !isTrigger(body.trigger)) return null;
  const def: DefinitionToCheck = {
    channel,
    trigger,
    // No graph on create is the root-only graph (Part B); on update, the stored one (unknown here: a root).
    nodes: nodes ?? { root: { type: 'root', data: { next: [null] } } },
  };
  const lookups = lookupsFor(channel, trigger);
  if (route === 'validate') {
    const result = await validateDefinition(def, lookups, { route: 'unsaved' });
    return { status: 200, body: { valid: result.errors.length === 0, ...result } };
  }
  const problem = await writeProblem(def, lookups, { workflowId: null });
  if (!problem) return null;
  // On update, a channel or trigger left out is the stored one, which the mock does not know: only what was sent.
  if (route === 'update' && problem.code === 'invalid_channel' && sentChannel === null) return null;
  if (route === 'update' && problem.code === 'invalid_trigger' && !isTrigger(body.trigger)) return null;
  return { status: problem.status, body: problem.body() };
}
