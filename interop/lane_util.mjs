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

// The release's @lancedb/lancedb, from interop/<release>/node_modules, and
// the Lance version it embeds.
export function loadRelease(release) {
  const require = createRequire(path.join(HERE, release, "package.json"));
  return { lancedb: require("@lancedb/lancedb"), lance: lanceOf(release) };
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
