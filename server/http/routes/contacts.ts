// The contact routes: the list, one contact, POST /v1/contacts, tags and custom-field values on a contact,
// and the holders of a tag. The rules live in domain/contacts.
import {
  createOrUpdateWhatsappContact,
  getContact,
  listContacts,
  type ContactListQuery,
} from '../../domain/contacts/contacts.js';
import { keyActor } from '../../domain/accounts/actor.js';
import { clearValue, putTag, removeTag, setValues } from '../../domain/contacts/holdings.js';
import { listTagHolders } from '../../domain/contacts/tag-holders.js';
import type { Handlers } from '../context.js';
import { pageRequest, stringParam } from '../page.js';

export const contactHandlers: Handlers = {
  listContacts: async ({ app, caller, query }) => {
    const filters: ContactListQuery = {};
    for (const name of ['updated_since', 'phone', 'instagram_username', 'instagram_id'] as const) {
      const value = stringParam(query[name]);
      if (value !== undefined) filters[name] = value;
    }
    return {
      status: 200,
      body: await listContacts(app.database.db, app.clock, caller.account.id, filters, pageRequest(query)),
    };
  },
  createContact: async ({ app, caller, body }) => {
    const result = await createOrUpdateWhatsappContact(
      app.database.db,
      app.clock,
      caller.account.id,
      body,
      keyActor(caller.key),
    );
    return { status: result.status, body: result.contact };
  },
  getContact: async ({ app, caller, params }) => ({
    status: 200,
    body: await getContact(app.database.db, caller.account.id, params.contactId),
  }),
  addContactTag: async ({ app, caller, params }) => ({
    status: 200,
    body: await putTag(
      app.database.db,
      app.clock,
      caller.account.id,
      params.contactId,
      params.tagId,
      keyActor(caller.key),
    ),
  }),
  removeContactTag: async ({ app, caller, params }) => ({
    status: 200,
    body: await removeTag(
      app.database.db,
      app.clock,
      caller.account.id,
      params.contactId,
      params.tagId,
      keyActor(caller.key),
    ),
  }),
  updateContactCustomFields: async ({ app, caller, params, body }) => ({
    status: 200,
    body: await setValues(
      app.database.db,
      app.clock,
      caller.account.id,
      params.contactId,
      body.custom_fields,
      keyActor(caller.key),
    ),
  }),
  clearContactCustomField: async ({ app, caller, params }) => ({
    status: 200,
    body: await clearValue(
      app.database.db,
      app.clock,
      caller.account.id,
      params.contactId,
      params.fieldId,
      keyActor(caller.key),
    ),
  }),
  listTagContacts: async ({ app, caller, params, query }) => ({
    status: 200,
    body: await listTagHolders(
      app.database.db,
      app.clock,
      caller.account.id,
      params.tagId,
      stringParam(query.tagged_since),
      pageRequest(query),
    ),
  }),
};
