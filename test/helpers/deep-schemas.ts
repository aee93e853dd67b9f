export type Nesting = "object" | "items" | "anyOf";

/**
 * A schema nested `depth` levels deep as JSON text: deeper than JSON.stringify can write
 * (it recurses), so it is built as text, from the outside in.
 */
export function deepSchema(depth: number, nesting: Nesting, leaf = '{"type":"string"}'): string {
  const [open, close]: [string, string] = {
    object: ['{"type":"object","properties":{"a":', "}}"] as [string, string],
    items: ['{"type":"array","items":', "}"] as [string, string],
    anyOf: ['{"anyOf":[{"type":"null"},', "]}"] as [string, string],
  }[nesting];
  return `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
}

/** A bundle of one server "deep" with one tool "dig" whose input and output hold the schema at `/properties/deep`. */
export function deepBundle(schema: string): string {
  const wrapped = `{"type":"object","properties":{"deep":${schema}}}`;
  return `{"version":"1.0","servers":[{"id":"deep","tools":[{"name":"dig","inputSchema":${wrapped},"outputSchema":${wrapped}}]}]}`;
}

/** A valid value for `deepSchema(depth, nesting)` with a string at the bottom. */
export function deepValue(depth: number, nesting: Nesting): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = nesting === "object" ? { a: value } : nesting === "items" ? [value] : value;
  return value;
}
