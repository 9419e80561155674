/** The parts of the Viber REST bot API's callbacks and requests this adapter reads or writes (developers.viber.com/docs/api/rest-bot-api). */

export interface ViberUser {
  id: string;
  name?: string;
  avatar?: string;
  language?: string;
  country?: string;
  api_version?: number;
}

export interface ViberMessage {
  type: 'text' | 'picture' | 'video' | 'file' | 'sticker' | 'contact' | 'url' | 'location' | string;
  text?: string;
  media?: string;
  location?: { lat: number; lon: number; address?: string };
  contact?: { name?: string; phone_number?: string; avatar?: string };
  tracking_data?: string;
  file_name?: string;
  file_size?: number;
  duration?: number;
  sticker_id?: number;
}

/** One callback: `event` says which fields are present. `message_token` is a string here (see parseViberJson). */
export interface ViberCallback {
  event:
    | 'message'
    | 'delivered'
    | 'seen'
    | 'failed'
    | 'subscribed'
    | 'unsubscribed'
    | 'conversation_started'
    | 'webhook'
    | 'client_status'
    | string;
  timestamp: number;
  message_token?: string;
  chat_hostname?: string;
  sender?: ViberUser;
  message?: ViberMessage;
  user_id?: string;
  user?: ViberUser;
  desc?: string;
}

export interface ViberAccountInfo {
  status: number;
  status_message?: string;
  id: string;
  name: string;
  uri?: string;
  icon?: string;
  webhook?: string;
  subscribers_count?: number;
}

/**
 * The callbacks `set_webhook` asks for. Messages are always sent and cannot be chosen; the test callback (`webhook`)
 * is sent once per `set_webhook`.
 */
export const EVENT_TYPES = [
  'delivered',
  'seen',
  'failed',
  'subscribed',
  'unsubscribed',
  'conversation_started',
] as const;

/** What our outbound buttons put in `tracking_data`, so the reply they produce reads back as a BUTTON_REPLY. */
export interface ButtonTracking {
  svcButtons: Record<string, string>;
}
