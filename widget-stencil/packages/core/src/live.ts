// TEMPORARY until @svc-inbox/widget-client lands.
import { type VisitorIdentity } from '@svc-inbox/widget-protocol';
import { type ChatSource } from './chat-source';
import { SHIPPED_LOCALES, type ShippedLocale } from './i18n/strings';

export interface WidgetConfig {
  publicKey: string;
  name: string;
  status: string;
  defaultLocale: string;
  branding: {
    primaryColor?: string;
    launcherPosition?: string;
    greeting?: string;
    teamName?: string;
    teamAvatarUrl?: string;
    hidden?: boolean;
  };
  availability: { hideWhenOffline?: boolean; offlineMessage?: string };
  prechatForm: {
    enabled?: boolean;
    name?: { asked?: boolean; required?: boolean };
    email?: { asked?: boolean; required?: boolean };
    phone?: { asked?: boolean; required?: boolean };
  };
  security: { identityVerification: string; googleClientId: string };
}

export function isOpenNow(_a: WidgetConfig['availability'], _now: Date): boolean {
  return true;
}

export function chooseLocale(requested: string | undefined, page: string, config: WidgetConfig): ShippedLocale {
  for (const tag of [requested, page, config.defaultLocale]) {
    const base = tag?.toLowerCase().split('-')[0];
    if (base && (SHIPPED_LOCALES as readonly string[]).includes(base)) return base as ShippedLocale;
  }
  return 'en';
}

export interface LiveOptions {
  publicKey: string;
  api: string;
  config?: WidgetConfig;
  identity?: VisitorIdentity;
  fresh: boolean;
}

export async function startLive(_options: LiveOptions): Promise<{ config: WidgetConfig; source: ChatSource }> {
  throw new Error('not implemented yet');
}
