/* spec_jschema.h - spec.output.schema: the JSON Schema subset a result is
 * checked against (docs/status.md "result", docs/design.md).
 *
 * The subset, exactly: `type` (one of object, array, string, integer,
 * number, boolean, null), `properties`, `required`, `additionalProperties`
 * (a boolean or a schema), `items` (one schema), `enum` (scalars),
 * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers,
 * the 2020-12 form), `minLength`, `maxLength` (code points), `minItems`,
 * `maxItems`, and the annotations `description` and `title`. Anything
 * else is refused when the spec is loaded, so a rule can never be written
 * and silently not checked.
 *
 * Two halves: spec_jschema_check() reads the schema as YAML nodes (so an
 * error has its file:line:col) with its size and depth bounded; the
 * validator runs on the canonical JSON the controller keeps, against a
 * parsed result, and stops recursing where the schema stops (its depth is
 * bounded here), whatever the result's shape.
 */
#ifndef SPEC_JSCHEMA_H
#define SPEC_JSCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "spec_node.h"

#define SPEC_JSCHEMA_MAX_DEPTH  16   /* schemas inside schemas */
#define SPEC_JSCHEMA_MAX_NODES  2000 /* YAML nodes in one schema */
#define SPEC_JSCHEMA_MAX_ERRORS 10   /* validation errors kept */

/* Check the schema node n (the value of spec.output.schema; field is its
 * path in messages) against the subset and the bounds; each problem is
 * added to es as "file:line:col: spec.output.schema.<path>: problem".
 * Returns the number of errors added. */
size_t spec_jschema_check(const char *file, const struct spec_node *n,
                          const char *field, struct spec_errors *es);

/* Validate value against schema (a schema spec_jschema_check accepted,
 * as JSON). Every problem counts; the first max_kept are appended to
 * errors (when not NULL) as {"path": "$.files[2]", "message": "..."}.
 * Returns the number of problems (0 = valid). */
size_t spec_jschema_validate(const cJSON *schema, const cJSON *value,
                             cJSON *errors, size_t max_kept);

#endif
