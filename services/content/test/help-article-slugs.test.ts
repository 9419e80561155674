import { expect } from 'chai';
import { MAX_SLUG_LENGTH, checkSlug, slugOf } from '../src/domain/help-articles/slugs';

describe('help article slugs', () => {
  it('folds a title to lower-case words joined by dashes, accents and punctuation gone', () => {
    expect(slugOf('  Réinitialiser le mot de passe ! ')).to.equal('reinitialiser-le-mot-de-passe');
    expect(slugOf('Straße & Co. — 2FA (v2)')).to.equal('strasse-co-2fa-v2');
    expect(slugOf('Ｆｕｌｌ width')).to.equal('full-width');
    expect(slugOf('Как сбросить пароль')).to.equal('как-сбросить-пароль');
  });

  it('cuts a long title at a word boundary, a single long word at the limit, and names a wordless title', () => {
    const long = slugOf(Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '));
    expect([...long].length).to.be.at.most(MAX_SLUG_LENGTH);
    expect(long).to.match(/^word0-word1-.*-word\d+$/);
    expect(slugOf('x'.repeat(200))).to.equal('x'.repeat(MAX_SLUG_LENGTH));
    expect(slugOf('!!! ??? …')).to.equal('article');
  });

  it('accepts a chosen slug only in slug form', () => {
    expect(checkSlug('getting-started-2')).to.equal('getting-started-2');
    for (const bad of ['', 'Upper', 'two--dashes', '-lead', 'trail-', 'sp ace', 'under_score', 'a'.repeat(81)])
      expect(() => checkSlug(bad), bad).to.throw('slug must be');
  });
});
