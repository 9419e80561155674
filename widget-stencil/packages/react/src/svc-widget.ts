import {
  createElement,
  forwardRef,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  type CSSProperties,
} from 'react';
import {
  defineSvcWidget,
  type InjectableWidgetConfig,
  type VisitorIdentity,
  type WidgetSize,
} from '@svc-inbox/widget-core';
import { identityKey, type Prefill } from '@svc-inbox/widget-protocol';

/** `<svc-widget>` (core's element type; the global `HTMLSvcWidgetElement`). */
export type SvcWidgetElement = HTMLSvcWidgetElement;

/** Spec 4.4's props, then the element's other attributes under React names. */
export interface SvcWidgetProps {
  /** Integration key; omit it for demo mode. */
  publicKey?: string;
  /** Known-visitor proof; compared by value, so a new object with the same fields does not identify again. */
  user?: VisitorIdentity | null;
  /** Pre-resolved config (`GET /api/web/config/:publicKey`); skips the bootstrap fetch. */
  config?: InjectableWidgetConfig;
  onResize?: (size: WidgetSize) => void;
  onOpen?: () => void;
  onClose?: () => void;
  className?: string;
  style?: CSSProperties;
  /** Forces a UI locale (BCP-47). */
  locale?: string;
  /** Widget backend base URL; default: the origin the widget script came from. */
  api?: string;
  prefill?: Prefill;
  hideAttribution?: boolean;
}

// Layout effects run before Stencil's first render task, so `config` and `user` are in place before the widget boots;
// on a server there is no element, and React warns about useLayoutEffect there.
const useBeforeBoot = typeof window === 'undefined' ? useEffect : useLayoutEffect;

/**
 * Hand-written rather than generated: Stencil's React output target emits invalid TypeScript for `svc:` event names,
 * and `@lit/react` would hand callbacks the DOM event where spec 4.4 gives `onResize` the size and `onOpen`/`onClose`
 * nothing. Works the same on React 18 (attributes only) and 19 (custom element properties).
 */
export const SvcWidget = forwardRef<SvcWidgetElement, SvcWidgetProps>(function SvcWidget(props, forwarded) {
  const element = useRef<SvcWidgetElement | null>(null);
  // The element exists from the first commit on, which is when React reads the handle.
  useImperativeHandle(forwarded, () => element.current as SvcWidgetElement, []);
  const callbacks = useRef(props);
  useEffect(() => {
    callbacks.current = props;
  });

  useEffect(() => {
    const node = element.current;
    if (!node) return undefined;
    const resize = (event: Event) => callbacks.current.onResize?.((event as CustomEvent<WidgetSize>).detail);
    const open = () => callbacks.current.onOpen?.();
    const close = () => callbacks.current.onClose?.();
    node.addEventListener('svc:resize', resize);
    node.addEventListener('svc:open', open);
    node.addEventListener('svc:close', close);
    return () => {
      node.removeEventListener('svc:resize', resize);
      node.removeEventListener('svc:open', open);
      node.removeEventListener('svc:close', close);
    };
  }, []);

  const { config, user } = props;
  useBeforeBoot(() => {
    if (element.current && config !== undefined) element.current.config = config;
  }, [config]);

  const identified = useRef(false);
  const userKey = identityKey(user);
  useBeforeBoot(() => {
    const node = element.current;
    if (!node) return;
    const known = user !== undefined && user !== null;
    // Anonymous from the start needs no call; a visitor who was identified and no longer is gets logged out.
    if (!known && !identified.current) return;
    identified.current = known;
    void node.identify(known ? user : null);
    // `user` itself is read through its key: a new object equal by value must not identify again.
  }, [userKey]);

  if (typeof customElements !== 'undefined') defineSvcWidget();
  return createElement('svc-widget', {
    ref: element,
    class: props.className,
    style: props.style,
    'public-key': props.publicKey,
    locale: props.locale,
    api: props.api,
    'prefill-name': props.prefill?.name,
    'prefill-email': props.prefill?.email,
    'prefill-phone': props.prefill?.phone,
    'hide-attribution': props.hideAttribution ? '' : undefined,
  });
});
