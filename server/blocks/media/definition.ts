// media: sends a console upload or an address; exactly one of `upload_id` and `media_url`. 1 output.
import { fixed, problem, referenceAt, type BlockDefinition, type BlockProblem, type SentData } from '../definition.js';

function compile(data: SentData<'media'>): BlockProblem | null {
  const has = (v: unknown) => typeof v === 'string' && v !== '';
  const upload = has(data.upload_id);
  const url = has(data.media_url);
  if (upload === url) {
    return problem(
      'media_source_invalid',
      'data',
      upload ? 'A media block has both upload_id and media_url.' : 'A media block has neither upload_id nor media_url.',
    );
  }
  return null;
}

export const definition: BlockDefinition<'media'> = {
  outputs: fixed(1),
  sends: true,
  references: (data) => referenceAt('upload', data.upload_id, 'data.upload_id'),
  compile,
};
