// The two descriptions built from spec/: the public API (what partners get: every `/v1` operation, the tracked
// links and the 3.1 `webhooks`) and the vendor console with the sandbox (`/admin/v1`). They share spec/'s
// components; each is bundled, typed and rendered on its own, so the public bundle holds no admin path.

export interface Description {
  /** The hand-written root under spec/. */
  root: string;
  /** The bundled description (redocly bundle), YAML and JSON. */
  yaml: string;
  json: string;
  /** Its TypeScript types (openapi-typescript). */
  types: string;
  /** Its Redoc page (`npm run docs`; not committed). */
  docs: string;
}

export const PUBLIC_DESCRIPTION: Description = {
  root: 'spec/openapi.yaml',
  yaml: 'generated/openapi.yaml',
  json: 'generated/openapi.json',
  types: 'generated/api.ts',
  docs: 'docs/index.html',
};

export const ADMIN_DESCRIPTION: Description = {
  root: 'spec/admin.yaml',
  yaml: 'generated/admin-openapi.yaml',
  json: 'generated/admin-openapi.json',
  types: 'generated/admin-api.ts',
  docs: 'docs/admin.html',
};

export const DESCRIPTIONS = [PUBLIC_DESCRIPTION, ADMIN_DESCRIPTION] as const;
