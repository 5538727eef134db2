// The fake's Instagram CDN: the bytes behind an attachment's lookaside URL (`https://lookaside.fbsbx.com/
// ig_messaging_cdn/?asset_id=…&signature=…`, as a webhook carries it). A test registers bytes and gets such a URL;
// the server, with INSTAGRAM_CDN_BASE_URL set to the fake, fetches the URL's path and query here. A URL the fake
// does not know answers 404 (an expired story, a link that never existed); no token is asked (Meta signs the URL).
import type { ServerResponse } from 'node:http';
import { cdnUrl, newIgId } from './instagram-webhooks.js';

/** The path Meta's Instagram attachment URLs have on lookaside.fbsbx.com. */
export const INSTAGRAM_CDN_PATH = '/ig_messaging_cdn/';

export interface CdnAsset {
  bytes: Buffer;
  mimeType: string;
}

export class InstagramCdn {
  /** By path and query, as the server asks for them. */
  private readonly assets = new Map<string, CdnAsset>();

  /** Registers bytes; the lookaside URL a webhook carries for them. */
  add(asset: CdnAsset, assetId = newIgId()): string {
    const url = cdnUrl(assetId);
    const parsed = new URL(url);
    this.assets.set(`${parsed.pathname}${parsed.search}`, asset);
    return url;
  }

  /** Serves a registered asset, or 404 as Meta's CDN answers a URL it does not know. */
  serve(url: URL, res: ServerResponse): void {
    const asset = this.assets.get(`${url.pathname}${url.search}`);
    if (!asset) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': asset.mimeType, 'content-length': asset.bytes.length }).end(asset.bytes);
  }
}
