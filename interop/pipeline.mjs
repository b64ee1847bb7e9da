#!/usr/bin/env node
// pipeline.mjs: the Lance 12 side of tests/pipeline_acceptance.sh.
//
//   node interop/pipeline.mjs --write DIR   a table "t" of 60,000 rows (id, v),
//                                           3 fragments of 20,000, then the
//                                           rows id < 2,000 deleted
//   node interop/pipeline.mjs --read DIR    Lance's countRows(), then one
//                                           append attempted: "append: written"
//                                           or "append: refused: <message>"
import { loadRelease, oneLine, parseArgs } from "./lane_util.mjs";

const USAGE = "node interop/pipeline.mjs --write DIR | --read DIR";
const args = parseArgs(USAGE, { defaults: { write: "", read: "" } });
if (!args.write === !args.read) {
  console.error(`usage: ${USAGE}`);
  process.exit(2);
}
const { lancedb: L, arrow: A } = loadRelease("lance12");
const FRAG = 20000;

function rows(lo, hi) {
  const n = hi - lo, id = new BigInt64Array(n), v = new BigInt64Array(n);
  for (let i = 0; i < n; i++) (id[i] = BigInt(lo + i)), (v[i] = BigInt(lo + i) * 3n);
  return new A.Table({ id: A.makeVector(id), v: A.makeVector(v) });
}

const db = await L.connect(args.write || args.read);
if (args.write) {
  const t = await db.createTable("t", rows(0, FRAG), { mode: "create" });
  for (let lo = FRAG; lo < 3 * FRAG; lo += FRAG) await t.add(rows(lo, lo + FRAG));
  await t.delete("id < 2000");
  console.log(`rows ${await t.countRows()}`);
} else {
  const t = await db.openTable("t");
  console.log(`rows ${await t.countRows()}`);
  try {
    await t.add(rows(3 * FRAG, 3 * FRAG + 10));
    console.log("append: written");
  } catch (e) {
    console.log(`append: refused: ${oneLine(e)}`);
  }
}
