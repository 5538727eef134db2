// The worker thread of the field-path evaluator (field-evaluator.ts): it reads each answer's fields with
// server/blocks/invoke/field-path.ts and posts them back. It holds nothing between messages.
import { parentPort } from 'node:worker_threads';
import type { InvokeRequest } from '../../../store/schema.js';
import { fieldPathProblem, fieldValuesOf } from '../../../blocks/invoke/field-path.js';

/** A request of the evaluator: the fields to copy from the answer's text. */
export interface FieldRequest {
  id: number;
  fields: InvokeRequest['fields'];
  answer: string;
}

/** The worker's answer: the fields' values (null when the answer is not JSON), the fields whose path it refused. */
export interface FieldAnswer {
  id: number;
  values: Record<string, string> | null;
  refused: string[];
}

const port = parentPort;
if (port) {
  port.on('message', (request: FieldRequest) => {
    const answer: FieldAnswer = {
      id: request.id,
      values: fieldValuesOf(request.fields, request.answer),
      refused: request.fields.filter((field) => fieldPathProblem(field.path) !== null).map((field) => field.name),
    };
    port.postMessage(answer);
  });
  port.postMessage('ready');
}
