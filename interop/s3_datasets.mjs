#!/usr/bin/env node
// interop/s3_datasets.mjs: every dataset the real-Lance lane left on disk
// (tests/lance_lane.sh, both pinned releases) put on the local S3 server,
// and lfa must answer on s3:// exactly as on the directory it came from.
//
//   node interop/s3_datasets.mjs --lfa BIN --endpoint URL --gen DIR[,DIR...]
//
// Each GEN is a release's folder of the lane (build-lance/<release>/): the
// generated tables (db/), lfa's commits onto copies of them (onto/), the
// race tables (race/), the feature-bit probes (flags/) and the writer
// matrix (matrix/). A dataset is every directory there with a _versions/
// folder, found by walking the tree (a branch of a table, tree/<name>/, is
// one too), so a dataset the lane adds is covered without naming it here.
// Each GEN is uploaded whole with plain PUTs through the server's S3 API
// (interop/s3/tree.mjs: s3://lfa/<release>/...), then for every dataset:
//  - `lfa dump --json --rows`, `lfa verify --json`, `lfa verify --json
//    --from N` (N the newest version the local dump lists) and, for every
//    field tracked at the newest version, `lfa eval --field NAME --json`
//    (the lane evaluates onto/ and matrix/ tables) give the same exit status
//    and the same stdout on s3:// and on the local path, the URL read as the
//    path. What is expected is what lfa says of the local path in this run.
//  - A branch (a dataset under <table>.lance/tree/<name>/) is the one
//    exception, by design: Lance records its parent as a base path, the
//    absolute local path the parent was written at, and lfa on s3:// never
//    follows a local path (lfa/s3.h). So on s3:// every version of a branch
//    must be unreadable for that reason: dump exits 1 and names it for
//    every version, and verify exits 1 with an FA-VERIFY-5 error naming it.
// Prints one summary line (datasets, comparisons, branches checked, time);
// exit 1 on any difference, with its first lines, or when no dataset was
// found.
import fs from "node:fs";
import path from "node:path";

import { Fatal, parseArgs, runLfa, s3Difference, s3Env, s3Tree } from "./lane_util.mjs";

const args = parseArgs("node interop/s3_datasets.mjs --lfa BIN --endpoint URL --gen DIR[,DIR...]",
  { required: ["lfa", "endpoint", "gen"] });
const T0 = performance.now();
const BUCKET = "lfa";
const LFA_PARALLEL = 3; // lfa runs at once: s3rver is one process, the machine 2 cores
const OFF_STORE = "is not on the object store the dataset is on";
const failures = [];
const differ = (what, detail) => failures.push(`${what}: ${detail}`.slice(0, 600));

const lfa = (argv) => runLfa(args.lfa, argv, { env: s3Env(args.endpoint), async: true });

// Every directory under `root` holding _versions/, as paths relative to root.
function datasets(root, rel = "") {
  const here = path.join(root, rel);
  const found = [];
  for (const e of fs.readdirSync(here, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.name === "_versions") found.push(rel);
    else found.push(...datasets(root, r));
  }
  return found.filter((d) => d !== "");
}

const isBranch = (rel) => /\.lance\/tree\/[^/]+$/.test(rel);

// lfa CMD on the URL and on the local directory: the same exit status and
// stdout once the URL is read as the directory. Returns the local answer.
let compared = 0;
async function same(url, dir, cmd, more, what) {
  const [a, b] = await Promise.all([lfa([cmd, url, ...more]), lfa([cmd, dir, ...more])]);
  compared++;
  const d = s3Difference(url, dir, a, b);
  if (d) differ(`${what}: lfa ${cmd} ${more.join(" ")}`, d);
  return b;
}

async function compareOne(url, dir, what) {
  const dump = await same(url, dir, "dump", ["--json", "--rows"], what);
  await same(url, dir, "verify", ["--json"], what);
  let doc;
  try { doc = JSON.parse(dump.out); } catch { return differ(`${what}: lfa dump --json`, `does not parse (exit ${dump.code})`); }
  const newest = doc.versions.at(-1);
  if (!newest) return differ(`${what}: lfa dump --json`, "lists no version");
  await same(url, dir, "verify", ["--json", "--from", String(newest.version)], what);
  for (const t of newest.tracked || []) await same(url, dir, "eval", ["--field", t.name, "--json"], `${what} (${t.name})`);
}

// A branch on s3://: every version unreadable because its base path is a local path.
let branches = 0;
async function branchRefused(url, what) {
  branches++;
  const d = await lfa(["dump", url, "--json"]);
  let doc = null;
  try { doc = JSON.parse(d.out); } catch { /* said below */ }
  const versions = doc ? doc.versions : [];
  if (d.code !== 1 || !versions.length || !versions.every((v) => v.error && v.error.message.includes(OFF_STORE)))
    differ(`${what} (a branch): lfa dump on s3://`, `exit ${d.code}, not every version refused for its local base path`);
  const v = await lfa(["verify", url, "--json"]);
  let findings = [];
  try { findings = JSON.parse(v.out).findings; } catch { /* said below */ }
  if (v.code !== 1 || !findings.some((f) => f.rule === "FA-VERIFY-5" && f.severity === "error" && f.message.includes(OFF_STORE)))
    differ(`${what} (a branch): lfa verify on s3://`, `exit ${v.code}, no FA-VERIFY-5 error for its local base path`);
}

// Runs jobs LFA_PARALLEL at a time.
async function pool(jobs) {
  let next = 0;
  const worker = async () => { while (next < jobs.length) await jobs[next++](); };
  await Promise.all(Array.from({ length: LFA_PARALLEL }, worker));
}

const perRelease = [];
const jobs = [];
for (const gen of args.gen.split(",")) {
  const release = path.basename(path.resolve(gen));
  if (!fs.existsSync(path.join(gen, "expected.json"))) {
    console.log(`s3 datasets: ${gen} holds no lane output (run tests/lance_lane.sh for ${release} first)`);
    process.exit(1);
  }
  const found = datasets(gen);
  try {
    s3Tree("put", args.endpoint, BUCKET, release, gen);
  } catch (e) {
    if (!(e instanceof Fatal)) throw e;
    console.log(`s3 datasets: uploading ${gen}: ${e.message}`);
    process.exit(1);
  }
  perRelease.push(`${release} ${found.length}`);
  for (const rel of found) {
    const url = `s3://${BUCKET}/${release}/${rel}`, dir = path.join(gen, rel), what = `${release}/${rel}`;
    jobs.push(() => (isBranch(rel) ? branchRefused(url, what) : compareOne(url, dir, what)));
  }
}

await pool(jobs);
const total = jobs.length;
const secs = ((performance.now() - T0) / 1000).toFixed(1);
console.log(`s3 datasets: ${total} lane datasets on S3 (${perRelease.join(", ")}): ${compared} outputs compared on s3:// ` +
  `and on disk, ${branches} branches refused for their local base paths, ${failures.length} differences, ${secs} s`);
for (const f of failures.slice(0, 20)) console.log(`  ${f}`);
process.exit(failures.length || total === 0 || compared === 0 ? 1 : 0);
