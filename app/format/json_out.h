/* JSON for the command line's --json output, built with json-glib.
 *
 * A tensor is {"dtype": "float32", "shape": [5, 5], "data": [...]} with the data row-major.
 * Numbers: floating-point values are written with 17 significant digits, so that reading
 * them back as a double gives exactly the value computed (for float32 tensors: exactly the
 * float32 value); NaN and infinities, which JSON cannot write as numbers, are the strings
 * "nan", "inf" and "-inf". int64 values are JSON integers, bools are true/false.
 * Other values: int and float scalars are numbers, bools true/false, None and undefined
 * tensors null, strings strings, devices "cpu"/"cuda", lists and tuples arrays. */
#ifndef JITSCOPE_APP_JSON_OUT_H
#define JITSCOPE_APP_JSON_OUT_H

#include <json-glib/json-glib.h>

#include "runtime/value.h"

JsonNode *json_out_double(double v);
/* NULL tensor: null; device tensors through a host copy ({"data": null, "error": WHY} when
 * the copy fails). */
JsonNode *json_out_tensor(const RtTensor *t);
JsonNode *json_out_value(RtValue v);

/* Members of the object `b` is building: the name, then the value. A NULL string is null. */
void json_out_member_string(JsonBuilder *b, const char *name, const char *value);
void json_out_member_int(JsonBuilder *b, const char *name, gint64 value);
void json_out_member_bool(JsonBuilder *b, const char *name, bool value);
void json_out_member_value(JsonBuilder *b, const char *name, JsonNode *value); /* takes value */
void json_out_member_strings(JsonBuilder *b, const char *name, GPtrArray *strings);

/* The document `b` built, with `b` released. */
JsonNode *json_out_builder_finish(JsonBuilder *b);

/* The document as one line of JSON (g_free it); numbers always parse: json-glib's "2e+30.0"
 * for large and tiny doubles is written "2e+30". */
char *json_out_to_text(JsonNode *root);
/* Writes the document on stdout as one line followed by a newline, and frees it. */
void json_out_print(JsonNode *root);

/* Reads a number written by json_out_double back ("nan", "inf", "-inf" included); false
 * when the node is neither. */
bool json_out_read_double(JsonNode *node, double *out);

#endif
