import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSiteLinks, htmlFiles, pageUrl } from '../../../../tools/docs/siteLinks.js';

const page = (body: string) => `<!doctype html><html><body id="top">${body}</body></html>`;

/** A built site as VitePress writes it with cleanUrls; `extra` adds or replaces pages. */
function writeSite(extra: Record<string, string> = {}): string {
  const dist = mkdtempSync(join(tmpdir(), 'docs-site-'));
  const files: Record<string, string> = {
    'index.html': page(
      '<a href="/concepts/batching#the-pre-check-read">pre-check</a><a href="/api/">API</a>' +
        '<a href="https://example.com/x#y">out</a><a href="mailto:a@b.c">mail</a><a href="/favicon.svg">icon</a>',
    ),
    'concepts/batching.html': page(
      '<h2 id="the-pre-check-read">The pre-check read</h2><a href="#top">top</a>' +
        '<a href="./how-it-works#the-flow">flow</a><a href="../api/#caf%C3%A9">café</a><a href="/?q=a&amp;b=c">home</a>',
    ),
    'concepts/how-it-works.html': page('<h2 id="the-flow">The flow</h2>'),
    'api/index.html': page('<a id="café"></a>'),
    'favicon.svg': '<svg/>',
    ...extra,
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    writeFileSync(join(dist, file), text);
  }
  return dist;
}

describe('checkSiteLinks', () => {
  const dists: string[] = [];
  const site = (extra?: Record<string, string>) => {
    const dist = writeSite(extra);
    dists.push(dist);
    return dist;
  };
  afterEach(() => {
    for (const dist of dists.splice(0)) rmSync(dist, { recursive: true, force: true });
  });

  it('passes a site whose internal links (clean URLs, relative, folder index, assets, encoded anchors) all resolve, and does not follow links with a scheme', () => {
    expect(checkSiteLinks(site())).toEqual({ pages: 4, links: 7, broken: [] });
  });

  it('fails a link to a page that does not exist', () => {
    const dist = site({ 'testing.html': page('<a href="/concepts/batchin">typo</a>') });
    expect(checkSiteLinks(dist).broken).toEqual([
      { page: '/testing', href: '/concepts/batchin', reason: 'no page or file /concepts/batchin' },
    ]);
  });

  it('fails a link to an anchor the page does not have, on another page or its own', () => {
    const dist = site({
      'testing.html': page(
        '<a href="/concepts/batching#the-precheck-read">x</a><a href="#nowhere">y</a>',
      ),
    });
    expect(checkSiteLinks(dist).broken).toEqual([
      {
        page: '/testing',
        href: '/concepts/batching#the-precheck-read',
        reason: 'no anchor #the-precheck-read on /concepts/batching',
      },
      { page: '/testing', href: '#nowhere', reason: 'no anchor #nowhere on /testing' },
    ]);
  });
});

describe('pageUrl', () => {
  it('gives the clean URL a built page is served at', () => {
    expect(['index.html', 'api/index.html', 'concepts/batching.html'].map(pageUrl)).toEqual([
      '/',
      '/api/',
      '/concepts/batching',
    ]);
  });
});

describe('htmlFiles', () => {
  it('lists the built pages under a folder, sorted, with no other file', () => {
    const dist = writeSite();
    try {
      expect(htmlFiles(dist)).toEqual([
        'api/index.html',
        'concepts/batching.html',
        'concepts/how-it-works.html',
        'index.html',
      ]);
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
