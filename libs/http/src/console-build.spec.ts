import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtConsoleDirectory, consoleSourceDirectory, packageRootAbove } from './console-build';

describe("the console's folders", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'console-root-'));
    await writeFile(join(root, 'package.json'), '{}');
    await mkdir(join(root, 'dist', 'libs', 'http', 'src'), { recursive: true });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('are found beside the nearest package.json, from the sources or from dist/', () => {
    expect(builtConsoleDirectory(join(root, 'libs', 'http', 'src'))).toBe(
      join(root, 'dist', 'console'),
    );
    expect(builtConsoleDirectory(join(root, 'dist', 'libs', 'http', 'src'))).toBe(
      join(root, 'dist', 'console'),
    );
    expect(consoleSourceDirectory(join(root, 'dist', 'libs', 'http', 'src'))).toBe(
      join(root, 'apps', 'console'),
    );
  });

  it('are in this repository when running from it', () => {
    const repository = join(__dirname, '..', '..', '..');
    expect(packageRootAbove(__dirname)).toBe(repository);
    expect(builtConsoleDirectory()).toBe(join(repository, 'dist', 'console'));
  });

  it('has no package root above the filesystem root', () => {
    expect(packageRootAbove('/')).toBeNull();
  });
});
