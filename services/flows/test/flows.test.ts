import { expect } from 'chai';
import { status, type ServiceError } from '@grpc/grpc-js';
import {
  ApiScope,
  EmbeddedBus,
  KafkaBus,
  listDeadLetters,
  PrincipalKind,
  eventually,
  grpcServerDuration,
  newId,
  systemPrincipal,
  unary,
  principalFor,
  rejection,
  callerMetadata,
} from '@svc/kit';
import type { IdentityForTests } from '@svc/identity';
import { Envelope } from '@svc/proto/events/v1';
import { FlowStatus, FlowStepType, FlowTriggerType, type Flow, type FlowsServiceClient } from '@svc/proto/flows/v1';
import { renderTemplate, type FlowsApp } from '../src';
import { startFlowsWithPeers, type OrgPeers } from './org-peers';

/**
 * How many FindMembers calls identity has answered, read from its own gRPC call metrics (one registry per process,
 * shared by every app this test starts).
 */
async function findMembersCalls(): Promise<number> {
  const { values } = await grpcServerDuration.get();
  return values
    .filter(
      (v) =>
        v.metricName === 'svc_grpc_server_handling_seconds_count' &&
        v.labels.service === 'identity' &&
        v.labels.method === 'findMembers',
    )
    .reduce((sum, v) => sum + v.value, 0);
}

/** A webhook.received event naming `flow`, as webhook-ingress publishes it. */
function webhookReceived(orgId: string, flow: Flow): Envelope {
  return {
    id: newId(),
    type: 'webhook.received',
    orgId,
    occurredAt: new Date().toISOString(),
    requestContext: {},
    webhookReceived: {
      requestId: newId(),
      connectionId: flow.trigger?.connectionId ?? '',
      contactId: newId(),
      chatId: newId(),
      payloadJson: '{}',
      flowIds: [flow._id],
    },
  };
}

