// Live health of the council seats: one probe per five minutes per instance, shared by every
// caller (concurrent callers await the same probe). Failure reasons stay inside the server.
import { PEER_CAPS, textCapped } from '../net/peer.js';
import { existsSync, readFileSync } from 'node:fs';
import type * as schemas from '@svc/core/schemas';
import type { Static } from 'typebox';

export interface SeatConfig {
  id: string;
  label: string;
  model: string;
  /** OpenAI-compatible base URL (the probe posts to `<endpoint>/chat/completions`). */
  endpoint?: string;
  /** Name of the environment variable holding the seat's API key. */
  key_env?: string;
}

export interface CouncilConfig {
  endpoint?: string;
  timeout_ms?: number;
  seats: SeatConfig[];
}

/** A probe's answer: the documented shape (one source, the core's schema), when it could probe. */
export type CouncilHealth = Static<typeof schemas.CouncilHealth> & { ok: true };

export const PROBE_TTL_MS = 5 * 60_000;
/** An unprobeable model plane is re-tried sooner than a healthy one is re-probed. */
export const FAILURE_TTL_MS = 30_000;

export function loadCouncilConfig(file: string): CouncilConfig | null {
  if (!existsSync(file)) return null;
  const c = JSON.parse(readFileSync(file, 'utf8')) as CouncilConfig;
  if (!c || !Array.isArray(c.seats)) throw new Error(`${file}: expected {"seats": [...]}`);
  for (const s of c.seats) {
    if (typeof s.id !== 'string' || typeof s.label !== 'string' || typeof s.model !== 'string')
      throw new Error(`${file}: every seat needs id, label and model strings`);
  }
  return c;
}

async function probeSeat(
  seat: SeatConfig,
  base: string,
  key: string,
  timeoutMs: number,
  log: (e: string, f: Record<string, unknown>) => void,
): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const res = await fetch(`${base.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model: seat.model,
        messages: [{ role: 'user', content: 'Reply with exactly one word: ready' }],
        max_tokens: 5,
        temperature: 0,
      }),
      signal: ctl.signal,
    });
    // A seat's answer is read up to a cap, within the same deadline: a seat cannot make the probe hold gigabytes.
    const raw = await textCapped(res, PEER_CAPS.json, res.url, ctl.signal).catch(() => null);
    let body: { choices?: { message?: { content?: unknown } }[] } | null = null;
    try {
      body = raw === null ? null : JSON.parse(raw);
    } catch {
      body = null;
    }
    const text = body?.choices?.[0]?.message?.content;
    const ok = res.ok && typeof text === 'string' && text.trim().length > 0;
    if (!ok) log('council_seat_failed', { seat: seat.id, status: res.status });
    return { ok, ms: Math.round(performance.now() - started) };
  } catch (e) {
    log('council_seat_failed', { seat: seat.id, reason: e instanceof Error ? e.name : 'error' });
    return { ok: false, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

export class CouncilProbe {
  private cached: { at: number; value: CouncilHealth | null } | null = null;
  private inflight: Promise<CouncilHealth | null> | null = null;
  /** Probes actually sent (for tests and logs). */
  probes = 0;

  constructor(
    private readonly config: () => CouncilConfig | null,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (e: string, f: Record<string, unknown>) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** The health document, or null when the model plane is not configured or cannot be probed. */
  async health(): Promise<CouncilHealth | null> {
    const c = this.cached;
    if (c && this.now() - c.at < (c.value ? PROBE_TTL_MS : FAILURE_TTL_MS)) return c.value;
    if (!this.inflight) {
      this.inflight = this.probe()
        .catch((e: unknown) => {
          this.log('council_probe_failed', { reason: e instanceof Error ? e.message : 'error' });
          return null;
        })
        .then((value) => {
          this.cached = { at: this.now(), value };
          this.inflight = null;
          return value;
        });
    }
    return this.inflight;
  }

  private async probe(): Promise<CouncilHealth | null> {
    const cfg = this.config();
    // 503 {ok:false} says nothing to the public; the operator reads why here (once per retry).
    if (!cfg || cfg.seats.length === 0) {
      this.log('council_unavailable', {
        reason: cfg ? 'no_seats' : 'not_configured',
        note: 'no council.json with seats in the data folder',
      });
      return null;
    }
    this.probes++;
    const timeout = cfg.timeout_ms ?? 8000;
    const seats = await Promise.all(
      cfg.seats.map(async (s) => {
        const key = s.key_env ? this.env[s.key_env] : undefined;
        const endpoint = s.endpoint ?? cfg.endpoint;
        if (!key || !endpoint) return { id: s.id, label: s.label, model: s.model, ok: false, keyed: false };
        const r = await probeSeat(s, endpoint, key, timeout, this.log);
        return { id: s.id, label: s.label, model: s.model, ok: r.ok, keyed: true, ms: r.ms };
      }),
    );
    const configured = seats.filter((s) => s.keyed).length;
    const working = seats.filter((s) => s.ok).length;
    // No keyed seat, or no keyed seat answered: the model plane could not be probed.
    if (configured === 0 || working === 0) {
      this.log('council_unavailable', {
        reason: configured === 0 ? 'no_keyed_seat' : 'no_seat_answered',
        seats: seats.length,
        keyed: configured,
        ...(configured === 0 ? { note: "no seat's key_env names a set environment variable" } : {}),
      });
      return null;
    }
    return { ok: true, defined: seats.length, configured, working, probed_at: new Date(this.now()).toISOString(), seats };
  }
}
