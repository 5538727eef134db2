// What an upload's body may cost and what its bytes are (issue 33). Part A checks a media's size at send, not at
// upload, so an upload is never refused for its size; but one valid link must not fill the disk for every
// account. So at most `cap` bytes are stored (the largest file any channel accepts, plus one byte: a file cut
// there still reads as too large at send), the rest is neither stored nor read (the connection is closed after
// the answer). And the first bytes say what the file is (file-type's magic numbers), recorded with the upload so
// that the send can refuse a file that is not what its Content-Type says.
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';

/** The bytes file-type reads to tell a format. */
export const SNIFF_BYTES = 4100;

export interface CappedBody {
  /** The bytes to store: the request's, cut after `cap`. */
  body: Readable;
  /** Whether the request reached `cap` bytes: what came after was not read. */
  cut(): boolean;
  /** The format the first bytes show (file-type's extension), '' when none known. After `body` ended. */
  format(): Promise<string>;
}

/** The request's body cut after `cap` bytes, with its first SNIFF_BYTES kept to tell its format. */
export function cappedBody(req: IncomingMessage, cap: number): CappedBody {
  const body = new PassThrough();
  const head: Buffer[] = [];
  let headBytes = 0;
  let taken = 0;
  let ended = false;
  const end = (last?: Buffer) => {
    if (ended) return;
    ended = true;
    req.off('data', onData);
    body.end(last);
  };
  function onData(chunk: Buffer) {
    const piece = chunk.length > cap - taken ? chunk.subarray(0, cap - taken) : chunk;
    taken += piece.length;
    if (headBytes < SNIFF_BYTES) {
      const kept = piece.subarray(0, SNIFF_BYTES - headBytes);
      head.push(kept);
      headBytes += kept.length;
    }
    if (taken >= cap) {
      // Enough: no more of this request is read; the route closes the connection after its answer.
      req.pause();
      end(piece);
    } else if (!body.write(piece)) {
      req.pause();
      body.once('drain', () => req.resume());
    }
  }
  req.on('data', onData);
  req.once('end', () => end());
  req.once('error', (error) => body.destroy(error));
  req.once('close', () => {
    if (!req.complete && !ended) body.destroy(new Error('the client hung up mid-upload'));
  });
  return {
    body,
    cut: () => taken >= cap,
    format: () => formatOf(Buffer.concat(head)),
  };
}

/** The format `bytes` begin with (file-type's extension), '' when none known or when the reader gives up on them. */
async function formatOf(bytes: Buffer): Promise<string> {
  try {
    return (await fileTypeFromBuffer(bytes))?.ext ?? '';
  } catch {
    return '';
  }
}
