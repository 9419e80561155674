import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { LabelServiceService } from '@svc/proto/inbox/v1/labels';
import type { Labels } from '../domain/labels';
import { pageRequest } from './page-request';

export function labelService(labels: Labels, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof LabelServiceService> = {
    listLabels: (r, { principal }) => labels.list(principal, pageRequest(r.input), false),
    listActiveLabels: (r, { principal }) => labels.list(principal, pageRequest(r.input), true),
    getLabel: (r, { principal }) => labels.get(principal, r.labelId),
    createLabel: (r, { principal }) => labels.create(principal, r),
    updateLabel: (r, { principal }) => labels.update(principal, r.labelId, r),
    archiveLabel: (r, { principal }) => labels.archive(principal, r.labelId),
    restoreLabel: (r, { principal }) => labels.restore(principal, r.labelId),
    findLabels: async (r, { principal }) => ({ labelIds: await labels.find(principal, r.labelIds) }),
  };
  return implement('inbox', LabelServiceService, handlers, deps);
}
