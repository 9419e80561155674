import * as fs from 'node:fs';
import * as path from 'node:path';
import { Kind, buildASTSchema, type DocumentNode, type GraphQLSchema } from 'graphql';
import { mergeTypeDefs } from '@graphql-tools/merge';
import { MESH_ROOT } from './auth/operations-table';

/** The public contract, written by hand in mesh/schema/*.graphql (one file per domain, merged). */
export function publicDocument(dir = path.join(MESH_ROOT, 'schema')): DocumentNode {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
  return mergeTypeDefs(files);
}

export function publicSchema(document = publicDocument()): GraphQLSchema {
  return buildASTSchema(document);
}

/** `Type.field` of every field marked @pii in the public SDL. */
export function piiFields(document = publicDocument()): Set<string> {
  const fields = new Set<string>();
  for (const def of document.definitions) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    for (const field of def.fields ?? []) {
      if (field.directives?.some((d) => d.name.value === 'pii')) fields.add(`${def.name.value}.${field.name.value}`);
    }
  }
  return fields;
}
