#!/usr/bin/python3
"""check-structural.py - apply the API server's CRD admission rules to a
CustomResourceDefinition file, offline.

The rules are those of apiextensions-apiserver: the structural-schema
invariants and completeness (pkg/apiserver/schema/validation.go and
complete.go) and the parts of the CRD validation
(pkg/apis/apiextensions/validation/validation.go) that apply to one file:
known JSONSchemaProps keys, scope, names, printer columns,
x-kubernetes-validations shape, defaults valid against their schema.
Messages use the API server's field paths and wording so an error here
reads like the one `kubectl apply` would print. CEL rules are checked for
shape only (rule present, message when the rule has a line break); their
meaning is tested by the agentctl validator, which enforces the same rules.

Usage: check-structural.py CRD.yaml   (exit 0 admitted, 1 refused, 2 usage)
"""
import re
import sys

import jsonschema
import yaml

SCHEMA_KEYS = {
    "$ref", "$schema", "additionalItems", "additionalProperties", "allOf",
    "anyOf", "default", "definitions", "dependencies", "description",
    "enum", "example", "exclusiveMaximum", "exclusiveMinimum",
    "externalDocs", "format", "id", "items", "maxItems", "maxLength",
    "maxProperties", "maximum", "minItems", "minLength", "minProperties",
    "minimum", "multipleOf", "not", "nullable", "oneOf", "pattern",
    "patternProperties", "properties", "required", "title", "type",
    "uniqueItems", "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type", "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations",
}
# Keys a schema under anyOf/allOf/oneOf/not may not set (validation.go
# validateNestedValueValidation: "must be empty to be structural").
NESTED_FORBIDDEN = [
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
]
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
PRINTER_TYPES = {"integer", "number", "string", "boolean", "date"}
PRINTER_FORMATS = {"int32", "int64", "float", "double", "byte", "date",
                   "date-time", "password"}
DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


