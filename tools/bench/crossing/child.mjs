// The other side of tools/bench/crossing.mjs: `echo` answers at once (the channel's floor), `frames`
// does the same with length-prefixed binary frames on fd 3, and `prove` proves inclusion from a
// SqliteStore of its own, stamping when the request arrived and when the proof began and ended.
import { Socket } from 'node:net';
import { SqliteStore } from '../../../packages/server/dist/internal.js';

const [mode, file] = process.argv.slice(2);
const stamp = () => performance.timeOrigin + performance.now();

if (mode === 'frames') {
  const s = new Socket({ fd: 3, readable: true, writable: true });
  let buf = Buffer.alloc(0);
  s.on('data', (c) => {
    buf = buf.length ? Buffer.concat([buf, c]) : c;
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
      const n = buf.readUInt32LE(0);
      s.write(buf.subarray(0, 4 + n));
      buf = buf.subarray(4 + n);
    }
  });
} else {
  const store = mode === 'prove' ? new SqliteStore(file) : null;
  process.on('message', async (m) => {
    if (!store) return process.send({ id: m.id, x: m.x });
    const arrived = stamp();
    const began = stamp();
    const r = await store.proveInclusion({ data: new Uint8Array(Buffer.from(m.hex, 'hex')) }, undefined, true);
    const ended = stamp();
    process.send({ id: m.id, arrived, began, ended, proof: r.proof.map((x) => Buffer.from(x).toString('hex')) });
  });
  process.send({ ready: true });
}
