import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StaticSite, serveStaticSite } from '../../../../tools/docs/staticSite.js';

describe('serveStaticSite', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-serve-'));
  const dist = join(root, 'dist');
  let site: StaticSite;

  beforeAll(async () => {
    mkdirSync(join(dist, 'api'), { recursive: true });
    writeFileSync(join(root, 'secret.txt'), 'outside the site');
    writeFileSync(join(dist, 'index.html'), 'home');
    writeFileSync(join(dist, 'testing.html'), 'testing');
    writeFileSync(join(dist, 'api', 'index.html'), 'api');
    writeFileSync(join(dist, 'favicon.svg'), '<svg/>');
    writeFileSync(join(dist, '404.html'), 'not here');
    site = await serveStaticSite(dist);
  });

  afterAll(async () => {
    await site.close();
    rmSync(root, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(site.origin + path);
    return [response.status, response.headers.get('content-type'), await response.text()];
  };

  it('serves pages at their clean URLs on 127.0.0.1, and files as they are', async () => {
    expect(site.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get('/')).toEqual([200, 'text/html; charset=utf-8', 'home']);
    expect(await get('/testing')).toEqual([200, 'text/html; charset=utf-8', 'testing']);
    expect(await get('/api/')).toEqual([200, 'text/html; charset=utf-8', 'api']);
    expect(await get('/favicon.svg')).toEqual([200, 'image/svg+xml', '<svg/>']);
  });

  it('answers anything else, a path out of the site too, with 404 and the site’s 404 page', async () => {
    expect(await get('/nope')).toEqual([404, 'text/html; charset=utf-8', 'not here']);
    expect(await get('/..%2fsecret.txt')).toEqual([404, 'text/html; charset=utf-8', 'not here']);
  });
});
