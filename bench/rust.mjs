// Rust output against quicktype-core's Rust renderer over the same schemas, in this run: every input
// and output schema of the real-server corpus, ours as one renderRust of the bundle, quicktype one
// schema at a time (it renders one top-level type per source; a schema it cannot read costs its time).
import { FetchingJSONSchemaStore, InputData, JSONSchemaInput, quicktype } from "quicktype-core";
import { renderRust } from "../dist/codegen/rust/render-rust.js";
import { CORPUS, readBundle, report, timeAsync } from "./lib.mjs";

const QUICKTYPE_OPTIONS = { visibility: "public", "derive-debug": "true", "derive-partial-eq": "true", "skip-serializing-none": "true" };

export async function benchRust() {
  const bundle = readBundle(CORPUS);
  const schemas = bundle.servers.flatMap((server) =>
    server.tools.flatMap((tool) => [tool.inputSchema, tool.outputSchema].filter((schema) => schema !== undefined)),
  );
  const options = { source: "corpus", runtimeImport: "", generatorVersion: "bench" };
  const ours = await timeAsync(() => renderRust(bundle, options), 5);
  let failed = 0;
  const peer = await timeAsync(async () => {
    failed = 0;
    for (const [index, schema] of schemas.entries()) {
      const input = new JSONSchemaInput(new FetchingJSONSchemaStore());
      try {
        await input.addSource({ name: `S${index}`, schema: JSON.stringify(schema) });
        const data = new InputData();
        data.addInput(input);
        await quicktype({ inputData: data, lang: "rust", rendererOptions: QUICKTYPE_OPTIONS });
      } catch {
        failed++;
      }
    }
  }, 3);
  report(`generate --lang rust, ${schemas.length} real-server schemas`, ours, peer, `quicktype-core rust (${failed} failed)`, 1);
}
