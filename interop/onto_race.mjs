#!/usr/bin/env node
// onto_race.mjs: lfa and a released Lance commit to one table at the same
// time, and no version is lost (FA-CONC-11).
//
//   node interop/onto_race.mjs --release lance12|lance8 --lfa LFA --work DIR [--rounds N]
//
// Each round, Lance creates a table (version 1) and appends to it in a loop
// while lfa, at a moment that moves from round to round, runs `lfa track
// --writer-bit-only` and then `lfa invalidate --writer-bit-only` in two
// loops at once; all race for the same next version numbers. Afterwards:
//   - the versions on disk are 1..max with no gap;
//   - every version a committer reported is on disk with that committer's
//     operation (Lance's an Append, lfa's a Project or an Update), no version
//     was reported by both, and every version is one of theirs: none was
//     replaced, none lost;
//   - every failed commit failed with a clear error: Lance's refusal of a
//     writer bit it does not know, or a commit conflict; lfa's lost race
//     ("another writer") or its refusal of a row;
//   - Lance opens every version through a fresh connection, with 10 rows
//     per Append at or before it (plus version 1's 10), and `lfa dump` reads
//     every version.
// `lfa verify` is run too, and its error findings are reported: a Lance
// commit that lands on a tracked version without keeping the state (Lance 8
// retrying an append it planned on the untracked version does) is the
// verifier's to name (FA-FLAG-6), at a version Lance wrote; it is not a
// lost version. Exit 1 on any lost, replaced or unreadable version, an
// unclear failure, or a verifier error at a version lfa wrote.
import fs from "node:fs";
import path from "node:path";

import { loadRelease, oneLine, parseArgs, runLfa } from "./lane_util.mjs";

const args = parseArgs("node interop/onto_race.mjs --release lance12|lance8 --lfa LFA --work DIR [--rounds N]",
  { required: ["release", "lfa", "work"], defaults: { rounds: "8" } });
const { lancedb, lance: lanceOf } = loadRelease(args.release);
const APPENDS = 12, ROWS = 10;
const started = Date.now();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rows = (k) => Array.from({ length: ROWS }, (_, i) => ({ id: k * ROWS + i, v: `r${k}-${i}` }));

async function lanceLoop(db, name, log) {
  for (let k = 1; k <= APPENDS; k++) {
    try {
      const t = await (await lancedb.connect(db)).openTable(name);
      await t.add(rows(k));
      log.lance.push(await t.version());
    } catch (e) {
      const m = oneLine(e);
      if (/cannot be written by this version of Lance|conflict|retry/i.test(m)) log.lanceRefused++;
      else log.unclear.push(`Lance append: ${m.slice(0, 200)}`);
    }
  }
}

async function lfaLoop(dsDir, delay, log) {
  await sleep(delay);
  const commit = async (argv) => {
    const r = await runLfa(args.lfa, argv, { async: true });
    const m = /committed version (\d+)/.exec(r.out);
    const again = /(\d+) attempts\)/.exec(r.out);
    if (again) log.lfaReplanned += Number(again[1]) - 1;
    if (r.code === 0 && m) return log.lfa.push(Number(m[1])), true;
    // a lost race, or the field no longer tracked: a Lance commit dropped the state
    if (/another writer|FA-CONC-11|FA-TXN-10|FA-TXN-8|FA-INVAL-2/.test(r.err)) return log.lfaRefused++, false;
    log.unclear.push(`lfa ${argv[0]}: exit ${r.code}: ${r.err.slice(0, 200)}`);
    return false;
  };
  await commit(["track", dsDir, "--field", "v", "--initial", "unassigned", "--writer-bit-only"]);
  const loop = async (first) => { // two lfa processes at a time: they race each other too
    for (let k = first; k < APPENDS; k += 2)
      await commit(["invalidate", dsDir, "--field", "v", "--rows", String(k % ROWS), "--writer-bit-only"]);
  };
  await Promise.all([loop(0), loop(1)]);
}

