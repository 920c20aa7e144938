/**
 * The documentation's page tree: the sidebar of every guide page. A page is listed here once;
 * `docs/api/` (TypeDoc) and `docs/reference/` (generated from TSDoc) are written by
 * `npm run docs:build` and are not in git.
 */
type SidebarItem = { text: string; link?: string; items?: SidebarItem[]; collapsed?: boolean };

export const guideSidebar: SidebarItem[] = [
  {
    text: 'Getting started',
    items: [
      { text: 'Installation', link: '/getting-started/installation' },
      { text: 'Quick start', link: '/getting-started/quick-start' },
      { text: 'With middy and Powertools', link: '/getting-started/with-middy' },
    ],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'How a message flows', link: '/concepts/how-it-works' },
      { text: 'Dedup keys and TTL', link: '/concepts/dedup-keys' },
      { text: 'Pre-check, coalescing, hot items', link: '/concepts/batching' },
      { text: 'Guarantees', link: '/concepts/guarantees' },
      { text: 'Limitations', link: '/concepts/limitations' },
    ],
  },
  {
    text: 'Features',
    items: [
      { text: 'Steps: effects outside DynamoDB', link: '/features/steps' },
      { text: 'Sources: SNS, EventBridge, S3', link: '/features/sources' },
      { text: 'FIFO queues', link: '/features/fifo' },
      { text: 'Outbox and relay', link: '/features/outbox' },
      { text: 'Retries', link: '/features/retries' },
      { text: 'Observability', link: '/features/observability' },
    ],
  },
  {
    text: 'Infrastructure',
    items: [
      { text: 'The InboxConsumer construct', link: '/construct/inbox-consumer' },
      { text: 'The OutboxRelay construct', link: '/construct/outbox-relay' },
      { text: 'Without the construct', link: '/construct/without-the-construct' },
    ],
  },
  { text: 'Testing your code', link: '/testing' },
  {
    text: 'Operations',
    items: [
      { text: 'The operations CLI', link: '/operations/cli' },
      { text: 'Runbooks', link: '/operations/runbooks' },
      { text: 'Alarms and dashboard', link: '/operations/alarms' },
      { text: 'Deploying', link: '/operations/deploying' },
      { text: 'Verify on your account', link: '/operations/verify' },
    ],
  },
  { text: 'Performance', link: '/performance' },
  { text: 'Migrating from Powertools idempotency', link: '/migrating-from-powertools' },
  {
    text: 'Reference',
    items: [
      { text: 'Configuration', link: '/reference/configuration' },
      { text: 'Environment variables', link: '/reference/environment' },
      { text: 'Metrics', link: '/reference/metrics' },
      { text: 'Errors', link: '/reference/errors' },
      { text: 'API', link: '/api/' },
    ],
  },
  {
    text: 'Project',
    items: [
      { text: 'Versioning policy', link: '/versioning' },
      { text: 'Changelog', link: '/changelog' },
      { text: 'Internals', link: '/internals/' },
      { text: 'How it is tested', link: '/internals/how-it-is-tested' },
      { text: 'Reference service', link: '/internals/reference-service' },
      { text: 'Local emulators', link: '/internals/local-emulators' },
      { text: 'The simulation', link: '/internals/simulation' },
      { text: 'Chaos runs', link: '/internals/chaos' },
    ],
  },
];
