// The one definition of a variable name (Part B, "Variables"): letters without accents, digits, `_`, `.`, `-`, at
// least one character, no spaces, case matters. The engine's `{name}` substitution and the console's account
// variables and secrets (whose names follow `account.` and `secret.`) read it from here.

/** The characters of a variable name, as a regular-expression fragment (one or more). */
export const VARIABLE_NAME_PATTERN = '[A-Za-z0-9_.-]+';
const NAME_RE = new RegExp(`^${VARIABLE_NAME_PATTERN}$`);

export function isVariableName(name: string): boolean {
  return NAME_RE.test(name);
}
