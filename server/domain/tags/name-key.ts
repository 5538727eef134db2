// How tag names compare: letter case folded without the database's locale (tags are unique by it, and
// automations' blocks name a tag in any letter case).
/**
 * The name with letter case folded, the same on every database: upper case then lower case by the Unicode
 * default mappings (no locale), close to Unicode case folding: `Ação` and `AÇÃO` are one name, and so are
 * `ß` and `SS`, and a final `ς` and `σ`.
 */
export const tagNameKey = (name: string): string => name.toUpperCase().toLowerCase();
