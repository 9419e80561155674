import { expect } from 'chai';
import { resolveLocale } from '../src/index.js';

const SHIPPED = ['en', 'es', 'fr', 'de', 'pt', 'ja', 'ar', 'zh-Hant'];

describe('resolveLocale', () => {
  const cases: [string, Parameters<typeof resolveLocale>, string][] = [
    ['the requested locale when shipped', ['fr', 'de', 'es', SHIPPED], 'fr'],
    ['pt-BR → pt', ['pt-BR', undefined, 'en', SHIPPED], 'pt'],
    ['the page language when the requested one is not shipped', ['sv', 'de-AT', 'es', SHIPPED], 'de'],
    ['the integration default when neither is shipped', ['sv', 'fi-FI', 'es', SHIPPED], 'es'],
    ['en when nothing matches', ['sv', 'fi', 'nl', SHIPPED], 'en'],
    ['the page language when nothing is requested', [undefined, 'ja-JP', 'en', SHIPPED], 'ja'],
    ['an empty request as no request', ['', 'ar-EG', 'en', SHIPPED], 'ar'],
    ['case and underscores ignored, shipped spelling returned', ['ZH_hant_tw', null, 'en', SHIPPED], 'zh-Hant'],
    ['a region-less match several subtags up', ['zh-Hant-TW-x-private', null, 'en', SHIPPED], 'zh-Hant'],
    ['an extension dropped with its singleton', ['de-u-co-phonebk', null, 'en', SHIPPED], 'de'],
    ['the first shipped when even en is not shipped', ['sv', null, null, ['fr', 'de']], 'fr'],
  ];
  for (const [what, args, expected] of cases) {
    it(`returns ${what}`, () => expect(resolveLocale(...args)).to.equal(expected));
  }
});
