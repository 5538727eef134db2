// Examples of the workflows area: automations (definitions, drafts, published), validation results,
// versions, runs with steps, folders, reply lists and the route-specific error variants.
// Every graph follows the block catalog of Part B (data fields, limits, `next` arity, id format).
import type { AreaBuilder, ExampleSet, World } from './world.js';
import { at } from './world.js';

type Json = Record<string, unknown>;
type Node = { type: string; data: Json; position?: { x: number; y: number } };
type Nodes = Record<string, Node>;

/** A block; `pos` is [column, row] on the editor grid. */
function block(type: string, data: Json, pos: [number, number]): Node {
  return { type, data, position: { x: pos[0] * 360, y: pos[1] * 220 } };
}

/** The same graph without positions, as a client that lets the service place the blocks sends it. */
function withoutPositions(nodes: Nodes): Nodes {
  return Object.fromEntries(Object.entries(nodes).map(([id, n]) => [id, { type: n.type, data: n.data }]));
}

const SHOP_URL = 'https://loja.example.com/tenis/runner';

/** instagram: "preço" in a comment on the Runner post → private reply with buttons, tag, e-mail, A/B coupon. */
function instagramCommentGraph(w: World): Nodes {
  return {
    root: block('root', { next: ['responder_preco'] }, [0, 0]),
    responder_preco: block(
      'buttons',
      {
        subtitle: 'Oi {contact.first_name}! O Runner sai por R$ 349,90 🏃 Quer ver na loja ou ganhar um cupom?',
        buttons: [
          { id: 'ver_na_loja', title: 'Ver na loja', url: SHOP_URL },
          { id: 'quero_cupom', title: 'Quero um cupom' },
          {
            id: 'falar_whatsapp',
            title: 'Falar no WhatsApp',
            whatsapp_connection_id: w.connections.whatsapp.id,
            whatsapp_message: 'Oi! Vim do Instagram e quero saber do Runner.',
          },
        ],
        // one entry per button slot, then the 4th right after the send
        next: ['detalhes_produto', 'marcar_lead', 'boas_vindas_whatsapp', null],
      },
      [1, 0],
    ),
    detalhes_produto: block(
      'message',
      { text: 'Temos o Runner do 34 ao 44, em preto e azul. Frete grátis acima de R$ 299!', next: [null] },
      [2, -1],
    ),
    marcar_lead: block(
      'tags',
      { operation: 'add', tags: [w.tag.lead.name, w.tag.blackFriday.name], next: ['tem_email'] },
      [2, 0],
    ),
    tem_email: block(
      'conditional',
      {
        conditions: [{ field_type: 'custom_field', field_name: w.fields.email.name, operator: 'has_field' }],
        combinator: 'and',
        next: ['sorteio_cupom', 'pedir_email'],
      },
      [3, 0],
    ),
    pedir_email: block(
      'question',
      {
        text: 'Perfeito! Qual é o seu melhor e-mail para receber o cupom? ✉️',
        answer_type: 'any',
        answer_field: w.fields.email.name,
        next: ['definir_plano'],
      },
      [4, 1],
    ),
    definir_plano: block('data', { name: w.fields.plan.name, value: 'basic', next: ['sorteio_cupom'] }, [5, 1]),
    sorteio_cupom: block(
      'randomizer',
      { options: [{ percentage: 50 }, { percentage: 50 }], next: ['cupom_desconto', 'cupom_frete'] },
      [6, 0],
    ),
    cupom_desconto: block(
      'message',
      {
        text: `Aqui está, {contact.first_name}: use RUNNER20 para 20% de desconto em ${SHOP_URL} até 30/11.`,
        next: [null],
      },
      [7, 0],
    ),
    cupom_frete: block(
      'message',
      {
        text: `Aqui está, {contact.first_name}: use FRETEGRATIS para frete grátis em ${SHOP_URL} até 30/11.`,
        next: [null],
      },
      [7, 1],
    ),
    boas_vindas_whatsapp: block(
      'message',
      { text: 'Oi {contact.first_name}! Que bom te ver por aqui 👋 Seu cupom é RUNNER20.', next: [null] },
      [2, 2],
    ),
    nota_ab: block(
      'comment',
      {
        text: 'Teste A/B dos dois cupons. Não mude a ordem das opções: o sorteio conta as escolhas pela posição.',
        next: [null],
      },
      [6, 2],
    ),
  };
}

