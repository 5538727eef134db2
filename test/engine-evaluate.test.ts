// The pure evaluators of the automation engine (server/engine/evaluate/): variable substitution and the `data`
// block's value, the computed variables, the `math` block, the `conditional` block's conditions and the
// `randomizer` block's choice. Part B, "Block catalog" and "Variables". Table-driven: each row is one rule.
import { describe, expect, it } from 'vitest';
import {
  evaluateCondition,
  evaluateConditional,
  type ConditionContext,
} from '../server/engine/blocks/conditional/evaluate.js';
import { computeMath, type MathOperator } from '../server/engine/blocks/math/evaluate.js';
import { chooseOption } from '../server/engine/blocks/randomizer/evaluate.js';
import {
  conversationVariables,
  dataValue,
  joinTags,
  substitute,
  systemVariables,
  type VariableLookup,
} from '../server/engine/evaluate/variables.js';
import { formatDecimal, parseDecimal, readMoment } from '../server/engine/evaluate/values.js';

const VARS: Record<string, string | null> = {
  'contact.name': 'Ana',
  'contact.first_name': 'Ana',
  'contact.follower_count': null,
  plano: 'Gold',
  a: 'A',
  b: 'B',
  'x-y_z.1': 'ok',
  Nome: 'upper',
  braces: '{contact.name}',
  empty: '',
};
const lookup: VariableLookup = (name) => (Object.hasOwn(VARS, name) ? VARS[name] : undefined);

describe('substitute', () => {
  it.each([
    ['plain text', 'Hello', 'Hello'],
    ['one variable', 'Hi {contact.name}!', 'Hi Ana!'],
    ['unknown variable becomes empty', 'Hi {contact.nickname}!', 'Hi !'],
    ['known without value becomes null', 'Followers: {contact.follower_count}', 'Followers: null'],
    ['known with empty value stays empty', '[{empty}]', '[]'],
    ['case matters', '{nome}|{Nome}', '|upper'],
    ['letters, digits, _, . and - in a name', '{x-y_z.1}', 'ok'],
    ['adjacent variables', '{a}{b}', 'AB'],
    ['repeated variable', '{a}-{a}', 'A-A'],
    ['nested: only the inner one is a variable', '{a{b}}', '{aB}'],
    ['double braces keep the outer pair', '{{a}}', '{A}'],
    ['spaces inside stay literal', '{ contact.name }', '{ contact.name }'],
    ['space before the name stays literal', '{ a}', '{ a}'],
    ['empty braces stay', '{}', '{}'],
    ['unclosed brace stays', 'Hi {contact.name', 'Hi {contact.name'],
    ['lone closing brace stays', 'a} {b', 'a} {b'],
    ['accented name stays literal', '{café}', '{café}'],
    ['other punctuation stays literal', '{a:b} {a/b} {a$}', '{a:b} {a/b} {a$}'],
    ['a substituted value is not read again', 'x{braces}x', 'x{contact.name}x'],
    ['dollar text is left alone', 'Price $10 {a}', 'Price $10 A'],
  ])('%s', (_rule, text, expected) => {
    expect(substitute(text, lookup)).toBe(expected);
  });
});

describe('dataValue', () => {
  const ctx = { input: 'my answer', nowMs: 1_764_000_000_123 };
  it.each<[string, string | undefined, { input: string | null; nowMs: number }, string | null]>([
    ['no value clears', undefined, ctx, null],
    ['empty value clears like a missing one', '', ctx, null],
    ['$input is the current message', '$input', ctx, 'my answer'],
    ['$input without a message clears', '$input', { input: null, nowMs: 0 }, null],
    ['$input with an empty message', '$input', { input: '', nowMs: 0 }, ''],
    ['$timestamp is milliseconds since 1970', '$timestamp', ctx, '1764000000123'],
    ['$timestamp of a fractional clock is whole ms', '$timestamp', { input: null, nowMs: 1500.9 }, '1500'],
    ['a price with a leading dollar becomes empty', '$10.00', ctx, ''],
    ['$ followed by a known variable name reads it', '$contact.name', ctx, 'Ana'],
    ['$ followed by a known variable without value', '$contact.follower_count', ctx, 'null'],
    ['$ followed by a text not shaped like a name', '$ 10', ctx, ''],
    ['$input is case-sensitive', '$Input', ctx, ''],
    ['$input inside a longer text is not special', 'got $input', ctx, 'got $input'],
    ['otherwise variables are substituted', 'Plan {plano} for {contact.name}', ctx, 'Plan Gold for Ana'],
    ['braces inside $ are not substituted', '${a}', ctx, ''],
  ])('%s', (_rule, value, context, expected) => {
    expect(dataValue(value, context, lookup)).toBe(expected);
  });
});

describe('joinTags', () => {
  it.each<[string, string[], string]>([
    ['no tags', [], ''],
    ['one tag', ['vip'], 'vip'],
    ['character-code order: uppercase before lowercase', ['b', 'a', 'B', 'A'], 'A, B, a, b'],
    ['digits before letters', ['x', '10', '2'], '10, 2, x'],
    ['accented letters after z', ['éclair', 'zebra', 'apple'], 'apple, zebra, éclair'],
    ['code points, not UTF-16 units: U+FF21 before an astral emoji', ['😀', 'Ａ'], 'Ａ, 😀'],
    ['a repeated name once', ['a', 'a'], 'a'],
  ])('%s', (_rule, names, expected) => {
    expect(joinTags(names)).toBe(expected);
  });
});

