// The `conditional` block's evaluation (Part B, "Block catalog", conditional). Pure: everything about the
// contact, the conversation and the time comes in the ConditionContext. A malformed condition, a malformed
// value, or a comparison without a value makes the condition false; nothing here throws.
//
// Readings where the seed is silent:
// - `value` is a string; a finite number is read as its text (old graphs), anything else is "no value".
//   Comparisons that need a value are false without one; so is an empty value ('' is "no value").
// - tag: has_tag / not_has_tag by exact name; without `field_name` both are false.
// - custom_field: has_field when the contact has a non-empty value. field_equals / field_not_equals compare
//   the text exactly (letter case matters: only `variable` conditions ignore it); a field without value reads
//   as ''. A field the account lacks (lookup undefined): has_field false, not_has_field true, comparisons false.
// - score: numeric; a contact without score (null) makes every score comparison false.
// - variable: the compared text is what `{name}` would show (unknown '', known without value 'null'), so a
//   condition agrees with a message. has_field is true only for a known, non-null, non-empty value. Equality
//   and contains ignore letter case (toLowerCase on both sides) and nothing else (no trimming, no accents
//   folding). Numbers (greater/less/between) read both sides as plain dotted numbers (surrounding white space
//   ignored); one not a number → false.
// - field_between (score and variable): `min,max`, both ends included; min greater than max → false.
// - date_before / date_after / date_on: the variable's value read as a date (see readMoment in values.ts:
//   dd/MM/yyyy, yyyy-MM-dd, with an optional time after it; a zoned ISO instant or epoch milliseconds converted
//   to the account time zone) compared by calendar day with the condition's date: date_before is true when the
//   variable's date is strictly earlier than the value's date, date_after strictly later, date_on the same day.
// - time_before / time_after / time_between: the variable's value read as a time of day (HH:mm[:ss], or the time
//   part of a date-time as above), cut to the minute, compared with HH:mm: before/after exclude the minute
//   itself; time_between `start,end` includes both ends and, when start > end, crosses midnight (22:00,02:00
//   holds from 22:00 to 23:59 and from 00:00 to 02:00).
// - `system.current_date`, `system.current_time` and `system.current_datetime` come from ctx.now in
//   ctx.timeZone when ctx.variable does not know them.
// - follower_status: false on whatsapp for both operators; on instagram, an unknown status (null) is false for
//   both.
import { systemVariables, variableText } from '../../evaluate/variables.js';
import {
  compareDecimal,
  decimalFromNumber,
  parseConditionDate,
  parseConditionTime,
  parseDecimal,
  readMoment,
  type Decimal,
} from '../../evaluate/values.js';

export interface ConditionContext {
  channel: 'instagram' | 'whatsapp';
  hasTag(name: string): boolean; // exact name
  field(key: string): string | null | undefined; // custom field value (undefined: no such field; null: no value)
  score: number | null;
  variable(name: string): string | null | undefined;
  isFollower: boolean | null; // null unknown
  windowOpen: boolean;
  now: Date;
  timeZone: string; // account time zone, for date_/time_ comparisons
}

type Condition = Record<string, unknown>;

const isCondition = (value: unknown): value is Condition =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | null => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
};

/** The condition's `value`, or null when it has none (missing, empty, not a string). */
function conditionValue(condition: Condition): string | null {
  const value = text(condition.value);
  return value === null || value === '' ? null : value;
}

/** The two parts of `a,b` (each trimmed), or null. */
function pair(value: string | null): [string, string] | null {
  const [first, second, ...more] = value === null ? [] : value.split(',');
  if (first === undefined || second === undefined || more.length > 0) return null;
  return [first.trim(), second.trim()];
}

/** Numeric comparisons shared by score and variable. */
function compareNumber(operator: string, subject: Decimal | null, value: string | null): boolean {
  if (subject === null || value === null) return false;
  if (operator === 'field_between') {
    const ends = pair(value);
    if (!ends) return false;
    const min = parseDecimal(ends[0]);
    const max = parseDecimal(ends[1]);
    if (!min || !max || compareDecimal(min, max) > 0) return false;
    return compareDecimal(subject, min) >= 0 && compareDecimal(subject, max) <= 0;
  }
  const target = parseDecimal(value);
  if (!target) return false;
  const order = compareDecimal(subject, target);
  switch (operator) {
    case 'field_equals':
      return order === 0;
    case 'field_not_equals':
      return order !== 0;
    case 'field_greater_than':
      return order > 0;
    case 'field_greater_or_equal':
      return order >= 0;
    case 'field_less_than':
      return order < 0;
    case 'field_less_or_equal':
      return order <= 0;
    default:
      return false;
  }
}

function tagCondition(condition: Condition, ctx: ConditionContext): boolean {
  const name = condition.field_name;
  if (typeof name !== 'string' || name === '') return false;
  if (condition.operator === 'has_tag') return ctx.hasTag(name);
  if (condition.operator === 'not_has_tag') return !ctx.hasTag(name);
  return false;
}

