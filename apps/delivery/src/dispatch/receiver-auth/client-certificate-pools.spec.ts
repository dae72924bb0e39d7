import type { Agent } from 'undici';
import { ClientCertificateError, ClientCertificatePools } from './client-certificate-pools';

describe('ClientCertificatePools (ADR 0048)', () => {
  const made: Array<{ key: string; closed: boolean }> = [];
  const pools = (max: number) =>
    new ClientCertificatePools(({ poolKey, privateKey }) => {
      if (privateKey === 'bad') {
        throw new Error('key values mismatch');
      }
      const pool = { key: poolKey, closed: false };
      made.push(pool);
      return {
        close: () => {
          pool.closed = true;
          return Promise.resolve();
        },
      } as unknown as Agent;
    }, max);
  const certificate = (poolKey: string, privateKey = 'K') => ({
    poolKey,
    certificate: 'C',
    privateKey,
  });

  beforeEach(() => {
    made.length = 0;
  });

  it('makes one pool per key and closes the least recently used past the cap', async () => {
    const held = pools(2);
    const a = held.agentFor(certificate('a@1'));
    expect(held.agentFor(certificate('a@1'))).toBe(a);
    held.agentFor(certificate('b@1'));
    held.agentFor(certificate('a@1')); // a is now the most recent
    held.agentFor(certificate('c@1'));
    expect(held.size).toBe(2);
    expect(made.map(({ key, closed }) => [key, closed])).toEqual([
      ['a@1', false],
      ['b@1', true],
      ['c@1', false],
    ]);
    await held.close();
    expect(made.every(({ closed }) => closed)).toBe(true);
    expect(held.size).toBe(0);
  });

  it("closes an endpoint's earlier version's pool when its new version makes one, and only its", () => {
    const held = pools(8);
    held.agentFor(certificate('wh_a@1'));
    held.agentFor(certificate('wh_b@1'));
    held.agentFor(certificate('wh_a@2'));
    expect(made.map(({ key, closed }) => [key, closed])).toEqual([
      ['wh_a@1', true],
      ['wh_b@1', false],
      ['wh_a@2', false],
    ]);
    expect(held.size).toBe(2);
  });

  it('remembers a certificate that cannot be used instead of trying it per attempt', () => {
    const held = pools(4);
    let calls = 0;
    for (let i = 0; i < 3; i++) {
      try {
        held.agentFor(certificate('bad@1', 'bad'));
      } catch (error) {
        calls++;
        expect(error).toBeInstanceOf(ClientCertificateError);
        expect((error as Error).message).toBe(
          'the client certificate or its private key cannot be used',
        );
      }
    }
    expect(calls).toBe(3);
    expect(made).toHaveLength(0);
    expect(held.size).toBe(1);
  });
});
