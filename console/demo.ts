// "Create the demo automation": the keyword automation of the README's automation walkthrough
// (examples/automation-exchange.ts), made through the public API on the chosen connection so a first visit
// shows something happening. Writing the keyword starts it: it greets the contact, asks a question (the answer
// goes to the custom field `cidade`), offers two reply buttons, and answers the tap. "Agora não" ends the run at
// once; "Quero" tags the contact and sleeps an hour before the reminder, so the run waits on the sandbox clock
// (the Time pane moves it).
import type { Block, GraphNodes } from '../generated/block-catalog.js';
import { ok, type AdminApi, type Api, type Schemas } from './api.js';

export const DEMO_KEYWORD = 'frete';
export const DEMO_DESCRIPTION = 'Sandbox console demo automation';
const ANSWER_FIELD = 'cidade';
const DEMO_TAG = 'Lembrete de frete';

export function demoGraph(): GraphNodes {
  const ask: Block<'question'> = {
    type: 'question',
    data: { text: 'Para qual cidade é a entrega?', answer_type: 'any', answer_field: ANSWER_FIELD, next: ['oferta'] },
  };
  const offer: Block<'buttons'> = {
    type: 'buttons',
    data: {
      subtitle: 'Anotei {cidade}. Quer um lembrete quando o frete grátis começar?',
      buttons: [
        { id: 'quero', title: 'Quero' },
        { id: 'agora_nao', title: 'Agora não' },
      ],
      next: ['marcar', 'tchau', null, null],
    },
  };
  return {
    root: { type: 'root', data: { next: ['boas_vindas'] } },
    boas_vindas: { type: 'message', data: { text: 'Oi, {contact.first_name}! Vamos ver o frete.', next: ['cidade'] } },
    cidade: ask,
    oferta: offer,
    marcar: { type: 'tags', data: { operation: 'add', tags: [DEMO_TAG], next: ['combinado'] } },
    combinado: {
      type: 'message',
      data: { text: 'Combinado! Aviso quando o frete grátis para {cidade} começar.', next: ['lembrete'] },
    },
    lembrete: { type: 'sleep', data: { seconds: 3600, next: ['aviso'] } },
    aviso: { type: 'message', data: { text: 'Começou! Frete grátis para {cidade} até domingo.', next: [null] } },
    tchau: { type: 'message', data: { text: 'Tudo bem! Até a próxima.', next: [null] } },
  };
}

/**
 * The demo automation live on `connection`: the one made earlier (same description) when it is published,
 * else a new one. What it names is made first when missing: the text field "Cidade" (admin API) and the tag.
 */
export async function ensureDemoAutomation(
  api: Api,
  admin: AdminApi,
  accountId: string,
  connection: Schemas['Connection'],
): Promise<Schemas['Workflow']> {
  const fields = ok(await api.GET('/v1/custom-fields', { params: { query: { limit: 100 } } }));
  if (!fields.data.some((f) => f.name === ANSWER_FIELD))
    ok(
      await admin.POST('/admin/v1/accounts/{accountId}/custom-fields', {
        params: { path: { accountId } },
        body: { label: 'Cidade', type: 'text' },
      }),
    );
  const tag = await api.POST('/v1/tags', { body: { name: DEMO_TAG } });
  if (tag.error && tag.response.status !== 409) ok(tag);

  const listed = ok(
    await api.GET('/v1/workflows', { params: { query: { connection_id: connection.id, limit: 100 } } }),
  );
  const earlier = listed.data.find((w) => w.description === DEMO_DESCRIPTION);
  if (earlier?.status === 'published')
    return ok(await api.GET('/v1/workflows/{workflowId}', { params: { path: { workflowId: earlier.id } } }));
  const draft =
    earlier ??
    ok(
      await api.POST('/v1/workflows', {
        body: {
          title: 'Demo: frete grátis',
          description: DEMO_DESCRIPTION,
          channel: { type: connection.channel, connection_id: connection.id },
          trigger: { events: ['message'], match: 'contains', keywords: [DEMO_KEYWORD] },
          graph: { nodes: demoGraph() },
        },
      }),
    );
  const checked = ok(
    await api.POST('/v1/workflows/{workflowId}/validate', { params: { path: { workflowId: draft.id } } }),
  );
  if (!checked.valid)
    throw new Error(`the demo automation is not valid: ${checked.errors.map((e) => e.code).join(', ')}`);
  return ok(
    await api.POST('/v1/workflows/{workflowId}/publish', {
      params: { path: { workflowId: draft.id }, header: { 'If-Match': `"${checked.revision}"` } },
    }),
  );
}
