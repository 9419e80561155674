import * as fs from 'node:fs';
import * as path from 'node:path';
import { publicSchema } from '@svc/gateway';
import { brokenCitations } from './cited-paths';
import { coverageSection, readOperations, rootFields, withCoverage } from './operation-coverage';

/**
 * `write`: regenerates the operation coverage table in docs/api.md. `check` (run by `npm test`): fails when that table
 * is stale or a Markdown file cites a repository path that does not exist.
 */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const API_DOC = path.join(ROOT, 'docs', 'api.md');

function apiDocWithCoverage(): string {
  const section = coverageSection(readOperations(path.join(ROOT, 'mesh')), rootFields(publicSchema()));
  return withCoverage(fs.readFileSync(API_DOC, 'utf8'), section);
}

function main(mode: string | undefined): number {
  if (mode === 'write') {
    fs.writeFileSync(API_DOC, apiDocWithCoverage());
    console.log(`wrote the operation coverage table of ${path.relative(ROOT, API_DOC)}`);
    return 0;
  }
  if (mode !== 'check') {
    console.error('usage: main.js write|check');
    return 2;
  }
  let failed = false;
  if (apiDocWithCoverage() !== fs.readFileSync(API_DOC, 'utf8')) {
    console.error('docs/api.md: the operation coverage table is stale; run `npm run docs:operations`');
    failed = true;
  }
  for (const broken of brokenCitations(ROOT)) {
    console.error(`${broken.file}:${broken.line}: ${broken.cited} (${broken.reason})`);
    failed = true;
  }
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv[2]);