describe('FlowsService', () => {
  let app: FlowsApp;
  let client: FlowsServiceClient;
  let identity: IdentityForTests;
  let peers: OrgPeers;
  let stop: () => Promise<void>;

  before(async () => {
    ({ app, client, peers, stop } = await startFlowsWithPeers());
    identity = peers.identity;
  });

  after(() => stop());

  const newOrg = () => identity.newOrg();

  async function publishedFlow(orgId: string) {
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
    const flow = await unary(
      client.createFlow.bind(client),
      {
        input: {
          name: 'f',
          trigger: { type: FlowTriggerType.WEBHOOK_RECEIVED, connectionId: await peers.newConnection(orgId) },
          // A wait first: the run is created and parks, so no other service is needed here.
          steps: [{ type: FlowStepType.WAIT, waitSeconds: 3600 }],
          replaceSteps: false,
        },
      },
      member,
    );
    await unary(client.publishFlow.bind(client), { flowId: flow._id }, member);
    return flow;
  }

  describe('FlowsService.CreateFlow', () => {
    it('refuses an API key whatever its scopes (flow authoring is dashboard only)', async () => {
      const key = principalFor(PrincipalKind.API_KEY, newId(), [ApiScope.CONVERSATIONS_MANAGE]);
      const error = await unary(
        client.createFlow.bind(client),
        { input: { name: 'x', steps: [], replaceSteps: false } },
        callerMetadata(key, 'flows'),
      ).catch((e: ServiceError) => e);
      expect((error as ServiceError).code).to.equal(status.PERMISSION_DENIED);
    });

    it('answers INVALID_ARGUMENT for an add-a-label step that names no label id, and keeps one that does', async () => {
      const orgId = newId();
      const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
      const create = (label: string | undefined) =>
        unary(
          client.createFlow.bind(client),
          {
            input: {
              name: 'label it',
              trigger: { type: FlowTriggerType.STARTED_FOR_CHAT },
              steps: [{ type: FlowStepType.ADD_LABEL, label }],
              replaceSteps: false,
            },
          },
          member,
        );
      for (const label of [undefined, 'vip', `${newId()}0`]) {
        const error = await create(label).catch((e: ServiceError) => e);
        expect((error as ServiceError).code, String(label)).to.equal(status.INVALID_ARGUMENT);
      }
      const labelId = await peers.newLabel(orgId);
      expect((await create(labelId)).steps[0]).to.include({ type: FlowStepType.ADD_LABEL, label: labelId });
    });
  });

  describe('FlowsService.CreateFlow / UpdateFlow / PublishFlow (assign steps)', () => {
    const member = (orgId: string) => callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
    const assigning = (...assigneeIds: string[]) => [
      { type: FlowStepType.ADD_NOTE, text: 'routing' },
      ...assigneeIds.map((assigneeId) => ({ type: FlowStepType.ASSIGN, assigneeId })),
    ];
    const create = (orgId: string, steps: ReturnType<typeof assigning>) =>
      unary(
        client.createFlow.bind(client),
        { input: { name: 'route', trigger: { type: FlowTriggerType.STARTED_FOR_CHAT }, steps, replaceSteps: false } },
        member(orgId),
      );
    const update = (orgId: string, flowId: string, steps: ReturnType<typeof assigning>) =>
      unary(client.updateFlow.bind(client), { flowId, input: { steps, replaceSteps: true } }, member(orgId));
    const publish = (orgId: string, flowId: string) =>
      unary(client.publishFlow.bind(client), { flowId }, member(orgId));
    const refusal = async (call: Promise<unknown>) => {
      const error = await rejection(call);
      return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0], details: error.details };
    };

    it('keeps assign steps whose assignees are members of the org, asking identity once for all of them', async () => {
      const org = await newOrg();
      const [a, b] = [await org.addMember(), await org.addMember()];
      const before = await findMembersCalls();
      const flow = await create(org.id, assigning(a, b, a));
      expect(flow.steps.map((s) => s.assigneeId)).to.deep.equal([undefined, a, b, a]);
      expect((await findMembersCalls()) - before).to.equal(1);
    });

    it('answers NOT_FOUND naming the step for an assignee that is no member of the org, creating nothing', async () => {
      const org = await newOrg();
      const stranger = await (await newOrg()).addMember();
      expect(await refusal(create(org.id, assigning(await org.addMember(), stranger)))).to.deep.equal({
        code: status.NOT_FOUND,
        field: 'steps[2]',
        details: 'steps[2] assigns someone who is not a member of this org',
      });
      const listed = await unary(client.listFlows.bind(client), {}, member(org.id));
      expect(listed.flows).to.deep.equal([]);
    });

    it('answers NOT_FOUND for an update that assigns a non-member, keeping the steps it had', async () => {
      const org = await newOrg();
      const kept = await org.addMember();
      const flow = await create(org.id, assigning(kept));
      expect((await refusal(update(org.id, flow._id, assigning(newId())))).code).to.equal(status.NOT_FOUND);
      const current = await unary(client.getFlow.bind(client), { flowId: flow._id }, member(org.id));
      expect(current.steps.map((s) => s.assigneeId)).to.deep.equal([undefined, kept]);
    });

    it('answers FAILED_PRECONDITION naming the step when publishing a draft whose assignee was removed since', async () => {
      const org = await newOrg();
      const leaving = await org.addMember();
      const flow = await create(org.id, assigning(leaving));
      await org.removeMember(leaving);
      expect(await refusal(publish(org.id, flow._id))).to.deep.include({
        code: status.FAILED_PRECONDITION,
        field: 'steps[1]',
      });
      const current = await unary(client.getFlow.bind(client), { flowId: flow._id }, member(org.id));
      expect(current.status).to.equal(FlowStatus.DRAFT);
      const replacement = await org.addMember();
      await update(org.id, flow._id, assigning(replacement));
      expect((await publish(org.id, flow._id)).status).to.equal(FlowStatus.PUBLISHED);
    });

    it('asks identity nothing for a flow without assign steps', async () => {
      const orgId = newId();
      const before = await findMembersCalls();
      const flow = await create(orgId, assigning());
      await publish(orgId, flow._id);
      expect(await findMembersCalls()).to.equal(before);
    });
  });

  describe('FlowsService.ListWebhookFlows', () => {
    it('returns the published flows of the connection to services only', async () => {
      const orgId = newId();
      const flow = await publishedFlow(orgId);
      const found = await unary(
        client.listWebhookFlows.bind(client),
        { connectionId: flow.trigger?.connectionId ?? '' },
        callerMetadata(systemPrincipal(orgId), 'flows'),
      );
      expect(found.flows.map((f) => f.flowId)).to.deep.equal([flow._id]);
    });
  });

  describe('webhook.received consumer', () => {
    it('runs each named flow once per event id, also when the event is delivered twice', async () => {
      const orgId = newId();
      const flow = await publishedFlow(orgId);
      const envelope = webhookReceived(orgId, flow);
      const record = {
        topic: `${app.config.KAFKA_TOPIC_PREFIX}svc.webhooks.received.v1`,
        key: envelope.webhookReceived?.connectionId ?? '',
        value: Buffer.from(Envelope.encode(envelope).finish()),
      };
      // A distinct event published after the duplicate, with the same key (same partition, delivered in order): once
      // its run exists, the duplicate has certainly been consumed.
      const sentinel: Envelope = {
        ...envelope,
        id: newId(),
        webhookReceived: {
          ...(envelope.webhookReceived as NonNullable<Envelope['webhookReceived']>),
          requestId: newId(),
        },
      };
      await app.bus.publish([record]);
      await app.bus.publish([record]);
      await app.bus.publish([{ ...record, value: Buffer.from(Envelope.encode(sentinel).finish()) }]);
      const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
      const runs = await eventually(async () => {
        const page = await unary(client.listFlowRuns.bind(client), { flowId: flow._id, input: { limit: 10 } }, member);
        return page.data.some((run) => run.requestId === sentinel.webhookReceived?.requestId) ? page : undefined;
      });
      expect(runs.data.map((run) => run.requestId).sort()).to.deep.equal(
        [envelope.webhookReceived?.requestId, sentinel.webhookReceived?.requestId].sort(),
      );
    });
  });

  describe('webhook.received consumer, batched', () => {
    it('runs each event of a backlog once, also when the backlog holds an event twice or one already handled', async () => {
      const orgId = newId();
      const flow = await publishedFlow(orgId);
      const event = (): Envelope => {
        const envelope = webhookReceived(orgId, flow);
        // Another org's flow id next to the org's own: never run.
        envelope.webhookReceived?.flowIds.push(newId());
        return envelope;
      };
      const topic = `${app.config.KAFKA_TOPIC_PREFIX}svc.webhooks.received.v1`;
      const record = (envelope: Envelope) => ({
        topic,
        key: flow.trigger?.connectionId ?? '',
        value: Buffer.from(Envelope.encode(envelope).finish()),
      });
      const [first, second, last] = [event(), event(), event()];
      await app.bus.publish([record(first)]);
      // One publish, consumed as a backlog (one batch on the embedded bus): a redelivery of `first`, `second` twice.
      await app.bus.publish([record(second), record(first), record(second), record(last)]);
      const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
      const runs = await eventually(async () => {
        const page = await unary(client.listFlowRuns.bind(client), { flowId: flow._id, input: { limit: 10 } }, member);
        return page.data.some((run) => run.requestId === last.webhookReceived?.requestId) ? page : undefined;
      });
      expect(runs.data.map((run) => run.requestId).sort()).to.deep.equal(
        [first, second, last].map((e) => e.webhookReceived?.requestId).sort(),
      );
    });
  });

  describe('webhook.received consumer, poison record', () => {
    it('dead-letters a record it cannot decode to <topic>.dlq and goes on with the events after it', async () => {
      const orgId = newId();
      const flow = await publishedFlow(orgId);
      const topic = `${app.config.KAFKA_TOPIC_PREFIX}svc.webhooks.received.v1`;
      const key = flow.trigger?.connectionId ?? '';
      const envelope = webhookReceived(orgId, flow);
      const poisonId = newId();
      // A length-delimited field announcing 16 bytes and carrying one: Envelope.decode throws.
      const poison = { topic, key, value: Buffer.from([0x0a, 0x10, 0x41]), headers: { 'event-id': poisonId } };
      await app.bus.publish([poison, { topic, key, value: Buffer.from(Envelope.encode(envelope).finish()) }]);
      const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'flows');
      await eventually(async () => {
        const page = await unary(client.listFlowRuns.bind(client), { flowId: flow._id, input: { limit: 10 } }, member);
        return page.data.some((run) => run.requestId === envelope.webhookReceived?.requestId);
      });
      const bus = app.bus;
      if (!(bus instanceof EmbeddedBus || bus instanceof KafkaBus)) throw new Error(`unexpected bus ${bus.kind}`);
      const letters = await eventually(async () => {
        const all = await listDeadLetters(bus, topic);
        return all.some((l) => l.eventId === poisonId) && all;
      });
      const letter = letters.find((l) => l.eventId === poisonId);
      expect(letter).to.include({ topic, group: `${app.config.KAFKA_TOPIC_PREFIX}flows.webhook-received` });
      expect(letter?.error).to.match(/premature EOF|index out of range|invalid/i);
      expect(letter?.record.value).to.deep.equal(poison.value);
    });
  });

  describe('renderTemplate', () => {
    it('renders payload values by path and a missing field as null', () => {
      const payload = { order: { id: 'A-1', items: [{ sku: 'S' }] }, n: 3 };
      expect(renderTemplate('{{webhook.order.id}} {{ webhook.order.items[0].sku }} {{webhook.n}}', payload)).to.equal(
        'A-1 S 3',
      );
      expect(renderTemplate('x={{webhook.nope.deeper}}', payload)).to.equal('x=null');
      expect(renderTemplate('{{webhook.order.items}}', payload)).to.equal('[{"sku":"S"}]');
    });
  });
});
