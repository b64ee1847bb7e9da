#!/usr/bin/env node
// history.mjs: a long history written by a released Lance, for the
// benchmarks that follow the cost of a commit (scripts/bench.sh targets
// verify_newest_commit, verify_vs_lance, verify_vs_decode,
// dump_memory_flat), and Lance's own time to open every version of it.
//
//   node interop/history.mjs --release lance12 --out DIR --commits N
//       writes DIR/hist.lance: one create, then N-1 commits, every tenth a
//       delete of one row and the others appends of 100 rows (so 1,000
//       versions are the create, 900 appends and 99 deletes), and prints
//       one JSON line
//       {"versions": V, "seconds": S}. DIR must not exist yet.
//   node interop/history.mjs --release lance12 --open DIR/hist.lance
//       opens every version (checkout), counts its rows, and prints
//       {"versions": V, "rows_total": R, "seconds": S, "cpu_seconds": C}:
//       the time Lance takes to read the whole history (wall, and CPU of
//       every thread of the process), against which `lfa verify` of the
//       same directory is measured.
import fs from "node:fs";
import path from "node:path";

import { loadRelease, parseArgs } from "./lane_util.mjs";

const USAGE = "node interop/history.mjs --release R (--out DIR --commits N | --open DIR/hist.lance)";
const args = parseArgs(USAGE, { required: ["release"], defaults: { out: "", commits: "", open: "" } });
const { lancedb } = loadRelease(args.release);

function rows(from, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ id: from + i, v: (from + i) * 0.5 });
  return out;
}

async function write(dir, commits) {
  if (!(commits >= 2 && commits <= 100000)) throw new Error(`--commits ${commits}: want 2 to 100000`);
  if (fs.existsSync(dir)) throw new Error(`${dir} exists: the history is written once, into a new directory`);
  const t0 = performance.now();
  const db = await lancedb.connect(dir);
  const table = await db.createTable("hist", rows(0, 100));
  let next = 100, deleted = 0;
  for (let c = 1; c < commits; c++) {
    if (c % 10 === 0) await table.delete(`id = ${deleted++ * 100 + 1}`); // one row of an early append
    else await table.add(rows(next, 100)), (next += 100);
  }
  const versions = (await table.listVersions()).length;
  return { versions, seconds: (performance.now() - t0) / 1000 };
}

async function openAll(tableDir) {
  const t0 = performance.now(), cpu0 = process.cpuUsage(); // every thread of the process, Lance's included
  const db = await lancedb.connect(path.dirname(tableDir));
  const table = await db.openTable(path.basename(tableDir).replace(/\.lance$/, ""));
  const listed = (await table.listVersions()).map((v) => v.version);
  let total = 0;
  for (const v of listed) {
    await table.checkout(v);
    if ((await table.version()) !== v) throw new Error(`checkout(${v}) landed elsewhere`);
    total += await table.countRows();
  }
  const cpu = process.cpuUsage(cpu0);
  return { versions: listed.length, rows_total: total, seconds: (performance.now() - t0) / 1000,
           cpu_seconds: (cpu.user + cpu.system) / 1e6 };
}

const result = args.open ? await openAll(args.open) : await write(args.out, Number(args.commits));
process.stdout.write(JSON.stringify(result) + "\n");
