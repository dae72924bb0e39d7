import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/**
 * The console's build (ADR 0042): `vite build --config apps/console/vite.config.mts` writes
 * dist/console/ with hashed file names, served by the API at /console/. Everything it emits must
 * pass the console's CSP (script-src 'self'; style-src 'self'): no inline script or style, so no
 * modulepreload polyfill (Vite inlines it) and no asset inlined as a data: script.
 */
const consoleFolder = new URL('.', import.meta.url).pathname;
const outDir = new URL('../../dist/console/', import.meta.url).pathname;

const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

/**
 * Writes a .br and a .gz beside every text file of the build, once, at build time: the API
 * serves them to browsers that accept them (@fastify/static's preCompressed), so the console
 * travels compressed (80 KB of script as 25 KB) with no compression work per request.
 */
function precompress(): Plugin {
  const visit = (folder: string): string[] =>
    readdirSync(folder).flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory() ? visit(path) : [path];
    });
  return {
    name: 'svc-console-precompress',
    apply: 'build',
    closeBundle() {
      for (const path of visit(outDir).filter((file) => COMPRESSIBLE.test(file))) {
        const content = readFileSync(path);
        writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(content, {
            params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
          }),
        );
      }
    },
  };
}

export default defineConfig({
  root: consoleFolder,
  base: '/console/',
  publicDir: 'public',
  // Preact's automatic JSX runtime through Vite's own transform (Oxc): no Babel, no plugin.
  // Production JSX and libraries whatever NODE_ENV says: under Jest (NODE_ENV=test) Vite would
  // otherwise build the development variants, a third larger.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  plugins: [precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    // Images and fonts are files, never data: URLs inside scripts or styles.
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: false,
  },
  // `npm run console:dev`: the API's routes through the dev server, so that a portal link minted
  // by the API on :8080 opens on :5173 (user sign-in needs the API's own origin, its redirect URI).
  server: {
    port: 5173,
    strictPort: true,
    proxy: { '/v1': 'http://localhost:8080', '/console/config.json': 'http://localhost:8080' },
  },
});
