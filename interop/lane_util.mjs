// lane_util.mjs: what the lane's Node scripts share: their `--name value`
// arguments, the pinned release they drive, and running lfa.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));

// The Lance version a pinned release embeds, as the description of
// interop/<release>/package.json states it ("... embeds Lance 12.0.0"; the
// build reads the same line for `lfa --version`), or null.
export function lanceOf(release) {
  const pkg = JSON.parse(fs.readFileSync(path.join(HERE, release, "package.json"), "utf8"));
  const m = /embeds Lance ([0-9.]+)/.exec(pkg.description || "");
  return m ? m[1] : null;
}

// `--name value` pairs into an object over `defaults`; exits 2 with `usage`
// when one of `required` is missing.
export function parseArgs(usage, required, defaults = {}) {
  const args = { ...defaults };
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
  if (required.some((k) => !args[k])) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return args;
}

// The release's @lancedb/lancedb, from interop/<release>/node_modules (or
// from `modules`, a node_modules folder the release sweep installed, which
// may hold the older vectordb package instead), and the Lance version it
// embeds (null for a swept release: its tables name it).
export function loadRelease(release, modules = null) {
  const require = createRequire(path.join(modules || path.join(HERE, release, "node_modules"), "__lfa_interop__.js"));
  if (!modules) return { lancedb: require("@lancedb/lancedb"), lance: lanceOf(release) };
  const name = fs.existsSync(path.join(modules, "@lancedb", "lancedb")) ? "@lancedb/lancedb" : "vectordb";
  return { lancedb: require(name), lance: null, vectordb: name === "vectordb" };
}

// Runs lfa and returns its exit status and output.
export function runLfa(bin, argv) {
  const r = spawnSync(bin, argv, { encoding: "utf8", maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
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
