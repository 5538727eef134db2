// A WhatsApp Business Account's templates, as Meta lists them (`GET /{waba_id}/message_templates`), read into
// the connection's templates: the body text with its numbered placeholders, the status, and the parts the API
// cannot fill (`unsupported_features`, in the catalogue's order). A template whose body cannot be read (no BODY
// component, or placeholders that are neither numbered nor named) is skipped and reported, never guessed at.
import { z } from 'zod';
import {
  parseTemplateBody,
  TEMPLATE_FEATURES,
  TEMPLATE_STATUSES,
  type TemplateFeature,
  type TemplateStatus,
} from '../console/templates.js';

const component = z.object({
  type: z.string().max(32),
  format: z.string().max(32).optional(),
  text: z.string().max(4_096).optional(),
  buttons: z
    .array(z.object({ type: z.string().max(32), url: z.string().max(2_048).optional() }))
    .max(20)
    .optional(),
  cards: z.array(z.unknown()).max(20).optional(),
});

/** One template as the Graph API lists it (the fields the platform reads; others are ignored). */
export const metaTemplateSchema = z.object({
  name: z.string().min(1).max(512),
  language: z.string().min(1).max(16),
  status: z.string().max(32),
  category: z.string().max(32).optional(),
  parameter_format: z.string().max(16).optional(),
  components: z.array(component).max(20),
});
export type MetaTemplate = z.infer<typeof metaTemplateSchema>;

/** A template as the connection keeps it. */
export interface SyncedTemplate {
  name: string;
  language: string;
  body: string;
  variable_count: number;
  status: TemplateStatus;
  unsupported_features: TemplateFeature[];
}

/** Meta's statuses → the platform's; IN_APPEAL, PENDING_DELETION and the like cannot be sent: pending / disabled. */
function statusOf(meta: string): TemplateStatus {
  const lower = meta.toLowerCase();
  const known = TEMPLATE_STATUSES.find((status) => status === lower);
  if (known) return known;
  return lower === 'in_appeal' ? 'pending' : 'disabled';
}

const HAS_PLACEHOLDER = /\{\{[^{}]*\}\}/;

function featuresOf(template: MetaTemplate, named: boolean): TemplateFeature[] {
  const found = new Set<TemplateFeature>();
  for (const part of template.components) {
    const type = part.type.toUpperCase();
    if (type === 'HEADER' && part.format !== undefined && part.format.toUpperCase() !== 'TEXT')
      found.add('header_media');
    if (type === 'HEADER' && part.text !== undefined && HAS_PLACEHOLDER.test(part.text)) found.add('header_variables');
    if (type === 'BUTTONS' && (part.buttons ?? []).some((b) => b.url !== undefined && HAS_PLACEHOLDER.test(b.url)))
      found.add('button_variables');
    if (type === 'BUTTONS' && (part.buttons ?? []).some((b) => b.type.toUpperCase() === 'OTP'))
      found.add('authentication');
    if (type === 'CAROUSEL') found.add('carousel');
  }
  if (named || template.parameter_format?.toUpperCase() === 'NAMED') found.add('named_variables');
  if (template.category?.toUpperCase() === 'AUTHENTICATION') found.add('authentication');
  return TEMPLATE_FEATURES.filter((feature) => found.has(feature));
}

/** The template as the connection keeps it, or why it cannot be kept. */
export function syncedTemplate(template: MetaTemplate): { template: SyncedTemplate } | { skipped: string } {
  const body = template.components.find((part) => part.type.toUpperCase() === 'BODY')?.text;
  if (body === undefined || body.trim() === '' || body.length > 1_024)
    return { skipped: 'no body of 1 to 1,024 characters' };
  let parsed: { variableCount: number; named: boolean };
  try {
    parsed = parseTemplateBody(body);
  } catch {
    return { skipped: 'placeholders that are neither numbered without gaps nor named' };
  }
  return {
    template: {
      name: template.name,
      language: template.language,
      body,
      variable_count: parsed.variableCount,
      status: statusOf(template.status),
      unsupported_features: featuresOf(template, parsed.named),
    },
  };
}
