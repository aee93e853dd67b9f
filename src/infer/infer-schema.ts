import { inlineRefs } from "../json-schema/inline-refs.js";
import { mapChildren, type Schema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { isBareNull } from "../json-schema/predicates.js";
import { withRecordsMarked } from "./records.js";

/**
 * A JSON Schema for the values a tool returned, inferred by quicktype-core (loaded on
 * first use: it is large). quicktype's draft-06 output is then made into what a caller
 * of an undeclared tool should get: unknown keys allowed (it closes every object),
 * definitions inlined unless recursive (their names are quicktype's guesses from
 * property names), no invented titles, a field only ever seen as null left unknown, and
 * objects that hold records (see records.ts) typed as maps.
 */
export async function inferSchema(values: readonly unknown[]): Promise<Schema> {
  const { InputData, jsonInputForTargetLanguage, quicktype } = await import("quicktype-core");
  const json = jsonInputForTargetLanguage("schema");
  const marked = withRecordsMarked(values);
  const standIn = protoStandIn(marked);
  await json.addSource({ name: "Result", samples: marked.map((value) => JSON.stringify(renameKeys(value, "__proto__", standIn))) });
  const inputData = new InputData();
  inputData.addInput(json);
  const result = await quicktype({
    inputData,
    lang: "schema",
    // A handful of observed strings is not an enum, nor is "42" an integer: both would reject the next value.
    inferEnums: false,
    inferIntegerStrings: false,
    inferBooleanStrings: false,
    inferUuids: false,
    inferDateTimes: true,
    inferMaps: true,
    combineClasses: true,
  });
  // The stand-in is in no sample, so each quoted occurrence in the schema is the renamed key (a property or a required name).
  return tidy(JSON.parse(result.lines.join("\n").replaceAll(JSON.stringify(standIn), JSON.stringify("__proto__"))) as Schema);
}

/**
 * quicktype leaves out a `__proto__` key, schema and all (its own objects are plain), so it
 * sees this name instead: one that no sample uses as a key or a string.
 */
function protoStandIn(values: readonly unknown[]): string {
  const text = JSON.stringify(values);
  let standIn = "pmcp_proto_key";
  while (text.includes(JSON.stringify(standIn))) standIn = `_${standIn}`;
  return standIn;
}

/** A copy of `value` with every object key `from` renamed `to`, key order kept. */
function renameKeys(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, from, to));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key === from ? to : key, renameKeys(item, from, to)]));
}

function tidy(raw: Schema): Schema {
  // The dialect goes first: beside the root's `$ref` it would hold the inlined root in an `allOf`.
  const { $schema: _dialect, ...rest } = raw;
  // quicktype's references are all local and resolve: nothing to note.
  const inlined = inlineRefs(rest, { cycles: "unroll", depth: 1, budget: Number.POSITIVE_INFINITY }, { note: () => {} });
  const clean = (node: unknown, inUnion: boolean): unknown => {
    if (!isObject(node)) return node;
    if (!inUnion && isBareNull(node)) return {};
    const kept = Object.fromEntries(
      // quicktype's titles are guesses from property names, and it closes every object.
      Object.entries(node).filter(([key, value]) => key !== "title" && !(key === "additionalProperties" && value === false)),
    );
    return mapChildren(kept, ({ keyword, schema }) => clean(schema, keyword === "anyOf"));
  };
  // The root is no field: a root seen only as null stays null.
  const { $defs, ...root } = clean(inlined, true) as Schema;
  return isObject($defs) ? { ...root, $defs: Object.fromEntries(Object.entries($defs).sort(([a], [b]) => (a < b ? -1 : 1))) } : root;
}
