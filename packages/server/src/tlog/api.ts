// The log as the HTTP layer serves it: the ledger's queries and command, and, under a witness
// policy, where witnessing stands. Published checkpoints then come from the witnessing round (only
// those a quorum cosigned), everything else from the ledger unchanged.
import type { LedgerApi } from '../ledger/api.js';
import { publishedCheckpoint, type WitnessingStatus } from './witnessing.js';

export interface LogApi extends LedgerApi {
  /** Where witnessing stands (SVC_WITNESS_POLICY); absent without a policy. */
  witnessing?(): WitnessingStatus;
}

/** `raw` publishing only the checkpoints `published` names (the witnessed ones). */
export function witnessedLog(raw: LedgerApi, published: () => string | null, status: () => WitnessingStatus): LogApi {
  return {
    head: () => raw.head(),
    inclusion: (q) => raw.inclusion(q),
    find: (d) => raw.find(d),
    findAll: (d) => raw.findAll(d),
    paths: (i, size) => raw.paths(i, size),
    consistency: (a, b, signed) => raw.consistency(a, b, signed),
    history: (v) => raw.history(v),
    append: (l) => raw.append(l),
    tile: (id) => raw.tile(id),
    vkeys: () => raw.vkeys(),
    close: () => raw.close(),
    checkpoint: () => publishedCheckpoint(raw, published()),
    witnessing: status,
  };
}
