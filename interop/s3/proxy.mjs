// proxy.mjs: a fault-injecting HTTP proxy in front of the local S3 server,
// for the fault tests of lfa's s3:// client (tests/cli/cli_s3.sh). Node only,
// no dependencies. Binds 127.0.0.1 on a free port.
//
//   node interop/s3/proxy.mjs --upstream http://127.0.0.1:PORT [faults] [--port-file F] [--log F]
//
// Prints {"endpoint": "http://127.0.0.1:PORT"} once it listens; runs until
// SIGTERM or SIGINT. Faults
// (any together):
//   --fail-every N       every Nth request is answered 500 InternalError, not forwarded
//   --slow-down-every N  every Nth request is answered 503 SlowDown, not forwarded
//   --truncate-every N   every Nth GET that has a body sends half of it, then the
//                        connection is cut (Content-Length says the whole)
//   --stop-after N       after N requests the proxy stops: it closes its port and
//                        every open connection (the server gone mid-run)
//   --page-keys K        ListObjectsV2 max-keys is lowered to K (many pages)
//   --listing-goes-back  a listing's second page starts over from the first key
//                        (a listing that changed between pages)
//   --garbage-listing M  every listing is answered with hostile XML of kind M:
//                        bytes | no-token | huge-key | outside | entities
//   --hide-version NAME  _versions/NAME is left out of listings (a version lfa does
//                        not see, that another writer made)
//   --hide-head NAME     ... and HEAD of it answers 404 too
//   --if-none-match      emulates If-None-Match: * on PUT (s3rver ignores it): a HEAD
//                        upstream first, 412 when the key is there. Not atomic: for
//                        testing the client's handling of 412, not the server's race
//   --commit-on-delete K on the first DELETE, PUTs upstream a copy of the manifest
//                        _versions/K (a writer that commits while cleanup runs) as
//                        the next version first
//   --inject-key KEY     every listing whose prefix KEY starts with lists KEY too (an
//                        object of --inject-size bytes, no ETag), in key order, its
//                        KeyCount raised: a key a hostile store holds, such as
//                        "t/_field_assignments/roots/2/../../../../victim/x.root"
//   --mangle-listing M   every listing of a "_versions/" prefix is answered with the
//                        real page made hostile, kind M, its Content-Length right:
//                        cut-entries (cut after its second entry, a dangling
//                        <Contents><Key>) | no-close (no </ListBucketResult>) |
//                        keycount (KeyCount one more than the keys) | reorder (its
//                        first two objects swapped) | cut-at:N (its first N bytes only;
//                        past its length, the whole page)
// --log F appends one line per request: "METHOD PATH?QUERY STATUS".
import fs from "node:fs";
import http from "node:http";

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (["--if-none-match", "--listing-goes-back"].includes(a)) opt[a.slice(2)] = true;
  else if (a.startsWith("--")) opt[a.slice(2)] = args[++i];
}
if (!opt.upstream) {
  console.error("proxy.mjs: --upstream is required");
  process.exit(2);
}
const up = new URL(opt.upstream);
const num = (k) => (opt[k] !== undefined ? Number(opt[k]) : 0);
let count = 0, gets = 0, committed = false;
const log = (line) => opt.log && fs.appendFileSync(opt.log, line + "\n");

function forward(req, body, { path = req.url, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...req.headers, ...headers, host: up.host };
    const r = http.request({ host: up.hostname, port: up.port, method: req.method, path, headers: h }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    r.on("error", reject);
    r.end(body);
  });
}

