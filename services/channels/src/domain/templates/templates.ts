import type { DataSource, EntityManager } from 'typeorm';
import {
  ApiScope,
  Conflict,
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  Unavailable,
  isId,
  newId,
  requireOrg,
  requireScope,
  type Principal,
} from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import type {
  ChatAppATemplate,
  ChatAppATemplateInput,
  ChatAppATemplateUpdate,
  SyncChatAppATemplatesResult,
} from '@svc/proto/channels/v1/templates';
import type { Logger } from 'pino';
import { ChatAppATemplateRow } from '../../entities';
import { PlatformCallError, type ConnectedChannel, type InboundTemplateStatus } from '../../platforms/adapter';
import type { ChatAppAAdapter } from '../../platforms/chat-app-a';
import { ChatAppATemplateApi, type PlatformTemplate } from '../../platforms/chat-app-a/templates';
import type { TemplateStatusSink } from '../inbound/sinks';
import type { PlatformChannels } from '../platform-channels';
import {
  bodyParameterCount,
  fromPlatformComponents,
  headerParameterCount,
  templateCategory,
  templateComponents,
  templateLanguage,
  templateName,
  toPlatformComponents,
} from './components';
import { templateStatusOf } from './vocabulary';

/**
 * CHAT_APP_A message templates (decision 0128): kept per channel as the platform has them; every change is made at
 * the platform first, then here. The status webhook (`applyTemplateStatus`, the inbound consumer's
 * TemplateStatusSink) keeps statuses current; `sync` reads everything back as the fallback.
 */
export class ChatAppATemplates implements TemplateStatusSink {
  private readonly api: ChatAppATemplateApi | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: PlatformChannels,
    adapter: ChatAppAAdapter | undefined,
    private readonly logger: Logger,
  ) {
    this.api = adapter ? new ChatAppATemplateApi(adapter) : undefined;
  }

  async list(principal: Principal, channelId: string, status?: string): Promise<ChatAppATemplate[]> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const channel = await this.channelOf(requireOrg(principal), channelId);
    if (status !== undefined && !templateStatusOf(status)) {
      throw new InvalidArgument('status: not a template status', { field: 'status' });
    }
    const rows = await this.dataSource.getRepository(ChatAppATemplateRow).find({
      where: { channelId: channel.channelId, ...(status ? { status: templateStatusOf(status)! } : {}) },
      order: { name: 'ASC', language: 'ASC' },
    });
    return rows.map(templateView);
  }

  async get(principal: Principal, id: string): Promise<ChatAppATemplate> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    return templateView(await this.row(requireOrg(principal), id));
  }

  async create(principal: Principal, channelId: string, input: ChatAppATemplateInput | undefined) {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    if (!input) throw new InvalidArgument('input is required', { field: 'input' });
    const name = templateName(input.name);
    const language = templateLanguage(input.language);
    const category = templateCategory(input.category);
    const components = templateComponents(input.components);
    const channel = await this.channelOf(orgId, channelId);
    const repository = this.dataSource.getRepository(ChatAppATemplateRow);
    if (await repository.existsBy({ channelId: channel.channelId, name, language })) {
      throw new Conflict(`a template ${name} in ${language} exists on this channel`, { field: 'input.name' });
    }
    const created = await this.platform(() =>
      this.api!.create(channel, { name, language, category, components: toPlatformComponents(components) }),
    );
    const at = new Date();
    const row = repository.create({
      id: newId(at),
      orgId,
      channelId: channel.channelId,
      platformTemplateId: String(created.id),
      name,
      language,
      // The platform may file it under another category than asked (a "utility" that reads as marketing).
      category: created.category ?? category,
      status: templateStatusOf(created.status ?? '') ?? 'PENDING',
      rejectionReason: '',
      components,
      createdAt: at,
      updatedAt: at,
    });
    await repository.insert(row);
    return templateView(row);
  }

  async update(principal: Principal, id: string, input: ChatAppATemplateUpdate | undefined) {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const row = await this.row(orgId, id);
    const category = input?.category !== undefined ? templateCategory(input.category) : undefined;
    const components = input?.components.length ? templateComponents(input.components) : undefined;
    if (!category && !components) {
      throw new InvalidArgument('input: give a category or components to change', { field: 'input' });
    }
    const channel = await this.channelOf(orgId, row.channelId);
    await this.platform(() =>
      this.api!.edit(channel, row.platformTemplateId, {
        ...(category ? { category } : {}),
        ...(components ? { components: toPlatformComponents(components) } : {}),
      }),
    );
    Object.assign(row, {
      ...(category ? { category } : {}),
      ...(components ? { components } : {}),
      status: 'PENDING',
      rejectionReason: '',
      updatedAt: new Date(),
    });
    await this.dataSource.getRepository(ChatAppATemplateRow).save(row);
    return templateView(row);
  }

  async delete(principal: Principal, id: string): Promise<{ deleted: boolean; id: string }> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const row = await this.row(orgId, id);
    const channel = await this.channelOf(orgId, row.channelId);
    await this.platform(() => this.api!.delete(channel, row));
    await this.dataSource.getRepository(ChatAppATemplateRow).delete({ id: row.id });
    return { deleted: true, id: row.id };
  }

  /** Reads every template back from the platform: new ones added, changed ones updated, gone ones removed. */
  async sync(principal: Principal, channelId: string): Promise<SyncChatAppATemplatesResult> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const channel = await this.channelOf(orgId, channelId);
    const remote = await this.platform(() => this.api!.list(channel));
    const counts = await this.dataSource.transaction((manager) => applySync(manager, orgId, channel.channelId, remote));
    const templates = await this.dataSource
      .getRepository(ChatAppATemplateRow)
      .find({ where: { channelId: channel.channelId }, order: { name: 'ASC', language: 'ASC' } });
    return { channelId: channel.channelId, ...counts, templates: templates.map(templateView) };
  }

  /** The `message_template_status_update` webhook: the template's status (and reason) as the platform now says. */
  async applyTemplateStatus(channel: ConnectedChannel, event: InboundTemplateStatus): Promise<void> {
    const status = templateStatusOf(event.status);
    if (!status) {
      this.logger.warn({ channelId: channel.channelId, event: event.status }, 'unknown template status event ignored');
      return;
    }
    const repository = this.dataSource.getRepository(ChatAppATemplateRow);
    const row =
      (await repository.findOneBy({ channelId: channel.channelId, platformTemplateId: event.templateId })) ??
      (await repository.findOneBy({ channelId: channel.channelId, name: event.name, language: event.language }));
    if (!row) {
      // Made elsewhere (the platform's own manager): the next sync brings it with its components.
      this.logger.info({ channelId: channel.channelId, templateId: event.templateId }, 'status of an unknown template');
      return;
    }
    await repository.update(
      { id: row.id },
      { status, rejectionReason: event.reason ?? '', platformTemplateId: event.templateId, updatedAt: new Date() },
    );
  }

  /** The org's template by id (NOT_FOUND for another org's, worded as unknown). */
  async row(orgId: string, id: string, field = 'id'): Promise<ChatAppATemplateRow> {
    if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
    const row = await this.dataSource.getRepository(ChatAppATemplateRow).findOneBy({ id, orgId });
    if (!row) throw new NotFound('unknown template', { field });
    return row;
  }

  /** The org's connected CHAT_APP_A channel, with its credentials opened. */
  async channelOf(orgId: string, channelId: string, field = 'channelId'): Promise<ConnectedChannel> {
    if (!isId(channelId)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
    const loaded = await this.channels.load(channelId);
    if (!loaded || loaded.channel.orgId !== orgId) throw new NotFound('unknown channel', { field });
    if (loaded.channel.type !== ChannelType.CHAT_APP_A) {
      throw new InvalidArgument(`${field}: templates belong to CHAT_APP_A channels`, { field });
    }
    if (loaded.disconnected) throw new FailedPrecondition('the channel is disconnected', { field });
    return loaded.channel;
  }

  /** A platform call, its refusal turned into our error words (the platform's own message kept). */
  private async platform<T>(call: () => Promise<T>): Promise<T> {
    if (!this.api) throw new FailedPrecondition('CHAT_APP_A is not configured');
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PlatformCallError)) throw error;
      const { transient, reauthorize, code, message } = error.error;
      const details = { platformCode: code };
      if (transient) throw new Unavailable(`the platform is unavailable: ${message}`, details);
      if (reauthorize) throw new FailedPrecondition(`the channel needs reauthorizing: ${message}`, details);
      if (code === '100')
        throw new InvalidArgument(`the platform refused the template: ${message}`, { ...details, field: 'input' });
      throw new FailedPrecondition(`the platform refused: ${message}`, details);
    }
  }
}

