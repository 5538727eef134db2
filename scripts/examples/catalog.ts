// Examples of the catalog area: the response of GET /v1/workflow-graph-schema, embedding the real catalog
// (spec/catalog/graph-nodes.schema.json), so the docs and the mock serve exactly what the service serves.
//
// `catalogGraphs(world)` also exports sample graphs (`graph.nodes` values) that follow the catalog, drawn from
// the example world, for other areas' examples (workflow bodies, versions) and for tests.
import { readFileSync } from 'node:fs';
import type { AreaBuilder, World } from './world.js';

const catalogUrl = new URL('../../spec/catalog/graph-nodes.schema.json', import.meta.url);
const versionUrl = new URL('../../spec/catalog/catalog-version.json', import.meta.url);

export function readCatalog(): Record<string, unknown> {
  return JSON.parse(readFileSync(catalogUrl, 'utf8')) as Record<string, unknown>;
}

export function readCatalogVersion(): string {
  return (JSON.parse(readFileSync(versionUrl, 'utf8')) as { catalog_version: string }).catalog_version;
}

export type GraphNodes = Record<
  string,
  { type: string; data: Record<string, unknown>; position?: { x: number; y: number } }
>;

/** Places blocks on a grid: column c, row r. */
const at = (c: number, r: number) => ({ x: c * 320, y: r * 200 });

/**
 * Sample graphs. `blackFriday` is an instagram lead-capture automation that uses every block type of the
 * catalog; `whatsappWelcome` a short whatsapp one.
 */
