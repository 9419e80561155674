import { describeWrapperApp } from './support/wrapper-apps';

// @svc-inbox/widget-vue in a Vue 3 app built by Vite (vue-tsc checks the wrapper's types first).
describeWrapperApp({ app: 'vue', version: /^3\./ });
