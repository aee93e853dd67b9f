import fc from "fast-check";
import { normalizeBundle } from "/work/main/dist/normalize/bundle.js";
import { walkSchemas } from "/work/main/dist/json-schema/traverse.js";
const props = (tie) => fc.dictionary(fc.constantFrom("a", "b", "c"), tie("schema"), { maxKeys: 3 });
const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom({ type: "string" }, { type: "integer" }, {}, { type: "object" }, { type: "array" }, { $ref: "#/$defs/D" }, { $ref: "#" }),
    fc.record({ type: fc.constant("object"), properties: props(tie), additionalProperties: fc.constantFrom(true, false, {}, { type: "string" }) }, { requiredKeys: ["type", "properties"] }),
    fc.record({ type: fc.constant("object"), properties: props(tie), required: fc.constant(["a"]) }),
    fc.record({ type: fc.constant("array"), items: tie("schema"), minItems: fc.constant(1) }, { requiredKeys: ["type", "items"] }),
    fc.record({ type: fc.constant(["array", "null"]), items: tie("schema") }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant(["object", "null"]), properties: props(tie) }),
    fc.record({ type: fc.constant("object"), patternProperties: fc.constant({ "^x": { type: "string" } }) }),
    fc.record({ type: fc.constant("object"), additionalProperties: tie("schema") }),
    fc.record({ type: fc.constant("array"), items: fc.record({ type: fc.constant("array"), items: fc.record({ type: fc.constant("object"), properties: props(tie) }) }) }),
    fc.record({ type: fc.constant("array"), items: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }), additionalItems: fc.constantFrom(false, true, { type: "object", properties: { z: { type: "string" } } }) }),
    fc.record({ type: fc.constant("array"), prefixItems: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }), items: fc.constantFrom(false, { type: "object", properties: { z: { type: "string" } } }) }),
    fc.record({ type: fc.constant("object"), properties: props(tie), nullable: fc.constant(true) }),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
    fc.record({ $ref: fc.constant("#/definitions/E") }),
    fc.record({ type: fc.constant("array"), items: fc.record({ $ref: fc.constant("#/definitions/E") }) }),
  ),
}));
const def = fc.oneof(fc.constant({ type: "string" }), fc.record({ type: fc.constant("object"), properties: fc.constant({ n: { type: "array", items: { $ref: "#/$defs/D" } } }) }));
fc.assert(fc.property(schema, def, (s, d) => {
  const input = { type: "object", properties: { root: s }, $defs: { D: d }, definitions: { E: { type: "array", items: { type: "array", items: { type: "object", properties: { e: { type: "string" } } } } } } };
  const bundle = { version: "1.0", servers: [{ id: "s", tools: [{ name: "t", inputSchema: input }] }] };
  const { servers, outcomes } = normalizeBundle(structuredClone(bundle), "openai-strict");
  if (!outcomes[0].strict) return true;
  const out = servers[0].tools[0].inputSchema;
  const bad = [...walkSchemas(out)].filter(({ node }) => (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || (node.type === undefined && node.properties !== undefined)) && node.additionalProperties !== false);
  if (bad.length > 0) { console.log(JSON.stringify(input), "=>", JSON.stringify(out), bad.map((b) => b.pointer)); return false; }
  return true;
}), { numRuns: 20000, seed: 3 });
console.log("no counterexample");
