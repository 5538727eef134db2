// The admin API (what the vendor's console does), mounted at /admin/v1 before the public pipeline:
//
//   request → admin token (401 with only `message`) → OpenAPI validation against the vendor console's own
//             description (generated/admin-openapi.json; 400 envelope)
//           → handler by operationId (generated `adminOperations`) → Cache-Control: no-store
//
// No API key, no scopes, no per-account rate limit, no Idempotency-Key. Handlers are thin: the rules live in
// the services (domain/accounts, domain/console), which the console CLI calls too.
import { strictFormats } from './formats.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type RequestHandler, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ADMIN_PREFIX, adminOperations } from '../../generated/operations.js';
import { accountView, changeAccount, createAccount, getAccount } from '../domain/accounts/accounts.js';
import { ADMIN_API } from '../domain/accounts/actor.js';
import { listAuditLog } from '../domain/accounts/audit-log.js';
import { createApiKey, keyView, listApiKeys, revokeApiKey } from '../domain/accounts/keys.js';
import {
  createAccountSecret,
  listAccountSecrets,
  listAccountVariables,
  removeAccountSecret,
  removeAccountVariable,
  secretView,
  setAccountVariable,
  variableView,
} from '../domain/console/account-variables.js';
import { changeConnection, connectionView, createConnection } from '../domain/console/connections.js';
import {
  detachInstagramAccount,
  getInstagramAccount,
  setUpInstagramAccount,
  type InstagramAccountsDeps,
} from '../domain/channels/instagram-accounts.js';
import { detachNumber, getNumber, resyncTemplates, setUpNumber, type NumbersDeps } from '../domain/channels/numbers.js';
import { createCustomField, customFieldView, removeCustomField } from '../domain/console/custom-fields.js';
import { changeTemplateStatus, createTemplate, templateView } from '../domain/console/templates.js';
import {
  changeSpreadsheetAccountStatus,
  createSpreadsheetAccount,
  spreadsheetAccountView,
} from '../domain/console/spreadsheet-accounts.js';
import { createUpload, uploadView } from '../domain/console/uploads.js';
import { accountOfContact, deleteContactInConsole, editContactInConsole } from '../domain/contacts/contacts.js';
import { CONSOLE, contactHistory } from '../domain/contacts/history.js';
import { listOwnerNotifications } from '../domain/webhooks/notifications.js';
import { etagOf } from '../domain/workflows/if-match.js';
import { workflowView } from '../domain/workflows/views.js';
import { saveDraftFromEditor } from '../domain/workflows/workflows.js';
import { ApiError, GatewayError } from '../errors.js';
import { ADMIN_STREAMS, adminHandlerOf, type AdminHandlers, type AdminStreamId, type AppContext } from './context.js';
import { streamAccountEvents } from './event-stream.js';
import { specDocument, requestValidatorSpec } from './spec.js';
import { canonicalParams, entryRules } from './entry-rules.js';
import { operationList, operationMatcher } from './operation-match.js';
import { refuseNulCharacters } from './nul.js';
import { sandboxAdminHandlers } from './sandbox-admin.js';
import { pageRequest } from './page.js';
import { sendResult } from './respond.js';
import { validatorOnce } from './validators.js';
import { checkResponse } from './response-check.js';
import { answerInternalError } from './internal-error.js';

/** What attaching a WhatsApp Cloud number needs of the app: the keyring and the Graph API's reads. */
const numbersDeps = (app: AppContext): NumbersDeps => ({
  db: app.database.db,
  clock: app.clock,
  keyring: app.channelKeys,
  graph: app.whatsAppCloudAccount,
  logger: app.logger,
});

/** What attaching an Instagram account needs of the app: the keyring and the Graph API's calls. */
const instagramDeps = (app: AppContext): InstagramAccountsDeps => ({
  db: app.database.db,
  clock: app.clock,
  keyring: app.channelKeys,
  graph: app.instagramAccount,
});

