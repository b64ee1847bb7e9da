#!/usr/bin/env node
// matrix.mjs: what a released Lance, as the "older writer" of 03§2, does to
// a table whose field assignment state lfa wrote, and whether lfa verify
// sees it.
//
//   node interop/matrix.mjs --release lance12|lance8 --lfa LFA --work DIR [--markdown FILE]
//                           [--modules DIR] [--json FILE]
//
// Per row-id mode, the release writes a small table (id, v, score); lfa
// tracks `v` (lfa track --initial assigned, the policy's markers: writer
// and reader bit) and invalidates two rows (lfa invalidate). The same is
// done with --writer-bit-only. On a copy of each tracked table, the release
// then runs one of twelve mutations through a fresh connection, and this
// records whether it refused or committed. For a commit, whether the state
// survived: the new version still has field assignment descriptors (lfa
// dump), or it legitimately ends (the tracked column was dropped); and what
// lfa verify said. The lane's requirements, checked here (exit 1 when one
// fails):
//   - a commit that lost the state draws an error finding at exactly the
//     version Lance wrote, naming Lance's writer_version;
//   - a commit that kept the state, or ended it by dropping the column,
//     draws no error;
//   - lfa eval answers for every version before the damage.
// --markdown FILE writes the measured table (rows: release, marker,
// operation; columns: the two row-id modes) for spec/C-released-lance.md.
// --modules DIR runs a release the sweep installed (scripts/sweep_releases.sh;
// --release is then only its label); a mutation that release's API lacks is
// "not in API", and a release without stable row ids (no reader bit 2 on the
// table it created with them requested) has no stable-row-id cells. --json
// FILE writes every cell for the sweep's table.
import fs from "node:fs";
import path from "node:path";

import { api, isApiGap, loadRelease, oneLine, parseArgs, runLfa } from "./lane_util.mjs";

const args = parseArgs("node interop/matrix.mjs --release lance12|lance8 --lfa LFA --work DIR [--markdown FILE] [--modules DIR] [--json FILE]",
  { required: ["release", "lfa", "work"], defaults: { markdown: "", modules: "", json: "" } });
const { lancedb: L, lance: pinned, vectordb } = loadRelease(args.release, args.modules || null);
let lance = pinned;
const work = path.resolve(args.work);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

const lfa = (...a) => runLfa(args.lfa, a);
function lfaOk(...a) {
  const r = lfa(...a);
  if (r.code !== 0) throw new Error(`lfa ${a.join(" ")}: exit ${r.code}: ${(r.err || r.out).trim().split("\n").pop()}`);
  return r.out;
}

// The older vectordb package wants a vector column in every table it creates.
const rows = (lo, hi) => Array.from({ length: hi - lo }, (_, i) =>
  ({ id: lo + i, v: `v${lo + i}`, score: (lo + i) / 2, ...(vectordb ? { vector: [lo + i, 1] } : {}) }));

// The twelve mutations, each on a fresh connection to the copy. `ends`:
// the mutation legitimately ends tracking of `v`.
const OPS = [
  ["add", (t) => t.add(rows(100, 103))],
  ["delete", (t) => t.delete("id = 4")],
  ["update", (t) => api.update(t, "id = 5", { v: "five" })],
  ["merge_insert update-only", (t) => api.merge(t, rows(6, 8), false)],
  ["merge_insert upsert", (t) => api.merge(t, rows(9, 13), true)],
  ["optimize", (t) => api.compact(t)],
  ["add_columns", (t) => t.addColumns([{ name: "twice", valueSql: "id * 2" }])],
  ["rename", (t) => t.alterColumns([{ path: "v", rename: "w" }])],
  ["drop_columns", (t) => t.dropColumns(["v"]), { ends: true }],
  ["create_index", (t) => api.index(L, t, "id", "btree")],
  ["restore", async (t, tracked) => { await t.checkout(tracked); await t.restore(); }],
  ["update_field_metadata", (t) => t.updateFieldMetadata([{ path: "v", metadata: { note: "x" } }])],
];

async function table(dir) {
  return (await L.connect(dir)).openTable("t");
}
const versionOf = async (dir) => (await table(dir)).version();

