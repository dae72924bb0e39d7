import { createUser } from '@nats-io/nkeys';
import { connect } from '@nats-io/transport-node';
import { loadConfig, loadNatsConfig } from '@svc/config';
import { NatsConnectionManager, natsConnectOptions } from '@svc/messaging';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as netConnect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';

/**
 * Issue 11: the apps and `svc events publish` reach a secured NATS. This starts its own
 * nats-server (the machine's, /usr/sbin/nats-server) on a free port with TLS that requires a
 * client certificate (server and client certificates from the test CA of test/fixtures/tls) and
 * authorization by user and password or by NKey, then connects with natsConnectOptions, the one
 * function every NATS connection of the service is made with.
 */

const TLS = resolve(__dirname, '../fixtures/tls');
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

let work: string;
let server: ChildProcess;
let url: string;
let seedFile: string;
let clientCert: string;
let clientKey: string;
const CA = join(TLS, 'ca.pem');

function issueClientCertificate(directory: string): { cert: string; key: string } {
  return issueCertificate(
    directory,
    'client',
    'svc-test-client',
    'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n',
  );
}

/** A certificate from the test CA: `extensions` in openssl's x509 extension file syntax. */
function issueCertificate(
  directory: string,
  name: string,
  commonName: string,
  extensions: string,
): { cert: string; key: string } {
  const key = join(directory, `${name}-key.pem`);
  const csr = join(directory, `${name}.csr`);
  const ext = join(directory, `${name}.ext`);
  const cert = join(directory, `${name}.pem`);
  execFileSync(
    'openssl',
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key],
    { stdio: 'ignore' },
  );
  execFileSync('openssl', ['req', '-new', '-key', key, '-subj', `/CN=${commonName}`, '-out', csr], {
    stdio: 'ignore',
  });
  writeFileSync(ext, extensions);
  execFileSync(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      CA,
      '-CAkey',
      join(TLS, 'ca-key.pem'),
      '-CAcreateserial',
      '-CAserial',
      join(directory, 'ca.srl'),
      '-days',
      '2',
      '-extfile',
      ext,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-nats-security-'));
  ({ cert: clientCert, key: clientKey } = issueClientCertificate(work));
  const user = createUser();
  seedFile = join(work, 'svc.nk');
  writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
  const port = await freePort();
  const config = join(work, 'nats.conf');
  writeFileSync(
    config,
    `listen: "127.0.0.1:${port}"
tls {
  cert_file: "${join(TLS, 'server.pem')}"
  key_file: "${join(TLS, 'server-key.pem')}"
  ca_file: "${CA}"
  verify: true
}
authorization {
  users: [
    { user: "svc", password: "correct horse" }
    { nkey: "${user.getPublicKey()}" }
  ]
}
`,
  );
  server = spawn(NATS_SERVER, ['-c', config], { stdio: 'ignore' });
  url = `tls://localhost:${port}`;
  await waitFor(
    async () =>
      new Promise<boolean>((done) => {
        const socket = netConnect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), done(true)));
        socket.once('error', () => done(false));
      }),
    { what: 'nats-server with TLS and authorization to listen' },
  );
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((done) => server.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

const TLS_ENV = () => ({
  NATS_TLS_CA_FILE: CA,
  NATS_TLS_CERT_FILE: clientCert,
  NATS_TLS_KEY_FILE: clientKey,
});

function tryConnect(env: Record<string, string>): Promise<string> {
  return tryConnectTo(url, env);
}

async function tryConnectTo(natsUrl: string, env: Record<string, string>): Promise<string> {
  const natsSettings = loadNatsConfig({ NATS_URL: natsUrl, ...env }).nats;
  try {
    // A TLS handshake and the server's answer can take seconds on a loaded machine (a 3 s
    // timeout once turned a refusal into "timeout" in CI): what is checked is the answer.
    const connection = await connect(
      natsConnectOptions(natsSettings, 'svc-test', { timeout: 10_000, maxReconnectAttempts: 0 }),
    );
    await connection.flush();
    await connection.close();
    return 'connected';
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe('a NATS with TLS (client certificates) and authorization', () => {
  it('accepts a user and password over TLS with the client certificate', async () => {
    expect(
      await tryConnect({ ...TLS_ENV(), NATS_USER: 'svc', NATS_PASSWORD: 'correct horse' }),
    ).toBe('connected');
  });

  it('accepts an NKey seed file over TLS with the client certificate', async () => {
    expect(await tryConnect({ ...TLS_ENV(), NATS_NKEY_SEED_FILE: seedFile })).toBe('connected');
  });

  it('refuses a wrong password and no credentials at all', async () => {
    expect(await tryConnect({ ...TLS_ENV(), NATS_USER: 'svc', NATS_PASSWORD: 'wrong' })).toMatch(
      /^refused: .*(Authorization|authorization)/,
    );
    expect(await tryConnect(TLS_ENV())).toMatch(/^refused: .*(Authorization|authorization)/);
  });

  it('refuses an NKey the server does not know', async () => {
    const stranger = join(work, 'stranger.nk');
    writeFileSync(stranger, new TextDecoder().decode(createUser().getSeed()));
    expect(await tryConnect({ ...TLS_ENV(), NATS_NKEY_SEED_FILE: stranger })).toMatch(
      /^refused: .*(Authorization|authorization)/,
    );
  });

  it('fails without the CA that signed the server certificate (verification stays on)', async () => {
    const withoutCa: Record<string, string> = { ...TLS_ENV() };
    delete withoutCa.NATS_TLS_CA_FILE;
    expect(
      await tryConnect({ ...withoutCa, NATS_USER: 'svc', NATS_PASSWORD: 'correct horse' }),
    ).toMatch(/^refused: /);
  });

  it('fails without a client certificate when the server requires one', async () => {
    expect(
      await tryConnect({ NATS_TLS_CA_FILE: CA, NATS_USER: 'svc', NATS_PASSWORD: 'correct horse' }),
    ).toMatch(/^refused: /);
  });

  it("is how the apps' connection manager connects (NATS_* variables through loadConfig)", async () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      NATS_URL: url,
      NATS_NKEY_SEED_FILE: seedFile,
      ...TLS_ENV(),
    });
    const manager = new NatsConnectionManager({ settings: config.nats, name: 'svc-test-app' });
    try {
      const connection = await Promise.race([
        manager.connected(),
        new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no connection')), 10_000)),
      ]);
      await expect(manager.check()).resolves.toBeUndefined();
      expect(connection.info?.tls_required ?? connection.info?.tls_verify).toBeTruthy();
    } finally {
      await manager.onApplicationShutdown();
    }
  });
});

