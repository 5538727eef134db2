// `{account.<name>}` and `{secret.<name>}` in automations (Part B "Variables", issue 22) on every engine of the
// run: an account variable sends its value, a variable defined without value the text `null`, a deleted or
// never defined one nothing; a secret is empty text in every block that exists today, never its value. And a run
// loads the account's variables only when its graph names `account.`.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { graphReads } from '../../server/engine/walk/versions.js';
import type { RunnableVersionRow } from '../../server/store/workflows.js';
import { engineHarness, keyword } from './engine-harness.js';
import { engines } from './harness.js';
import { json } from './http-helpers.js';

const SECRET_VALUE = 'sk_live_TOP-SECRET-4b1a9e';

describe('what a run loads', () => {
  const version = (texts: string[], replies_list_id: string | null = null) =>
    // A test stub: graphReads reads only the id, the blocks' data and the trigger's reply list.
    ({
      id: randomUUID(),
      graph: {
        nodes: Object.fromEntries(texts.map((text, i) => [`m${i}`, { type: 'message', data: { text, next: [null] } }])),
      },
      trigger: { replies_list_id },
    }) as unknown as RunnableVersionRow;

  it('loads the account variables only when the graph names account. (or a reply list may)', () => {
    expect(graphReads(version(['Plano: {account.plano}'])).account).toBe(true);
    expect(graphReads(version(['Olá {contact.first_name}', 'Token {secret.token}'])).account).toBe(false);
    expect(graphReads(version(['Olá'], randomUUID())).account).toBe(true);
  });
});

describe.each(engines)('account variables and secrets in automations on %s', (engine) => {
  const { admin, setUp, publish, runsOf, runOf, sentTexts, contactOf, fieldOf, field, chain, say } =
    engineHarness(engine);

  it('sends the variable, null for one without value, nothing once deleted, and never the secret', async () => {
    const { me, connection, writes } = await setUp();
    const vars = `/accounts/${me.accountId}/variables`;
    await json(await admin('PUT', `${vars}/plano`, { value: 'Premium' }));
    await json(
      await admin('POST', `/accounts/${me.accountId}/secrets`, {
        name: 'token',
        value: SECRET_VALUE,
        domain: 'api.example.com',
      }),
      201,
    );
    await field(me, 'nota');
    const workflowId = await publish(
      me,
      connection.id,
      chain([
        say('m1', 'Plano: {account.plano}. Segredo: {secret.token}.'),
        say('m2', 'Caixa: {account.PLANO}. Outro: {account.nada}.'),
        ['d1', 'data', { name: 'nota', value: 'T={secret.token}' }],
      ]),
      keyword('equals', 'plano'),
    );

    const result = await writes('plano');
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['Plano: Premium. Segredo: .', 'Caixa: . Outro: .']));
    // A data block writes the secret as nothing too; the run's steps never hold it.
    expect(fieldOf(await contactOf(me, result.contact.id), 'nota')).toBe('T=');
    const [run] = await runsOf(me, workflowId);
    expect(run?.status).toBe('completed');
    expect(JSON.stringify(await runOf(me, workflowId, run?.id ?? ''))).not.toContain(SECRET_VALUE);

    // Known without value: the text null.
    await json(await admin('PUT', `${vars}/plano`, { value: null }));
    await writes('plano');
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['Plano: null. Segredo: .']));

    // Deleted: unknown, empty text.
    expect((await admin('DELETE', `${vars}/plano`)).status).toBe(204);
    await writes('plano');
    const texts = await sentTexts(me);
    expect(texts).toEqual(expect.arrayContaining(['Plano: . Segredo: .']));
    expect(texts.filter((t) => t?.includes(SECRET_VALUE))).toEqual([]);
  });
});
