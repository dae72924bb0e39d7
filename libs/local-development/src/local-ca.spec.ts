import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { request, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueLoopbackServerCertificate, loadOrCreateLocalCa, localCaFiles } from './local-ca';

describe('the local CA', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-local-ca-'));
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('is made once, kept under local-ca/ with a private key only its owner can read', async () => {
    const first = await loadOrCreateLocalCa(dataDir);
    const again = await loadOrCreateLocalCa(dataDir);

    expect(again).toEqual(first);
    expect(first.certFile).toBe(localCaFiles(dataDir).certFile);
    expect((await stat(localCaFiles(dataDir).keyFile)).mode & 0o777).toBe(0o600);
    const certificate = new X509Certificate(first.certPem);
    expect(certificate.ca).toBe(true);
    expect(certificate.checkIssued(certificate)).toBe(true);
  });

  it('gives one CA to processes that create it at the same time', async () => {
    const cas = await Promise.all([1, 2, 3].map(() => loadOrCreateLocalCa(dataDir)));

    expect(new Set(cas.map((ca) => ca.certPem)).size).toBe(1);
  });

  it('issues server certificates for localhost, 127.0.0.1 and ::1 that it signed', async () => {
    const ca = await loadOrCreateLocalCa(dataDir);
    const server = await issueLoopbackServerCertificate(ca);

    const leaf = new X509Certificate(server.certPem);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkHost('example.com')).toBeUndefined();
  });

  it('serves HTTPS that a client trusting only the CA accepts, and one not trusting it refuses', async () => {
    const ca = await loadOrCreateLocalCa(dataDir);
    const { certPem, keyPem } = await issueLoopbackServerCertificate(ca);
    const server = createServer({ cert: certPem, key: keyPem }, (_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const get = (trust: string | undefined) =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, ca: trust, method: 'GET' }, (res) => {
          res.setEncoding('utf8');
          let body = '';
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      await expect(get(ca.certPem)).resolves.toBe('ok');
      const other = await loadOrCreateLocalCa(join(dataDir, 'another-checkout'));
      await expect(get(other.certPem)).rejects.toThrow(
        /self[- ]signed|unable to verify|signature/i,
      );
    } finally {
      server.close();
    }
  });
});
