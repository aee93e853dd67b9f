import { describe, expect, it } from "vitest";
import { BrokenMessage, MessageTooLarge, StdioReadBuffer } from "../../packages/runtime/src/endpoints/stdio-read-buffer.js";

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}';

/** Every message read from `text`, and what was thrown on the way (the transport reads on past a fault). */
function readAll(text: string, maxBytes = 1 << 20) {
  const buffer = new StdioReadBuffer(maxBytes);
  const read: unknown[] = [];
  const faults: string[] = [];
  try {
    buffer.append(Buffer.from(text));
  } catch (error) {
    faults.push(`${(error as Error).name}: ${(error as Error).message}`);
  }
  for (;;) {
    try {
      const message = buffer.readMessage();
      if (message === null) break;
      read.push(message);
    } catch (error) {
      faults.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
  }
  return { read, faults, stray: buffer.stray, messages: buffer.messages };
}

describe("StdioReadBuffer reads past what is not JSON-RPC", () => {
  it("skips banners, log lines and JSON that is no message, tallies them, and reads the messages around them", () => {
    const text = ["Starting Time MCP server...", "", ANSWER, '{"level":"info","msg":"ready"}', "[INFO] listening", "42", ANSWER, ""].join(
      "\n",
    );
    expect(readAll(text)).toEqual({
      read: [JSON.parse(ANSWER), JSON.parse(ANSWER)],
      faults: [],
      stray: { firstLine: "Starting Time MCP server...", lines: 4 },
      messages: 2,
    });
  });

  it("tells onStray once, at the first message after skipped lines, or at the end when none followed", () => {
    const told: unknown[] = [];
    const buffer = new StdioReadBuffer(1 << 20);
    buffer.onStray = (stray) => told.push(stray);
    buffer.append(Buffer.from("Starting...\nListening\n"));
    expect([buffer.readMessage(), told]).toEqual([null, []]);
    buffer.append(Buffer.from(`${ANSWER}\nLooking up A1...\n${ANSWER}\n`));
    expect([buffer.readMessage(), buffer.readMessage(), buffer.readMessage()]).toEqual([JSON.parse(ANSWER), JSON.parse(ANSWER), null]);
    buffer.end();
    expect([told, buffer.stray]).toEqual([[{ firstLine: "Starting...", lines: 2 }], { firstLine: "Starting...", lines: 3 }]);
    const quiet = new StdioReadBuffer(1 << 20);
    const late: unknown[] = [];
    quiet.onStray = (stray) => late.push(stray);
    quiet.append(Buffer.from("only a banner\n"));
    quiet.readMessage();
    quiet.end();
    quiet.end();
    expect(late).toEqual([{ firstLine: "only a banner", lines: 1 }]);
  });

  it("keeps the first 80 characters of the first line skipped, a CRLF's CR dropped", () => {
    const long = "y".repeat(200);
    expect(readAll(`${long}\r\nshort\n`).stray).toEqual({ firstLine: `${"y".repeat(80)}…`, lines: 2 });
  });

  it.each([
    ["a print with no newline before a message", `Loading...${ANSWER}\n`, "a JSON-RPC message on stdout was broken by other output"],
    ["a print right after a message", `${ANSWER}done\n`, "a JSON-RPC message on stdout was broken by other output"],
    ["a line cut short", `${ANSWER.slice(0, 20)}\n`, "a JSON-RPC message on stdout was broken by other output"],
    [
      "a print inside a message",
      `${ANSWER.replace('{"tools', 'Loading...{"tools')}\n`,
      "a JSON-RPC message on stdout was broken by other output",
    ],
    ["a malformed message", '{"jsonrpc":"2.0","method":5}\n', "the server wrote a malformed JSON-RPC message to stdout"],
    ["a batch", `[${ANSWER}]\n`, "the server wrote a malformed JSON-RPC message to stdout"],
  ])("throws a BrokenMessage for %s, quoting the line's start", (_name, text, message) => {
    const { faults, stray } = readAll(text);
    expect(faults).toEqual([`BrokenMessage: ${message}: ${JSON.stringify(text.trimEnd())}`]);
    expect(stray).toBeUndefined();
  });

  it("quotes a broken line's control characters as escapes", () => {
    const { faults } = readAll(`\u001b[2J\u009b${ANSWER}\n`);
    expect(faults[0]).toMatch(/^BrokenMessage: a JSON-RPC message on stdout was broken by other output: "\\u001b\[2J\\u009b\{/);
  });

  it("makes an answer whose result is no object an error answer to that request", () => {
    const { read, faults } = readAll('{"jsonrpc":"2.0","id":7,"result":5}\n');
    expect([faults, read]).toEqual([[], [{ jsonrpc: "2.0", id: 7, error: expect.objectContaining({ code: -32603 }) }]]);
  });

  it("throws a MessageTooLarge for a line past the limit and drops the rest of that line, not reading it as one", () => {
    const buffer = new StdioReadBuffer(64);
    expect(() => buffer.append(Buffer.from("z".repeat(100)))).toThrow(MessageTooLarge);
    buffer.append(Buffer.from(`${"z".repeat(30)}\n${ANSWER}\n`));
    expect([buffer.readMessage(), buffer.readMessage(), buffer.stray]).toEqual([JSON.parse(ANSWER), null, undefined]);
  });

  it("tells onFault of each fault as it is thrown", () => {
    const buffer = new StdioReadBuffer(1 << 20);
    const told: unknown[] = [];
    buffer.onFault = (error) => told.push(error);
    buffer.append(Buffer.from(`x${ANSWER}\n`));
    expect(() => buffer.readMessage()).toThrow(BrokenMessage);
    expect(told).toEqual([expect.any(BrokenMessage)]);
  });
});
