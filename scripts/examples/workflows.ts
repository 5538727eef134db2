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

const STORE_URL = 'https://shop.example.com/black-friday';

/** instagram: comment on the Black Friday post → DM with buttons, tag, e-mail capture, A/B coupon. */
function instagramCommentGraph(w: World): Nodes {
  return {
    root: block('root', { next: ['boas_vindas'] }, [0, 0]),
    boas_vindas: block(
      'buttons',
      {
        subtitle:
          'Hi {contact.first_name}! 🖤 Our Black Friday opens early for people on the list. Want the early-access link?',
        buttons: [
          { id: 'quero_link', title: 'Yes, send it!' },
          { id: 'ver_loja', title: 'Visit the store', url: STORE_URL },
          {
            id: 'falar_whatsapp',
            title: 'Chat on WhatsApp',
            whatsapp_connection_id: w.connections.whatsapp.id,
            whatsapp_message: 'Hi! I came from Instagram and want the Black Friday link.',
          },
        ],
        // one entry per button slot, then the 4th right after the send
        next: ['marcar_lead', null, 'boas_vindas_whatsapp', null],
      },
      [1, 0],
    ),
    marcar_lead: block('tags', { operation: 'add', tags: [w.tag.lead.name, w.tag.blackFriday.name], next: ['tem_email'] }, [2, 0]),
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
        text: "Great! What's the best e-mail to send your coupon to? ✉️",
        answer_type: 'any',
        answer_field: w.fields.email.name,
        next: ['definir_plano'],
      },
      [4, 1],
    ),
    definir_plano: block('data', { name: w.fields.plan.name, value: 'basic', next: ['sorteio_cupom'] }, [5, 1]),
    sorteio_cupom: block('randomizer', { options: [{ percentage: 50 }, { percentage: 50 }], next: ['cupom_desconto', 'cupom_frete'] }, [6, 0]),
    cupom_desconto: block(
      'message',
      { text: `Here you go, {contact.first_name}: use BF26-EARLY for 20% off at ${STORE_URL} until Nov 30.`, next: [null] },
      [7, 0],
    ),
    cupom_frete: block(
      'message',
      { text: `Here you go, {contact.first_name}: use BF26-FRETE for free shipping at ${STORE_URL} until Nov 30.`, next: [null] },
      [7, 1],
    ),
    boas_vindas_whatsapp: block(
      'message',
      { text: 'Hi {contact.first_name}! Welcome to our WhatsApp 👋 Your early-access code is BF26-EARLY.', next: [null] },
      [2, 2],
    ),
    nota_ab: block(
      'comment',
      { text: 'A/B test of the two coupons. Keep the option order: the randomizer counts choices by position.', next: [null] },
      [6, 2],
    ),
  };
}

