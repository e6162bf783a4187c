/* cli_explain_desc.c - the description `agentctl explain` prints for a
 * node of the CRD's schema (cli.h). The CRD describes every node but one:
 * an API server allows nothing but `name` (and generateName) in the root
 * `metadata`, a description included (tests/integration/crd's structural
 * check), so that node's text lives here, as kubectl's comes from
 * ObjectMeta. tests/unit/test_crd_descriptions.c checks that every node
 * has one. */
#include "cli.h"

#include <string.h>

#include "spec_node.h"

static const char metadata_desc[] =
    "Standard object metadata. agentctl reads the name only, and keeps "
    "uid, generation and creationTimestamp itself (get -o json shows "
    "them; a name applied again after its deletion is a new object).";

const char *
cli_explain_description(const struct spec_node *root,
                        const struct spec_node *node)
{
    const struct spec_node *d = spec_node_get(node, "description");

    if (d != NULL && d->kind == SPEC_NODE_SCALAR && d->value[0] != '\0')
        return d->value;
    if (node != NULL &&
        node == spec_node_get(spec_node_get(root, "properties"), "metadata"))
        return metadata_desc;
    return NULL;
}
