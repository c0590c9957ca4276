// The help text of every svc command, one place: `svc --help`, `svc <command> --help`, and the
// text printed after a usage error.
import { ROLES } from '../keys/keyring.js';

export const HELP: Record<string, string> = {
  main: `svc: reference server and tools for post-quantum-signed answer proofs

Usage: svc <command> [options]

Commands:
  serve     run the reference server (what npm start runs)
  keygen    create or rotate the keyring in the data folder
  issue     sign answers, append them to the ledger, print the ProofBundles
  token     add, revoke or list the bearer tokens of the private issuing API
  verify    verify any bundle offline
  record    make an AI Provenance Record from a bundle, offline
  ledger    prove inclusion, audit, export tiles of, or monitor a transparency log
  witness   run a transparency-log witness (c2sp.org/tlog-witness) for the logs of a policy
  mirror    run a transparency-log mirror (c2sp.org/tlog-mirror), or push a log to one

Exit codes, for every command:
  0  done: it verifies (and its signer is one the pinned keys recognise, when keys are pinned)
  1  it does not verify (or is not in the log)
  2  usage error, unreadable input, not a recognised bundle, a server that cannot be reached
  3  the ledger's audit found a problem (rollback, fork, bad signature), or no quorum in time
  4  it verifies, but the keys pinned with --keys or --keys-url do not recognise its signer
     (--allow-unpinned makes that 0)

Run svc <command> --help for its options; svc --version prints the version. A passing verdict attests origin and integrity, never accuracy.`,
  serve: `svc serve [--port N] [--host H] [--data-dir DIR] [--database-url postgres://...]

Environment: PORT (8080), HOST (127.0.0.1), SVC_DATA_DIR (./data), SVC_SERVICE_NAME (svc),
SVC_RATE_VERIFY (40/min), SVC_RATE_READ (120/min), SVC_RATE_MODEL_KEYS (120/min), SVC_RATE_TILES
(6000/min), SVC_RATE_METRICS (60/min), 0 disables a limit, SVC_IPV6_PREFIX (64),
SVC_CONNECTIONS_PER_IP (64 per process), SVC_SEND_SECONDS (10), SVC_TRUSTED_PROXIES (comma list), SVC_LEDGER (on), SVC_LOG_ORIGIN
(keys/log-origin), SVC_LOG_ED25519 (on), SVC_WITNESS_POLICY (none), SVC_WITNESS_TIMEOUT_SECONDS (5),
SVC_WITNESS_SERVE_POLICY (none), SVC_SCITT_ISSUERS (none: the answer keys only), SVC_METRICS (on), SVC_METRICS_LISTEN (none: the main port),
SVC_DATABASE_URL (none: SQLite in the data folder),
SVC_LEDGER_BATCH_SECONDS (1), SVC_LEDGER_AUDIT_SECONDS (300), SVC_LEDGER_CHECK_SHARE (0.1 of a core),
SVC_COUNCIL_FILE (<data>/council.json), SVC_PROCESSES (cores), SVC_WORKERS (cores / processes), SVC_INLINE_SIGNATURES (4 with node:crypto),
SVC_SLH_DIVERSITY (off), SVC_BRIDGE (on), SVC_LOG (on), SVC_LOG_LEVEL (info),
SVC_SHUTDOWN_SECONDS (10), SVC_QUEUE_SIGNATURES (400 per worker), SVC_TASK_TIMEOUT_SECONDS (30),
SVC_BODY_SECONDS (10), SVC_BODY_BUDGET_MB (256), SVC_ISSUE_LISTEN (none: no issuing API; host:port of
its private listener), SVC_ISSUE_TOKENS (<data>/issue-tokens), SVC_ISSUE_TLS_CERT and SVC_ISSUE_TLS_KEY
(required beyond loopback), SVC_RATE_ISSUE (600 answers/min per token), SVC_UPSTREAM_SECONDS (120),
SVC_ISSUE_SIGNERS (1 signing thread per process).
The README's Configuration table says what each means.
Dev keys are made on first start when the data folder has none.`,
  keygen: `svc keygen [--data-dir DIR] [--rotate] [--role ROLE]...

Writes the missing keys (secret files mode 0600). --rotate retires the current keys of the named
roles (all roles when none is named) and makes new ones; retired public keys stay published.
Roles: ${Object.keys(ROLES).join(', ')}`,
  issue: `svc issue (--answer TEXT | --answer-file F | --jsonl | --transcript F | --run F | --export F) [--prompt TEXT] [--model LABEL] [--council-grounded] [--logged] [--envelopes jws,cose] [--scitt FILE] [--data-dir DIR] [--database-url URL]

Signs the answer with the keyring, appends its hash to the ledger (a new signed head), and prints
the ProofBundle JSON on stdout. Safe while the server runs. The whole log is checked first (time
grows with its size); a log that fails the check, or cannot be opened, is never signed: exit 3.
--council-grounded says a council grounded the answer; without it the receipt says it did not
(council_grounded false: a signature never claims a council nobody stated).
--logged waits until the answer is in a published checkpoint (one that met SVC_WITNESS_POLICY's
quorum, when set) and embeds its c2sp.org/tlog-proof as tlogProof; exit 3 if none comes in time.
--envelopes adds the receipt as a JWS and/or COSE_Sign1s (RFC 9964 ML-DSA-87 with the answer key,
and Ed25519 with the envelope-ed25519 key), in receipt.envelopes: any JOSE or COSE library reads them.
--scitt FILE also writes a SCITT Transparent Statement (RFC 9943): a Signed Statement about the
answer (a COSE hash envelope of its text, ML-DSA-87), registered in the same log, with its RFC 9942
receipts (ML-DSA-44, and Ed25519 unless SVC_LOG_ED25519=off) for the published checkpoint.
--jsonl reads one answer object per line of stdin ({"answer": ..., "prompt", "model", "framing",
"envelopes", "logged", "scitt"}: the issuing API's) and writes one bundle per line, in input order;
lines read while a batch is signed form the next (at most 256), each batch one append under one
signed head. A bad line stops with exit 2 naming it; every bundle printed before it is logged.
--transcript F, --run F and --export F (- for stdin) read the body POST /api/v1/issue/transcript,
/run or /export takes: a transcript's turns (answer objects, signed together), an autopilot run
({"run": {id, goal, steps: [{output_sha256, verify, credits}], budgetCredits, spentCredits...}},
signed under the autopilot context) or a conversation export ({"conversations": [{messages}]},
its manifest signed under the export context). Each is logged like an answer; one that would not
verify (a budget overrun, credits that do not add up) is refused with exit 2, nothing signed.`,
  token: `svc token add NAME | svc token revoke NAME | svc token list   [--file F] [--data-dir DIR]

The bearer tokens of the private issuing API (SVC_ISSUE_LISTEN). The file (--file, else
SVC_ISSUE_TOKENS, else <data>/issue-tokens) keeps each token's name and SHA-256, never the token.
add prints a new token once on stdout; revoke deletes its line (refused from the next request);
several names at once let a token be rotated without a gap.`,
  verify: `svc verify <file|-> [--json] [--keys FILE | --keys-url BASE] [--allow-unpinned] [--service NAME]

Verifies any bundle kind offline. --keys pins keys from a saved /api/provenance/pubkey response;
--keys-url fetches them once. Exit 0 when overallOk (and, with keys pinned, its signer is one of
them), 1 when it does not verify, 2 when the input cannot be read or is not a recognised bundle,
4 when it verifies but the pinned keys do not recognise its signer (0 with --allow-unpinned).
A bare envelope (a JWS, or a COSE_Sign1 as bytes or base64url, as receipt.envelopes carries them)
is checked against a key set: --keys-url BASE (the server's JWK Set or COSE_KeySet) or --keys FILE
(a JWK Set or a COSE_KeySet file); exit 0 when every signature verifies, 1 when one does not.`,
  record: `svc record <file|-> [--org NAME] [--keys FILE | --keys-url BASE] [--allow-unpinned]

Prints an AI Provenance Record made offline from a proof bundle or run evidence pack. A record is
evidence of origin and integrity, never a declaration of conformity. Exit 0 when its proof is
signed (and, with keys pinned, by one of them), 1 when it is not, 4 when the pinned keys do not
recognise its signer (0 with --allow-unpinned).`,
  ledger: `svc ledger prove --url BASE (--answer TEXT | --answer-sha256 HEX | --leaf HEX) [--keys FILE]
svc ledger prove --url BASE (--answer ... | ...) --tlog-proof [--vkey VKEY]...
svc ledger audit --url BASE [--state FILE] [--keys FILE]
svc ledger tiles --out DIR [--data-dir DIR] [--database-url URL]
svc ledger monitor --tiles URL|DIR --vkey VKEY --state FILE [--policy FILE]
svc ledger subtree --request FILE --answer FILE --vkey VKEY [--vkey VKEY]...

prove: fetches the signed tree head and an inclusion proof, and verifies the path against the
signed root; with --tlog-proof, prints a c2sp.org/tlog-proof@v1 against the served checkpoint.
audit: verifies the signed head and its consistency with the last head seen (kept in the state
file); exits 3 with a report on rollback, fork or a bad signature.
tiles: writes this data folder's (or database's) log as a static tiled log (checkpoint, tiles,
entry bundles) that any web server can serve; incremental, the checkpoint replaced last.
monitor: follows a tiled log (served: BASE/api/transparency/tlog/, or a static copy), checks each
new checkpoint is consistent with the last (state file) and every new entry against its leaf;
exits 3 on a fork, a rollback, tiles that do not match the signed root, or a bad signature; with
--policy (c2sp.org/tlog-policy), also when the witness cosignatures do not meet its quorum.
subtree: checks a subtree cosignature offline: the request is a sign-subtree body (the subtree, its
hash, its consistency proof, the checkpoint), the answer the cosigner's lines; exit 0 when the
checkpoint opens under a key given, the proof leads to its root, and a given key's subtree/v1 line
verifies, else 1.`,
  witness: `svc witness serve --policy FILE [--data-dir DIR] [--database-url URL] [--port N] [--host H]

Cosigns checkpoints of the logs the c2sp.org/tlog-policy file names (its log lines), each only when
it is consistent with the last one cosigned for that log: POST /add-checkpoint, POST /sign-subtree
(a subtree of a checkpoint it cosigned), GET /vkeys, and GET /<sha256(origin) hex>/checkpoint for
monitors. Keys (witness-mldsa44, witness-ed25519), the
witness name (SVC_WITNESS_NAME, else kept in keys/witness-name) and witness.sqlite live in the
data folder; with --database-url (SVC_DATABASE_URL) the state is in PostgreSQL, shared by every
witness instance on that database. PORT and HOST as for svc serve.`,
  mirror: `svc mirror serve --policy FILE [--data-dir DIR] [--database-url URL] [--port N] [--host H]
svc mirror push --log URL --vkey VKEY --mirror URL [--packages N]

serve: keeps a full copy of each log the c2sp.org/tlog-policy file names (its log lines) and
cosigns a checkpoint only once it holds every entry up to it: POST /add-checkpoint (the pending
checkpoint, checked as a witness checks it, never signed), POST /add-entries (entry packages, each
proved into a pending checkpoint; gzip accepted; 202 or 409 with text/x.tlog.mirror-info), GET
/vkeys, and each log as tlog-tiles under /<sha256(origin) hex>/ with the mirror's cosigned
checkpoint. Keys (witness-mldsa44, witness-ed25519 roles), the mirror name (kept in
keys/mirror-name) and mirror.sqlite live in the data folder, which must not be a witness's; with
--database-url (SVC_DATABASE_URL) the logs are in PostgreSQL, shared by every mirror instance on it.
push: reads the tiled log at --log (its checkpoint opened with --vkey), and brings the mirror up
to it: add-checkpoint (resuming from the mirror's 409), then add-entries from the mirror's next
entry, at most --packages packages a request (32). Prints the mirror's cosignature lines.`,
};
