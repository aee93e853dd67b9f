// npm run bench: every figure is a median of repeated runs, measured in this run against its peer.

import { benchAgreement } from "./agreement.mjs";
import { benchCall } from "./call.mjs";
import { benchDev } from "./dev.mjs";
import { benchDevObservations } from "./dev-observations.mjs";
import { benchEras } from "./eras.mjs";
import { benchExec } from "./exec.mjs";
import { benchExecMemory } from "./exec-memory.mjs";
import { benchExport } from "./export.mjs";
import { benchFootprint } from "./footprint.mjs";
import { benchGenerate } from "./generate.mjs";
import { benchHeadOfLine } from "./head-of-line.mjs";
import { benchInfer } from "./infer.mjs";
import { benchInspect } from "./inspect.mjs";
import { benchModel } from "./model.mjs";
import { benchNormalize } from "./normalize.mjs";
import { benchOtel } from "./otel.mjs";
import { benchTypeCheck } from "./type-check.mjs";

console.log(`node ${process.version}, medians of repeated runs\n`);
benchExport();
await benchGenerate();
await benchDev();
await benchDevObservations();
await benchCall();
await benchInfer();
await benchInspect();
await benchNormalize();
await benchModel();
await benchAgreement();
await benchExec();
await benchExecMemory();
await benchTypeCheck();
await benchHeadOfLine();
await benchOtel();
await benchEras();
benchFootprint();