/** whatsapp: "menu" → order lookup in the ERP, handoff to the team, today's deals with a reminder. */
function whatsappMenuGraph(w: World): Nodes {
  return {
    root: block('root', { next: ['menu'] }, [0, 0]),
    menu: block(
      'buttons',
      {
        subtitle: 'Oi {contact.first_name}! Como podemos ajudar hoje?',
        buttons: [
          { id: 'status_pedido', title: 'Status do pedido' },
          { id: 'falar_equipe', title: 'Falar com a equipe' },
          { id: 'ofertas_do_dia', title: 'Ofertas do dia' },
        ],
        next: ['consultar_pedido', 'aviso_equipe', 'enviar_ofertas', null],
      },
      [1, 0],
    ),
    consultar_pedido: block(
      'invoke',
      {
        method: 'GET',
        endpoint: 'https://erp.example.com/api/orders/latest?phone={contact.alias}',
        headers: [{ name: 'Authorization', value: 'Bearer {secret.erp_token}' }],
        fields: [
          { path: '$.customer.order_count', name: w.fields.orders.name },
          { path: '$.order.shipping_city', name: w.fields.city.name },
        ],
        next: ['cliente_frequente', 'erro_consulta'],
      },
      [2, 0],
    ),
    cliente_frequente: block(
      'conditional',
      {
        conditions: [
          { field_type: 'variable', field_name: w.fields.orders.name, operator: 'field_greater_or_equal', value: '5' },
        ],
        next: ['marcar_vip', 'status_pedido'],
      },
      [3, 0],
    ),
    marcar_vip: block('tags', { operation: 'add', tags: [w.tag.vip.name], next: ['status_pedido'] }, [4, 0]),
    status_pedido: block(
      'message',
      { text: 'Você já fez {pedidos} pedidos com a gente. O último está a caminho de {cidade} 🚚', next: [null] },
      [5, 0],
    ),
    erro_consulta: block(
      'message',
      { text: 'Não conseguimos consultar seu pedido agora. Vamos tentar de novo:', next: ['menu'] },
      [3, 1],
    ),
    aviso_equipe: block(
      'message',
      { text: 'Claro! Alguém da equipe vai te responder por aqui em instantes.', next: ['pausar_automacoes'] },
      [2, 2],
    ),
    pausar_automacoes: block('pause-automations', { minutes: 1440, next: [null] }, [3, 2]),
    enviar_ofertas: block('media', { upload_id: w.ids.uploads[0], next: ['esperar_uma_hora'] }, [2, 3]),
    esperar_uma_hora: block('sleep', { seconds: 3600, next: ['janela_aberta'] }, [3, 3]),
    janela_aberta: block(
      'conditional',
      { conditions: [{ field_type: 'messaging_window', operator: 'window_open' }], next: ['lembrete', null] },
      [4, 3],
    ),
    lembrete: block(
      'message',
      { text: 'Ainda pensando, {contact.first_name}? As ofertas de hoje acabam à meia-noite ⏰', next: [null] },
      [5, 3],
    ),
  };
}

