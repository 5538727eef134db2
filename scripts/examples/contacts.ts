// Examples of the account and contacts area: GET /v1/me, contacts, tags, custom fields, connections.
// Every example is drawn from the seeded world, so ids and names agree with the other areas.
// `contactOf` and `connectionOf` are exported so event examples (webhooks area) show the same resources.
import type { Faker } from '@faker-js/faker';
import type { AreaBuilder, ExampleSet, World, WorldConnection, WorldField } from './world.js';
import { at } from './world.js';

type ContactKey = keyof World['contacts'];
type TagKey = keyof World['tag'];
type FieldKey = keyof World['fields'];
type Value = number | string;

/** An e-mail address derived from a contact's name (`Ana Souza` → `ana.souza@example.com`). */
function emailOf(name: string): string {
  return `${name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z ]/g, '')
    .trim()
    .replace(/ +/g, '.')}@example.com`;
}

/** The tags and values each world contact holds in the examples (tags in the order the contact got them). */
export function contactState(
  w: World,
): Record<ContactKey, { tags: TagKey[]; values: Partial<Record<FieldKey, Value>> }> {
  return {
    anaInstagram: { tags: ['vip', 'lead'], values: { email: emailOf(w.contacts.anaInstagram.name), plan: 'pro' } },
    anaWhatsapp: { tags: ['vip'], values: { city: 'São Paulo', orders: 3 } },
    bruno: { tags: ['lead'], values: {} },
    carla: { tags: ['blackFriday'], values: { orders: 1 } },
  };
}

/** When each contact got each of its tags (GET /v1/tags/{tagId}/contacts is ordered by it). */
const TAGGED_AT: Record<ContactKey, Partial<Record<TagKey, string>>> = {
  anaInstagram: { vip: at(-60 * 24 * 89, 118), lead: at(-60 * 24 * 60, 402) },
  anaWhatsapp: { vip: at(-60 * 24 * 19, 77) },
  bruno: { lead: at(-60 * 24 * 5, 930) },
  carla: { blackFriday: at(-60 * 24 * 2, 215) },
};

export function tagSummary(w: World, key: TagKey) {
  return { id: w.tag[key].id, name: w.tag[key].name };
}

export function fieldValue(w: World, key: FieldKey, value: Value | null) {
  const field: WorldField = w.fields[key];
  return { field_id: field.id, name: field.name, type: field.type, value };
}

