#!/usr/bin/env node
// onto_lane.mjs: lfa commits onto tables a released Lance wrote, and Lance
// reads them back.
//
//   node interop/onto_lane.mjs --release lance12|lance8 --gen GEN_DIR --lfa LFA --work DIR
//
// GEN_DIR is what interop/generate.mjs wrote (expected.json: Lance's own
// view of every version). Each dataset (branches, the 1,000-commit history
// and the mixed data-file-version tables aside) is copied to DIR, and then:
//   1. `lfa track --writer-bit-only` (assigned on every other dataset,
//      unassigned on the rest) and `lfa invalidate --writer-bit-only` of the
//      first and last live rows (by _rowid with stable row ids, else by
//      _rowaddr, from a file: --row-ids-from, --rows-from) commit versions
//      H+1 and H+2 onto the head H;
//   2. Lance, through a fresh connection, checks out every version: the
//      recorded ones scan as recorded, H+1 and H+2 as H (countRows(), every
//      _rowaddr and _rowid), and H+2 has H's schema;
//   3. `lfa verify` finds no error, and `lfa eval --json` at H+2 lists
//      exactly the rows Lance scanned there, each once, assigned as the two
//      commits imply (04§2, FA-INVAL-1);
//   4. `lfa invalidate --reader-bit` (the marker in both words after all)
//      commits H+3, which Lance refuses to open with its feature-flag
//      error ("cannot be read by this version of Lance"), not a decoding
//      failure; verify and eval again.
// On the mixed data-file-version table, `lfa track` must refuse (FA-FLAG-5)
// and write nothing. One line per dataset, then a total; exit 1 on any
// disagreement. No expected value comes from lfa.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { loadRelease, oneLine, parseArgs, runLfa } from "./lane_util.mjs";

const args = parseArgs("node interop/onto_lane.mjs --release lance12|lance8 --gen GEN_DIR --lfa LFA --work DIR",
  { required: ["release", "gen", "lfa", "work"] });
const { lancedb, lance: lanceOf } = loadRelease(args.release);
const started = Date.now();

const lfa = (...argv) => runLfa(args.lfa, argv);

function toNumber(x) {
  const n = typeof x === "bigint" ? Number(x) : x;
  if (!Number.isSafeInteger(n)) throw new Error(`row value ${x} is not a safe integer`);
  return n;
}

// Lance's scan: [_rowaddr, _rowid] of every live row, in address order.
async function scan(table) {
  const t = await table.query().withRowId().select(["_rowaddr"]).toArrow();
  const a = t.getChild("_rowaddr"), r = t.getChild("_rowid");
  if (t.numRows === 0 && (!a || !r)) return [];
  const rows = [];
  for (let i = 0; i < t.numRows; i++) rows.push([toNumber(a.get(i)), toNumber(r.get(i))]);
  return rows.sort((x, y) => x[0] - y[0]);
}

function schemaText(s) {
  return JSON.stringify(s.fields.map((f) => [f.name, String(f.type), f.nullable]));
}

function sameRows(got, want) {
  if (got.length !== want.row_addrs.length) return `${got.length} rows, recorded ${want.row_addrs.length}`;
  for (let i = 0; i < got.length; i++)
    if (got[i][0] !== want.row_addrs[i] || got[i][1] !== want.row_ids[i])
      return `row ${i}: (${got[i]}) scanned, (${want.row_addrs[i]},${want.row_ids[i]}) recorded`;
  return null;
}

// The one field lfa tracks: the first top-level column of a plain type.
function pickField(schema) {
  const plain = schema.fields.find((f) => /^(Int|Uint|Float|Utf8|LargeUtf8|Bool|Date|Timestamp)/i.test(String(f.type)));
  return plain ? plain.name : null;
}

function committed(r, want, what, problems) {
  const m = /committed version (\d+)/.exec(r.out);
  if (r.code !== 0 || !m || Number(m[1]) !== want) problems.push(`${what}: exit ${r.code}, ${r.err || r.out.trim()}`);
}

async function open(dsDir, name) {
  return (await lancedb.connect(path.dirname(dsDir))).openTable(name);
}

// Lance's view of every version, each through a fresh connection (as the
// generator recorded it): the recorded ones as recorded, the new ones as
// the head.
async function lanceReadsBack(dsDir, name, ds, head, extra, problems) {
  let read = 0, last = null;
  const plan = ds.versions.map((v) => [v.version, v]).concat(extra.map((v) => [v, head]));
  for (const [v, want] of plan) {
    try {
      const table = await open(dsDir, name);
      await table.checkout(v);
      const count = await table.countRows(), rows = await scan(table);
      const diff = count !== want.count_rows ? `countRows ${count}, recorded ${want.count_rows}` : sameRows(rows, want);
      if (diff) problems.push(`Lance at version ${v}: ${diff}`);
      last = { schema: schemaText(await table.schema()), rows };
      read++;
    } catch (e) {
      problems.push(`Lance at version ${v}: ${oneLine(e)}`);
      last = { schema: null, rows: [] };
    }
  }
  return { read, ...last };
}

