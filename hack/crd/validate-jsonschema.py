#!/usr/bin/python3
"""validate-jsonschema.py - validate YAML specs against the CRD's
openAPIV3Schema with an independent JSON-Schema validator (Debian's
python3-jsonschema, draft 4, the dialect OpenAPI v3 schemas are written in:
`exclusiveMinimum` is a boolean there).

The schema is used as the CRD has it, with one addition: every object with
`properties` and no `additionalProperties` refuses unknown fields, as the
API server's strict field validation (kubectl's default) does; root
`metadata` is ObjectMeta, which the API server checks itself. The
Kubernetes extensions (x-kubernetes-*) and the formats agentctl names are
unknown to the validator and ignored, so CEL rules are not evaluated here.

Usage: validate-jsonschema.py CRD.yaml FILE...
Prints one line per document: "FILE[#N]: valid" or "FILE[#N]: invalid:
PATH: MESSAGE". Exit 0 when every document is valid, 1 otherwise, 2 usage
or a file that is not YAML.
"""
import sys

import jsonschema
import yaml


def strict(s, root=True):
    """Unknown fields refused, except in root metadata: that is ObjectMeta,
    which the API server checks itself (labels, annotations, ...)."""
    if isinstance(s, dict):
        out = {k: strict(v, False) for k, v in s.items()}
        if root and "metadata" in s.get("properties", {}):
            out["properties"]["metadata"] = s["properties"]["metadata"]
        if "properties" in s and "additionalProperties" not in s and \
                not s.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
        return out
    if isinstance(s, list):
        return [strict(x, False) for x in s]
    return s


def crd_schema(path):
    with open(path) as f:
        crd = yaml.safe_load(f)
    (version,) = [v for v in crd["spec"]["versions"] if v.get("storage")]
    return strict(version["schema"]["openAPIV3Schema"])


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: validate-jsonschema.py CRD.yaml FILE...\n")
        return 2
    schema = crd_schema(argv[1])
    jsonschema.Draft4Validator.check_schema(schema)
    validator = jsonschema.Draft4Validator(schema)
    bad = 0
    for path in argv[2:]:
        try:
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            print("%s: not YAML: %s" % (path, str(e).splitlines()[0]))
            return 2
        for i, doc in enumerate(docs):
            name = path if len(docs) == 1 else "%s#%d" % (path, i + 1)
            errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            if not errs:
                print("%s: valid" % name)
                continue
            bad += 1
            e = errs[0]
            where = ".".join(str(p) for p in e.path) or "<root>"
            print("%s: invalid: %s: %s" % (name, where, e.message))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
