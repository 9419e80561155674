/** Where the iframe sits and how big it is: CSS pixels, or `null` for "the whole viewport". */
export interface FrameBox {
  width: number;
  height: number;
  /** Covers the viewport (an open panel on a narrow screen). */
  fullScreen: boolean;
}

/** Below this viewport width an open panel takes the whole screen (as Intercom's and Crisp's do on phones). */
export const FULL_SCREEN_BELOW = 480;

/**
 * The box for what the widget asked (`svc:widget:resize:v1`): clamped to the viewport, and the whole viewport when
 * the panel is open on a viewport narrower than {@link FULL_SCREEN_BELOW}.
 */
export function frameBox(
  wanted: { width: number; height: number },
  viewport: { width: number; height: number },
  open: boolean,
): FrameBox {
  if (open && viewport.width < FULL_SCREEN_BELOW) {
    return { width: viewport.width, height: viewport.height, fullScreen: true };
  }
  return {
    width: Math.min(Math.ceil(wanted.width), viewport.width),
    height: Math.min(Math.ceil(wanted.height), viewport.height),
    fullScreen: false,
  };
}