const build: AreaBuilder = (w, f) => {
  // Ids shared with the other areas: workflows[0] is the instagram comment automation "Preço nos
  // comentários" (its live version is versions[0]), workflows[1] the instagram "Boas-vindas" automation.
  const wf = {
    comments: w.ids.workflows[0]!,
    welcome: w.ids.workflows[1]!,
    mentions: w.ids.workflows[2]!,
    menu: w.ids.workflows[3]!,
    giveaway: f.string.uuid(),
  };
  const ver = { commentsV2: w.ids.versions[0]!, menuV1: w.ids.versions[2]!, commentsV1: f.string.uuid() };
  const run = {
    blocked: w.ids.runs[2]!,
    queued: w.ids.runs[3]!,
    completed: f.string.uuid(),
    waiting: f.string.uuid(),
    failed: f.string.uuid(),
    stopped: f.string.uuid(),
  };
  const msgId = () => f.string.uuid();
  const folder = { blackFriday: w.ids.folders[0]!, support: w.ids.folders[1]!, comments: w.ids.folders[2]! };
  const list = { comments: w.ids.repliesLists[0]!, giveaway: w.ids.repliesLists[1]! };
  const DAY = 24 * 60;

  const e = (code: string, message: string, extra: Json = {}) => ({
    type: 'error',
    message,
    context: { code, ...extra },
  });

  // ---- definitions ----------------------------------------------------------------------------
  const igGraph = instagramCommentGraph(w);
  const waGraph = whatsappMenuGraph(w);
  const igTitle = 'Preço nos comentários';
  const igDescription =
    'Responde quem pergunta o preço nos comentários do post do Runner, marca o lead e coleta o e-mail.';
  const igChannel = { type: 'instagram', connection_id: w.connections.instagram.id };
  const igTrigger = {
    events: ['comment'],
    match: 'contains',
    keywords: ['preço', 'preco', 'quanto custa', 'link'],
    posts: [{ type: 'feed', id: w.ids.posts[0] }],
    next_post: false,
    replies_list_id: list.comments,
  };
  const igTriggerV1 = { ...igTrigger, keywords: ['preço', 'preco'] };
  const waTitle = 'Menu de atendimento';
  const waChannel = { type: 'whatsapp', connection_id: w.connections.whatsapp.id };
  const waTrigger = {
    events: ['message'],
    match: 'equals',
    keywords: ['menu', 'ajuda', 'oi'],
    posts: null,
    next_post: false,
    replies_list_id: null,
  };
  const mentionsTitle = 'Agradecer menções';
  const mentionsTrigger = {
    events: ['story_mention'],
    match: 'any',
    keywords: [],
    posts: null,
    next_post: false,
    replies_list_id: null,
  };
  const rootOnly: Nodes = { root: { type: 'root', data: { next: [null] }, position: { x: 0, y: 0 } } };

  // ---- automations as returned ----------------------------------------------------------------
  const igCreatedAt = at(-6 * DAY);
  const igV1At = at(-5 * DAY + 42, 118);
  const igV2At = at(-2 * DAY - 15, 604);
  const igPublished = {
    id: wf.comments,
    title: igTitle,
    description: igDescription,
    status: 'published',
    channel: igChannel,
    trigger: igTrigger,
    graph: { nodes: igGraph },
    folder_id: folder.comments,
    revision: 7,
    published_version_id: ver.commentsV2,
    published_at: igV2At,
    has_unpublished_changes: false,
    created_at: igCreatedAt,
    updated_at: igV2At,
  };
  const igCreated = {
    ...igPublished,
    trigger: igTriggerV1,
    status: 'draft',
    revision: 0,
    published_version_id: null,
    published_at: null,
    updated_at: igCreatedAt,
  };
  const igUpdated = {
    ...igPublished,
    title: 'Preço nos comentários (Black Friday)',
    folder_id: folder.blackFriday,
    revision: 8,
    has_unpublished_changes: true,
    updated_at: at(-20, 733),
  };
  // unpublished after the update above: the draft (title, folder, revision 8) is kept
  const igUnpublished = {
    ...igUpdated,
    status: 'draft',
    has_unpublished_changes: false,
    published_version_id: null,
    published_at: null,
    updated_at: at(-5, 52),
  };
  const waCreatedAt = at(-15 * DAY);
  const waPublishedAt = at(-14 * DAY + 3, 271);
  const waPublished = {
    id: wf.menu,
    title: waTitle,
    description: null,
    status: 'published',
    channel: waChannel,
    trigger: waTrigger,
    graph: { nodes: waGraph },
    folder_id: folder.support,
    revision: 3,
    published_version_id: ver.menuV1,
    published_at: waPublishedAt,
    has_unpublished_changes: false,
    created_at: waCreatedAt,
    updated_at: waPublishedAt,
  };
  const mentionsCreatedAt = at(-90, 415);
  const mentionsDraft = {
    id: wf.mentions,
    title: mentionsTitle,
    description: null,
    status: 'draft',
    channel: { type: 'instagram', connection_id: null },
    trigger: mentionsTrigger,
    graph: { nodes: rootOnly },
    folder_id: null,
    revision: 0,
    published_version_id: null,
    published_at: null,
    has_unpublished_changes: false,
    created_at: mentionsCreatedAt,
    updated_at: mentionsCreatedAt,
  };
  const withoutGraph = (x: Json) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'graph'));

  // ---- runs -----------------------------------------------------------------------------------
  const runChannelIg = { type: 'instagram', connection_id: w.connections.instagram.id };
  const runChannelWa = { type: 'whatsapp', connection_id: w.connections.whatsapp.id };
  type Step = {
    node_id: string | null;
    type: string;
    status: string;
    output: number | null;
    message_id: string | null;
    error: { code: string; message: string } | null;
    started_at: string;
    ended_at: string | null;
  };
  /** A step from `start` to `end` minutes after the reference date (`end` null: waiting for the contact). */
  const step = (
    node_id: string | null,
    type: string,
    start: number,
    end: number | null,
    output: number | null,
    extra: Partial<Step> = {},
  ): Step => ({
    node_id,
    type,
    status: end === null ? 'waiting' : 'completed',
    output,
    message_id: null,
    error: null,
    started_at: at(start, 17),
    ended_at: end === null ? null : at(end, 403),
    ...extra,
  });

  const t0 = -26 * 60; // Bruno asked the price 26 hours ago and tapped "Quero um cupom"
  const runCompleted = {
    id: run.completed,
    workflow_id: wf.comments,
    version_id: ver.commentsV2,
    contact_id: w.contacts.bruno.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'completed',
    created_at: at(t0, 2),
    updated_at: at(t0 + 7.4, 403),
    ended_at: at(t0 + 7.4, 403),
    steps: [
      step('root', 'root', t0 + 0.01, t0 + 0.01, 0),
      step('responder_preco', 'buttons', t0 + 0.02, t0 + 1.3, 1, { message_id: msgId() }),
      // posted once the channel accepted the first message (the private reply)
      step(null, 'public_reply', t0 + 0.04, t0 + 0.05, null, { message_id: msgId() }),
      step('marcar_lead', 'tags', t0 + 1.31, t0 + 1.31, 0),
      step('tem_email', 'conditional', t0 + 1.32, t0 + 1.32, 1),
      step('pedir_email', 'question', t0 + 1.33, t0 + 7.35, 0, { message_id: msgId() }),
      step('definir_plano', 'data', t0 + 7.36, t0 + 7.36, 0),
      step('sorteio_cupom', 'randomizer', t0 + 7.37, t0 + 7.37, 1),
      step('cupom_frete', 'message', t0 + 7.38, t0 + 7.4, 0, { message_id: msgId() }),
    ],
    steps_truncated: false,
  };
  const t1 = -3 * DAY; // Ana asked the price 3 days ago, tapped "Quero um cupom", and has not sent her e-mail yet
  const runWaiting = {
    id: run.waiting,
    workflow_id: wf.comments,
    version_id: ver.commentsV1,
    contact_id: w.contacts.anaInstagram.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'waiting',
    created_at: at(t1, 2),
    updated_at: at(t1 + 2.43, 17),
    ended_at: null,
    steps: [
      step('root', 'root', t1 + 0.01, t1 + 0.01, 0),
      step('responder_preco', 'buttons', t1 + 0.02, t1 + 2.4, 1, { message_id: msgId() }),
      step(null, 'public_reply', t1 + 0.04, t1 + 0.06, null, { message_id: msgId() }),
      step('marcar_lead', 'tags', t1 + 2.41, t1 + 2.41, 0),
      step('tem_email', 'conditional', t1 + 2.42, t1 + 2.42, 1),
      step('pedir_email', 'question', t1 + 2.43, null, null, { message_id: msgId() }),
    ],
    steps_truncated: false,
  };
  const t2 = -50 * 60;
  const runBlocked = {
    id: run.blocked,
    workflow_id: wf.comments,
    version_id: ver.commentsV1,
    contact_id: w.contacts.bruno.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'blocked',
    created_at: at(t2, 2),
    updated_at: at(t2 + 0.05, 403),
    ended_at: at(t2 + 0.05, 403),
    steps: [
      step('root', 'root', t2 + 0.01, t2 + 0.01, 0),
      step('responder_preco', 'buttons', t2 + 0.02, t2 + 0.05, null, {
        status: 'failed',
        error: { code: 'private_replies_refused', message: 'instagram refused private replies on this post.' },
      }),
    ],
    steps_truncated: false,
  };
  const t3 = -3 * 60;
  const runFailed = {
    id: run.failed,
    workflow_id: wf.menu,
    version_id: ver.menuV1,
    contact_id: w.contacts.anaWhatsapp.id,
    channel: runChannelWa,
    source: 'trigger',
    status: 'failed',
    created_at: at(t3, 2),
    updated_at: at(t3 + 0.2, 403),
    ended_at: at(t3 + 0.2, 403),
    steps: [
      step('root', 'root', t3 + 0.01, t3 + 0.01, 0),
      step('menu', 'buttons', t3 + 0.02, t3 + 0.2, null, {
        status: 'failed',
        error: {
          code: 'provider_rejected',
          message: 'whatsapp refused the message for good: (#131026) Message undeliverable.',
        },
      }),
    ],
    steps_truncated: false,
  };
  const t4 = -28 * 60;
  const runStopped = {
    id: run.stopped,
    workflow_id: wf.menu,
    version_id: ver.menuV1,
    contact_id: w.contacts.carla.id,
    channel: runChannelWa,
    source: 'trigger',
    status: 'stopped',
    created_at: at(t4, 2),
    updated_at: at(t4 + 31.2, 403),
    ended_at: at(t4 + 31.2, 403),
    steps: [
      step('menu', 'buttons', t4 + 24.0, t4 + 25.1, 0, { message_id: msgId() }),
      step('consultar_pedido', 'invoke', t4 + 25.11, t4 + 28.2, 1),
      step('erro_consulta', 'message', t4 + 28.21, t4 + 28.3, 0, { message_id: msgId() }),
      step('menu', 'buttons', t4 + 28.31, t4 + 29.5, 0, { message_id: msgId() }),
      step('consultar_pedido', 'invoke', t4 + 29.51, t4 + 31.1, 1),
      step('erro_consulta', 'message', t4 + 31.11, t4 + 31.19, 0, { message_id: msgId() }),
      step('menu', 'buttons', t4 + 31.2, t4 + 31.2, null, {
        status: 'failed',
        error: { code: 'block_run_limit', message: 'Block menu would run a 7th time in this run; the run stops.' },
      }),
    ],
    steps_truncated: true,
  };
  const runSummary = (r: Json) =>
    Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'steps' && k !== 'steps_truncated'));

  // ---- folders and reply lists ----------------------------------------------------------------
  const folders = {
    blackFriday: {
      id: folder.blackFriday,
      type: 'workflow',
      name: 'Black Friday 2026',
      parent_id: null,
      created_at: at(-30 * DAY, 880),
      updated_at: at(-30 * DAY, 880),
    },
    support: {
      id: folder.support,
      type: 'workflow',
      name: 'Atendimento',
      parent_id: null,
      created_at: at(-16 * DAY, 95),
      updated_at: at(-16 * DAY, 95),
    },
    comments: {
      id: folder.comments,
      type: 'workflow',
      name: 'Comentários do Instagram',
      parent_id: folder.blackFriday,
      created_at: at(-7 * DAY, 311),
      updated_at: at(-7 * DAY, 311),
    },
  };
  const commentReplies = [
    '@{contact.alias} te mandei no direct 😉',
    'Te mandei no direct, {contact.first_name}! 📩',
    'Dá uma olhada no seu direct 👀',
    'Pronto! Confere sua DM 🖤',
  ];
  const newReplies = [
    '@{contact.alias} te mandei no direct 😉',
    'Respondi no seu direct, {contact.first_name}! 📩',
    'O link está na sua DM 🖤',
  ];
  const repliesLists = {
    comments: {
      id: list.comments,
      name: 'Respostas de comentários',
      replies: commentReplies,
      created_at: at(-8 * DAY, 612),
      updated_at: at(-8 * DAY, 612),
    },
    giveaway: {
      id: list.giveaway,
      name: 'Respostas do sorteio',
      replies: [
        'Você está participando, {contact.first_name}! 🍀',
        'Inscrição confirmada, confira seu direct!',
        'Boa sorte! 🎁',
      ],
      created_at: at(-3 * DAY, 48),
      updated_at: at(-3 * DAY, 48),
    },
  };
  const listSummary = (l: { id: string; name: string; replies: string[]; created_at: string; updated_at: string }) => ({
    id: l.id,
    name: l.name,
    reply_count: l.replies.length,
    created_at: l.created_at,
    updated_at: l.updated_at,
  });

  const set: ExampleSet = {
    // ---- requests -----------------------------------------------------------------------------
    CreateInstagramCommentWorkflow: {
      summary: 'instagram comment automation',
      description:
        'A comment asking the price on the Runner post gets a private reply with three buttons (a link, a reply button, a hand-off to whatsapp). A tap on "Quero um cupom" tags the contact, asks for the e-mail when the contact has none, and sends one of two coupons (A/B). The reply list is posted under each comment.',
      value: {
        title: igTitle,
        description: igDescription,
        channel: igChannel,
        trigger: igTriggerV1,
        graph: { nodes: igGraph },
        folder_id: folder.comments,
      },
    },
    CreateWhatsappMenuWorkflow: {
      summary: 'whatsapp menu automation (positions left to the service)',
      description:
        'Answers "menu", "ajuda" or "oi": looks up the last order in the ERP (`invoke`), tags frequent buyers, hands the chat to the team (pausing automations for a day), or sends the deals with a reminder an hour later if the window is still open.',
      value: {
        title: waTitle,
        channel: waChannel,
        trigger: { events: ['message'], match: 'equals', keywords: ['menu', 'ajuda', 'oi'] },
        graph: { nodes: withoutPositions(waGraph) },
        folder_id: folder.support,
      },
    },
    CreateEmptyDraftWorkflow: {
      summary: 'Only the root block',
      description: 'Without `graph` the automation is created with only the `root` block; build it later.',
      value: {
        title: mentionsTitle,
        channel: { type: 'instagram' },
        trigger: { events: ['story_mention'], match: 'any' },
      },
    },
    ValidateInstagramDefinition: {
      summary: 'Check a definition before creating it',
      value: { channel: igChannel, trigger: igTrigger, graph: { nodes: igGraph } },
    },
    UpdateWorkflowTitleAndFolder: {
      summary: 'Rename and move to another folder',
      value: { title: 'Preço nos comentários (Black Friday)', folder_id: folder.blackFriday },
    },
    UpdateWorkflowTrigger: {
      summary: 'Replace the trigger (stories too)',
      description: 'The trigger replaces the whole previous one: send every field you want to keep.',
      value: {
        trigger: {
          events: ['comment', 'story_message'],
          match: 'contains',
          keywords: ['preço', 'preco', 'quanto custa', 'link'],
          posts: [
            { type: 'feed', id: w.ids.posts[0] },
            { type: 'story', id: w.ids.posts[1] },
          ],
          next_post: false,
          replies_list_id: list.comments,
        },
      },
    },
    UpdateWorkflowRemoveFromFolder: { summary: 'Take out of its folder', value: { folder_id: null } },
    AdminEditorSaveTitle: {
      summary: 'The editor renames the draft',
      value: { title: 'Preço nos comentários (Black Friday)' },
    },
    StartRunForContact: { summary: 'Start for a whatsapp contact', value: { contact_id: w.contacts.anaWhatsapp.id } },
    CreateFolderTopLevel: { summary: 'Top-level folder', value: { name: 'Black Friday 2026' } },
    CreateSubfolder: {
      summary: 'Subfolder',
      value: { name: 'Comentários do Instagram', parent_id: folder.blackFriday },
    },
    RenameFolder: { summary: 'Rename', value: { name: 'Suporte ao cliente' } },
    MoveFolderToTop: { summary: 'Move to the top level', value: { parent_id: null } },
    CreateRepliesList: {
      summary: 'Public replies for comments',
      value: { name: 'Respostas de comentários', replies: commentReplies },
    },
    ReplaceReplies: { summary: 'Replace all the replies', value: { replies: newReplies } },
    RenameRepliesListByCase: {
      summary: 'Change the letter case of its own name',
      value: { name: 'Respostas de Comentários' },
    },

    // ---- automations ----------------------------------------------------------------------------
    InstagramCommentWorkflow: { summary: 'Published instagram comment automation', value: igPublished },
    CreatedInstagramCommentWorkflow: { summary: 'Created as a draft (revision 0)', value: igCreated },
    UpdatedInstagramCommentWorkflow: {
      summary: 'Published, with draft changes not yet published',
      description: 'The title changed in the draft only: the live version keeps running until the next publish.',
      value: igUpdated,
    },
    UnpublishedWorkflow: { summary: 'Unpublished: draft kept, nothing starts it', value: igUnpublished },
    WhatsappMenuWorkflow: { summary: 'Published whatsapp menu automation', value: waPublished },
    EmptyDraftWorkflow: { summary: 'New draft with only the root block', value: mentionsDraft },
    WorkflowListPage: {
      summary: 'Automations, oldest first',
      value: {
        data: [withoutGraph(waPublished), withoutGraph(igPublished), withoutGraph(mentionsDraft)],
        next_cursor: 'd2ZfMDFKQ1k3UjJaVjhNNEs2UTNYOVQ1Qg',
      },
    },
    WorkflowDeleted: { summary: 'Deleted', value: { id: wf.mentions, deleted: true } },

    // ---- validation -----------------------------------------------------------------------------
    ValidationValidWithWarnings: {
      summary: 'Valid, with a warning',
      value: {
        valid: true,
        errors: [],
        warnings: [
          {
            code: 'keyword_collision',
            message: 'Another published automation on this instagram account answers comments with "link".',
            node_id: null,
            path: 'trigger.keywords',
            workflow_ids: [wf.giveaway],
            keywords: ['link'],
          },
        ],
      },
    },
    ValidationWithErrors: {
      summary: 'Errors of outputs, resources and publish rules',
      value: {
        valid: false,
        errors: [
          {
            code: 'next_arity_invalid',
            message: 'A buttons block has 4 outputs; next has 3 entries.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.next',
          },
          {
            code: 'node_not_found',
            message: 'next names a block that does not exist: pedir_mail.',
            node_id: 'tem_email',
            path: 'nodes.tem_email.data.next[1]',
          },
          {
            code: 'tag_not_found',
            message: 'The account has no tag named "Black Friday 2025".',
            node_id: 'marcar_lead',
            path: 'nodes.marcar_lead.data.tags[1]',
          },
          {
            code: 'handoff_number_disconnected',
            message: 'The button leads to a whatsapp number that is not connected.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.buttons[2].whatsapp_connection_id',
            connection_id: w.connections.whatsappOld.id,
          },
        ],
        warnings: [
          {
            code: 'start_workflow_unpublished',
            message: 'The start block targets an automation that is not published; the run ends there.',
            node_id: 'agradecer_mencao',
            path: 'nodes.agradecer_mencao.data.workflow_id',
            workflow_ids: [wf.mentions],
            workflows: [{ id: wf.mentions, title: mentionsTitle }],
          },
          {
            code: 'answer_type_deprecated',
            message: 'answer_type number is obsolete and runs as any.',
            node_id: 'pedir_tamanho',
            path: 'nodes.pedir_tamanho.data.answer_type',
          },
        ],
      },
    },
    ValidationShapeErrors: {
      summary: 'Shape errors hide the later stages',
      value: {
        valid: false,
        errors: [
          {
            code: 'node_id_invalid',
            message: 'Block ids use lowercase letters and digits with _ between parts: pedirEmail.',
            node_id: 'pedirEmail',
            path: 'nodes.pedirEmail',
          },
          {
            code: 'schema_violation',
            message: 'title must have at most 20 characters.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.buttons[1].title',
          },
          {
            code: 'schema_violation',
            message: 'Unknown block type: audio_message.',
            node_id: 'enviar_audio',
            path: 'nodes.enviar_audio.type',
          },
        ],
        warnings: [],
      },
    },
    ValidationCompilerError: {
      summary: 'Compiler error, one at a time',
      value: {
        valid: false,
        errors: [
          {
            code: 'randomizer_options_invalid',
            message: 'The randomizer percentages add up to 90, not 100.',
            node_id: 'sorteio_cupom',
            path: 'nodes.sorteio_cupom.data.options',
          },
        ],
        warnings: [],
      },
    },
    ValidationChannelProblem: {
      summary: 'Channel of another type',
      value: {
        valid: false,
        errors: [
          {
            code: 'channel_type_mismatch',
            message: 'The connection is an instagram account, not a whatsapp number.',
            node_id: null,
            path: 'channel.connection_id',
          },
        ],
        warnings: [
          {
            code: 'trigger_event_not_supported',
            message: 'whatsapp has no comments: this event never fires.',
            node_id: null,
            path: 'trigger.events[1]',
          },
        ],
      },
    },
    SavedValidationValid: {
      summary: 'Saved draft is valid',
      value: { valid: true, errors: [], warnings: [], revision: 7 },
    },
    SavedValidationInvalid: {
      summary: 'Saved draft with an error and an editor warning',
      value: {
        valid: false,
        errors: [
          {
            code: 'link_button_url_empty',
            message: 'The link button has an empty url.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.buttons[0].url',
          },
        ],
        warnings: [
          {
            code: 'next_arity_invalid',
            message: 'The editor saved 5 next entries on a buttons block; remove the extra one before an update.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.next',
          },
        ],
        revision: 12,
      },
    },

    // ---- versions -------------------------------------------------------------------------------
    WorkflowVersionsPage: {
      summary: 'Versions, most recent first',
      value: {
        data: [
          {
            id: ver.commentsV2,
            workflow_id: wf.comments,
            number: 2,
            revision: 7,
            title: igTitle,
            channel: igChannel,
            trigger: igTrigger,
            created_at: igV2At,
          },
          {
            id: ver.commentsV1,
            workflow_id: wf.comments,
            number: 1,
            revision: 4,
            title: igTitle,
            channel: igChannel,
            trigger: igTriggerV1,
            created_at: igV1At,
          },
        ],
        next_cursor: null,
      },
    },
    WorkflowVersionTwo: {
      summary: 'The live version, with its graph',
      value: {
        id: ver.commentsV2,
        workflow_id: wf.comments,
        number: 2,
        revision: 7,
        title: igTitle,
        channel: igChannel,
        trigger: igTrigger,
        graph: { nodes: igGraph },
        created_at: igV2At,
      },
    },

    // ---- runs -----------------------------------------------------------------------------------
    WorkflowRunQueued: {
      summary: 'Run queued',
      value: {
        id: run.queued,
        workflow_id: wf.menu,
        contact_id: w.contacts.anaWhatsapp.id,
        status: 'queued',
        created_at: at(0, 318),
      },
    },
    WorkflowRunCompleted: { summary: 'Completed comment run, with the public reply', value: runCompleted },
    WorkflowRunWaiting: { summary: 'Waiting for the e-mail answer', value: runWaiting },
    WorkflowRunBlocked: { summary: 'instagram refused private replies on the post', value: runBlocked },
    WorkflowRunFailed: { summary: 'Failed: the channel refused the send', value: runFailed },
    WorkflowRunStopped: { summary: 'Stopped by the loop guard (older steps left out)', value: runStopped },
    WorkflowRunsPage: {
      summary: 'Runs, most recent first',
      value: { data: [runSummary(runCompleted), runSummary(runBlocked), runSummary(runWaiting)], next_cursor: null },
    },

    // ---- folders and reply lists ----------------------------------------------------------------
    FoldersPage: {
      summary: 'Folders of every level, oldest first',
      value: { data: [folders.blackFriday, folders.support, folders.comments], next_cursor: null },
    },
    FolderBlackFriday: { summary: 'Top-level folder', value: folders.blackFriday },
    FolderComments: { summary: 'Subfolder', value: folders.comments },
    FolderRenamed: {
      summary: 'Renamed',
      value: { ...folders.support, name: 'Suporte ao cliente', updated_at: at(-2, 640) },
    },
    FolderDeleted: {
      summary: 'Folder and its subfolder deleted',
      value: { id: folder.blackFriday, deleted: true, deleted_folder_ids: [folder.blackFriday, folder.comments] },
    },
    RepliesListsPage: {
      summary: 'Reply lists, oldest first',
      value: { data: [listSummary(repliesLists.comments), listSummary(repliesLists.giveaway)], next_cursor: null },
    },
    RepliesListComments: { summary: 'Public replies for comments', value: repliesLists.comments },
    RepliesListUpdated: {
      summary: 'Replies replaced',
      value: { ...repliesLists.comments, replies: newReplies, updated_at: at(-1, 205) },
    },
    RepliesListDeleted: { summary: 'Deleted', value: { id: list.giveaway, deleted: true } },

    // ---- route-specific error variants ----------------------------------------------------------
    InvalidGraphUnknownTag: {
      summary: 'Tag not in the account',
      value: e('invalid_graph', 'The graph does not follow the contract.', {
        errors: [
          {
            code: 'tag_not_found',
            message: 'The account has no tag named "Black Friday 2025". Create it with POST /v1/tags.',
            node_id: 'marcar_lead',
            path: 'nodes.marcar_lead.data.tags[1]',
          },
        ],
      }),
    },
    InvalidGraphExtraNext: {
      summary: 'Extra next entries kept from an editor draft',
      value: e('invalid_graph', 'The graph does not follow the contract.', {
        errors: [
          {
            code: 'next_arity_invalid',
            message: 'A buttons block has 4 outputs; next has 5 entries.',
            node_id: 'menu',
            path: 'nodes.menu.data.next',
          },
        ],
      }),
    },
    InvalidChannelRequired: {
      summary: 'whatsapp without connection_id',
      value: e('invalid_channel', 'A whatsapp automation needs channel.connection_id.', { reason: 'required' }),
    },
    InvalidTriggerRepliesListNotSupported: {
      summary: 'Reply list on whatsapp',
      value: e('invalid_trigger', 'Reply lists work only on instagram.', { reason: 'replies_list_not_supported' }),
    },
    WorkflowInvalidHandoff: {
      summary: 'Button leads to a disconnected whatsapp number',
      value: e('workflow_invalid', 'The automation has validation errors.', {
        errors: [
          {
            code: 'handoff_number_disconnected',
            message: 'The button leads to a whatsapp number that is not connected.',
            node_id: 'responder_preco',
            path: 'nodes.responder_preco.data.buttons[2].whatsapp_connection_id',
            connection_id: w.connections.whatsappOld.id,
          },
        ],
      }),
    },
    DeletePublishedScopeMissing: {
      summary: 'Published: deleting also needs workflows:publish',
      value: e('insufficient_scope', 'Deleting a published automation also needs the scope workflows:publish.', {
        required_scope: 'workflows:publish',
      }),
    },
    RunStartRateLimited: {
      summary: 'Send calls used up',
      value: e('rate_limited', 'Too many send calls this minute.', { kind: 'send', limit: 20, retry_after: 23 }),
    },
    FolderParentNotFound: {
      summary: 'Unknown parent folder',
      value: e('folder_not_found', 'No workflow folder with this id.', { field: 'parent_id' }),
    },
  };
  return set;
};
export default build;