describe('systemVariables', () => {
  it.each([
    [
      'UTC',
      '2026-03-05T07:08:09.999Z',
      'UTC',
      { date: '05/03/2026', time: '07:08:09', datetime: '05/03/2026 07:08:09' },
    ],
    [
      'account zone behind UTC moves to the day before',
      '2026-03-05T02:30:00Z',
      'America/Sao_Paulo',
      { date: '04/03/2026', time: '23:30:00', datetime: '04/03/2026 23:30:00' },
    ],
    [
      'winter time in Lisbon is UTC',
      '2026-12-31T23:00:00Z',
      'Europe/Lisbon',
      { date: '31/12/2026', time: '23:00:00', datetime: '31/12/2026 23:00:00' },
    ],
    [
      'midnight is 00:00:00, not 24, in a zone ahead',
      '2026-12-31T23:00:00Z',
      'Europe/Berlin',
      { date: '01/01/2027', time: '00:00:00', datetime: '01/01/2027 00:00:00' },
    ],
    [
      'unknown zone reads as UTC',
      '2026-03-05T07:08:09Z',
      'Nowhere/City',
      { date: '05/03/2026', time: '07:08:09', datetime: '05/03/2026 07:08:09' },
    ],
  ])('%s', (_rule, at, zone, expected) => {
    expect(systemVariables(new Date(at), zone)).toEqual({
      'system.current_date': expected.date,
      'system.current_time': expected.time,
      'system.current_datetime': expected.datetime,
    });
  });
});

describe('conversationVariables', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const ago = (minutes: number, seconds = 0) =>
    new Date(now.getTime() - minutes * 60_000 - seconds * 1000).toISOString();

  it('windows, order, line format, Contact and Agent, messages without text left out', () => {
    const messages = [
      { at: ago(25 * 60), fromContact: true, text: 'too old' },
      { at: ago(24 * 60), fromContact: true, text: 'exactly 24h ago' },
      { at: ago(90), fromContact: false, text: 'ninety minutes' },
      { at: ago(60), fromContact: true, text: 'one hour' },
      { at: ago(45), fromContact: true, text: null },
      { at: ago(40), fromContact: false, text: '   ' },
      { at: ago(30), fromContact: false, text: 'thirty' },
      { at: ago(1, 1), fromContact: true, text: 'line one\nline two\r\n\r\nthree' },
      { at: new Date(now.getTime() + 1000).toISOString(), fromContact: true, text: 'in the future' },
    ];
    const result = conversationVariables(messages, now);
    expect(result['conversation.last_30m']).toBe(
      ['2026-11-26T11:30:00Z Agent: thirty', '2026-11-26T11:58:59Z Contact: line one line two three'].join('\n'),
    );
    expect(result['conversation.last_1h']).toBe(
      [
        '2026-11-26T11:00:00Z Contact: one hour',
        '2026-11-26T11:30:00Z Agent: thirty',
        '2026-11-26T11:58:59Z Contact: line one line two three',
      ].join('\n'),
    );
    expect(result['conversation.last_24h'].split('\n')).toEqual([
      '2026-11-25T12:00:00Z Contact: exactly 24h ago',
      '2026-11-26T10:30:00Z Agent: ninety minutes',
      '2026-11-26T11:00:00Z Contact: one hour',
      '2026-11-26T11:30:00Z Agent: thirty',
      '2026-11-26T11:58:59Z Contact: line one line two three',
    ]);
  });

  it('caps 50, 75 and 100 keep the most recent, listed oldest first; unsorted input is ordered', () => {
    // 150 messages, one every 5 seconds, the newest 5 seconds ago; given newest first.
    const messages = Array.from({ length: 150 }, (_, i) => ({
      at: ago(0, 5 * (i + 1)),
      fromContact: i % 2 === 0,
      text: `m${i + 1}`,
    }));
    const result = conversationVariables(messages, now);
    const texts = (value: string) => value.split('\n').map((line) => line.split(': ')[1]);
    expect(texts(result['conversation.last_30m'])).toEqual(Array.from({ length: 50 }, (_, i) => `m${50 - i}`));
    expect(texts(result['conversation.last_1h'])).toHaveLength(75);
    expect(texts(result['conversation.last_1h'])[0]).toBe('m75');
    expect(texts(result['conversation.last_24h'])).toHaveLength(100);
    expect(texts(result['conversation.last_24h'])[0]).toBe('m100');
    expect(texts(result['conversation.last_24h'])[99]).toBe('m1');
  });

  it('an empty conversation, and an unreadable timestamp, give empty texts', () => {
    expect(conversationVariables([{ at: 'yesterday', fromContact: true, text: 'x' }], now)).toEqual({
      'conversation.last_30m': '',
      'conversation.last_1h': '',
      'conversation.last_24h': '',
    });
  });
});