/**
 * Issue 29, part 8, item 5: a server reached by IP address, whose certificate names that address
 * (an IP subjectAltName) and no host name. Each server here requires TLS but no client
 * certificate or credentials; its certificate is made for the test.
 */
describe('a NATS with TLS reached by IP address', () => {
  const servers: { port: number; process: ChildProcess }[] = [];

  async function startTlsServer(subjectAltName: string): Promise<number> {
    const name = `server-${servers.length}`;
    const { cert, key } = issueCertificate(
      work,
      name,
      'svc-test-nats',
      `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=${subjectAltName}\n`,
    );
    const port = await freePort();
    const config = join(work, `${name}.conf`);
    writeFileSync(
      config,
      `listen: "127.0.0.1:${port}"\ntls {\n  cert_file: "${cert}"\n  key_file: "${key}"\n}\n`,
    );
    servers.push({ port, process: spawn(NATS_SERVER, ['-c', config], { stdio: 'ignore' }) });
    await waitFor(
      async () =>
        new Promise<boolean>((done) => {
          const socket = netConnect(port, '127.0.0.1');
          socket.once('connect', () => (socket.destroy(), done(true)));
          socket.once('error', () => done(false));
        }),
      { what: `nats-server with TLS (${subjectAltName}) to listen` },
    );
    return port;
  }

  let byAddress: number;
  let elsewhere: number;
  let byName: number;
  beforeAll(async () => {
    byAddress = await startTlsServer('IP:127.0.0.1');
    elsewhere = await startTlsServer('IP:192.0.2.10');
    byName = await startTlsServer('DNS:localhost');
  });
  afterAll(async () => {
    for (const { process: running } of servers) {
      if (running.exitCode === null) {
        const exited = new Promise((done) => running.once('exit', done));
        running.kill('SIGTERM');
        await exited;
      }
    }
  });

  const connectTo = (natsUrl: string) => tryConnectTo(natsUrl, { NATS_TLS_CA_FILE: CA });

  it('connects to tls://127.0.0.1 when the certificate names 127.0.0.1', async () => {
    expect(await connectTo(`tls://127.0.0.1:${byAddress}`)).toBe('connected');
  });

  it('refuses a certificate made out to another address', async () => {
    expect(await connectTo(`tls://127.0.0.1:${elsewhere}`)).toMatch(/^refused: /);
  });

  it('refuses, by IP, a certificate that names only localhost (no longer taken for it)', async () => {
    expect(await connectTo(`tls://127.0.0.1:${byName}`)).toMatch(/^refused: /);
  });

  it('checks a server named by host name against that name, as before', async () => {
    expect(await connectTo(`tls://localhost:${byName}`)).toBe('connected');
    expect(await connectTo(`tls://localhost:${byAddress}`)).toMatch(/^refused: /);
  });
});

