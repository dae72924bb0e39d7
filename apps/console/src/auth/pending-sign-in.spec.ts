import {
  PENDING_SIGN_IN_KEY,
  safeReturnPath,
  savePendingSignIn,
  takePendingSignIn,
} from './pending-sign-in';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe('the pending sign-in', () => {
  it('is read once, then gone', () => {
    const storage = memoryStorage();
    const pending = { state: 's', codeVerifier: 'v', returnTo: '/console/undelivered' };
    savePendingSignIn(storage, pending);
    expect(takePendingSignIn(storage)).toEqual(pending);
    expect(takePendingSignIn(storage)).toBeNull();
    expect(storage.items.size).toBe(0);
  });

  it('is removed even when it cannot be read', () => {
    const storage = memoryStorage();
    storage.setItem(PENDING_SIGN_IN_KEY, '{not json');
    expect(takePendingSignIn(storage)).toBeNull();
    storage.setItem(PENDING_SIGN_IN_KEY, '{"state":1}');
    expect(takePendingSignIn(storage)).toBeNull();
    expect(storage.items.size).toBe(0);
  });

  it('returns only to console paths', () => {
    expect(safeReturnPath('/console/endpoints/wh_1')).toBe('/console/endpoints/wh_1');
    for (const path of [
      'https://evil.example/',
      '//evil.example/',
      '/console//evil',
      '/v1/x',
      '/console/\\x',
      7,
    ]) {
      expect(safeReturnPath(path)).toBe('/console/');
    }
  });
});
