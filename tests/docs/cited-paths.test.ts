import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { brokenCitations } from './cited-paths';

describe('cited repository paths in Markdown', () => {
  let root: string;

  /** A small repository: files that exist, a .gitignore'd build folder, and Markdown citing them. */
  function write(file: string, text = ''): void {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cited-paths-'));
    write('.gitignore', 'dist/\n.data/\n');
    write('docs/api.md');
    write('docs/decisions/0006-gateway-composition.md');
    write('mesh/src/routes/index.ts');
    write('services/inbox/src/app.ts');
    write('node_modules/pkg/README.md', '`docs/nowhere.md`');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const cited = () => brokenCitations(root).map((b) => `${b.file}:${b.line} ${b.cited} (${b.reason})`);

  it('accepts paths that exist, placeholders, abbreviated decisions, build output and prose', () => {
    write(
      'README.md',
      [
        'See `docs/api.md`, [the API](docs/api.md#scopes), `docs/decisions/0006` and `mesh/src/routes/`.',
        'Run `node services/<name>/dist/src/main.js` or `services/*/src/app.ts`; data in `.data/demo.env`.',
        'Send `application/json` to `/graphql`; packages `svc.inbox.v1`; [site](https://example.com).',
        'The spec sits beside the checkout (`../shared/spec/operations.tsv`, outside this repository).',
        '```sh',
        'cat `docs/not-checked-in-a-fence.md`',
        '```',
      ].join('\n'),
    );
    write('mesh/README.md', 'Routes in `src/routes/` (`src/routes/index.ts`), documented in `../docs/api.md`.');
    expect(cited()).to.deep.equal([]);
  });

  it('reports a made-up path, a removed file and a link that leaves the repository', () => {
    write('README.md', 'See `docs/made-up.md` and [the shared design](../shared/ARCHITECTURE.md).');
    write('mesh/README.md', 'Routes: `src/routes.ts`.');
    write('services/inbox/README.md', 'Tests: `tests/e2e/never-existed.test.ts`, [guide](../../docs/gone.md).');
    write('tests/e2e/.keep');
    expect(cited()).to.deep.equal([
      'README.md:1 ../shared/ARCHITECTURE.md (outside the repository)',
      'README.md:1 docs/made-up.md (missing)',
      'mesh/README.md:1 src/routes.ts (missing)',
      'services/inbox/README.md:1 ../../docs/gone.md (missing)',
      'services/inbox/README.md:1 tests/e2e/never-existed.test.ts (missing)',
    ]);
  });
});
