import { expect } from 'chai';
import { END_MARKER, START_MARKER, coverageSection, withCoverage, type OperationRow } from './operation-coverage';

const row = (operation: string, scope: string, table: OperationRow['table'] = 'spec'): OperationRow => ({
  operation,
  kind: 'Q',
  scope,
  also: '',
  table,
});

describe('operation coverage table', () => {
  const rows = [row('chat', 'MESSAGES_READ'), row('channels', 'CHANNELS_MANAGE'), row('login', 'PUBLIC', 'local')];

  it('counts and marks the operations the public schema exposes, and names root fields with no row', () => {
    const section = coverageSection(rows, new Set(['chat', 'login', 'stray']));
    expect(section).to.contain('**1 of the 2 operations**');
    expect(section).to.contain('1 of the 1 operations this project adds');
    expect(section).to.contain('| `chat` | Q | MESSAGES_READ |  | yes |');
    expect(section).to.contain('| `channels` | Q | CHANNELS_MANAGE |  | no |');
    expect(section).to.contain('no row in either table (refused with 403): `stray`');
  });

  it('replaces only the text between the markers, so a changed table makes the document differ', () => {
    const document = `# API\n\n${START_MARKER}\nold\n${END_MARKER}\n\nafter\n`;
    const fresh = withCoverage(document, coverageSection(rows, new Set(['chat'])));
    expect(fresh).to.match(/^# API\n\n<!-- operations:start -->/);
    expect(fresh).to.match(/<!-- operations:end -->\n\nafter\n$/);
    expect(withCoverage(fresh, coverageSection(rows, new Set(['chat'])))).to.equal(fresh);
    expect(withCoverage(fresh, coverageSection(rows, new Set(['chat', 'channels'])))).to.not.equal(fresh);
    expect(() => withCoverage('# API\n', 'x')).to.throw(/operations:start/);
  });
});
