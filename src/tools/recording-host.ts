import { dirname } from "node:path";
import { type Observations, textDigest } from "./observations.js";
import ts from "./typescript.cjs";

type Answers = { [Kind in keyof Observations]: Map<string, Observations[Kind][number][1]> };

/**
 * The file system of one compile, through which the config lookup, the config parse and the
 * program ask all they ask (`ts.sys` answers), recording each question with its answer: what the
 * result depends on, for the cache to check again (observations.ts). Questions about TypeScript's
 * own lib folder are not recorded: the compiler's version stands for them.
 */
export class RecordingHost {
  private readonly answers: Answers = {
    read: new Map(),
    fileExists: new Map(),
    directoryExists: new Map(),
    directories: new Map(),
    realpath: new Map(),
  };
  /** False once a question got two answers: the files changed during the compile, so no answer describes what it read. */
  private steady = true;
  private readonly libFolder = `${dirname(ts.getDefaultLibFilePath({}))}/`;

  readonly fileExists = (path: string): boolean => this.record("fileExists", path, ts.sys.fileExists(path));
  readonly directoryExists = (path: string): boolean => this.record("directoryExists", path, ts.sys.directoryExists(path));
  readonly getDirectories = (path: string): string[] => this.record("directories", path, ts.sys.getDirectories(path));
  readonly realpath = (path: string): string => this.record("realpath", path, ts.sys.realpath?.(path) ?? path);
  readonly readFile = (path: string): string | undefined => {
    const text = ts.sys.readFile(path);
    this.record("read", path, text === undefined ? null : textDigest(text));
    return text;
  };

  /** For `ts.parseJsonConfigFileContent`, which also resolves the configs a config `extends`. */
  configHost(): ts.ParseConfigHost & ts.ModuleResolutionHost {
    const { fileExists, directoryExists, getDirectories, realpath, readFile } = this;
    return {
      useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
      fileExists,
      directoryExists,
      getDirectories,
      realpath,
      readFile,
      // Lists the files the config includes, which are never compiled: only the module and what it imports are.
      readDirectory: () => [],
    };
  }

  /** For `ts.createProgram`: the default host, asking through this file system. */
  compilerHost(options: ts.CompilerOptions): ts.CompilerHost {
    const { fileExists, directoryExists, getDirectories, realpath, readFile } = this;
    // Assigned onto the host itself: its getSourceFile reads through `host.readFile`.
    return Object.assign(ts.createCompilerHost(options), { fileExists, directoryExists, getDirectories, realpath, readFile });
  }

  /** Every question asked with its answer, in the order first asked; undefined when one got two answers. */
  observations(): Observations | undefined {
    if (!this.steady) return undefined;
    return {
      read: [...this.answers.read],
      fileExists: [...this.answers.fileExists],
      directoryExists: [...this.answers.directoryExists],
      directories: [...this.answers.directories],
      realpath: [...this.answers.realpath],
    };
  }

  private record<Kind extends keyof Observations, Answer extends Observations[Kind][number][1]>(
    kind: Kind,
    path: string,
    answer: Answer,
  ): Answer {
    if (path.startsWith(this.libFolder)) return answer;
    const answers = this.answers[kind] as Map<string, Answer>;
    const earlier = answers.get(path);
    if (earlier === undefined) answers.set(path, answer);
    else if (JSON.stringify(earlier) !== JSON.stringify(answer)) this.steady = false;
    return answer;
  }
}
