import { Finding, lintInMemory as lint } from './lint-in-memory';

/**
 * The lint configuration (eslint.config.mjs) keeps infrastructure out of the domain's decision,
 * state, event and rule files.
 */
const RESTRICTED = '@typescript-eslint/no-restricted-imports';

const INFRASTRUCTURE_IMPORTS = [
  "import { DataSource } from 'typeorm';",
  "import type { EntityManager } from 'typeorm';",
  "import { Pool } from 'pg';",
  "import { connect } from '@nats-io/transport-node';",
  "import type { JsMsg } from '@nats-io/jetstream';",
  "import { Injectable } from '@nestjs/common';",
  "import { HttpProblem } from '@svc/http';",
];

const DOMAIN_FILES = [
  'libs/deliveries/src/lint-probe-decisions.ts',
  'libs/deliveries/src/lint-probe-state.ts',
  'libs/webhook-endpoints/src/lint-probe-events.ts',
  'apps/delivery/src/intake/lanes/lint-probe-rules.ts',
  'libs/oauth/src/rules/lint-probe.ts',
  'libs/deliveries/src/rules/nested/lint-probe.ts',
];

const ADAPTER_FILES = [
  'libs/deliveries/src/lint-probe-store.ts',
  'apps/delivery/src/recording/lint-probe-recorder.ts',
  // the rules' own tests are not domain code
  'libs/oauth/src/rules/lint-probe.spec.ts',
];

function probesOf(files: string[]) {
  return files.flatMap((filePath) =>
    INFRASTRUCTURE_IMPORTS.map((line) => ({ filePath, source: `${line}\nexport {};\n` })),
  );
}

describe('lint: no infrastructure in the domain files', () => {
  // one child process for every probe: ESLint loads the configuration once
  let domain: Finding[][];
  let adapters: Finding[][];
  let plain: Finding[][];
  beforeAll(() => {
    const found = lint([
      ...probesOf(DOMAIN_FILES),
      ...probesOf(ADAPTER_FILES),
      {
        filePath: 'libs/deliveries/src/lint-probe-decisions.ts',
        source: "import { isScope } from '@svc/contracts';\nexport const pure = isScope;\n",
      },
    ]);
    domain = found.slice(0, DOMAIN_FILES.length * INFRASTRUCTURE_IMPORTS.length);
    adapters = found.slice(domain.length, found.length - 1);
    plain = found.slice(found.length - 1);
  }, 60_000);

  it('refuses typeorm, pg, @nats-io/*, @nestjs/* and infrastructure libs in decision, state, event and rule files', () => {
    expect(domain).toHaveLength(DOMAIN_FILES.length * INFRASTRUCTURE_IMPORTS.length);
    domain.forEach((findings, i) => {
      const file = DOMAIN_FILES[Math.floor(i / INFRASTRUCTURE_IMPORTS.length)];
      const line = INFRASTRUCTURE_IMPORTS[i % INFRASTRUCTURE_IMPORTS.length];
      const refused = findings.filter((f) => f.ruleId === RESTRICTED);
      expect({ file, line, refused: refused.length }).toEqual({ file, line, refused: 1 });
      expect(refused[0].message).toMatch(/pure domain/);
    });
  });

  it('allows them in adapters and in the rules’ tests', () => {
    expect(adapters).toHaveLength(ADAPTER_FILES.length * INFRASTRUCTURE_IMPORTS.length);
    for (const findings of adapters) {
      expect(findings.filter((f) => f.ruleId === RESTRICTED)).toEqual([]);
    }
  });

  it('allows the domain libs in a decision file', () => {
    expect(plain).toEqual([[]]);
  });
});
