// Written by hand (not a migration: the migrations of each family call it). Gives every org stored before slugs
// existed the slug its name suggests, oldest first, suffixed when taken (docs/decisions/0184). Plain SQL on the query
// runner, never the entities, so later entity changes cannot alter what the migration did; the slug rules are the
// service's own (domain/org-slugs.ts), so a backfilled slug is the one a new org of that name would get.
import type { QueryRunner } from 'typeorm';
import { firstFreeSlug, slugBaseOf } from '../domain/org-slugs';

export async function backfillOrgSlugs(queryRunner: QueryRunner): Promise<void> {
  const orgs = (await queryRunner.query('SELECT id, name FROM orgs ORDER BY created_at, id')) as {
    id: string;
    name: string;
  }[];
  const taken = new Set<string>();
  for (const org of orgs) {
    const slug = firstFreeSlug(slugBaseOf(org.name), taken);
    taken.add(slug);
    await queryRunner.query('UPDATE orgs SET slug = ? WHERE id = ?', [slug, org.id]);
  }
}
