import { describeWrapperApp } from './support/wrapper-apps';

// <svc-widget> used natively in an Ember app (ember-cli 7: Embroider + Vite) with {{on "svc:resize" …}} and the
// svcIdentify modifier of @svc-inbox/widget-ember.
describeWrapperApp({ app: 'ember', version: /^7\./ });
