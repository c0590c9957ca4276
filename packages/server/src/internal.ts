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
export { PgStore, PG_TIMEOUTS } from './ledger/postgres/store.js';
export { redactUrl } from './ledger/postgres/url.js';
export type { LedgerStore, LedgerReads, HeadRow, NewHead, Seal } from './ledger/store.js';
export { Sequencer, type Appended } from './ledger/sequencer.js';
export { readTree, rootAt, readInclusion, readConsistency } from './ledger/reads.js';
export { Auditor, type Withheld } from './ledger/audit.js';
export { openLedger, openStore, serveLedger, ledgerFile, ledgerLocation, logName } from './tlog/open.js';
export { FileHighWater, MemoryHighWater, highWaterFile, type HighWater, type HighWaterHead } from './ledger/high-water.js';
export type { LedgerApi } from './ledger/api.js';
export { witnessedLog, type LogApi } from './tlog/api.js';
export { Issuer, type IssueInput } from './issuing/issuer.js';
export { backendReport } from './crypto/node.js';
export { nativeHasher } from './ledger/hasher.js';
export { baseUrl } from './cli/common.js';
export { ROUTES, UNDOCUMENTED, type RouteSpec, type OperationId } from './routes.js';
export { exportTiles, changedTiles } from './tlog/export.js';
export { checkpointer, logOrigin, logRoles, type Checkpointer } from './tlog/checkpoints.js';
export { monitorOnce } from './tlog/monitor.js';
export { readTile } from './ledger/reads.js';
export { nativeMlDsa44 } from './crypto/node.js';
export { nativeEd25519Sign, nativeNoteVerify } from './crypto/node.js';
export { asAsk, asAnswer, asNotice, asCouncil } from './cluster/messages.js';
export { clusterLink } from './cluster/link.js';
export { canonicalAddress, limitKey } from './http/address.js';
export { DEFAULT_IPV6_PREFIX, DEFAULT_CONNECTIONS_PER_IP } from './config.js';
export { capConnections, admitPipelined, MAX_PIPELINED, nextHeaderEnd } from './http/connections.js';
export { pageHeaders } from './http/page-headers.js';
export { fresh } from './util/fresh.js';
export { inclusionQuery, normalInclusionRequest } from './ledger/inclusion-request.js';
export { startPrimary } from './cluster/primary.js';
export { publicServer, listen } from './http/listen.js';
export { nodeHandler } from './http/node.js';
export { tileFetcher } from './cli/tlog.js';
export { PEER_CAPS, PEER_DEADLINE_MS, readCapped, PeerAnswerTooLarge } from './net/peer.js';
export { fetchJson, CliError } from './cli/common.js';
export { Witnessing } from './tlog/witnessing.js';
export { createPipeline, mount, type Mounted } from './http/pipeline.js';
export { errorResponse } from './http/errors.js';
export { withRequestId } from './util/request-id.js';
export { metricsListener } from './http/metrics-listener.js';
export {
  scittService,
  answerStatement,
  type ScittService,
} from './scitt/service.js';
export { poolStatementChecker, scittPolicy, type StatementChecker } from './scitt/policy.js';
export { addToken, revokeToken, parseTokens, matchToken, newToken, TokenFile } from './issuing/tokens.js';
export { openIssuer, issuerOf } from './issuing/open.js';
export { issuingApp, authenticate } from './issuing/app.js';
export { questionOf } from './issuing/openai.js';
export { parseIssueInput, IssueRequest, IssueBatchRequest, MAX_BATCH } from './issuing/input.js';
export { issueOpenApiDocument } from './issuing/openapi.js';
export { SignerPool } from './issuing/signers.js';
export { signerPool } from './issuing/open.js';
