// The media routes: POST /v1/media (a media waiting for its file, with its pre-signed upload_url) and
// GET /v1/media/{mediaId}/content (302 to a pre-signed download link). The rules live in
// domain/messaging/media.ts; the upload and download links themselves are served by ../media-links.ts.
import { createMedia, mediaContentLink } from '../../domain/messaging/media.js';
import { publicBaseUrl } from '../base-url.js';
import type { Handlers } from '../context.js';

export const mediaHandlers: Handlers = {
  createMedia: async ({ req, app, caller, body }) => {
    const { content_type, filename } = body;
    return {
      status: 201,
      body: await createMedia(
        app.database.db,
        app.clock,
        caller.account.id,
        { content_type, filename },
        publicBaseUrl(app, req),
      ),
    };
  },
  getMediaContent: async ({ req, app, caller, params }) => ({
    status: 302,
    headers: {
      Location: await mediaContentLink(
        app.database.db,
        app.storage,
        app.clock,
        caller.account.id,
        params.mediaId,
        publicBaseUrl(app, req),
      ),
    },
  }),
};