function checkRound(db, name, dsDir, log, problems) {
  const d = runLfa(args.lfa, ["dump", "--json", dsDir]);
  if (d.code !== 0) return problems.push(`lfa dump exit ${d.code}: ${d.err}`), null;
  const versions = JSON.parse(d.out).versions;
  const op = new Map(versions.map((v) => [v.version, v.operation]));
  const max = Math.max(...op.keys());
  for (let v = 1; v <= max; v++) if (!op.has(v)) problems.push(`version ${v} is missing`);
  const lance = new Set(log.lance), ours = new Set(log.lfa);
  for (const v of lance) {
    if (ours.has(v)) problems.push(`version ${v} was reported by both Lance and lfa`);
    if (op.get(v) !== "Append") problems.push(`Lance's version ${v} holds a ${op.get(v)}: replaced`);
  }
  for (const v of ours)
    if (op.get(v) !== "Project" && op.get(v) !== "Update") problems.push(`lfa's version ${v} holds a ${op.get(v)}: replaced`);
  for (let v = 2; v <= max; v++)
    if (!lance.has(v) && !ours.has(v)) problems.push(`version ${v} (${op.get(v)}) was reported by neither writer`);
  return { max, appendsUpTo: (v) => [...lance].filter((x) => x <= v).length };
}

async function lanceReadsAll(db, name, max, appendsUpTo, problems) {
  for (let v = 1; v <= max; v++) {
    try {
      const t = await (await lancedb.connect(db)).openTable(name);
      await t.checkout(v);
      const n = await t.countRows(), want = ROWS * (1 + appendsUpTo(v));
      if (n !== want) problems.push(`Lance at version ${v}: countRows ${n}, ${want} from the appends`);
    } catch (e) {
      problems.push(`Lance cannot read version ${v}: ${oneLine(e)}`);
    }
  }
}

const work = path.resolve(args.work);
fs.rmSync(work, { recursive: true, force: true });
const db = path.join(work, "db");
let failed = 0, versions = 0, raced = { lance: 0, lfa: 0, lanceRefused: 0, lfaRefused: 0, lfaReplanned: 0, verifyErrors: 0 };
for (let round = 0; round < Number(args.rounds); round++) {
  const name = `race${round}`, dsDir = path.join(db, `${name}.lance`);
  await (await lancedb.connect(db)).createTable(name, rows(0));
  const log = { lance: [], lfa: [], lanceRefused: 0, lfaRefused: 0, lfaReplanned: 0, unclear: [] };
  await Promise.all([lanceLoop(db, name, log), lfaLoop(dsDir, 5 + 12 * round, log)]);
  const problems = [...log.unclear];
  const shape = checkRound(db, name, dsDir, log, problems);
  if (shape) await lanceReadsAll(db, name, shape.max, shape.appendsUpTo, problems);
  const v = runLfa(args.lfa, ["verify", "--json", dsDir]);
  const errors = v.out ? (JSON.parse(v.out).findings || []).filter((f) => f.severity === "error") : [];
  raced.verifyErrors += errors.length;
  for (const f of errors) // [FA-FLAG-6] the damage is at a version Lance wrote, never at lfa's
    if (!log.lance.includes(f.version)) problems.push(`lfa verify reports ${f.rule} at version ${f.version}, which Lance did not write`);
  raced.lance += log.lance.length, raced.lfa += log.lfa.length;
  raced.lanceRefused += log.lanceRefused, raced.lfaRefused += log.lfaRefused, raced.lfaReplanned += log.lfaReplanned;
  versions += shape ? shape.max : 0;
  const summary = `Lance appended ${log.lance.length} (refused ${log.lanceRefused}), lfa committed ${log.lfa.length} ` +
    `(lost or refused ${log.lfaRefused}, ${log.lfaReplanned} races lost and planned again), ${shape ? shape.max : "?"} versions, verify errors ${errors.length}` +
    (errors.length ? ` (${errors.map((f) => `${f.rule}@${f.version}`).slice(0, 3).join(", ")})` : "");
  if (problems.length) failed++;
  console.log(`${args.release} race ${round}: ${summary}${problems.length ? `: ${problems.slice(0, 4).join("; ")}` : ""}`);
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(`${args.release} (Lance ${lanceOf}) race: ${args.rounds} rounds, ${versions} versions, ${raced.lance} Lance appends ` +
  `and ${raced.lfa} lfa commits kept, ${raced.lanceRefused} Lance and ${raced.lfaRefused} lfa commits refused clearly, ` +
  `${raced.lfaReplanned} races lfa lost and planned again, ` +
  `${raced.verifyErrors} verify errors, ${failed} rounds lost or replaced a version, ${secs} s`);
process.exit(failed ? 1 : 0);
