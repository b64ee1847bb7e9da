#!/usr/bin/env node
// interop/s3_lane.mjs: released Lance writes tables to the local S3 server
// (s3rver, interop/s3/) and lfa must answer on s3:// exactly as on a copy.
//
//   node interop/s3_lane.mjs --release lance12 --lfa BIN --work DIR --endpoint URL [--proxy URL]
//
// Lance connects to s3://lfa/db with the storage options aws_endpoint,
// allow_http, aws_access_key_id, aws_secret_access_key and aws_region, and
// writes each table through its Node API: create, add, delete (a few rows,
// and more than 5,000 of one fragment: .arrow and .bin deletion files),
// update, merge_insert, optimize (compaction, index optimisation),
// add_columns, alter_columns (rename, cast, nullability), field metadata,
// drop_columns, btree, bitmap, full-text and IVF-PQ indices, tags, restore,
// cleanup of old versions; both row-id modes, V1 and V2 manifest names, data
// storage versions legacy to 2.2, and a history of 120 commits. (Branches
// and shallow clones are left out: their base paths are s3:// URLs, which a
// local copy cannot resolve, so the two answers would differ by design.)
// Then, for every table:
//  - a local copy is made with plain S3 GETs of a listing (interop/s3/tree.mjs),
//    not by lfa;
//  - `lfa dump --json --rows`, `lfa verify --json` (and --full) give the same
//    bytes on s3:// and on the copy (the URL read as the copy's path), and so
//    through --proxy (a fault proxy: many listing pages, a 500 now and then);
//  - every live-row count lfa dumps is Lance's countRows() of that version;
//  - lfa tracks a field and invalidates two rows on s3:// (writer bit only),
//    Lance reads the table back through S3 as before, and `lfa eval --json`
//    and `lfa verify --json` give the same bytes on s3:// and on a new copy.
// Prints one summary line; exit 1 on any difference, with its first lines.
import fs from "node:fs";
import path from "node:path";

import { loadRelease, oneLine, parseArgs, runLfa, s3Difference, s3Env, s3Tree } from "./lane_util.mjs";

const args = parseArgs("node interop/s3_lane.mjs --release R --lfa BIN --work DIR --endpoint URL [--proxy URL]",
  { required: ["release", "lfa", "work", "endpoint"], defaults: { proxy: "" } });
const T0 = performance.now();
const { lancedb: L, arrow: A, lance } = loadRelease(args.release);
const BUCKET = "lfa", DB = `s3://${BUCKET}/db`;
const storageOptions = {
  aws_endpoint: args.endpoint, allow_http: "true", aws_access_key_id: "S3RVER", aws_secret_access_key: "S3RVER",
  aws_region: "us-east-1",
};
fs.rmSync(args.work, { recursive: true, force: true });
fs.mkdirSync(args.work, { recursive: true });

const failures = [];
let compared = 0, versionsChecked = 0, rowsCompared = 0;
const differ = (what, detail) => failures.push(`${what}: ${detail}`.slice(0, 600));

const schema = new A.Schema([
  new A.Field("id", new A.Int64(), false),
  new A.Field("v", new A.Utf8(), true),
  new A.Field("f", new A.Float32(), true),
]);
const rows = (lo, hi, tag = "s") => {
  const out = [];
  for (let i = lo; i < hi; i++) out.push({ id: BigInt(i), v: `${tag}${i}`, f: i * 0.5 });
  return L.makeArrowTable(out, { schema });
};

const db = await L.connect(DB, { storageOptions });
const tables = [];

