#!/usr/bin/env node
// probe_flags.mjs: does a released Lance know each feature bit the way
// 02§7 (spec/02-lance-base.md) says it does?
//
//   node interop/probe_flags.mjs --release lance12|lance8 --set-flags TOOL --work DIR
//
// Lance writes a one-row table; for each probed bit (64, 128, 256, 512, 1024,
// 65536, field assignment's previous marker, and 2^52, its marker)
// and each placement (both words, writer word only, reader word only), the
// table's newest manifest gets the bit (interop/tools/set_flags) and the
// release is asked, through a fresh connection, to open the table, count
// its rows and append one. The outcome is one of: ok (opened and appended),
// refused-read ("cannot be read by this version of Lance"), refused-write
// (opened, but "cannot be written"), corrupt (Lance calls the manifest
// corrupt). The spec's table column for the release says what to expect:
//   known                                   ok, ok, ok
//   unknown / defined, but refused by ...   refused-read, refused-write, refused-read
//   known; one word alone is corrupt        ok, corrupt, corrupt
// One line per bit; exit 1 when any outcome differs from the spec.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { HERE, loadRelease, parseArgs } from "./lane_util.mjs";

const args = parseArgs("node interop/probe_flags.mjs --release lance12|lance8 --set-flags TOOL --work DIR",
  { required: ["release", "set-flags", "work"] });
const { lancedb, lance: lanceOf } = loadRelease(args.release);

// The §7 table: bit -> the cell of this release's column.
function specColumn() {
  const text = fs.readFileSync(path.join(HERE, "..", "spec", "02-lance-base.md"), "utf8");
  const lines = text.split("\n").filter((l) => l.startsWith("|"));
  const head = lines[0].split("|").map((c) => c.trim());
  const col = head.indexOf(`Lance ${lanceOf}`);
  if (col < 0) throw new Error(`02§7 (spec/02-lance-base.md) has no column for Lance ${lanceOf}`);
  const cells = new Map();
  for (const l of lines.slice(2)) {
    const c = l.split("|").map((x) => x.trim());
    const m = /^(\d+)( and above)?$/.exec(c[1]);
    if (m) cells.set(Number(m[1]), { cell: c[col], andAbove: !!m[2] });
  }
  return cells;
}

const EXPECT = {
  known: ["ok", "ok", "ok"],
  unknown: ["refused-read", "refused-write", "refused-read"],
  "defined, but refused by release builds": ["refused-read", "refused-write", "refused-read"],
  "known; one word alone is corrupt": ["ok", "corrupt", "corrupt"],
};

function outcome(e) {
  const m = String(e && e.message);
  if (/cannot be read by this version of Lance/.test(m)) return "refused-read";
  if (/cannot be written by this version of Lance/.test(m)) return "refused-write";
  if (/corrupt/i.test(m)) return "corrupt";
  return `other (${m.split("\n")[0].slice(0, 160)})`;
}

async function attempt(dir) {
  let t;
  try {
    t = await (await lancedb.connect(dir)).openTable("t");
    await t.countRows();
  } catch (e) {
    return outcome(e);
  }
  try {
    await t.add([{ id: 2 }]);
  } catch (e) {
    return outcome(e) === "refused-read" ? "refused-read" : outcome(e);
  }
  return "ok";
}

const work = path.resolve(args.work);
fs.rmSync(work, { recursive: true, force: true });
const base = path.join(work, "base");
await (await lancedb.connect(base)).createTable("t", [{ id: 1 }]);
const manifest = "_versions/18446744073709551614.manifest"; // version 1, V2 names
if (!fs.existsSync(path.join(base, "t.lance", manifest))) throw new Error(`no ${manifest} in the probe table`);

const spec = specColumn();
let disagreements = 0;
const BITS = [64, 128, 256, 512, 1024, 65536, 2 ** 52]; // 2^52 is exact as a double
for (const bit of BITS) {
  const row = spec.get(bit) || (bit > 512 && spec.get(512)?.andAbove ? spec.get(512) : null);
  if (!row) throw new Error(`02§7 (spec/02-lance-base.md) has no row for bit ${bit}`);
  const want = EXPECT[row.cell];
  if (!want) throw new Error(`02§7 (spec/02-lance-base.md): cannot read the cell '${row.cell}' of bit ${bit}`);
  const got = [];
  for (const [r, w] of [[bit, bit], [0, bit], [bit, 0]]) {
    const dir = path.join(work, `bit-${bit}-${r}-${w}`);
    fs.cpSync(base, dir, { recursive: true });
    execFileSync(args["set-flags"], [path.join(dir, "t.lance", manifest), String(r), String(w)]);
    got.push(await attempt(dir));
  }
  const same = got.every((g, i) => g === want[i]);
  if (!same) disagreements++;
  console.log(`${args.release} (Lance ${lanceOf}) bit ${bit}: both words ${got[0]}, writer word ${got[1]}, ` +
    `reader word ${got[2]}; spec: ${row.cell}: ${same ? "agrees" : `DISAGREES (expected ${want.join(", ")})`}`);
}
console.log(`${args.release} (Lance ${lanceOf}) feature bits: ${BITS.length} probed, ${disagreements} disagreements with 02§7 (spec/02-lance-base.md)`);
process.exit(disagreements ? 1 : 0);