export function catalogGraphs(w: World): { blackFriday: GraphNodes; whatsappWelcome: GraphNodes } {
  const tagBlackFriday = w.tag.blackFriday.name;
  const tagLead = w.tag.lead.name;
  const tagVip = w.tag.vip.name;
  const nulls = (n: number) => Array.from({ length: n }, () => null);

  const blackFriday: GraphNodes = {
    root: { type: 'root', data: { next: ['boas_vindas'] }, position: at(0, 0) },
    boas_vindas: {
      type: 'message',
      data: { text: 'Oi {contact.first_name}! A Black Friday chegou, com até 40% de desconto.', next: ['menu'] },
      position: at(1, 0),
    },
    menu: {
      type: 'buttons',
      data: {
        subtitle: 'O que você quer fazer?',
        buttons: [
          { id: 'btn_ofertas', title: 'Ver ofertas', url: 'https://shop.example.com/black-friday' },
          { id: 'btn_cupom', title: 'Quero um cupom' },
          {
            id: 'btn_whatsapp',
            title: 'Falar no WhatsApp',
            whatsapp_connection_id: w.connections.whatsapp.id,
            whatsapp_message: 'Oi! Quero ajuda com a Black Friday',
          },
        ],
        next: ['nota_link', 'pedir_email', 'atendimento_whatsapp', null],
      },
      position: at(2, 0),
    },
    nota_link: {
      type: 'comment',
      data: { text: 'A link click does not open the 24-hour window on instagram.', next: ['marcar_interesse'] },
      position: at(3, -1),
    },
    marcar_interesse: {
      type: 'tags',
      data: { operation: 'add', tags: [tagBlackFriday], next: [null] },
      position: at(4, -1),
    },
    pedir_email: {
      type: 'question',
      data: {
        text: 'Qual é o seu e-mail?',
        answer_type: 'any',
        answer_field: w.fields.email.name,
        next: ['tem_email'],
      },
      position: at(3, 0),
    },
    tem_email: {
      type: 'conditional',
      data: {
        conditions: [
          { field_type: 'custom_field', field_name: w.fields.email.name, operator: 'has_field' },
          { field_type: 'variable', field_name: w.fields.email.name, operator: 'field_contains', value: '@' },
        ],
        combinator: 'and',
        next: ['marcar_lead', 'email_invalido'],
      },
      position: at(4, 0),
    },
    email_invalido: {
      type: 'message',
      data: { text: 'Hmm, isso não parece um e-mail. Vamos tentar de novo?', next: ['pedir_email'] },
      position: at(4, 1),
    },
    marcar_lead: {
      type: 'tags',
      data: { operation: 'add', tags: [tagLead, tagBlackFriday], next: ['plano_inicial'] },
      position: at(5, 0),
    },
    plano_inicial: {
      type: 'data',
      data: { name: w.fields.plan.name, value: 'basic', next: ['contar_contato'] },
      position: at(6, 0),
    },
    contar_contato: {
      type: 'math',
      data: {
        result_field: w.fields.orders.name,
        operand_a: { type: 'field', value: w.fields.orders.name },
        operand_b: { type: 'constant', value: '1' },
        operator: 'add',
        next: ['registrar_crm'],
      },
      position: at(7, 0),
    },
    registrar_crm: {
      type: 'invoke',
      data: {
        method: 'POST',
        endpoint: 'https://crm.example.com/v1/leads',
        headers: [
          { name: 'Authorization', value: 'Bearer {secret.crm_token}' },
          { name: 'Content-Type', value: 'application/json' },
        ],
        data: '{"email": "{email}", "name": "{contact.name}", "instagram": "{contact.alias}"}',
        fields: [{ path: '$.lead.plan', name: w.fields.plan.name }],
        next: ['salvar_planilha', 'esperar_crm'],
      },
      position: at(8, 0),
    },
    esperar_crm: {
      type: 'sleep',
      data: { seconds: 600, next: ['registrar_crm'] },
      position: at(8, 1),
    },
    salvar_planilha: {
      type: 'sheets',
      data: {
        sheets_external_id: 'acct_8842193',
        spreadsheet_id: '1Qm3vRk7TzL0bXw9eYhC2nPaD5sFgJ6uK4oI8tE1yN0w',
        spreadsheet_name: 'Leads Black Friday',
        tab_title: 'Leads',
        operation: 'upsert',
        match: [{ column: 'Email', value: '{email}' }],
        values: {
          Email: '{email}',
          Nome: '{contact.name}',
          Quando: '$timestamp',
          VIP: `{contact.tag.${tagVip.toLowerCase()}}`,
        },
        next: ['sortear_cupom'],
      },
      position: at(9, 0),
    },
    sortear_cupom: {
      type: 'randomizer',
      data: {
        options: [
          { id: 'opt_bf10', percentage: 50 },
          { id: 'opt_bf15', percentage: 50 },
        ],
        next: ['cupom_10', 'cupom_15'],
      },
      position: at(10, 0),
    },
    cupom_10: {
      type: 'message',
      data: { text: 'Seu cupom: BF10 (10% off até domingo).', next: ['vitrine'] },
      position: at(11, -1),
    },
    cupom_15: {
      type: 'message',
      data: { text: 'Seu cupom: BF15 (15% off até domingo).', next: ['vitrine'] },
      position: at(11, 1),
    },
    vitrine: {
      type: 'cards',
      data: {
        caption: 'Os mais vendidos',
        cards: [
          {
            title: 'Tênis Corrida X',
            subtitle: 'De R$ 499 por R$ 299',
            upload_id: w.ids.uploads[0],
            buttons: [{ id: 'btn_tenis', title: 'Comprar', url: 'https://shop.example.com/p/tenis-x' }],
          },
          {
            title: 'Mochila Urbana',
            subtitle: 'De R$ 259 por R$ 159',
            upload_id: w.ids.uploads[1],
            buttons: [{ id: 'btn_mochila', title: 'Comprar', url: 'https://shop.example.com/p/mochila' }],
          },
        ],
        next: [...nulls(30), 'enviar_catalogo'],
      },
      position: at(12, 0),
    },
    enviar_catalogo: {
      type: 'media',
      data: { upload_id: w.ids.uploads[2], next: ['continuar_whatsapp'] },
      position: at(13, 0),
    },
    continuar_whatsapp: {
      type: 'multichannel',
      data: {
        mode: 'first',
        channels: [{ id: 'ch_whatsapp', provider: 'whatsapp', connection_id: w.connections.whatsapp.id }],
        next: ['pos_venda', null],
      },
      position: at(14, 0),
    },
    pos_venda: {
      type: 'start',
      // after `continuar_whatsapp` the run is on whatsapp: the target is published on that same number
      data: { workflow_id: w.ids.workflows[3], parallel: false, delay_seconds: 3600, next: ['pausar'] },
      position: at(15, 0),
    },
    pausar: {
      type: 'pause-automations',
      data: { minutes: 1440, next: [null] },
      position: at(16, 0),
    },
    atendimento_whatsapp: {
      type: 'message',
      data: { text: 'Oi {contact.first_name}! Como posso ajudar com a Black Friday?', next: [null] },
      position: at(3, 1),
    },
    rascunho: { type: 'blank', data: {}, position: at(0, 2) },
    passo_importado: {
      type: 'unsupported',
      data: { next: [null], source: 'other-tool', step: { kind: 'gif', url: 'https://media.example.com/bf.gif' } },
      position: at(1, 2),
    },
  };

  const whatsappWelcome: GraphNodes = {
    root: { type: 'root', data: { next: ['boas_vindas'] }, position: at(0, 0) },
    boas_vindas: {
      type: 'buttons',
      data: {
        subtitle: 'Oi {contact.first_name}! Como podemos ajudar?',
        buttons: [
          { id: 'btn_pedido', title: 'Meu pedido' },
          { id: 'btn_atendente', title: 'Falar com alguém' },
        ],
        next: ['pedir_pedido', 'marcar_atendimento', null, null],
      },
      position: at(1, 0),
    },
    pedir_pedido: {
      type: 'question',
      data: { text: 'Qual é o número do pedido?', answer_type: 'any', answer_field: '', next: [null] },
      position: at(2, -1),
    },
    marcar_atendimento: {
      type: 'tags',
      data: { operation: 'add', tags: [tagVip], next: [null] },
      position: at(2, 1),
    },
  };

  return { blackFriday, whatsappWelcome };
}

const build: AreaBuilder = () => ({
  WorkflowGraphSchema: {
    summary: 'The block catalog',
    description:
      'The catalog served today: a JSON Schema (draft 2020-12) of `graph.nodes`, one `$defs` entry per block type.',
    value: { schema: readCatalog(), catalog_version: readCatalogVersion() },
  },
  OpenApiDescription: {
    summary: 'This description (abridged)',
    description: 'The beginning of the document `GET /openapi.json` answers: the whole is about 1 MB.',
    value: {
      openapi: '3.1.0',
      info: { title: 'Engagement Platform API', version: 'v1' },
      paths: { '/v1/me': { get: { operationId: 'getMe', summary: 'Get the account and key' } } },
      webhooks: {},
      components: {},
    },
  },
});
export default build;
