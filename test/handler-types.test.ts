// The handlers' types come from the generated operations: each `@ts-expect-error` below is a handler that must
// not compile (tsc checks this file with the rest; an error that stops happening fails `npm run typecheck`).
import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../generated/api.js';
import type {
  AdminHandler,
  Handler,
  HandlerResult,
  PathParams,
  QueryParams,
  RequestBody,
  UntypedHandlerInput,
} from '../server/http/context.js';

type Tag = components['schemas']['Tag'];
const tag: Tag = { id: '2f1f5f0e-0000-4000-8000-000000000001', name: 'vip', created_at: '2026-11-25T12:00:00Z' };

describe('a handler typed from its operation', () => {
  it('receives the operation’s path parameters, query and JSON body', () => {
    expectTypeOf<PathParams<'getTag'>>().toEqualTypeOf<{ tagId: string }>();
    expectTypeOf<RequestBody<'createTag'>>().toEqualTypeOf<components['schemas']['TagCreateRequest']>();
    expectTypeOf<RequestBody<'getTag'>>().toEqualTypeOf<undefined>();
    expectTypeOf<QueryParams<'listTags'>>().toHaveProperty('cursor');
    expectTypeOf<HandlerResult<'deleteTag'>>().toEqualTypeOf<{
      status: 204;
      body?: undefined;
      headers?: Record<string, string>;
    }>();
  });

  it('answers only a declared success with its schema', () => {
    const right: Handler<'getTag'> = async ({ params }) => ({ status: 200, body: { ...tag, id: params.tagId } });

    // @ts-expect-error -- Tag has `name`, not `title`
    const wrongField: Handler<'getTag'> = async () => ({
      status: 200,
      body: { id: tag.id, title: tag.name, created_at: tag.created_at },
    });

    // @ts-expect-error -- Tag's `created_at` is a string
    const wrongType: Handler<'getTag'> = async () => ({ status: 200, body: { ...tag, created_at: 1 } });

    // @ts-expect-error -- Tag has a `name`
    const missingField: Handler<'getTag'> = async () => ({
      status: 200,
      body: { id: tag.id, created_at: tag.created_at },
    });

    // @ts-expect-error -- getTag declares 200, not 201
    const wrongStatus: Handler<'getTag'> = async () => ({ status: 201, body: tag });

    // @ts-expect-error -- a 204 has no body
    const bodyOn204: Handler<'deleteTag'> = async () => ({ status: 204, body: tag });

    const unknownBodyField: Handler<'createTag'> = async ({ body }) => ({
      status: 201,
      // @ts-expect-error -- TagCreateRequest has no `label`
      body: { ...tag, name: body.label },
    });

    const unknownPathParameter: Handler<'getTag'> = async ({ params }) => ({
      status: 200,
      // @ts-expect-error -- GET /v1/tags/{tagId} has no contactId
      body: { ...tag, id: params.contactId },
    });

    // @ts-expect-error -- the admin API's revoke answers 200, not 204
    const adminWrongStatus: AdminHandler<'adminRevokeApiKey'> = async () => ({ status: 204 });

    const adminUnknownBodyField: AdminHandler<'adminCreateApiKey'> = async ({ body }) => {
      // @ts-expect-error -- AdminApiKeyCreateRequest has no `owner`
      void body.owner;
      throw new Error('not called');
    };

    for (const handler of [adminWrongStatus, adminUnknownBodyField]) expectTypeOf(handler).toBeFunction();
    for (const handler of [right, wrongField, wrongType, missingField, wrongStatus, bodyOn204, unknownBodyField])
      expectTypeOf(handler).toBeFunction();
    expectTypeOf(unknownPathParameter).parameter(0).not.toEqualTypeOf<UntypedHandlerInput>();
  });
});
