/**
 * The layering rules of ../shared/STYLE.md, checked by `npm run lint:deps` (in `npm test`).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle in src/ or tools/, type-only imports included.',
      severity: 'error',
      from: { path: '^(src|tools)/' },
      to: { circular: true },
    },
    {
      name: 'core-knows-no-adapter',
      comment:
        'The per-record engine (core/) depends on no adapter room: not on aws/ (the DynamoDB and SQS I/O), cdk/, relay/, batch/ or environment/.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(aws|cdk|relay|batch|environment)/' },
    },
    {
      name: 'sdk-only-in-aws',
      comment:
        'Only aws/ builds AWS SDK values (clients, commands); other rooms may name their types.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/aws/' },
      to: { path: '@aws-sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cdk-lib-only-in-cdk',
      comment: 'Only cdk/ imports aws-cdk-lib and constructs.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cdk/' },
      to: { path: 'node_modules/(aws-cdk-lib|constructs)/' },
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
    exclude: { path: '^(node_modules|dist|cdk\\.out|\\.cache)/' },
  },
};
