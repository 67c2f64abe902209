/* A graph as JSON, for `print --format json`:
 *   GRAPH = {"inputs": [VALUE...], "nodes": [NODE...], "outputs": ["%name"...]}
 *   VALUE = {"name": "%x.1", "type": "Float(*, *)"}            (type as the printer writes it)
 *   NODE  = {"kind": "aten::add", "origin": 12, ["schema": "aten::add.Tensor(...) -> Tensor",]
 *            "inputs": ["%a", ...], "outputs": [VALUE...], "attributes": {NAME: ATTR...},
 *            "blocks": [GRAPH...], ["source": "file.py:3:12"]}
 * Block inputs and outputs use the GRAPH form. ATTR: ints (bools are ints in the IR),
 * floats (json_out.h rules), strings, arrays of these, tensors as json_out.h writes them,
 * graphs (Subgraph) as GRAPH. */
#ifndef JITSCOPE_APP_GRAPH_JSON_H
#define JITSCOPE_APP_GRAPH_JSON_H

#include <json-glib/json-glib.h>

#include "ir/ir.h"

JsonNode *app_graph_to_json(const IrGraph *graph);

#endif
