import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { ApiScope, PrincipalKind, newId, principalFor, rejection, unary, callerMetadata } from '@svc/kit';
import {
  FlowStatus,
  FlowStepType,
  FlowTriggerType,
  type FlowInput,
  type FlowStep,
  type FlowsServiceClient,
} from '@svc/proto/flows/v1';
import { startFlowsWithPeers, type OrgPeers } from './org-peers';

/** Every id a flow stores is one of the org's, asked of its owner (docs/decisions/0042). */
describe('FlowsService (references stay inside the org)', () => {
  let client: FlowsServiceClient;
  let peers: OrgPeers;
  let stop: () => Promise<void>;

  before(async () => {
    ({ client, peers, stop } = await startFlowsWithPeers());
  });

  after(() => stop());

  const member = (orgId: string) => callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
  const key = (orgId: string) =>
    callerMetadata(principalFor(PrincipalKind.API_KEY, orgId, [ApiScope.CONVERSATIONS_MANAGE]), 'flows');
  const webhookTrigger = (connectionId: string) => ({ type: FlowTriggerType.WEBHOOK_RECEIVED, connectionId });
  const chatTrigger = { type: FlowTriggerType.STARTED_FOR_CHAT };
  const labelling = (...labels: string[]): FlowStep[] => [
    { type: FlowStepType.ADD_NOTE, text: 'tagging' },
    ...labels.map((label) => ({ type: FlowStepType.ADD_LABEL, label })),
  ];
  const create = (orgId: string, input: Partial<FlowInput>) =>
    unary(
      client.createFlow.bind(client),
      { input: { name: 'f', trigger: chatTrigger, steps: [], replaceSteps: false, ...input } },
      member(orgId),
    );
  const update = (orgId: string, flowId: string, input: Partial<FlowInput>) =>
    unary(
      client.updateFlow.bind(client),
      { flowId, input: { steps: [], replaceSteps: false, ...input } },
      member(orgId),
    );
  const refusal = async (call: Promise<unknown>) => {
    const error = await rejection(call);
    return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0], details: error.details };
  };
  const listed = async (orgId: string) =>
    (await unary(client.listFlows.bind(client), {}, member(orgId))).flows.map((flow) => flow._id);

  /** Another org's real object and an id nobody has: the refusals must not tell them apart. */
  const strangers = async (make: (orgId: string) => Promise<string>) => [await make(newId()), newId()];

  describe('FlowsService.CreateFlow / UpdateFlow (Webhook Received trigger)', () => {
    const notFound = {
      code: status.NOT_FOUND,
      field: 'trigger.connectionId',
      details: 'trigger.connectionId names no inbound connection of this org',
    };

    it("keeps a trigger naming one of the org's connections", async () => {
      const orgId = newId();
      const connectionId = await peers.newConnection(orgId);
      const flow = await create(orgId, { trigger: webhookTrigger(connectionId) });
      expect(flow.trigger?.connectionId).to.equal(connectionId);
    });

    it("answers NOT_FOUND for another org's connection exactly as for an unknown one, storing nothing", async () => {
      const orgId = newId();
      const kept = await create(orgId, {});
      for (const connectionId of await strangers((org) => peers.newConnection(org))) {
        expect(await refusal(create(orgId, { trigger: webhookTrigger(connectionId) }))).to.deep.equal(notFound);
        expect(await refusal(update(orgId, kept._id, { trigger: webhookTrigger(connectionId) }))).to.deep.equal(
          notFound,
        );
      }
      expect(await listed(orgId)).to.deep.equal([kept._id]);
      const current = await unary(client.getFlow.bind(client), { flowId: kept._id }, member(orgId));
      expect([current.trigger?.type, current.version]).to.deep.equal([FlowTriggerType.STARTED_FOR_CHAT, 1]);
    });

    it('answers FAILED_PRECONDITION naming the trigger when publishing a draft whose connection was deleted since', async () => {
      const orgId = newId();
      const connectionId = await peers.newConnection(orgId);
      const flow = await create(orgId, { trigger: webhookTrigger(connectionId), steps: labelling() });
      await peers.deleteConnection(orgId, connectionId);
      expect(
        await refusal(unary(client.publishFlow.bind(client), { flowId: flow._id }, member(orgId))),
      ).to.deep.include({ code: status.FAILED_PRECONDITION, field: 'trigger.connectionId' });
    });
  });

  describe('FlowsService.CreateFlow / UpdateFlow / PublishFlow (add-a-label steps)', () => {
    const notFound = {
      code: status.NOT_FOUND,
      field: 'steps[2]',
      details: 'steps[2] adds a label that is not one of this org',
    };

    it("keeps steps naming the org's labels and publishes them", async () => {
      const orgId = newId();
      const [a, b] = [await peers.newLabel(orgId), await peers.newLabel(orgId)];
      const flow = await create(orgId, { steps: labelling(a, b) });
      expect(flow.steps.map((step) => step.label)).to.deep.equal([undefined, a, b]);
      const published = await unary(client.publishFlow.bind(client), { flowId: flow._id }, member(orgId));
      expect(published.status).to.equal(FlowStatus.PUBLISHED);
    });

    it("answers NOT_FOUND naming the step for another org's label exactly as for an unknown one, storing nothing", async () => {
      const orgId = newId();
      const own = await peers.newLabel(orgId);
      const kept = await create(orgId, { steps: labelling(own) });
      for (const label of await strangers((org) => peers.newLabel(org))) {
        expect(await refusal(create(orgId, { steps: labelling(own, label) }))).to.deep.equal(notFound);
        const replacing = { steps: labelling(own, label), replaceSteps: true };
        expect(await refusal(update(orgId, kept._id, replacing))).to.deep.equal(notFound);
      }
      expect(await listed(orgId)).to.deep.equal([kept._id]);
      const current = await unary(client.getFlow.bind(client), { flowId: kept._id }, member(orgId));
      expect(current.steps.map((step) => step.label)).to.deep.equal([undefined, own]);
    });
  });

  describe('FlowsService.StartFlowForChat / StopFlowForChat', () => {
    async function publishedChatFlow(orgId: string) {
      const flow = await create(orgId, { steps: [{ type: FlowStepType.WAIT, waitSeconds: 3600 }] });
      await unary(client.publishFlow.bind(client), { flowId: flow._id }, member(orgId));
      return flow._id;
    }
    const start = (orgId: string, chatId: string, flowId: string) =>
      unary(client.startFlowForChat.bind(client), { chatId, flowId }, key(orgId));
    const stopFor = (orgId: string, chatId: string, flowId: string) =>
      unary(client.stopFlowForChat.bind(client), { chatId, flowId }, key(orgId));

    it("answers NOT_FOUND for another org's chat exactly as for an unknown one, starting and stopping nothing", async () => {
      const orgId = newId();
      const flowId = await publishedChatFlow(orgId);
      const theirs = await peers.newChat(newId());
      const [other, unknown] = [theirs, newId()];
      const answers = async (chatId: string) => [
        await refusal(start(orgId, chatId, flowId)),
        await refusal(stopFor(orgId, chatId, flowId)),
      ];
      const [forOther, forUnknown] = [await answers(other), await answers(unknown)];
      expect(forOther.map((a) => a.code)).to.deep.equal([status.NOT_FOUND, status.NOT_FOUND]);
      expect(forOther).to.deep.equal(forUnknown);
      const runs = await unary(client.listFlowRuns.bind(client), { flowId, input: { limit: 10 } }, member(orgId));
      expect(runs.data).to.deep.equal([]);
    });

    it("answers NOT_FOUND for an unknown flow or another org's, also where the chat is the caller's", async () => {
      const orgId = newId();
      const chatId = await peers.newChat(orgId);
      for (const flowId of [newId(), await publishedChatFlow(newId())]) {
        expect((await refusal(start(orgId, chatId, flowId))).code).to.equal(status.NOT_FOUND);
        expect((await refusal(stopFor(orgId, chatId, flowId))).code).to.equal(status.NOT_FOUND);
      }
    });

    it("stops the flow's runs in one of the org's chats", async () => {
      const orgId = newId();
      const [chatId, flowId] = [await peers.newChat(orgId), await publishedChatFlow(orgId)];
      await start(orgId, chatId, flowId);
      expect((await stopFor(orgId, chatId, flowId)).stopped).to.equal(1);
    });
  });
});
