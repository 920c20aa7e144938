/**
 * The rooms of src/, lowest first. A room imports only rooms of lower layers, never one of its
 * own layer or above, so dependencies between rooms point one way. Entry files (`src/*.ts` but
 * `errors.ts`, the errors room's own entry, and each room's `index.ts` that a package entry
 * names) only re-export, and no room imports them.
 */
const LAYERS = [
  ['constants'],
  ['errors'],
  ['runtime', 'sources', 'outbox', 'contention', 'retry'],
  ['core'],
  ['steps', 'precheck'],
  ['coalescing'],
  ['record'],
  ['aws'],
  ['batch', 'environment'],
  ['relay'],
  ['operations'],
  // The adapters on top: the operator's command, the OpenTelemetry adapter (it implements the
  // core's tracer port, and nothing imports it), and the testing kit (an in-memory DynamoDB and
  // SQS, event factories and a harness: for users' tests, never loaded by the root entry).
  ['cli', 'otel', 'testing'],
];
const roomPath = (rooms) =>
  `^src/(${rooms.map((room) => (room === 'errors' ? 'errors(/|\\.ts$)' : `${room}/`)).join('|')})`;
const ENTRIES = '^src/(index|types)\\.ts$|^src/(constants|relay|cdk|otel|testing)/index\\.ts$';

const layerRules = LAYERS.flatMap((rooms, index) =>
  rooms.flatMap((room) => {
    const above = LAYERS.slice(index)
      .flat()
      .filter((other) => other !== room);
    if (above.length === 0) return [];
    return {
      name: `layer-${room}`,
      comment: `${room} may import only ${LAYERS.slice(0, index).flat().join(', ') || 'no other room'}.`,
      severity: 'error',
      from: { path: roomPath([room]), pathNot: ENTRIES },
      to: { path: roomPath(above) },
    };
  }),
);

/**
 * The layering rules of ../shared/STYLE.md, checked by `npm run lint` (in `npm test`).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-import-of-entries',
      comment: 'A package entry only re-exports: no module of the library imports one.',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRIES },
      to: { path: ENTRIES },
    },
    {
      name: 'cdk-above-the-library',
      comment:
        'The constructs use the library only for its names and rules (constants, errors, sources), never its runtime rooms.',
      severity: 'error',
      from: { path: '^src/cdk/' },
      to: { path: '^src/(?!cdk/|constants/|errors|sources/)' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle in src/ or tools/, type-only imports included.',
      severity: 'error',
      from: { path: '^(src|tools)/' },
      to: { circular: true },
    },
    {
      name: 'sdk-only-in-aws',
      comment:
        "Only aws/ builds AWS SDK values (clients, commands), and the testing kit, whose in-memory DynamoDB answers with the SDK's own exceptions and commands; other rooms may name their types and use util-dynamodb (marshall, unmarshall: pure functions, no I/O).",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(aws|testing)/' },
      to: {
        path: '@aws-sdk/',
        pathNot: '@aws-sdk/util-dynamodb/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'cdk-lib-only-in-cdk',
      comment: 'Only cdk/ imports aws-cdk-lib and constructs.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cdk/' },
      to: { path: 'node_modules/(aws-cdk-lib|constructs)/' },
    },
    {
      name: 'otel-only-in-otel',
      comment:
        'Only otel/ imports @opentelemetry: without a tracer, a processor loads no OpenTelemetry module.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/otel/' },
      to: { path: '@opentelemetry/' },
    },
    {
      name: 'src-stands-alone',
      comment: 'The library imports nothing of the repo around it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tools|test|functions|infra|bench|scripts|examples)/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Not node_modules: the SDK and aws-cdk-lib rules look at edges into it (doNotFollow keeps
    // the cruise out of it).
    exclude: { path: '^(dist|cdk\\.out|\\.cache)/' },
  },
};
