import { describe, expect, it } from "vitest";
import { normalizeSchemaWithNotes, PROFILES } from "../../src/normalize/normalize.js";
import type { Schema } from "../../src/normalize/passes.js";
import { modelToolNames } from "../../src/normalize/tool-names.js";
import { TOOL_NAME_RULES } from "../../src/providers/facts.js";
import { readCorpus } from "../helpers/corpus.js";
import { everyNth, runs } from "../helpers/full-run.js";
import { checkWidening, errorRules, sampleable } from "../helpers/normalize-checks.js";

describe("normalize on the corpus of real servers", () => {
  /** The corpus, read (unzipped, parsed and validated) once for every test. */
  let bundle: ReturnType<typeof readCorpus> | undefined;
  const corpus = () => {
    bundle ??= readCorpus();
    return bundle;
  };
  /** Every input and output schema of the corpus, with where it is; read once. */
  let read: Promise<{ where: string; schema: Schema }[]> | undefined;
  const corpusSchemas = () => {
    read ??= corpus().then((loaded) =>
      loaded.servers.flatMap((server) =>
        server.tools.flatMap((tool) =>
          (["inputSchema", "outputSchema"] as const).flatMap((key) =>
            tool[key] === undefined ? [] : [{ where: `${server.id}/${tool.name} /${key}`, schema: tool[key] as Schema }],
          ),
        ),
      ),
    );
    return read;
  };

  // Every schema in a full run; by default every ninth, a different ninth for each profile.
  it.each(PROFILES)("%s: after normalize, every corpus tool obeys the profile's rules", async (profile) => {
    const offset = PROFILES.indexOf(profile) % 9;
    const left = everyNth((await corpusSchemas()).slice(offset), 9).flatMap(({ where, schema }) => {
      const rules = errorRules(normalizeSchemaWithNotes(schema, { profile }).schema, profile);
      return rules.length === 0 ? [] : [`${where}: ${rules.join(", ")}`];
    });
    expect(left).toEqual([]);
  });

  // Each profile samples one schema in SHARE (a different one each), to keep the run short: one in 35 in a
  // full run, one in 315 by default.
  const SHARE = PROFILES.length * runs(5, 45);
  it.each(PROFILES)("%s: no instance valid for a corpus schema is rejected after normalizing", async (profile) => {
    const offset = PROFILES.indexOf(profile);
    const chosen = (await corpusSchemas()).filter((_, index) => index % SHARE === offset);
    const checked = chosen.reduce((sum, { schema }) => sum + (sampleable(schema) ? checkWidening(schema, profile, 6) : 0), 0);
    // By default 27 to 40 instances a profile when this was written.
    expect(checked).toBeGreaterThan(runs(200, 20));
  });

  it.each(PROFILES)("%s: every corpus tool's name for the model obeys the provider's rule, and no two are the same", async (profile) => {
    const refs = (await corpus()).servers.flatMap((server) => server.tools.map((tool) => ({ server: server.id, tool: tool.name })));
    const outcomes = modelToolNames(refs, profile).map(({ name }, index) => ({ ...refs[index]!, name }));
    const { allowed, first, maxLength } = TOOL_NAME_RULES[profile];
    const bad = outcomes.filter(
      ({ name }) => name.length > maxLength || !first.test(name[0] ?? "") || ![...name].every((char) => allowed.test(char)),
    );
    expect(bad.map(({ server, tool, name }) => `${server}/${tool} → ${name}`)).toEqual([]);
    expect(new Set(outcomes.map(({ name }) => name)).size).toBe(outcomes.length);
  });
});
