import { safeExternalUrl } from './safe-url';

describe('links to URLs the API gives', () => {
  it('keeps http(s) URLs', () => {
    expect(safeExternalUrl('https://app.example.com/settings')).toBe(
      'https://app.example.com/settings',
    );
    expect(safeExternalUrl('http://localhost:3000/x')).toBe('http://localhost:3000/x');
  });

  it('refuses every other scheme and non-URLs', () => {
    for (const url of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,x',
      '/relative',
      '',
      null,
      undefined,
    ]) {
      expect(safeExternalUrl(url)).toBeNull();
    }
  });
});
