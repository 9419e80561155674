import { ok, type Route } from './route';

type Json = Record<string, unknown>;

/** Scrubbed headers travel as JSON text in the proto. */
function requestLogOutput(row: Json): Json {
  const { headersJson, ...rest } = row;
  return {
    ...rest,
    headers: typeof headersJson === 'string' ? JSON.parse(headersJson) : {},
    flowIds: row.flowIds ?? [],
  };
}

function connectionOutput(row: Json): Json {
  const schema = (row.payloadSchema ?? {}) as Json;
  return { ...row, payloadSchema: { version: 0, ...schema, fields: schema.fields ?? [] } };
}

const byId = (method: string): Route => ({ service: 'webhooks', method, response: connectionOutput });

export const webhookRoutes: Record<string, Route> = {
  inboundConnections: {
    service: 'webhooks',
    method: 'ListInboundConnections',
    response: (r) => ((r.connections as Json[] | undefined) ?? []).map(connectionOutput),
  },
  inboundConnection: byId('GetInboundConnection'),
  inboundConnectionHistory: {
    service: 'webhooks',
    method: 'ListInboundConnectionHistory',
    request: (a) => ({ id: a.id, outcome: (a.filter as Json | undefined)?.outcome, input: a.input }),
    response: (page) => ({ ...page, data: ((page.data as Json[] | undefined) ?? []).map(requestLogOutput) }),
  },
  createInboundConnection: byId('CreateInboundConnection'),
  updateInboundConnection: byId('UpdateInboundConnection'),
  rotateInboundConnectionSecret: byId('RotateInboundConnectionSecret'),
  pauseInboundConnection: byId('PauseInboundConnection'),
  resumeInboundConnection: byId('ResumeInboundConnection'),
  captureInboundConnectionSchema: byId('CaptureInboundConnectionSchema'),
  injectInboundConnectionPayload: {
    ...byId('InjectInboundConnectionPayload'),
    request: (a) => ({ id: a.id, payloadJson: JSON.stringify(a.payload) }),
  },
  deleteInboundConnection: { service: 'webhooks', method: 'DeleteInboundConnection', response: ok },
};
