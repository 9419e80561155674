import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import { answerCommands, demoPage } from '../src/demo-page';

describe('Stack.demoPage (/demo)', () => {
  it('embeds the demo integration with loader.js and shows the answer commands without a credential', () => {
    const page = demoPage({ publicKey: 'wpk_demo', demoEnvFile: '.data/demo.env' });
    expect(page).to.contain('<script async src="/widget/loader.js" data-public-key="wpk_demo"></script>');
    expect(page).to.contain('sendMessage');
    expect(page).not.to.contain('svc_');
  });

  it('mounts nothing without a seeded demo', () => {
    expect(demoPage({ publicKey: undefined, demoEnvFile: '.data/demo.env' })).not.to.contain('loader.js');
  });

  it("are the README quick start's commands", () => {
    const readme = fs.readFileSync(path.resolve(__dirname, '../../../../README.md'), 'utf8');
    expect(readme).to.contain(answerCommands('.data/demo.env'));
  });
});
