import { generateKeyPairSync } from 'node:crypto';
import { publicJwkOf } from '@svc/signing';
import { JwksFetch, jwksKeySource, JWKS_MIN_REFETCH_INTERVAL_MS } from './jwks-key-source';

const URL = 'https://api.example.test/.well-known/webhook-signing-keys.json';

const jwkOf = (kid: string) => publicJwkOf(generateKeyPairSync('ed25519').publicKey, kid);

/** A JWKS server whose answer the test changes, counting the fetches. */
function fakeJwks(initial: { keys: unknown[] }, cacheControl: string | null = null) {
  const state = {
    body: initial as unknown,
    cacheControl,
    failing: false as false | 'network' | 'status' | 'garbage',
    fetches: 0,
  };
  const fetch: JwksFetch = (url) => {
    state.fetches += 1;
    expect(url).toBe(URL);
    if (state.failing === 'network') {
      return Promise.reject(new TypeError('fetch failed'));
    }
    return Promise.resolve({
      ok: state.failing !== 'status',
      status: state.failing === 'status' ? 503 : 200,
      headers: { get: (name) => (name === 'cache-control' ? state.cacheControl : null) },
      json: () => Promise.resolve(state.failing === 'garbage' ? { nope: true } : state.body),
    });
  };
  return { state, fetch };
}

function fakeClock(start = 1_000_000) {
  const clock = { ms: start, now: () => clock.ms };
  return clock;
}

describe('jwksKeySource', () => {
  const first = jwkOf('whk_first');
  const second = jwkOf('whk_second');

  it('fetches once, then serves the cached keys until they are stale (5 min by default)', async () => {
    const { state, fetch } = fakeJwks({ keys: [first] });
    const clock = fakeClock();
    const source = jwksKeySource(URL, { fetch, now: clock.now });

    expect(await source.keys()).toEqual([first]);
    clock.ms += 4 * 60_000;
    await source.keys();
    expect(state.fetches).toBe(1);
    clock.ms += 60_000;
    await source.keys();
    expect(state.fetches).toBe(2);
  });

  it('keeps keys for the max-age of the answer when it gives one', async () => {
    const { state, fetch } = fakeJwks({ keys: [first] }, 'public, max-age=60');
    const clock = fakeClock();
    const source = jwksKeySource(URL, { fetch, now: clock.now });

    await source.keys();
    clock.ms += 59_000;
    await source.keys();
    expect(state.fetches).toBe(1);
    clock.ms += 1_000;
    await source.keys();
    expect(state.fetches).toBe(2);
  });

  it('makes one fetch for requests that arrive together', async () => {
    const { state, fetch } = fakeJwks({ keys: [first] });
    const source = jwksKeySource(URL, { fetch });
    await Promise.all([source.keys(), source.keys(), source.keys()]);
    expect(state.fetches).toBe(1);
  });

  it('refetches for an unknown key (a rotation) at most once per 30 s', async () => {
    const { state, fetch } = fakeJwks({ keys: [first] });
    const clock = fakeClock();
    const source = jwksKeySource(URL, { fetch, now: clock.now });
    await source.keys();

    // Within 30 s of the last fetch: no new fetch, however many forged signatures arrive.
    state.body = { keys: [second, first] };
    expect(await source.refreshForUnknownKey()).toBe(false);
    expect(state.fetches).toBe(1);

    clock.ms += JWKS_MIN_REFETCH_INTERVAL_MS;
    expect(await source.refreshForUnknownKey()).toBe(true);
    expect(await source.keys()).toEqual([second, first]);
    expect(state.fetches).toBe(2);

    // The same set again: nothing changed, so there is nothing new to verify with.
    clock.ms += JWKS_MIN_REFETCH_INTERVAL_MS;
    expect(await source.refreshForUnknownKey()).toBe(false);
  });

  it.each(['network', 'status', 'garbage'] as const)(
    'keeps the cached keys through a JWKS outage (%s), retrying no sooner than 30 s',
    async (failure) => {
      const { state, fetch } = fakeJwks({ keys: [first] });
      const clock = fakeClock();
      const source = jwksKeySource(URL, { fetch, now: clock.now });
      await source.keys();

      state.failing = failure;
      clock.ms += 5 * 60_000;
      expect(await source.keys()).toEqual([first]);
      expect(state.fetches).toBe(2);
      clock.ms += 10_000;
      expect(await source.keys()).toEqual([first]);
      expect(await source.refreshForUnknownKey()).toBe(false);
      expect(state.fetches).toBe(2);

      state.failing = false;
      state.body = { keys: [second] };
      clock.ms += JWKS_MIN_REFETCH_INTERVAL_MS;
      expect(await source.keys()).toEqual([second]);
    },
  );

  it('resolves to no keys when the JWKS was never reachable, without rejecting', async () => {
    const { state, fetch } = fakeJwks({ keys: [first] });
    state.failing = 'network';
    const source = jwksKeySource(URL, { fetch });
    await expect(source.keys()).resolves.toEqual([]);
    await expect(source.refreshForUnknownKey()).resolves.toBe(false);
  });

  it('gives up on a fetch slower than its timeout', async () => {
    const hanging: JwksFetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const source = jwksKeySource(URL, { fetch: hanging, timeoutMs: 20 });
    await expect(source.keys()).resolves.toEqual([]);
  });

  it('skips entries of the set that are not objects', async () => {
    const { fetch } = fakeJwks({ keys: [null, 'x', 3, first] });
    expect(await jwksKeySource(URL, { fetch }).keys()).toEqual([first]);
  });
});
