import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, fixtureCommand } from "../helpers/cli.js";
import { missing, NGINX } from "../helpers/system-tools.js";

const nginxSkipped = await missing("nginx");

const children: ChildProcess[] = [];
let dir: string;
let proxyUrl: string;
let replicaPorts: number[];

/** A port that was free a moment ago: nginx takes its listen port from its config, not from the system. */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A `serve exec --http` replica over a modern-only upstream, answering for the proxy's Host; resolves with its port. */
async function startReplica(proxyHost: string): Promise<number> {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "exec", "--http", "0", "--allowed-host", proxyHost, "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(child);
  return new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`a replica exited with ${code}`)));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      const port = /^Serving exec on http:\/\/127\.0\.0\.1:(\d+)\/mcp$/.exec(line)?.[1];
      if (port !== undefined) resolve(Number(port));
    });
  });
}

async function waitForPort(port: number): Promise<void> {
  for (const end = Date.now() + 30_000; Date.now() < end; ) {
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

describe.skipIf(nginxSkipped !== undefined)("two serve exec --http replicas behind nginx", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pmcp-replicas-"));
    await mkdir(join(dir, "temp"));
    const proxyPort = await freePort();
    const proxyHost = `127.0.0.1:${proxyPort}`;
    replicaPorts = await Promise.all([startReplica(proxyHost), startReplica(proxyHost)]);
    await writeFile(
      join(dir, "nginx.conf"),
      `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  log_format upstream '$upstream_addr';
  access_log ${dir}/access.log upstream;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  upstream replicas {
${replicaPorts.map((port) => `    server 127.0.0.1:${port};`).join("\n")}
  }
  server {
    listen ${proxyHost};
    location /mcp {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_buffering off;
    }
  }
}
`,
    );
    const nginx = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: ["ignore", "ignore", "inherit"] });
    children.push(nginx);
    await waitForPort(proxyPort);
    proxyUrl = `http://${proxyHost}/mcp`;
  });

  afterAll(async () => {
    for (const child of children) child.kill();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("a modern client's consecutive execute_program calls, spread over both replicas, all succeed", async () => {
    const agent = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await agent.connect(new StreamableHTTPClientTransport(new URL(proxyUrl)));
    const results: unknown[] = [];
    try {
      for (let round = 1; round <= 6; round++) {
        const result = await agent.callTool({ name: "execute_program", arguments: { code: `return (await inv.count()) + ${round};` } });
        results.push((result.structuredContent as { result: unknown }).result);
      }
    } finally {
      await agent.close();
    }
    expect(results).toEqual([8, 9, 10, 11, 12, 13]);
    // "-": the start-up check's request, which no replica served.
    const used = new Set((await readFile(join(dir, "access.log"), "utf8")).split("\n").filter((line) => line !== "" && line !== "-"));
    expect([...used].sort()).toEqual(replicaPorts.map((port) => `127.0.0.1:${port}`).sort());
  });
});
