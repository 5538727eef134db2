// The table of Meta's error codes for a send (issue 35, section 4; docs/decisions.md "The WhatsApp Cloud API"),
// row by row: each code of the table, and codes beside them that must not fall into a row.
import { describe, expect, it } from 'vitest';
import { graphSendError } from '../server/channels/whatsapp-cloud/errors.js';

describe("Meta's send errors", () => {
  it.each([
    [131047, { kind: 'window_closed' }],
    [131026, { kind: 'recipient_unavailable' }],
    [130429, { kind: 'throttled' }],
    [131056, { kind: 'throttled' }],
    [80007, { kind: 'throttled' }],
    [4, { kind: 'throttled' }],
    [132000, { kind: 'template', code: 'template_variables_mismatch', resync: false }],
    [132001, { kind: 'template', code: 'template_not_found', resync: true }],
    [132015, { kind: 'template', code: 'template_not_approved', resync: false }],
    [132016, { kind: 'template', code: 'template_not_approved', resync: false }],
    [190, { kind: 'authorization_lost' }],
    [0, { kind: 'authorization_lost' }],
    [10, { kind: 'authorization_lost' }],
    [200, { kind: 'authorization_lost' }],
    [250, { kind: 'authorization_lost' }],
    [299, { kind: 'authorization_lost' }],
    [100, { kind: 'rejected', ourDefect: true }],
    [131008, { kind: 'rejected', ourDefect: true }],
    [131009, { kind: 'rejected', ourDefect: true }],
    [131051, { kind: 'rejected', ourDefect: true }],
    [131049, { kind: 'rejected', ourDefect: false }],
    [131050, { kind: 'rejected', ourDefect: false }],
  ] as const)('code %i', (code, meaning) => {
    expect(graphSendError(code)).toEqual(meaning);
  });

  it('a code in no row, beside the rows, is a plain rejection', () => {
    for (const code of [1, 3, 5, 199, 300, 131000, 131025, 131048, 132002, 133010, 999999])
      expect(graphSendError(code), String(code)).toEqual({ kind: 'rejected', ourDefect: false });
  });

  it('an error body without a code is a plain rejection', () => {
    expect(graphSendError(undefined)).toEqual({ kind: 'rejected', ourDefect: false });
  });
});
