// server.mjs: the local S3-compatible server of the s3:// tests (s3rver,
// pinned in package.json), bound to 127.0.0.1 only, on a free port the
// system picks, storing its objects in a temporary directory.
//
//   node interop/s3/server.mjs [--dir DIR] [--bucket NAME]... [--port-file FILE]
//
// Prints one JSON line on stdout once it listens:
//   {"endpoint": "http://127.0.0.1:PORT", "port": PORT, "dir": DIR}
// and writes the same line to --port-file when given. Runs until SIGTERM
// or SIGINT, then stops and (unless --dir was given) removes its directory. Credentials: s3rver's fixed key pair,
// S3RVER / S3RVER (s3rver 3.7.1 does not check V4 signatures).
//
// What s3rver 3.7.1 does on Node 20, and what this file does about it:
//  - its ListObjectsV2 continuation tokens are DES-encrypted, a cipher
//    Node 20's OpenSSL 3 refuses, so every truncated listing (more than
//    max-keys keys) answered HTTP 500. The token is opaque to clients:
//    below, s3rver's 'des' is mapped to AES-128-CBC (key and IV doubled),
//    and paging works.
//  - it ignores If-None-Match on PUT (a conditional create succeeds over
//    an existing key), misreads suffix ranges (bytes=-N) and answers a
//    range of a 0-byte object with a wrong length; with a delimiter it
//    leaves out common prefixes that hold no object directly. lfa's client
//    sends none of those, except If-None-Match, which it backs with a HEAD
//    (lfa/s3.h); the tests say what this server cannot show.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const crypto = require("node:crypto");
const widen = (b) => Buffer.concat([b, b]);
for (const name of ["createCipheriv", "createDecipheriv"]) {
  const real = crypto[name];
  crypto[name] = (alg, key, iv, ...rest) =>
    alg === "des" ? real("aes-128-cbc", widen(Buffer.from(key)), widen(Buffer.from(iv)), ...rest) : real(alg, key, iv, ...rest);
}
const S3rver = require("s3rver");

const args = process.argv.slice(2);
let dir = null, portFile = null;
const buckets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--dir") dir = args[++i];
  else if (args[i] === "--bucket") buckets.push(args[++i]);
  else if (args[i] === "--port-file") portFile = args[++i];
  else {
    console.error(`server.mjs: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
const own = dir === null;
if (own) dir = fs.mkdtempSync(path.join(os.tmpdir(), "lfa-s3rver-"));
fs.mkdirSync(dir, { recursive: true });

const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory: dir,
  configureBuckets: buckets.map((name) => ({ name })),
});
const addr = await server.run();
const line = JSON.stringify({ endpoint: `http://127.0.0.1:${addr.port}`, port: addr.port, dir });
if (portFile) fs.writeFileSync(portFile, line + "\n");
console.log(line);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  try { await server.close(); } catch {}
  if (own) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
