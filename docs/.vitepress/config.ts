/**
 * The documentation site's configuration (VitePress 1.6). The site makes no request outside its
 * own origin: local search (built at build time), bundled fonts, no social icons, no Algolia.
 * `npm run docs:build` writes the API reference (`docs/api/`, TypeDoc) and its sidebar before
 * VitePress builds; without them the guide still builds, with an empty API sidebar.
 *
 * A fence ```` ```ts old-api ```` (code of an older release) renders as TypeScript with no option
 * here: VitePress takes a fence's first word as its language. The docs check does not compile it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';
import { guideSidebar } from './sidebar.js';

const TYPEDOC_SIDEBAR = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));

/** The API reference's sidebar as typedoc-vitepress-theme writes it, below a way back to the guide. */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const modules: DefaultTheme.SidebarItem[] = existsSync(TYPEDOC_SIDEBAR)
    ? JSON.parse(readFileSync(TYPEDOC_SIDEBAR, 'utf8'))
    : [];
  return [
    { text: 'Guide', items: [{ text: 'Back to the guide', link: '/' }] },
    { text: 'API reference', link: '/api/', items: modules },
  ];
}

export default defineConfig({
  title: 'sqs-inbox',
  description:
    'Exactly-once effects for AWS SQS → Lambda consumers: a DynamoDB transactional inbox and the CDK construct that deploys it.',
  lang: 'en-GB',
  cleanUrls: true,
  ignoreDeadLinks: false,
  // Built from git history, which a tarball or a shallow clone may not have.
  lastUpdated: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  themeConfig: {
    logo: { src: '/favicon.svg', alt: '' },
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/getting-started/quick-start' },
      { text: 'Reference', link: '/reference/configuration' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: { '/api/': apiSidebar(), '/': guideSidebar },
    outline: { level: [2, 3] },
  },
});