// A tracked template: Lance writes versions 1 (10 rows in two fragments) and
// 2 (a delete); lfa tracks v (3) and invalidates offsets 1 and 6 (4).
async function template(name, stable, writerBitOnly) {
  const dir = path.join(work, name);
  const db = await L.connect(dir);
  const opts = stable ? { storageOptions: { new_table_enable_stable_row_ids: "true" } } : null;
  let t;
  try {
    t = await (opts ? db.createTable("t", rows(0, 5), opts) : db.createTable("t", rows(0, 5)));
  } catch (e) {
    if (opts) return null; // no stable-row-id option in this release's createTable
    throw e;
  }
  await t.add(rows(5, 10));
  await t.delete("id = 0");
  const ds = path.join(dir, "t.lance");
  const first = JSON.parse(lfaOk("dump", "--json", ds)).versions.at(-1);
  if (!lance) lance = first.writer_version ? first.writer_version.version : "unknown";
  // The release's own answer to "stable row ids, please": reader bit 2.
  if (stable && !(first.reader_feature_flags & 2)) return null;
  const tr = lfa("track", ds, "--field", "v", "--initial", "assigned", ...(writerBitOnly ? ["--writer-bit-only"] : []));
  // A table old Lance wrote with physical_rows 0 cannot be tracked at all.
  if (tr.code === 2 && /FA-LANCE-12/.test(tr.err)) return { untrackable: "lfa track refuses: physical_rows unknown (FA-LANCE-12)" };
  if (tr.code !== 0) throw new Error(`lfa track: exit ${tr.code}: ${(tr.err || tr.out).trim().split("\n").pop()}`);
  const tracked = JSON.parse(lfaOk("dump", "--json", ds)).versions.at(-1).version;
  // no --writer-bit-only: the commit keeps the policy track chose
  lfaOk("invalidate", ds, "--field", "v", "--rows", `1,${(1 * 2 ** 32) + 1}`);
  return { dir, ds, tracked };
}

function descriptorsAt(ds, version) {
  const d = JSON.parse(lfa("dump", "--json", "--version", String(version), ds).out);
  const v = d.versions[0];
  return v.error ? null : v.tracked.length;
}

const results = [];
let failures = 0;
function require_(ok, what) {
  if (!ok) {
    failures++;
    console.log(`  FAIL: ${what}`);
  }
}

