import type { Route } from './route';

type Json = Record<string, unknown>;

/**
 * The public input lists origins and business hours directly; the proto wraps each list in a message so that "not
 * given" (keep) differs from an empty list (clear) on update.
 */
function webIntegrationInput(input: unknown): Json {
  const { allowedOrigins, availability, ...rest } = (input ?? {}) as Json;
  const out: Json = { ...rest };
  if (Array.isArray(allowedOrigins)) out.allowedOrigins = { origins: allowedOrigins };
  if (availability && typeof availability === 'object') {
    const { businessHours, ...times } = availability as Json;
    out.availability = Array.isArray(businessHours) ? { ...times, businessHours: { intervals: businessHours } } : times;
  }
  return out;
}

export const channelsRoutes: Record<string, Route> = {
  webIntegration: { service: 'channels', method: 'GetWebIntegration' },
  webIntegrationById: { service: 'channels', method: 'GetWebIntegrationById' },
  createWebIntegration: {
    service: 'channels',
    method: 'CreateWebIntegration',
    request: (a) => ({ input: webIntegrationInput(a.input) }),
  },
  updateWebIntegration: {
    service: 'channels',
    method: 'UpdateWebIntegration',
    request: (a) => ({ id: a.id, input: webIntegrationInput(a.input) }),
  },
  rotateWebIntegrationSecret: { service: 'channels', method: 'RotateWebIntegrationSecret' },
  deleteWebIntegration: { service: 'channels', method: 'DeleteWebIntegration' },
};
