import { computed, defineComponent, h, onMounted, ref, watch, type PropType } from 'vue';
import {
  defineSvcWidget,
  type InjectableWidgetConfig,
  type VisitorIdentity,
  type WidgetSize,
} from '@svc-inbox/widget-core';
import { identityKey, type Prefill } from '@svc-inbox/widget-protocol';

/** `<svc-widget>` (core's element type; the global `HTMLSvcWidgetElement`). */
export type SvcWidgetElement = HTMLSvcWidgetElement;

/**
 * `<SvcWidget>`: the `svc-widget` element with Vue props and events (`@resize`, `@open`, `@close`). The element works
 * in Vue templates directly too (`@svc:resize`); this component adds what a template cannot say: `user` goes to the
 * element's `identify()` method, compared by value, and `config` is set as a property.
 */
export const SvcWidget = defineComponent({
  name: 'SvcWidget',
  props: {
    /** Integration key; omit it for demo mode. */
    publicKey: String,
    /** Known-visitor proof; compared by value, so a new object with the same fields does not identify again. */
    user: { type: Object as PropType<VisitorIdentity | null>, default: undefined },
    /** Pre-resolved config (`GET /api/web/config/:publicKey`); skips the bootstrap fetch. */
    config: { type: Object as PropType<InjectableWidgetConfig>, default: undefined },
    locale: String,
    /** Widget backend base URL; default: the origin the widget script came from. */
    api: String,
    prefill: { type: Object as PropType<Prefill>, default: undefined },
    hideAttribution: Boolean,
  },
  emits: {
    resize: (size: WidgetSize) => typeof size === 'object',
    open: () => true,
    close: () => true,
  },
  setup(props) {
    defineSvcWidget();
    const element = ref<SvcWidgetElement | null>(null);
    // A computed string: watchers below run only when the identity changes by value, not when the parent rebuilds it.
    const userKey = computed(() => identityKey(props.user));
    let identified = false;
    const identify = () => {
      const user = props.user ?? null;
      // Anonymous from the start needs no call; a visitor who was identified and no longer is gets logged out.
      if (!element.value || (user === null && !identified)) return;
      identified = user !== null;
      void element.value.identify(user);
    };
    onMounted(identify);
    watch(userKey, identify, { flush: 'post' });
    // Returned bindings are typed on the instance: `widget.value?.open()` in a parent's template ref.
    return {
      element,
      open: (): Promise<void> => element.value?.open() ?? Promise.resolve(),
      close: (): Promise<void> => element.value?.close() ?? Promise.resolve(),
      showArticle: (articleId: string): Promise<void> => element.value?.showArticle(articleId) ?? Promise.resolve(),
      showNews: (): Promise<void> => element.value?.showNews() ?? Promise.resolve(),
    };
  },
  render() {
    return h('svc-widget', {
      ref: 'element',
      'public-key': this.publicKey,
      locale: this.locale,
      api: this.api,
      'prefill-name': this.prefill?.name,
      'prefill-email': this.prefill?.email,
      'prefill-phone': this.prefill?.phone,
      'hide-attribution': this.hideAttribution ? '' : undefined,
      // A custom element's own property: Vue sets it as one (not as an attribute).
      config: this.config,
      'onSvc:resize': (event: CustomEvent<WidgetSize>) => this.$emit('resize', event.detail),
      'onSvc:open': () => this.$emit('open'),
      'onSvc:close': () => this.$emit('close'),
    });
  },
});
