/**
 * The JavaScript that runs first in every sandbox VM: this module, bundled with the runtime's
 * content-block rules (scripts/bundle-guest.mjs) into one text that evaluates to `guestPrelude`.
 * It gets the three bridge functions and the bindings as a JSON string, so no caller-supplied name
 * is ever spliced into code, and returns `{ run(program), answer(callId, answerJson) }` for the
 * host. The bridges stay in its closure: the program sees only the globals made here. Intrinsics
 * are captured when the VM evaluates the text, before the program runs, so a program that replaces
 * `JSON` or `Object` breaks only itself.
 *
 * Bridges (host functions, strings and numbers only, each returning undefined):
 * `call(callId, index, argsJson)` asks for a tool call, whose answer JSON `{ ok, value | error }`
 * comes back through the returned `answer(callId, answerJson)`; `log(level, text)`;
 * `done("R" + resultJson | "E" + errorJson)`. The promise of each call is made here, in the
 * guest, so the host keeps no handle to it: an answer is freed as soon as the program drops it,
 * and a program's memory is what it keeps, however many calls it makes.
 *
 * It runs in QuickJS, not Node: it imports nothing but the runtime's rules for content blocks and
 * JSON values, which import nothing.
 */

import { type Blocks, blocksOf, type CallResult, contentOf, isRecord, jsonOf, wholeBlocks } from "@pmcp-codegen/runtime/internal/blocks";
import { jsonTextOf } from "@pmcp-codegen/runtime/internal/json";

const parse = JSON.parse;
const stringify = JSON.stringify;
const { assign, create, defineProperty, freeze, hasOwn } = Object;
const PromiseType = Promise;
const toText = String;
const ErrorType = Error;
const globals = globalThis as unknown as Record<string, unknown>;
// A program's Error.prepareStackTrace would get call sites whose getFunction() hands it this
// prelude's own closures (the answer of a call among them): there is none, and there can be none.
defineProperty(ErrorType, "prepareStackTrace", { value: undefined, writable: false, configurable: false });

/** An error as the host sent it, or as the runtime would throw it: the runtime's fields on a plain Error. */
interface ErrorData {
  name: string;
  code: string;
  serverId: string;
  toolName: string;
  message: string;
}

function callError(data: ErrorData, error: Error = new ErrorType()): Error {
  return assign(error, {
    message: data.message,
    name: data.name,
    code: data.code,
    serverId: data.serverId,
    toolName: data.toolName,
  });
}

/** The runtime's ToolResult (packages/runtime/src/tool-result.ts) over the result's JSON, judged by the same rules. */
class ToolResult {
  #json: { value: unknown } | undefined;

  constructor(
    readonly serverId: string,
    readonly toolName: string,
    readonly raw: CallResult,
  ) {}

  get content(): unknown[] {
    return contentOf(this.raw);
  }
  get blocks(): Blocks[keyof Blocks][] {
    return wholeBlocks(this.raw);
  }
  get text(): string {
    return blocksOf(this.raw, "text")
      .map((block) => block.text)
      .join("\n");
  }
  get images(): Blocks["image"][] {
    return blocksOf(this.raw, "image");
  }
  get audio(): Blocks["audio"][] {
    return blocksOf(this.raw, "audio");
  }
  get resourceLinks(): Blocks["resource_link"][] {
    return blocksOf(this.raw, "resource_link");
  }
  get resources(): Blocks["resource"][] {
    return blocksOf(this.raw, "resource");
  }
  get structuredContent(): unknown {
    return this.raw.structuredContent;
  }
  get isError(): boolean {
    return this.raw.isError === true;
  }
  json(): unknown {
    this.#json ??= { value: jsonOf(this.raw, (message) => this.#invalid(message)) };
    return this.#json.value;
  }
  get(key: string): unknown {
    const object = this.#object();
    return hasOwn(object, key) ? object[key] : undefined;
  }
  has(key: string): boolean {
    return hasOwn(this.#object(), key);
  }
  require(key: string): unknown {
    const object = this.#object();
    if (!hasOwn(object, key)) this.#invalid(`the result has no key ${stringify(key)}`);
    return object[key];
  }
  #object(): Record<string, unknown> {
    const value = this.json();
    if (!isRecord(value)) this.#invalid("the result's JSON is not an object");
    return value;
  }
  #invalid(message: string): never {
    throw callError({
      name: "InvalidResponseError",
      code: "INVALID_RESPONSE",
      serverId: this.serverId,
      toolName: this.toolName,
      message: `${this.serverId}/${this.toolName}: ${message}`,
    });
  }
}

/** The runtime's ParsedResult: a result with its value typed by what was learned from observations. */
class ParsedResult extends ToolResult {
  constructor(
    serverId: string,
    toolName: string,
    raw: CallResult,
    readonly value: unknown,
  ) {
    super(serverId, toolName, raw);
  }
}

