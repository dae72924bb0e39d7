import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheControlFor, consoleRelativePath, isConsoleFile } from './console-files';

describe('consoleRelativePath', () => {
  it.each([
    ['', ''],
    ['?code=1', ''],
    ['index.html', 'index.html'],
    ['assets/app-abc123.js', 'assets/app-abc123.js'],
    ['callback?code=a&state=b', 'callback'],
    ['endpoints/wh_123/', 'endpoints/wh_123/'],
    ['event-types/alert.created', 'event-types/alert.created'],
    ['caf%C3%A9', 'café'],
  ])('takes %p as %p', (raw, expected) => {
    expect(consoleRelativePath(raw)).toBe(expected);
  });

  it.each([
    '..',
    '../package.json',
    'assets/../../package.json',
    '%2e%2e/package.json',
    '..%2Fpackage.json',
    'assets/..%5c..%5cpackage.json',
    'a\\b',
    './index.html',
    '/etc/passwd',
    'assets//app.js',
    '.env',
    'assets/.hidden',
    'x%00.js',
    '%E0%A4%A',
  ])('refuses %p', (raw) => {
    expect(consoleRelativePath(raw)).toBeNull();
  });
});

describe('cacheControlFor', () => {
  it('caches hashed assets for a year, never index.html, and revalidates the rest', () => {
    expect(cacheControlFor('assets/app-abc123.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlFor('index.html')).toBe('no-store');
    expect(cacheControlFor('theme.css')).toBe('no-cache');
  });
});

describe('isConsoleFile', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'console-files-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html>');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('is true for a regular file only', async () => {
    expect(await isConsoleFile(root, 'index.html')).toBe(true);
    expect(await isConsoleFile(root, 'assets')).toBe(false);
    expect(await isConsoleFile(root, 'assets/')).toBe(false);
    expect(await isConsoleFile(root, '')).toBe(false);
    expect(await isConsoleFile(root, 'missing.js')).toBe(false);
  });
});
