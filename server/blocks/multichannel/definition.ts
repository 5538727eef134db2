// multichannel: one output per channel, and a last one when no channel can receive.
import { isObject, problem, type BlockDefinition, type BlockProblem, type SentData } from '../definition.js';

function compile(data: SentData<'multichannel'>): BlockProblem | null {
  if (data.mode === undefined || data.mode === null) {
    return problem('multichannel_mode_missing', 'data.mode', 'A multichannel block has no mode.');
  }
  const channels = data.channels;
  if (!Array.isArray(channels) || channels.length < 1 || channels.length > 10) {
    return problem('multichannel_channels_invalid', 'data.channels', 'A multichannel block needs 1 to 10 channels.');
  }
  const seen = new Set<string>();
  for (const [i, channel] of channels.entries()) {
    const id = isObject(channel) ? channel.connection_id : undefined;
    if (typeof id !== 'string' || id === '') {
      return problem(
        'multichannel_channels_invalid',
        `data.channels[${i}].connection_id`,
        'A multichannel channel has no connection_id.',
      );
    }
    if (seen.has(id)) {
      return problem(
        'multichannel_channels_invalid',
        `data.channels[${i}].connection_id`,
        'A multichannel block repeats a connection.',
      );
    }
    seen.add(id);
  }
  return null;
}

export const definition: BlockDefinition<'multichannel'> = {
  outputs: (data) => (Array.isArray(data.channels) ? data.channels.length + 1 : null),
  compile,
};
