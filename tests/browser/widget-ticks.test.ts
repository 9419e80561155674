import { expect } from 'chai';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { ApiScope } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetFixtures } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { launcher, serveWidget, until, widgetPage } from './widget-support';

interface Handshake {
  chat: { _id: string };
}

/** The upload's pace under throttling: 512 KiB at 64 KiB/s takes about eight seconds, time to watch the bar move. */
const UPLOAD_BYTES = 512 * 1024;
const UPLOAD_BYTES_PER_SECOND = 64 * 1024;

/**
 * What the visitor sees of their own messages and files (element on a page of another origin than the stack): the
 * delivery mark of a message as the team reads it, and the progress bar of an upload.
 */
describe('svc-widget delivery marks and upload progress (Chromium, stack on another origin)', function () {
  const harness = new StackHarness();
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let publicKey: string;
  let context: BrowserContext | undefined;

  before(async function () {
    this.timeout(180_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    serveWidget(host);
    org = await harness.newOrg('Widget ticks');
    const created = await new WidgetFixtures(harness, org).integration({ allowedOrigins: { origins: [host.origin] } });
    publicKey = created.integration.publicKey;
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
  });

  /** A fresh visitor with the chat open; the chat id comes from the handshake once a message started it. */
  async function openChat() {
    context = await browser.context();
    const page = await context.newPage();
    const handshakes: Handshake[] = [];
    page.on('response', async (response: Response) => {
      if (/\/visitor\/(start-anonymous|start-identified|refresh)$/.test(response.url()) && response.ok()) {
        handshakes.push((await response.json()) as Handshake);
      }
    });
    const url = widgetPage(host, `/ticks-${Math.random().toString(36).slice(2)}.html`, {
      attributes: { 'public-key': publicKey, api: harness.url },
    });
    await page.goto(url);
    await (await launcher(page)).click();
    const chatId = () => {
      const last = handshakes.at(-1);
      if (!last) throw new Error('no handshake yet');
      return last.chat._id;
    };
    return { page, chatId };
  }

  const log = (page: Page) => page.getByRole('log', { name: 'Conversation' });
  const mine = (page: Page, text: string) => log(page).locator('article.mine', { hasText: text });

  it("moves the visitor's message from Sent (✓) to Read (✓✓) when the team reads the chat over GraphQL", async () => {
    const { page, chatId } = await openChat();
    await page.getByRole('textbox', { name: 'Message' }).fill('Is my order on its way?');
    await page.keyboard.press('Enter');
    const sent = mine(page, 'Is my order on its way?').getByRole('img', { name: 'Sent' });
    await sent.waitFor();
    expect(await sent.textContent()).to.equal('✓');

    // An integration of the team (an API key, as a help-desk tool would hold) reads the chat.
    const key = (await org.mintKey([ApiScope.CONVERSATIONS_MANAGE], 'help desk')).key;
    const read = await harness.graphql<{ readAllMessages: { _id: string } }>(
      'mutation($c: String!) { readAllMessages(chatId: $c) { _id } }',
      { c: chatId() },
      key,
    );
    expect(read.body.errors, JSON.stringify(read.body.errors)).to.equal(undefined);

    const readMark = mine(page, 'Is my order on its way?').getByRole('img', { name: 'Read' });
    await readMark.waitFor();
    expect(await readMark.textContent()).to.equal('✓✓');
    expect(await mine(page, 'Is my order on its way?').getByRole('img', { name: 'Sent' }).count()).to.equal(0);
  });

  it('shows a progress bar named after the file that rises while it uploads, then the attachment', async () => {
    const { page } = await openChat();
    const network = await page.context().newCDPSession(page);
    await network.send('Network.enable');
    await network.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: UPLOAD_BYTES_PER_SECOND,
    });

    await page.getByLabel('Attach a file').setInputFiles({
      name: 'catalogue.txt',
      mimeType: 'text/plain',
      buffer: Buffer.alloc(UPLOAD_BYTES, 'spring catalogue, page after page\n'),
    });
    const bar = page.getByRole('progressbar', { name: 'catalogue.txt' });
    await bar.waitFor();
    const values: number[] = [];
    // Sampled until the bar is gone (evaluateAll does not wait for it): each value as the visitor saw it then.
    await until(async () => {
      const now = await bar.evaluateAll((bars) => bars.map((element) => (element as HTMLProgressElement).value));
      values.push(...now);
      expect(now).to.deep.equal([]);
    }, 60_000);

    expect(
      values.some((value) => value > 0 && value < 100),
      `values seen: ${values.join(', ')}`,
    ).to.equal(true);
    expect(values, 'never goes back').to.deep.equal([...values].sort((a, b) => a - b));
    await mine(page, 'catalogue.txt').getByRole('link', { name: 'catalogue.txt' }).waitFor();
  });
});
