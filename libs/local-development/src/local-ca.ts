// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

// Node's Web Crypto is the standard API the library takes. Its parameter is the DOM's `Crypto`,
// which this project (no DOM lib) does not declare, so no cast is needed nor would one check more.
x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
/** Long enough never to expire under a developer; the CA exists only in one checkout's .data/. */
const CA_LIFETIME_DAYS = 3650;
/** Server certificates are made afresh at every `svc listen`, so they need not live long. */
const SERVER_LIFETIME_DAYS = 30;

/**
 * The certificate authority of one checkout's local stack: made once under `.data/local-ca`,
 * trusted by the engine that `npm start` runs, and used by `svc listen` to serve HTTPS. It is
 * trusted nowhere else: no production configuration names it.
 */
export interface LocalCa {
  certFile: string;
  certPem: string;
  keyPem: string;
}

export interface ServerCertificate {
  /** The server certificate followed by the CA's, as a TLS server sends its chain. */
  certPem: string;
  keyPem: string;
}

/** Where the CA of the local stack whose state is in `dataDir` keeps its files. */
export function localCaFiles(dataDir: string): { dir: string; certFile: string; keyFile: string } {
  const dir = join(dataDir, 'local-ca');
  return { dir, certFile: join(dir, 'ca.pem'), keyFile: join(dir, 'ca-key.pem') };
}

/** Returns the checkout's CA, making it on first use. */
export async function loadOrCreateLocalCa(dataDir: string): Promise<LocalCa> {
  const files = localCaFiles(dataDir);
  const existing = await readCa(files.certFile, files.keyFile);
  if (existing) {
    return existing;
  }
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=svc webhooks local development CA (${hostname()}), O=svc webhooks`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_LIFETIME_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const ca = {
    certFile: files.certFile,
    certPem: certificate.toString('pem'),
    keyPem: await privateKeyPem(keys.privateKey),
  };
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  try {
    // The key first: a certificate without its key would look complete to the next reader.
    await writeFile(files.keyFile, ca.keyPem, { mode: 0o600, flag: 'wx' });
    await writeFile(files.certFile, ca.certPem, { mode: 0o644, flag: 'wx' });
  } catch (error) {
    // Another process made it in the meantime: its CA wins, or the engine and listener disagree.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return waitForCa(files.certFile, files.keyFile);
    }
    throw error;
  }
  return ca;
}

/** A certificate for a loopback HTTPS server (localhost, 127.0.0.1, ::1), signed by the CA. */
export async function issueLoopbackServerCertificate(ca: LocalCa): Promise<ServerCertificate> {
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', pemBody(ca.keyPem), ALGORITHM, false, [
    'sign',
  ]);
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=localhost, O=svc webhooks local development',
    issuer: caCertificate.subject,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + SERVER_LIFETIME_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate),
    ],
  });
  return {
    certPem: `${certificate.toString('pem')}\n${ca.certPem}`,
    keyPem: await privateKeyPem(keys.privateKey),
  };
}

async function readCa(certFile: string, keyFile: string): Promise<LocalCa | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([
      readFile(certFile, 'utf8'),
      readFile(keyFile, 'utf8'),
    ]);
    return { certFile, certPem, keyPem };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

async function waitForCa(certFile: string, keyFile: string): Promise<LocalCa> {
  for (let tries = 0; tries < 50; tries++) {
    const ca = await readCa(certFile, keyFile);
    if (ca) {
      return ca;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${certFile} was being created by another process and did not appear`);
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/** Positive, 16 random bytes (RFC 5280 4.1.2.2 allows up to 20). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}
