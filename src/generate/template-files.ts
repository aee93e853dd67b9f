/** The built-in templates, or a folder's replacements for them, read from disk. */

import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { hash } from "../codegen/hash.js";
import { type CompiledTemplates, compile, type TemplateSources } from "../codegen/templates.js";
import { PmcpError } from "../errors.js";

const TEMPLATE_NAMES = ["server.ts.hbs", "index.ts.hbs"] as const;
const BUILTIN_TEMPLATES = new URL("../../templates/", import.meta.url);

export async function templateSources(dir: string | undefined): Promise<TemplateSources> {
  const custom = await Promise.all(
    TEMPLATE_NAMES.map((name) => (dir === undefined ? undefined : readFile(join(dir, name), "utf8").catch(() => undefined))),
  );
  // A mistyped folder would otherwise give the built-in templates without a word.
  if (dir !== undefined && custom.every((text) => text === undefined)) {
    const isFolder = await stat(dir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    throw new PmcpError(
      "INVALID_ARGUMENT",
      isFolder ? `templates folder ${dir} has neither ${TEMPLATE_NAMES.join(" nor ")}` : `templates folder ${dir}: no such folder`,
    );
  }
  const [server, index] = await Promise.all(
    TEMPLATE_NAMES.map(async (name, at) => custom[at] ?? (await readFile(new URL(name, BUILTIN_TEMPLATES), "utf8"))),
  );
  return { server: server!, index: index!, hash: hash(`${server}\0${index}`) };
}

/** The templates a render uses, built-in or from `dir`, compiled. */
export async function loadTemplates(dir?: string): Promise<CompiledTemplates> {
  return compile(await templateSources(dir));
}
