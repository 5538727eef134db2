// The README's automation that reaches out (examples/automation-integrations.ts) against a real server on PGlite
// (walkthroughEngines: the example is published text; invoke, sheets and tracked links run on both engines in
// engine-invoke, engine-sheets and tracked-links.test.ts): a sandbox instagram contact answers a question; an invoke block posts the answer to a local
// CRM that checks the JSON body and the secret header and answers JSON copied into a field; a sheets block
// appends a row the sandbox spreadsheet then shows; the contact opens the tracked link, whose link.clicked
// reaches the webhook receiver, signed, and the run follows the link's output to its end. A job worker runs
// beside the app as in `npm start`.
import { describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import {
  automationIntegrations,
  CITY_FIELD,
  LEAD_COLUMNS,
  OFFER_URL,
  SECRET_NAME,
} from '../../examples/automation-integrations.js';
import { createAdminClient } from '../../examples/sandbox-exchange.js';
import { exampleServer } from './example-server.js';
import { walkthroughEngines } from './harness.js';

const ADMIN_TOKEN = 'automation-integrations-admin-token-0123456789';

describe.each(walkthroughEngines)('the automation that reaches out on %s', (engine) => {
  const server = exampleServer(engine, ADMIN_TOKEN, 'automation-integrations');

  it('answers, calls the CRM with the secret, copies its answer, appends the row, opens the link and completes', async () => {
    const demo = await ensureDemoAccount(server.t.database.db, server.t.clock, server.dataDir);
    const api = createClient({ baseUrl: server.t.baseUrl, apiKey: demo.apiKey });
    const admin = createAdminClient(server.t.baseUrl, ADMIN_TOKEN);
    const progress: string[] = [];
    const x = await automationIntegrations(api, admin, server.receiver.url, server.receiver, {
      log: (l) => progress.push(l),
    });

    // The CRM got one POST /leads: the JSON body with the answer and the contact, the secret as the bearer token
    // (its host is the secret's domain), JSON by default, and the idempotency header of the run's step.
    expect(x.crm.requests).toHaveLength(1);
    const [call] = x.crm.requests;
    expect(call).toMatchObject({
      method: 'POST',
      path: '/leads',
      authorization: `Bearer ${x.secretValue}`,
      contentType: 'application/json',
      body: { city: 'Campinas', contact_id: x.contactId, source: 'instagram' },
    });
    expect(call!.idempotencyKey).toMatch(new RegExp(`^${x.completed.id}:\\d+$`));

    // Its answer's tier went into the field; the answer went into `cidade`.
    expect(x.contact.custom_fields).toContainEqual(expect.objectContaining({ name: x.tierField, value: 'ouro' }));
    expect(x.contact.custom_fields).toContainEqual(expect.objectContaining({ name: CITY_FIELD, value: 'Campinas' }));

    // The spreadsheet had its header alone; now one row more, the contact's, the tag's value and the timestamp.
    expect(x.spreadsheetBefore.tabs[0]!.rows).toEqual([LEAD_COLUMNS]);
    const rows = x.spreadsheetAfter.tabs[0]!.rows;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual(LEAD_COLUMNS);
    expect(rows[1]!.slice(0, 4)).toEqual(['Rita Campos', 'Campinas', 'ouro', 'true']);
    expect(Number(rows[1]![4])).toBeGreaterThan(0);

    // The link: a tracking address of the service, a 302 to the offer, one link.clicked, signed, every field.
    expect(x.link.address.startsWith(`${server.t.baseUrl}/links/`)).toBe(true);
    expect(x.link).toMatchObject({ status: 302, location: OFFER_URL });
    expect(x.clicked).toMatchObject({ outcome: 'accepted', attempt: 1 });
    const clicked = JSON.parse(x.clicked.body) as { type: string; data: Record<string, unknown> };
    expect(clicked.type).toBe('link.clicked');
    expect(clicked.data).toMatchObject({
      workflow_id: x.workflow.id,
      run_id: x.completed.id,
      contact_id: x.contactId,
      node_id: 'cupom',
      button_id: 'ver_cupom',
      url: OFFER_URL,
    });

    // The run followed every block, the invoke's success output and the link's output, to its end.
    expect(x.completed.steps.map((s) => [s.node_id, s.status, s.output])).toEqual([
      ['root', 'completed', 0],
      ['cidade', 'completed', 0],
      ['crm', 'completed', 0],
      ['planilha', 'completed', 0],
      ['cupom', 'completed', 0],
      ['obrigado', 'completed', 0],
    ]);
    const crmStep = x.completed.steps.find((s) => s.node_id === 'crm');
    expect(crmStep?.call).toMatchObject({
      method: 'POST',
      host: new URL(x.crm.url).host,
      status: 200,
      attempts: 1,
    });
    // The secret's value is nowhere in what the API shows of the run, nor in what reached the receiver.
    expect(JSON.stringify(x.completed)).not.toContain(x.secretValue);
    for (const r of server.receiver.requests) expect(r.body).not.toContain(x.secretValue);
    expect(JSON.stringify(x.completed)).not.toContain(SECRET_NAME + '}');
    expect(progress.length).toBeGreaterThanOrEqual(7);
  });
});
