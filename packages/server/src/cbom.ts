// The cryptographic bill of materials: CycloneDX 1.6 with a cryptographic-asset component per
// algorithm this deployment really uses and per published key, the libraries that compute them
// (and which computes what, as `dependencies[].provides`). Served in the interface's shape (with
// its `cryptography`, `posture` and `disclaimer` members) and, on request, as strict CycloneDX
// with the same facts. A transparency document, not a certification.
import { createRequire } from 'node:module';
import { receiptKeyId } from '@svc/core/issue';
import type { Config } from './config.js';

/** A published public key, as the CBOM lists it. */
export interface CbomKey {
  role: string;
  alg: string;
  publicKey: Uint8Array;
  state: 'active' | 'retired';
  /** A transparency-log key's verifier key (c2sp.org/signed-note). */
  vkey?: string;
}

export interface CbomFacts {
  keys: CbomKey[];
  /** Which implementation computes each algorithm (noble, node:crypto). */
  backends: Record<string, string>;
}

interface Asset {
  name: string;
  standard: string;
  type: string;
  role: string;
  status: string;
  primitive: string;
  parameterSetIdentifier?: string;
  functions: string[];
  oid?: string;
  nistQuantumSecurityLevel: number;
  /** Classical security in bits (NIST's categories 5 and 2 stand against AES-256 and SHA-256). */
  classicalSecurityLevel: number;
}

export const CBOM_DISCLAIMER =
  'Transparency document, not a certification. Algorithm names denote the public standards the ' +
  'primitives follow (FIPS 204, FIPS 205, FIPS 206 forthcoming, FIPS 180-4); they are not FIPS 140 ' +
  'or CMVP validations. ML-DSA-87 is the sole load-bearing signature; Falcon-1024 and SLH-DSA are ' +
  'non-authoritative diversity signatures; ML-DSA-44 and Ed25519 sign transparency-log checkpoints ' +
  'for C2SP clients only, and Ed25519 is classical.';

function assets(cfg: Config): Asset[] {
  const list: Asset[] = [
    {
      name: 'ML-DSA-87',
      standard: 'FIPS 204',
      type: 'signature',
      role: 'answer receipts, run and export receipts, signed tree heads and checkpoints, model-plane primary, evidence signer',
      status: 'load-bearing',
      primitive: 'signature',
      parameterSetIdentifier: '87',
      functions: ['keygen', 'sign', 'verify'],
      oid: '2.16.840.1.101.3.4.3.19',
      nistQuantumSecurityLevel: 5,
      classicalSecurityLevel: 256,
    },
    {
      name: 'SHA-256',
      standard: 'FIPS 180-4',
      type: 'hash',
      role: 'answer and payload digests, key ids, RFC 6962 Merkle tree',
      status: 'load-bearing',
      primitive: 'hash',
      parameterSetIdentifier: '256',
      functions: ['digest'],
      oid: '2.16.840.1.101.3.4.2.1',
      nistQuantumSecurityLevel: 2,
      classicalSecurityLevel: 128,
    },
    {
      name: 'SLH-DSA-SHA2-256f',
      standard: 'FIPS 205',
      type: 'signature',
      role: cfg.slhDiversity ? 'evidence signer hybrid leg; receipt diversity signature' : 'evidence signer hybrid leg',
      status: 'diversity (non-authoritative)',
      primitive: 'signature',
      parameterSetIdentifier: '256f',
      functions: ['keygen', 'sign', 'verify'],
      oid: '2.16.840.1.101.3.4.3.25',
      nistQuantumSecurityLevel: 5,
      classicalSecurityLevel: 256,
    },
  ];
  if (cfg.ledger) {
    list.push({
      name: 'ML-DSA-44',
      standard: 'FIPS 204',
      type: 'signature',
      role: 'transparency-log checkpoints (C2SP tlog-cosignature subtree/v1, the line standard clients verify)',
      status: 'interoperability (checkpoints)',
      primitive: 'signature',
      parameterSetIdentifier: '44',
      functions: ['keygen', 'sign', 'verify'],
      oid: '2.16.840.1.101.3.4.3.17',
      nistQuantumSecurityLevel: 2,
      classicalSecurityLevel: 128,
    });
    if (cfg.logEd25519)
      list.push({
        name: 'Ed25519',
        standard: 'RFC 8032',
        type: 'signature',
        role: 'transparency-log checkpoints, for the public witness network (C2SP signed-note 0x01); SVC_LOG_ED25519=off removes it',
        status: 'classical, interoperability only (not quantum-safe)',
        primitive: 'signature',
        functions: ['keygen', 'sign', 'verify'],
        oid: '1.3.101.112',
        nistQuantumSecurityLevel: 0,
        classicalSecurityLevel: 128,
      });
  }
  if (cfg.bridge) {
    list.push({
      name: 'Falcon-1024',
      standard: 'FIPS 206 (forthcoming, FN-DSA); round-3 Falcon',
      type: 'signature',
      role: 'model-plane co-signature',
      status: 'diversity (non-authoritative)',
      primitive: 'signature',
      parameterSetIdentifier: '1024',
      functions: ['keygen', 'sign', 'verify'],
      nistQuantumSecurityLevel: 5,
      classicalSecurityLevel: 256,
    });
  }
  return list;
}

