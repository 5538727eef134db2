// randomizer: one output per option, 2 to 20 options whose percentages sum to 100.
import { isObject, problem, type BlockDefinition, type BlockProblem, type SentData } from '../definition.js';

function compile(data: SentData<'randomizer'>): BlockProblem | null {
  const options = data.options;
  if (!Array.isArray(options) || options.length < 2 || options.length > 20) {
    return problem('randomizer_options_invalid', 'data.options', 'A randomizer needs 2 to 20 options.');
  }
  let sum = 0;
  for (const [i, option] of options.entries()) {
    const p = isObject(option) ? option.percentage : undefined;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0) {
      return problem(
        'randomizer_options_invalid',
        `data.options[${i}].percentage`,
        'A randomizer percentage must be a non-negative number.',
      );
    }
    sum += p;
  }
  if (Math.abs(sum - 100) > 1e-9) {
    return problem('randomizer_options_invalid', 'data.options', `The randomizer percentages sum to ${sum}, not 100.`);
  }
  return null;
}

export const definition: BlockDefinition<'randomizer'> = {
  outputs: (data) => (Array.isArray(data.options) ? data.options.length : null),
  compile,
};