describe('computeMath', () => {
  it.each<[MathOperator, string | null | undefined, string | null | undefined, string]>([
    ['add', '2', '3', '5'],
    ['add', '0.1', '0.2', '0.3'],
    ['add', '2.50', '0', '2.5'],
    ['add', '-1.5', '1.5', '0'],
    ['add', '12345678901234567890', '0.000001', '12345678901234567890.000001'],
    ['sub', '10', '0.3', '9.7'],
    ['sub', '3', '5', '-2'],
    ['mul', '1.5', '2', '3'],
    ['mul', '0.1', '0.1', '0.01'],
    ['mul', '1.1', '1.1', '1.21'],
    ['mul', '100000000000', '100000000000', '10000000000000000000000'],
    ['mul', '0.0000001', '0.0000001', '0.00000000000001'],
    ['mul', '-0', '5', '0'],
    ['div', '10', '4', '2.5'],
    ['div', '1', '3', '0.33333333333333333333'],
    ['div', '2', '3', '0.66666666666666666666'],
    ['div', '-2', '3', '-0.66666666666666666666'],
    ['div', '0.3', '0.1', '3'],
    ['div', '5', '0', '0'],
    ['div', '5', '0.00', '0'],
    ['div', '5', '', '0'],
    ['min', '2', '10', '2'],
    ['min', '-1', '0.5', '-1'],
    ['min', '2.0', '2', '2'],
    ['max', '2', '10', '10'],
    ['max', '0.10', '0.09', '0.1'],
    ['mod', '7', '3', '1'],
    ['mod', '-7', '3', '-1'],
    ['mod', '7', '-3', '1'],
    ['mod', '5.5', '2', '1.5'],
    ['mod', '0.3', '0.1', '0'],
    ['mod', '7', '0', '0'],
    ['pct_of', '10', '200', '20'],
    ['pct_of', '15', '80', '12'],
    ['pct_of', '12.5', '10', '1.25'],
    ['pct_of', '33', '1', '0.33'],
    ['pct_add', '200', '10', '220'],
    ['pct_add', '100', '-15', '85'],
    ['pct_add', '19.99', '7.5', '21.48925'],
    ['pct_add', '0.1', '200', '0.3'],
    // operands that are not just a plain dotted number count as 0
    ['add', '12,5', '1', '1'],
    ['add', '1e3', '1', '1'],
    ['add', 'abc', '1', '1'],
    ['add', '1 000', '1', '1'],
    ['add', '$10', '1', '1'],
    ['add', 'Infinity', '1', '1'],
    ['add', 'NaN', '1', '1'],
    ['add', '.', '1', '1'],
    ['add', '-', '1', '1'],
    ['add', '', '1', '1'],
    ['add', null, '1', '1'],
    ['add', undefined, undefined, '0'],
    // decided: surrounding white space is ignored; leading +, '.5' and '5.' are numbers
    ['add', ' 3', '1', '4'],
    ['add', '3\n', '1', '4'],
    ['add', '+3', '1', '4'],
    ['add', '.5', '1', '1.5'],
    ['add', '5.', '1', '6'],
    ['add', '007', '1', '8'],
  ])('%s(%j, %j) = %s', (operator, a, b, expected) => {
    expect(computeMath(operator, a, b)).toBe(expected);
  });

  it('an unknown operator gives 0 instead of throwing', () => {
    expect(computeMath('pow' as MathOperator, '2', '3')).toBe('0');
  });

  it('results never use exponent notation', () => {
    expect(computeMath('div', '1', '10000000')).toBe('0.0000001');
    expect(computeMath('mul', '1000000000000', '1000000000000')).toBe('1000000000000000000000000');
  });
});

describe('values', () => {
  it.each<[string, string | null]>([
    ['0', '0'],
    ['-0.0', '0'],
    ['1.2300', '1.23'],
    ['100', '100'],
    ['x', null],
  ])('parseDecimal/formatDecimal %j', (text, expected) => {
    const parsed = parseDecimal(text);
    expect(parsed === null ? null : formatDecimal(parsed)).toBe(expected);
  });

  it('parseDecimal is linear on a tenant’s long text (issue 33: 80,000 spaces took 2.6 s) and bounds a number’s length', () => {
    // The text an invoke copy once brought: "1", 150,000 spaces, "x"; and 1 MiB of spaces around a number.
    const started = performance.now();
    expect(parseDecimal(`1${' '.repeat(150_000)}x`)).toBeNull();
    expect(formatDecimal(parseDecimal(`${' \t'.repeat(300_000)}42${'\n '.repeat(300_000)}`)!)).toBe('42');
    expect(computeMath('add', `1${' '.repeat(150_000)}x`, '1')).toBe('1');
    expect(performance.now() - started).toBeLessThan(200);
    expect(formatDecimal(parseDecimal('9'.repeat(100))!)).toBe('9'.repeat(100));
    expect(parseDecimal('9'.repeat(101))).toBeNull();
    expect(parseDecimal(`  ${'1'.repeat(100)}  `)).not.toBeNull();
    // Only ASCII white space is trimmed: a no-break space is not.
    expect(parseDecimal('\u00a03')).toBeNull();
  });

  it.each<[string, string, number | null, number | null]>([
    ['dd/MM/yyyy', '25/12/2026', 20261225, null],
    ['yyyy-MM-dd', '2026-12-25', 20261225, null],
    ['system.current_datetime', '25/12/2026 09:30:59', 20261225, 570],
    ['ISO without zone, as written', '2026-12-25T23:59:00', 20261225, 1439],
    ['ISO with Z, in the account zone', '2026-12-25T01:30:00Z', 20261224, 1350],
    ['ISO with offset', '2026-12-25T01:30:00+01:00', 20261224, 1290],
    ['epoch milliseconds, in the account zone', String(Date.parse('2026-12-25T12:00:00Z')), 20261225, 540],
    ['time alone', '07:05', null, 425],
    ['time with seconds', '07:05:59', null, 425],
    ['impossible date', '31/02/2026', null, null],
    ['impossible time', '24:00', null, null],
    ['text', 'tomorrow', null, null],
  ])('readMoment: %s', (_rule, text, day, minute) => {
    expect(readMoment(text, 'America/Sao_Paulo')).toEqual({ day, minute });
  });
});

