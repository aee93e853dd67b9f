// Inference over 10,000 observations of one tool: pmcp's whole inferBundle (read the log,
// quicktype, field statistics, consistency, grading) against quicktype-core alone on the same samples.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { InputData, jsonInputForTargetLanguage, quicktype } from "quicktype-core";
import { inferBundle } from "../dist/learn/observation-logs.js";
import { timeAsync } from "./lib.mjs";

const COUNT = 10_000;

/** Varied like real results: optional fields, a field of two types, nested arrays of objects. */
function value(n) {
  return {
    id: `order-${n}`,
    total: n % 7 === 0 ? "pending" : n * 1.25,
    placedAt: "2026-11-22T10:00:00Z",
    customer: { name: `c${n}`, ...(n % 3 === 0 ? { email: `c${n}@example.com` } : {}) },
    lines: Array.from({ length: 1 + (n % 4) }, (_, line) => ({
      sku: `SKU-${line}`,
      quantity: line + 1,
      ...(line % 2 ? { note: "gift" } : {}),
    })),
  };
}

export async function benchInfer() {
  const dir = mkdtempSync(join(tmpdir(), "pmcp-bench-infer-"));
  try {
    const samples = Array.from({ length: COUNT }, (_, n) => ({ at: "2026-11-22T10:00:00.000Z", value: value(n) }));
    const path = observationPath(dir, "shop", "get_order");
    mkdirSync(join(path, ".."), { recursive: true });
    const header = {
      format: "pmcp-observations/1",
      server: "shop",
      tool: "get_order",
      seen: COUNT,
      firstSeen: samples[0].at,
      lastSeen: samples[0].at,
      redacted: false,
    };
    writeFileSync(path, formatObservationLog({ header, samples }));
    const bundle = { version: "1.0", servers: [{ id: "shop", tools: [{ name: "get_order", inputSchema: { type: "object" } }] }] };
    const texts = samples.map((sample) => JSON.stringify(sample.value));

    const ours = await timeAsync(() => inferBundle(bundle, dir), 5);
    const peer = await timeAsync(async () => {
      const json = jsonInputForTargetLanguage("schema");
      await json.addSource({ name: "Result", samples: texts });
      const inputData = new InputData();
      inputData.addInput(json);
      await quicktype({ inputData, lang: "schema", inferEnums: false, inferMaps: true });
    }, 5);
    // The bar is absolute ("under a few seconds"); quicktype alone is the floor, since we run it too.
    const verdict = ours < 3000 ? "meets" : "MISSES";
    console.log(
      `infer: ${COUNT.toLocaleString("en")} observations of one tool: ${ours.toFixed(0)} ms (target < 3000 ms: ${verdict}) vs quicktype-core alone ${peer.toFixed(0)} ms, ratio ${(ours / peer).toFixed(2)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
