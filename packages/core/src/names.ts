// Every kind and signing context is derived from the deployment's service name (wire-format s.0),
// so two deployments never accept each other's signatures as their own.
import { KINDS, type Kind } from './kinds.js';

/**
 * The deployment name used when none is given: `svc`.
 *
 * @example
 * ```ts
 * namesFor(DEFAULT_SERVICE).kinds.record; // 'svc-ai-provenance-record'
 * ```
 */
export const DEFAULT_SERVICE = 'svc';

/**
 * The wire names of a deployment: its kinds and its signing contexts.
 *
 * @example
 * ```ts
 * const n: Names = namesFor('svc');
 * if (doc.kind === n.kinds.transcript) console.log('a transcript');
 * ```
 */
export interface Names {
  service: string;
  /** Each kind's wire name, `<service>-<suffix>` (the one table of kinds: kinds.ts). */
  kinds: { [K in Exclude<Kind, 'unknown'>]: string };
  contexts: {
    answer: string;
    framing: string;
    autopilot: string;
    export: string;
    sth: string;
    bridge: string;
  };
}

const SERVICE_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Whether `s` can name a deployment (kinds and signing contexts derive from it).
 *
 * @example
 * ```ts
 * isValidServiceName('acme'); // true
 * isValidServiceName('Acme Corp'); // false
 * ```
 */
export function isValidServiceName(s: unknown): s is string {
  return typeof s === 'string' && SERVICE_RE.test(s);
}

const cache = new Map<string, Names>();

/**
 * The kinds and signing contexts of a deployment.
 *
 * @example
 * ```ts
 * namesFor('acme').kinds.proof; // 'acme-proof'
 * namesFor().contexts.answer; // 'svc-provenance-v1'
 * ```
 */
export function namesFor(service: string = DEFAULT_SERVICE): Names {
  const hit = cache.get(service);
  if (hit) return hit;
  if (!isValidServiceName(service)) throw new TypeError(`invalid service name: ${JSON.stringify(service)}`);
  const n: Names = {
    service,
    kinds: Object.fromEntries(KINDS.map((k) => [k.kind, `${service}-${k.suffix}`])) as Names['kinds'],
    contexts: {
      answer: `${service}-provenance-v1`,
      framing: `${service}-framing-v1`,
      autopilot: `${service}-autopilot-v1`,
      export: `${service}-export-v1`,
      sth: `${service}-sth-v1`,
      bridge: `${service}-bridge-v1`,
    },
  };
  cache.set(service, n);
  return n;
}