interface Contact {
  channel?: 'instagram' | 'whatsapp';
  tags?: string[];
  fields?: Record<string, string | null>;
  score?: number | null;
  variables?: Record<string, string | null>;
  isFollower?: boolean | null;
  windowOpen?: boolean;
  now?: string;
  timeZone?: string;
}

function context(contact: Contact = {}): ConditionContext {
  const tags = contact.tags ?? ['VIP', 'cliente'];
  const fields: Record<string, string | null> = contact.fields ?? { plano: 'Gold', cidade: null, vazio: '' };
  const variables: Record<string, string | null> = contact.variables ?? {
    'contact.first_name': 'Ana',
    'contact.follower_count': null,
    plano: 'Gold Plus',
    idade: '30',
    preco: '19.90',
    aniversario: '25/12/2026',
    data_iso: '2026-12-25',
    hora: '14:30',
    braces: '{contact.first_name}',
    vazio: '',
  };
  return {
    channel: contact.channel ?? 'instagram',
    hasTag: (name) => tags.includes(name),
    field: (key) => (Object.hasOwn(fields, key) ? fields[key] : undefined),
    score: contact.score === undefined ? 42 : contact.score,
    variable: (name) => (Object.hasOwn(variables, name) ? variables[name] : undefined),
    isFollower: contact.isFollower === undefined ? true : contact.isFollower,
    windowOpen: contact.windowOpen ?? true,
    now: new Date(contact.now ?? '2026-11-26T12:00:00Z'),
    timeZone: contact.timeZone ?? 'UTC',
  };
}

type Row = [string, Record<string, unknown>, boolean, Contact?];
const run = (rows: Row[]) =>
  it.each(rows)('%s', (_rule, condition, expected, contact) => {
    expect(evaluateCondition(condition, context(contact))).toBe(expected);
  });

describe('evaluateCondition: tag', () => {
  const tag = (operator: string, name?: string) => ({ field_type: 'tag', field_name: name, operator });
  run([
    ['has_tag, exact name', tag('has_tag', 'VIP'), true],
    ['has_tag, another case is another tag', tag('has_tag', 'vip'), false],
    ['has_tag, accents matter', tag('has_tag', 'clienté'), false],
    ['has_tag, missing tag', tag('has_tag', 'lead'), false],
    ['not_has_tag, missing tag', tag('not_has_tag', 'lead'), true],
    ['not_has_tag, present tag', tag('not_has_tag', 'VIP'), false],
    ['not_has_tag, another spelling is not the tag', tag('not_has_tag', 'vip'), true],
    ['without field_name', tag('has_tag'), false],
    ['without field_name, negated too', tag('not_has_tag'), false],
    ['an operator of another type', tag('field_equals', 'VIP'), false],
  ]);
});

describe('evaluateCondition: custom_field', () => {
  const field = (operator: string, name: string, value?: unknown) => ({
    field_type: 'custom_field',
    field_name: name,
    operator,
    value,
  });
  run([
    ['has_field with a value', field('has_field', 'plano'), true],
    ['has_field without value', field('has_field', 'cidade'), false],
    ['has_field with an empty value', field('has_field', 'vazio'), false],
    ['has_field of a field the account lacks', field('has_field', 'nope'), false],
    ['not_has_field without value', field('not_has_field', 'cidade'), true],
    ['not_has_field with a value', field('not_has_field', 'plano'), false],
    ['not_has_field of a field the account lacks', field('not_has_field', 'nope'), true],
    ['field_equals, same text', field('field_equals', 'plano', 'Gold'), true],
    ['field_equals, letter case matters on custom fields', field('field_equals', 'plano', 'gold'), false],
    ['field_equals, other text', field('field_equals', 'plano', 'Silver'), false],
    ['field_equals, no value in the condition', field('field_equals', 'plano'), false],
    ['field_equals, empty value in the condition', field('field_equals', 'plano', ''), false],
    ['field_equals, field without value', field('field_equals', 'cidade', 'Lisboa'), false],
    ['field_not_equals, other text', field('field_not_equals', 'plano', 'Silver'), true],
    ['field_not_equals, same text', field('field_not_equals', 'plano', 'Gold'), false],
    ['field_not_equals, another case differs', field('field_not_equals', 'plano', 'GOLD'), true],
    ['field_not_equals, field without value', field('field_not_equals', 'cidade', 'Lisboa'), true],
    ['field_not_equals, no value in the condition', field('field_not_equals', 'plano'), false],
    ['field_not_equals, a field the account lacks', field('field_not_equals', 'nope', 'x'), false],
    ['an operator of another type', field('field_contains', 'plano', 'Go'), false],
    ['without field_name', { field_type: 'custom_field', operator: 'has_field' }, false],
  ]);
});

