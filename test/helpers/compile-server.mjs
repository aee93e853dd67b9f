// The suite's compiler: one process, started by the global setup, that runs `tsc -p <config>` for every
// test file's generated project and answers with what tsc prints (`--pretty false`). Each tsc process
// parsed and bound the same libraries and declarations (ES2022, zod, the SDK, the runtime) again,
// most of its two to six CPU-seconds; here declaration files parsed once serve every later program
// compiled with the same options, as the compiler's own watch mode reuses them.
// Two compilers, each a thread with declarations of its own: with one, a test's compile of a second
// waited behind another file's corpus of ten, and its worker's core idled meanwhile.
// Protocol: one JSON line per request on the Unix socket in argv[2], `{ "config": path }`, answered by
// one JSON line, `{ "output": text }`, in order.
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import ts from "typescript";

const COMPILERS = 2;
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

if (isMainThread) serve(process.argv[2]);
else parentPort.on("message", (config) => parentPort.postMessage(compileReporting(config)));

function compileReporting(config) {
  try {
    return compile(config);
  } catch (error) {
    return `the suite's compiler failed: ${error instanceof Error ? error.stack : String(error)}`;
  }
}

/** Hands each request to an idle compiler, or queues it for the first one free. */
function serve(socket) {
  const queue = [];
  const idle = Array.from({ length: COMPILERS }, () => {
    const compiler = new Worker(new URL(import.meta.url));
    compiler.unref();
    return compiler;
  });
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const { config, answer } = queue.shift();
      const compiler = idle.pop();
      compiler.once("message", (output) => {
        idle.push(compiler);
        answer(output);
        dispatch();
      });
      compiler.postMessage(config);
    }
  };
  const server = createServer((connection) => {
    const lines = createInterface({ input: connection, crlfDelay: Number.POSITIVE_INFINITY });
    // Answers go back in the order the connection asked.
    let answered = Promise.resolve();
    lines.on("line", (line) => {
      const { config } = JSON.parse(line);
      const output = new Promise((answer) => {
        queue.push({ config, answer });
        dispatch();
      });
      answered = answered.then(() => output).then((text) => void connection.write(`${JSON.stringify({ output: text })}\n`));
    });
    connection.on("error", () => connection.destroy());
  });
  server.listen(socket, () => process.stdout.write("ready\n"));
  // Ends with the suite: the global setup closes stdin on teardown, or its process exits.
  process.stdin.on("close", () => server.close(() => process.exit(0)));
  process.stdin.resume();
}