/** One method of a server's global, as the host binds it. */
interface Binding {
  server: string;
  tool: string;
  method: string;
  index: number;
  /** What the method returns: the result's content, a parsed result, or the value alone. */
  returns: "content" | "parsed" | "value";
}

type Reply = { ok: true; value: unknown } | { ok: false; error: ErrorData };

/** The arguments' JSON text; what JSON would send as another value (a number that is not finite as null), or not at all, is refused. */
function argumentsJson(binding: Binding, args: unknown, site: Error): string {
  const written = jsonTextOf(args);
  if ("text" in written && written.text !== undefined) return written.text;
  const problem = "problem" in written ? written.problem : { pointer: "", reason: `a ${typeof args} has no JSON text` };
  const at = problem.pointer === "" ? "" : `${problem.pointer}: `;
  const message = `${binding.server}/${binding.tool}: the arguments cannot be sent as JSON: ${at}${problem.reason}`;
  throw callError({ name: "ArgumentError", code: "INVALID_ARGUMENTS", serverId: binding.server, toolName: binding.tool, message }, site);
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof ErrorType) return `${toText(value.name)}: ${toText(value.message)}`;
  try {
    const json: string | undefined = stringify(value);
    return json === undefined ? toText(value) : json;
  } catch {
    return toText(value);
  }
}

/** Where in the program the error was thrown: its innermost frame in program.js, if any. */
const PROGRAM_FRAME = /program\.js:(\d+):(\d+)/;

function describe(error: unknown): string {
  try {
    if (typeof error === "object" && error !== null) {
      const { name, message, stack } = error as { name?: unknown; message?: unknown; stack?: unknown };
      const at = PROGRAM_FRAME.exec(toText(stack));
      const position = at === null ? {} : { at: [Number(at[1]), Number(at[2])] };
      return stringify({ name: toText(name), message: toText(message), ...position });
    }
    return stringify({ name: "", message: toText(error) });
  } catch {
    return stringify({ name: "", message: "a thrown value that cannot be shown" });
  }
}

/** The host's side of one VM: it runs the program and hands each call its answer. */
export interface Guest {
  run(program: () => Promise<unknown>): void;
  answer(callId: number, answerJson: string): void;
}

export function guestPrelude(
  bridgeCall: (callId: number, index: number, argsJson: string) => void,
  bridgeLog: (level: string, text: string) => void,
  bridgeDone: (outcome: string) => void,
  bindingsJson: string,
): Guest {
  // Call id → the resolve function of the promise its caller awaits; an answer is delivered once.
  const pending: Record<number, (json: string) => void> = create(null);
  let nextCallId = 0;

  function answer(callId: number, json: string): void {
    const resolve = pending[callId];
    delete pending[callId];
    resolve?.(json);
  }

  function callTool(index: number, json: string): Promise<string> {
    const callId = nextCallId++;
    return new PromiseType((resolve) => {
      pending[callId] = resolve;
      bridgeCall(callId, index, json);
    });
  }

  function method(binding: Binding) {
    return async (args: unknown): Promise<unknown> => {
      // Made before the await, while the program's own frame is on the stack: a failed call names the line that made it.
      const site = new ErrorType();
      const json = argumentsJson(binding, args === undefined ? {} : args, site);
      const reply = parse(await callTool(binding.index, json)) as Reply;
      if (!reply.ok) throw callError(reply.error, site);
      if (binding.returns === "content") return new ToolResult(binding.server, binding.tool, reply.value as CallResult);
      if (binding.returns === "parsed") {
        const { raw, value } = reply.value as { raw: CallResult; value: unknown };
        return new ParsedResult(binding.server, binding.tool, raw, value);
      }
      return reply.value;
    };
  }

  for (const { name, methods } of parse(bindingsJson) as { name: string; methods: Binding[] }[]) {
    if (name in globals) throw new TypeError(`the global ${stringify(name)} already exists`);
    const client = create(null);
    for (const binding of methods) defineProperty(client, binding.method, { value: method(binding), enumerable: true });
    defineProperty(globals, name, { value: freeze(client) });
  }

  function logger(level: string) {
    return (...values: unknown[]): void => {
      let line: string;
      try {
        line = values.map(show).join(" ");
      } catch {
        line = "[a value that cannot be shown]";
      }
      bridgeLog(level, line);
    };
  }

  const console = create(null);
  for (const level of ["log", "info", "warn", "error", "debug"]) defineProperty(console, level, { value: logger(level), enumerable: true });
  defineProperty(globals, "console", { value: freeze(console) });

  function run(program: () => Promise<unknown>): void {
    program().then(
      (value) => {
        let json: string | undefined;
        try {
          json = stringify(value);
        } catch (error) {
          bridgeDone(`E${describe(error)}`);
          return;
        }
        bridgeDone(`R${json === undefined ? "null" : json}`);
      },
      (error: unknown) => bridgeDone(`E${describe(error)}`),
    );
  }

  return freeze({ run, answer });
}
