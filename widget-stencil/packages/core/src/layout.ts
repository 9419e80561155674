/** `svc:resize`'s detail: what the widget wants to occupy, in CSS pixels (decision 0105). */
export interface WidgetSize {
  width: number;
  height: number;
}

/** The launcher (56 px) with room for its focus ring and shadow. */
export const LAUNCHER_SIZE: WidgetSize = { width: 64, height: 64 };
/** The open panel on a wide viewport. */
export const PANEL_SIZE: WidgetSize = { width: 380, height: 640 };
/** Below this viewport width the open panel takes the whole viewport. */
export const FULL_SCREEN_BELOW = 480;
/** Margin between the page's edges and the widget when it sits directly on the page. */
export const PAGE_MARGIN = 16;

interface ViewportLike {
  innerWidth: number;
  innerHeight: number;
}

/**
 * In its iframe (`frame`) the widget asks for the launcher or the panel size and the loader clamps the iframe to the
 * page's viewport (full screen below 480 px). Directly on a page it is its own judge: the panel clamped to the
 * viewport less the margins, or the whole viewport when narrow. Hidden (e.g. hide-when-offline): 0 × 0.
 */
export function wantedSize(
  state: { open: boolean; frame: boolean; visible: boolean },
  viewport: ViewportLike,
): WidgetSize {
  if (!state.visible) return { width: 0, height: 0 };
  if (!state.open) return LAUNCHER_SIZE;
  if (state.frame) return PANEL_SIZE;
  if (viewport.innerWidth < FULL_SCREEN_BELOW) return { width: viewport.innerWidth, height: viewport.innerHeight };
  return {
    width: Math.min(PANEL_SIZE.width, viewport.innerWidth - 2 * PAGE_MARGIN),
    height: Math.min(PANEL_SIZE.height, viewport.innerHeight - 2 * PAGE_MARGIN),
  };
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), textarea:not([disabled]), a[href], [tabindex="0"]';

/** The keyboard-reachable elements of `root`, in document order. */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
}
