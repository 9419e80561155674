import type { DataSource } from 'typeorm';
import { implement, type ImplementDeps, type OutboxRelay, type ServiceHandlers } from '@svc/kit';
import { TaxonomyServiceService } from '@svc/proto/content/v1/taxonomy';
import { TaxonomyTerms, type TaxonomyKind } from '../domain/taxonomy';

type Handlers = ServiceHandlers<typeof TaxonomyServiceService>;
type Handler<M extends keyof Handlers> = Handlers[M];

/** The five calls of one kind; the service's methods differ only in the kind's name. */
function termHandlers(terms: TaxonomyTerms) {
  return {
    list: ((request, { principal }) => terms.list(principal, request)) satisfies Handler<'listHelpTags'>,
    get: ((request, { principal }) => terms.get(principal, request.id)) satisfies Handler<'getHelpTag'>,
    create: ((request, { principal }) => terms.create(principal, request)) satisfies Handler<'createHelpTag'>,
    update: ((request, { principal }) => terms.update(principal, request)) satisfies Handler<'updateHelpTag'>,
    delete: ((request, { principal }) => terms.delete(principal, request.id)) satisfies Handler<'deleteHelpTag'>,
  };
}

export const TAXONOMY_GRPC_SERVICE = 'svc.content.v1.TaxonomyService';

export function taxonomyService(dataSource: DataSource, relay: () => OutboxRelay, deps: ImplementDeps) {
  const of = (kind: TaxonomyKind) => termHandlers(new TaxonomyTerms(kind, dataSource, relay));
  const help = of('help_tag');
  const categories = of('news_category');
  const newsTags = of('news_tag');
  const handlers: Handlers = {
    listHelpTags: help.list,
    getHelpTag: help.get,
    createHelpTag: help.create,
    updateHelpTag: help.update,
    deleteHelpTag: help.delete,
    listNewsCategories: categories.list,
    getNewsCategory: categories.get,
    createNewsCategory: categories.create,
    updateNewsCategory: categories.update,
    deleteNewsCategory: categories.delete,
    listNewsTags: newsTags.list,
    getNewsTag: newsTags.get,
    createNewsTag: newsTags.create,
    updateNewsTag: newsTags.update,
    deleteNewsTag: newsTags.delete,
  };
  return implement('content', TaxonomyServiceService, handlers, deps);
}
