// lane_util.mjs: the one library of the lane's Node scripts: their
// arguments, the pinned release they drive, running lfa, the local S3
// server's credentials, and the API differences between releases.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));

// A failure the script explains itself (a missing release, a bad argument,
// a refusal it did not expect): its message is the whole report.
// A script that does not catch one ends with its message, not a stack.
export class Fatal extends Error {}
process.on("uncaughtException", (e) => {
  console.error(e instanceof Fatal ? `${path.basename(process.argv[1])}: ${e.message}` : e);
  process.exit(1);
});

// The first line of an error's message, whitespace folded, at most 400 characters.
export function oneLine(e) {
  const s = e && e.message !== undefined ? String(e.message) : String(e);
  return s.split("\n")[0].replace(/\s+/g, " ").trim().slice(0, 400);
}

// ---------------------------------------------------------------- arguments

// The script's `--name value` options over `defaults` and its `--name`
// switches (`flags`, false unless given). `--help` prints the usage; an
// unknown option, one without its value, or a missing `required` one exits 2
// with it.
export function parseArgs(usage, { required = [], defaults = {}, flags = [] } = {}) {
  const args = { ...defaults };
  for (const f of flags) args[f] = false;
  const known = new Set([...required, ...Object.keys(args)]);
  const refuse = (why) => {
    console.error(`${why}\nusage: ${usage}`);
    process.exit(2);
  };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "-h" || argv[i] === "--help") {
      console.log(`usage: ${usage}`);
      process.exit(0);
    }
    const name = argv[i].replace(/^--/, "");
    if (!argv[i].startsWith("--") || !known.has(name)) refuse(`unknown argument '${argv[i]}'`);
    if (flags.includes(name)) args[name] = true;
    else if (i + 1 < argv.length) args[name] = argv[++i];
    else refuse(`${argv[i]} wants a value`);
  }
  const missing = required.filter((k) => !args[k]);
  if (missing.length) refuse(`missing ${missing.map((k) => `--${k}`).join(", ")}`);
  return args;
}

// ---------------------------------------------------------------- the release

// The Lance version a pinned release embeds, as the description of
// interop/<release>/package.json states it ("... embeds Lance 12.0.0"; the
// build reads the same line for `lfa --version`), or null.
export function lanceOf(release) {
  const file = path.join(HERE, release, "package.json");
  if (!fs.existsSync(file)) return null;
  const m = /embeds Lance ([0-9.]+)/.exec(JSON.parse(fs.readFileSync(file, "utf8")).description || "");
  return m ? m[1] : null;
}

// The Lance version compiled into a node_modules folder's native module
// (the crate path of its sources), or null.
function lanceOfBinary(nm) {
  const dir = path.join(nm, "@lancedb");
  if (!fs.existsSync(dir)) return null;
  for (const d of fs.readdirSync(dir)) {
    if (!d.startsWith("lancedb-") && !d.startsWith("vectordb-")) continue;
    for (const f of fs.readdirSync(path.join(dir, d))) {
      if (!f.endsWith(".node")) continue;
      const m = /\/lance-(\d+\.\d+\.\d+)\/src\//.exec(fs.readFileSync(path.join(dir, d, f)).toString("latin1"));
      if (m) return m[1];
    }
  }
  return null;
}

// The release's packages: @lancedb/lancedb and apache-arrow from
// interop/<release>/node_modules, or (`release` then only a label) from
// `modules`, a node_modules folder the release sweep installed (which may hold the older vectordb package
// instead), with their versions and the Lance version embedded: the one
// the pin states, else the native module's (null for a swept release
// without one: its tables name it). Throws Fatal when they are missing.
export function loadRelease(release, modules = null) {
  if (!modules && !/^[A-Za-z0-9_.-]+$/.test(release || "")) throw new Fatal(`bad release name '${release}' (a folder of interop/)`);
  const nm = modules ? path.resolve(modules) : path.join(HERE, release, "node_modules");
  const pkg = modules && !fs.existsSync(path.join(nm, "@lancedb", "lancedb")) ? "vectordb" : "@lancedb/lancedb";
  const version = (name) => {
    const file = path.join(nm, ...name.split("/"), "package.json");
    if (!fs.existsSync(file)) throw new Fatal(`release '${release}' is not installed: ${file} missing (run scripts/peers.sh)`);
    return JSON.parse(fs.readFileSync(file, "utf8")).version;
  };
  const lancedbVersion = version(pkg), arrowVersion = version("apache-arrow");
  const req = createRequire(path.join(nm, "__lfa_interop__.js"));
  let lancedb, arrow;
  try {
    lancedb = req(pkg);
    arrow = req("apache-arrow");
  } catch (e) {
    throw new Fatal(`cannot load the packages of '${release}': ${oneLine(e)}`);
  }
  const pinned = modules ? null : lanceOf(release);
  const lance = pinned || lanceOfBinary(nm);
  if (!lance && !modules) throw new Fatal(`unknown Lance version for @lancedb/lancedb ${lancedbVersion}`);
  return { lancedb, arrow, lancedbVersion, arrowVersion, lance, lanceSource: pinned ? "package.json" : "native module",
    pkg, vectordb: pkg === "vectordb" };
}

// ---------------------------------------------------------------- lfa

