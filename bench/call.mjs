// A call through a generated client against a raw SDK callTool over InMemoryTransport, and
// the generated parser on a ~1 KB result against JSON.parse of its text.
import { Client } from "@modelcontextprotocol/client";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { createJiti } from "jiti";
import { comparePerCall, inMemoryInventory, report } from "./lib.mjs";

const jiti = createJiti(import.meta.url);

export async function benchCall() {
  const { InventoryClient } = await jiti.import("../generated/inventory.ts");
  const { ReadGraphResultSchema } = await jiti.import("../generated/memory.ts");

  const raw = new Client({ name: "bench", version: "1.0.0" });
  await raw.connect(inMemoryInventory());
  const composition = new CompositionClient({ servers: {}, transports: { inventory: inMemoryInventory } });
  const inventory = new InventoryClient(composition);
  const calls = await comparePerCall(
    () => inventory.getStock({ sku: "SKU-1" }),
    () => raw.callTool({ name: "get_stock", arguments: { sku: "SKU-1" } }),
    1000,
  );
  report("call through the generated client", calls.ours, calls.peer, "raw SDK callTool (InMemoryTransport)", 1.1, "µs", calls.ratio);
  await raw.close();
  await composition.close();

  // A memory-server read_graph result of about 1 KB.
  const graph = {
    entities: Array.from({ length: 6 }, (_, i) => ({
      name: `entity-${i}`,
      entityType: "restock_order",
      observations: [`order ${i * 7} units`, "north warehouse"],
    })),
    relations: Array.from({ length: 4 }, (_, i) => ({ from: `entity-${i}`, to: `entity-${i + 1}`, relationType: "follows" })),
  };
  const text = JSON.stringify(graph);
  const parsing = await comparePerCall(
    () => ReadGraphResultSchema.parse(graph),
    () => JSON.parse(text),
    10000,
  );
  report(`parse a ${text.length}-byte result`, parsing.ours, parsing.peer, "JSON.parse of its text", 1.0, "µs", parsing.ratio);
}
