import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Bundle } from "../../src/bundle/types.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { agreeWithAjv } from "../helpers/ajv-agreement.js";
import { readCorpus } from "../helpers/corpus.js";
import { runs } from "../helpers/full-run.js";
import { outputDir } from "../helpers/typescript.js";

const templates = await loadTemplates();

describe("the corpus of real servers", () => {
  it("parsers accept and reject exactly what Ajv does on every output schema", async () => {
    const servers = await readCorpus();
    const outputs = servers.servers.flatMap((server) =>
      server.tools.flatMap((tool) =>
        tool.outputSchema === undefined ? [] : [{ name: `${server.id}/${tool.name}`, schema: tool.outputSchema }],
      ),
    );
    const bundle: Bundle = {
      version: "1.0",
      servers: [
        {
          id: "real",
          tools: outputs.map((entry, index) => ({
            name: `s${index}`,
            inputSchema: { type: "object" },
            outputSchema: entry.schema as Record<string, unknown>,
            annotations: { "pmcp:outputTypeName": `S${index}` },
          })),
        },
      ],
    };
    const options = { source: "real", runtimeImport: "@pmcp-codegen/runtime", generatorVersion: "test", strictObjects: true };
    const result = renderClients(bundle, options, templates);
    const folder = await outputDir("corpus-real");
    for (const file of result.files) await writeFile(join(folder, file.path), file.content);
    const parsers = (await import(join(folder, "real.ts"))) as Record<string, z.ZodType>;
    const { compared, valid, invalid } = agreeWithAjv(
      outputs,
      parsers,
      new Set(result.warnings.map((warning) => Number(warning.tool.slice(1)))),
      // 60 samples of each schema in a full run, 20 by default.
      runs(60, 20),
    );
    expect(compared).toBe(outputs.length);
    expect(compared).toBeGreaterThanOrEqual(100);
    expect(valid).toBeGreaterThan(runs(3000, 1000));
    expect(invalid).toBeGreaterThan(runs(3000, 1000));
  });
});