describe('evaluateCondition: score', () => {
  const score = (operator: string, value?: unknown) => ({ field_type: 'score', operator, value });
  run([
    ['field_equals', score('field_equals', '42'), true],
    ['field_equals with decimals written', score('field_equals', '42.0'), true],
    ['field_equals, other number', score('field_equals', '41'), false],
    ['field_not_equals', score('field_not_equals', '41'), true],
    ['field_not_equals, same number', score('field_not_equals', '42'), false],
    ['field_greater_than', score('field_greater_than', '41.5'), true],
    ['field_greater_than, equal is not greater', score('field_greater_than', '42'), false],
    ['field_greater_or_equal, equal', score('field_greater_or_equal', '42'), true],
    ['field_greater_or_equal, below', score('field_greater_or_equal', '43'), false],
    ['field_less_than', score('field_less_than', '42.01'), true],
    ['field_less_than, equal is not less', score('field_less_than', '42'), false],
    ['field_less_or_equal, equal', score('field_less_or_equal', '42'), true],
    ['field_less_or_equal, above', score('field_less_or_equal', '41'), false],
    ['field_between, inside', score('field_between', '18,65'), true],
    ['field_between, lower end included', score('field_between', '42,50'), true],
    ['field_between, upper end included', score('field_between', '0,42'), true],
    ['field_between, outside', score('field_between', '43,50'), false],
    ['field_between, spaces around the ends', score('field_between', ' 40 , 45 '), true],
    ['field_between, dot decimals', score('field_between', '41.5,42.5'), true],
    ['field_between, min above max', score('field_between', '50,18'), false],
    ['field_between, one number', score('field_between', '42'), false],
    ['field_between, three numbers', score('field_between', '1,42,50'), false],
    ['field_between, comma decimal is malformed', score('field_between', '41,5,50'), false],
    ['comma decimal is malformed', score('field_equals', '42,0'), false],
    ['not a number', score('field_greater_than', 'ten'), false],
    ['no value', score('field_greater_than'), false],
    ['negative numbers', score('field_greater_than', '-5'), true],
    ['negative score', score('field_less_than', '0'), true, { score: -3 }],
    ['contact without score', score('field_not_equals', '1'), false, { score: null }],
    ['contact without score, between', score('field_between', '0,100'), false, { score: null }],
    ['an operator of another type', score('field_contains', '4'), false],
  ]);
});

describe('evaluateCondition: variable, text', () => {
  const variable = (operator: string, name: string, value?: unknown) => ({
    field_type: 'variable',
    field_name: name,
    operator,
    value,
  });
  run([
    ['has_field, known with a value', variable('has_field', 'contact.first_name'), true],
    ['has_field, known without value', variable('has_field', 'contact.follower_count'), false],
    ['has_field, empty value', variable('has_field', 'vazio'), false],
    ['has_field, unknown', variable('has_field', 'nope'), false],
    ['not_has_field, unknown', variable('not_has_field', 'nope'), true],
    ['not_has_field, known without value', variable('not_has_field', 'contact.follower_count'), true],
    ['not_has_field, with a value', variable('not_has_field', 'plano'), false],
    ['field_equals ignores letter case', variable('field_equals', 'contact.first_name', 'ANA'), true],
    ['field_equals, other text', variable('field_equals', 'contact.first_name', 'Ana Maria'), false],
    ['field_equals, accents still matter', variable('field_equals', 'contact.first_name', 'Aná'), false],
    ['field_equals, white space is not trimmed', variable('field_equals', 'contact.first_name', 'Ana '), false],
    ['field_equals, variable name is case-sensitive', variable('field_equals', 'Contact.First_Name', 'Ana'), false],
    ['field_not_equals ignores letter case', variable('field_not_equals', 'contact.first_name', 'ana'), false],
    ['field_not_equals, other text', variable('field_not_equals', 'contact.first_name', 'Bia'), true],
    ['field_not_equals, unknown variable reads as empty', variable('field_not_equals', 'nope', 'Bia'), true],
    [
      'field_equals, known without value reads as null',
      variable('field_equals', 'contact.follower_count', 'NULL'),
      true,
    ],
    ['field_contains ignores letter case', variable('field_contains', 'plano', 'gold'), true],
    ['field_contains, part of a word', variable('field_contains', 'plano', 'LD PL'), true],
    ['field_contains, absent', variable('field_contains', 'plano', 'silver'), false],
    ['field_not_contains, absent', variable('field_not_contains', 'plano', 'silver'), true],
    ['field_not_contains ignores letter case', variable('field_not_contains', 'plano', 'PLUS'), false],
    ['field_contains, no value', variable('field_contains', 'plano'), false],
    ['field_not_contains, no value', variable('field_not_contains', 'plano'), false],
    ['field_equals, empty value is no value', variable('field_equals', 'vazio', ''), false],
    ['value compared as written, no substitution', variable('field_equals', 'plano', '{plano}'), false],
    [
      'braces in the variable value compare literally',
      variable('field_equals', 'braces', '{CONTACT.first_name}'),
      true,
    ],
    ['braces in the value are not substituted for contains', variable('field_contains', 'plano', '{plano}'), false],
    ['without field_name', { field_type: 'variable', operator: 'has_field' }, false],
    ['unknown operator', variable('starts_with', 'plano', 'Gold'), false],
  ]);
});

