// A signing thread of the issuer (issuing/signers.ts): it loads the keyring from the data folder
// itself (no secret crosses a message) and signs the answers it is sent, nothing else. Its heap
// holds only what one signing needs, so the signatures' garbage is collected cheaply, and the
// caller's event loop stays free while it signs.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { namesFor } from '@svc/core';
import { nativeCrypto } from '../crypto/node.js';
import { Issuer, type IssueInput } from './issuer.js';
import { Keyring } from '../keys/keyring.js';
import type { SignerSettings } from './signers.js';

const s = workerData as SignerSettings;
const issuer = new Issuer(Keyring.load(join(s.dataDir, 'keys')).ring, namesFor(s.service), null, {
  slhDiversity: s.slhDiversity,
  bridge: s.bridge,
  ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
  ...(s.envelopes?.length ? { envelopes: s.envelopes } : {}),
});

parentPort!.on('message', (msg: { id: number; inputs: IssueInput[] }) => {
  try {
    parentPort!.postMessage({ id: msg.id, bundles: issuer.sign(msg.inputs) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e), name: e instanceof Error ? e.name : 'Error' });
  }
});