class Checker:
    def __init__(self):
        self.errors = []
        self.check_defaults = True

    def add(self, path, kind, msg):
        self.errors.append("%s: %s: %s" % (path, kind, msg))

    # -- structural invariants (validation.go validateStructuralInvariants)
    def structural(self, s, lvl, path):
        if not isinstance(s, dict):
            self.add(path, "Invalid value", "must be a schema object")
            return
        for k in s:
            if k not in SCHEMA_KEYS:
                self.add(path, "Invalid value",
                         'unknown field "%s"' % k)
        if s.get("type") == "array" and "items" not in s:
            self.add(path + ".items", "Required value", "must be specified")
        if "items" in s:
            self.structural(s["items"], "item", path + ".items")
        for k, v in s.get("properties", {}).items():
            self.structural(v, "field", "%s.properties[%s]" % (path, k))
        ap = s.get("additionalProperties")
        if ap is not None:
            if lvl == "root":
                self.add(path + ".additionalProperties", "Forbidden",
                         "must not be used at the root")
            if isinstance(ap, dict):
                self.structural(ap, "field", path + ".additionalProperties")
        ios = s.get("x-kubernetes-int-or-string", False)
        if ios and s.get("x-kubernetes-preserve-unknown-fields"):
            self.add(path + ".x-kubernetes-preserve-unknown-fields",
                     "Invalid value",
                     "must be false if x-kubernetes-int-or-string is true")
        if ios and s.get("x-kubernetes-embedded-resource"):
            self.add(path + ".x-kubernetes-embedded-resource",
                     "Invalid value",
                     "must be false if x-kubernetes-int-or-string is true")
        skip_any_of = s.get("anyOf") == INT_OR_STRING_ANY_OF
        all_of = s.get("allOf") or []
        skip_first_all_of = (len(all_of) >= 1 and isinstance(all_of[0], dict)
                             and all_of[0].get("anyOf") == INT_OR_STRING_ANY_OF)
        self.value_validation(s, skip_any_of, skip_first_all_of, path)
        embedded = s.get("x-kubernetes-embedded-resource", False)
        if not s.get("type") and not ios and \
                not s.get("x-kubernetes-preserve-unknown-fields"):
            where = {"root": "at the root",
                     "item": "for specified array items",
                     "field": "for specified object fields"}[lvl]
            self.add(path + ".type", "Required value",
                     "must not be empty " + where)
        if lvl == "root" and s.get("type") not in (None, "object"):
            self.add(path + ".type", "Invalid value", "must be object at the root")
        check_meta = lvl == "root" or embedded
        props = s.get("properties", {})
        for k in ("kind", "apiVersion"):
            if k in props and check_meta and props[k].get("type") != "string":
                self.add("%s.properties[%s].type" % (path, k),
                         "Invalid value", "must be string")
        if "metadata" in props:
            self.metadata(props["metadata"], check_meta, lvl,
                          path + ".properties[metadata]")

    def metadata(self, m, check_meta, lvl, path):
        if check_meta and m.get("type") != "object":
            self.add(path + ".type", "Invalid value", "must be object")
        if lvl != "root":
            return
        rest = {k: v for k, v in m.items()
                if k not in ("type", "default", "properties")}
        props = m.get("properties", {})
        if set(props) - {"name", "generateName"}:
            rest["properties"] = props
        if rest:
            self.add(path, "Forbidden",
                     "must not specify anything other than name and "
                     "generateName, but metadata is implicitly specified")

    def value_validation(self, v, skip_any_of, skip_first_all_of, path):
        if not skip_any_of:
            for i, b in enumerate(v.get("anyOf") or []):
                self.nested(b, False, "%s.anyOf[%d]" % (path, i))
        for i, b in enumerate(v.get("allOf") or []):
            self.nested(b, skip_first_all_of and i == 0,
                        "%s.allOf[%d]" % (path, i))
        for i, b in enumerate(v.get("oneOf") or []):
            self.nested(b, False, "%s.oneOf[%d]" % (path, i))
        if "not" in v:
            self.nested(v["not"], False, path + ".not")
        if "pattern" in v:
            try:
                re.compile(v["pattern"])
            except re.error as e:
                self.add(path + ".pattern", "Invalid value",
                         "must be a valid regular expression, but isn't: %s" % e)

    def nested(self, v, skip_any_of, path):
        if not isinstance(v, dict):
            self.add(path, "Invalid value", "must be a schema object")
            return
        self.value_validation(v, skip_any_of, False, path)
        if "items" in v:
            self.nested(v["items"], False, path + ".items")
        for k, f in (v.get("properties") or {}).items():
            self.nested(f, False, "%s.properties[%s]" % (path, k))
        for key, msg in NESTED_FORBIDDEN:
            if key in v and v[key] not in (False, None):
                self.add("%s.%s" % (path, key), "Forbidden", msg)
        if "metadata" in (v.get("properties") or {}):
            self.add(path + ".properties[metadata]", "Forbidden",
                     "must not be specified in a nested context")

    # -- completeness (complete.go): what a junctor names must exist
    def completeness(self, s, path):
        for kw in ("allOf", "anyOf", "oneOf"):
            for i, b in enumerate(s.get(kw) or []):
                self.complete_nested(b, s, path, "%s.%s[%d]" % (path, kw, i))
        if "not" in s:
            self.complete_nested(s["not"], s, path, path + ".not")
        for k, f in (s.get("properties") or {}).items():
            self.completeness(f, "%s.properties[%s]" % (path, k))
        if isinstance(s.get("items"), dict):
            self.completeness(s["items"], path + ".items")

    def complete_nested(self, v, s, spath, vpath):
        if s is None:
            self.add(spath, "Required value",
                     "because it is defined in " + vpath)
            return
        for kw in ("allOf", "anyOf", "oneOf"):
            for i, b in enumerate(v.get(kw) or []):
                self.complete_nested(b, s, spath, "%s.%s[%d]" % (vpath, kw, i))
        if "items" in v:
            self.complete_nested(v["items"], s.get("items"),
                                 spath + ".items", vpath + ".items")
        for k, f in (v.get("properties") or {}).items():
            sub = (s.get("properties") or {}).get(k)
            self.complete_nested(f, sub, "%s.properties[%s]" % (spath, k),
                                 "%s.properties[%s]" % (vpath, k))

    # -- CRD validation (validation.go) that needs only this file
    def schema_props(self, s, path):
        if not isinstance(s, dict):
            return
        if s.get("uniqueItems"):
            self.add(path + ".uniqueItems", "Forbidden",
                     "uniqueItems cannot be set to true since the runtime "
                     "complexity becomes quadratic")
        if "additionalProperties" in s and s.get("properties"):
            ap = s["additionalProperties"]
            if ap is not True:
                self.add(path + ".additionalProperties", "Forbidden",
                         "additionalProperties and properties are mutual "
                         "exclusive")
        if s.get("x-kubernetes-preserve-unknown-fields") is False:
            self.add(path + ".x-kubernetes-preserve-unknown-fields",
                     "Invalid value", "must be true or undefined")
        for i, rule in enumerate(s.get("x-kubernetes-validations") or []):
            rp = "%s.x-kubernetes-validations[%d]" % (path, i)
            if not isinstance(rule, dict) or not rule.get("rule"):
                self.add(rp + ".rule", "Required value", "rule is not specified")
            elif "\n" in rule["rule"] and not rule.get("message"):
                self.add(rp + ".message", "Required value",
                         "message must be specified if rule contains line "
                         "breaks")
        if "default" in s and self.check_defaults:
            self.default_ok(s, path)
        for kw in ("allOf", "anyOf", "oneOf"):
            for i, b in enumerate(s.get(kw) or []):
                self.schema_props(b, "%s.%s[%d]" % (path, kw, i))
        for k, f in (s.get("properties") or {}).items():
            self.schema_props(f, "%s.properties[%s]" % (path, k))
        for k in ("items", "additionalProperties", "not"):
            if isinstance(s.get(k), dict):
                self.schema_props(s[k], "%s.%s" % (path, k))

    def default_ok(self, s, path):
        """A default must validate against its own schema (the API server
        also prunes it; agentctl's schema has no preserve-unknown there).
        kube-openapi's validator refuses an integer under a format that is
        not a numeric one (found by hack/crd/apiserver-check.sh)."""
        fmt = s.get("format")
        if isinstance(s["default"], int) and fmt and \
                fmt not in ("int32", "int64", "float", "double"):
            self.add(path + ".default", "Invalid value",
                     '"int64": in body must be of type %s' % fmt)
        try:
            jsonschema.Draft4Validator(openapi_to_jsonschema(s)).validate(
                s["default"])
        except jsonschema.ValidationError as e:
            self.add(path + ".default", "Invalid value", e.message)

    def crd(self, doc):
        if doc.get("apiVersion") != "apiextensions.k8s.io/v1" or \
                doc.get("kind") != "CustomResourceDefinition":
            self.add("apiVersion", "Invalid value",
                     "expected apiextensions.k8s.io/v1 CustomResourceDefinition")
            return
        spec = doc.get("spec", {})
        names = spec.get("names", {})
        group = spec.get("group", "")
        want = "%s.%s" % (names.get("plural", ""), group)
        if doc.get("metadata", {}).get("name") != want:
            self.add("metadata.name", "Invalid value",
                     'must be spec.names.plural+"."+spec.group')
        if spec.get("scope") not in ("Cluster", "Namespaced"):
            self.add("spec.scope", "Unsupported value",
                     'supported values: "Cluster", "Namespaced"')
        for k in ("plural", "singular", "kind", "listKind"):
            if not names.get(k):
                self.add("spec.names." + k, "Required value", "")
        for i, sn in enumerate(names.get("shortNames") or []):
            if not DNS1035.match(sn):
                self.add("spec.names.shortNames[%d]" % i, "Invalid value",
                         "must be a DNS-1035 label")
        versions = spec.get("versions") or []
        if sum(1 for v in versions if v.get("storage")) != 1:
            self.add("spec.versions", "Invalid value",
                     "must have exactly one version marked as storage version")
        for i, v in enumerate(versions):
            vp = "spec.versions[%d]" % i
            for j, col in enumerate(v.get("additionalPrinterColumns") or []):
                self.column(col, "%s.additionalPrinterColumns[%d]" % (vp, j))
            schema = (v.get("schema") or {}).get("openAPIV3Schema")
            if schema is None:
                self.add(vp + ".schema.openAPIV3Schema", "Required value",
                         "schemas are required")
                continue
            sp = vp + ".schema.openAPIV3Schema"
            before = len(self.errors)
            self.structural(schema, "root", sp)
            self.completeness(schema, sp)
            # as the API server: defaults are checked on a structural
            # schema only
            self.check_defaults = len(self.errors) == before
            self.schema_props(schema, sp)

    def column(self, col, path):
        if not col.get("name"):
            self.add(path + ".name", "Required value", "")
        if col.get("type") not in PRINTER_TYPES:
            self.add(path + ".type", "Invalid value", "must be one of " +
                     ",".join(sorted(PRINTER_TYPES)))
        if col.get("format") and col["format"] not in PRINTER_FORMATS:
            self.add(path + ".format", "Invalid value", "must be one of " +
                     ",".join(sorted(PRINTER_FORMATS)))
        if not str(col.get("jsonPath", "")).startswith("."):
            self.add(path + ".JSONPath", "Invalid value",
                     "must be a simple json path starting with .")
        if "priority" in col and not isinstance(col["priority"], int):
            self.add(path + ".priority", "Invalid value", "must be an integer")