// lfa eval at `version`: the rows Lance scanned, each once, assigned unless invalidated.
function evalAgrees(dsDir, field, version, rows, assigned, invalid, stable, problems) {
  const r = lfa("eval", dsDir, "--field", field, "--version", String(version), "--json");
  if (r.code !== 0) return problems.push(`lfa eval at ${version}: exit ${r.code}, ${r.err}`);
  const got = JSON.parse(r.out).rows;
  if (got.length !== rows.length) return problems.push(`lfa eval at ${version}: ${got.length} rows, Lance scanned ${rows.length}`);
  const seen = new Set();
  got.sort((x, y) => x.address - y.address);
  for (let i = 0; i < got.length; i++) {
    const g = got[i], [addr, id] = rows[i];
    if (seen.has(g.address)) return problems.push(`lfa eval at ${version}: row ${g.address} listed twice`);
    seen.add(g.address);
    if (g.address !== addr || (stable && g.row_id !== id))
      return problems.push(`lfa eval at ${version}: row ${i} is (${g.address},${g.row_id}), Lance scanned (${addr},${id})`);
    const want = assigned && !invalid.has(stable ? id : addr);
    if (g.assigned !== want) return problems.push(`lfa eval at ${version}: row ${addr} assigned ${g.assigned}, the commits imply ${want}`);
  }
}

async function refusesToOpen(dsDir, name, problems) {
  try {
    await (await open(dsDir, name)).countRows();
    problems.push("Lance opened the version with the reader bit");
  } catch (e) {
    if (!/cannot be read by this version of Lance/.test(String(e.message)))
      problems.push(`Lance refused the reader bit with something other than its feature-flag error: ${oneLine(e)}`);
  }
}

async function trackOne(ds, index, work, totals) {
  const problems = [];
  const src = path.join(args.gen, ds.path), name = path.basename(ds.path, ".lance");
  const dsDir = path.join(work, "db", path.basename(ds.path));
  fs.cpSync(src, dsDir, { recursive: true });
  const head = ds.versions[ds.versions.length - 1], H = head.version;
  const before = await open(dsDir, name);
  const schemaBefore = schemaText(await before.schema()), field = pickField(await before.schema());
  if (!field) return `${ds.name}: no plain column to track`;
  const assigned = index % 2 === 0, stable = ds.stable_row_ids;
  committed(lfa("track", dsDir, "--field", field, "--initial", assigned ? "assigned" : "unassigned", "--writer-bit-only"),
    H + 1, "lfa track", problems);
  const names = stable ? head.row_ids : head.row_addrs, flag = stable ? "--row-ids" : "--rows";
  const picked = names.length ? [...new Set([names[0], names[names.length - 1]])] : [];
  let last = H + 1;
  const rowsFile = path.join(work, `${path.basename(ds.path)}.rows`); // one a line: --rows-from / --row-ids-from
  fs.writeFileSync(rowsFile, picked.map(String).join("\n") + "\n");
  if (picked.length) committed(lfa("invalidate", dsDir, "--field", field, `${flag}-from`, rowsFile, "--writer-bit-only"), ++last, "lfa invalidate", problems);
  const back = await lanceReadsBack(dsDir, name, ds, head, last === H + 1 ? [H + 1] : [H + 1, last], problems);
  if (back.schema !== schemaBefore) problems.push(`Lance's schema at ${last} differs from ${H}'s`);
  const v = lfa("verify", dsDir);
  if (v.code !== 0) problems.push(`lfa verify: exit ${v.code}: ${v.out.trim().split("\n").slice(-2).join(" / ")}`);
  const invalid = new Set(picked);
  evalAgrees(dsDir, field, last, back.rows, assigned, invalid, stable, problems);
  if (names.length > 2) { // the reader bit after all: both words, and Lance no longer opens the table
    committed(lfa("invalidate", dsDir, "--field", field, flag, String(names[1]), "--reader-bit"), last + 1, "lfa invalidate (both words)", problems);
    await refusesToOpen(dsDir, name, problems);
    invalid.add(names[1]);
    evalAgrees(dsDir, field, last + 1, back.rows, assigned, invalid, stable, problems);
    const v2 = lfa("verify", dsDir);
    if (v2.code !== 0) problems.push(`lfa verify after the reader bit: exit ${v2.code}`);
    totals.refused++;
  }
  totals.datasets++, totals.versions += back.read, totals.commits += last + (names.length > 2) - H;
  return problems.length ? `${ds.name}: ${problems.length} problem(s): ${problems.slice(0, 4).join("; ")}` : null;
}

// [FA-FLAG-5] a writer bit lfa was not taught (Lance 12's 256): refused, nothing written.
function mixedRefused(ds, work) {
  const dsDir = path.join(work, "db", path.basename(ds.path));
  fs.cpSync(path.join(args.gen, ds.path), dsDir, { recursive: true });
  const files = () => execFileSync("find", [dsDir, "-type", "f"], { encoding: "utf8" }).split("\n").length;
  const n = files(), r = lfa("track", dsDir, "--field", "id", "--initial", "unassigned");
  if (r.code !== 2 || !/FA-FLAG-5/.test(r.err)) return `${ds.name}: lfa track was not refused by FA-FLAG-5 (exit ${r.code}: ${r.err})`;
  if (files() !== n) return `${ds.name}: the refused track wrote files`;
  return null;
}

const expected = JSON.parse(fs.readFileSync(path.join(args.gen, "expected.json"), "utf8"));
const work = path.resolve(args.work);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, "db"), { recursive: true });
const totals = { datasets: 0, versions: 0, commits: 0, refused: 0 };
let failures = 0, index = 0;
for (const ds of expected.datasets) {
  if (ds.name.includes("__branch_") || ds.name.startsWith("history_")) continue;
  const line = ds.name === "mixed_built" ? mixedRefused(ds, work) : ds.name.startsWith("mixed_") ? undefined : await trackOne(ds, index++, work, totals);
  if (line === undefined) continue;
  if (line) failures++, console.log(`${args.release} onto: ${line}`);
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(`${args.release} (Lance ${lanceOf}) onto: ${totals.datasets} datasets tracked, ${totals.commits} lfa commits, ` +
  `${totals.versions} versions read back by Lance, ${totals.refused} reader-bit refusals, ${failures} failed, ${secs} s`);
process.exit(failures ? 1 : 0);
