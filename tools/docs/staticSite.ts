import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { servedFile } from './siteLinks.js';

/** A running static server: its origin (`http://127.0.0.1:PORT`) and how to stop it. */
export interface StaticSite {
  readonly origin: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

async function serve(dist: string, request: IncomingMessage, response: ServerResponse) {
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  const file = servedFile(dist, pathname);
  const status = file === undefined ? 404 : 200;
  const path = join(dist, file ?? '404.html');
  const body = await readFile(path).catch(() => Buffer.from('not found'));
  const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
  response.writeHead(status, { 'content-type': type, 'content-length': body.length });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * Serves a built VitePress site from `dist` on 127.0.0.1 at a free port, as a static host
 * with `cleanUrls` does: `/a/b` from `a/b.html`, `/a/` from `a/index.html`, files as they are,
 * and anything else with status 404 and the site's 404.html.
 *
 * @example
 * ```ts
 * const site = await serveStaticSite('docs/.vitepress/dist');
 * onShutdown(() => site.close());
 * await fetch(`${site.origin}/concepts/batching`);
 * ```
 */
export async function serveStaticSite(dist: string): Promise<StaticSite> {
  const server = createServer((request, response) => {
    serve(dist, request, response).catch(() => {
      response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