describe('evaluateCondition: variable, numbers', () => {
  const variable = (operator: string, name: string, value?: unknown) => ({
    field_type: 'variable',
    field_name: name,
    operator,
    value,
  });
  run([
    ['field_greater_than', variable('field_greater_than', 'idade', '18'), true],
    ['field_greater_than, equal', variable('field_greater_than', 'idade', '30'), false],
    ['field_greater_or_equal, equal', variable('field_greater_or_equal', 'idade', '30'), true],
    ['field_less_than, dot decimals', variable('field_less_than', 'preco', '19.91'), true],
    ['field_less_than, equal', variable('field_less_than', 'preco', '19.9'), false],
    ['field_less_or_equal, equal with other digits', variable('field_less_or_equal', 'preco', '19.900'), true],
    ['numbers compare as numbers, not text', variable('field_greater_than', 'idade', '4'), true],
    ['field_between, inside', variable('field_between', 'idade', '18,65'), true],
    ['field_between, ends included', variable('field_between', 'preco', '19.90,20'), true],
    ['field_between, outside', variable('field_between', 'preco', '10,19.89'), false],
    ['field_between, malformed', variable('field_between', 'idade', '18-65'), false],
    ['comma decimal in the value is malformed', variable('field_less_than', 'preco', '20,5'), false],
    ['text variable is not a number', variable('field_greater_than', 'plano', '1'), false],
    ['unknown variable is not a number', variable('field_less_than', 'nope', '1'), false],
    ['known without value is not a number', variable('field_less_than', 'contact.follower_count', '1'), false],
    ['no value', variable('field_greater_than', 'idade'), false],
    ['a number value written as a JSON number (old graphs)', variable('field_greater_than', 'idade', 18), true],
  ]);
});

