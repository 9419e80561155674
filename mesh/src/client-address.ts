// The gateway and widget-api decide a request's address the same way: one implementation, in the kit.
export { clientAddress } from '@svc/kit';
