import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstPageScripts, htmlScriptUrls, staticImportSpecifiers } from './first-page-scripts';

describe("the console's first-page scripts", () => {
  it('reads module scripts and modulepreloads, not stylesheets', () => {
    const html = `<script type="module" crossorigin src="/console/assets/index-a.js"></script>
      <link rel="modulepreload" crossorigin href="/console/assets/vendor-b.js">
      <link rel="stylesheet" href="/console/assets/style-c.css">`;
    expect(htmlScriptUrls(html)).toEqual([
      '/console/assets/index-a.js',
      '/console/assets/vendor-b.js',
    ]);
  });

  it('finds static imports and re-exports, not dynamic imports', () => {
    const source =
      'import{a as e}from"./chunk-1.js";import"./side.js";export*from"./re.js";' +
      'const p=()=>import("./lazy.js");x.import("./no.js");';
    expect(staticImportSpecifiers(source)).toEqual(['./chunk-1.js', './side.js', './re.js']);
  });

  it('follows static imports once each and measures them gzipped', () => {
    const folder = mkdtempSync(join(tmpdir(), 'console-size-'));
    try {
      mkdirSync(join(folder, 'assets'));
      writeFileSync(
        join(folder, 'index.html'),
        '<script type="module" src="/console/assets/index.js"></script>',
      );
      writeFileSync(
        join(folder, 'assets', 'index.js'),
        'import"./a.js";import"./b.js";import("./lazy.js");',
      );
      writeFileSync(join(folder, 'assets', 'a.js'), 'import"./b.js";' + 'x'.repeat(1000));
      writeFileSync(join(folder, 'assets', 'b.js'), 'export const b=1;');
      writeFileSync(join(folder, 'assets', 'lazy.js'), 'y'.repeat(5000));
      const sizes = firstPageScripts(folder);
      expect(sizes.map((size) => size.file)).toEqual([
        'assets/index.js',
        'assets/a.js',
        'assets/b.js',
      ]);
      expect(sizes[1].bytes).toBe(1015);
      expect(sizes[1].gzipBytes).toBeLessThan(100);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
