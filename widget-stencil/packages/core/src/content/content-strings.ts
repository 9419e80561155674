import { type ShippedLocale } from '../i18n/strings';

// The Help and News tabs' own strings, in their lazy chunk (the tab names are in the first-paint locale files).
const en = {
  search: 'Search articles',
  noArticles: 'No articles found.',
  noNews: 'No news yet.',
  back: 'All articles',
  more: 'Show more',
  loading: 'Loading…',
};

export type ContentStrings = typeof en;

export const CONTENT_STRINGS: Record<ShippedLocale, ContentStrings> = {
  en,
  es: {
    search: 'Buscar artículos',
    noArticles: 'No se encontraron artículos.',
    noNews: 'Aún no hay novedades.',
    back: 'Todos los artículos',
    more: 'Ver más',
    loading: 'Cargando…',
  },
  fr: {
    search: 'Rechercher des articles',
    noArticles: 'Aucun article trouvé.',
    noNews: 'Pas encore d’actualités.',
    back: 'Tous les articles',
    more: 'Voir plus',
    loading: 'Chargement…',
  },
  de: {
    search: 'Artikel durchsuchen',
    noArticles: 'Keine Artikel gefunden.',
    noNews: 'Noch keine Neuigkeiten.',
    back: 'Alle Artikel',
    more: 'Mehr anzeigen',
    loading: 'Wird geladen…',
  },
  pt: {
    search: 'Pesquisar artigos',
    noArticles: 'Nenhum artigo encontrado.',
    noNews: 'Ainda não há novidades.',
    back: 'Todos os artigos',
    more: 'Ver mais',
    loading: 'Carregando…',
  },
  ja: {
    search: '記事を検索',
    noArticles: '記事が見つかりません。',
    noNews: 'お知らせはまだありません。',
    back: 'すべての記事',
    more: 'もっと見る',
    loading: '読み込み中…',
  },
  ar: {
    search: 'ابحث في المقالات',
    noArticles: 'لم يتم العثور على مقالات.',
    noNews: 'لا توجد أخبار بعد.',
    back: 'كل المقالات',
    more: 'عرض المزيد',
    loading: 'جارٍ التحميل…',
  },
};
