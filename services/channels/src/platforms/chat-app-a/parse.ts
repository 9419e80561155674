import type {
  ConnectedChannel,
  InboundContent,
  InboundEvent,
  InboundMessage,
  InboundStatus,
  PlatformDeliveryStatus,
} from '../adapter';

/**
 * The Cloud API webhook body (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples):
 * `{object: "whatsapp_business_account", entry: [{id: <WABA_ID>, changes: [{field, value}]}]}`.
 */
interface WebhookBody {
  object?: string;
  entry?: { id?: string; changes?: { field?: string; value?: Record<string, unknown> }[] }[];
}

interface WaMessage {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  context?: { id?: string };
  text?: { body?: string };
  image?: WaMedia;
  audio?: WaMedia;
  video?: WaMedia;
  document?: WaMedia;
  sticker?: WaMedia;
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  contacts?: WaContactCard[];
  interactive?: {
    type?: string;
    button_reply?: { id: string; title: string };
    list_reply?: { id: string; title: string; description?: string };
  };
  button?: { text?: string; payload?: string };
  errors?: { code?: number; title?: string }[];
}

interface WaMedia {
  id: string;
  mime_type?: string;
  caption?: string;
  filename?: string;
}

interface WaContactCard {
  name?: { formatted_name?: string; first_name?: string; last_name?: string };
  phones?: { phone?: string; wa_id?: string }[];
  emails?: { email?: string }[];
}

interface WaStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id?: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
}

const STATUSES: Record<string, PlatformDeliveryStatus> = {
  sent: 'SENT',
  delivered: 'DELIVERED',
  read: 'READ',
  failed: 'FAILED',
};

/** Every event of one verified body for this channel's number (other numbers of the same account are not ours). */
export function parseChatAppAWebhook(channel: ConnectedChannel, rawBody: Buffer): InboundEvent[] {
  const body = JSON.parse(rawBody.toString('utf8')) as WebhookBody;
  if (body.object !== 'whatsapp_business_account' || !Array.isArray(body.entry)) {
    throw new Error('not a whatsapp_business_account webhook');
  }
  const events: InboundEvent[] = [];
  for (const entry of body.entry) {
    for (const change of entry.changes ?? []) {
      const value = change.value ?? {};
      if (change.field === 'messages') events.push(...messagesChange(channel, value));
      if (change.field === 'message_template_status_update') events.push(...templateStatusChange(value));
    }
  }
  return events;
}

function messagesChange(channel: ConnectedChannel, value: Record<string, unknown>): InboundEvent[] {
  const metadata = value.metadata as { phone_number_id?: string } | undefined;
  if (metadata?.phone_number_id && metadata.phone_number_id !== channel.account.externalId) return [];
  const names = new Map(
    ((value.contacts as { wa_id?: string; profile?: { name?: string } }[] | undefined) ?? []).map((c) => [
      c.wa_id,
      c.profile?.name,
    ]),
  );
  const events: InboundEvent[] = [];
  for (const message of (value.messages as WaMessage[] | undefined) ?? []) {
    const base = {
      kind: 'message' as const,
      from: { platformUserId: message.from, phone: `+${message.from}`, name: names.get(message.from) ?? undefined },
      sentAt: fromSeconds(message.timestamp),
      replyToPlatformMessageId: message.context?.id,
    };
    contentsOf(message).forEach((content, index) => {
      const event: InboundMessage = {
        ...base,
        // A message with several contact cards becomes several of ours; each needs its own dedupe key.
        platformMessageId: index === 0 ? message.id : `${message.id}#${index}`,
        content,
      };
      if (!event.from.name) delete event.from.name;
      if (!event.replyToPlatformMessageId) delete event.replyToPlatformMessageId;
      events.push(event);
    });
  }
  for (const status of (value.statuses as WaStatus[] | undefined) ?? []) {
    const mapped = STATUSES[status.status];
    if (!mapped) continue; // e.g. `deleted`, `warning`: not delivery states
    const event: InboundStatus = {
      kind: 'status',
      platformMessageId: status.id,
      status: mapped,
      at: fromSeconds(status.timestamp),
    };
    if (mapped === 'FAILED') {
      const error = status.errors?.[0];
      event.failure = {
        code: String(error?.code ?? 'unknown'),
        message: error?.error_data?.details ?? error?.message ?? error?.title ?? 'failed',
      };
    }
    events.push(event);
  }
  return events;
}

function contentsOf(message: WaMessage): InboundContent[] {
  switch (message.type) {
    case 'text':
      return [{ type: 'TEXT', text: message.text?.body ?? '' }];
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'sticker': {
      const media = message[message.type]!;
      const content: InboundContent = {
        type: 'MEDIA',
        media: [{ ref: media.id, mimeType: media.mime_type, fileName: media.filename }],
      };
      if (media.caption) content.caption = media.caption;
      return [content];
    }
    case 'location': {
      const { latitude, longitude, name, address } = message.location!;
      return [{ type: 'LOCATION', latitude, longitude, name, address }];
    }
    case 'contacts':
      return (message.contacts ?? []).map((card) => ({
        type: 'CONTACT_CARD',
        name: card.name?.formatted_name ?? [card.name?.first_name, card.name?.last_name].filter(Boolean).join(' '),
        phones: (card.phones ?? []).map((p) => p.phone ?? p.wa_id ?? '').filter(Boolean),
        emails: (card.emails ?? []).map((e) => e.email ?? '').filter(Boolean),
      }));
    case 'interactive': {
      const reply = message.interactive?.button_reply ?? message.interactive?.list_reply;
      if (reply) return [{ type: 'BUTTON_REPLY', text: reply.title, payload: reply.id }];
      return [{ type: 'UNSUPPORTED', description: `interactive ${message.interactive?.type ?? 'reply'}` }];
    }
    case 'button':
      // A tap on a template's quick-reply button.
      return [{ type: 'BUTTON_REPLY', text: message.button?.text ?? '', payload: message.button?.payload ?? '' }];
    default:
      return [{ type: 'UNSUPPORTED', description: `a ${message.type} message` }];
  }
}

function templateStatusChange(value: Record<string, unknown>): InboundEvent[] {
  const event = value.event as string | undefined;
  const templateId = value.message_template_id;
  if (!event || templateId === undefined) return [];
  const reason = value.reason as string | undefined;
  return [
    {
      kind: 'template_status',
      templateId: String(templateId),
      name: String(value.message_template_name ?? ''),
      language: String(value.message_template_language ?? ''),
      status: event,
      ...(reason && reason !== 'NONE' ? { reason } : {}),
    },
  ];
}

function fromSeconds(seconds: string | number | undefined): Date {
  const value = Number(seconds);
  return Number.isFinite(value) && value > 0 ? new Date(value * 1000) : new Date();
}
