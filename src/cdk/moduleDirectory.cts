// CommonJS in both builds (a .cts file compiles to .cjs), so that `__dirname` is this room's
// directory from the ES module build, the CommonJS build (where `import.meta` does not compile)
// and the source alike: dist/esm/cdk, dist/cjs/cdk or src/cdk.
export = __dirname;
