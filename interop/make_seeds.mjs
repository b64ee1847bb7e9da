// make_seeds.mjs: small files written by a released Lance, for the fuzz
// corpora and the reader unit tests (corpus/*/lance-<release>-*).
//   node interop/make_seeds.mjs --release lance12|lance8 --out OUT_DIR
// Writes two tiny tables into OUT_DIR (address row ids and stable row ids),
// each with a few-row delete (an .arrow deletion file) and a delete of more
// than 5,000 rows in one fragment (a .bin deletion file), an update and a
// compaction. scripts/real_seeds.sh picks the files out of them.
import { loadRelease, parseArgs } from "./lane_util.mjs";

const args = parseArgs("node interop/make_seeds.mjs --release lance12|lance8 --out OUT_DIR", { required: ["release", "out"] });
const { lancedb } = loadRelease(args.release);

const db = await lancedb.connect(args.out);
for (const stable of [false, true]) {
  const rows = Array.from({ length: 6000 }, (_, i) => ({ id: i, v: `v${i}` }));
  const t = await db.createTable(stable ? "stable" : "address", rows, {
    mode: "overwrite",
    storageOptions: stable ? { new_table_enable_stable_row_ids: "true" } : {},
  });
  await t.delete("id in (1, 5, 7)");
  await t.delete("id >= 100 and id < 5200");
  await t.update({ where: "id = 9", values: { v: "nine" } });
  await t.optimize();
  await t.createIndex("id"); // a btree: version 7 carries an index section
}
