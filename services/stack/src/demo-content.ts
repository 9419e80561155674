import { grpcClient, unary, type Principal } from '@svc/kit';
import { HelpArticleServiceClient } from '@svc/proto/content/v1/help_articles';
import { HelpFolderServiceClient } from '@svc/proto/content/v1/help_folders';
import { NewsPostServiceClient } from '@svc/proto/content/v1/news_posts';
import type { Stack } from './stack';

const SHIPPING_ARTICLE = `Most orders arrive within **3–5 business days**.

1. Open the confirmation email and follow the tracking link.
2. If the carrier shows no movement for two days, write to us from the chat.

[Carrier status pages](https://example.com/carriers) list known delays.`;

const SHIPPING_ARTICLE_PT = `A maioria dos pedidos chega em **3 a 5 dias úteis**.

Se o rastreamento não mudar por dois dias, fale conosco pelo chat.`;

const RETURNS_ARTICLE = `You can return any item within **30 days**. Start a return from the chat and we send a prepaid label.`;

/**
 * The demo org's help center and news, written through the content service as the owner (as the gateway would): a
 * folder with two published articles (one also in Portuguese) and a published news post, so the widget demo's Help
 * and News tabs and the public help pages (`/help/<slug>`) show something on first start.
 */
export async function seedDemoContent(stack: Stack, owner: Principal): Promise<void> {
  const address = `127.0.0.1:${stack.content.grpcPort}`;
  const articles = grpcClient(HelpArticleServiceClient, address);
  const folders = grpcClient(HelpFolderServiceClient, address);
  const news = grpcClient(NewsPostServiceClient, address);
  const asOwner = () => stack.gatewaySigner.metadata(owner, 'content');
  try {
    const folder = await unary(
      folders.createHelpFolder.bind(folders),
      { name: 'Orders and shipping', description: 'Tracking, delivery times and returns.' },
      asOwner(),
    );
    const shipping = await unary(
      articles.createHelpArticle.bind(articles),
      { title: 'Where is my order?', bodyMarkdown: SHIPPING_ARTICLE, locale: 'en', folderId: folder.id, tagIds: [] },
      asOwner(),
    );
    await unary(
      articles.createHelpArticleTranslation.bind(articles),
      { id: shipping.id, locale: 'pt', title: 'Onde está meu pedido?', bodyMarkdown: SHIPPING_ARTICLE_PT },
      asOwner(),
    );
    const returns = await unary(
      articles.createHelpArticle.bind(articles),
      { title: 'Returning an item', bodyMarkdown: RETURNS_ARTICLE, locale: 'en', folderId: folder.id, tagIds: [] },
      asOwner(),
    );
    for (const [id, locale] of [
      [shipping.id, 'en'],
      [shipping.id, 'pt'],
      [returns.id, 'en'],
    ] as const) {
      await unary(articles.publishHelpArticle.bind(articles), { id, locale }, asOwner());
    }
    const post = await unary(
      news.createNewsPost.bind(news),
      {
        title: 'Live chat is here',
        bodyMarkdown: 'Questions about an order? Open the **Chat** tab and the team answers right here.',
        locale: 'en',
        categoryIds: [],
        tagIds: [],
      },
      asOwner(),
    );
    await unary(news.publishNewsPost.bind(news), { id: post.id }, asOwner());
  } finally {
    articles.close();
    folders.close();
    news.close();
  }
}
