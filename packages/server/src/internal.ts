// Every module the tests and the project's own scripts reach into. Built to dist/internal.js but
// absent from the package's `exports`, so it is not part of the public API and may change freely.
export * from './index.js';
export { BodyBudget, readLimited } from './http/body.js';
export { RateLimiter, clientIp } from './http/ratelimit.js';
export { Keyring, ROLES, type Role } from './keys/keyring.js';
export { pinnedKeys, pubkeyResponse, modelPlaneKeys, evidenceSigner, receiptKeys } from './keys/publish.js';
export { buildCbom, CBOM_DISCLAIMER } from './cbom.js';
export { CouncilProbe, loadCouncilConfig, PROBE_TTL_MS, type CouncilConfig } from './council/probe.js';
export { WorkerPool, defaultLimits, type PoolLimits } from './pool/pool.js';
export { estimateCost } from './pool/tasks.js';
export { Ledger, LEAF_HASHING, ALGO } from './ledger/ledger.js';
export { LedgerError, type LedgerErrorCode } from './ledger/errors.js';
export { SqliteStore } from './ledger/sqlite/store.js';
export { ProcessStore } from './ledger/sqlite/process.js';
export { PgStore, PG_TIMEOUTS, redactUrl } from './ledger/postgres.js';
export type { LedgerStore, LedgerReads, HeadRow, NewHead, Seal } from './ledger/store.js';
export { Sequencer, type Appended } from './ledger/sequencer.js';
export { readTree, rootAt } from './ledger/reads.js';
export { Auditor, type Withheld } from './ledger/audit.js';
export { openLedger, openStore, serveLedger, ledgerFile, ledgerLocation, logName } from './ledger/open.js';
export { FileHighWater, MemoryHighWater, highWaterFile, type HighWater, type HighWaterHead } from './ledger/high-water.js';
export type { LedgerApi } from './ledger/api.js';
export { Issuer, type IssueInput } from './issuer.js';
export { backendReport } from './crypto/node.js';
export { nativeHasher } from './ledger/hasher.js';
export { baseUrl } from './cli/common.js';
export { ROUTES, UNDOCUMENTED, type RouteSpec, type OperationId } from './routes.js';
