// The floor under the PostgreSQL proofs (#35): the database's own read of the same rows. For each
// proof the ledger bench times, the rows it needs (the leaf's index, the tree size and the proof's
// nodes) are found once, untimed, then read again by one query in one round trip on a plain pg
// client: what no store of this design can go under on this machine.
import pg from 'pg';
import { readConsistency, readInclusion } from '../../packages/server/dist/internal.js';
import { line, percentiles } from './util.mjs';

const FLOOR = {
  name: 'floor_rows',
  text: `SELECT (SELECT idx FROM svc_leaves WHERE hash = $1 AND data = $2 ORDER BY idx LIMIT 1) AS idx,
                (SELECT size FROM svc_tree WHERE id = 1) AS size,
                (SELECT array_agg(COALESCE(n.hash, l.hash) ORDER BY q.ord)
                   FROM unnest($3::int[], $4::bigint[]) WITH ORDINALITY AS q(level, idx, ord)
                   LEFT JOIN svc_nodes n ON q.level > 0 AND n.level = q.level AND n.idx = q.idx
                   LEFT JOIN svc_leaves l ON q.level = 0 AND l.idx = q.idx) AS hashes`,
};

/** The node ids a proof read asks the store for, found by reading it once through a recording store. */
async function idsOf(store, read) {
  const ids = [];
  const recording = {
    size: () => store.size(),
    findByData: (d) => store.findByData(d),
    findByLeafHash: (h) => store.findByLeafHash(h),
    nodes: (want) => {
      ids.push(...want);
      return store.nodes(want);
    },
  };
  await read(recording);
  return ids;
}

/**
 * Times the floor for `samples` ({ data, leafHash, first }: the same inputs as the bench's proofs).
 */
export async function pgFloor(url, store, samples) {
  const c = new pg.Client(url);
  await c.connect();
  try {
    const inc = [];
    const con = [];
    for (const [k, s] of samples.entries()) {
      const incIds = await idsOf(store, (r) => readInclusion(r, { data: s.data }, undefined, false));
      const conIds = await idsOf(store, (r) => readConsistency(r, s.first, undefined));
      const ask = (ids, withLeaf) =>
        c.query({
          ...FLOOR,
          values: [
            withLeaf ? Buffer.from(s.leafHash) : Buffer.alloc(32),
            withLeaf ? Buffer.from(s.data) : Buffer.alloc(0),
            ids.map((x) => x.level),
            ids.map((x) => x.index),
          ],
        });
      let t = performance.now();
      const a = await ask(incIds, true);
      const ti = performance.now() - t;
      t = performance.now();
      await ask(conIds, false);
      const tc = performance.now() - t;
      if (a.rows[0].idx === null || (a.rows[0].hashes ?? []).length !== incIds.length) throw new Error('floor read missed rows');
      if (k >= 200) {
        inc.push(ti);
        con.push(tc);
      }
    }
    const pi = percentiles(inc);
    const pc = percentiles(con);
    line('  floor: the same rows, one query, one round trip (inclusion) p50 / p99', `${pi.p50.toFixed(3)} ms / ${pi.p99.toFixed(3)} ms`);
    line('  floor: the same rows, one query, one round trip (consistency) p50 / p99', `${pc.p50.toFixed(3)} ms / ${pc.p99.toFixed(3)} ms`);
    return { inclusion: pi, consistency: pc };
  } finally {
    await c.end();
  }
}