async function applySync(manager: EntityManager, orgId: string, channelId: string, remote: PlatformTemplate[]) {
  const repository = manager.getRepository(ChatAppATemplateRow);
  const local = await repository.findBy({ channelId });
  const byPlatformId = new Map(local.map((row) => [row.platformTemplateId, row]));
  const byName = new Map(local.map((row) => [`${row.name}/${row.language}`, row]));
  const kept = new Set<string>();
  let created = 0;
  let updated = 0;
  const at = new Date();
  for (const template of remote) {
    const existing = byPlatformId.get(String(template.id)) ?? byName.get(`${template.name}/${template.language}`);
    const fields = {
      platformTemplateId: String(template.id),
      name: template.name,
      language: template.language,
      category: template.category,
      status: templateStatusOf(template.status) ?? existing?.status ?? 'PENDING',
      rejectionReason: template.rejected_reason && template.rejected_reason !== 'NONE' ? template.rejected_reason : '',
      components: fromPlatformComponents(template.components),
    };
    if (existing) {
      kept.add(existing.id);
      if (changed(existing, fields)) {
        await repository.update({ id: existing.id }, { ...fields, updatedAt: at });
        updated += 1;
      }
    } else {
      await repository.insert(
        repository.create({ id: newId(at), orgId, channelId, ...fields, createdAt: at, updatedAt: at }),
      );
      created += 1;
    }
  }
  const gone = local.filter((row) => !kept.has(row.id));
  if (gone.length > 0) await repository.delete(gone.map((row) => row.id));
  return { created, updated, removed: gone.length };
}

function changed(row: ChatAppATemplateRow, fields: Partial<ChatAppATemplateRow>): boolean {
  return (Object.keys(fields) as (keyof ChatAppATemplateRow)[]).some(
    (key) => JSON.stringify(row[key]) !== JSON.stringify(fields[key]),
  );
}

export function templateView(row: ChatAppATemplateRow): ChatAppATemplate {
  return {
    id: row.id,
    channelId: row.channelId,
    platformTemplateId: row.platformTemplateId,
    name: row.name,
    language: row.language,
    category: row.category,
    status: row.status,
    rejectionReason: row.rejectionReason,
    components: row.components,
    headerParameterCount: headerParameterCount(row.components),
    bodyParameterCount: bodyParameterCount(row.components),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
