import { expect } from 'chai';
import { InvalidArgument } from '@svc/kit';
import type { HelpFolderRow } from '../src/entities';
import { excerptOf } from '../src/domain/public/excerpt';
import { subtreeCounts, treeOrder } from '../src/domain/public/published-help';
import { ReaderLocales } from '../src/domain/public/reader-locales';

const folder = (id: string, parentId: string | null, position = 0) =>
  ({ id, parentId, name: id, position }) as HelpFolderRow;

describe('content public reads', () => {
  describe('ReaderLocales.pick', () => {
    it('tries the asked-for tag, its prefixes, the integration default, then the item default', () => {
      const reader = new ReaderLocales('pt-br', 'de');
      expect(reader.pick(new Set(['pt-BR', 'pt', 'de', 'en']), 'en')).to.equal('pt-BR');
      expect(reader.pick(new Set(['pt', 'de', 'en']), 'en')).to.equal('pt');
      expect(reader.pick(new Set(['de', 'en']), 'en')).to.equal('de');
      expect(reader.pick(new Set(['en', 'fr']), 'en')).to.equal('en');
      expect(reader.pick(new Set(['fr']), 'en')).to.equal(undefined);
    });

    it('starts at the integration default when no locale is asked for, and refuses a malformed one', () => {
      expect(new ReaderLocales('', 'de').pick(new Set(['de', 'en']), 'en')).to.equal('de');
      expect(new ReaderLocales('  ', '').pick(new Set(['de', 'en']), 'en')).to.equal('en');
      expect(() => new ReaderLocales('not a locale!', 'en')).to.throw(InvalidArgument, /locale/);
    });
  });

  describe('excerptOf', () => {
    it('answers the body as plain text, entities decoded and paragraphs apart', () => {
      expect(excerptOf('<h1>Title</h1><p>Fish &amp; <strong>chips</strong></p><ul><li>a</li><li>b</li></ul>')).to.equal(
        'Title Fish & chips a b',
      );
    });

    it('cuts a long body at a word, with an ellipsis', () => {
      const excerpt = excerptOf(`<p>${'word '.repeat(100)}</p>`);
      expect(excerpt.length).to.be.at.most(201);
      expect(excerpt).to.match(/word…$/);
    });
  });

  describe('subtreeCounts and treeOrder', () => {
    it('counts an article in its folder and every ancestor, and orders folders depth first', () => {
      const folders = [folder('a', null, 1), folder('b', 'a', 1), folder('c', null, 0), folder('d', 'a', 0)];
      const counts = subtreeCounts(folders, ['b', 'b', 'c', null]);
      expect(Object.fromEntries(counts)).to.deep.equal({ a: 2, b: 2, c: 1 });
      const sorted = [...folders].sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1));
      expect(treeOrder(sorted).map(({ folder, depth }) => `${folder.id}${depth}`)).to.deep.equal([
        'c0',
        'a0',
        'd1',
        'b1',
      ]);
    });

    it('stops at a parent link that loops instead of running forever', () => {
      const folders = [folder('x', 'y'), folder('y', 'x')];
      expect(Object.fromEntries(subtreeCounts(folders, ['x']))).to.deep.equal({ x: 1, y: 1 });
    });
  });
});
