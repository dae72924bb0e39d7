/**
 * Four tiers: unit tests beside the code (*.spec.ts); medium suites over in-memory fakes of the
 * delivery engine's ports, no services (test/medium/*.medium-spec.ts); integration suites against a real
 * PostgreSQL only (test/integration/*.int-spec.ts); end-to-end suites through the apps, real
 * PostgreSQL and real JetStream (test/<area>/*.e2e-spec.ts).
 */
const { compilerOptions } = require('./tsconfig.json');

const moduleNameMapper = {
  ...Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
      `^${alias}$`,
      `<rootDir>/${target}`,
    ]),
  ),
  // kubernetes-models and @kubernetes-models/* (test/deploy's Kubernetes schemas) export their
  // files under the `import` condition only, which Jest's require() does not match: the same
  // files, named directly
  '^kubernetes-models/(.+)$': '<rootDir>/node_modules/kubernetes-models/$1.js',
  '^@kubernetes-models/(apimachinery|prometheus-operator|cert-manager|gateway-api)/(.+)$':
    '<rootDir>/node_modules/@kubernetes-models/$1/$2.js',
  '^@kubernetes-models/(base|validate)$':
    '<rootDir>/node_modules/@kubernetes-models/$1/dist/index.js',
  '^@kubernetes-models/validate/runtime/(.+)$':
    '<rootDir>/node_modules/@kubernetes-models/validate/dist/runtime/$1.js',
};

const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: syntax === 'typescript' ? { syntax, decorators: true } : { syntax },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

/**
 * NestJS 12 and a few of its dependencies ship only as ES modules. Node 20 can require() them, but
 * Jest's module system cannot before Node 24.9, so Jest compiles those packages to CommonJS.
 */
const ESM_ONLY_PACKAGES = [
  '@nestjs',
  'ulid',
  'zod',
  'file-type',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@tokenizer',
  '@borewit',
  'load-esm',
  'jose',
  'oauth4webapi',
  // @fastify/static's (the API serves the console, ADR 0042)
  'content-disposition',
  // test/deploy's Kubernetes schemas (mapped to their files below)
  'kubernetes-models',
  '@kubernetes-models',
  'is-cidr',
  'cidr-regex',
];

const transform = {
  '^.+\\.ts$': swc('typescript'),
  '^.+\\.m?js$': swc('ecmascript'),
};

const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`];

const shared = {
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  rootDir: __dirname,
};

module.exports = {
  maxWorkers: 2,
  // A global option (Jest ignores it per project): end-to-end suites wait on real retries.
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      // Between unit and integration: the engine's orchestration (intake, lanes) over in-memory
      // fakes of its ports (test/medium/fakes), no services.
      ...shared,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
    },
    {
      // The middle tier: one part of the product against a real PostgreSQL, no NATS, no apps.
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // The fault suite (test/faults): only under `npm run test:faults` and `test:faults:short`.
    ...require('./test/faults/jest-project.cjs')(shared),
  ],
};
