import { describe, expect, it } from 'vitest';
import { languageSwitchUrl, loadingPageReturn } from './languageRoute';
import { publicFontSize } from './useRootFontSize';
import { backLinkFor } from './backLink';

describe('language switch round trip', () => {
  it('carries path, query and hash through /loading-page and back', () => {
    const url = languageSwitchUrl({ pathname: '/mark/ocr', search: '?img=3&x=a b', hash: '#top' }, 'de');
    expect(url.startsWith('/loading-page?')).toBe(true);
    expect(loadingPageReturn(url.slice(url.indexOf('?')))).toEqual({ lang: 'de', to: '/mark/ocr?img=3&x=a b#top' });
  });

  it('never leaves the site and ignores unknown languages', () => {
    expect(loadingPageReturn('?lang=xx&path=//evil.example/x').to).toBe('/');
    expect(loadingPageReturn('?lang=xx&path=https://evil.example').to).toBe('/');
    expect(loadingPageReturn('?lang=xx&path=/profile').lang).toBeNull();
  });
});

describe('layout rules', () => {
  it('scales the public root font with the window height', () => {
    expect(publicFontSize(768)).toBe(16);
    expect(publicFontSize(1080)).toBeCloseTo(22.5);
  });

  it('shows the model-list link on working pages and the dashboard link to administrators', () => {
    expect(backLinkFor('/mark/ocr', '0')?.to).toBe('/agentList');
    expect(backLinkFor('/mark/ocr', '1')?.to).toBe('/agentList');
    expect(backLinkFor('/profile', '1')?.to).toBe('/dashboard');
    expect(backLinkFor('/profile', '0')).toBeNull();
    expect(backLinkFor('/dashboard', '1')).toBeNull();
  });
});
