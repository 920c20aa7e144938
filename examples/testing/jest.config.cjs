// Jest with ts-jest, compiling to CommonJS: `npx jest --config jest.config.cjs`.
/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  testMatch: ['**/*.jest.test.ts'],
  // Sources written for NodeNext import './ledger.js'; the file is ledger.ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true } },
    ],
  },
};
