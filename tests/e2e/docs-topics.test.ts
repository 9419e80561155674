import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import { ORG_ERASURE_TOPIC } from '@svc/kit';
import { sharedStack } from '../support/shared-stack';
import type { StackHarness } from '../support/stack-harness';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');
const TOPIC = /`(svc\.[a-z-]+\.[a-z-]+\.v1)`/g;

/**
 * The topics the docs list are the ones the services publish: each app's `publishes` (created at start on Kafka) is
 * the one source, plus the org erasure topic of the kit's contract, which every org erasure participant writes its
 * confirmations to.
 */
describe('docs: the Kafka topics listed are the ones the services publish', () => {
  let harness: StackHarness;
  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
  });

  const published = () =>
    [...new Set([...harness.stack.apps.flatMap((app) => app.spec.publishes), ORG_ERASURE_TOPIC])].sort();

  it('docs/architecture.md: one row of the topics table per topic', () => {
    const rows = [...read('docs/architecture.md').matchAll(/^ *\| `(svc\.[a-z-]+\.[a-z-]+\.v1)`/gm)].map((m) => m[1]);
    expect(rows.sort()).to.deep.equal(published());
  });

  it('docs/deploy.md: the list under "What runs"', () => {
    const guide = read('docs/deploy.md');
    const start = guide.indexOf('Kafka topics (names prefixed');
    expect(start, 'docs/deploy.md has its topic list').to.be.greaterThan(0);
    const paragraph = guide.slice(start, guide.indexOf('\n\n', start));
    expect([...new Set([...paragraph.matchAll(TOPIC)].map((m) => m[1]))].sort()).to.deep.equal(published());
  });
});
