import { describeWrapperApp } from './support/wrapper-apps';

// @svc-inbox/widget-angular (ng-packagr, partial compilation) in an Angular 21 standalone, zoneless app built by the
// Angular CLI's application builder.
describeWrapperApp({ app: 'angular', version: /^21\./ });
