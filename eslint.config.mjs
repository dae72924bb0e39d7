// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import path from 'node:path';

/**
 * The layering of the monorepo (README, "Architecture"), checked on every import, relative or
 * `@svc/...`: libs never import apps; no app imports another (shared code goes into a lib);
 * the domain libs (the event-sourced aggregates, the log, contracts, identity) never import the
 * infrastructure libs (HTTP, messaging, database, platform wiring).
 *
 * Import cycles, type-only imports included, are checked not here but by dpdm (`npm run
 * lint:cycles`, which `npm run lint` runs after ESLint): import-x's no-cycle skips `import type`,
 * and dpdm reads the whole tree in about three seconds.
 */
const DOMAIN_LIBS = new Set([
  'contracts',
  'deliveries',
  'event-store',
  'identity',
  'oauth',
  'secrets',
  'signing',
  'signing-keys',
  'tenants',
  'webhook-endpoints',
  'webhook-receiver',
]);
const INFRASTRUCTURE_LIBS = new Set(['http', 'messaging', 'database', 'platform']);

/** `[top, name]` of what an import names: `['libs', 'deliveries']`, `['apps', 'api']`, or null. */
function layerOf(specifier, fromFile) {
  if (specifier.startsWith('@svc/')) {
    return ['libs', specifier.slice('@svc/'.length).split('/')[0]];
  }
  if (!specifier.startsWith('.')) {
    return null;
  }
  const target = path.relative(
    import.meta.dirname,
    path.resolve(path.dirname(fromFile), specifier),
  );
  const [top, name] = target.split(path.sep);
  return top === 'apps' || top === 'libs' ? [top, name] : null;
}

/**
 * The domain's decision, state, event and rule files (`decide…`, the folds, the event unions, the
 * pure rules; ADR 0021) import no infrastructure: no database driver or ORM, no NATS client, no
 * Nest, and none of the infrastructure libs, wherever they live (libs or an app). Their names say
 * what they are; a file that needs one of these is an adapter and is named as one.
 */
const DOMAIN_RULE_FILES = [
  '{apps,libs}/**/*-decisions.ts',
  '{apps,libs}/**/*-state.ts',
  '{apps,libs}/**/*-events.ts',
  '{apps,libs}/**/*-rules.ts',
  '{apps,libs}/**/rules/**/*.ts',
];
const INFRASTRUCTURE_PACKAGES = [
  'typeorm',
  'typeorm/*',
  'pg',
  'pg/*',
  'pg-*',
  '@nats-io/*',
  '@nestjs/*',
  ...[...INFRASTRUCTURE_LIBS].flatMap((lib) => [`@svc/${lib}`, `@svc/${lib}/*`]),
];

const layering = {
  rules: {
    layers: {
      meta: {
        type: 'problem',
        schema: [],
        docs: { description: 'apps over libs, domain over infrastructure' },
      },
      create(context) {
        const [top, name] = path.relative(import.meta.dirname, context.filename).split(path.sep);
        if (top !== 'apps' && top !== 'libs') {
          return {};
        }
        const check = (node) => {
          const specifier = node.source?.value;
          const target =
            typeof specifier === 'string' ? layerOf(specifier, context.filename) : null;
          if (!target) {
            return;
          }
          const [targetTop, targetName] = target;
          if (top === 'libs' && targetTop === 'apps') {
            context.report({ node, message: `libs never import apps (${specifier})` });
          } else if (top === 'apps' && targetTop === 'apps' && targetName !== name) {
            context.report({
              node,
              message: `no app imports another; move ${specifier} into a lib`,
            });
          } else if (
            top === 'libs' &&
            DOMAIN_LIBS.has(name) &&
            INFRASTRUCTURE_LIBS.has(targetName)
          ) {
            context.report({
              node,
              message: `domain lib ${name} never imports @svc/${targetName}`,
            });
          }
        };
        return {
          ImportDeclaration: check,
          ExportAllDeclaration: check,
          ExportNamedDeclaration: check,
          ImportExpression: check,
        };
      },
    },
  },
};

