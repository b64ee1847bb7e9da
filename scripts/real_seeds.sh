#!/usr/bin/env bash
# real_seeds.sh: seeds written by the released Lances themselves, for the
# fuzz corpora and the reader unit tests. Runs interop/make_seeds.mjs with
# each pinned release and copies a few small objects, byte for byte, to
# corpus/<target>/real-lance-<version>-<table>-<what>. Rerun it when a pinned
# release changes; the files it writes are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pick() { # target name file
  cp "$3" "corpus/$1/$2"
  echo "corpus/$1/$2 ($(stat -c %s "$3") bytes)"
}

# An earlier and a later manifest as one decode_manifest_after input: the
# earlier one's length (u32 LE), its bytes, the later one's.
pair() { # name earlier later
  python3 -c 'import struct, sys; a, b = (open(f, "rb").read() for f in sys.argv[2:4]); open(sys.argv[1], "wb").write(struct.pack("<I", len(a)) + a + b)' \
    "corpus/decode_manifest_after/$1" "$2" "$3"
  echo "corpus/decode_manifest_after/$1 ($(stat -c %s "corpus/decode_manifest_after/$1") bytes)"
}

for release in lance12:12.0.0 lance8:8.0.0; do
  dir=${release%%:*} version=${release#*:}
  [ -d "interop/$dir/node_modules/@lancedb/lancedb" ] ||
    { echo "real_seeds.sh: interop/$dir is not installed (npm install there)" >&2; exit 1; }
  node interop/make_seeds.mjs --release "$dir" --out "$work/$dir" 2>/dev/null
  for table in address stable; do
    t="$work/$dir/$table.lance" p="real-lance-$version-$table"
    pick decode_deletion_arrow "$p-3-deleted.arrow" "$(ls "$t"/_deletions/0-1-*.arrow)"
    pick decode_deletion_bin "$p-5103-deleted.bin" "$(ls "$t"/_deletions/0-2-*.bin)"
    # versions 2 (a delete), 6 (a compaction) and 7 (an index), V2 names
    pick decode_manifest "$p-v2-delete.manifest" "$t/_versions/18446744073709551613.manifest"
    pick decode_manifest "$p-v6-compaction.manifest" "$t/_versions/18446744073709551609.manifest"
    pick decode_manifest "$p-v7-index.manifest" "$t/_versions/18446744073709551608.manifest"
    # the later of two versions decoded beside the earlier: a compaction after
    # the deletes (little shared), an index after the compaction (all shared)
    pair "$p-v2-v6.pair" "$t/_versions/18446744073709551613.manifest" "$t/_versions/18446744073709551609.manifest"
    pair "$p-v6-v7.pair" "$t/_versions/18446744073709551609.manifest" "$t/_versions/18446744073709551608.manifest"
    # a transaction file is named after its read version; two may share one
    i=0
    for txn in "$t"/_transactions/*.txn; do
      n=$(basename "$txn"); i=$((i + 1))
      pick decode_transaction "$p-read-v${n%%-*}-$i.txn" "$txn"
    done
  done
done
