import { expect } from 'chai';
import {
  EmbeddedBus,
  checkServiceOrgPart,
  eventually,
  newId,
  publishOrgEraseConfirmation,
  publishOrgEraseRequest,
  testOrgErasure,
} from '@svc/kit';
import { widgetData } from '../src/data';
import { WIDGET_ORG_ROWS, widgetOrgPart } from '../src/domain/org-erasure';
import { subscribeFeed } from '../src/realtime/feed';
import type { RealtimeHub } from '../src/realtime/hub';

describe('widget-api: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decision 0221)', () => {
  it('deletes every row of the org in every table, nothing of another org, and confirms zeros again', async () => {
    await checkServiceOrgPart(widgetData, WIDGET_ORG_ROWS, () => widgetOrgPart({}));
  });

  it("ends an org's streams on its deprovisioning request and on widget-api's confirmation, on every replica", async () => {
    const bus = new EmbeddedBus();
    await bus.start();
    const ended: string[] = [];
    const subscription = await subscribeFeed(bus, '', {
      hub: { changed: () => undefined, typing: () => undefined } as unknown as RealtimeHub,
      channelChanged: () => undefined,
      contactErased: () => undefined,
      orgErased: (orgId) => ended.push(orgId),
    });
    try {
      const [requested, confirmedHere, confirmedElsewhere] = [newId(), newId(), newId()];
      await publishOrgEraseConfirmation(bus, '', testOrgErasure(confirmedElsewhere), 'inbox', []);
      await publishOrgEraseRequest(bus, '', testOrgErasure(requested));
      await publishOrgEraseConfirmation(bus, '', testOrgErasure(confirmedHere), 'widget-api', []);
      await eventually(() => Promise.resolve(ended.length >= 2));
      // Each org is its own key: the order between them is not kept.
      expect(ended.sort()).to.deep.equal([requested, confirmedHere].sort());
    } finally {
      await subscription.stop();
      await bus.stop();
    }
  });
});
