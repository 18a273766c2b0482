"""Checks that the fuzzing run covered every operation of the OpenAPI document except the ones
tests/fuzz/schemathesis.toml turns off (each with its reason there), and prints the count.

    python3 coverage.py openapi.json schemathesis.toml report.json

Exits 1 when fewer operations ran than the document has minus those exclusions, or when an
exclusion is written so that schemathesis would read it more widely than it looks: schemathesis
ORs the filters of one `[[operations]]` entry (`include-path` with `include-method` turns off the
path AND every operation of that method), so an entry that turns operations off may name them by
one filter only (`include-name = "POST /api/x"` for one method of a path).
"""

import json
import sys
import tomllib

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
FILTERS = ("include-path", "include-method", "include-name", "include-operation-id")


def as_list(value):
    return value if isinstance(value, list) else [value]


def matches(entry, method, path, operation):
    """Whether an exclusion's one filter names this operation (exact values, as written)."""
    (key,) = [k for k in entry if k.startswith("include-") or k.startswith("exclude-")]
    values = as_list(entry[key])
    if key == "include-path":
        return path in values
    if key == "include-method":
        return method.upper() in [v.upper() for v in values]
    if key == "include-name":
        return f"{method.upper()} {path}" in values
    return operation.get("operationId") in values


def main(document_path, config_path, report_path):
    with open(document_path, encoding="utf-8") as f:
        document = json.load(f)
    with open(config_path, "rb") as f:
        config = tomllib.load(f)
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)

    exclusions = [e for e in config.get("operations", []) if e.get("enabled", True) is False]
    problems = []
    for entry in exclusions:
        filters = [k for k in entry if k.startswith("include-") or k.startswith("exclude-")]
        if len(filters) != 1 or filters[0] not in FILTERS:
            problems.append(
                f"an exclusion must name its operations with exactly one of {', '.join(FILTERS)}"
                f" (schemathesis ORs an entry's filters), not {filters}"
            )
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1

    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]
    excluded = [
        f"{m.upper()} {p}" for m, p, o in operations if any(matches(e, m, p, o) for e in exclusions)
    ]
    expected = len(operations) - len(excluded)
    tested = (report.get("operations") or {}).get("tested", 0)
    print(
        f"Fuzzed {tested} operations of the {len(operations)} the document lists; {expected}"
        f" expected: all but the {len(excluded)} tests/fuzz/schemathesis.toml turns off"
        f" ({', '.join(excluded)})."
    )
    if tested < expected:
        print(
            f"Only {tested} operations ran, but the document has {expected} that should"
            " (every operation but the named exclusions). Look for an [[operations]] entry"
            " that turns off more than it names, or a time budget too short for all of them.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
