// The program executor (QuickJS in worker threads): an empty program warm, a one-call program
// against calling the bridge directly, and 100 sequential calls from a program against 100
// direct calls. The bridge calls an in-process server through a CompositionClient.
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { QuickJsExecutor } from "../dist/exec/quickjs-executor.js";
import { CompositionClient } from "../dist/runtime/index.js";
import { comparePerCall, inMemoryInventory, report, timeAsync } from "./lib.mjs";

export async function benchExec() {
  const composition = new CompositionClient({ servers: {}, transports: { inventory: inMemoryInventory } });
  const parse = z.object({ sku: z.string(), quantity: z.number() });
  const host = { call: (server, tool, args, signal) => composition.callTool({ server, tool, args, parse }, { signal }) };
  const globals = { inventory: { getStock: { server: "inventory", tool: "get_stock", returns: "value" } } };
  const executor = new QuickJsExecutor({ workers: 1 });
  const program = async (code) => {
    const outcome = await executor.run({ code, globals }, host);
    if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
  };

  // The worker's own JIT needs a few dozen programs to settle.
  for (let i = 0; i < 30; i++) await program("return 1;");
  const empty = await timeAsync(() => program("return 1;"), 30);
  console.log(`exec: an empty program (a fresh VM), warm: ${empty.toFixed(1)} ms`);

  const one = await comparePerCall(
    () => program("return await inventory.getStock({ sku: 'SKU-1' });"),
    () => host.call("inventory", "get_stock", { sku: "SKU-1" }),
    10,
    9,
  );
  const overhead = (one.ours - one.peer) / 1000;
  console.log(
    `exec: a one-call program ${(one.ours / 1000).toFixed(1)} ms vs the bridge called directly ${(one.peer / 1000).toFixed(2)} ms, overhead ${overhead.toFixed(1)} ms (target ≤ 20 ms: ${overhead <= 20 ? "meets" : "MISSES"})`,
  );

  const hundred = await comparePerCall(
    () => program("for (let i = 0; i < 100; i++) await inventory.getStock({ sku: 'SKU-1' }); return 1;"),
    async () => {
      for (let i = 0; i < 100; i++) await host.call("inventory", "get_stock", { sku: "SKU-1" });
    },
    3,
    9,
  );
  report(
    "exec: 100 sequential calls in a program (InMemoryTransport)",
    hundred.ours / 1000,
    hundred.peer / 1000,
    "100 direct bridge calls",
    1.3,
    "ms",
    hundred.ratio,
  );

  // The same over stdio, the transport most upstream servers use.
  const stdio = new CompositionClient({
    servers: { typed: { command: process.execPath, args: [fileURLToPath(new URL("../test/fixtures/typed-server.mjs", import.meta.url))] } },
  });
  const stock = z.object({ sku: z.string(), quantity: z.number(), location: z.null() });
  const overStdio = { call: (server, tool, args, signal) => stdio.callTool({ server, tool, args, parse: stock }, { signal }) };
  const typed = { typed: { getStock: { server: "typed", tool: "get_stock", returns: "value" } } };
  const overStdioRuns = await comparePerCall(
    async () => {
      const outcome = await executor.run(
        { code: "for (let i = 0; i < 100; i++) await typed.getStock({ sku: 'SKU-1' }); return 1;", globals: typed },
        overStdio,
      );
      if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
    },
    async () => {
      for (let i = 0; i < 100; i++) await overStdio.call("typed", "get_stock", { sku: "SKU-1" });
    },
    2,
    7,
  );
  report(
    "exec: 100 sequential calls in a program over stdio",
    overStdioRuns.ours / 1000,
    overStdioRuns.peer / 1000,
    "100 direct calls over stdio",
    1.3,
    "ms",
    overStdioRuns.ratio,
  );

  await executor.close();
  await composition.close();
  await stdio.close();
}
