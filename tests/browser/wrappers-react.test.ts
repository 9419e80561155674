import { describeWrapperApp } from './support/wrapper-apps';

// @svc-inbox/widget-react in a Vite app on React 18 and on React 19 (react18/src is react19/src, linked).
describeWrapperApp({ app: 'react18', version: /^18\./ });
describeWrapperApp({ app: 'react19', version: /^19\./ });
