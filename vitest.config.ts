import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * The export condition under which @pmcp-codegen/runtime resolves to its TypeScript sources
 * (packages/runtime/package.json), so that the unit tests need no build.
 */
const RUNTIME_SOURCES = "@pmcp-codegen/source";

// The suite starts hundreds of Node processes (workers, fixture and third-party servers, the CLI), each
// compiling the same modules again; with Node's compile cache, which the CLI enables for itself, they
// start about 15 % faster. Set here, before any worker is forked, so that every process inherits it.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "node-compile-cache");

export default defineConfig({
  resolve: {
    // src/tools/typescript.cts loads the compiler by require, for the CLI's start-up; Vite compiles no .cts,
    // and under vitest nothing is gained: its importers get the package itself.
    alias: [{ find: /^(?:\.\.\/tools|\.)\/typescript\.cjs$/, replacement: "typescript" }],
  },
  test: {
    // Tests spawn real servers; two cores are shared between them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        ssr: { resolve: { conditions: [RUNTIME_SOURCES, ...defaultServerConditions] } },
        test: {
          // Pure modules from src/: no build, no server, no global setup (npm run test:unit).
          name: "unit",
          include: ["test/**/*.unit.test.ts"],
          // Pure modules keep no state between files: one module graph per worker, not one per file,
          // which took a third of the project's time in imports.
          isolate: false,
          exclude: ["test/.output/**"],
        },
      },
      {
        extends: true,
        test: {
          // The CLI and the servers, run from dist/ against the reference servers' export.
          name: "integration",
          include: ["test/**/*.test.ts"],
          // test/.output holds generated projects, with their dependencies' own tests: never collected.
          exclude: ["test/**/*.unit.test.ts", "test/.output/**"],
          globalSetup: ["test/global-setup.ts"],
        },
      },
    ],
  },
});
