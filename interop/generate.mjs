#!/usr/bin/env node
// interop/generate.mjs — drive a released Lance (through its LanceDB Node
// package) through the mutations its Node API offers, and record Lance's own
// view of every version that is still on disk afterwards.
//
//   node interop/generate.mjs --release lance12|lance8 --out DIR [--quick] [--mix-tool PATH]
//   node interop/generate.mjs --release LABEL --modules DIR --out DIR --core
//
// --core is the release sweep's run (scripts/sweep_releases.sh): the core
// histories only (mutations, big deletes, manifest namings, misc, storage
// versions and a short history; each row-id mode the release has), through
// any release's API: DIR is a node_modules folder holding @lancedb/lancedb
// (0.4.20 and later) or the older vectordb package. Every step the release
// cannot do (its API lacks the method, or Lance refuses it) is listed under
// "skipped" with the reason, and the history goes on; a release whose
// queries return no _rowaddr has its live-row counts recorded only, and one
// without checkout() has them recorded as each version is written.
//
// --mix-tool names interop/tools/mix_versions (built by CMake): with Lance 12
// it builds the one dataset the Node API cannot, a table with mixed
// data-file versions (feature bit 256), which Lance 12 then opens, scans and
// mutates like any other.
//
// The release's packages are loaded from interop/<release>/node_modules, so
// one script serves every pinned release.  DIR receives the datasets (under
// DIR/db/) and DIR/expected.json.  Everything stays on the local disk.
//
// What is recorded per version (count_rows, row_addrs, row_ids) comes from
// Lance itself: countRows() and a query of _rowaddr/_rowid after checkout.
// Nothing in expected.json about rows is computed by this script.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { api, Fatal, isApiGap, loadRelease, oneLine, parseArgs } from "./lane_util.mjs";

const T_START = performance.now();

function fail(msg) {
  throw new Fatal(msg);
}

// ---------------------------------------------------------------- disk views

// Versions present in a dataset's _versions/ folder, and the naming seen.
function versionsOnDisk(dsAbs) {
  const vdir = path.join(dsAbs, "_versions");
  const out = new Map();
  let v1 = 0, v2 = 0;
  if (!fs.existsSync(vdir)) return { versions: out, naming: "none" };
  const U64_MAX = (1n << 64n) - 1n;
  for (const name of fs.readdirSync(vdir)) {
    const m = /^(\d+)\.manifest$/.exec(name);
    if (!m) continue;
    if (m[1].length === 20) {
      out.set(Number(U64_MAX - BigInt(m[1])), name);
      v2++;
    } else {
      out.set(Number(m[1]), name);
      v1++;
    }
  }
  const naming = v1 && v2 ? "mixed" : v2 ? "v2" : v1 ? "v1" : "none";
  return { versions: out, naming };
}

function walk(dir, fn) {
  if (!fs.existsSync(dir)) return;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, ent.name);
    if (ent.isDirectory()) walk(p, fn);
    else fn(p);
  }
}

// Deletion files under every _deletions/ folder below root.
function deletionKinds(root) {
  const k = { arrow: 0, bin: 0 };
  walk(root, (p) => {
    if (path.basename(path.dirname(p)) !== "_deletions") return;
    if (p.endsWith(".arrow")) k.arrow++;
    else if (p.endsWith(".bin")) k.bin++;
  });
  return k;
}

// Data file format versions, from the 8-byte tail (u16 major, u16 minor,
// "LANC") of each file under data/.  Only used for the mixed-versions probe
// and for notes, never for the recorded rows.
function dataFileVersions(dsAbs) {
  const seen = new Set();
  const ddir = path.join(dsAbs, "data");
  if (!fs.existsSync(ddir)) return [];
  for (const f of fs.readdirSync(ddir)) {
    if (!f.endsWith(".lance")) continue;
    const fd = fs.openSync(path.join(ddir, f), "r");
    try {
      const size = fs.fstatSync(fd).size;
      const b = Buffer.alloc(8);
      fs.readSync(fd, b, 0, 8, size - 8);
      if (b.subarray(4).toString("latin1") !== "LANC") continue;
      const major = b.readUInt16LE(0), minor = b.readUInt16LE(2);
      // Files with tail 0.2 are legacy; 0.3 is the 2.0 format.
      seen.add(major === 0 && minor === 3 ? "2.0" : major === 0 ? "legacy" : `${major}.${minor}`);
    } finally {
      fs.closeSync(fd);
    }
  }
  return [...seen].sort();
}

// ---------------------------------------------------------------- helpers

