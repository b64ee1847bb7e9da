#!/usr/bin/python3
"""check_schema.py: validate JSON documents against a JSON Schema, for the
schemas of conformance/schema/ (draft 2020-12), with Debian's
python3-jsonschema (scripts/deps.sh installs it for Debian's /usr/bin/python3,
hence the interpreter above: run the script itself, not `python3 script`).

    check_schema.py SCHEMA FILE_OR_DIR...          every document must be valid
    check_schema.py --expect-invalid SCHEMA FILE...  every document must be invalid

A directory stands for its *.json files. The schema must declare draft
2020-12 and be valid under it. One check jsonschema does not make: a schema
keyword the draft does not define (a typo such as "requried") is refused,
because the draft says to ignore it and a misspelt constraint would then pass
every document silently. It is independent of lfa's own readers on purpose:
the scenario parser is what the schema checks against.
Exit 0 when every document is as expected, 1 otherwise, 2 on bad usage or
a schema it cannot use.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("check_schema: needs python3-jsonschema for /usr/bin/python3 (bash scripts/deps.sh installs it)",
          file=sys.stderr)
    sys.exit(2)

DRAFT = "https://json-schema.org/draft/2020-12/schema"
VALIDATOR = jsonschema.Draft202012Validator
# Keywords 2020-12 defines beside those jsonschema keys its assertions by
# (VALIDATOR.VALIDATORS): then and else (applied by "if"), core and annotations.
ANNOTATIONS = {"then", "else", "$schema", "$id", "$defs", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary",
               "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
               "contentEncoding", "contentMediaType", "contentSchema"}
ONE = ("additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
       "unevaluatedItems", "unevaluatedProperties", "contentSchema")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "$defs", "dependentSchemas")


def unknown_keywords(schema, where):
    """Where a keyword 2020-12 does not define is used, as 'where: keyword' strings."""
    if not isinstance(schema, dict):
        return []
    found = [f"{where}: {k!r}" for k in schema if k not in VALIDATOR.VALIDATORS and k not in ANNOTATIONS]
    for k in ONE:
        if k in schema:
            found += unknown_keywords(schema[k], f"{where}/{k}")
    for k in MANY:
        for i, sub in enumerate(schema.get(k, [])):
            found += unknown_keywords(sub, f"{where}/{k}/{i}")
    for k in NAMED:
        for name, sub in schema.get(k, {}).items():
            found += unknown_keywords(sub, f"{where}/{k}/{name}")
    return found


def load_validator(path):
    """A validator for the schema at path, or raises ValueError saying why not."""
    with open(path) as f:
        schema = json.load(f)
    if not isinstance(schema, dict) or schema.get("$schema") != DRAFT:
        raise ValueError(f"the schema must declare \"$schema\": \"{DRAFT}\"")
    try:
        VALIDATOR.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ValueError(f"not a valid 2020-12 schema at {'/'.join(map(str, e.path)) or '#'}: {e.message}")
    unknown = unknown_keywords(schema, "#")
    if unknown:
        raise ValueError(f"keyword not defined by 2020-12 (a typo?): {'; '.join(unknown)}")
    return VALIDATOR(schema)


def errors(validator, path):
    """Every error of the document at path, in document order, as one line; None when valid."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as x:
        return f"not JSON: {x}"
    found = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    if not found:
        return None
    return f"{len(found)} error(s): " + "; ".join(f"{e.json_path}: {e.message[:200]}" for e in found)


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
        v = load_validator(args[0])
    except (OSError, ValueError) as e:
        print(f"check_schema: {args[0]}: {e}", file=sys.stderr)
        return 2
    bad = n = 0
    for path in documents(args[1:]):
        n += 1
        e = errors(v, path)
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
