// Tag slugs, what `{contact.tag.<slug>}` of a sheets block names (Part B, "sheets"): a tag's name made a key as a
// custom field's label is (domain/console/custom-fields.ts: lowercase, accents removed, other runs of characters
// replaced by a hyphen), cut to 50 characters, and the numeric suffix rule of custom-field keys: of the account's
// tags sharing a slug, the oldest keeps it and each later one takes `-2`, `-3`, … (added after the cut).
import type { Kysely } from 'kysely';
import { selectTagNamesByAge } from '../../store/tags.js';
import type { DB } from '../../store/schema.js';
import { deriveFieldKey, nextFreeKey } from '../console/custom-fields.js';
import { trimEnd } from '../../text.js';

export const TAG_SLUG_MAX = 50;

/** The slug of one name before the suffix rule; '' when the name has no letter or digit (it has no slug). */
export function tagSlugBase(name: string): string {
  return trimEnd(deriveFieldKey(name).slice(0, TAG_SLUG_MAX), '-');
}

/** Slug → tag name, for names given oldest first. */
export function tagSlugs(namesOldestFirst: readonly string[]): Map<string, string> {
  const bySlug = new Map<string, string>();
  // The slugs of each base taken so far: the suffix rule (nextFreeKey) reads only those, and any slug another
  // tag holds as its own (a tag named "vip 2" holds `vip-2`) is skipped too.
  const takenByBase = new Map<string, string[]>();
  for (const name of namesOldestFirst) {
    const base = tagSlugBase(name);
    if (base === '') continue;
    const taken = takenByBase.get(base) ?? [];
    let slug = nextFreeKey(base, taken);
    while (bySlug.has(slug)) {
      taken.push(slug);
      slug = nextFreeKey(base, taken);
    }
    taken.push(slug);
    takenByBase.set(base, taken);
    bySlug.set(slug, name);
  }
  return bySlug;
}

/** The account's tag slugs (active tags; a deleted tag frees its slug). */
export async function tagSlugsOfAccount(db: Kysely<DB>, accountId: string): Promise<Map<string, string>> {
  return tagSlugs((await selectTagNamesByAge(db, accountId)).map((tag) => tag.name));
}
