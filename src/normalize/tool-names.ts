import { createHash } from "node:crypto";
import { type Profile, TOOL_NAME_RULES, type ToolNameRule } from "../providers/facts.js";

/** One tool of a bundle, by server and wire name. */
export interface ToolRef {
  server: string;
  tool: string;
}

/** Why a tool has another name for the model, or undefined when it keeps its own. */
export interface ModelName {
  name: string;
  reason?: string;
}

/** How many of the other servers sharing a tool's name a reason names. */
const NAMED_SERVERS = 3;

/**
 * The name each tool has for the model under `profile`, in order: its own where the provider
 * accepts it and no other server has a tool of that name; else `<server>__<tool>`, made to fit the
 * provider's rule (other characters become `_`, a name too long keeps its start and gets a hash of
 * the whole), and unique. Tools that keep their own names are placed first, so adding a server
 * renames only the tools that clash with it.
 */
export function modelToolNames(tools: readonly ToolRef[], profile: Profile): ModelName[] {
  const rule = TOOL_NAME_RULES[profile];
  const servers = new Map<string, Set<string>>();
  for (const { server, tool } of tools) servers.set(tool, (servers.get(tool) ?? new Set()).add(server));
  const taken = new Set<string>();
  const names: (ModelName | undefined)[] = tools.map(({ tool }) => {
    if (!fits(tool, rule) || (servers.get(tool)?.size ?? 0) > 1 || taken.has(tool)) return undefined;
    taken.add(tool);
    return { name: tool };
  });
  return tools.map(({ server, tool }, index) => {
    const own = names[index];
    if (own !== undefined) return own;
    const base = fitted(`${server}__${tool}`, rule, `${server}/${tool}`);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = fitted(`${base}_${n}`, rule, `${server}/${tool}#${n}`);
    taken.add(name);
    const others = [...(servers.get(tool) ?? [])].filter((other) => other !== server);
    const named = others.slice(0, NAMED_SERVERS).map((id) => JSON.stringify(id));
    const more = others.length > NAMED_SERVERS ? ` and ${others.length - NAMED_SERVERS} more` : "";
    const reason =
      others.length > 0
        ? `server${others.length === 1 ? "" : "s"} ${named.join(", ")}${more} also ha${others.length === 1 ? "s" : "ve"} a tool "${tool}"`
        : fits(tool, rule)
          ? `server "${server}" lists two tools "${tool}"`
          : `"${tool}" does not match ${rule.documented}`;
    return { name, reason };
  });
}

function fits(name: string, rule: ToolNameRule): boolean {
  return (
    name.length > 0 &&
    name.length <= rule.maxLength &&
    rule.first.test(name[0] as string) &&
    [...name].every((char) => rule.allowed.test(char))
  );
}

/** `raw` made to fit `rule`; one cut to length ends with a hash of `whole`, so two long names stay apart. */
function fitted(raw: string, rule: ToolNameRule, whole: string): string {
  const replaced = [...raw].map((char) => (rule.allowed.test(char) ? char : "_")).join("");
  const started = rule.first.test(replaced[0] ?? "") ? replaced : `_${replaced}`;
  if (started.length <= rule.maxLength) return started;
  const hash = createHash("sha256").update(whole).digest("hex").slice(0, 8);
  return `${started.slice(0, rule.maxLength - hash.length - 1)}_${hash}`;
}
