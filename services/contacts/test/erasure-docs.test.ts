import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERASURE_PARTICIPANTS } from '@svc/kit';
import { CONTACTS_KINDS } from '../src/domain/erasure/own-part';

/** The rows of docs/erasure.md's "What each service erases" table: service → its kinds as written. */
function erasureTable(): Map<string, string[]> {
  const text = fs.readFileSync(path.resolve(__dirname, '../../../../docs/erasure.md'), 'utf8');
  const section = text.split('## What each service erases')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| service'));
  return new Map(
    rows.map((row) => {
      const [service = '', kinds = ''] = row
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return [service, [...kinds.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? '')];
    }),
  );
}

describe('docs/erasure.md: the table of what each service erases', () => {
  it('names every participant, in the order of ERASURE_PARTICIPANTS', () => {
    expect([...erasureTable().keys()]).to.deep.equal([...ERASURE_PARTICIPANTS]);
  });

  it("lists contacts' kinds as its part counts them", () => {
    expect(erasureTable().get('contacts')).to.deep.equal([...CONTACTS_KINDS]);
  });
});