function sortedValues(w: World, values: Partial<Record<FieldKey, Value>>) {
  return (Object.entries(values) as [FieldKey, Value][])
    .map(([k, v]) => fieldValue(w, k, v))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A world contact as the API returns it, optionally with other tags and values. */
export function contactOf(
  w: World,
  key: ContactKey,
  override: { tags?: TagKey[]; values?: Partial<Record<FieldKey, Value>>; name?: string } = {},
) {
  const c = w.contacts[key];
  const state = contactState(w)[key];
  return {
    id: c.id,
    channel: { type: c.channel, connection_id: c.connection_id },
    instagram: c.instagram,
    whatsapp: c.whatsapp,
    name: override.name ?? c.name,
    person_id: c.person_id,
    tags: (override.tags ?? state.tags).map((t) => tagSummary(w, t)),
    custom_fields: sortedValues(w, override.values ?? state.values),
    last_interaction_at: c.last_interaction_at,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** A world connection as GET /v1/connections lists it. */
export function connectionOf(c: WorldConnection) {
  return {
    id: c.id,
    channel: c.channel,
    name: c.name,
    status: c.status,
    disconnect_reason: c.disconnect_reason,
    instagram: c.channel === 'instagram' ? { username: c.username ?? '' } : null,
    whatsapp: c.channel === 'whatsapp' ? { phone: c.phone ?? '' } : null,
    created_at: c.created_at,
  };
}

/** An opaque, realistic-looking cursor (the server's are signed keyset positions). */
function cursor(f: Faker, list: string, position: Record<string, string>): string {
  const body = Buffer.from(JSON.stringify({ l: list, ...position })).toString('base64url');
  return `${body}.${f.string.alphanumeric(22)}`;
}

/** The same Brazilian mobile without its ninth digit (+55 AA 9XXXXXXXX → +55 AA XXXXXXXX). */
function withoutNinthDigit(phone: string): string {
  return phone.replace(/^\+55(\d{2})9(\d{8})$/, '+55$1$2');
}

const build: AreaBuilder = (w, f) => {
  const err = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });
  const list = (data: unknown[], next: string | null) => ({ data, next_cursor: next });
  const { contacts: c, connections: conn, fields, tag } = w;

  // ---------------------------------------------------------------- account
  const me = {
    account: { id: w.account.id, name: w.account.name, alias: w.account.alias },
    api_key: {
      id: w.apiKey.id,
      name: w.apiKey.name,
      scopes: ['contacts:read', 'contacts:write', 'conversations:read', 'messages:send'],
      created_at: w.apiKey.created_at,
      expires_at: w.apiKey.expires_at,
    },
  };

  // ---------------------------------------------------------------- contacts
  // Least recently active first: carla, bruno, ana (instagram), ana (whatsapp).
  const byActivity: ContactKey[] = ['carla', 'bruno', 'anaInstagram', 'anaWhatsapp'];
  const contactCursor = cursor(f, 'contacts', { u: c.bruno.updated_at, i: c.bruno.id });

  // A new whatsapp contact created by POST /v1/contacts.
  const newContactId = f.string.uuid();
  const newPhone = `+55119${f.string.numeric({ length: 8, allowLeadingZeros: false })}`;
  const newName = `${f.person.firstName('female')} ${f.person.lastName()}`;
  const created = at(-2, 381);
  const newContact = {
    id: newContactId,
    channel: { type: 'whatsapp', connection_id: conn.whatsapp.id },
    instagram: null,
    whatsapp: { phone: newPhone },
    name: newName,
    person_id: f.string.uuid(),
    tags: [tagSummary(w, 'lead'), tagSummary(w, 'newsletter')],
    custom_fields: sortedValues(w, { email: emailOf(newName), plan: 'basic' }),
    last_interaction_at: created,
    created_at: created,
    updated_at: created,
  };

  // Carla exists: POST /v1/contacts with her phone (without the ninth digit) updates her and keeps her id.
  const carlaPhoneShort = withoutNinthDigit(c.carla.whatsapp.phone);
  const carlaAfterImport = contactOf(w, 'carla', {
    name: `${c.carla.name} Oliveira`,
    tags: ['blackFriday', 'newsletter'],
    values: { orders: 2, plan: 'pro' },
  });

  // ---------------------------------------------------------------- tags
  const tagOf = (k: TagKey) => ({ id: tag[k].id, name: tag[k].name, created_at: tag[k].created_at });
  const newTag = { id: f.string.uuid(), name: 'Recompra dezembro', created_at: at(-1, 602) };
  const tagCursor = cursor(f, 'tags', { c: tag.lead.created_at, i: tag.lead.id });
  const taggedCursor = cursor(f, `tags/${tag.vip.id}/contacts`, {
    t: TAGGED_AT.anaInstagram.vip!,
    i: c.anaInstagram.id,
  });
  const manyWorkflows = [...w.ids.workflows, ...Array.from({ length: 46 }, () => f.string.uuid())];

  // ---------------------------------------------------------------- custom fields
  const customField = (k: FieldKey) => {
    const fd: WorldField = fields[k];
    return { id: fd.id, name: fd.name, label: fd.label, type: fd.type, options: fd.options ?? null };
  };
  const plan = fields.plan;
  const sortedFields = (Object.keys(fields) as FieldKey[])
    .map(customField)
    .sort((a, b) => a.name.localeCompare(b.name));
  const allConnections = [conn.instagram, conn.whatsapp, conn.whatsappOld].map(connectionOf);

  const set: ExampleSet = {
    // ---------------------------------------------------------------- GET /v1/me
    AccountAndKey: {
      summary: 'Account and key',
      description: 'The key has the scopes of a CRM integration and expires in 60 days.',
      value: me,
    },

    // ---------------------------------------------------------------- GET /v1/contacts
    ContactListFirstPage: {
      summary: 'First page (limit=2)',
      description: 'Least recently active first. Pass `next_cursor` as `cursor` to read the next page.',
      value: list(
        byActivity.slice(0, 2).map((k) => contactOf(w, k)),
        contactCursor,
      ),
    },
    ContactListLastPage: {
      summary: 'Last page',
      description: '`next_cursor` is null: the list is read to the end.',
      value: list(
        byActivity.slice(2).map((k) => contactOf(w, k)),
        null,
      ),
    },
    ContactListByPhone: {
      summary: 'Filtered by phone',
      description: `\`?phone=${encodeURIComponent(carlaPhoneShort)}\`: a Brazilian mobile sent without its ninth digit finds the contact stored with it.`,
      value: list([contactOf(w, 'carla')], null),
    },
    ContactListByInstagramUsername: {
      summary: 'Filtered by instagram username',
      description: `\`?instagram_username=%40${c.bruno.instagram.username}\`: with or without \`@\`.`,
      value: list([contactOf(w, 'bruno')], null),
    },
    ContactListEmpty: {
      summary: 'No match',
      description: 'A filter that matches no contact answers an empty page, not 404.',
      value: list([], null),
    },

    // ---------------------------------------------------------------- GET /v1/contacts/{contactId}
    ContactInstagram: {
      summary: 'An instagram contact',
      description: 'The same person also has a whatsapp contact with the same `person_id`.',
      value: contactOf(w, 'anaInstagram'),
    },
    ContactWhatsapp: {
      summary: 'A whatsapp contact',
      value: contactOf(w, 'anaWhatsapp'),
    },

    // ---------------------------------------------------------------- POST /v1/contacts
    CreateContactMinimal: {
      summary: 'Minimal whatsapp contact',
      value: { phone: newPhone, name: newName, connection_id: conn.whatsapp.id, consent: true },
    },
    CreateContactWithTagsAndValues: {
      summary: 'With tags and values',
      description: 'Tags and values are added; those the contact already has and those not sent are left alone.',
      value: {
        phone: newPhone,
        name: newName,
        connection_id: conn.whatsapp.id,
        consent: true,
        tag_ids: [tag.lead.id, tag.newsletter.id],
        custom_fields: [
          { field_id: fields.email.id, value: newContact.custom_fields[0]!.value },
          { field_id: plan.id, value: 'basic' },
        ],
      },
    },
    CreateContactDropdownByLabel: {
      summary: 'Existing phone, dropdown by label',
      description:
        'The phone is sent without the ninth digit and finds the existing contact (answer 200). The dropdown ' +
        `takes the option label "${plan.options[1]!.label}" and stores its value "${plan.options[1]!.value}"; the number field takes a JSON number.`,
      value: {
        phone: carlaPhoneShort,
        name: carlaAfterImport.name,
        connection_id: conn.whatsapp.id,
        consent: true,
        tag_ids: [tag.newsletter.id],
        custom_fields: [
          { field_id: plan.id, value: plan.options[1]!.label },
          { field_id: fields.orders.id, value: 2 },
        ],
      },
    },
    ContactCreated: {
      summary: 'Created (201)',
      description: 'A new contact, with the tags and values sent. A `contact.created` event carries them.',
      value: newContact,
    },
    ContactUpdatedByImport: {
      summary: 'Existing contact updated (200)',
      description:
        'Same id as before. The name is overwritten, the tag and values sent are added, the other tag is kept, ' +
        'and `updated_at` did not move.',
      value: carlaAfterImport,
    },
    ContactOutcomeUnknown: {
      summary: 'Outcome unknown',
      description: 'Read the contact by phone (`GET /v1/contacts?phone=`), then repeat with a new Idempotency-Key.',
      value: err(
        'outcome_unknown',
        'Whether the contact was written cannot be known. Check, then retry with a new key.',
      ),
    },
    ContactOutcomeUnknownReplayed: {
      summary: 'Key holds an unknown outcome',
      description: 'The first request with this key stopped before answering. Repeat with a new key.',
      value: err(
        'outcome_unknown',
        'The first request with this Idempotency-Key stopped before answering. Retry with a new key.',
      ),
    },
    InvalidCustomFieldValueExpectedNumber: {
      summary: 'Numeric string for a number field',
      description: `\`{"field_id": "${fields.orders.id}", "value": "2"}\`: a number field takes a JSON number.`,
      value: err('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [{ field_id: fields.orders.id, reason: 'expected_number' }],
      }),
    },
    InvalidCustomFieldValueExpectedString: {
      summary: 'Number for a text field',
      value: err('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [{ field_id: fields.city.id, reason: 'expected_string' }],
      }),
    },
    InvalidCustomFieldValueInvalidNumber: {
      summary: 'Number out of range',
      value: err('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [{ field_id: fields.orders.id, reason: 'invalid_number' }],
      }),
    },
    InvalidCustomFieldValueInvalidOption: {
      summary: 'Not an option of the dropdown',
      description: `"Premium" is neither the value nor the label of an option of \`${plan.name}\`.`,
      value: err('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [{ field_id: plan.id, reason: 'invalid_option' }],
      }),
    },
    InvalidCustomFieldValueDuplicateField: {
      summary: 'Same field twice',
      value: err('invalid_custom_field_value', 'Some values were refused; none was written.', {
        errors: [{ field_id: fields.email.id, reason: 'duplicate_field' }],
      }),
    },
    ContactTagNotFound: {
      summary: 'A tag that was deleted',
      value: err('tag_not_found', 'Some tags are not in the account.', { tag_ids: [f.string.uuid()] }),
    },
    ContactConnectionDisconnected: {
      summary: 'Disconnected whatsapp number',
      description: `\`${conn.whatsappOld.id}\` is a whatsapp number of the account, but it is disconnected.`,
      value: err('invalid_connection', 'connection_id is not a connected whatsapp number of the account.'),
    },
    ContactPhoneWithoutPlus: {
      summary: 'Foreign number without +',
      description: '`"phone": "14155550123"` is read as a Brazilian number, which it cannot be. Send `+14155550123`.',
      value: err('invalid_phone', 'No contact can have this phone number. Non-Brazilian numbers need a leading +.'),
    },

    // ---------------------------------------------------------------- PUT/DELETE /v1/contacts/{contactId}/tags/{tagId}
    ContactTagsAfterAdd: {
      summary: 'Tag put on',
      description: `PUT ${tag.newsletter.name} on the contact: it comes last. Repeating the PUT answers the same.`,
      value: { contact_id: c.anaWhatsapp.id, tags: [tagSummary(w, 'vip'), tagSummary(w, 'newsletter')] },
    },
    ContactTagsAfterRemove: {
      summary: 'Tag taken off',
      description: `DELETE ${tag.vip.name}: also taken off the person's instagram contact.`,
      value: { contact_id: c.anaWhatsapp.id, tags: [] },
    },

    // ---------------------------------------------------------------- PATCH/DELETE custom fields of a contact
    SetCustomFieldValues: {
      summary: 'Number, text and dropdown by value',
      value: {
        custom_fields: [
          { field_id: fields.orders.id, value: 4 },
          { field_id: fields.city.id, value: 'Campinas' },
          { field_id: plan.id, value: plan.options[0]!.value },
        ],
      },
    },
    SetDropdownByLabel: {
      summary: 'Dropdown by label',
      description: `The label "${plan.options[1]!.label}" is stored as the option value "${plan.options[1]!.value}".`,
      value: { custom_fields: [{ field_id: plan.id, value: plan.options[1]!.label }] },
    },
    ContactCustomFieldsAfterSet: {
      summary: 'Values after the change',
      description: 'Every value of the contact, ordered by field name, not only those written.',
      value: {
        contact_id: c.anaWhatsapp.id,
        custom_fields: sortedValues(w, { city: 'Campinas', orders: 4, plan: plan.options[0]!.value }),
      },
    },
    ContactCustomFieldsAfterClear: {
      summary: 'Values after the clear',
      description: `DELETE of \`${fields.city.name}\`: the field is gone from the list; the other values stay.`,
      value: { contact_id: c.anaWhatsapp.id, custom_fields: sortedValues(w, { orders: 3 }) },
    },

    // ---------------------------------------------------------------- /v1/tags
    TagListFirstPage: {
      summary: 'First page (limit=2)',
      description: 'Oldest first.',
      value: list([tagOf('vip'), tagOf('lead')], tagCursor),
    },
    TagListLastPage: {
      summary: 'Last page',
      description: 'A tag created while paging shows up at the end.',
      value: list([tagOf('blackFriday'), tagOf('newsletter'), newTag], null),
    },
    CreateTag: { summary: 'Create a tag', value: { name: newTag.name } },
    TagCreated: { summary: 'Created tag', value: newTag },
    TagVip: { summary: 'A tag', value: tagOf('vip') },
    RenameTag: { summary: 'Rename', value: { name: 'Clientes VIP' } },
    RenameTagCaseOnly: {
      summary: 'Change the letter case only',
      description: 'Allowed when no automation names the tag.',
      value: { name: tag.newsletter.name.toUpperCase() },
    },
    TagRenamed: {
      summary: 'Renamed tag',
      description: 'Contacts holding the tag now show the new name.',
      value: { ...tagOf('vip'), name: 'Clientes VIP' },
    },
    TagAlreadyExistsOtherCase: {
      summary: 'Name taken in another letter case',
      description: `\`{"name": "${tag.lead.name.toLowerCase()}"}\` while "${tag.lead.name}" exists.`,
      value: err('tag_already_exists', `A tag named "${tag.lead.name}" already exists.`, { tag_id: tag.lead.id }),
    },
    TagInUseCaseOnlyRename: {
      summary: 'Case-only rename of a tag automations name',
      description: 'Automations compare tag names exactly, so even a change of letter case is refused.',
      value: err('tag_in_use', 'Automations name this tag.', { workflow_ids: [w.ids.workflows[0]], workflow_count: 1 }),
    },
    TagInUseManyWorkflows: {
      summary: 'Named by more than 50 automations',
      description: '`workflow_ids` holds 50 of them; `workflow_count` says how many there are.',
      value: err('tag_in_use', 'Automations name this tag.', { workflow_ids: manyWorkflows, workflow_count: 63 }),
    },

    // ---------------------------------------------------------------- GET /v1/tags/{tagId}/contacts
    TagContactsFirstPage: {
      summary: 'First page (limit=1)',
      description: `Holders of ${tag.vip.name} in the order they got it.`,
      value: list([{ tagged_at: TAGGED_AT.anaInstagram.vip, contact: contactOf(w, 'anaInstagram') }], taggedCursor),
    },
    TagContactsLastPage: {
      summary: 'Last page',
      value: list([{ tagged_at: TAGGED_AT.anaWhatsapp.vip, contact: contactOf(w, 'anaWhatsapp') }], null),
    },

    // ---------------------------------------------------------------- GET /v1/custom-fields
    CustomFieldsAll: {
      summary: 'All custom fields',
      description: 'Ordered by name. Only `dropdown` fields have `options`.',
      value: list(sortedFields, null),
    },
    CustomFieldsFirstPage: {
      summary: 'First page (limit=2)',
      value: list(
        sortedFields.slice(0, 2),
        cursor(f, 'custom-fields', { n: sortedFields[1]!.name, i: sortedFields[1]!.id }),
      ),
    },
    CustomFieldsLastPage: {
      summary: 'Last page',
      value: list(sortedFields.slice(2), null),
    },

    // ---------------------------------------------------------------- GET /v1/connections
    ConnectionsAll: {
      summary: 'All connections',
      description: `Oldest first. The "${conn.whatsappOld.name}" whatsapp number lost its authorization and must be reconnected in the console.`,
      value: list(allConnections, null),
    },
    ConnectionsFirstPage: {
      summary: 'First page (limit=2)',
      value: list(
        allConnections.slice(0, 2),
        cursor(f, 'connections', { c: conn.whatsapp.created_at, i: conn.whatsapp.id }),
      ),
    },
    ConnectionsLastPage: {
      summary: 'Last page',
      value: list(allConnections.slice(2), null),
    },
  };
  return set;
};
export default build;
