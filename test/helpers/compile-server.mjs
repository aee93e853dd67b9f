// The suite's compiler: one process, started by the global setup, that runs `tsc -p <config>` for every
// test file's generated project and answers with what tsc prints (`--pretty false`). Each tsc process
// parsed and bound the same libraries and declarations (ES2022, zod, the SDK, the runtime) again,
// most of its two to six CPU-seconds; here declaration files parsed once serve every later program
// compiled with the same options, as the compiler's own watch mode reuses them.
// Protocol: one JSON line per request on the Unix socket in argv[2], `{ "config": path }`, answered by
// one JSON line, `{ "output": text }`, in order.
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import ts from "typescript";

const socket = process.argv[2];
/** Declaration files by name and parse options, kept while their text is unchanged. */
const declarations = new Map();
const formatHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => "\n",
};

function compilerHost(options) {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, parseOptions, onError, shouldCreate) => {
    if (!/\.d\.[cm]?ts$/.test(fileName)) return parse(fileName, parseOptions, onError, shouldCreate);
    const text = host.readFile(fileName);
    if (text === undefined) return parse(fileName, parseOptions, onError, shouldCreate);
    const key = JSON.stringify([fileName, parseOptions, bindingOptions(options)]);
    const known = declarations.get(key);
    if (known?.text === text) return known.file;
    const file = ts.createSourceFile(fileName, text, parseOptions);
    declarations.set(key, { text, file });
    return file;
  };
  return host;
}

/** The options a parse or a bind of a file can depend on: all but those naming the project's own paths. */
function bindingOptions(options) {
  const { configFilePath, outDir, rootDir, noEmit, declarationDir, tsBuildInfoFile, ...rest } = options;
  return rest;
}

/** What `tsc -p config --pretty false` prints, emitting where the config says so. */
function compile(config) {
  const problems = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => problems.push(d) },
  );
  if (parsed === undefined) return ts.formatDiagnostics(problems, formatHost).trim();
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    host: compilerHost(parsed.options),
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
    projectReferences: parsed.projectReferences,
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program)];
  if (!parsed.options.noEmit) diagnostics.push(...program.emit().diagnostics);
  return ts.formatDiagnostics(ts.sortAndDeduplicateDiagnostics(diagnostics), formatHost).trim();
}

const server = createServer((connection) => {
  const lines = createInterface({ input: connection, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line) => {
    let output;
    try {
      output = compile(JSON.parse(line).config);
    } catch (error) {
      output = `the suite's compiler failed: ${error instanceof Error ? error.stack : String(error)}`;
    }
    connection.write(`${JSON.stringify({ output })}\n`);
  });
  connection.on("error", () => connection.destroy());
});
server.listen(socket, () => process.stdout.write("ready\n"));
// Ends with the suite: the global setup closes stdin on teardown, or its process exits.
process.stdin.on("close", () => server.close(() => process.exit(0)));
process.stdin.resume();