describe('evaluateCondition: variable, dates and times', () => {
  const variable = (operator: string, name: string, value?: unknown) => ({
    field_type: 'variable',
    field_name: name,
    operator,
    value,
  });
  const withValue = (value: string, timeZone = 'UTC'): Contact => ({ variables: { v: value }, timeZone });
  run([
    // the variable's date against the condition's date: before = the variable's date is earlier
    ['date_before, dd/MM/yyyy value', variable('date_before', 'aniversario', '26/12/2026'), true],
    ['date_before, same day is not before', variable('date_before', 'aniversario', '25/12/2026'), false],
    ['date_before, later variable', variable('date_before', 'aniversario', '24/12/2026'), false],
    ['date_before, yyyy-MM-dd value', variable('date_before', 'aniversario', '2027-01-01'), true],
    ['date_after', variable('date_after', 'aniversario', '24/12/2026'), true],
    ['date_after, same day is not after', variable('date_after', 'aniversario', '25/12/2026'), false],
    ['date_after, across years', variable('date_after', 'aniversario', '01/01/2027'), false],
    ['date_on, other format same day', variable('date_on', 'aniversario', '2026-12-25'), true],
    ['date_on, yyyy-MM-dd variable', variable('date_on', 'data_iso', '25/12/2026'), true],
    ['date_on, other day', variable('date_on', 'data_iso', '26/12/2026'), false],
    ['date_on, one-digit day and month', variable('date_on', 'v', '5/3/2026'), true, withValue('05/03/2026')],
    ['date_on, date-time variable', variable('date_on', 'v', '25/12/2026'), true, withValue('25/12/2026 23:59:59')],
    [
      'date_on, epoch ms in the account zone',
      variable('date_on', 'v', '24/12/2026'),
      true,
      withValue(String(Date.parse('2026-12-25T02:00:00Z')), 'America/Sao_Paulo'),
    ],
    [
      'date_on, zoned ISO in the account zone',
      variable('date_on', 'v', '2026-12-25'),
      true,
      withValue('2026-12-24T23:30:00-03:00', 'Europe/Lisbon'),
    ],
    ['date value impossible', variable('date_before', 'aniversario', '31/02/2027'), false],
    ['date value in another format', variable('date_before', 'aniversario', '12/25/2026'), false],
    ['date value with a two-digit year', variable('date_before', 'aniversario', '26/12/26'), false],
    ['variable not a date', variable('date_before', 'plano', '26/12/2026'), false],
    ['variable unknown', variable('date_after', 'nope', '26/12/2026'), false],
    ['no value', variable('date_on', 'aniversario'), false],
    [
      'system.current_date from now in the account zone',
      variable('date_on', 'system.current_date', '25/11/2026'),
      true,
      { now: '2026-11-26T02:00:00Z', timeZone: 'America/Sao_Paulo' },
    ],
    // times compare by minute; before/after exclude the minute itself
    ['time_before', variable('time_before', 'hora', '14:31'), true],
    ['time_before, same minute excluded', variable('time_before', 'hora', '14:30'), false],
    ['time_before, seconds ignored', variable('time_before', 'v', '14:30'), false, withValue('14:30:59')],
    ['time_after', variable('time_after', 'hora', '14:29'), true],
    ['time_after, same minute excluded', variable('time_after', 'hora', '14:30'), false],
    ['time_after, one-digit hour in the value', variable('time_after', 'hora', '9:00'), true],
    ['time_between, inside', variable('time_between', 'hora', '09:00,18:00'), true],
    ['time_between, start included', variable('time_between', 'hora', '14:30,18:00'), true],
    ['time_between, end included', variable('time_between', 'hora', '09:00,14:30'), true],
    ['time_between, outside', variable('time_between', 'hora', '15:00,18:00'), false],
    [
      'time_between, crossing midnight, before midnight',
      variable('time_between', 'v', '22:00,02:00'),
      true,
      withValue('23:15'),
    ],
    [
      'time_between, crossing midnight, after midnight',
      variable('time_between', 'v', '22:00,02:00'),
      true,
      withValue('01:59'),
    ],
    [
      'time_between, crossing midnight, end included',
      variable('time_between', 'v', '22:00,02:00'),
      true,
      withValue('02:00'),
    ],
    [
      'time_between, crossing midnight, start included',
      variable('time_between', 'v', '22:00,02:00'),
      true,
      withValue('22:00'),
    ],
    [
      'time_between, crossing midnight, outside',
      variable('time_between', 'v', '22:00,02:00'),
      false,
      withValue('12:00'),
    ],
    [
      'time_between, crossing midnight, just after the end',
      variable('time_between', 'v', '22:00,02:00'),
      false,
      withValue('02:01'),
    ],
    ['time_between, same start and end is that minute', variable('time_between', 'hora', '14:30,14:30'), true],
    ['time_between, spaces around the ends', variable('time_between', 'hora', '09:00 , 18:00'), true],
    ['time_between, one time', variable('time_between', 'hora', '09:00'), false],
    ['time value impossible', variable('time_before', 'hora', '24:00'), false],
    ['time value with seconds is malformed', variable('time_before', 'hora', '15:00:00'), false],
    ['time of a date-time variable', variable('time_after', 'v', '09:00'), true, withValue('25/12/2026 09:01:00')],
    ['variable not a time', variable('time_after', 'plano', '09:00'), false],
    ['variable date only has no time', variable('time_after', 'aniversario', '09:00'), false],
    [
      'system.current_time from now in the account zone',
      variable('time_between', 'system.current_time', '09:00,18:00'),
      true,
      { now: '2026-11-26T12:00:00Z', timeZone: 'America/Sao_Paulo' },
    ],
    [
      'system.current_time outside business hours',
      variable('time_between', 'system.current_time', '09:00,18:00'),
      false,
      { now: '2026-11-26T23:00:00Z', timeZone: 'America/Sao_Paulo' },
    ],
    [
      'a system variable given by the engine wins',
      variable('time_before', 'system.current_time', '09:00'),
      true,
      { variables: { 'system.current_time': '08:00:00' } },
    ],
  ]);
});

describe('evaluateCondition: follower_status and messaging_window', () => {
  const follower = (operator: string) => ({ field_type: 'follower_status', operator });
  const window = (operator: string) => ({ field_type: 'messaging_window', operator });
  run([
    ['is_follower on instagram', follower('is_follower'), true, { isFollower: true }],
    ['is_follower, not following', follower('is_follower'), false, { isFollower: false }],
    ['not_follower, not following', follower('not_follower'), true, { isFollower: false }],
    ['not_follower, following', follower('not_follower'), false, { isFollower: true }],
    ['is_follower, unknown', follower('is_follower'), false, { isFollower: null }],
    ['not_follower, unknown', follower('not_follower'), false, { isFollower: null }],
    ['is_follower always false on whatsapp', follower('is_follower'), false, { channel: 'whatsapp', isFollower: true }],
    [
      'not_follower always false on whatsapp',
      follower('not_follower'),
      false,
      { channel: 'whatsapp', isFollower: false },
    ],
    ['unknown follower operator', follower('follows'), false],
    ['window_open, open', window('window_open'), true, { windowOpen: true }],
    ['window_open, closed', window('window_open'), false, { windowOpen: false }],
    ['window_closed, closed', window('window_closed'), true, { windowOpen: false }],
    ['window_closed, open', window('window_closed'), false, { windowOpen: true }],
    ['unknown window operator', window('window_ajar'), false],
    ['unknown field_type', { field_type: 'weather', operator: 'is_sunny' }, false],
    ['no field_type', { operator: 'has_tag', field_name: 'VIP' }, false],
  ]);
});

