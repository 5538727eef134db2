// A keyword automation with buttons, built with the typed client's block types: validate before saving, fix
// what validation reports, create, validate the saved draft, publish exactly that revision, change it, publish
// again, and read the versions.
//
//   npm start                                   # in one terminal: prints the demo API key
//   API_KEY=epk_… npm run automation            # in another; BASE_URL=http://… for a server elsewhere
//                                               # (default http://127.0.0.1:3000)
//
// test/server/automation-example.test.ts runs `buildAutomation` against a test server, so this file stays true.
import { fileURLToPath } from 'node:url';
import {
  createClient,
  errorCode,
  type ApiClient,
  type Block,
  type GraphNodes,
  type components,
} from '../client/index.js';
import { baseUrl, check, runExample, settings } from './check.js';

type Workflow = components['schemas']['Workflow'];
type Version = components['schemas']['WorkflowVersion'];

/** The ETag of an answer carrying one automation: its revision, to send back in If-Match. */
const etag = (response: Response): string => {
  const value = response.headers.get('etag');
  if (!value) throw new Error('an automation answer without ETag');
  return value;
};

/** The graph: ask with two buttons; "Sim" tags the contact and sends the link, "Agora não" says goodbye. */
function catalogGraph(tagName: string): GraphNodes {
  const ask: Block<'buttons'> = {
    type: 'buttons',
    data: {
      subtitle: 'Oi, {contact.first_name}! Quer receber o catálogo de Black Friday?',
      buttons: [
        { id: 'quero', title: 'Sim, quero' },
        { id: 'agora_nao', title: 'Agora não' },
      ],
      // One entry per button slot (3), then the one that follows right after the send.
      next: ['marcar', 'tchau', null, null],
    },
  };
  return {
    root: { type: 'root', data: { next: ['perguntar'] } },
    perguntar: ask,
    marcar: { type: 'tags', data: { operation: 'add', tags: [tagName], next: ['link'] } },
    link: { type: 'message', data: { text: 'Aqui está: https://loja.example.com/black-friday', next: [null] } },
    tchau: { type: 'message', data: { text: 'Tudo bem! Se mudar de ideia, é só chamar.', next: [null] } },
  };
}

export interface AutomationTour {
  /** The codes of the first validation (before the fix). */
  firstErrors: string[];
  published: Workflow;
  versions: Version[];
}

export async function buildAutomation(api: ApiClient, keyword = 'catalogo'): Promise<AutomationTour> {
  // 1. The tag the automation adds must exist: blocks name tags exactly (case and accents), and create none.
  const tag = await api.POST('/v1/tags', { body: { name: 'Catálogo BF' } });
  if (tag.error && errorCode(tag.error) !== 'tag_already_exists') check(tag, 'create tag');

  const channel = { type: 'instagram' as const };
  const trigger = { events: ['message' as const], match: 'contains' as const, keywords: [keyword] };

  // 2. Validate before saving. The tag is misspelled on purpose, without its accent ("Catalogo BF"): letter case
  //    does not matter to validation, accents do. Validation says where.
  const first = check(
    await api.POST('/v1/workflows/validate', {
      body: { channel, trigger, graph: { nodes: catalogGraph('Catalogo BF') } },
    }),
    'validate',
  );
  const firstErrors = first.errors.map((e) => `${e.code} at ${e.path}`);

  // 3. Fixed, it is created as a draft (revision 0 in the ETag).
  const nodes = catalogGraph('Catálogo BF');
  const created = await api.POST('/v1/workflows', {
    body: { title: 'Catálogo de Black Friday', channel, trigger, graph: { nodes } },
  });
  const draft = check(created, 'create automation');

  // 4. Validate the saved draft and publish exactly the revision validated.
  const checked = check(
    await api.POST('/v1/workflows/{workflowId}/validate', { params: { path: { workflowId: draft.id } } }),
    'validate draft',
  );
  if (!checked.valid) throw new Error(`still invalid: ${checked.errors.map((e) => e.code).join(', ')}`);
  const published = await api.POST('/v1/workflows/{workflowId}/publish', {
    params: { path: { workflowId: draft.id }, header: { 'If-Match': `"${checked.revision}"` } },
  });
  check(published, 'publish');

  // 5. Change the draft (If-Match: the ETag just read); what runs stays the same until the next publish.
  const changed = await api.PATCH('/v1/workflows/{workflowId}', {
    params: { path: { workflowId: draft.id }, header: { 'If-Match': etag(published.response) } },
    body: { title: 'Catálogo de Black Friday 2026' },
  });
  check(changed, 'rename');
  const republished = check(
    await api.POST('/v1/workflows/{workflowId}/publish', {
      params: { path: { workflowId: draft.id }, header: { 'If-Match': etag(changed.response) } },
    }),
    'publish again',
  );

  // 6. Each publish stored a version, newest first; a version is read with the graph it put live.
  const list = check(
    await api.GET('/v1/workflows/{workflowId}/versions', { params: { path: { workflowId: draft.id } } }),
    'list versions',
  );
  const versions: Version[] = [];
  for (const item of list.data)
    versions.push(
      check(
        await api.GET('/v1/workflows/{workflowId}/versions/{versionId}', {
          params: { path: { workflowId: draft.id, versionId: item.id } },
        }),
        'read version',
      ),
    );
  return { firstErrors, published: republished, versions };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { API_KEY } = settings('API_KEY');
  await runExample(async () => {
    const tour = await buildAutomation(createClient({ baseUrl: baseUrl(), apiKey: API_KEY }));
    console.log('First validation:', tour.firstErrors.join('; '));
    console.log(`Published ${tour.published.id} (${tour.published.title}), revision ${tour.published.revision}`);
    for (const v of tour.versions) console.log(`  version ${v.number}: "${v.title}", revision ${v.revision}`);
  });
}