// Runs lfa: { code (-1 when it did not exit), out, err (trimmed) }. `env`
// adds variables to the environment; `stdout` a file descriptor (or
// "ignore") receives the output instead of `out`; `async` answers with a
// Promise, for runs beside Lance or beside each other.
export function runLfa(bin, argv, { env = null, stdout = "pipe", async = false } = {}) {
  const opts = { env: env ? { ...process.env, ...env } : process.env, stdio: ["ignore", stdout, "pipe"],
    encoding: "utf8", maxBuffer: 1 << 28 };
  const answer = (code, out, err) => ({ code: typeof code === "number" ? code : -1, out: out || "", err: (err || "").trim() });
  if (!async) {
    const r = spawnSync(bin, argv, opts);
    return answer(r.status, r.stdout, r.error ? String(r.error) : r.stderr);
  }
  return new Promise((resolve) => {
    const p = spawn(bin, argv, opts);
    let out = "", err = "";
    if (p.stdout) p.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    p.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    p.on("error", (e) => (err += String(e)));
    p.on("close", (code) => resolve(answer(code, out, err)));
  });
}

// ---------------------------------------------------------------- the local S3 server

// The environment lfa reads an s3:// dataset through (README.md "Datasets
// on S3"), for the local server's fixed credentials at `endpoint`.
export function s3Env(endpoint) {
  return { AWS_ENDPOINT_URL: endpoint, AWS_ALLOW_HTTP: "true", AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER", AWS_REGION: "us-east-1" };
}

// Copies the local tree `dir` to (`put`) or from (`get`) the bucket's
// `prefix` with plain requests (interop/s3/tree.mjs), not through lfa;
// throws Fatal with its first error line when it fails.
export function s3Tree(op, endpoint, bucket, prefix, dir) {
  const r = spawnSync("node", [path.join(HERE, "s3", "tree.mjs"), op, endpoint, bucket, prefix, dir],
    { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Fatal(`s3 ${op} ${prefix} failed: ${(r.stderr || "").trim().split("\n")[0]}`);
}

// How lfa's answer `a` on an s3:// URL differs from its answer `b` on a
// local copy at `dir`, the URL read as that path: null when the exit status
// and stdout are the same, else the statuses and the first differing line.
export function s3Difference(url, dir, a, b) {
  const sub = a.out.split(url).join(dir);
  if (a.code === b.code && sub === b.out) return null;
  const la = sub.split("\n"), lb = b.out.split("\n");
  let i = 0;
  while (i < la.length && la[i] === lb[i]) i++;
  return `exit ${a.code} on s3://, ${b.code} local; first difference at line ${i + 1}: '${la[i]}' vs '${lb[i]}' ${(a.err || "").trim()}`;
}

// ---- one release's API, whichever it is (the release sweep drives every
// @lancedb/lancedb from 0.4.20 and the older vectordb package): each helper
// calls the newest form the table has and falls back to an older one, so a
// history reads the same in every release. A helper throws ApiGap when the
// release has no form of the call at all.

export class ApiGap extends Error {}

// Whether an error says the release lacks the method rather than refusing it.
export function isApiGap(e) {
  return e instanceof ApiGap || (e instanceof TypeError && /is not a function|Cannot read propert/.test(String(e.message)));
}

function need(t, name) {
  if (typeof t[name] !== "function") throw new ApiGap(`no table.${name}()`);
}

// SQL literal of a JS value, for the update form of @lancedb/lancedb 0.4,
// whose update takes column -> SQL expression (and refuses { where, values }).
function sqlLiteral(x) {
  return typeof x === "string" ? `'${x.replace(/'/g, "''")}'` : String(x);
}

export const api = {
  // update(where, values): values are literals; sql: they are SQL expressions.
  async update(t, where, values, sql = false) {
    need(t, "update");
    try {
      return await t.update(sql ? { where, valuesSql: values } : { where, values });
    } catch (e) {
      // 0.4's update(updates, { where }): { where, values } names no column.
      const upd = {};
      for (const [k, v] of Object.entries(values)) upd[k] = sql ? v : sqlLiteral(v);
      try {
        return await t.update(upd, { where });
      } catch {
        throw e;
      }
    }
  },
  // merge_insert on id: update-only, or an upsert.
  async merge(t, data, upsert) {
    need(t, "mergeInsert");
    if (t.mergeInsert.length >= 2) // vectordb: mergeInsert(on, data, args)
      return t.mergeInsert("id", data, { whenMatchedUpdateAll: true, whenNotMatchedInsertAll: upsert });
    const b = t.mergeInsert("id").whenMatchedUpdateAll();
    return (upsert ? b.whenNotMatchedInsertAll() : b).execute(data);
  },
  // Compaction (and index optimisation where the release has optimize()).
  async compact(t) {
    if (typeof t.optimize === "function") return t.optimize();
    if (typeof t.compactFiles === "function") return t.compactFiles();
    throw new ApiGap("no table.optimize() or table.compactFiles()");
  },
  // A scalar index of `kind` (btree, bitmap, fts) on one column.
  async index(L, t, column, kind, name) {
    if (typeof t.createScalarIndex === "function" && typeof t.query !== "function") {
      if (kind !== "btree") throw new ApiGap(`no ${kind} index (only createScalarIndex, a btree)`);
      return t.createScalarIndex(column);
    }
    need(t, "createIndex");
    const make = L.Index && L.Index[kind];
    if (typeof make !== "function") {
      if (kind !== "btree") throw new ApiGap(`no Index.${kind}()`);
      return t.createIndex(column, name ? { name } : undefined);
    }
    return t.createIndex(column, { config: make.call(L.Index), ...(name ? { name } : {}) });
  },
};
