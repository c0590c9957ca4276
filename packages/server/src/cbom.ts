// The cryptographic bill of materials: CycloneDX 1.6 with one cryptographic-asset component per
// algorithm this deployment really uses, plus the interface's `cryptography`, `posture` and
// `disclaimer` members. It is a transparency document, not a certification.
import type { Config } from './config.js';

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
}

export const CBOM_DISCLAIMER =
  'Transparency document, not a certification. Algorithm names denote the public standards the ' +
  'primitives follow (FIPS 204, FIPS 205, FIPS 206 forthcoming, FIPS 180-4); they are not FIPS 140 ' +
  'or CMVP validations. ML-DSA-87 is the sole load-bearing signature; Falcon-1024 and SLH-DSA are ' +
  'non-authoritative diversity signatures.';

function assets(cfg: Config): Asset[] {
  const list: Asset[] = [
    {
      name: 'ML-DSA-87',
      standard: 'FIPS 204',
      type: 'signature',
      role: 'answer receipts, run and export receipts, signed tree heads, model-plane primary, evidence signer',
      status: 'load-bearing',
      primitive: 'signature',
      parameterSetIdentifier: '87',
      functions: ['keygen', 'sign', 'verify'],
      oid: '2.16.840.1.101.3.4.3.19',
      nistQuantumSecurityLevel: 5,
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
    },
  ];
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
    });
  }
  return list;
}

export function buildCbom(cfg: Config, version: string, serial: string, timestamp: string) {
  const list = assets(cfg);
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${serial}`,
    version: 1,
    metadata: {
      timestamp,
      component: { type: 'application', 'bom-ref': `app/${cfg.service}`, name: cfg.service, version },
    },
    components: list.map((a) => ({
      type: 'cryptographic-asset',
      'bom-ref': `crypto/algorithm/${a.name}`,
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
          nistQuantumSecurityLevel: a.nistQuantumSecurityLevel,
        },
        ...(a.oid ? { oid: a.oid } : {}),
      },
    })),
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