/** `max-class-lines`: a class declaration or expression spans at most `max` lines. */
const sizes = {
  rules: {
    'max-class-lines': {
      meta: {
        type: 'suggestion',
        schema: [{ type: 'object', properties: { max: { type: 'integer' } } }],
        docs: { description: 'a class at most max lines' },
      },
      create(context) {
        const max = context.options[0]?.max ?? 300;
        const check = (node) => {
          const lines = node.loc.end.line - node.loc.start.line + 1;
          if (lines > max) {
            context.report({
              node,
              message: `class ${node.id?.name ?? '(anonymous)'} is ${lines} lines (at most ${max}): split it by job`,
            });
          }
        };
        return { ClassDeclaration: check, ClassExpression: check };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'node_modules/**',
      '.data/**',
      'jest.config.js',
      'eslint.config.mjs',
      // Generated from the OpenAPI document by openapi-typescript (ADR 0042), not written: its
      // unions follow the document (a nullable variant per auth type repeats `| null`, ADR 0048).
      // tsc still checks it, and the api-types suite that it matches the document served.
      'apps/console/src/api/schema.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-console': 'error',
      'layering/layers': 'error',
      'no-restricted-syntax': [
        'error',
        {
          // `x as unknown as T` silences the compiler instead of telling it something: narrow,
          // use the library's own type, or, where a library leaves no typed way, disable this
          // line with a comment that names the gap
          selector: 'TSAsExpression > TSAsExpression.expression > TSUnknownKeyword.typeAnnotation',
          message: 'no `as unknown as` in product code: narrow, or name the library gap',
        },
      ],
    },
    plugins: { layering },
  },
  {
    // Sizes a reader can take in (issue 29): a file at most 400 lines, a function at most 100, a
    // class at most 300. Tests, benchmarks and migrations (generated SQL) are not held to them.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts'],
    // apps/console/src/api/schema.ts is generated from the OpenAPI document (ADR 0042).
    ignores: ['**/*.spec.ts', '**/migrations/**', 'apps/console/src/api/schema.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 100 }],
      'sizes/max-class-lines': ['error', { max: 300 }],
    },
    plugins: { sizes },
  },
  {
    // The console (ADR 0042): every value the API returns is rendered as text, so no raw HTML
    // by any door; the browser code has no Node globals (vite.config.mts is the exception); and
    // its components (.tsx) are held to the same sizes as the rest.
    files: ['apps/console/**/*.{ts,tsx}'],
    ignores: ['**/*.spec.ts', 'apps/console/src/api/schema.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 100 }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression.expression > TSUnknownKeyword.typeAnnotation',
          message: 'no `as unknown as` in product code: narrow, or name the library gap',
        },
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'the console renders text only: no dangerouslySetInnerHTML (ADR 0042)',
        },
        {
          selector: "Property[key.name='dangerouslySetInnerHTML']",
          message: 'the console renders text only: no dangerouslySetInnerHTML (ADR 0042)',
        },
        {
          selector: 'MemberExpression[property.name=/^(innerHTML|outerHTML)$/]',
          message: 'the console renders text only: no innerHTML or outerHTML (ADR 0042)',
        },
        {
          selector:
            'CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln|createContextualFragment|parseFromString)$/]',
          message: 'the console renders text only: no HTML parsing or writing (ADR 0042)',
        },
      ],
    },
  },
  {
    files: ['apps/console/src/**/*.{ts,tsx}'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', '__dirname', 'global'].map((name) => ({
          name,
          message: 'browser code: no Node globals',
        })),
        ...['localStorage', 'sessionStorage', 'indexedDB'].map((name) => ({
          name,
          message: 'credentials live in memory only (ADR 0042): no web storage',
        })),
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'document',
          property: 'cookie',
          message: 'credentials live in memory only (ADR 0042): no cookie',
        },
      ],
    },
  },
  {
    files: DOMAIN_RULE_FILES,
    ignores: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: INFRASTRUCTURE_PACKAGES,
              message:
                'a decision, state, event or rule file is pure domain: no typeorm, pg, @nats-io, @nestjs or infrastructure lib (put the adapter beside it)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'off',
      'no-restricted-syntax': 'off',
    },
  },
  {
    // Plain CommonJS that runs before anything is compiled (tools/build).
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly', process: 'readonly' },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  prettier,
);
