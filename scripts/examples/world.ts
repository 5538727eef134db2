// A small, fixed account that every example is drawn from, so ids and names agree across examples
// (the message's conversation_id is that conversation's id, the tag on a contact exists in the tag list…).
// Seeded: the same world on every run, so `npm run generate` is reproducible.
import { Faker, en, base } from '@faker-js/faker';

export const REFERENCE_DATE = '2026-11-20T14:00:00.000Z';

export type Iso = string;

export function makeFaker(seed: number): Faker {
  const f = new Faker({ locale: [en, base] });
  f.seed(seed);
  f.setDefaultRefDate(REFERENCE_DATE);
  return f;
}

/** ISO 8601 UTC with microsecond precision, `minutes` after (or before) the reference date. */
export function at(minutes: number, micros = 0): Iso {
  const d = new Date(Date.parse(REFERENCE_DATE) + Math.round(minutes * 60_000));
  const us = String(d.getUTCMilliseconds() * 1000 + (micros % 1000)).padStart(6, '0');
  return d.toISOString().replace(/\.\d{3}Z$/, `.${us}Z`);
}

export interface WorldConnection {
  id: string;
  channel: 'instagram' | 'whatsapp';
  name: string;
  username?: string;
  phone?: string;
  status: 'connected' | 'disconnected';
  disconnect_reason: string | null;
  created_at: Iso;
}
export interface WorldTag {
  id: string;
  name: string;
  created_at: Iso;
}
export interface WorldField {
  id: string;
  name: string;
  label: string;
  type: 'number' | 'text' | 'dropdown';
  options?: { value: string; label: string }[];
}
export interface WorldContact {
  id: string;
  person_id: string;
  channel: 'instagram' | 'whatsapp';
  connection_id: string;
  name: string;
  instagram: { id: string; username: string } | null;
  whatsapp: { phone: string } | null;
  created_at: Iso;
  updated_at: Iso;
  last_interaction_at: Iso;
  conversation_id: string;
}

function fullDigits(f: Faker, n: number): string {
  return f.string.numeric({ length: n, allowLeadingZeros: false });
}

