import { describe, expect, it } from "vitest";
import { rustDoc } from "../../src/codegen/rust/rust-doc.js";
import { rustString } from "../../src/codegen/rust/rust-literal.js";
import { rustFieldName, rustModuleName, rustTypeName } from "../../src/codegen/rust/rust-names.js";

describe("Rust names", () => {
  it.each([
    ["rowCount", "row_count"],
    ["row_count", "row_count"],
    ["HTTPStatus", "http_status"],
    ["type", "r#type"],
    ["match", "r#match"],
    ["self", "self_"],
    ["super", "super_"],
    ["crate", "crate_"],
    ["2fa", "_2fa"],
    ["größe", "gr_e"],
    ["日本", "field"],
    ["", "field"],
  ])("the field %j is %s", (given, want) => expect(rustFieldName(given)).toBe(want));

  it.each([
    ["query result", "QueryResult"],
    ["Self", "Self_"],
    ["self", "Self_"],
    ["2d-point", "_2dPoint"],
  ])("the type %j is %s", (given, want) => expect(rustTypeName(given)).toBe(want));

  it.each([
    ["typed-fixture-server", "typed_fixture_server"],
    ["mod", "mod_"],
    ["type", "type_"],
    ["self", "self_"],
    ["2fa", "_2fa"],
    ["日本", "server"],
  ])("the module of server %j is %s (no raw identifier: the file is named by it)", (given, want) =>
    expect(rustModuleName(given)).toBe(want),
  );
});

describe("Rust string literals from untrusted text", () => {
  it.each([
    ['"); std::process::exit(1); //', '"\\"); std::process::exit(1); //"'],
    ["a\\b", '"a\\\\b"'],
    ["line\nbreak\r\u2028", '"line\\u{a}break\\u{d}\\u{2028}"'],
    ["größe", '"gr\\u{f6}\\u{df}e"'],
    ["\ud800", '"\\u{fffd}"'],
    ["😀", '"\\u{1f600}"'],
  ])("writes %j as %s", (given, want) => expect(rustString(given)).toBe(want));
});

describe("Rust doc comments from untrusted text", () => {
  it("writes plain text as /// lines, every line break one, control characters gone", () => {
    expect(rustDoc("Runs a query.\r\nSecond\u2028third\rfourth\u0007.", "    ")).toBe(
      "    /// Runs a query.\n    /// Second\n    /// third\n    /// fourth .\n",
    );
  });

  it("drops the bidirectional overrides and isolates rustc refuses in a comment", () => {
    expect(rustDoc("a\u202eb\u2066c\u2069d\u202ae")).toBe("/// a b c d e\n");
  });

  it("keeps */ and attributes as text: a line comment cannot be closed", () => {
    expect(rustDoc("*/ #[cfg(test)] fn pwned() {}")).toBe("/// */ #[cfg(test)] fn pwned() {}\n");
  });

  it.each([
    ["a fenced block", 'Example:\n```\nstd::fs::write("pwned", "").unwrap();\n```', "````"],
    ["a tilde fence", "~~~rust\nfn main() {}\n~~~", "```"],
    ["an indented block", "Example:\n\n    std::process::exit(1);", "```"],
    ["a long run of backticks", "`````\ncode\n`````", "``````"],
    ["a fence in a block quote", "Example:\n> ```\n> std::process::exit(1);\n> ```", "````"],
    ["an indented block in a block quote", ">     std::process::exit(1);", "```"],
    ["a fence in a list item", "Steps:\n1. ```\n   std::process::exit(1);\n   ```", "````"],
    ["a fence in a nested quote and list", "> - > ~~~\n> - > fn main() {}", "```"],
  ])("puts %s in a text fence longer than any run of backticks, so rustdoc never runs it", (_case, text, fence) => {
    const doc = rustDoc(text);
    const lines = doc.split("\n").slice(0, -1);
    expect(lines[0]).toBe(`/// ${fence}text`);
    expect(lines.at(-1)).toBe(`/// ${fence}`);
    expect(lines.slice(1, -1)).toEqual(text.split("\n").map((line) => (line === "" ? "///" : `/// ${line}`)));
  });

  it.each(["- item", "1. step", "> quoted", "2) x ```", "Use ```code``` inline", "a\tb"])("leaves %j unfenced: no code block", (text) =>
    expect(rustDoc(text)).toBe(`/// ${text}\n`),
  );

  it("writes nothing for empty text", () => expect(rustDoc(" \n\r\n")).toBe(""));
});
