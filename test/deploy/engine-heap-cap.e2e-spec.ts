import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEPLOYED_ENGINE_NODE_ARGS } from '../bench/bench-settings';

/**
 * The bench measures the engine as it is deployed: the heap cap of the delivery container
 * (deploy/kubernetes/base/delivery.yaml) is the bench's default engine option.
 */
describe('the engine heap cap', () => {
  it('is the same in the delivery container and in the bench', () => {
    const text = readFileSync(
      resolve(__dirname, '../../deploy/kubernetes/base/delivery.yaml'),
      'utf8',
    );
    const documents = parseAllDocuments(text).map((document) => document.toJS() as unknown);
    const deployment = documents.find(
      (
        document,
      ): document is {
        kind: string;
        spec: { template: { spec: { containers: { name: string; command: string[] }[] } } };
      } => (document as { kind?: string }).kind === 'Deployment',
    );
    const engine = deployment?.spec.template.spec.containers.find(
      (container) => container.name === 'delivery',
    );
    expect(engine?.command).toEqual([
      'node',
      ...DEPLOYED_ENGINE_NODE_ARGS.split(' '),
      'dist/apps/delivery/src/main.js',
    ]);
  });
});