function customFieldCondition(condition: Condition, ctx: ConditionContext): boolean {
  const key = condition.field_name;
  if (typeof key !== 'string' || key === '') return false;
  const stored = ctx.field(key);
  const has = typeof stored === 'string' && stored !== '';
  switch (condition.operator) {
    case 'has_field':
      return has;
    case 'not_has_field':
      return !has;
    case 'field_equals':
    case 'field_not_equals': {
      const value = conditionValue(condition);
      if (value === null || stored === undefined) return false;
      return ((stored ?? '') === value) === (condition.operator === 'field_equals');
    }
    default:
      return false;
  }
}

function scoreCondition(condition: Condition, ctx: ConditionContext): boolean {
  const score = ctx.score === null ? null : decimalFromNumber(ctx.score);
  return compareNumber(String(condition.operator), score, conditionValue(condition));
}

const SYSTEM_NAMES = new Set(['system.current_date', 'system.current_time', 'system.current_datetime']);

function lookupVariable(name: string, ctx: ConditionContext): string | null | undefined {
  const value = ctx.variable(name);
  if (value === undefined && SYSTEM_NAMES.has(name)) {
    const system: Record<string, string> = systemVariables(ctx.now, ctx.timeZone);
    return system[name];
  }
  return value;
}

function variableCondition(condition: Condition, ctx: ConditionContext): boolean {
  const name = condition.field_name;
  if (typeof name !== 'string' || name === '') return false;
  const raw = lookupVariable(name, ctx);
  const subject = variableText(name, () => raw);
  const operator = String(condition.operator);
  if (operator === 'has_field') return typeof raw === 'string' && raw !== '';
  if (operator === 'not_has_field') return !(typeof raw === 'string' && raw !== '');
  const value = conditionValue(condition);
  if (value === null) return false;
  switch (operator) {
    case 'field_equals':
      return subject.toLowerCase() === value.toLowerCase();
    case 'field_not_equals':
      return subject.toLowerCase() !== value.toLowerCase();
    case 'field_contains':
      return subject.toLowerCase().includes(value.toLowerCase());
    case 'field_not_contains':
      return !subject.toLowerCase().includes(value.toLowerCase());
    case 'field_greater_than':
    case 'field_greater_or_equal':
    case 'field_less_than':
    case 'field_less_or_equal':
    case 'field_between':
      return compareNumber(operator, parseDecimal(subject), value);
    case 'date_before':
    case 'date_after':
    case 'date_on': {
      const day = readMoment(subject, ctx.timeZone).day;
      const target = parseConditionDate(value);
      if (day === null || target === null) return false;
      if (operator === 'date_before') return day < target;
      if (operator === 'date_after') return day > target;
      return day === target;
    }
    case 'time_before':
    case 'time_after': {
      const minute = readMoment(subject, ctx.timeZone).minute;
      const target = parseConditionTime(value);
      if (minute === null || target === null) return false;
      return operator === 'time_before' ? minute < target : minute > target;
    }
    case 'time_between': {
      const minute = readMoment(subject, ctx.timeZone).minute;
      const ends = pair(value);
      if (minute === null || !ends) return false;
      const start = parseConditionTime(ends[0]);
      const end = parseConditionTime(ends[1]);
      if (start === null || end === null) return false;
      return start <= end ? minute >= start && minute <= end : minute >= start || minute <= end;
    }
    default:
      return false;
  }
}

/** One condition of the table; a malformed value or a missing needed value → false, never throws. */
export function evaluateCondition(condition: Record<string, unknown>, ctx: ConditionContext): boolean {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return false;
  switch (condition.field_type) {
    case 'tag':
      return tagCondition(condition, ctx);
    case 'custom_field':
      return customFieldCondition(condition, ctx);
    case 'score':
      return scoreCondition(condition, ctx);
    case 'variable':
      return variableCondition(condition, ctx);
    case 'follower_status':
      if (ctx.channel !== 'instagram' || ctx.isFollower === null) return false;
      if (condition.operator === 'is_follower') return ctx.isFollower;
      if (condition.operator === 'not_follower') return !ctx.isFollower;
      return false;
    case 'messaging_window':
      if (condition.operator === 'window_open') return ctx.windowOpen;
      if (condition.operator === 'window_closed') return !ctx.windowOpen;
      return false;
    default:
      return false;
  }
}

/**
 * A conditional block's data: `conditions` with `combinator` and|or (default and); the old one-condition form
 * (fields directly in data) when `conditions` is absent; no condition at all → false.
 *
 * `conditions` present (even empty, or not a list) wins over the old form, which is then ignored; an empty or
 * malformed list is false. A combinator other than `or` (absent, `and`, or an unknown word) means and. A
 * condition that is not an object is false.
 */
export function evaluateConditional(data: Record<string, unknown>, ctx: ConditionContext): boolean {
  if (typeof data !== 'object' || data === null) return false;
  let conditions: unknown[];
  if (data.conditions !== undefined) {
    if (!Array.isArray(data.conditions)) return false;
    conditions = data.conditions;
  } else if (data.field_type !== undefined) {
    conditions = [
      { field_type: data.field_type, field_name: data.field_name, operator: data.operator, value: data.value },
    ];
  } else return false;
  if (conditions.length === 0) return false;
  const holds = (condition: unknown) => isCondition(condition) && evaluateCondition(condition, ctx);
  return data.combinator === 'or' ? conditions.some(holds) : conditions.every(holds);
}