const vecSchema = new A.Schema([
  new A.Field("id", new A.Int64(), false),
  new A.Field("v", new A.Utf8(), true),
  new A.Field("vec", new A.FixedSizeList(8, new A.Field("item", new A.Float32(), true)), true),
]);
const vecRows = (lo, hi, seed) => {
  let x = seed >>> 0 || 1;
  const r = () => ((x = (x * 1103515245 + 12345) >>> 0) / 4294967296);
  const out = [];
  for (let i = lo; i < hi; i++) out.push({ id: BigInt(i), v: `w${i % 17} word${i % 5}`, vec: Array.from({ length: 8 }, () => r() * 2 - 1) });
  return L.makeArrowTable(out, { schema: vecSchema });
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function make(name, { stable = false, naming = null, storage = null, data }, steps) {
  const so = {};
  if (storage) so.new_table_data_storage_version = storage;
  if (stable) so.new_table_enable_stable_row_ids = "true";
  if (naming === "v2") so.new_table_enable_v2_manifest_paths = "true";
  if (naming === "v1") so.new_table_enable_v2_manifest_paths = "false";
  const t = await db.createTable(name, data, { mode: "create", storageOptions: so });
  await steps(t);
  tables.push({ name, stable });
}

async function mutations(t) {
  await t.add(rows(100, 150));
  await t.delete("id IN (3, 7, 11)");
  await t.update({ where: "id >= 20 AND id < 25", values: { v: "updated" } });
  await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows(140, 170, "m"));
  await t.add(rows(170, 200));
  await t.addColumns([{ name: "cat", valueSql: "id % 4" }]);
  await t.alterColumns([{ path: "cat", rename: "category" }]);
  await t.createIndex("id", { config: L.Index.btree() });
  await t.createIndex("category", { config: L.Index.bitmap() });
  await t.optimize();
  const tags = await t.tags();
  await tags.create("early", 3);
  await t.dropColumns(["f"]);
  await t.checkout(4);
  await t.restore();
}

try {
  await make("mutations_address", { data: rows(0, 100) }, mutations);
  await make("mutations_stable", { stable: true, data: rows(0, 100) }, mutations);
  await make("v2_names", { naming: "v2", data: rows(0, 50) }, async (t) => {
    await t.add(rows(50, 60));
    await t.delete("id = 5");
  });
  await make("big_delete", { data: rows(0, 12000) }, async (t) => {
    await t.delete("id >= 100 AND id < 6000"); // more than 5,000 in one fragment: a .bin deletion file
    await t.delete("id = 7000");
  });
  await make("merges_and_alters", { stable: true, data: rows(0, 80) }, async (t) => {
    await t.mergeInsert("id").whenMatchedUpdateAll().execute(rows(10, 30, "u"));
    if (typeof t.mergeInsert("id").whenNotMatchedBySourceDelete === "function")
      await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().whenNotMatchedBySourceDelete()
        .execute(rows(5, 90, "s"));
    await t.addColumns([{ name: "n_int", valueSql: "cast(NULL as bigint)" }]);
    await t.alterColumns([{ path: "f", dataType: new A.Float64() }]);
    await t.alterColumns([{ path: "id", nullable: true }]);
    if (typeof t.updateFieldMetadata === "function") await t.updateFieldMetadata([{ path: "v", metadata: { "lfa.s3": "yes" } }]);
    await t.createIndex("v", { config: L.Index.fts() });
    await t.update({ where: "id >= 40 AND id < 44", values: { v: "late" } });
    await t.optimize();
  });
  await make("vector_cleanup", { data: vecRows(0, 512, 7) }, async (t) => {
    await t.createIndex("vec", { config: L.Index.ivfPq({ numPartitions: 2, numSubVectors: 2, maxIterations: 10 }) });
    await t.add(vecRows(512, 576, 8));
    await t.delete("id IN (5, 50, 500)");
    await t.optimize();
    await sleep(20);
    await t.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true }); // old versions gone
    await t.add(vecRows(576, 584, 9));
  });
  for (const sv of ["legacy", "2.0", "2.1", "2.2"])
    await make(`storage_${sv.replace(/\./g, "_")}`, { storage: sv, data: rows(0, 30) }, async (t) => {
      await t.add(rows(30, 40));
      await t.delete("id IN (1, 2, 33)");
      await t.update({ where: "id >= 10 AND id < 12", values: { v: "upd" } });
      await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows(35, 45, "m"));
    });
  await make("history", { data: rows(0, 10) }, async (t) => {
    for (let i = 0; i < 120; i++) await t.add(rows(10 + i, 11 + i, "h"));
  });
} catch (e) {
  console.log(`s3 lane ${args.release}: Lance could not write to the S3 server: ${oneLine(e)}`);
  process.exit(1);
}

const runWith = (ep, argv) => runLfa(args.lfa, argv, { env: s3Env(ep) });
function copyDown(name, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  s3Tree("get", args.endpoint, BUCKET, `db/${name}.lance`, dir);
}
// lfa ARGV on the s3:// URL (through `ep`) and on the local copy: the same
// exit status and bytes, the URL read as the copy's path.
function same(ep, url, dir, cmd, more, what) {
  const a = runWith(ep, [cmd, url, ...more]);
  const b = runWith(ep, [cmd, dir, ...more]);
  compared++;
  const d = s3Difference(url, dir, a, b);
  if (d) differ(`${what}: lfa ${cmd} ${more.join(" ")}`, d);
  return b;
}

