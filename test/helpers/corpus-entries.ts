import { readFile } from "node:fs/promises";
import type { Bundle } from "../../src/bundle/types.js";

/** A schema of the corpus, by name. */
export interface Entry {
  name: string;
  schema: unknown;
}

/**
 * The codegen corpus: hand-written MCP-typical schemas (Pydantic, PMCP, zod-published, edge cases)
 * plus every schema of the fixture and reference servers exported to `referenceBundle`.
 */
export async function corpusEntries(referenceBundle: string): Promise<Entry[]> {
  const servers = JSON.parse(await readFile(referenceBundle, "utf8")) as Bundle;
  const handWritten = {
    ...(JSON.parse(await readFile(new URL("../corpus/schemas.json", import.meta.url), "utf8")) as Record<string, unknown>),
    // Cases kept out of schemas.json (unevaluatedProperties beside $ref, anyOf with if, recursion); the normalizer's tests read them too.
    ...(JSON.parse(await readFile(new URL("../corpus/codegen-only.json", import.meta.url), "utf8")) as Record<string, unknown>),
  };
  return [
    ...Object.entries(handWritten).map(([name, schema]) => ({ name, schema })),
    ...servers.servers.flatMap((server) =>
      server.tools.flatMap((tool) => [
        { name: `${server.id}/${tool.name}/input`, schema: tool.inputSchema },
        ...(tool.outputSchema === undefined ? [] : [{ name: `${server.id}/${tool.name}/output`, schema: tool.outputSchema }]),
        ...(tool.annotations?.["pmcp:outputSchema"] === undefined
          ? []
          : [{ name: `${server.id}/${tool.name}/legacy`, schema: tool.annotations["pmcp:outputSchema"] }]),
      ]),
    ),
  ].filter((entry) => entry.schema !== undefined);
}

/**
 * One server "corpus" whose tool `s<index>` has entry `index` as its output schema, typed as `S<index>`;
 * with `keep`, only the entries it keeps, each under its own index still.
 */
export function corpusBundle(entries: readonly Entry[], keep: (entry: Entry, index: number) => boolean = () => true): Bundle {
  return {
    version: "1.0",
    servers: [
      {
        id: "corpus",
        tools: entries.flatMap((entry, index) =>
          keep(entry, index)
            ? [
                {
                  name: `s${String(index).padStart(3, "0")}`,
                  inputSchema: { type: "object" },
                  outputSchema: entry.schema as Record<string, unknown>,
                  annotations: { "pmcp:outputTypeName": `S${index}` },
                },
              ]
            : [],
        ),
      },
    ],
  };
}
