import { identityRoutes } from './identity';
import { inboxRoutes } from './inbox';
import type { Route } from './route';

export type { Route } from './route';

/** Every public root field with its gRPC route; one file per service. */
export const ROUTES: Record<string, Route> = { ...identityRoutes, ...inboxRoutes };
