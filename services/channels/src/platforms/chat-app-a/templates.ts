import type { ConnectedChannel } from '../adapter';
import type { ChatAppAAdapter } from './adapter';

/**
 * A template component in the platform's shape (`/<WABA_ID>/message_templates`,
 * https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/).
 */
export interface PlatformTemplateComponent {
  type: string;
  format?: string;
  text?: string;
  buttons?: { type: string; text: string; url?: string; phone_number?: string; example?: string[] }[];
  example?: { header_text?: string[]; body_text?: string[][]; header_handle?: string[] };
}

export interface PlatformTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  rejected_reason?: string;
  components?: PlatformTemplateComponent[];
}

/** The 25-a-page listing is followed through `paging.next` up to this many pages (a bounded sync). */
const MAX_PAGES = 100;
const PAGE_SIZE = 100;

/**
 * The business account's template management calls, with the channel's token (the platform's calls classify their
 * failures like every Graph call: PlatformCallError).
 */
export class ChatAppATemplateApi {
  constructor(private readonly adapter: ChatAppAAdapter) {}

  /** Every template of the account, following the cursor pages. */
  async list(channel: ConnectedChannel): Promise<PlatformTemplate[]> {
    const credentials = this.adapter.credentials(channel);
    const templates: PlatformTemplate[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await this.adapter.graph.call<{
        data?: PlatformTemplate[];
        paging?: { cursors?: { after?: string }; next?: string };
      }>(`${credentials.businessAccountId}/message_templates`, {
        accessToken: credentials.accessToken,
        appSecret: credentials.appSecret,
        query: {
          fields: 'id,name,language,category,status,rejected_reason,components',
          limit: String(PAGE_SIZE),
          after,
        },
      });
      templates.push(...(answer.data ?? []));
      after = answer.paging?.cursors?.after;
      if (!answer.paging?.next || !after) break;
    }
    return templates;
  }

  async create(
    channel: ConnectedChannel,
    template: { name: string; language: string; category: string; components: PlatformTemplateComponent[] },
  ): Promise<{ id: string; status: string; category: string }> {
    const credentials = this.adapter.credentials(channel);
    return this.adapter.graph.call(`${credentials.businessAccountId}/message_templates`, {
      method: 'POST',
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
      body: template,
    });
  }

  /** `POST /<TEMPLATE_ID>`: new components and/or category; the platform reviews it again. */
  async edit(
    channel: ConnectedChannel,
    platformTemplateId: string,
    change: { category?: string; components?: PlatformTemplateComponent[] },
  ): Promise<void> {
    const credentials = this.adapter.credentials(channel);
    await this.adapter.graph.call(platformTemplateId, {
      method: 'POST',
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
      body: change,
    });
  }

  /** `DELETE /<WABA_ID>/message_templates?name=&hsm_id=`: this language's template only (by its id). */
  async delete(channel: ConnectedChannel, template: { name: string; platformTemplateId: string }): Promise<void> {
    const credentials = this.adapter.credentials(channel);
    await this.adapter.graph.call(`${credentials.businessAccountId}/message_templates`, {
      method: 'DELETE',
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
      query: { name: template.name, hsm_id: template.platformTemplateId },
    });
  }
}