export const adminHandlers: AdminHandlers = {
  adminCreateAccount: async ({ app, body }) => {
    const input = {
      name: body.name,
      alias: body.alias,
      ...(body.time_zone !== undefined ? { timeZone: body.time_zone } : {}),
    };
    return { status: 201, body: accountView(await createAccount(app.database.db, app.clock, input, ADMIN_API)) };
  },
  adminGetAccount: async ({ app, params }) => ({
    status: 200,
    body: accountView(await getAccount(app.database.db, params.accountId)),
  }),
  adminUpdateAccount: async ({ app, params, body }) => ({
    status: 200,
    body: accountView(await changeAccount(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminListApiKeys: async ({ app, params }) => {
    const now = app.clock.now();
    const keys = await listApiKeys(app.database.db, params.accountId);
    return { status: 200, body: { data: keys.map((k) => keyView(k, now)), next_cursor: null } };
  },
  adminListAccountAuditLog: async ({ app, params, query }) => ({
    status: 200,
    body: await listAuditLog(app.database.db, app.clock, params.accountId, pageRequest(query)),
  }),
  adminListAccountNotifications: async ({ app, params }) => ({
    status: 200,
    body: await listOwnerNotifications(app.database.db, params.accountId),
  }),
  adminCreateApiKey: async ({ app, params, body }) => {
    const { key, secret } = await createApiKey(
      app.database.db,
      app.clock,
      { accountId: params.accountId, name: body.name, scopes: body.scopes, validityDays: body.validity_days },
      ADMIN_API,
    );
    return { status: 201, body: { secret, api_key: keyView(key, app.clock.now()) } };
  },
  adminRevokeApiKey: async ({ app, params }) => ({
    status: 200,
    body: keyView(await revokeApiKey(app.database.db, app.clock, params.keyId, ADMIN_API), app.clock.now()),
  }),
  adminCreateConnection: async ({ app, params, body }) => ({
    status: 201,
    body: connectionView(await createConnection(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminUpdateConnection: async ({ app, params, body }) => ({
    status: 200,
    body: connectionView(await changeConnection(app.database.db, app.clock, params.connectionId, body, ADMIN_API)),
  }),
  adminGetWhatsAppCloudNumber: async ({ app, params }) => ({
    status: 200,
    body: await getNumber(app.database.db, params.connectionId),
  }),
  adminUpdateWhatsAppCloudNumber: async ({ app, params, body }) => ({
    status: 200,
    body: await setUpNumber(numbersDeps(app), params.connectionId, body),
  }),
  adminDeleteWhatsAppCloudNumber: async ({ app, params }) => ({
    status: 200,
    body: connectionView(await detachNumber(numbersDeps(app), params.connectionId)),
  }),
  adminCreateWhatsAppCloudTemplateSync: async ({ app, params }) => ({
    status: 200,
    body: await resyncTemplates(numbersDeps(app), params.connectionId),
  }),
  adminGetInstagramAccount: async ({ app, params }) => ({
    status: 200,
    body: await getInstagramAccount(app.database.db, params.connectionId),
  }),
  adminUpdateInstagramAccount: async ({ app, params, body }) => ({
    status: 200,
    body: await setUpInstagramAccount(instagramDeps(app), params.connectionId, body),
  }),
  adminDeleteInstagramAccount: async ({ app, params }) => ({
    status: 200,
    body: connectionView(await detachInstagramAccount(instagramDeps(app), params.connectionId)),
  }),
  adminCreateCustomField: async ({ app, params, body }) => ({
    status: 201,
    body: customFieldView(await createCustomField(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminDeleteCustomField: async ({ app, params }) => {
    const field = await removeCustomField(app.database.db, app.clock, params.fieldId, ADMIN_API);
    return { status: 200, body: { id: field.id, deleted: true } };
  },
  adminCreateTemplate: async ({ app, params, body }) => ({
    status: 201,
    body: templateView(await createTemplate(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminUpdateTemplate: async ({ app, params, body }) => ({
    status: 200,
    body: templateView(
      await changeTemplateStatus(app.database.db, app.clock, params.templateId, body.status, ADMIN_API),
    ),
  }),
  adminCreateUpload: async ({ app, params, body }) => ({
    status: 201,
    body: uploadView(await createUpload(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminListAccountVariables: async ({ app, params }) => ({
    status: 200,
    body: {
      data: (await listAccountVariables(app.database.db, params.accountId)).map(variableView),
      next_cursor: null,
    },
  }),
  adminUpdateAccountVariable: async ({ app, params, body }) => ({
    status: 200,
    body: variableView(
      await setAccountVariable(app.database.db, app.clock, params.accountId, params.name, body.value, ADMIN_API),
    ),
  }),
  adminDeleteAccountVariable: async ({ app, params }) => {
    await removeAccountVariable(app.database.db, app.clock, params.accountId, params.name, ADMIN_API);
    return { status: 204 };
  },
  adminCreateAccountSecret: async ({ app, params, body }) => ({
    status: 201,
    body: secretView(await createAccountSecret(app.database.db, app.clock, params.accountId, body, ADMIN_API)),
  }),
  adminListAccountSecrets: async ({ app, params }) => ({
    status: 200,
    body: { data: (await listAccountSecrets(app.database.db, params.accountId)).map(secretView), next_cursor: null },
  }),
  adminDeleteAccountSecret: async ({ app, params }) => {
    await removeAccountSecret(app.database.db, app.clock, params.secretId, ADMIN_API);
    return { status: 204 };
  },
  adminCreateSpreadsheetAccount: async ({ app, params, body }) => ({
    status: 201,
    body: spreadsheetAccountView(
      await createSpreadsheetAccount(app.database.db, app.clock, params.accountId, body, ADMIN_API),
    ),
  }),
  adminUpdateSpreadsheetAccount: async ({ app, params, body }) => ({
    status: 200,
    body: spreadsheetAccountView(
      await changeSpreadsheetAccountStatus(
        app.database.db,
        app.clock,
        params.spreadsheetAccountId,
        body.status,
        ADMIN_API,
      ),
    ),
  }),
  adminUpdateContact: async ({ app, params, body }) => {
    const accountId = await accountOfContact(app.database.db, params.contactId);
    const { name } = body;
    return {
      status: 200,
      body: await editContactInConsole(app.database.db, app.clock, accountId, params.contactId, { name }, CONSOLE),
    };
  },
  adminDeleteContact: async ({ app, params }) => {
    const accountId = await accountOfContact(app.database.db, params.contactId);
    await deleteContactInConsole(app.database.db, app.clock, accountId, params.contactId);
    return { status: 200, body: { id: params.contactId, deleted: true } };
  },
  adminUpdateWorkflowDraft: async ({ app, params, body }) => {
    const row = await saveDraftFromEditor(app.database.db, app.clock, ADMIN_API, params.workflowId, body);
    return { status: 200, body: workflowView(row), headers: etagOf(row) };
  },
  adminListContactHistory: async ({ app, params }) => {
    const accountId = await accountOfContact(app.database.db, params.contactId);
    return {
      status: 200,
      body: { data: await contactHistory(app.database.db, accountId, params.contactId), next_cursor: null },
    };
  },
  ...sandboxAdminHandlers,
};

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A check of `Authorization: Bearer <admin token>` in constant time. No token configured: nothing passes. */
export function adminTokenCheck(token: string | undefined): (req: Request) => boolean {
  const expected = token ? digest(token) : undefined;
  return (req) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    return expected !== undefined && token !== undefined && timingSafeEqual(digest(token), expected);
  };
}

const isAdminStream = (id: string): id is AdminStreamId => ADMIN_STREAMS.some((stream) => stream === id);

/** The router of the admin API, to mount at `/admin/v1`. */
export function adminRouter(ctx: AppContext, handlers: AdminHandlers): Router {
  const router = express.Router();
  const authorized = adminTokenCheck(ctx.config.adminToken);

  router.use((req, _res, next) => {
    if (!authorized(req)) return next(new GatewayError(401, 'Missing or invalid admin token.'));
    next();
  });
  // A second validator instance, on the admin description (the public one ignores /admin): the same 400 envelope.
  router.use(refuseNulCharacters);
  router.use(adminEntryRules());
  router.use(adminValidator());

  // Literal segments win over parameters, as in the public pipeline.
  const parameterCount = (path: string) => path.match(/\{/g)?.length ?? 0;
  const byPrecedence = operationList(adminOperations).sort((a, b) => parameterCount(a.path) - parameterCount(b.path));
  for (const operation of byPrecedence) {
    if (isAdminStream(operation.id)) {
      // A stream writes its own response as events happen (./event-stream.ts).
      router[operation.method](operation.expressPath, (req, res, next) => {
        res.locals.route = operation.path;
        const { accountId } = canonicalParams(req.params);
        if (accountId === undefined) return next(new ApiError(404, 'not_found', 'No such account.'));
        streamAccountEvents(ctx, req, res, accountId).catch(next);
      });
      continue;
    }
    const handler = adminHandlerOf(handlers, operation.id);
    if (!handler) continue; // none is missing: AdminHandlers has every admin operation
    router[operation.method](operation.expressPath, (req, res, next) => {
      // The route template labels the request log and metrics.
      res.locals.route = operation.path;
      if (ctx.config.responseValidation)
        checkResponse('admin', operation, res, (defect) => answerInternalError(ctx.logger, req, res, defect));
      handler({ req, app: ctx, params: canonicalParams(req.params), query: req.query, body: req.body })
        .then((result) => sendResult(res, result))
        .catch(next);
    });
  }

  router.use((req, _res, next) =>
    next(new ApiError(404, 'not_found', `No route ${req.method} ${ADMIN_PREFIX}${req.path}.`)),
  );
  return router;
}

/** The entry rules of the public pipeline (./entry-rules.ts): integers in the query, ids in query and body. */
function adminEntryRules(): RequestHandler {
  const applyEntryRules = entryRules(specDocument('admin'));
  const adminOperationOf = operationMatcher(operationList(adminOperations));
  return (req, _res, next) => {
    try {
      const matched = adminOperationOf(req.method, req.path);
      if (matched) applyEntryRules(matched.operation.id, req);
      next();
    } catch (error) {
      next(error);
    }
  };
}

function adminValidator() {
  return validatorOnce('admin requests', () =>
    OpenApiValidator.middleware({
      apiSpec: requestValidatorSpec('admin'),
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
      // The responses are checked by ./response-check.ts.
      validateResponses: false,
      validateSecurity: false,
      // The description is checked where it is made (lint:spec, the generated files' test), not at every start.
      validateApiSpec: false,
      validateFormats: true,
      formats: strictFormats,
      ignoreUndocumented: false,
      // The validator sees `/admin/v1//accounts` (mount path + path) here; anything outside /admin/v1 is not ours.
      ignorePaths: (path: string) => !path.startsWith(`${ADMIN_PREFIX}/`),
    }),
  );
}
