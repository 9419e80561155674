import { expect } from 'chai';
import { FlowStatus, FlowTriggerType } from '@svc/proto/flows/v1';
import { FLOWS_TOPIC, flowChangedEvent } from '../src/domain/events';

describe('Flows.flowChangedEvent', () => {
  const flow = {
    id: 'f'.repeat(24),
    orgId: 'o'.repeat(24),
    status: FlowStatus.DRAFT,
    triggerType: FlowTriggerType.WEBHOOK_RECEIVED,
    connectionId: 'a'.repeat(24),
  };
  const published = { ...flow, status: FlowStatus.PUBLISHED };

  it('names the connection when a webhook flow is published or unpublished', () => {
    const up = flowChangedEvent(flow, published);
    expect(up).to.deep.include({ topic: FLOWS_TOPIC, key: flow.id, type: 'flow.published', orgId: flow.orgId });
    expect(up?.payload.flow?.connectionIds).to.deep.equal([flow.connectionId]);
    const down = flowChangedEvent(published, flow);
    expect(down?.type).to.equal('flow.unpublished');
    expect(down?.payload.flow?.connectionIds).to.deep.equal([flow.connectionId]);
  });

  it('names both connections when a published flow moves, and none for a chat-started flow', () => {
    const moved = flowChangedEvent(published, { ...published, connectionId: 'b'.repeat(24) });
    expect(moved?.type).to.equal('flow.updated');
    expect(moved?.payload.flow?.connectionIds).to.deep.equal(['a'.repeat(24), 'b'.repeat(24)]);
    const chat = { ...published, triggerType: FlowTriggerType.STARTED_FOR_CHAT, connectionId: null };
    expect(flowChangedEvent(chat, chat)?.payload.flow?.connectionIds).to.deep.equal([]);
  });

  it('emits nothing for a draft edited as a draft', () => {
    expect(flowChangedEvent(flow, { ...flow, connectionId: 'b'.repeat(24) })).to.equal(undefined);
  });
});