/** whatsapp: "menu" → order lookup through the ERP, handoff to the team, today's deals with a reminder. */
function whatsappMenuGraph(w: World): Nodes {
  return {
    root: block('root', { next: ['menu'] }, [0, 0]),
    menu: block(
      'buttons',
      {
        subtitle: 'Hi {contact.first_name}! How can we help you today?',
        buttons: [
          { id: 'status_pedido', title: 'Order status' },
          { id: 'falar_equipe', title: 'Talk to our team' },
          { id: 'ofertas_do_dia', title: "Today's deals" },
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
        conditions: [{ field_type: 'variable', field_name: w.fields.orders.name, operator: 'field_greater_or_equal', value: '5' }],
        next: ['marcar_vip', 'status_pedido'],
      },
      [3, 0],
    ),
    marcar_vip: block('tags', { operation: 'add', tags: [w.tag.vip.name], next: ['status_pedido'] }, [4, 0]),
    status_pedido: block(
      'message',
      { text: 'You have {pedidos} orders with us. Your latest one is on its way to {cidade} 🚚', next: [null] },
      [5, 0],
    ),
    erro_consulta: block(
      'message',
      { text: "We couldn't look up your order right now. Let's try again:", next: ['menu'] },
      [3, 1],
    ),
    aviso_equipe: block('message', { text: 'Sure! A teammate will answer you here shortly.', next: ['pausar_automacoes'] }, [2, 2]),
    pausar_automacoes: block('pause-automations', { minutes: 1440, next: [null] }, [3, 2]),
    enviar_ofertas: block('media', { upload_id: w.ids.uploads[0], next: ['esperar_uma_hora'] }, [2, 3]),
    esperar_uma_hora: block('sleep', { seconds: 3600, next: ['janela_aberta'] }, [3, 3]),
    janela_aberta: block(
      'conditional',
      { conditions: [{ field_type: 'messaging_window', operator: 'window_open' }], next: ['lembrete', null] },
      [4, 3],
    ),
    lembrete: block('message', { text: 'Still thinking, {contact.first_name}? Today\'s deals end at midnight ⏰', next: [null] }, [5, 3]),
  };
}

const build: AreaBuilder = (w, f) => {
  const wf = {
    comments: w.ids.workflows[0]!,
    menu: w.ids.workflows[1]!,
    mentions: w.ids.workflows[2]!,
    linkInBio: w.ids.workflows[3]!,
  };
  const ver = { commentsV1: w.ids.versions[0]!, commentsV2: w.ids.versions[1]!, menuV1: w.ids.versions[2]! };
  const run = {
    completed: w.ids.runs[0]!,
    waiting: w.ids.runs[1]!,
    blocked: w.ids.runs[2]!,
    queued: w.ids.runs[3]!,
    failed: f.string.uuid(),
    stopped: f.string.uuid(),
  };
  const folder = { blackFriday: w.ids.folders[0]!, support: w.ids.folders[1]!, comments: w.ids.folders[2]! };
  const list = { blackFriday: w.ids.repliesLists[0]!, giveaway: w.ids.repliesLists[1]! };
  const msg = w.ids.messages;

  const e = (code: string, message: string, extra: Json = {}) => ({ type: 'error', message, context: { code, ...extra } });

  // ---- definitions ----------------------------------------------------------------------------
  const igGraph = instagramCommentGraph(w);
  const waGraph = whatsappMenuGraph(w);
  const igTitle = 'Black Friday: link by DM from comments';
  const igDescription = 'Answers comments asking for the link on the Black Friday post, tags the lead and collects their e-mail.';
  const igChannel = { type: 'instagram', connection_id: w.connections.instagram.id };
  const igTrigger = {
    events: ['comment'],
    match: 'contains',
    keywords: ['link', 'quero', 'preço', 'preco'],
    posts: [{ type: 'feed', id: w.ids.posts[0] }],
    next_post: false,
    replies_list_id: list.blackFriday,
  };
  const igTriggerV1 = { ...igTrigger, keywords: ['link', 'quero'] };
  const waTitle = 'WhatsApp support menu';
  const waChannel = { type: 'whatsapp', connection_id: w.connections.whatsapp.id };
  const waTrigger = { events: ['message'], match: 'equals', keywords: ['menu', 'ajuda', 'help'], posts: null, next_post: false, replies_list_id: null };
  const mentionsTrigger = { events: ['story_mention'], match: 'any', keywords: [], posts: null, next_post: false, replies_list_id: null };
  const rootOnly: Nodes = { root: { type: 'root', data: { next: [null] }, position: { x: 0, y: 0 } } };

  // ---- automations as returned ----------------------------------------------------------------
  const igCreatedAt = at(-60 * 24 * 6);
  const igV1At = at(-60 * 24 * 5 + 42);
  const igV2At = at(-60 * 24 * 2 + 15);
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
    title: 'Black Friday 2026: link by DM',
    folder_id: folder.blackFriday,
    revision: 8,
    has_unpublished_changes: true,
    updated_at: at(-20),
  };
  const igUnpublished = {
    ...igPublished,
    status: 'draft',
    published_version_id: null,
    published_at: null,
    updated_at: at(-5),
  };
  const waCreatedAt = at(-60 * 24 * 15);
  const waPublishedAt = at(-60 * 24 * 14);
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
  const mentionsCreatedAt = at(-90);
  const mentionsDraft = {
    id: wf.mentions,
    title: 'Story mention thank-you',
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
  const summary = (x: Json) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'graph'));

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
    started_at: at(start),
    ended_at: end === null ? null : at(end),
    ...extra,
  });

  const t0 = -60 * 26; // Bruno commented 26 hours ago
  const runCompleted = {
    id: run.completed,
    workflow_id: wf.comments,
    version_id: ver.commentsV2,
    contact_id: w.contacts.bruno.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'completed',
    created_at: at(t0),
    updated_at: at(t0 + 7.5),
    ended_at: at(t0 + 7.4),
    steps: [
      step('root', 'root', t0 + 0.01, t0 + 0.01, 0),
      step('boas_vindas', 'buttons', t0 + 0.02, t0 + 1.3, 0, { message_id: msg[4]! }),
      step('marcar_lead', 'tags', t0 + 1.31, t0 + 1.31, 0),
      step('tem_email', 'conditional', t0 + 1.32, t0 + 1.32, 1),
      step('pedir_email', 'question', t0 + 1.33, t0 + 7.35, 0, { message_id: msg[5]! }),
      step('definir_plano', 'data', t0 + 7.36, t0 + 7.36, 0),
      step('sorteio_cupom', 'randomizer', t0 + 7.37, t0 + 7.37, 1),
      step('cupom_frete', 'message', t0 + 7.38, t0 + 7.4, 0, { message_id: msg[6]! }),
      step(null, 'public_reply', t0 + 7.45, t0 + 7.5, null, { message_id: msg[7]! }),
    ],
    steps_truncated: false,
  };
  const t1 = -35; // Ana commented 35 minutes ago
  const runWaiting = {
    id: run.waiting,
    workflow_id: wf.comments,
    version_id: ver.commentsV2,
    contact_id: w.contacts.anaInstagram.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'waiting',
    created_at: at(t1),
    updated_at: at(t1 + 2.5),
    ended_at: null,
    steps: [
      step('root', 'root', t1 + 0.01, t1 + 0.01, 0),
      step('boas_vindas', 'buttons', t1 + 0.02, t1 + 2.4, 0, { message_id: msg[8]! }),
      step('marcar_lead', 'tags', t1 + 2.41, t1 + 2.41, 0),
      step('tem_email', 'conditional', t1 + 2.42, t1 + 2.42, 1),
      step('pedir_email', 'question', t1 + 2.43, null, null, { message_id: msg[9]! }),
    ],
    steps_truncated: false,
  };
  const t2 = -60 * 50;
  const runBlocked = {
    id: run.blocked,
    workflow_id: wf.comments,
    version_id: ver.commentsV1,
    contact_id: w.contacts.bruno.id,
    channel: runChannelIg,
    source: 'trigger',
    status: 'blocked',
    created_at: at(t2),
    updated_at: at(t2 + 0.05),
    ended_at: at(t2 + 0.05),
    steps: [
      step('root', 'root', t2 + 0.01, t2 + 0.01, 0),
      step('boas_vindas', 'buttons', t2 + 0.02, t2 + 0.05, null, {
        status: 'failed',
        error: { code: 'private_replies_refused', message: 'instagram refused private replies on this post.' },
      }),
    ],
    steps_truncated: false,
  };
  const t3 = -60 * 3;
  const runFailed = {
    id: run.failed,
    workflow_id: wf.menu,
    version_id: ver.menuV1,
    contact_id: w.contacts.anaWhatsapp.id,
    channel: runChannelWa,
    source: 'trigger',
    status: 'failed',
    created_at: at(t3),
    updated_at: at(t3 + 0.2),
    ended_at: at(t3 + 0.2),
    steps: [
      step('root', 'root', t3 + 0.01, t3 + 0.01, 0),
      step('menu', 'buttons', t3 + 0.02, t3 + 0.2, null, {
        status: 'failed',
        error: { code: 'provider_rejected', message: 'whatsapp refused the message for good: (#131026) Message undeliverable.' },
      }),
    ],
    steps_truncated: false,
  };
  const t4 = -60 * 20;
  const runStopped = {
    id: run.stopped,
    workflow_id: wf.menu,
    version_id: ver.menuV1,
    contact_id: w.contacts.carla.id,
    channel: runChannelWa,
    source: 'trigger',
    status: 'stopped',
    created_at: at(t4),
    updated_at: at(t4 + 31.2),
    ended_at: at(t4 + 31.2),
    steps: [
      step('menu', 'buttons', t4 + 24.0, t4 + 25.1, 0, { message_id: msg[10]! }),
      step('consultar_pedido', 'invoke', t4 + 25.11, t4 + 28.2, 1),
      step('erro_consulta', 'message', t4 + 28.21, t4 + 28.3, 0, { message_id: msg[11]! }),
      step('menu', 'buttons', t4 + 28.31, t4 + 29.5, 0),
      step('consultar_pedido', 'invoke', t4 + 29.51, t4 + 31.1, 1),
      step('erro_consulta', 'message', t4 + 31.11, t4 + 31.19, 0),
      step('menu', 'buttons', t4 + 31.2, t4 + 31.2, null, {
        status: 'failed',
        error: { code: 'block_run_limit', message: 'Block menu would run a 7th time in this run; the run stops.' },
      }),
    ],
    steps_truncated: true,
  };
  const runSummary = (r: Json) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'steps' && k !== 'steps_truncated'));

  // ---- folders and reply lists ----------------------------------------------------------------
  const folders = {
    blackFriday: {
      id: folder.blackFriday,
      type: 'workflow',
      name: 'Black Friday 2026',
      parent_id: null,
      created_at: at(-60 * 24 * 30),
      updated_at: at(-60 * 24 * 30),
    },
    support: {
      id: folder.support,
      type: 'workflow',
      name: 'Support',
      parent_id: null,
      created_at: at(-60 * 24 * 16),
      updated_at: at(-60 * 24 * 16),
    },
    comments: {
      id: folder.comments,
      type: 'workflow',
      name: 'Instagram comments',
      parent_id: folder.blackFriday,
      created_at: at(-60 * 24 * 7),
      updated_at: at(-60 * 24 * 7),
    },
  };
  const bfReplies = [
    'Sent you a DM, {contact.first_name}! 📩',
    'Check your inbox 😉',
    'Just messaged you, see you there!',
    'Done! Look in your DMs 🖤',
  ];
  const repliesLists = {
    blackFriday: {
      id: list.blackFriday,
      name: 'Black Friday replies',
      replies: bfReplies,
      created_at: at(-60 * 24 * 8),
      updated_at: at(-60 * 24 * 8),
    },
    giveaway: {
      id: list.giveaway,
      name: 'Giveaway replies',
      replies: ['You are in, {contact.first_name}! 🍀', 'Entry confirmed, check your DMs!', 'Good luck! 🎁'],
      created_at: at(-60 * 24 * 3),
      updated_at: at(-60 * 24 * 3),
    },
  };
  const listSummary = (l: { replies: string[] } & Json) => {
    const { replies, ...rest } = l;
    return { id: rest.id, name: rest.name, reply_count: replies.length, created_at: rest.created_at, updated_at: rest.updated_at };
  };

  const set: ExampleSet = {
    // ---- requests -----------------------------------------------------------------------------
    CreateInstagramCommentWorkflow: {
      summary: 'instagram comment automation',
      description:
        'Comments containing a keyword on the Black Friday post get a private reply with buttons; the contact is tagged, asked for an e-mail and sent one of two coupons. The reply list is posted under each comment.',
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
      value: {
        title: waTitle,
        channel: waChannel,
        trigger: { events: ['message'], match: 'equals', keywords: ['menu', 'ajuda', 'help'] },
        graph: { nodes: withoutPositions(waGraph) },
        folder_id: folder.support,
      },
    },
    CreateEmptyDraftWorkflow: {
      summary: 'Only the root block',
      description: 'Without `graph` the automation is created with only the `root` block; build it later.',
      value: { title: 'Story mention thank-you', channel: { type: 'instagram' }, trigger: { events: ['story_mention'], match: 'any' } },
    },
    ValidateInstagramDefinition: {
      summary: 'Check a definition before creating it',
      value: { channel: igChannel, trigger: igTrigger, graph: { nodes: igGraph } },
    },
    UpdateWorkflowTitleAndFolder: {
      summary: 'Rename and move to another folder',
      value: { title: 'Black Friday 2026: link by DM', folder_id: folder.blackFriday },
    },
    UpdateWorkflowTrigger: {
      summary: 'Replace the trigger (stories too)',
      description: 'The trigger replaces the whole previous one: send every field you want to keep.',
      value: {
        trigger: {
          events: ['comment', 'story_message'],
          match: 'contains',
          keywords: ['link', 'quero', 'preço', 'preco'],
          posts: [
            { type: 'feed', id: w.ids.posts[0] },
            { type: 'story', id: w.ids.posts[1] },
          ],
          next_post: false,
          replies_list_id: list.blackFriday,
        },
      },
    },
    UpdateWorkflowRemoveFromFolder: { summary: 'Take out of its folder', value: { folder_id: null } },
    StartRunForContact: { summary: 'Start for a whatsapp contact', value: { contact_id: w.contacts.anaWhatsapp.id } },
    CreateFolderTopLevel: { summary: 'Top-level folder', value: { name: 'Black Friday 2026' } },
    CreateSubfolder: { summary: 'Subfolder', value: { name: 'Instagram comments', parent_id: folder.blackFriday } },
    RenameFolder: { summary: 'Rename', value: { name: 'Customer support' } },
    MoveFolderToTop: { summary: 'Move to the top level', value: { parent_id: null } },
    CreateRepliesList: { summary: 'Black Friday public replies', value: { name: 'Black Friday replies', replies: bfReplies } },
    ReplaceReplies: {
      summary: 'Replace all the replies',
      value: { replies: ['Sent you a DM, {contact.first_name}! 📩', 'Check your inbox 😉', 'The link is in your DMs 🖤'] },
    },
    RenameRepliesListByCase: { summary: 'Change the letter case of its own name', value: { name: 'Black Friday Replies' } },

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
        data: [summary(waPublished), summary(igPublished), summary(mentionsDraft)],
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
            workflow_ids: [wf.linkInBio],
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
            node_id: 'boas_vindas',
            path: 'nodes.boas_vindas.data.next',
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
            node_id: 'boas_vindas',
            path: 'nodes.boas_vindas.data.buttons[2].whatsapp_connection_id',
            connection_id: w.connections.whatsappOld.id,
          },
        ],
        warnings: [
          {
            code: 'start_workflow_unpublished',
            message: 'The start block targets an automation that is not published; the run ends there.',
            node_id: 'seguir_mencoes',
            path: 'nodes.seguir_mencoes.data.workflow_id',
            workflow_ids: [wf.mentions],
            workflows: [{ id: wf.mentions, title: 'Story mention thank-you' }],
          },
          {
            code: 'answer_type_deprecated',
            message: 'answer_type number is obsolete and runs as any.',
            node_id: 'pedir_idade',
            path: 'nodes.pedir_idade.data.answer_type',
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
            node_id: 'boas_vindas',
            path: 'nodes.boas_vindas.data.buttons[0].title',
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
            node_id: 'boas_vindas',
            path: 'nodes.boas_vindas.data.buttons[1].url',
          },
        ],
        warnings: [
          {
            code: 'next_arity_invalid',
            message: 'The editor saved 5 next entries on a buttons block; remove the extra one before an update.',
            node_id: 'menu',
            path: 'nodes.menu.data.next',
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
          { id: ver.commentsV2, workflow_id: wf.comments, number: 2, revision: 7, title: igTitle, channel: igChannel, trigger: igTrigger, created_at: igV2At },
          { id: ver.commentsV1, workflow_id: wf.comments, number: 1, revision: 4, title: igTitle, channel: igChannel, trigger: igTriggerV1, created_at: igV1At },
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
      value: { id: run.queued, workflow_id: wf.menu, contact_id: w.contacts.anaWhatsapp.id, status: 'queued', created_at: at(0, 318) },
    },
    WorkflowRunCompleted: {
      summary: 'Completed comment run, with the public reply',
      value: runCompleted,
    },
    WorkflowRunWaiting: { summary: 'Waiting for the e-mail answer', value: runWaiting },
    WorkflowRunBlocked: { summary: 'instagram refused private replies on the post', value: runBlocked },
    WorkflowRunFailed: { summary: 'Failed: the channel refused the send', value: runFailed },
    WorkflowRunStopped: {
      summary: 'Stopped by the loop guard (older steps left out)',
      value: runStopped,
    },
    WorkflowRunsPage: {
      summary: 'Runs, most recent first',
      value: { data: [runSummary(runWaiting), runSummary(runCompleted), runSummary(runBlocked)], next_cursor: null },
    },

    // ---- folders and reply lists ----------------------------------------------------------------
    FoldersPage: {
      summary: 'Folders of every level, oldest first',
      value: { data: [folders.blackFriday, folders.support, folders.comments], next_cursor: null },
    },
    FolderBlackFriday: { summary: 'Top-level folder', value: folders.blackFriday },
    FolderComments: { summary: 'Subfolder', value: folders.comments },
    FolderRenamed: { summary: 'Renamed', value: { ...folders.support, name: 'Customer support', updated_at: at(-2) } },
    FolderDeleted: {
      summary: 'Folder and its subfolder deleted',
      value: { id: folder.blackFriday, deleted: true, deleted_folder_ids: [folder.blackFriday, folder.comments] },
    },
    RepliesListsPage: {
      summary: 'Reply lists, oldest first',
      value: { data: [listSummary(repliesLists.blackFriday), listSummary(repliesLists.giveaway)], next_cursor: null },
    },
    RepliesListBlackFriday: { summary: 'Black Friday public replies', value: repliesLists.blackFriday },
    RepliesListUpdated: {
      summary: 'Replies replaced',
      value: {
        ...repliesLists.blackFriday,
        replies: ['Sent you a DM, {contact.first_name}! 📩', 'Check your inbox 😉', 'The link is in your DMs 🖤'],
        updated_at: at(-1),
      },
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
            node_id: 'boas_vindas',
            path: 'nodes.boas_vindas.data.buttons[2].whatsapp_connection_id',
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
