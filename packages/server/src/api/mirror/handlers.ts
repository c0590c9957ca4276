// The tlog-mirror's routes: submissions (add-checkpoint as a witness takes it, add-entries streamed
// and gzip-decoded here) and the monitoring reads of each mirrored log.
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parseTilePath } from '@svc/core/tlog';
import { HttpError } from '../../http/errors.js';
import type { AppRequest, Handler } from '../../http/types.js';
import type { Mirror } from '../../mirror/mirror.js';
import { textAnswer } from '../answers.js';
import type { MIRROR_ROUTES } from './routes.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const ORIGIN_HASH = /^[0-9a-f]{64}$/;

/** The body's content coding, as add-entries compares it. */
const codingOf = (req: AppRequest): string =>
  String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();

/** Why add-entries cannot read this body (a 415), or null. */
function unreadable(req: AppRequest): string | null {
  const type = String(req.headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/octet-stream') return 'add-entries takes an application/octet-stream body\n';
  const coding = codingOf(req);
  return coding === 'identity' || coding === 'gzip' ? null : 'add-entries takes gzip or no content coding\n';
}

/** The request body as chunks, gzip inflated as it arrives when the client says so. */
function uploadBody(req: AppRequest): AsyncIterable<Uint8Array> {
  const raw: AsyncIterable<Uint8Array> = req.stream
    ? req.stream()
    : (async function* () {
        yield await req.body();
      })();
  if (codingOf(req) === 'identity') return raw;
  // Inflated as the mirror reads (the gunzip's output is backpressured), so a gzip bomb is only
  // ever inflated as far as the upload is read. An early answer destroys the pipeline, which hands
  // the source back unread (`stream` does not destroy the connection), and a source that fails
  // fails the inflated stream with it.
  const gunzip = createGunzip();
  pipeline(Readable.from(raw), gunzip, () => undefined);
  return gunzip;
}

export function mirrorHandlers(m: Mirror): Record<(typeof MIRROR_ROUTES)[number]['operationId'], Handler> {
  const noStore = (a: { status: number; body: string; contentType: string }) => ({
    status: a.status,
    body: a.body,
    headers: { 'content-type': a.contentType, 'cache-control': 'no-store', 'accept-encoding': 'gzip' },
  });
  return {
    mirrorAddCheckpoint: async (req) => noStore(await m.addCheckpoint(await req.body())),
    mirrorAddEntries: async (req) => {
      const why = unreadable(req);
      if (why) return noStore({ status: 415, body: why, contentType: 'text/plain; charset=utf-8' });
      if (!m.admit()) throw new HttpError('unavailable', 'too many uploads at once; retry shortly', { retryAfter: 1 });
      try {
        return noStore(await m.addEntries(uploadBody(req)));
      } finally {
        m.release();
      }
    },
    getMirrorVkeys: async () => textAnswer(m.vkeys()),
    getMirrorCheckpoint: async (_req, params) => {
      if (!ORIGIN_HASH.test(params.origin_hash ?? '')) throw new HttpError('not_found', 'an origin hash is 64 lowercase hex characters');
      const c = await m.checkpoint(params.origin_hash!);
      if (c === null) throw new HttpError('not_found', 'this mirror holds no checkpoint of that log');
      return textAnswer(c);
    },
    getMirrorTile: async (_req, params) => {
      const id = parseTilePath(`tile/${params.tile ?? ''}`);
      if (!ORIGIN_HASH.test(params.origin_hash ?? '') || !id)
        throw new HttpError('not_found', 'not a tile path (tlog-tiles) of a mirrored log');
      const body = await m.tile(params.origin_hash!, id);
      if (!body) throw new HttpError('not_found', 'the mirror holds no such tile (yet)');
      return {
        status: 200,
        body,
        headers: { 'content-type': 'application/octet-stream', 'cache-control': id.width === 256 ? IMMUTABLE : 'public, max-age=3600' },
      };
    },
  };
}
