import type { Route } from './route';

const withInput = (a: Record<string, unknown>) => ({
  ...(a.input as object),
  ...(a.labelId ? { labelId: a.labelId } : {}),
});

export const inboxLabelRoutes: Record<string, Route> = {
  labels: { service: 'inboxLabels', method: 'ListLabels' },
  activeLabels: { service: 'inboxLabels', method: 'ListActiveLabels' },
  label: { service: 'inboxLabels', method: 'GetLabel' },
  createLabel: { service: 'inboxLabels', method: 'CreateLabel', request: withInput },
  updateLabel: { service: 'inboxLabels', method: 'UpdateLabel', request: withInput },
  archiveLabel: { service: 'inboxLabels', method: 'ArchiveLabel' },
  restoreLabel: { service: 'inboxLabels', method: 'RestoreLabel' },
};