for (const t of tables) {
  const url = `${DB}/${t.name}.lance`, dir = path.join(args.work, `${t.name}.lance`);
  copyDown(t.name, dir);
  const dump = same(args.endpoint, url, dir, "dump", ["--json", "--rows"], t.name);
  same(args.endpoint, url, dir, "verify", ["--json"], t.name);
  same(args.endpoint, url, dir, "verify", ["--json", "--full"], t.name);
  if (args.proxy) {
    same(args.proxy, url, dir, "dump", ["--json", "--rows"], `${t.name} (through the fault proxy)`);
    same(args.proxy, url, dir, "verify", ["--json"], `${t.name} (through the fault proxy)`);
  }
  const v = JSON.parse(runWith(args.endpoint, ["verify", url, "--json"]).out || "{}");
  if (!v.summary || v.summary.errors !== 0) differ(`${t.name}: lfa verify`, `${JSON.stringify(v.summary)} on a table Lance wrote`);
  // Lance's own view: countRows() of every version lfa dumped
  let d;
  try { d = JSON.parse(dump.out); } catch { differ(`${t.name}: dump --json`, "does not parse"); continue; }
  const table = await (await L.connect(DB, { storageOptions })).openTable(t.name);
  for (const ver of d.versions) {
    if (ver.error) { differ(`${t.name}@${ver.version}`, `lfa cannot read it: ${ver.error.message}`); continue; }
    await table.checkout(ver.version);
    const count = await table.countRows();
    const live = ver.live_rows.length;
    versionsChecked++, rowsCompared += live;
    if (count !== live) differ(`${t.name}@${ver.version}`, `lfa lists ${live} live rows, Lance counts ${count}`);
  }
}

// lfa commits onto Lance's tables on S3; Lance reads them back through S3
let commits = 0;
for (const t of tables.filter((x) => x.name !== "history")) {
  const url = `${DB}/${t.name}.lance`, dir = path.join(args.work, `${t.name}.after.lance`);
  const before = await (await (await L.connect(DB, { storageOptions })).openTable(t.name)).countRows();
  const tr = runWith(args.endpoint, ["track", url, "--field", "v", "--initial", "assigned", "--writer-bit-only"]);
  if (tr.code !== 0) { differ(`${t.name}: lfa track on s3://`, tr.err || tr.out); continue; }
  const dump = JSON.parse(runWith(args.endpoint, ["dump", url, "--json", "--rows", "--version", String(JSON.parse(runWith(args.endpoint, ["dump", url, "--json"]).out).versions.at(-1).version)]).out);
  const live = dump.versions[0].live_rows;
  const pick = t.stable ? dump.versions[0].live_row_ids : live;
  const inv = runWith(args.endpoint, ["invalidate", url, "--field", "v", t.stable ? "--row-ids" : "--rows", `${pick[0]},${pick[pick.length - 1]}`]);
  if (inv.code !== 0) { differ(`${t.name}: lfa invalidate on s3://`, inv.err || inv.out); continue; }
  commits += 2;
  const after = await (await (await L.connect(DB, { storageOptions })).openTable(t.name)).countRows();
  if (after !== before) differ(`${t.name}: Lance after lfa's commits`, `countRows ${after}, before ${before}`);
  copyDown(t.name, dir);
  same(args.endpoint, url, dir, "eval", ["--field", "v", "--json"], `${t.name} after lfa's commits`);
  same(args.endpoint, url, dir, "verify", ["--json"], `${t.name} after lfa's commits`);
  const e = JSON.parse(runWith(args.endpoint, ["eval", url, "--field", "v", "--json"]).out || "{}");
  if (!e.totals || e.totals.unassigned !== 2 || e.totals.live_rows !== after)
    differ(`${t.name}: lfa eval after invalidating 2 rows`, JSON.stringify(e.totals));
}

const secs = ((performance.now() - T0) / 1000).toFixed(1);
console.log(`s3 lane ${args.release} (Lance ${lance}): ${tables.length} tables written to S3, ${versionsChecked} versions ` +
  `(${rowsCompared} live rows) against Lance's countRows, ${compared} outputs compared on s3:// and a copy, ` +
  `${commits} lfa commits on s3:// read back by Lance, ${failures.length} differences, ${secs} s`);
for (const f of failures.slice(0, 20)) console.log(`  ${f}`);
process.exit(failures.length ? 1 : 0);
