/**
 * The fault suite as a Jest project (jest.config.js takes it from here). It exists only when
 * FAULTS_SUBSET is set, which `npm run test:faults` (all) and `npm run test:faults:short` (the
 * CI subset) do: so `npm test` never runs it (only `faults-ledger`, the ledger's unit tests). It
 * starts processes and servers of its own and kills them, so it runs serially (--runInBand) with
 * long per-test timeouts.
 */
const { resolve } = require('node:path');

/** The scenarios CI runs (about two minutes on a 2-core machine). */
const SHORT_SUBSET = ['kill-9-three-times', 'sigterm-under-load', 'postgres-restarted'];

module.exports = function faultsProjects(shared) {
  // The ledger's own unit tests (made-up runs, no processes): with every `npm test`, since a
  // checker that cannot fail would pass every scenario.
  const ledgerTests = {
    ...shared,
    displayName: 'faults-ledger',
    testMatch: [resolve(__dirname, 'harness/*.spec.ts')],
  };
  const subset = process.env.FAULTS_SUBSET;
  if (!subset) {
    return [ledgerTests];
  }
  if (subset !== 'all' && subset !== 'short') {
    throw new Error(`FAULTS_SUBSET must be "all" or "short", not "${subset}"`);
  }
  const scenarios = resolve(__dirname, 'scenarios');
  return [
    ledgerTests,
    {
      ...shared,
      displayName: 'faults',
      testMatch:
        subset === 'all'
          ? [`${scenarios}/*.fault-spec.ts`]
          : SHORT_SUBSET.map((name) => `${scenarios}/${name}.fault-spec.ts`),
      globalSetup: resolve(__dirname, 'harness/global-setup.ts'),
      globalTeardown: resolve(__dirname, 'harness/global-teardown.ts'),
    },
  ];
};
