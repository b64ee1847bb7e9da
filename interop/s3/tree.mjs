// tree.mjs: copies a directory tree to or from the local S3 server with
// plain HTTP requests (node's fetch, no SDK, no lfa), so the tests compare
// lfa on s3:// with lfa on a copy lfa did not make.
//
//   node interop/s3/tree.mjs put ENDPOINT BUCKET PREFIX DIR   # every file of DIR to s3://BUCKET/PREFIX/
//   node interop/s3/tree.mjs get ENDPOINT BUCKET PREFIX DIR   # every key under PREFIX/ to DIR (ListObjectsV2)
//   node interop/s3/tree.mjs rm ENDPOINT BUCKET KEY...        # deletes keys
//
// Requests are unsigned (s3rver accepts them). Exit 1 with one line on any
// failure.
import fs from "node:fs";
import path from "node:path";

const [mode, endpoint, bucket, prefix, dir, ...more] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`tree.mjs: ${msg}`);
  process.exit(1);
};
if (!["put", "get", "rm"].includes(mode) || !endpoint || !bucket || prefix === undefined) fail("usage: see the header");

const enc = (key) => key.split("/").map(encodeURIComponent).join("/");

function* files(root, rel = "") {
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) yield* files(root, r);
    else if (e.isFile()) yield r;
  }
}

// PUTs PUT_PARALLEL files at a time: a lane's thousands of small files
// otherwise wait on one round trip each.
const PUT_PARALLEL = 8;
async function put() {
  const todo = [...files(dir)];
  let next = 0;
  async function worker() {
    while (next < todo.length) {
      const rel = todo[next++];
      const key = prefix ? `${prefix}/${rel}` : rel;
      const res = await fetch(`${endpoint}/${bucket}/${enc(key)}`, {
        method: "PUT",
        body: fs.readFileSync(path.join(dir, rel)),
        headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
      });
      if (!res.ok) fail(`PUT ${key}: HTTP ${res.status}`);
      await res.arrayBuffer();
    }
  }
  await Promise.all(Array.from({ length: PUT_PARALLEL }, worker));
  console.log(`put ${todo.length} objects under s3://${bucket}/${prefix}`);
}

const field = (xml, tag) => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, "g"))].map((m) => m[1]);
const unxml = (s) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");

async function get() {
  let token = null, n = 0;
  const want = prefix ? `${prefix}/` : "";
  for (;;) {
    const q = new URLSearchParams({ "list-type": "2", prefix: want });
    if (token) q.set("continuation-token", token);
    const res = await fetch(`${endpoint}/${bucket}?${q}`, { headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } });
    if (!res.ok) fail(`list ${want}: HTTP ${res.status}`);
    const xml = await res.text();
    for (const key of field(xml, "Key").map(unxml)) {
      const rel = key.slice(want.length);
      if (!rel || rel.split("/").some((s) => s === "" || s === "." || s === "..")) continue;
      const body = await fetch(`${endpoint}/${bucket}/${enc(key)}`, { headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } });
      if (!body.ok) fail(`GET ${key}: HTTP ${body.status}`);
      const out = path.join(dir, rel);
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, Buffer.from(await body.arrayBuffer()));
      n++;
    }
    if (field(xml, "IsTruncated")[0] !== "true") break;
    token = unxml(field(xml, "NextContinuationToken")[0] || "");
    if (!token) fail("a truncated listing without a continuation token");
  }
  console.log(`got ${n} objects from s3://${bucket}/${prefix}`);
}

async function rm() {
  for (const key of [prefix, dir, ...more].filter((k) => k !== undefined)) {
    const res = await fetch(`${endpoint}/${bucket}/${enc(key)}`, {
      method: "DELETE",
      headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    });
    if (!res.ok) fail(`DELETE ${key}: HTTP ${res.status}`);
  }
}

await (mode === "put" ? put() : mode === "get" ? get() : rm());