export function buildWorld() {
  const f = makeFaker(20261122);
  const uuid = () => f.string.uuid();
  const company = f.company.name();

  const account = {
    id: uuid(),
    name: company,
    alias: f.helpers
      .slugify(company)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')
      .slice(0, 32),
  };
  const apiKey = {
    id: uuid(),
    name: 'CRM sync (production)',
    prefix: 'epk',
    created_at: at(-60 * 24 * 30),
    expires_at: at(60 * 24 * 60),
  };

  const igUsername = account.alias.replace(/-/g, '.');
  const connections = {
    instagram: {
      id: uuid(),
      channel: 'instagram',
      name: company,
      username: igUsername,
      status: 'connected',
      disconnect_reason: null,
      created_at: at(-60 * 24 * 400),
    },
    whatsapp: {
      id: uuid(),
      channel: 'whatsapp',
      name: `${company} Support`,
      phone: `+55119${fullDigits(f, 8)}`,
      status: 'connected',
      disconnect_reason: null,
      created_at: at(-60 * 24 * 380),
    },
    whatsappOld: {
      id: uuid(),
      channel: 'whatsapp',
      name: `${company} Sales`,
      phone: `+55219${fullDigits(f, 8)}`,
      status: 'disconnected',
      disconnect_reason: 'authorization_lost',
      created_at: at(-60 * 24 * 200),
    },
  } satisfies Record<string, WorldConnection>;

  const tagNames = ['VIP', 'Lead', 'Black Friday 2026', 'Newsletter'];
  const tags = tagNames.map((name, i) => ({
    id: uuid(),
    name,
    created_at: at(-60 * 24 * (300 - i * 40)),
  })) satisfies WorldTag[];
  const tag = { vip: tags[0]!, lead: tags[1]!, blackFriday: tags[2]!, newsletter: tags[3]! };

  const fields = {
    email: { id: uuid(), name: 'email', label: 'E-mail', type: 'text' },
    plan: {
      id: uuid(),
      name: 'plano',
      label: 'Plano',
      type: 'dropdown',
      options: [
        { value: 'basic', label: 'Básico' },
        { value: 'pro', label: 'Profissional' },
      ],
    },
    orders: { id: uuid(), name: 'pedidos', label: 'Pedidos', type: 'number' },
    city: { id: uuid(), name: 'cidade', label: 'Cidade', type: 'text' },
  } satisfies Record<string, WorldField>;

  const personAna = uuid();
  const anaFirst = f.person.firstName('female');
  const anaLast = f.person.lastName();
  const brunoFirst = f.person.firstName('male');
  const brunoLast = f.person.lastName();
  const carlaFirst = f.person.firstName('female');
  const carlaLast = f.person.lastName();
  const igId = () => fullDigits(f, 17);
  const contacts = {
    anaInstagram: {
      id: uuid(),
      person_id: personAna,
      channel: 'instagram',
      connection_id: connections.instagram.id,
      name: `${anaFirst} ${anaLast}`,
      instagram: { id: igId(), username: `${anaFirst}.${anaLast}`.toLowerCase() },
      whatsapp: null,
      created_at: at(-60 * 24 * 90),
      updated_at: at(-35),
      last_interaction_at: at(-35),
      conversation_id: uuid(),
    },
    anaWhatsapp: {
      id: uuid(),
      person_id: personAna,
      channel: 'whatsapp',
      connection_id: connections.whatsapp.id,
      name: `${anaFirst} ${anaLast}`,
      instagram: null,
      whatsapp: { phone: `+55119${fullDigits(f, 8)}` },
      created_at: at(-60 * 24 * 20),
      updated_at: at(-12),
      last_interaction_at: at(-12),
      conversation_id: uuid(),
    },
    bruno: {
      id: uuid(),
      person_id: uuid(),
      channel: 'instagram',
      connection_id: connections.instagram.id,
      name: `${brunoFirst} ${brunoLast}`,
      instagram: { id: igId(), username: `${brunoFirst}_${brunoLast}`.toLowerCase() },
      whatsapp: null,
      created_at: at(-60 * 24 * 5),
      updated_at: at(-60 * 3),
      last_interaction_at: at(-60 * 3),
      conversation_id: uuid(),
    },
    carla: {
      id: uuid(),
      person_id: uuid(),
      channel: 'whatsapp',
      connection_id: connections.whatsapp.id,
      name: `${carlaFirst} ${carlaLast}`,
      instagram: null,
      whatsapp: { phone: `+55219${fullDigits(f, 8)}` },
      created_at: at(-60 * 24 * 2),
      updated_at: at(-60 * 26),
      last_interaction_at: at(-60 * 26),
      conversation_id: uuid(),
    },
  } satisfies Record<string, WorldContact>;

  // Ids reserved for the other resources, so examples of different areas can point at each other.
  const ids = {
    messages: Array.from({ length: 12 }, uuid),
    media: Array.from({ length: 4 }, uuid),
    workflows: Array.from({ length: 4 }, uuid),
    versions: Array.from({ length: 3 }, uuid),
    runs: Array.from({ length: 4 }, uuid),
    folders: Array.from({ length: 3 }, uuid),
    repliesLists: Array.from({ length: 2 }, uuid),
    webhooks: Array.from({ length: 3 }, uuid),
    deliveries: Array.from({ length: 4 }, uuid),
    events: Array.from({ length: 20 }, uuid),
    uploads: Array.from({ length: 3 }, uuid),
    posts: Array.from({ length: 2 }, () => fullDigits(f, 17)),
  };

  return { account, apiKey, connections, tags, tag, fields, contacts, ids, company };
}

export type World = ReturnType<typeof buildWorld>;

/** A named example as it goes into `spec/components/examples/<area>/<Name>.yaml`. */
export interface Example {
  summary: string;
  description?: string;
  value: unknown;
}
export type ExampleSet = Record<string, Example>;
export type AreaBuilder = (world: World, faker: Faker) => ExampleSet;
