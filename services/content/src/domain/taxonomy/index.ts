export { existingTermIds, requireTermIds } from './existing-ids';
export { TAXONOMY, TAXONOMY_KINDS, type TaxonomyKind, type TaxonomyKindSpec, type TaxonomyTermRow } from './kinds';
export { TaxonomyTerms } from './terms';
export { MAX_NAME_LENGTH, termName } from './names';