def openapi_to_jsonschema(s):
    """The CRD's OpenAPI v3 schema read as JSON Schema draft 4: the
    Kubernetes extensions are ignored as unknown keywords, and an
    int-or-string node accepts either type, as the API server does."""
    if isinstance(s, dict):
        out = {k: openapi_to_jsonschema(v) for k, v in s.items()
               if not k.startswith("x-kubernetes-") and k != "default"}
        if s.get("x-kubernetes-int-or-string") and "type" not in s:
            out.setdefault("anyOf", INT_OR_STRING_ANY_OF)
        if "properties" in s:
            out["properties"] = {k: openapi_to_jsonschema(v)
                                 for k, v in s["properties"].items()}
        return out
    if isinstance(s, list):
        return [openapi_to_jsonschema(x) for x in s]
    return s


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: check-structural.py CRD.yaml\n")
        return 2
    with open(argv[1]) as f:
        doc = yaml.safe_load(f)
    c = Checker()
    c.crd(doc)
    for e in sorted(c.errors):
        print("%s: %s" % (argv[1], e))
    if c.errors:
        print("%s: refused: %d error%s" % (argv[1], len(c.errors),
                                           "" if len(c.errors) == 1 else "s"))
        return 1
    print("%s: structural, admitted by the published rules" % argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
