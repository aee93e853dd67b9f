// The compiler, loaded by require: imported from an ES module, Node first scans all of typescript.js
// for its named exports, which costs each process that loads it about a second of CPU more.
import ts = require("typescript");
export = ts;
