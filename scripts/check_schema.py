#!/usr/bin/env python3
"""check_schema.py: validate JSON documents against a JSON Schema (draft
2020-12), for the schemas of conformance/schema/.

    check_schema.py SCHEMA FILE_OR_DIR...          every document must be valid
    check_schema.py --expect-invalid SCHEMA FILE...  every document must be invalid

A directory stands for its *.json files. It implements the keywords those
schemas use, and refuses a schema with any other keyword, so a keyword it
does not know can never pass silently: $schema $id $ref $defs title
description type enum const required properties additionalProperties
propertyNames minProperties items minItems uniqueItems minimum maximum
minLength pattern anyOf allOf if then. It is independent of lfa's own
readers on purpose: the scenario parser is what the schema checks against.
Exit 0 when every document is as expected, 1 otherwise, 2 on bad usage or
a schema it cannot read.
"""
import json
import os
import re
import sys

KNOWN = {"$schema", "$id", "$ref", "$defs", "title", "description", "type", "enum", "const", "required",
         "properties", "additionalProperties", "propertyNames", "minProperties", "items", "minItems",
         "uniqueItems", "minimum", "maximum", "minLength", "pattern", "anyOf", "allOf", "if", "then"}


class SchemaError(Exception):
    pass


def is_type(value, name):
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    if name == "null":
        return value is None
    kinds = {"integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list, "string": str}
    return isinstance(value, kinds[name])


def same(a, b):
    """JSON equality: 1 and true differ, 1 and 1.0 do not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


class Validator:
    def __init__(self, root):
        self.root = root
        self.check_keywords(root, "#")

    def check_keywords(self, schema, where):
        if isinstance(schema, bool):
            return
        if not isinstance(schema, dict):
            raise SchemaError(f"{where}: a schema is an object or a boolean")
        for k in schema:
            if k not in KNOWN:
                raise SchemaError(f"{where}: keyword {k!r} is not implemented here")
        for k in ("properties", "$defs"):
            for name, sub in schema.get(k, {}).items():
                self.check_keywords(sub, f"{where}/{k}/{name}")
        for k in ("additionalProperties", "propertyNames", "items", "if", "then"):
            if k in schema:
                self.check_keywords(schema[k], f"{where}/{k}")
        for k in ("anyOf", "allOf"):
            for i, sub in enumerate(schema.get(k, [])):
                self.check_keywords(sub, f"{where}/{k}/{i}")

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise SchemaError(f"$ref {ref!r}: only local references are implemented")
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def errors(self, v, s, path):
        """The first error of value v under schema s, or None."""
        if s is True:
            return None
        if s is False:
            return f"{path}: no value is allowed here"
        if "$ref" in s:
            e = self.errors(v, self.resolve(s["$ref"]), path)
            if e:
                return e
        if "type" in s:
            names = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(is_type(v, n) for n in names):
                return f"{path}: {json.dumps(v)[:60]} is not of type {'/'.join(names)}"
        if "enum" in s and not any(same(v, x) for x in s["enum"]):
            return f"{path}: {json.dumps(v)[:60]} is not one of {s['enum']}"
        if "const" in s and not same(v, s["const"]):
            return f"{path}: {json.dumps(v)[:60]} is not {json.dumps(s['const'])}"
        for check in (self.object_errors, self.array_errors, self.scalar_errors, self.combined_errors):
            e = check(v, s, path)
            if e:
                return e
        return None

    def object_errors(self, v, s, path):
        if not isinstance(v, dict):
            return None
        for k in s.get("required", []):
            if k not in v:
                return f"{path}: required key {k!r} is missing"
        if len(v) < s.get("minProperties", 0):
            return f"{path}: needs at least {s['minProperties']} keys"
        props = s.get("properties", {})
        other = s.get("additionalProperties", True)
        for k, x in v.items():
            if k in props:
                e = self.errors(x, props[k], f"{path}.{k}")
            else:
                e = f"{path}: key {k!r} is not allowed" if other is False else self.errors(x, other, f"{path}.{k}")
            if e:
                return e
            if "propertyNames" in s:
                e = self.errors(k, s["propertyNames"], f"{path} (key {k!r})")
                if e:
                    return e
        return None

    def array_errors(self, v, s, path):
        if not isinstance(v, list):
            return None
        if len(v) < s.get("minItems", 0):
            return f"{path}: needs at least {s['minItems']} items"
        if s.get("uniqueItems"):
            seen = [json.dumps(x, sort_keys=True) for x in v]
            if len(set(seen)) != len(seen):
                return f"{path}: items are not unique"
        for i, x in enumerate(v):
            e = self.errors(x, s.get("items", True), f"{path}[{i}]")
            if e:
                return e
        return None

    def scalar_errors(self, v, s, path):
        if is_type(v, "number"):
            if "minimum" in s and v < s["minimum"]:
                return f"{path}: {v} is below {s['minimum']}"
            if "maximum" in s and v > s["maximum"]:
                return f"{path}: {v} is above {s['maximum']}"
        if isinstance(v, str):
            if len(v) < s.get("minLength", 0):
                return f"{path}: shorter than {s['minLength']}"
            if "pattern" in s and not re.search(s["pattern"], v):
                return f"{path}: {v[:60]!r} does not match {s['pattern']}"
        return None

    def combined_errors(self, v, s, path):
        for i, sub in enumerate(s.get("allOf", [])):
            e = self.errors(v, sub, path)
            if e:
                return e
        if "anyOf" in s:
            found = [self.errors(v, sub, path) for sub in s["anyOf"]]
            if all(found):
                return f"{path}: matches none of anyOf ({'; '.join(found)})"
        if "if" in s and self.errors(v, s["if"], path) is None and "then" in s:
            return self.errors(v, s["then"], path)
        return None


def documents(args):
    for a in args:
        if os.path.isdir(a):
            yield from sorted(os.path.join(a, n) for n in os.listdir(a) if n.endswith(".json"))
        else:
            yield a


def main(argv):
    expect_invalid = argv[1:2] == ["--expect-invalid"]
    args = argv[2:] if expect_invalid else argv[1:]
    if len(args) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        with open(args[0]) as f:
            v = Validator(json.load(f))
    except (OSError, ValueError, SchemaError) as e:
        print(f"check_schema: {args[0]}: {e}", file=sys.stderr)
        return 2
    bad = n = 0
    for path in documents(args[1:]):
        n += 1
        try:
            with open(path) as f:
                e = v.errors(json.load(f), v.root, "$")
        except (OSError, ValueError) as x:
            e = f"not JSON: {x}"
        if expect_invalid and e is None:
            bad += 1
            print(f"{path}: valid, but it was planted to be invalid")
        elif expect_invalid:
            print(f"{path}: invalid as planted: {e}")
        elif e is not None:
            bad += 1
            print(f"{path}: {e}")
    if n == 0:
        print("check_schema: no document given", file=sys.stderr)
        return 2
    print(f"check_schema: {n} documents, {bad} not as expected ({os.path.basename(args[0])})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