describe('NATS settings from the environment', () => {
  it('reads a token, a credentials file and TLS into the connect options', () => {
    const token = natsConnectOptions(
      loadNatsConfig({ NATS_URL: 'nats://a:4222', NATS_TOKEN: 's3cret' }).nats,
      'x',
    );
    expect(token).toMatchObject({ servers: ['nats://a:4222'], name: 'x', token: 's3cret' });

    const user = createUser();
    const jwt = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln';
    const creds = join(work, 'svc.creds');
    writeFileSync(
      creds,
      `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`,
    );
    const options = natsConnectOptions(loadNatsConfig({ NATS_CREDS_FILE: creds }).nats, 'x');
    const nonce = 'abc123';
    const answer = (
      options.authenticator as unknown as (nonce?: string) => Record<string, unknown>
    )(nonce);
    expect(answer).toMatchObject({ jwt, nkey: user.getPublicKey() });
    expect(typeof answer.sig).toBe('string');

    expect(natsConnectOptions(loadNatsConfig({ NATS_TLS_CA_FILE: CA }).nats, 'x').tls).toEqual({
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
      checkServerIdentity: expect.any(Function),
    });
  });

  it('names the variable of a file it cannot read', () => {
    expect(() =>
      natsConnectOptions(loadNatsConfig({ NATS_NKEY_SEED_FILE: '/nonexistent/seed.nk' }).nats, 'x'),
    ).toThrow(/^NATS_NKEY_SEED_FILE: cannot read \/nonexistent\/seed\.nk/);
  });

  it('refuses two ways to authenticate, a user without a password and a certificate without its key', () => {
    expect(() => loadNatsConfig({ NATS_TOKEN: 't', NATS_NKEY_SEED_FILE: '/x' })).toThrow(
      /choose one way to authenticate, not NATS_NKEY_SEED_FILE and NATS_TOKEN/,
    );
    expect(() => loadNatsConfig({ NATS_USER: 'svc' })).toThrow(/give both or neither/);
    expect(() => loadNatsConfig({ NATS_TLS_CERT_FILE: '/c.pem' })).toThrow(/needs its key/);
  });
});
