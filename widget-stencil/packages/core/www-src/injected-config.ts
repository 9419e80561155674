import { type WidgetConfig } from '@svc-inbox/widget-client';

const SECTIONS = ['branding', 'availability', 'prechatForm', 'security'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fragment's `config` (the page's `svcSettings.config`, an InjectableWidgetConfig), when it is one for this
 * frame's integration: JSON of an object with its public key, `name`, `status`, `defaultLocale` and the four sections
 * the element reads. Anything else is `undefined`, and the element fetches the config as it would without one.
 */
export function injectedConfig(text: string | null, publicKey: string | null): WidgetConfig | undefined {
  if (!text || !publicKey) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.publicKey !== publicKey) return undefined;
  if (typeof value.name !== 'string' || typeof value.defaultLocale !== 'string') return undefined;
  if (value.status !== 'ACTIVE' && value.status !== 'DISABLED') return undefined;
  return SECTIONS.every((section) => isRecord(value[section])) ? (value as unknown as WidgetConfig) : undefined;
}
