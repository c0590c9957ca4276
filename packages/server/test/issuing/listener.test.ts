// Starting the private listener: plain HTTP on loopback only, TLS (node:https with the operator's
// certificate) beyond it or no start; never the public port. The token file: names and hashes
// only, a token matches its own entry and no other, and a file that cannot be parsed admits nobody.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig, matchToken, newToken, parseTokens, TokenFile } from '../../src/internal.js';
import { issuingServer } from './support.js';

describe('where the listener may listen', () => {
  it('beyond loopback without TLS: no start, naming the two settings', () => {
    for (const where of ['0.0.0.0:9000', '192.0.2.1:9000', '[::]:9000', 'example.com:9000'])
      expect(() => loadConfig({ SVC_ISSUE_LISTEN: where })).toThrow(/SVC_ISSUE_TLS_CERT and SVC_ISSUE_TLS_KEY/);
    for (const where of ['127.0.0.1:9000', '[::1]:9000', 'localhost:9000'])
      expect(loadConfig({ SVC_ISSUE_LISTEN: where }).issue?.port).toBe(9000);
  });

  it('the public port itself, or TLS files that do not exist: no start', () => {
    expect(() => loadConfig({ SVC_ISSUE_LISTEN: '127.0.0.1:8080', PORT: '8080' })).toThrow(/not be the public port/);
    expect(() =>
      loadConfig({ SVC_ISSUE_LISTEN: '0.0.0.0:9000', SVC_ISSUE_TLS_CERT: '/nonexistent.pem', SVC_ISSUE_TLS_KEY: '/nonexistent.pem' }),
    ).toThrow(/SVC_ISSUE_TLS_CERT must name a PEM file that exists/);
  });

  it('with a certificate it serves HTTPS, and issues to a client that trusts it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-issue-tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    // OpenSSL, not this project, makes the certificate.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const s = await issuingServer({ env: { SVC_ISSUE_TLS_CERT: cert, SVC_ISSUE_TLS_KEY: key } });
    try {
      expect(s.issueUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const url = new URL(`${s.issueUrl}/api/v1/issue`);
      const answer = await new Promise<{ status: number; body: string }>((done, fail) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            ca: [readFileSync(cert)],
            headers: { authorization: `Bearer ${s.tokens.app}`, 'content-type': 'application/json' },
          },
          (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => done({ status: res.statusCode!, body }));
          },
        );
        req.on('error', fail);
        req.end(JSON.stringify({ answer: 'over TLS' }));
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).answer).toBe('over TLS');
      // Plain HTTP to the TLS port is no answer at all.
      await expect(fetch(s.issueUrl.replace('https:', 'http:') + '/api/v1/issue', { method: 'POST', body: '{}' })).rejects.toThrow();
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe('the token file', () => {
  it('a token matches its own entry and no other (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), { minLength: 1, maxLength: 5 }),
        fc.string(),
        (names, other) => {
          const made = names.map((n) => ({ n, ...newToken(n) }));
          const entries = parseTokens(made.map((m) => m.line).join('\n'));
          for (const m of made) expect(matchToken(entries, m.token)).toBe(m.n);
          if (!made.some((m) => m.token === other)) expect(matchToken(entries, other)).toBeNull();
        },
      ),
      { numRuns: 50 },
    );
  });

  it('holds hashes only: the file never contains the token', () => {
    const { token, line } = newToken('ci');
    expect(line).not.toContain(token);
    expect(line).toMatch(/^ci sha256:[0-9a-f]{64}$/);
  });

  it('malformed lines and repeated names are refused, naming the line', () => {
    expect(() => parseTokens('# c\nok sha256:' + '0'.repeat(64) + '\nbad line')).toThrow(/line 3/);
    expect(() => parseTokens(`a sha256:${'0'.repeat(64)}\na sha256:${'1'.repeat(64)}`)).toThrow(/given twice/);
    expect(() => parseTokens(`a sha256:${'A'.repeat(64)}`)).toThrow(/line 1/);
  });

  it('a file that turns malformed admits nobody until mended (fails closed), and says so in the log', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-tokens-')), 'issue-tokens');
    const { token, line } = newToken('app');
    writeFileSync(file, `${line}\n`);
    const events: string[] = [];
    const t = new TokenFile(file, (e) => events.push(e));
    expect(t.match(token)).toBe('app');
    writeFileSync(file, `${line}\nthis is not a token line at all\n`);
    expect(t.match(token)).toBeNull();
    expect(events).toContain('issue_tokens_invalid');
    writeFileSync(file, `${line}\n`);
    expect(t.match(token)).toBe('app');
  });
});
