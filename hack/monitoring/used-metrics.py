#!/usr/bin/python3
"""used-metrics.py - the metric names a Prometheus rules file (.yaml) or a
Grafana dashboard (.json) queries, one per line, sorted, each once.

    hack/monitoring/used-metrics.py FILE...

Reads every `expr` of a rule group, every panel target's `expr` (rows'
nested panels too) and every templating query; `label_values(NAME, ...)`
counts NAME. Histogram series keep their suffix (`_bucket`, `_sum`,
`_count`): the caller maps them to the family. Exit 1 with a message when
a file cannot be read or holds no query at all.
"""
import json
import re
import sys

import yaml

KEYWORDS = {"and", "or", "unless", "offset", "bool", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan"}
IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def names_in(expr):
    """Metric names in one PromQL expression."""
    e = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', expr)
    lv = re.findall(r"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[,)]", e)
    e = re.sub(r"label_values\([^)]*\)", " ", e)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)",
               " ", e)
    out = set(lv)
    for m in IDENT.finditer(e):
        word = m.group(0)
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or word.lower() in KEYWORDS:
            continue
        if m.start() > 0 and e[m.start() - 1] in "$.0123456789":
            continue  # a Grafana variable, a number's exponent or unit
        out.add(word)
    return out


def exprs_yaml(doc):
    for g in (doc or {}).get("groups", []):
        for r in g.get("rules", []):
            yield r["expr"]


def exprs_dashboard(doc):
    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                if "expr" in t:
                    yield t["expr"]
            yield from walk(p.get("panels", []))
    yield from walk(doc.get("panels", []))
    for v in doc.get("templating", {}).get("list", []):
        q = v.get("query")
        if v.get("type") == "query" and isinstance(q, str):
            yield q


def main(paths):
    names = set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                if path.endswith(".json"):
                    exprs = list(exprs_dashboard(json.load(f)))
                else:
                    exprs = list(exprs_yaml(yaml.safe_load(f)))
        except (OSError, ValueError, yaml.YAMLError, KeyError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 1
        if not exprs:
            print(f"{path}: no query found", file=sys.stderr)
            return 1
        for x in exprs:
            names |= names_in(x)
    for n in sorted(names):
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