function toSafe(x, what) {
  const n = typeof x === "bigint" ? Number(x) : x;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
    fail(`${what} value ${String(x)} is not a safe non-negative integer`);
  return n;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// Small deterministic generator so every run writes the same data.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- generator

// The newest version on disk (for a release whose Table has no version()).
function newestOnDisk(dsAbs) {
  const vs = [...versionsOnDisk(dsAbs).versions.keys()];
  return vs.length ? Math.max(...vs) : 0;
}

class Generator {
  constructor(lib, outAbs, quick, adapt = false) {
    // adapt (--core): a step the release cannot do is skipped with its
    // reason, never fatal, and the release's API is detected, not assumed.
    this.adapt = adapt;
    this.vectordb = lib.pkg === "vectordb";
    this.L = lib.lancedb;
    this.A = lib.arrow;
    this.lib = lib;
    this.outAbs = outAbs;
    this.dbAbs = path.join(outAbs, "db");
    this.quick = quick;
    this.datasets = [];
    this.skipped = [];
    this.findings = {};
    const A = this.A;
    this.baseSchema = new A.Schema([
      new A.Field("id", new A.Int64(), false),
      new A.Field("v", new A.Utf8(), true),
      new A.Field("f", new A.Float32(), true),
    ]);
    this.vecSchema = new A.Schema([
      new A.Field("id", new A.Int64(), false),
      new A.Field("v", new A.Utf8(), true),
      new A.Field("vec", new A.FixedSizeList(8, new A.Field("item", new A.Float32(), true)), true),
    ]);
  }

  skip(what, why) {
    this.skipped.push({ what, why });
  }

  rows(lo, hi, tag = "s", schema = this.baseSchema) {
    const out = [];
    // vectordb infers the schema from plain rows, and wants a vector column
    if (this.vectordb) {
      for (let i = lo; i < hi; i++) out.push({ id: i, v: `${tag}${i}`, f: i * 0.5, vector: [i, 1] });
      return out;
    }
    for (let i = lo; i < hi; i++) out.push({ id: BigInt(i), v: `${tag}${i}`, f: i * 0.5 });
    return this.L.makeArrowTable(out, { schema });
  }

  // The table's version: its own answer, or the newest on disk.
  async ver(table, abs) {
    return typeof table.version === "function" ? table.version() : newestOnDisk(abs);
  }

  // What a step the release could not do is recorded as, and why.
  couldNot(ctx, what, e) {
    const why = isApiGap(e) ? `not in this release's API (${oneLine(e)})` : `Lance refused: ${oneLine(e)}`;
    this.skip(`${ctx.ds.name}: ${what}`, why);
    ctx.notes.push(`${what}: ${isApiGap(e) ? "not in the API" : "refused by Lance"}`);
  }

  // With --core, a part of a history that may be beyond the release (tags,
  // checkout, restore, overwrite): its failure is recorded, not fatal.
  async optional(ctx, what, fn) {
    if (!this.adapt) return fn();
    try {
      return await fn();
    } catch (e) {
      if (e instanceof Fatal) throw e;
      this.couldNot(ctx, what, e);
      if (typeof ctx.table.checkoutLatest === "function") await ctx.table.checkoutLatest().catch(() => {});
      return undefined;
    }
  }

  // A release without checkout() cannot show an old version again: its
  // counts are recorded as each version is written.
  async logWrite(ctx) {
    if (typeof ctx.table.checkout === "function") return;
    ctx.log = ctx.log || [];
    ctx.log.push({ version: await this.ver(ctx.table, ctx.abs), count_rows: await ctx.table.countRows() });
  }

  vecRows(lo, hi, seed) {
    const r = rng(seed);
    const out = [];
    for (let i = lo; i < hi; i++) {
      const vec = [];
      for (let j = 0; j < 8; j++) vec.push(r() * 2 - 1);
      out.push({ id: BigInt(i), v: `w${i % 17} word${i % 5}`, vec });
    }
    return this.L.makeArrowTable(out, { schema: this.vecSchema });
  }

  async connect() {
    this.db = await this.L.connect(this.dbAbs);
  }

  // Start a dataset record; returns a context used by step()/finish().
  async begin(name, { stable = false, naming = null, storage = null, schema = null, data, notes = [] }) {
    const t0 = performance.now();
    const storageOptions = {};
    if (stable) storageOptions.new_table_enable_stable_row_ids = "true";
    if (naming === "v1") storageOptions.new_table_enable_v2_manifest_paths = "false";
    if (naming === "v2") storageOptions.new_table_enable_v2_manifest_paths = "true";
    if (storage) storageOptions.new_table_data_storage_version = storage;
    const opts = { mode: "create", storageOptions };
    if (schema) opts.schema = schema;
    let table;
    if (this.vectordb) {
      if (Object.keys(storageOptions).length)
        throw new Fatal(`not in this release's API (vectordb's createTable takes no storage options: ${Object.keys(storageOptions).join(", ")})`);
      table = await this.db.createTable(name, data);
    } else table = await this.db.createTable(name, data, opts);
    const abs = path.join(this.dbAbs, `${name}.lance`);
    const ds = {
      name,
      path: path.relative(this.outAbs, path.join(this.dbAbs, `${name}.lance`)).split(path.sep).join("/"),
      stable_row_ids: stable,
      naming: null,
      naming_requested: naming || "default",
      data_storage_version: storage || "default",
      operations: [{ op: "create", version: await this.ver(table, abs) }],
      versions: [],
      notes: "",
    };
    const ctx = { ds, table, t0, notes: [...notes], abs };
    await this.logWrite(ctx);
    return ctx;
  }

  // Run one mutation and record the version it leaves the table at.
  async step(ctx, op, fn, extra = {}) {
    const before = await this.ver(ctx.table, ctx.abs);
    let result;
    try {
      result = await fn(ctx.table);
    } catch (e) {
      if (e instanceof Fatal) throw e;
      if (!this.adapt) fail(`${ctx.ds.name}: ${op} failed: ${oneLine(e)}`);
      this.couldNot(ctx, op, e);
      if (typeof ctx.table.checkoutLatest === "function") await ctx.table.checkoutLatest();
      const after = await this.ver(ctx.table, ctx.abs);
      if (after !== before) {
        ctx.ds.operations.push({ op, version: after, commits: after - before, refused: oneLine(e) });
        await this.logWrite(ctx);
      }
      return undefined;
    }
    await this.logWrite(ctx);
    const after = await this.ver(ctx.table, ctx.abs);
    const rec = { op, version: after, ...extra };
    if (after - before !== 1) rec.commits = after - before;
    ctx.ds.operations.push(rec);
    return result;
  }

  // A step that a release may legitimately refuse: a refusal goes to
  // "skipped" and the history goes on.
  async tryStep(ctx, op, what, fn, extra = {}) {
    const before = await this.ver(ctx.table, ctx.abs);
    try {
      await fn(ctx.table);
    } catch (e) {
      if (e instanceof Fatal) throw e;
      this.skip(`${ctx.ds.name}: ${what}`, `Lance refused: ${oneLine(e)}`);
      ctx.notes.push(`${what}: refused by Lance`);
      // A refused multi-commit call (optimize) may have committed some steps.
      if (typeof ctx.table.checkoutLatest === "function") await ctx.table.checkoutLatest();
      const after = await this.ver(ctx.table, ctx.abs);
      if (after !== before) ctx.ds.operations.push({ op, version: after, commits: after - before, refused: oneLine(e) });
      if (after !== before) await this.logWrite(ctx);
      return false;
    }
    await this.logWrite(ctx);
    const after = await this.ver(ctx.table, ctx.abs);
    const rec = { op, version: after, ...extra };
    if (after - before !== 1) rec.commits = after - before;
    ctx.ds.operations.push(rec);
    return true;
  }

  // Lance's live rows: _rowaddr and _rowid of each, or null when the
  // release's queries cannot return them (only countRows() is recorded).
  async liveRows(table, where, count) {
    if (typeof table.query !== "function") return null;
    // Some releases' query() stops at 10 rows unless given a limit.
    const all = () => {
      const q = table.query();
      return this.adapt && typeof q.limit === "function" ? q.limit(Math.max(count, 1)) : q;
    };
    const q = all();
    if (typeof q.withRowId !== "function" || typeof q.toArrow !== "function") return null;
    let tbl;
    try {
      tbl = await q.withRowId().select(["_rowaddr"]).toArrow();
    } catch (e) {
      // Lance 0.19 to 0.2x: _rowid but no _rowaddr column. In address mode
      // Lance's row id is the row address, so the ids are recorded as a set.
      if (!this.adapt || !/_rowaddr/.test(String(e && e.message))) throw e;
      const t2 = await all().withRowId().toArrow();
      const c = t2.getChild("_rowid");
      const ids = [];
      for (let i = 0; c && i < t2.numRows; i++) ids.push(toSafe(c.get(i), `${where} _rowid`));
      return { ids_only: true, row_id_set: ids.sort((x, y) => x - y) };
    }
    const ca = tbl.getChild("_rowaddr"), ci = tbl.getChild("_rowid");
    // An empty version can come back as a table without columns.
    if (tbl.numRows === 0 && (!ca || !ci)) return { row_addrs: [], row_ids: [] };
    if (!ca || !ci)
      fail(`${where}: query().withRowId().select(["_rowaddr"]) returned columns [${tbl.schema.fields.map((f) => f.name).join(", ")}], need _rowaddr and _rowid`);
    const n = tbl.numRows;
    const pairs = new Array(n);
    for (let i = 0; i < n; i++) pairs[i] = [toSafe(ca.get(i), `${where} _rowaddr`), toSafe(ci.get(i), `${where} _rowid`)];
    pairs.sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < n; i++)
      if (pairs[i][0] === pairs[i - 1][0]) fail(`${where}: duplicate _rowaddr ${pairs[i][0]}`);
    return { row_addrs: pairs.map((p) => p[0]), row_ids: pairs.map((p) => p[1]) };
  }

  // Record every version that Lance lists and that is still on disk.
  async recordVersions(table, dsAbs, ds, notes) {
    const disk = versionsOnDisk(dsAbs);
    ds.naming = disk.naming;
    if (typeof table.checkout !== "function") {
      // counts as each version was written (logWrite), where still on disk
      const seen = new Map((this.logOf(ds) || []).map((r) => [r.version, r]));
      for (const v of [...seen.keys()].filter((v) => disk.versions.has(v)).sort((a, b) => a - b)) ds.versions.push(seen.get(v));
      notes.push("no checkout() in this release's API: countRows() recorded as each version was written; no row addresses");
      return { sameIds: true, differ: 0, countsOnly: true };
    }
    const listed = typeof table.listVersions === "function" ? (await table.listVersions()).map((v) => v.version)
      : [...disk.versions.keys()];
    const listedSet = new Set(listed);
    const gone = listed.filter((v) => !disk.versions.has(v));
    const unlisted = [...disk.versions.keys()].filter((v) => !listedSet.has(v));
    if (gone.length) notes.push(`listVersions() names ${gone.length} version(s) without a manifest on disk: ${gone.join(",")}; not recorded`);
    if (unlisted.length) notes.push(`manifest(s) on disk not listed by listVersions(): ${unlisted.sort((a, b) => a - b).join(",")}; not recorded`);
    const vers = listed.filter((v) => disk.versions.has(v)).sort((a, b) => a - b);
    let sameIds = true, differ = 0, countsOnly = false;
    // Each version is read through a connection of its own: one session's
    // caches can outlive a version (Lance 8 kept the row-id index of a
    // fragment id an Overwrite had reused, and scanned the old ids). A branch
    // cannot be opened by name, so it is read through its own table.
    const tableName = ds.branch ? null : path.basename(dsAbs).replace(/\.lance$/, "");
    for (const v of vers) {
      if (tableName !== null) table = await (await this.L.connect(this.dbAbs)).openTable(tableName);
      await table.checkout(v);
      const got = await table.version();
      if (got !== v) fail(`${ds.name}: checkout(${v}) landed on version ${got}`);
      const count = await table.countRows();
      const rows = await this.liveRows(table, `${ds.name}@${v}`, count);
      if (rows === null || rows.ids_only) {
        countsOnly = true;
        if (rows && rows.row_id_set.length !== count)
          fail(`${ds.name}@${v}: query returned ${rows.row_id_set.length} row ids but countRows() = ${count}`);
        ds.versions.push({ version: v, count_rows: count, ...(rows ? { row_id_set: rows.row_id_set } : {}) });
        continue;
      }
      if (rows.row_addrs.length !== count)
        fail(`${ds.name}@${v}: query returned ${rows.row_addrs.length} rows but countRows() = ${count}`);
      for (let i = 0; i < count; i++) if (rows.row_addrs[i] !== rows.row_ids[i]) { sameIds = false; differ++; }
      ds.versions.push({ version: v, count_rows: count, ...rows });
    }
    await table.checkoutLatest();
    if (countsOnly) notes.push("this release's queries return no _rowaddr: countRows() recorded (and the _rowid set where it has _rowid), no row addresses");
    return { sameIds, differ, countsOnly };
  }

  logOf(ds) {
    return this.logs && this.logs.get(ds);
  }

  async finish(ctx, { table = ctx.table, abs = ctx.abs, ds = ctx.ds, notes = ctx.notes, t0 = ctx.t0 } = {}) {
    const tRec = performance.now();
    this.logs = this.logs || new Map();
    if (ctx.log) this.logs.set(ds, ctx.log);
    const { sameIds, differ, countsOnly } = await this.recordVersions(table, abs, ds, notes);
    if (countsOnly && ds.stable_row_ids)
      fail(`${ds.name}: stable row ids requested, but this release cannot show Lance's row ids (no _rowid from its queries)`);
    const recSecs = (performance.now() - tRec) / 1000;
    if (ds.stable_row_ids === null) {
      // Not requested by us (a materialized view): read the mode off Lance's
      // own answers.
      ds.stable_row_ids = !sameIds;
      notes.push(sameIds ? "row-id mode not requested; _rowid equals _rowaddr everywhere, recorded as address row ids"
        : "row-id mode not requested; _rowid differs from _rowaddr, recorded as stable row ids");
    }
    if (ds.stable_row_ids) {
      if (sameIds && ds.operations.some((o) => /update|merge|optimize|compact/.test(o.op)))
        fail(`${ds.name}: stable row ids requested but _rowid equals _rowaddr in every version after updates/compaction`);
      notes.push(`stable row ids confirmed: _rowid differs from _rowaddr in ${differ} recorded row(s)`);
    } else if (!sameIds) {
      notes.push(`address row ids, yet _rowid differs from _rowaddr in ${differ} recorded row(s)`);
    } else {
      notes.push("address row ids: _rowid equals _rowaddr in every recorded row");
    }
    notes.push(`data file versions on disk: ${dataFileVersions(abs).join(", ") || "none"}`);
    ds.notes = notes.join("; ");
    const secs = (performance.now() - t0) / 1000;
    ds.seconds = Math.round(secs * 1000) / 1000;
    this.datasets.push(ds);
    const last = ds.versions[ds.versions.length - 1];
    console.log(`${ds.name.padEnd(28)} versions=${String(ds.versions.length).padStart(5)} rows=${String(last ? last.count_rows : 0).padStart(6)} naming=${ds.naming} seconds=${secs.toFixed(2)} (recording ${recSecs.toFixed(2)})`);
  }

  // ------------------------------------------------------------ datasets

  // Most mutation kinds in one history.
  async mutations(mode) {
    const stable = mode === "stable";
    const name = `mutations_${mode}`;
    const ctx = await this.begin(name, { stable, data: this.rows(0, 100) });
    const A = this.A, L = this.L;
    await this.step(ctx, "add", (t) => t.add(this.rows(100, 150)));
    await this.step(ctx, "delete", (t) => t.delete("id IN (3, 7, 11)"), { predicate: "id IN (3, 7, 11)" });
    await this.step(ctx, "update", (t) => api.update(t, "id >= 20 AND id < 25", { v: "updated" }), { where: "id >= 20 AND id < 25" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 30", { f: "f + 100" }, true), { where: "id = 30", sql: true });
    await this.step(ctx, "merge_insert_update_only", (t) =>
      api.merge(t, this.rows(40, 60, "m1"), false));
    await this.step(ctx, "merge_insert_upsert", (t) =>
      api.merge(t, this.rows(140, 170, "m2"), true));
    const mi = typeof ctx.table.mergeInsert === "function" && ctx.table.mergeInsert.length < 2 ? ctx.table.mergeInsert("id") : {};
    if (typeof mi.whenNotMatchedBySourceDelete === "function") {
      await this.step(ctx, "merge_insert_upsert_delete_by_source", (t) =>
        t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().whenNotMatchedBySourceDelete()
          .execute(this.rows(10, 165, "m3")));
    } else {
      this.skip(`${name}: mergeInsert whenNotMatchedBySourceDelete`, "not in this release's MergeInsertBuilder");
    }
    await this.step(ctx, "add_columns_sql", (t) => t.addColumns([{ name: "cat", valueSql: "id % 4" }]), { columns: ["cat"] });
    await this.step(ctx, "add_columns_null_sql", (t) => t.addColumns([{ name: "n_int", valueSql: "cast(NULL as bigint)" }]), { columns: ["n_int"] });
    await this.step(ctx, "add_columns_null_field", (t) => t.addColumns(new A.Field("n_f64", new A.Float64(), true)), { columns: ["n_f64"] });
    await this.step(ctx, "alter_rename", (t) => t.alterColumns([{ path: "cat", rename: "category" }]), { from: "cat", to: "category" });
    await this.step(ctx, "alter_cast", (t) => t.alterColumns([{ path: "f", dataType: new A.Float64() }]), { column: "f", to: "float64" });
    await this.step(ctx, "alter_nullable", (t) => t.alterColumns([{ path: "id", nullable: true }]), { column: "id", nullable: true });
    await this.tryStep(ctx, "alter_non_nullable", "alterColumns nullable=false on a column without nulls",
      (t) => t.alterColumns([{ path: "v", nullable: false }]), { column: "v", nullable: false });
    if (typeof ctx.table.updateFieldMetadata === "function") {
      await this.step(ctx, "update_field_metadata", (t) => t.updateFieldMetadata([{ path: "v", metadata: { "lfa.interop": "yes" } }]), { column: "v" });
    } else {
      this.skip(`${name}: updateFieldMetadata`, "not in this release's Table API");
    }
    await this.step(ctx, "drop_columns", (t) => t.dropColumns(["n_int"]), { columns: ["n_int"] });
    await this.step(ctx, "create_index_btree", (t) => api.index(L, t, "id", "btree"), { column: "id" });
    await this.step(ctx, "create_index_bitmap", (t) => api.index(L, t, "category", "bitmap"), { column: "category" });
    await this.step(ctx, "create_index_fts", (t) => api.index(L, t, "v", "fts"), { column: "v" });
    await this.step(ctx, "add", (t) => t.add(this.lateRows()));
    await this.step(ctx, "update", (t) => api.update(t, "id >= 205 AND id < 208", { v: "touched" }), { where: "id >= 205 AND id < 208" });
    await this.step(ctx, "optimize", (t) => t.optimize(), { what: "compaction + index optimisation" });
    await this.optional(ctx, "tags (create, list, checkout)", () => this.tags(ctx, name));
    await this.optional(ctx, "checkout of an old version and restore", () => this.restoreOld(ctx, name));
    await this.step(ctx, "delete", (t) => t.delete("id % 10 = 1"), { predicate: "id % 10 = 1" });
    // Branch from the latest main version, if the API has branches.
    let branch = null;
    if (typeof ctx.table.branches === "function") {
      const br = await ctx.table.branches();
      const fromV = await ctx.table.version();
      const bt = await br.create("exp");
      branch = { table: bt, fromV };
      ctx.ds.operations.push({ op: "branch_create", branch: "exp", version: fromV, commits: 0 });
    } else {
      this.skip(`${name}: branches`, "not in this release's Table API");
    }
    await this.step(ctx, "add", (t) => t.add(this.rows(300, 305, "main")));
    await this.finish(ctx);
    if (branch) await this.branchDataset(ctx, branch, "exp");
  }

  // Tags: create, list, checkout.
  async tags(ctx, name) {
    const tags = await ctx.table.tags();
    const tagV = ctx.ds.operations[2].version;
    await tags.create("early", tagV);
    await tags.create("indexed", await ctx.table.version());
    const listed = Object.keys(await tags.list()).sort();
    if (listed.join(",") !== "early,indexed") throw new Error(`${name}: tags.list() returned [${listed}]`);
    ctx.ds.operations.push({ op: "tag_create", tag: "early", version: tagV, commits: 0 });
    ctx.ds.operations.push({ op: "tag_create", tag: "indexed", version: await ctx.table.version(), commits: 0 });
    await ctx.table.checkout("early");
    const tv = await ctx.table.version();
    if (tv !== tagV) fail(`${name}: checkout("early") landed on ${tv}, tag points at ${tagV}`);
    ctx.ds.operations.push({ op: "checkout_tag", tag: "early", version: tv, count_rows: await ctx.table.countRows(), commits: 0 });
    await ctx.table.checkoutLatest();
  }

  // Checkout an old version and restore it.
  async restoreOld(ctx, name) {
    const old = ctx.ds.operations[4].version;
    await ctx.table.checkout(old);
    ctx.ds.operations.push({ op: "checkout", version: old, commits: 0 });
    const latest = typeof ctx.table.listVersions === "function"
      ? Math.max(...(await ctx.table.listVersions()).map((v) => v.version)) : newestOnDisk(ctx.abs);
    try {
      await ctx.table.restore();
    } catch (e) {
      if (this.adapt) throw e;
      fail(`${name}: restore failed: ${oneLine(e)}`);
    }
    const restoredAt = await ctx.table.version();
    ctx.ds.operations.push({ op: "restore", version: restoredAt, restored: old, ...(restoredAt - latest !== 1 ? { commits: restoredAt - latest } : {}) });
  }

  // Rows for the later append: the schema has changed by then.
  lateRows() {
    const A = this.A;
    const schema = new A.Schema([
      new A.Field("id", new A.Int64(), true),
      new A.Field("v", new A.Utf8(), true),
      new A.Field("f", new A.Float64(), true),
      new A.Field("category", new A.Int64(), true),
      new A.Field("n_f64", new A.Float64(), true),
    ]);
    const out = [];
    for (let i = 0; i < 30; i++) out.push({ id: BigInt(200 + i), v: `late${i}`, f: i, category: BigInt(i % 4), n_f64: null });
    return this.L.makeArrowTable(out, { schema });
  }

  async branchDataset(parent, branch, bname) {
    const t0 = performance.now();
    const bt = branch.table;
    const abs = path.join(parent.abs, "tree", bname);
    if (!fs.existsSync(path.join(abs, "_versions")))
      fail(`${parent.ds.name}: branch '${bname}' has no ${path.relative(this.outAbs, abs)}/_versions`);
    const ds = {
      name: `${parent.ds.name}__branch_${bname}`,
      path: path.relative(this.outAbs, abs).split(path.sep).join("/"),
      stable_row_ids: parent.ds.stable_row_ids,
      naming: null,
      naming_requested: parent.ds.naming_requested,
      data_storage_version: parent.ds.data_storage_version,
      branch: { name: bname, parent: parent.ds.path, parent_version: branch.fromV },
      operations: [{ op: "branch_create", version: await bt.version(), from_version: branch.fromV }],
      versions: [],
      notes: "",
    };
    const ctx = { ds, table: bt, t0, notes: [`branch '${bname}' of ${parent.ds.name} created at main version ${branch.fromV}`], abs };
    if (bt.currentBranch && bt.currentBranch() !== bname) fail(`branch table reports currentBranch ${bt.currentBranch()}`);
    await this.step(ctx, "add", (t) => t.add(this.rows(1000, 1010, "b")));
    await this.step(ctx, "delete", (t) => t.delete("id = 1003"), { predicate: "id = 1003" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 1005", { v: "branch-upd" }), { where: "id = 1005" });
    await this.finish(ctx);
  }

  // A small deletion set (.arrow) and a >5000-row one in one fragment (.bin).
  async bigDelete(mode) {
    const stable = mode === "stable";
    const ctx = await this.begin(`bigdelete_${mode}`, { stable, data: this.rows(0, 6000) });
    await this.step(ctx, "delete", (t) => t.delete("id IN (1, 2, 3)"), { predicate: "id IN (1, 2, 3)", expect: "small deletion set" });
    await this.step(ctx, "add", (t) => t.add(this.rows(6000, 6100)));
    await this.step(ctx, "delete", (t) => t.delete("id >= 200 AND id < 5800"), { predicate: "id >= 200 AND id < 5800", expect: "5603 deleted rows in fragment 0" });
    await this.step(ctx, "delete", (t) => t.delete("id = 6050"), { predicate: "id = 6050" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 100", { v: "upd" }), { where: "id = 100" });
    await this.step(ctx, "optimize", (t) => api.compact(t), { what: "compaction" });
    await this.step(ctx, "delete", (t) => t.delete("id = 150"), { predicate: "id = 150" });
    ctx.notes.push(`deletion files of this dataset: ${JSON.stringify(deletionKinds(ctx.abs))}`);
    await this.finish(ctx);
  }

  // IVF-PQ on a vector column, index optimisation, then cleanup of old versions.
  async vector(mode) {
    const stable = mode === "stable";
    const L = this.L;
    const ctx = await this.begin(`vector_${mode}`, { stable, data: this.vecRows(0, 512, 7) });
    await this.step(ctx, "create_index_ivf_pq", (t) =>
      t.createIndex("vec", { config: L.Index.ivfPq({ numPartitions: 2, numSubVectors: 2, maxIterations: 10 }) }), { column: "vec" });
    await this.step(ctx, "add", (t) => t.add(this.vecRows(512, 576, 8)));
    await this.step(ctx, "delete", (t) => t.delete("id IN (5, 50, 500)"), { predicate: "id IN (5, 50, 500)" });
    await this.step(ctx, "update", (t) => api.update(t, "id >= 100 AND id < 104", { v: "moved" }), { where: "id >= 100 AND id < 104" });
    await this.tryStep(ctx, "optimize", "optimize (compaction + IVF-PQ index optimisation)",
      (t) => t.optimize(), { what: "compaction + index optimisation" });
    const beforeCleanup = (await ctx.table.listVersions()).length;
    await sleep(20);
    await this.tryStep(ctx, "optimize_cleanup", "optimize with cleanupOlderThan=now, deleteUnverified=true",
      (t) => t.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true }),
      { what: "compaction + index optimisation + cleanup of versions older than now" });
    await this.step(ctx, "add", (t) => t.add(this.vecRows(576, 584, 9)));
    const after = (await ctx.table.listVersions()).length;
    ctx.notes.push(`cleanup: ${beforeCleanup} versions listed before, ${after} after (including the later append)`);
    await this.finish(ctx);
  }

  // Explicit manifest namings.
  async naming(which, stable) {
    const name = `naming_${which}${stable ? "_stable" : ""}`;
    const ctx = await this.begin(name, { stable, naming: which, data: this.rows(0, 20) });
    await this.step(ctx, "add", (t) => t.add(this.rows(20, 30)));
    await this.step(ctx, "delete", (t) => t.delete("id IN (2, 21)"), { predicate: "id IN (2, 21)" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 5", { v: "x" }), { where: "id = 5" });
    await this.step(ctx, "optimize", (t) => api.compact(t), { what: "compaction" });
    if (typeof ctx.table.usesV2ManifestPaths === "function")
      ctx.notes.push(`usesV2ManifestPaths() = ${await ctx.table.usesV2ManifestPaths()}`);
    await this.finish(ctx);
    const want = which;
    const got = this.datasets[this.datasets.length - 1].naming;
    if (got !== want) fail(`${name}: requested ${want} manifest naming, found ${got} on disk`);
  }

  // Mutations outside the main history: primary key, index drop, overwrite
  // (add mode "overwrite" and createTable mode "overwrite"), tag update and
  // delete, branch delete.
  async misc(mode) {
    const stable = mode === "stable";
    const L = this.L;
    const name = `misc_${mode}`;
    const ctx = await this.begin(name, { stable, data: this.rows(0, 40) });
    await this.step(ctx, "add", (t) => t.add(this.rows(40, 60)));
    if (typeof ctx.table.setUnenforcedPrimaryKey === "function")
      await this.tryStep(ctx, "set_unenforced_primary_key", "setUnenforcedPrimaryKey(id)", (t) => t.setUnenforcedPrimaryKey("id"), { columns: ["id"] });
    else this.skip(`${name}: setUnenforcedPrimaryKey`, "not in this release's Table API");
    await this.step(ctx, "create_index_btree", (t) => api.index(L, t, "id", "btree", "id_idx"), { column: "id" });
    await this.step(ctx, "delete", (t) => t.delete("id IN (4, 44)"), { predicate: "id IN (4, 44)" });
    await this.step(ctx, "drop_index", (t) => t.dropIndex("id_idx"), { index: "id_idx" });
    await this.optional(ctx, "tags (create, update, delete)", () => this.miscTags(ctx, name));
    if (typeof ctx.table.branches === "function") {
      const br = await ctx.table.branches();
      await br.create("tmp");
      await br.delete("tmp");
      if (fs.existsSync(path.join(ctx.abs, "tree", "tmp"))) ctx.notes.push("deleted branch 'tmp' left tree/tmp behind");
      ctx.ds.operations.push({ op: "branch_create", branch: "tmp", version: await ctx.table.version(), commits: 0 },
        { op: "branch_delete", branch: "tmp", commits: 0 });
    }
    await this.step(ctx, "add_overwrite", (t) => t.add(this.rows(500, 520, "o"), { mode: "overwrite" }));
    await this.step(ctx, "delete", (t) => t.delete("id = 505"), { predicate: "id = 505" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 510", { v: "upd" }), { where: "id = 510" });
    await this.optional(ctx, "createTable(mode: overwrite) of an existing table", () => this.recreate(ctx, name, stable));
    await this.step(ctx, "add", (t) => t.add(this.rows(710, 715, "c")));
    await this.step(ctx, "delete", (t) => t.delete("id = 702"), { predicate: "id = 702" });
    await this.finish(ctx);
  }

  async miscTags(ctx, name) {
    const tags = await ctx.table.tags();
    await tags.create("t", 2);
    await tags.update("t", 3);
    const tv = await tags.getVersion("t");
    if (tv !== 3) fail(`${name}: tag update left the tag at ${tv}`);
    await tags.delete("t");
    if (Object.keys(await tags.list()).length) fail(`${name}: tag delete left tags behind`);
    ctx.ds.operations.push({ op: "tag_create", tag: "t", version: 2, commits: 0 },
      { op: "tag_update", tag: "t", version: 3, commits: 0 }, { op: "tag_delete", tag: "t", commits: 0 });
  }

  // createTable(mode: "overwrite") on the existing table: a new version of
  // the same dataset; carry on with the table it returns.
  async recreate(ctx, name, stable) {
    const before = await ctx.table.version();
    const storageOptions = stable ? { new_table_enable_stable_row_ids: "true" } : {};
    const t2 = await this.db.createTable(name, this.rows(700, 710, "c"), { mode: "overwrite", storageOptions });
    const after = await t2.version();
    ctx.ds.operations.push({ op: "create_table_overwrite", version: after, ...(after - before !== 1 ? { commits: after - before } : {}) });
    ctx.table = t2;
  }

  // V1 names, then migrateManifestPathsV2() renames them to V2 names.
  async namingMigrated() {
    const name = "naming_v1_migrated";
    const ctx = await this.begin(name, { naming: "v1", data: this.rows(0, 20) });
    await this.step(ctx, "add", (t) => t.add(this.rows(20, 25)));
    await this.step(ctx, "delete", (t) => t.delete("id = 3"), { predicate: "id = 3" });
    const was = versionsOnDisk(ctx.abs).naming;
    if (typeof ctx.table.migrateManifestPathsV2 !== "function") {
      this.skip(`${name}: migrateManifestPathsV2`, "not in this release's Table API");
    } else {
      await ctx.table.migrateManifestPathsV2();
      ctx.ds.operations.push({ op: "migrate_manifest_paths_v2", version: await ctx.table.version(), commits: 0 });
      ctx.notes.push(`naming before migrateManifestPathsV2(): ${was}, after: ${versionsOnDisk(ctx.abs).naming}`);
    }
    await this.step(ctx, "update", (t) => api.update(t, "id = 5", { v: "x" }), { where: "id = 5" });
    await this.step(ctx, "add", (t) => t.add(this.rows(25, 27)));
    await this.finish(ctx);
  }

  // Computed columns (addColumns({computed}) + refreshColumn), where the
  // release has them.
  async computed(mode) {
    const stable = mode === "stable";
    const name = `computed_${mode}`;
    const probe = await this.db.createTable(`${name}__probe`, this.rows(0, 1));
    const has = typeof probe.refreshColumn === "function";
    await this.db.dropTable(`${name}__probe`);
    if (!has) {
      this.skip(`${name}: computed columns (addColumns({computed}) + refreshColumn)`, "not in this release's Table API");
      return;
    }
    // Lance 12.0.0's refreshColumn refuses a non-nullable input column
    // ("declared as non-nullable but contains null values"), so this
    // dataset's columns are all nullable.
    const A = this.A;
    const sch = new A.Schema(this.baseSchema.fields.map((f) => new A.Field(f.name, f.type, true)));
    const ctx = await this.begin(name, { stable, data: this.rows(0, 30, "s", sch) });
    await this.step(ctx, "add_columns_computed", (t) => t.addColumns({ computed: [{ name: "g", valueSql: "id * 2" }] }), { columns: ["g"] });
    await this.step(ctx, "refresh_column", (t) => t.refreshColumn("g"), { column: "g" });
    await this.step(ctx, "add", (t) => t.add(this.rows(30, 40, "s", sch)));
    await this.step(ctx, "update", (t) => api.update(t, "id = 3", { id: "id + 1000" }, true), { where: "id = 3", sets: "id" });
    await this.step(ctx, "delete", (t) => t.delete("id IN (7, 35)"), { predicate: "id IN (7, 35)" });
    await this.step(ctx, "refresh_column", (t) => t.refreshColumn("g"), { column: "g" });
    await this.finish(ctx);
  }

  // A materialized view over a stable-row-id source, where the release has
  // them: the source and the view are each a dataset.
  async materializedView() {
    if (typeof this.db.createMaterializedView !== "function") {
      this.skip("materialized views (createMaterializedView + refresh)", "not in this release's Connection API");
      return;
    }
    const src = await this.begin("mview_source", { stable: true, data: this.rows(0, 50) });
    const t0 = performance.now();
    const mv = await this.db.createMaterializedView("mview", "mview_source", { select: ["id", "v"], where: "id % 2 = 0" });
    const vt = mv.table();
    const abs = path.join(this.dbAbs, "mview.lance");
    const view = {
      ds: {
        name: "mview",
        path: path.relative(this.outAbs, abs).split(path.sep).join("/"),
        stable_row_ids: null,
        naming: null,
        naming_requested: "default",
        data_storage_version: "default",
        materialized_view_of: src.ds.path,
        operations: [{ op: "create_materialized_view", version: await vt.version(), select: ["id", "v"], where: "id % 2 = 0" }],
        versions: [],
        notes: "",
      },
      table: vt, t0, notes: ["materialized view of mview_source"], abs,
    };
    const refresh = async (ctx, opts) => {
      const before = await ctx.table.version();
      try {
        await mv.refresh(opts);
      } catch (e) {
        fail(`mview: refresh failed: ${oneLine(e)}`);
      }
      await ctx.table.checkoutLatest();
      const after = await ctx.table.version();
      ctx.ds.operations.push({ op: "refresh_materialized_view", version: after, ...(opts ? opts : {}), ...(after - before !== 1 ? { commits: after - before } : {}) });
    };
    await refresh(view);
    await this.step(src, "add", (t) => t.add(this.rows(50, 60)));
    await this.step(src, "delete", (t) => t.delete("id IN (2, 52)"), { predicate: "id IN (2, 52)" });
    await this.step(src, "update", (t) => api.update(t, "id = 10", { v: "upd" }), { where: "id = 10" });
    await refresh(view);
    await this.step(src, "optimize", (t) => api.compact(t), { what: "compaction" });
    await refresh(view, { full: true });
    await this.finish(src);
    await this.finish(view);
  }

  // One small dataset per data storage version.
  async storage(sv) {
    const name = `storage_${sv.replace(/\./g, "_")}`;
    let ctx;
    try {
      ctx = await this.begin(name, { storage: sv, data: this.rows(0, 30) });
    } catch (e) {
      if (e instanceof Fatal) throw e;
      this.skip(`data storage version ${sv}`, `Lance refused create: ${oneLine(e)}`);
      fs.rmSync(path.join(this.dbAbs, `${name}.lance`), { recursive: true, force: true });
      return;
    }
    await this.step(ctx, "add", (t) => t.add(this.rows(30, 40)));
    await this.step(ctx, "delete", (t) => t.delete("id IN (1, 2, 33)"), { predicate: "id IN (1, 2, 33)" });
    await this.step(ctx, "update", (t) => api.update(t, "id >= 10 AND id < 12", { v: "upd" }), { where: "id >= 10 AND id < 12" });
    await this.step(ctx, "merge_insert_upsert", (t) =>
      api.merge(t, this.rows(35, 45, "m"), true));
    const files = dataFileVersions(ctx.abs);
    ctx.notes.push(`requested ${sv}`);
    await this.finish(ctx);
    return files;
  }

  // A long history: many single-row appends and single-row deletes.
  async history(mode) {
    const stable = mode === "stable";
    const appends = this.quick ? 90 : 900, deletes = this.quick ? 10 : 100;
    const name = `history_${mode}`;
    const ctx = await this.begin(name, { stable, data: this.rows(0, 1) });
    // Blocks of (appends/deletes) single-row appends, each followed by one
    // delete: alternately of a single row of that block, and of every row
    // older than a window of the newest ones, which keeps the live rows (and
    // expected.json) small.  A compaction every fourth block keeps the
    // fragment count, and so the per-version read cost, small as well.
    const per = Math.floor(appends / deletes);
    const WINDOW = 12;
    let next = 1, compactions = 0, single = 0, trims = 0;
    for (let k = 0; k < deletes; k++) {
      const first = next;
      for (let j = 0; j < per; j++) {
        const i = next++;
        await this.step(ctx, "add", (t) => t.add(this.rows(i, i + 1, "h")));
      }
      const pred = k % 2 === 0 ? `id = ${first + (k % per)}` : `id < ${next - WINDOW}`;
      if (k % 2 === 0) single++;
      else trims++;
      await this.step(ctx, "delete", (t) => t.delete(pred), { predicate: pred });
      if ((k + 1) % 4 === 0 && k + 1 < deletes) {
        await this.step(ctx, "optimize", (t) => api.compact(t), { what: "compaction" });
        compactions++;
      }
    }
    const commits = ctx.ds.operations.length - 1;
    ctx.notes.push(`${appends} single-row appends, ${single} single-row deletes, ${trims} deletes of all rows older than the newest ${WINDOW}, ${compactions} compactions: ${commits} commits after create`);
    await this.finish(ctx);
  }

  // Can the Node API make Lance 12 write data files of several format
  // versions into one dataset (feature bit 256)?  Lance 12 sets that bit
  // itself when a commit mixes versions; the only write knob the Node API
  // has is the new-table storage option, so try it on appends, merges,
  // schema changes and compaction of an existing dataset.
  async mixedAttempt() {
    const base = "2.0", other = "2.1";
    const name = "mixed_attempt";
    const ctx = await this.begin(name, { storage: base, data: this.rows(0, 20) });
    const db2 = await this.L.connect(this.dbAbs, { storageOptions: { new_table_data_storage_version: other } });
    const t2 = await db2.openTable(name, undefined, { storageOptions: { new_table_data_storage_version: other } });
    const ctx2 = { ...ctx, table: t2 };
    await this.step(ctx2, "add", (t) => t.add(this.rows(20, 30)), { with_storage_option: other });
    await this.step(ctx2, "merge_insert_upsert", (t) =>
      api.merge(t, this.rows(25, 35, "m"), true), { with_storage_option: other });
    await this.step(ctx2, "add_columns_sql", (t) => t.addColumns([{ name: "g", valueSql: "id * 2" }]), { with_storage_option: other });
    await this.step(ctx2, "optimize", (t) => t.optimize(), { with_storage_option: other });
    const seen = dataFileVersions(ctx.abs);
    const mixed = seen.length > 1;
    ctx.ds.mixed_data_file_versions = mixed;
    ctx.notes.push(`dataset created with ${base}, then written through a connection/table opened with new_table_data_storage_version=${other}: data files on disk ${seen.join(", ")}`);
    this.findings.mixed_data_file_versions = {
      possible: mixed,
      data_file_versions_seen: seen,
      how_tried: `create with ${base}; append, merge-insert, add-columns and compaction through connect()/openTable() carrying storage option new_table_data_storage_version=${other}`,
    };
    if (!mixed) {
      this.skip("mixed data-file versions (feature bit 256)",
        `through the Node API alone (mixed_built makes one with interop/tools/mix_versions instead): it only sets the data storage version when a table is created (createTable option / new_table_data_storage_version); ` +
        `later writes (append, mergeInsert, addColumns, alterColumns, optimize) always use the dataset's own version, so every data file stays ${seen.join(",")}; ` +
        `Lance 12 has the capability (its errors mention "mixed data-file-version capability") but no Node method reaches a per-write file version`);
    }
    await this.finish(ctx2);
  }

  // The mixed data-file-version table, built by Lance 12's rules (see
  // interop/tools/mix_versions.c): a 2.0 table gains the fragment of a 2.1
  // table, bit 256 in both words and a 2.1 default; then Lance 12 itself
  // appends, deletes and updates on it, keeping the bit.
  async mixedBuilt(tool) {
    if (this.lib.lance !== "12.0.0") {
      this.skip("mixed_built: a table with mixed data-file versions", `Lance ${this.lib.lance} does not know feature bit 256`);
      return;
    }
    if (!tool) {
      this.skip("mixed_built: a table with mixed data-file versions", "no --mix-tool given");
      return;
    }
    const name = "mixed_built";
    const ctx = await this.begin(name, { storage: "2.0", data: this.rows(0, 20) });
    const other = await this.db.createTable(`${name}_2_1_source`, this.rows(100, 110),
      { mode: "create", storageOptions: { new_table_data_storage_version: "2.1" } });
    const out = execFileSync(tool, [ctx.abs, path.join(this.dbAbs, `${name}_2_1_source.lance`)]).toString().trim();
    ctx.notes.push(`mix_versions: ${out}`);
    ctx.table = await (await this.L.connect(this.dbAbs)).openTable(name);
    ctx.ds.operations.push({ op: "mix_versions (interop/tools)", version: await ctx.table.version() });
    await this.step(ctx, "add", (t) => t.add(this.rows(200, 205)));
    await this.step(ctx, "delete", (t) => t.delete("id = 3 OR id = 104"), { predicate: "id = 3 OR id = 104" });
    await this.step(ctx, "update", (t) => api.update(t, "id = 201", { v: "mixed" }), { where: "id = 201" });
    const seen = dataFileVersions(ctx.abs);
    if (seen.length < 2) fail(`${name}: data files on disk ${seen.join(", ")}: not mixed`);
    ctx.ds.mixed_data_file_versions = true;
    ctx.notes.push(`data files on disk: ${seen.join(", ")}`);
    await this.finish(ctx);
  }
  // Every history (the pinned releases' lane).
  async all(mixTool) {
    for (const mode of ["addr", "stable"]) await this.mutations(mode);
    for (const mode of ["addr", "stable"]) await this.bigDelete(mode);
    for (const mode of ["addr", "stable"]) await this.vector(mode);
    await this.naming("v1", false);
    await this.naming("v2", false);
    await this.naming("v1", true);
    await this.namingMigrated();
    for (const mode of ["addr", "stable"]) await this.misc(mode);
    for (const mode of ["addr", "stable"]) await this.computed(mode);
    await this.materializedView();
    const defaults = this.datasets.find((d) => d.name === "mutations_addr");
    this.findings.default_manifest_naming = defaults.naming;
    for (const sv of ["legacy", "2.0", "2.1", "2.2"]) await this.storage(sv);
    await this.history("addr");
    await this.mixedAttempt();
    await this.mixedBuilt(mixTool);
  }

  // The release sweep's core histories, each row-id mode the release has: a
  // history the release cannot make at all is listed with its reason.
  async core() {
    const run = async (what, fn) => {
      try {
        await fn();
      } catch (e) {
        this.skip(what, isApiGap(e) || !(e instanceof Fatal) ? `${oneLine(e)}` : e.message.split("\n")[0]);
      }
    };
    for (const mode of ["addr", "stable"]) await run(`mutations_${mode}`, () => this.mutations(mode));
    for (const mode of ["addr", "stable"]) await run(`bigdelete_${mode}`, () => this.bigDelete(mode));
    await run("naming_v1", () => this.naming("v1", false));
    await run("naming_v2", () => this.naming("v2", false));
    for (const mode of ["addr", "stable"]) await run(`misc_${mode}`, () => this.misc(mode));
    for (const sv of ["legacy", "2.0", "2.1", "2.2"]) await run(`storage ${sv}`, () => this.storage(sv));
    await run("history_addr", () => this.history("addr"));
    const d = this.datasets.find((x) => x.name === "mutations_addr");
    this.findings.default_manifest_naming = d ? d.naming : null;
  }
}

// ---------------------------------------------------------------- main

function prepareOut(outAbs) {
  if (fs.existsSync(outAbs)) {
    if (!fs.statSync(outAbs).isDirectory()) fail(`--out ${outAbs} exists and is not a directory`);
    const ents = fs.readdirSync(outAbs);
    const ours = new Set(["db", "expected.json"]);
    const foreign = ents.filter((e) => !ours.has(e));
    if (foreign.length) fail(`--out ${outAbs} holds other files (${foreign.slice(0, 3).join(", ")}); use an empty or fresh directory`);
    fs.rmSync(path.join(outAbs, "db"), { recursive: true, force: true });
    fs.rmSync(path.join(outAbs, "expected.json"), { force: true });
  }
  fs.mkdirSync(path.join(outAbs, "db"), { recursive: true });
}

// Compact JSON: one dataset field or version per line, arrays inline.
function renderExpected(doc) {
  const j = (x) => JSON.stringify(x);
  const lines = ["{"];
  const top = Object.keys(doc);
  top.forEach((k, ki) => {
    const comma = ki + 1 < top.length ? "," : "";
    if (k !== "datasets") {
      lines.push(`  ${j(k)}: ${j(doc[k])}${comma}`);
      return;
    }
    lines.push(`  "datasets": [`);
    doc.datasets.forEach((ds, di) => {
      lines.push("    {");
      const keys = Object.keys(ds);
      keys.forEach((dk, dki) => {
        const c = dki + 1 < keys.length ? "," : "";
        if (dk === "versions" || dk === "operations") {
          lines.push(`      ${j(dk)}: [`);
          ds[dk].forEach((v, vi) => lines.push(`        ${j(v)}${vi + 1 < ds[dk].length ? "," : ""}`));
          lines.push(`      ]${c}`);
        } else {
          lines.push(`      ${j(dk)}: ${j(ds[dk])}${c}`);
        }
      });
      lines.push(`    }${di + 1 < doc.datasets.length ? "," : ""}`);
    });
    lines.push(`  ]${comma}`);
  });
  lines.push("}");
  return lines.join("\n") + "\n";
}

async function main() {
  const args = parseArgs("node interop/generate.mjs --release lance12|lance8 --out DIR [--quick] [--mix-tool PATH]\n" +
    "       node interop/generate.mjs --release LABEL --modules DIR --out DIR --core",
  { required: ["release", "out"], defaults: { "mix-tool": null, modules: null }, flags: ["quick", "core"] });
  const lib = loadRelease(args.release, args.modules);
  const outAbs = path.resolve(args.out);
  prepareOut(outAbs);
  const g = new Generator(lib, outAbs, args.quick || args.core, args.core);
  await g.connect();

  if (args.core) await g.core();
  else await g.all(args["mix-tool"]);

  const kinds = deletionKinds(path.join(outAbs, "db"));
  const missing = ["arrow", "bin"].filter((k) => kinds[k] === 0);
  if (missing.length && !args.core)
    fail(`no ${missing.join(" or ")} deletion file under any _deletions/ (found ${JSON.stringify(kinds)})`);

  const seconds = Math.round((performance.now() - T_START) / 10) / 100;
  const doc = {
    release: args.release,
    lancedb: lib.lancedbVersion,
    lance: lib.lance,
    lance_version_source: lib.lanceSource,
    apache_arrow: lib.arrowVersion,
    quick: args.quick,
    core: args.core,
    options_used: {
      stable_row_ids: "storageOptions.new_table_enable_stable_row_ids = \"true\" (createTable)",
      manifest_naming: "storageOptions.new_table_enable_v2_manifest_paths = \"true\"|\"false\" (createTable)",
      data_storage_version: "storageOptions.new_table_data_storage_version = legacy|2.0|2.1|2.2 (createTable)",
    },
    findings: g.findings,
    datasets: g.datasets,
    skipped: g.skipped,
    deletion_file_kinds: kinds,
    seconds,
  };
  fs.writeFileSync(path.join(outAbs, "expected.json"), renderExpected(doc));
  console.log(`deletion files: arrow=${kinds.arrow} bin=${kinds.bin}; default manifest naming: ${g.findings.default_manifest_naming}; skipped: ${g.skipped.length}`);
  const totalVersions = g.datasets.reduce((s, d) => s + d.versions.length, 0);
  console.log(`TOTAL ${args.release} (lancedb ${lib.lancedbVersion}, lance ${lib.lance}): ${g.datasets.length} datasets, ${totalVersions} versions, ${seconds.toFixed(2)} s -> ${path.join(outAbs, "expected.json")}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    const msg = e instanceof Fatal ? e.message : `unexpected error: ${oneLine(e)}`;
    process.stderr.write(`generate.mjs: ${msg.split("\n")[0]}\n`);
    process.exit(1);
  },
);
