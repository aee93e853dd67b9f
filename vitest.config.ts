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

// test/.output holds generated projects, with their dependencies' own tests: never collected.
const OUTPUT = "test/.output/**";

/** The pure tiers (unit, property): the sources through RUNTIME_SOURCES, so no build, and no global setup. */
const pure = {
  ssr: { resolve: { conditions: [RUNTIME_SOURCES, ...defaultServerConditions] } },
  // Pure modules keep no state between files: one module graph per worker, not one per file,
  // which took a third of the project's time in imports.
  test: { isolate: false, exclude: [OUTPUT] },
};

/** The tiers that run dist/ (integration, toolchains): the global setup checks the build, exports the reference servers once and starts tsc. */
const built = { exclude: [OUTPUT], globalSetup: ["test/global-setup.ts"] };

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
    // Four tiers, each a folder of test/ and an npm script (npm run test:<tier>); npm test runs them all.
    projects: [
      {
        extends: true,
        ssr: pure.ssr,
        test: {
          // Pure modules from src/, run from their sources: no build, no child process, no server.
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          ...pure.test,
        },
      },
      {
        extends: true,
        ssr: pure.ssr,
        test: {
          // Pure too, but long: property-based tests and the corpus, sampled unless PMCP_FULL_TESTS=1.
          name: "property",
          include: ["test/property/**/*.test.ts"],
          ...pure.test,
        },
      },
      {
        extends: true,
        test: {
          // The CLI and the servers, run from dist/ against the reference servers' export.
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          ...built,
        },
      },
      {
        extends: true,
        test: {
          // What costs an external toolchain: tsc over many generated files, cargo, nginx, Deno; from dist/ too.
          name: "toolchains",
          include: ["test/toolchains/**/*.test.ts"],
          ...built,
        },
      },
    ],
  },
});