for (const writerBitOnly of [false, true]) {
  const marker = writerBitOnly ? "writer bit only" : "reader and writer bit";
  for (const stable of [false, true]) {
    const mode = stable ? "stable" : "address";
    let tpl;
    try {
      tpl = await template(`tpl-${mode}-${writerBitOnly ? "w" : "rw"}`, stable, writerBitOnly);
    } catch (e) {
      // a release whose API lacks what the template needs (vectordb 0.1's
      // table.delete) has no matrix; anything else is a failure
      if (!isApiGap(e)) require_(false, `${marker} ${mode}: the tracked template could not be made: ${oneLine(e)}`);
      for (const [op] of OPS) results.push({ release: args.release, marker, op, mode, outcome: "failed", text: `no template (${oneLine(e).replace(/\/\S+/g, "PATH").slice(0, 80)})` });
      continue;
    }
    if (tpl && tpl.untrackable) {
      for (const [op] of OPS) results.push({ release: args.release, marker, op, mode, outcome: "n/a", text: tpl.untrackable });
      continue;
    }
    if (!tpl) {
      for (const [op] of OPS) results.push({ release: args.release, marker, op, mode, outcome: "n/a", text: "n/a (no stable row ids)" });
      continue;
    }
    const head = JSON.parse(lfaOk("dump", "--json", tpl.ds)).versions.at(-1).version;
    for (const [op, fn, flags = {}] of OPS) {
      const dir = path.join(work, `${mode}-${writerBitOnly ? "w" : "rw"}-${op.replace(/[^a-z]+/g, "_")}`);
      fs.cpSync(tpl.dir, dir, { recursive: true });
      const ds = path.join(dir, "t.lance");
      let outcome, detail = "", writer = null;
      try {
        await fn(await table(dir), tpl.tracked);
        outcome = "committed";
      } catch (e) {
        outcome = isApiGap(e) ? "n/a" : "refused";
        detail = oneLine(e);
      }
      const cell = { release: args.release, marker, op, mode, outcome };
      if (outcome === "n/a") {
        const after = JSON.parse(lfaOk("dump", "--json", ds)).versions.at(-1).version;
        require_(after === head, `${marker} ${mode} ${op}: not in the API, yet the head moved from ${head} to ${after}`);
        cell.text = "not in API";
      } else if (outcome === "refused") {
        const after = JSON.parse(lfaOk("dump", "--json", ds)).versions.at(-1).version;
        require_(after === head, `${marker} ${mode} ${op}: refused, yet the head moved from ${head} to ${after}`);
        cell.text = /cannot be (read|written) by this version/.test(detail) ? "refused (feature flags)"
          : /corrupt/.test(detail) ? "refused (corrupt)" : `refused (${detail.slice(0, 60)})`;
      } else {
        const dump = JSON.parse(lfa("dump", "--json", ds).out);
        const newest = dump.versions.at(-1).version;
        const kept = descriptorsAt(ds, newest);
        const ends = !!flags.ends;
        const lost = kept === 0 && !ends;
        const v = JSON.parse(lfa("verify", "--json", ds).out);
        const errors = v.findings.filter((f) => f.severity === "error");
        const rules = [...new Set(errors.map((f) => f.rule))].sort();
        if (lost) {
          require_(errors.length > 0, `${marker} ${mode} ${op}: the state was lost at ${newest} and lfa verify reports no error`);
          require_(errors.every((f) => f.version > head), `${marker} ${mode} ${op}: an error before the version Lance wrote`);
          // A restore copies the restored manifest, writer_version included:
          // its finding can only name the writer of the version restored.
          const named = op === "restore" ? /writer_version / : /writer_version lance /;
          require_(errors.some((f) => f.version === head + 1 && named.test(f.message)),
            `${marker} ${mode} ${op}: no error at version ${head + 1} naming ${op === "restore" ? "a" : "Lance's"} writer_version`);
          writer = (errors.find((f) => f.version === head + 1 && /writer_version /.test(f.message)) || { message: "" })
            .message.match(/writer_version [^ )]+ [^ )]+/);
        } else {
          require_(errors.length === 0, `${marker} ${mode} ${op}: state ${ends ? "ended" : "kept"}, yet lfa verify reports ${rules.join(", ")}`);
        }
        for (let k = tpl.tracked; k <= head; k++) {
          const e = lfa("eval", ds, "--field", "v", "--version", String(k), "--json");
          require_(e.code === 0, `${marker} ${mode} ${op}: lfa eval of version ${k} (before the damage) fails: ${e.err}`);
        }
        cell.text = lost ? `committed, state lost: ${rules.join(", ")} at v${head + 1}${writer ? `, naming ${writer[0]}` : ""}`
          : ends ? "committed, tracking ends (no error)" : "committed, state kept (no error)";
      }
      results.push(cell);
      console.log(`${args.release} (Lance ${lance}) ${marker}, ${mode} row ids, ${op}: ${cell.text}`);
    }
  }
}

if (args.markdown) {
  const lines = [`| Lance ${lance}, marker | operation | address row ids | stable row ids |`, "|---|---|---|---|"];
  for (const marker of ["reader and writer bit", "writer bit only"])
    for (const [op] of OPS) {
      const get = (mode) => results.find((r) => r.marker === marker && r.op === op && r.mode === mode).text;
      lines.push(`| ${marker} | ${op} | ${get("address")} | ${get("stable")} |`);
    }
  fs.writeFileSync(args.markdown, lines.join("\n") + "\n");
}
if (args.json) fs.writeFileSync(args.json, JSON.stringify({ release: args.release, lance, failures, cells: results }, null, 1) + "\n");
const lostCount = results.filter((r) => /state lost/.test(r.text)).length;
console.log(`${args.release} (Lance ${lance}) released-writer matrix: ${results.length} runs, ` +
  `${results.filter((r) => r.outcome === "refused").length} refused, ${lostCount} lost the state, ${failures} failures`);
process.exit(failures ? 1 : 0);
