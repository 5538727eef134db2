// The README's quickstart with the typed client: create a whatsapp contact, tag it, read it back.
//
//   npm start                                   # in one terminal: prints the demo API key
//   API_KEY=epk_… npm run quickstart            # in another; BASE_URL=http://… for a server elsewhere
//                                               # (default http://127.0.0.1:3000)
//
// test/server/quickstart.test.ts runs `quickstart` against a test server, so this file stays true.
import { fileURLToPath } from 'node:url';
import { createClient, errorCode, type ApiClient, type components } from '../client/index.js';
import { baseUrl, check, runExample, settings } from './check.js';

type Contact = components['schemas']['Contact'];

export async function quickstart(api: ApiClient, phone = '+5511987654321'): Promise<Contact> {
  // 1. The whatsapp number the contact is created on (POST /v1/contacts needs a connected one).
  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const whatsapp = connections.data.find((c) => c.channel === 'whatsapp' && c.status === 'connected');
  if (!whatsapp) throw new Error('the account has no connected whatsapp number');

  // 2. A tag; if it exists already (any letter case), 409 tag_already_exists tells its id.
  const created = await api.POST('/v1/tags', { body: { name: 'Quickstart' } });
  const tagId =
    created.data?.id ??
    (errorCode(created.error) === 'tag_already_exists'
      ? (created.error as { context: { tag_id: string } }).context.tag_id
      : check(created, 'create tag').id);

  // 3. Create the contact (201), or update it when the phone is known (200, same id). Safe to repeat.
  const contact = check(
    await api.POST('/v1/contacts', {
      body: { phone, name: 'Ana Souza', connection_id: whatsapp.id, consent: true },
    }),
    'create contact',
  );

  // 4. Tag it, then read it back.
  check(
    await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', { params: { path: { contactId: contact.id, tagId } } }),
    'tag contact',
  );
  return check(
    await api.GET('/v1/contacts/{contactId}', { params: { path: { contactId: contact.id } } }),
    'read contact',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { API_KEY } = settings('API_KEY');
  await runExample(async () => {
    const contact = await quickstart(createClient({ baseUrl: baseUrl(), apiKey: API_KEY }));
    console.log(JSON.stringify(contact, null, 2));
  });
}