describe('evaluateConditional', () => {
  const yes = { field_type: 'tag', field_name: 'VIP', operator: 'has_tag' };
  const no = { field_type: 'tag', field_name: 'lead', operator: 'has_tag' };
  it.each<[string, Record<string, unknown>, boolean]>([
    ['and by default, all hold', { conditions: [yes, yes] }, true],
    ['and by default, one fails', { conditions: [yes, no] }, false],
    ['and, explicit', { conditions: [yes, no], combinator: 'and' }, false],
    ['or, one holds', { conditions: [no, yes], combinator: 'or' }, true],
    ['or, none holds', { conditions: [no, no], combinator: 'or' }, false],
    ['one condition', { conditions: [yes] }, true],
    ['empty list is no condition', { conditions: [] }, false],
    ['empty list with or', { conditions: [], combinator: 'or' }, false],
    ['not a list', { conditions: 'VIP' }, false],
    ['a condition that is not an object fails', { conditions: [yes, null] }, false],
    ['a condition that is not an object, with or', { conditions: ['x', yes], combinator: 'or' }, true],
    ['an unknown combinator means and', { conditions: [yes, no], combinator: 'xor' }, false],
    ['old one-condition form', { field_type: 'tag', field_name: 'VIP', operator: 'has_tag' }, true],
    ['old one-condition form, false', { field_type: 'tag', field_name: 'lead', operator: 'has_tag' }, false],
    [
      'old form with a value',
      { field_type: 'custom_field', field_name: 'plano', operator: 'field_equals', value: 'Gold' },
      true,
    ],
    [
      'conditions win over the old form',
      { conditions: [no], field_type: 'tag', field_name: 'VIP', operator: 'has_tag' },
      false,
    ],
    [
      'an empty list still wins over the old form',
      { conditions: [], field_type: 'tag', field_name: 'VIP', operator: 'has_tag' },
      false,
    ],
    ['no condition at all', {}, false],
    ['no condition at all, only next', { next: [null, null] }, false],
    [
      'a malformed condition never throws',
      { conditions: [{ field_type: 'score', operator: 'field_between', value: {} }] },
      false,
    ],
  ])('%s', (_rule, data, expected) => {
    expect(evaluateConditional(data, context())).toBe(expected);
  });
});

describe('chooseOption', () => {
  /** The options taken by `runs` successive runs from the start. */
  function sequence(percentages: number[], runs: number): number[] {
    const counts = percentages.map(() => 0);
    const taken: number[] = [];
    for (let i = 0; i < runs; i++) {
      const option = chooseOption(percentages, counts);
      taken.push(option);
      counts[option] = (counts[option] ?? 0) + 1;
    }
    return taken;
  }
  const tally = (taken: number[], options: number) =>
    Array.from({ length: options }, (_, i) => taken.filter((t) => t === i).length);

  it.each<[string, number[], number, number[]]>([
    ['50/50 alternates from option 0', [50, 50], 6, [0, 1, 0, 1, 0, 1]],
    ['the first run takes option 0 even when it has the smaller share', [10, 90], 3, [0, 1, 1]],
    ['the first run takes option 0 even at 0%', [0, 100], 3, [0, 1, 1]],
    ['70/30', [70, 30], 10, [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]],
    ['equal shares rotate in order', [20, 20, 20, 20, 20], 10, [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]],
    ['the larger of nearly equal shares goes first after option 0', [33.33, 33.33, 33.34], 4, [0, 2, 1, 2]],
    ['100/0 never takes the 0% option after the first', [100, 0], 4, [0, 0, 0, 0]],
  ])('%s', (_rule, percentages, runs, expected) => {
    expect(sequence(percentages, runs)).toEqual(expected);
  });

  it.each<[number[], number, number[]]>([
    [[70, 30], 10, [7, 3]],
    [[70, 30], 100, [70, 30]],
    [[50, 25, 25], 100, [50, 25, 25]],
    [[10, 20, 30, 40], 1000, [100, 200, 300, 400]],
    [[12.5, 87.5], 8, [1, 7]],
    [[33.33, 33.33, 33.34], 10000, [3333, 3333, 3334]],
  ])('%j over %i runs spreads exactly', (percentages, runs, expected) => {
    expect(tally(sequence(percentages, runs), percentages.length)).toEqual(expected);
  });

  it.each<[string, number[], number[], number]>([
    ['no runs yet', [50, 50], [0, 0], 0],
    ['ties go to the lowest index', [25, 25, 50], [1, 1, 2], 0],
    ['furthest below its share', [50, 50], [5, 2], 1],
    ['counts shorter than the options read as 0', [50, 50], [3], 1],
    ['negative and fractional counts', [50, 50], [-4, 1.9], 0],
    ['all percentages 0', [0, 0], [3, 1], 0],
    ['no options', [], [], 0],
    ['a negative percentage counts as 0', [-10, 100], [1, 0], 1],
    ['non-integer percentages compare exactly', [33.33, 33.33, 33.34], [3333, 3333, 3333], 2],
  ])('%s', (_rule, percentages, counts, expected) => {
    expect(chooseOption(percentages, counts)).toBe(expected);
  });
});
