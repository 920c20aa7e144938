// CommonJS in both builds (a .cts file compiles to .cjs), so that `__dirname` is this room's
// directory from the ES module build, the CommonJS build and the source alike.
export = __dirname;