// The pinned versions of the libraries that compute the algorithms: the core's own dependencies.
const coreDeps = (createRequire(import.meta.url)('@svc/core/package.json') as { dependencies: Record<string, string> }).dependencies;
const LIBRARIES: Record<string, { version: string; computes: (alg: string, backends: Record<string, string>) => boolean }> = {
  '@noble/post-quantum': {
    version: coreDeps['@noble/post-quantum']!,
    computes: (alg, b) => alg !== 'SHA-256' && alg !== 'Ed25519' && (b[alg] ?? 'noble') === 'noble',
  },
  '@noble/curves': { version: coreDeps['@noble/curves']!, computes: (alg) => alg === 'Ed25519' },
  '@noble/hashes': { version: coreDeps['@noble/hashes']!, computes: (alg) => alg === 'SHA-256' },
  OpenSSL: { version: process.versions.openssl ?? 'unknown', computes: (alg, b) => b[alg] === 'node:crypto' },
};

const algRef = (name: string) => `crypto/algorithm/${name}`;

/** The CycloneDX members both representations share: components and dependencies. */
function cyclonedxCore(cfg: Config, version: string, serial: string, timestamp: string, facts: CbomFacts) {
  const list = assets(cfg);
  const used = Object.entries(LIBRARIES).filter(([, l]) => list.some((a) => l.computes(a.name, facts.backends)));
  const appRef = `app/${cfg.service}`;
  const libRef = (name: string) => `lib/${name}`;
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${serial}`,
    version: 1,
    metadata: {
      timestamp,
      component: { type: 'application', 'bom-ref': appRef, name: cfg.service, version },
    },
    components: [
      ...list.map((a) => ({
        type: 'cryptographic-asset',
        'bom-ref': algRef(a.name),
        name: a.name,
        description: `${a.role} (${a.status})`,
        cryptoProperties: {
          assetType: 'algorithm',
          algorithmProperties: {
            primitive: a.primitive,
            ...(a.parameterSetIdentifier ? { parameterSetIdentifier: a.parameterSetIdentifier } : {}),
            executionEnvironment: 'software-plain-ram',
            implementationPlatform: 'generic',
            certificationLevel: ['none'],
            cryptoFunctions: a.functions,
            classicalSecurityLevel: a.classicalSecurityLevel,
            nistQuantumSecurityLevel: a.nistQuantumSecurityLevel,
          },
          ...(a.oid ? { oid: a.oid } : {}),
        },
      })),
      ...facts.keys
        .filter((k) => list.some((a) => a.name === k.alg))
        .map((k) => {
          const id = receiptKeyId(k.publicKey);
          return {
            type: 'cryptographic-asset',
            'bom-ref': `crypto/key/${k.role}/${id}`,
            name: `${k.role} public key ${id.slice(0, 16)}`,
            ...(k.vkey ? { properties: [{ name: 'svc:vkey', value: k.vkey }] } : {}),
            description: `${k.state === 'active' ? 'current' : 'retired (still published so old signatures resolve)'} ${k.role} key`,
            cryptoProperties: {
              assetType: 'related-crypto-material',
              relatedCryptoMaterialProperties: {
                type: 'public-key',
                id,
                // CycloneDX's lifecycle states: a retired key is deactivated, not destroyed.
                state: k.state === 'active' ? 'active' : 'deactivated',
                algorithmRef: algRef(k.alg),
                size: k.publicKey.length * 8,
                format: 'raw',
              },
            },
          };
        }),
      ...used.map(([name, l]) => ({ type: 'library', 'bom-ref': libRef(name), name, version: l.version })),
    ],
    dependencies: [
      { ref: appRef, dependsOn: used.map(([name]) => libRef(name)) },
      ...used.map(([name, l]) => ({
        ref: libRef(name),
        provides: list.filter((a) => l.computes(a.name, facts.backends)).map((a) => algRef(a.name)),
      })),
    ],
  };
}

/** GET /api/cbom as the interface shapes it. */
export function buildCbom(cfg: Config, version: string, serial: string, timestamp: string, facts: CbomFacts = { keys: [], backends: {} }) {
  const list = assets(cfg);
  return {
    ...cyclonedxCore(cfg, version, serial, timestamp, facts),
    cryptography: list.map(({ name, standard, type, role, status }) => ({ name, standard, type, role, status })),
    posture: {
      loadBearingSignature: 'ML-DSA-87',
      diversitySignatures: list.filter((a) => a.status.startsWith('diversity')).map((a) => a.name),
      keyEstablishment: 'none: the service publishes and verifies signatures only',
      validation: 'no FIPS 140 / CMVP validation is claimed',
    },
    disclaimer: CBOM_DISCLAIMER,
  };
}

/** The same facts as strict CycloneDX 1.6: the interface's extra members become properties. */
export function buildCycloneDx(
  cfg: Config,
  version: string,
  serial: string,
  timestamp: string,
  facts: CbomFacts = { keys: [], backends: {} },
) {
  const list = assets(cfg);
  return {
    ...cyclonedxCore(cfg, version, serial, timestamp, facts),
    properties: [
      { name: 'svc:disclaimer', value: CBOM_DISCLAIMER },
      { name: 'svc:loadBearingSignature', value: 'ML-DSA-87' },
      ...list.map((a) => ({ name: `svc:status:${a.name}`, value: `${a.status}; ${a.standard}` })),
    ],
  };
}
