import type { Route } from './route';

export const contactsErasureRoutes: Record<string, Route> = {
  previewErase: { service: 'contactsErasure', method: 'PreviewErase' },
  eraseContact: { service: 'contactsErasure', method: 'EraseContact' },
};
