#!/usr/bin/env bash
# make.sh OUTDIR - write the hostile spec files that are too big to commit
# (each close to the 1 MiB limit) into OUTDIR. Each file's first line is
# `# expect: LINE:COL - MESSAGE`: the one error agentctl must report for it,
# checked by tests/integration/cli/test_corpus.sh and timed, before and
# after, by hack/bench/parse/run.sh. The shapes attack the parser's
# budgets (model/spec_node.h, docs/design.md "Limits"): the node budget
# is per file and never resets at `---`, and duplicate keys are found by
# sorting, so no shape below costs more than its size.
set -euo pipefail
out=${1:?usage: make.sh OUTDIR}
mkdir -p "$out"

# keys N WIDTH: N distinct lower-case keys of WIDTH letters, comma-joined
# ("aaa,aab,..."): a flow mapping of keys with null values, 1 byte per
# separator, the densest mapping YAML allows.
keys() {
    awk -v n="$1" -v w="$2" 'BEGIN {
        for (i = 0; i < n; i++) {
            k = ""; v = i
            for (j = 0; j < w; j++) { k = sprintf("%c", 97 + v % 26) k; v = int(v / 26) }
            printf "%s%s", (i ? "," : ""), k
        }
    }'
}

# The file of the hostile-input review: 21 documents of a 10,000-key flow
# mapping. The first document is already over the per-document budget
# (1 mapping + 10,000 keys + 10,000 values > 20,000): refused at the
# 10,000th key's value.
{
    echo "# expect: 2:40005 - document has too many nodes (limit 20000)"
    m=$(keys 10000 3)
    for _ in $(seq 21); do echo "--- {$m}"; done
} >"$out/issue-21x10000-keys.yaml"

# The same with 9,999 keys: every document fits its own budget (19,999
# nodes), the file does not (21 x 20,000). A budget that resets at `---`
# parses all 21.
{
    echo "# expect: 7:1 - file has too many nodes (limit 100000 in all its documents)"
    m=$(keys 9999 3)
    for _ in $(seq 21); do echo "--- {$m}"; done
} >"$out/docs-21x9999-keys.yaml"

# One document, one mapping of 200,000 keys (1,000,000 bytes).
{
    echo "# expect: 2:50001 - document has too many nodes (limit 20000)"
    echo "{$(keys 200000 4)}"
} >"$out/one-doc-200000-keys.yaml"

# Deep nesting, 1 MiB of it: refused at the 65th level.
{
    echo "# expect: 2:65 - nesting deeper than 64 levels"
    head -c 1000000 /dev/zero | tr '\0' '['
    echo
} >"$out/deep-1mib.yaml"

# Deep nesting in many documents, each 64 levels (within the depth
# limit): 7,000 documents of 65 nodes with the document.
{
    echo "# expect: 1540:34 - file has too many nodes (limit 100000 in all its documents)"
    d=$(printf '%64s' '' | tr ' ' '[')$(printf '%64s' '' | tr ' ' ']')
    for _ in $(seq 7000); do echo "--- $d"; done
} >"$out/docs-7000-deep.yaml"

# Many small documents summing over the budget: 2,500 mappings of 50 keys
# (102 nodes each with its document).
{
    echo "# expect: 982:139 - file has too many nodes (limit 100000 in all its documents)"
    m=$(keys 50 2 | sed 's/,/: 0, /g; s/$/: 0/')
    for _ in $(seq 2500); do echo "--- {$m}"; done
} >"$out/docs-2500-small.yaml"

# Empty documents are not free: each is a document and an empty scalar
# (libyaml's), 2 nodes. 200,000 of them.
{
    echo "# expect: 50002:1 - file has too many nodes (limit 100000 in all its documents)"
    awk 'BEGIN { for (i = 0; i < 200000; i++) print "---" }'
} >"$out/docs-200000-empty.yaml"
