// The `math` block's computation (Part B, "Block catalog", math): exact decimal arithmetic on the operands'
// texts, so 0.1 + 0.2 is 0.3 and the stored text never shows binary-float noise or exponent notation. Pure.
import type { BlockData } from '../../../../generated/block-catalog.js';
import {
  addDecimal,
  compareDecimal,
  divDecimal,
  formatDecimal,
  modDecimal,
  mulDecimal,
  parseDecimal,
  shiftDecimal,
  subDecimal,
  ZERO,
  type Decimal,
} from '../../evaluate/values.js';

/** The catalog's operators. */
export type MathOperator = BlockData<'math'>['operator'];

/** An operand's value: a plain dotted number (see parseDecimal), anything else (empty, null, `12,5`, `1e3`) 0. */
export function operandValue(text: string | null | undefined): Decimal {
  return parseDecimal(text) ?? ZERO;
}

/**
 * Part B math on two operand texts, returning the text the result field stores.
 *
 * - Operands: empty/null/undefined, or not just a plain dotted number, count as 0. `'12,5'` (comma) is 0;
 *   surrounding white space is ignored (`' 3'` is 3), white space inside is not (`'1 000'` is 0). A leading
 *   `+` or `-`, and `.5` or `5.`, are numbers.
 * - Exact: add, sub, mul, min, max, mod, pct_of (a × b / 100) and pct_add (a × (1 + b / 100)) are exact to the
 *   last digit. div is exact when the quotient has at most 20 decimal places, else cut after 20 (no rounding:
 *   2/3 = 0.66666666666666666666).
 * - div and mod by zero give 0. mod is the remainder of the truncated division, with the sign of a (as
 *   JavaScript `%`): -7 mod 3 = -1, 7 mod -3 = 1, 5.5 mod 2 = 1.5.
 * - The result text: plain dotted number, no exponent, no trailing zeros after the point and no point for a
 *   whole number (`2.50 + 0` stores `2.5`, `1.5 × 2` stores `3`), never `-0`.
 * - An unknown operator gives '0' (validation rejects it; the evaluator does not throw).
 */
export function computeMath(
  operator: MathOperator,
  a: string | null | undefined,
  b: string | null | undefined,
): string {
  const x = operandValue(a);
  const y = operandValue(b);
  return formatDecimal(compute(operator, x, y));
}

function compute(operator: MathOperator, x: Decimal, y: Decimal): Decimal {
  switch (operator) {
    case 'add':
      return addDecimal(x, y);
    case 'sub':
      return subDecimal(x, y);
    case 'mul':
      return mulDecimal(x, y);
    case 'div':
      return divDecimal(x, y);
    case 'min':
      return compareDecimal(x, y) <= 0 ? x : y;
    case 'max':
      return compareDecimal(x, y) >= 0 ? x : y;
    case 'mod':
      return modDecimal(x, y);
    case 'pct_of':
      return shiftDecimal(mulDecimal(x, y), 2);
    case 'pct_add':
      return addDecimal(x, shiftDecimal(mulDecimal(x, y), 2));
    default:
      return ZERO;
  }
}
