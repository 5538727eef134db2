// invoke: calls an HTTP endpoint and saves fields of its answer. 2 outputs: success, failure. A field's path must
// parse as RFC 9535 JSONPath (field-path.ts): the author learns it at save time, not at run time.
import { arrayOf, fixed, isObject, problem, referenceAt, type BlockDefinition } from '../definition.js';
import { fieldPathProblem } from './field-path.js';

/** The catalog's bounds of a path (1 to 500 characters): a path outside them is the catalog's to report. */
const PATH_CHARS = { min: 1, max: 500 };

export const definition: BlockDefinition<'invoke'> = {
  outputs: fixed(2),
  references: (data) =>
    arrayOf(data.fields).flatMap((f, i) =>
      isObject(f) ? referenceAt('custom_field', f.name, `data.fields[${i}].name`) : [],
    ),
  formatProblems: (data) =>
    arrayOf(data.fields).flatMap((f, i) => {
      const path = isObject(f) ? f.path : undefined;
      if (typeof path !== 'string' || path.length < PATH_CHARS.min || path.length > PATH_CHARS.max) return [];
      const why = fieldPathProblem(path);
      return why === null ? [] : [problem('schema_violation', `data.fields[${i}].path`, why)];
    }),
};
