// Run by `node --build-snapshot` (checker-snapshot.ts): a checker process as it is before its first
// message, with the compiler evaluated and the program library parsed and bound. Only Node's own
// modules can be required while a snapshot is built, so the compiler is evaluated from its file.
import fs = require("node:fs");
import Module = require("node:module");
import path = require("node:path");
import v8 = require("node:v8");
import vm = require("node:vm");
import type * as TS from "typescript";

interface SnapshotInput {
  /** typescript.js, as the checker's own `require("typescript")` resolves it. */
  typescript: string;
  options: TS.CompilerOptions;
  registryKey: string;
}

const input = JSON.parse(process.env.PMCP_CHECKER_SNAPSHOT ?? "null") as SnapshotInput;
const compiled = vm.compileFunction(fs.readFileSync(input.typescript, "utf8"), ["exports", "require", "module", "__filename", "__dirname"], {
  filename: input.typescript,
});
const loaded = { exports: {} as typeof TS };
compiled(loaded.exports, require, loaded, input.typescript, path.dirname(input.typescript));
const ts = loaded.exports;

// A service over one empty program reads, parses and binds the library into the registry, which
// the checker's own service then takes them from. It is never disposed: that would release them.
const registry = ts.createDocumentRegistry();
const libDir = path.dirname(ts.getDefaultLibFilePath(input.options));
const EMPTY = "/pmcp/empty.ts";
const read = (file: string) => (file === EMPTY ? "" : fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
const service = ts.createLanguageService(
  {
    getCompilationSettings: () => input.options,
    getScriptFileNames: () => [EMPTY],
    getScriptVersion: () => "0",
    getScriptSnapshot: (file) => {
      const text = read(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => "/pmcp",
    getDefaultLibFileName: (options) => path.join(libDir, ts.getDefaultLibFileName(options)),
    fileExists: (file) => read(file) !== undefined,
    readFile: read,
  },
  registry,
);
service.getSemanticDiagnostics(EMPTY);

v8.startupSnapshot.setDeserializeMainFunction(() => {
  // The checker's script, given as the process's entry; its `require("typescript")` gets the compiler above.
  const entry = process.argv[1] as string;
  const load = Module.createRequire(entry);
  const compiler = new Module(input.typescript);
  compiler.filename = input.typescript;
  compiler.loaded = true;
  compiler.exports = ts;
  load.cache[input.typescript] = compiler;
  (globalThis as Record<string, unknown>)[input.registryKey] = registry;
  load(entry);
});
