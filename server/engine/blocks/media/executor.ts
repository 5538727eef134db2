// media (Part B): sends one image, video, audio or document: a console upload (`upload_id`, both channels) or
// an address (`media_url`, variables filled; instagram only). The channel's formats and sizes are the
// messaging rules'; a refusal fails the step and stops the run. 1 output.
import { mediaOfLink, mediaOfUpload } from '../../../domain/messaging/media.js';
import { substitute } from '../../evaluate/variables.js';
import type { BlockExecutor, StepError } from '../../context.js';
import { sendOutcome } from '../send-outcome.js';
import type { ExecutorEntry } from '../entry.js';

/** A failed step that stops the run. */
const fail = (code: string, message: string): { failed: StepError; end: 'stopped' } => ({
  failed: { code, message },
  end: 'stopped',
});

/** An absolute http or https address (the channel fetches it). */
const isWebAddress = (text: string): boolean => /^https?:\/\//i.test(text) && URL.canParse(text);

export const uploadNotFound = (uploadId: string) =>
  fail('upload_not_found', `The account has no console upload ${uploadId} (deleted after publishing?).`);

export const execute: BlockExecutor<'media'> = async (ctx) => {
  const accountId = ctx.account.id;
  const { upload_id: uploadId, media_url: mediaUrl } = ctx.data;
  let file;
  if (uploadId !== undefined && uploadId !== '') {
    file = await mediaOfUpload(ctx.tx, accountId, uploadId);
    if (!file) return uploadNotFound(uploadId);
  } else if (mediaUrl !== undefined) {
    if (ctx.contact.channel !== 'instagram')
      return fail('content_not_supported', 'On whatsapp a media block sends only a console upload (upload_id).');
    const url = substitute(mediaUrl, ctx.vars.lookup).trim();
    if (!isWebAddress(url)) return fail('invalid_media_url', `media_url gave "${url}", not an http or https address.`);
    file = await mediaOfLink(ctx.tx, ctx.deps.clock, accountId, url);
  } else return fail('media_source_invalid', 'The block has neither upload_id nor media_url.');
  return sendOutcome(await ctx.send({ attachments: [{ type: file.type, media_id: file.id }] }), { next: 0 });
};

export const executor: ExecutorEntry<'media'> = { execute };
