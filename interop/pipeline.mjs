#!/usr/bin/env node
// pipeline.mjs: the Lance 12 side of tests/pipeline_acceptance.sh.
//
//   node interop/pipeline.mjs write DIR   a table "t" of 60,000 rows (id, v),
//                                         3 fragments of 20,000, then the
//                                         rows id < 2,000 deleted
//   node interop/pipeline.mjs read DIR    Lance's countRows(), then one
//                                         append attempted: "append: written"
//                                         or "append: refused: <message>"
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const req = createRequire(path.join(here, "lance12", "package.json"));
const L = req("@lancedb/lancedb"), A = req("apache-arrow");
const [mode, dir] = process.argv.slice(2);
const FRAG = 20000;

function rows(lo, hi) {
  const n = hi - lo, id = new BigInt64Array(n), v = new BigInt64Array(n);
  for (let i = 0; i < n; i++) (id[i] = BigInt(lo + i)), (v[i] = BigInt(lo + i) * 3n);
  return new A.Table({ id: A.makeVector(id), v: A.makeVector(v) });
}

const db = await L.connect(dir);
if (mode === "write") {
  const t = await db.createTable("t", rows(0, FRAG), { mode: "create" });
  for (let lo = FRAG; lo < 3 * FRAG; lo += FRAG) await t.add(rows(lo, lo + FRAG));
  await t.delete("id < 2000");
  console.log(`rows ${await t.countRows()}`);
} else if (mode === "read") {
  const t = await db.openTable("t");
  console.log(`rows ${await t.countRows()}`);
  try {
    await t.add(rows(3 * FRAG, 3 * FRAG + 10));
    console.log("append: written");
  } catch (e) {
    console.log(`append: refused: ${String(e.message || e).split("\n")[0]}`);
  }
} else {
  console.error("usage: node interop/pipeline.mjs write|read DIR");
  process.exit(2);
}