const UNSIGNED = { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" };
const plain = (method, path, body) => forward({ method, headers: UNSIGNED }, body, { path });

function xmlError(res, status, code) {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>injected by proxy.mjs</Message></Error>`);
}

const sockets = new Set();
let server;
function stop() {
  server.close();
  for (const s of sockets) s.destroy();
}

function hostileListing(kind) {
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>`;
  switch (kind) {
    case "bytes": return Buffer.from([0x3c, 0x4c, 0xff, 0x00, 0x3e, 0x3c, 0x2f, ...Array(300).fill(0x41)]);
    case "no-token": return `${head}<IsTruncated>true</IsTruncated><Contents><Key>x/_versions/1.manifest</Key></Contents></ListBucketResult>`;
    case "huge-key": return `${head}<IsTruncated>false</IsTruncated><Contents><Key>${"k".repeat(200000)}</Key></Contents></ListBucketResult>`;
    case "outside": return `${head}<IsTruncated>false</IsTruncated><Contents><Key>elsewhere/1.manifest</Key><Size>1</Size></Contents></ListBucketResult>`;
    case "entities": return `${head}<IsTruncated>false</IsTruncated><Contents><Key>&#0;&#xD800;&bogus;&#99999999999;</Key></Contents></ListBucketResult>`;
    default: return `${head}</ListBucketResult>`;
  }
}

const esc = (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const unesc = (t) => t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");

// The page `text` of a listing of `url` with opt["inject-key"] put in among its <Contents>.
function injectKey(text, url) {
  const key = opt["inject-key"], prefix = url.searchParams.get("prefix") || "";
  if (!key.startsWith(prefix)) return text;
  const entry = `<Contents><Key>${esc(key)}</Key><Size>${num("inject-size")}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  let at = -1;
  for (const m of text.matchAll(/<Contents><Key>([^<]*)<\/Key>/g)) {
    if (unesc(m[1]) > key) { at = m.index; break; }
  }
  if (at < 0) {
    const c = text.lastIndexOf("</Contents>");
    at = c >= 0 ? c + "</Contents>".length : text.indexOf("</ListBucketResult>");
  }
  text = text.slice(0, at) + entry + text.slice(at);
  return text.replace(/<KeyCount>(\d+)<\/KeyCount>/, (_, n) => `<KeyCount>${Number(n) + 1}</KeyCount>`);
}

// The listing page `text` made hostile, kind `kind` (--mangle-listing).
function mangle(text, kind) {
  const entries = [...text.matchAll(/<Contents>.*?<\/Contents>/gs)];
  switch (kind) {
    case "cut-entries": {
      const second = entries[1] || entries[0];
      return text.slice(0, second.index + second[0].length) + "<Contents><Key>";
    }
    case "no-close": return text.replace("</ListBucketResult>", "");
    case "keycount": return text.replace(/<KeyCount>(\d+)<\/KeyCount>/, (_, n) => `<KeyCount>${Number(n) + 1}</KeyCount>`);
    case "reorder": {
      const [a, b] = entries;
      return text.slice(0, a.index) + b[0] + a[0] + text.slice(b.index + b[0].length);
    }
    default: return text;
  }
}

async function handle(req, res) {
  const n = ++count;
  const body = await new Promise((resolve) => {
    const c = [];
    req.on("data", (x) => c.push(x));
    req.on("end", () => resolve(Buffer.concat(c)));
  });
  const url = new URL(req.url, "http://x");
  const isList = req.method === "GET" && url.searchParams.get("list-type") === "2";
  const done = (status) => log(`${req.method} ${req.url} ${status}`);
  if (num("stop-after") && n > num("stop-after")) {
    req.socket.destroy();
    stop();
    return done("stopped");
  }
  if (num("fail-every") && n % num("fail-every") === 0) return xmlError(res, 500, "InternalError"), done(500);
  if (num("slow-down-every") && n % num("slow-down-every") === 0) return xmlError(res, 503, "SlowDown"), done(503);
  if (isList && opt["garbage-listing"]) {
    res.writeHead(200, { "content-type": "application/xml" });
    res.end(hostileListing(opt["garbage-listing"]));
    return done("200 hostile");
  }
  const hidden = opt["hide-head"] || opt["hide-version"];
  if (opt["hide-head"] && req.method === "HEAD" && url.pathname.endsWith(`/_versions/${opt["hide-head"]}`)) {
    res.writeHead(404);
    res.end();
    return done("404 hidden");
  }
  if (req.method === "PUT" && opt["if-none-match"] && req.headers["if-none-match"] === "*") {
    const there = await plain("HEAD", req.url);
    if (there.status === 200) return xmlError(res, 412, "PreconditionFailed"), done(412);
  }
  if (req.method === "DELETE" && opt["commit-on-delete"] && !committed) {
    committed = true;
    const m = url.pathname.match(/^(\/[^/]+\/.*\/_versions\/)/);
    if (m) {
      const src = await plain("GET", `${m[1]}${opt["commit-on-delete"]}.manifest`);
      await plain("PUT", `${m[1]}${Number(opt["commit-on-delete"]) + 1}.manifest`, src.body);
    }
  }
  let path = req.url;
  if (isList && num("page-keys")) {
    url.searchParams.set("max-keys", String(num("page-keys")));
    path = url.pathname + "?" + url.searchParams.toString();
  }
  let r;
  try {
    r = await forward(req, body, { path });
  } catch (e) {
    xmlError(res, 502, "BadGateway");
    return done(502);
  }
  let out = r.body;
  if (isList && opt["mangle-listing"] && r.status === 200 && (url.searchParams.get("prefix") || "").endsWith("_versions/"))
    out = opt["mangle-listing"].startsWith("cut-at:")
      ? out.subarray(0, Number(opt["mangle-listing"].slice(7)))
      : Buffer.from(mangle(out.toString("utf8"), opt["mangle-listing"]), "utf8");
  if (isList && opt["inject-key"] && r.status === 200) out = Buffer.from(injectKey(out.toString("utf8"), url), "utf8");
  if (isList && (hidden || opt["listing-goes-back"])) {
    let text = out.toString("utf8");
    if (hidden) {
      const before = text.length;
      text = text.replace(new RegExp(`<Contents><Key>[^<]*/_versions/${hidden.replace(/\./g, "\\.")}</Key>.*?</Contents>`, "g"), "");
      if (text.length !== before) // a store that does not show it: its KeyCount agrees
        text = text.replace(/<KeyCount>(\d+)<\/KeyCount>/, (_, n) => `<KeyCount>${Number(n) - 1}</KeyCount>`);
    }
    if (opt["listing-goes-back"] && url.searchParams.get("continuation-token")) {
      // the second page starts over: answer it with the first page again
      url.searchParams.delete("continuation-token");
      const first = await forward(req, undefined, { path: url.pathname + "?" + url.searchParams.toString() });
      text = first.body.toString("utf8");
    }
    out = Buffer.from(text, "utf8");
  }
  const headers = { ...r.headers };
  delete headers["transfer-encoding"];
  if (req.method !== "HEAD") headers["content-length"] = String(out.length); /* a HEAD says the object's length */
  if (req.method === "GET" && out.length > 1 && r.status < 300 && num("truncate-every") && ++gets % num("truncate-every") === 0) {
    res.writeHead(r.status, headers);
    res.write(out.subarray(0, out.length >> 1));
    setTimeout(() => res.socket && res.socket.destroy(), 10);
    return done(`${r.status} truncated`);
  }
  res.writeHead(r.status, headers);
  res.end(req.method === "HEAD" ? undefined : out);
  done(r.status);
}

server = http.createServer((req, res) => handle(req, res).catch(() => res.destroy()));
server.on("connection", (s) => {
  sockets.add(s);
  s.on("close", () => sockets.delete(s));
});
server.listen(0, "127.0.0.1", () => {
  const line = JSON.stringify({ endpoint: `http://127.0.0.1:${server.address().port}` });
  if (opt["port-file"]) fs.writeFileSync(opt["port-file"], line + "\n");
  console.log(line);
});
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
