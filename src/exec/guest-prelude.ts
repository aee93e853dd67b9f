/**
 * The JavaScript that runs first in every sandbox VM, evaluated to a function that gets the
 * three bridge functions and the bindings as a JSON string, so no caller-supplied name is
 * ever spliced into code, and returns `{ run(program), answer(callId, answerJson) }` for the
 * host. The bridges stay in its closure: the program sees only the globals made here. Intrinsics are captured before the program runs, so a program that
 * replaces `JSON` or `Object` breaks only itself.
 *
 * Bridges (host functions, strings and numbers only, each returning undefined):
 * `call(callId, index, argsJson)` asks for a tool call, whose answer JSON `{ ok, value | error }`
 * comes back through the returned `answer(callId, answerJson)`; `log(level, text)`;
 * `done("R" + resultJson | "E" + errorJson)`. The promise of each call is made here, in the
 * guest, so the host keeps no handle to it: an answer is freed as soon as the program drops it,
 * and a program's memory is what it keeps, however many calls it makes.
 */
export const GUEST_PRELUDE = String.raw`(function (bridgeCall, bridgeLog, bridgeDone, bindingsJson) {
  "use strict";
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const { create, defineProperty, freeze, hasOwn } = Object;
  const isArray = Array.isArray;
  const PromiseType = Promise;
  const toText = String;
  const ErrorType = Error;
  const MapType = Map;
  const isFinite = Number.isFinite;
  const globals = globalThis;
  // A program's Error.prepareStackTrace would get call sites whose getFunction() hands it this
  // prelude's own closures (the answer of a call among them): there is none, and there can be none.
  defineProperty(ErrorType, "prepareStackTrace", { value: undefined, writable: false, configurable: false });

  function callError(data, error = new ErrorType()) {
    error.message = data.message;
    error.name = data.name;
    error.code = data.code;
    error.serverId = data.serverId;
    error.toolName = data.toolName;
    return error;
  }

  function invalidResponse(result, message) {
    return callError({
      name: "InvalidResponseError",
      code: "INVALID_RESPONSE",
      serverId: result.serverId,
      toolName: result.toolName,
      message: result.serverId + "/" + result.toolName + ": " + message,
    });
  }

  // The string fields each block type requires, as the runtime's blocksOf (packages/runtime/src/call-result.ts)
  // checks them: null, numbers and blocks missing a field are skipped, never read as blocks.
  const REQUIRED = { text: ["text"], image: ["data", "mimeType"], audio: ["data", "mimeType"], resource_link: ["uri", "name"], resource: [] };

  function isRecord(value) {
    return typeof value === "object" && value !== null && !isArray(value);
  }

  function isBlock(block, type) {
    if (!isRecord(block) || block.type !== type || !hasOwn(REQUIRED, type) || !REQUIRED[type].every((field) => typeof block[field] === "string")) return false;
    const resource = block.resource;
    return type !== "resource" || (isRecord(resource) && typeof resource.uri === "string" && (typeof resource.text === "string" || typeof resource.blob === "string"));
  }

  function blocksOf(result, type) {
    return result.content.filter((block) => isBlock(block, type));
  }

  // The runtime's ToolResult (packages/runtime/src/tool-result.ts), rebuilt from the result's JSON.
  class ToolResult {
    #json;
    constructor(serverId, toolName, raw) {
      this.serverId = serverId;
      this.toolName = toolName;
      this.raw = raw;
    }
    get content() {
      return isArray(this.raw.content) ? this.raw.content : [];
    }
    get blocks() {
      return this.content.filter((block) => isRecord(block) && isBlock(block, block.type));
    }
    get text() {
      return blocksOf(this, "text")
        .map((block) => block.text)
        .join("\n");
    }
    get images() {
      return blocksOf(this, "image");
    }
    get audio() {
      return blocksOf(this, "audio");
    }
    get resourceLinks() {
      return blocksOf(this, "resource_link");
    }
    get resources() {
      return blocksOf(this, "resource");
    }
    get structuredContent() {
      return this.raw.structuredContent;
    }
    get isError() {
      return this.raw.isError === true;
    }
    json() {
      if (this.#json === undefined) this.#json = { value: this.#parse() };
      return this.#json.value;
    }
    get(key) {
      const object = this.#object();
      return hasOwn(object, key) ? object[key] : undefined;
    }
    has(key) {
      return hasOwn(this.#object(), key);
    }
    require(key) {
      const object = this.#object();
      if (!hasOwn(object, key)) throw invalidResponse(this, "the result has no key " + stringify(key));
      return object[key];
    }
    #parse() {
      if (this.raw.structuredContent !== undefined) return this.raw.structuredContent;
      const [text] = blocksOf(this, "text");
      if (text === undefined) throw invalidResponse(this, "the result has neither structuredContent nor text content");
      try {
        return parse(text.text);
      } catch {
        throw invalidResponse(this, "the result has no structuredContent and its text is not JSON: " + stringify(text.text.slice(0, 80)));
      }
    }
    #object() {
      const value = this.json();
      if (typeof value !== "object" || value === null || isArray(value)) throw invalidResponse(this, "the result's JSON is not an object");
      return value;
    }
  }

  // The runtime's ParsedResult: a result with its value typed by what was learned from observations.
  class ParsedResult extends ToolResult {
    constructor(serverId, toolName, raw, value) {
      super(serverId, toolName, raw);
      this.value = value;
    }
  }

  // Call id → the resolve function of the promise its caller awaits; an answer is delivered once.
  const pending = create(null);
  let nextCallId = 0;

  function answer(callId, json) {
    const resolve = pending[callId];
    delete pending[callId];
    resolve(json);
  }

  function callTool(index, json) {
    const callId = nextCallId++;
    return new PromiseType((resolve) => {
      pending[callId] = resolve;
      bridgeCall(callId, index, json);
    });
  }

  // As the runtime's notJsonAt (packages/runtime/src/json-value.ts) refuses them: JSON.stringify would send a
  // number that is not finite as null, a value the program did not give.
  function argumentsJson(binding, args, site) {
    const pointers = new MapType();
    let root = true;
    function check(key, item) {
      const pointer = root ? "" : pointers.get(this) + "/" + key.replaceAll("~", "~0").replaceAll("/", "~1");
      root = false;
      if (typeof item === "number" && !isFinite(item)) throw { pointer, reason: item + " is not a number JSON can carry" };
      if (typeof item === "bigint") throw { pointer, reason: "a BigInt is not a number JSON can carry" };
      if (typeof item === "object" && item !== null) pointers.set(item, pointer);
      return item;
    }
    let problem;
    try {
      const json = stringify(args, check);
      if (typeof json === "string") return json;
      problem = { pointer: "", reason: "a " + typeof args + " has no JSON text" };
    } catch (error) {
      problem = isRecord(error) && typeof error.reason === "string" ? error : { pointer: "", reason: toText(error instanceof ErrorType ? error.message : error) };
    }
    const at = problem.pointer === "" ? "" : problem.pointer + ": ";
    const message = binding.server + "/" + binding.tool + ": the arguments cannot be sent as JSON: " + at + problem.reason;
    throw callError({ name: "ArgumentError", code: "INVALID_ARGUMENTS", serverId: binding.server, toolName: binding.tool, message }, site);
  }

  function method(binding) {
    return async function (args) {
      // Made before the await, while the program's own frame is on the stack: a failed call names the line that made it.
      const site = new ErrorType();
      const json = argumentsJson(binding, args === undefined ? {} : args, site);
      const reply = parse(await callTool(binding.index, json));
      if (!reply.ok) throw callError(reply.error, site);
      if (binding.returns === "content") return new ToolResult(binding.server, binding.tool, reply.value);
      if (binding.returns === "parsed") return new ParsedResult(binding.server, binding.tool, reply.value.raw, reply.value.value);
      return reply.value;
    };
  }

  for (const { name, methods } of parse(bindingsJson)) {
    if (name in globals) throw new TypeError("the global " + stringify(name) + " already exists");
    const client = create(null);
    for (const binding of methods) defineProperty(client, binding.method, { value: method(binding), enumerable: true });
    defineProperty(globals, name, { value: freeze(client) });
  }

  function show(value) {
    if (typeof value === "string") return value;
    if (value instanceof ErrorType) return toText(value.name) + ": " + toText(value.message);
    try {
      const json = stringify(value);
      return json === undefined ? toText(value) : json;
    } catch {
      return toText(value);
    }
  }

  function logger(level) {
    return (...values) => {
      let line;
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

  // Where in the program the error was thrown: its innermost frame in program.js, if any.
  const programFrame = /program\.js:(\d+):(\d+)/;

  function describe(error) {
    try {
      if (typeof error === "object" && error !== null) {
        const at = programFrame.exec(toText(error.stack));
        const position = at === null ? {} : { at: [Number(at[1]), Number(at[2])] };
        return stringify({ name: toText(error.name), message: toText(error.message), ...position });
      }
      return stringify({ name: "", message: toText(error) });
    } catch {
      return stringify({ name: "", message: "a thrown value that cannot be shown" });
    }
  }

  function run(program) {
    program().then(
      (value) => {
        let json;
        try {
          json = stringify(value);
        } catch (error) {
          bridgeDone("E" + describe(error));
          return;
        }
        bridgeDone("R" + (json === undefined ? "null" : json));
      },
      (error) => bridgeDone("E" + describe(error)),
    );
  }

  return freeze({ run, answer });
})`;
