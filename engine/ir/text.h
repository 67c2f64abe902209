/* PyTorch's graph text (reference section 1): printer and parser.
 * print(parse(text)) is a fixed point for text the printer wrote; the parser also accepts
 * PyTorch 1.x prints (1.13 tensor types, source comments, `with ..._N = graph(...)` trailers)
 * and the early-2019 format (`) {`, `return (...);`, `}`). */
#ifndef JITSCOPE_IR_TEXT_H
#define JITSCOPE_IR_TEXT_H

#include "ir/ir.h"

/* Errors from the parser: domain JITSCOPE_PARSE_ERROR, message already "FILE:LINE:COL: error:
 * ..." so callers print it as is (prefixed by "jitscope: "). */
#define JITSCOPE_PARSE_ERROR (jitscope_parse_error_quark())
GQuark jitscope_parse_error_quark(void);

typedef struct {
  bool with_source_comments; /* "# file:line:col" after a node (default on) */
} IrPrintOptions;

/* Whole graph, subgraph attributes dumped as `with prim::X_N = graph(...)` trailers. */
void ir_graph_print(GString *out, const IrGraph *graph, const IrPrintOptions *options);
char *ir_graph_to_string(const IrGraph *graph); /* default options */
/* A 64-bit hash of everything ir_graph_print writes (value names and ids, types, kinds,
 * attribute values as printed, scopes, source comments, blocks and Subgraph bodies), made
 * without formatting: two graphs whose printed texts differ have different fingerprints
 * (but for a hash collision), so a caller that keeps the text of a graph may skip printing
 * an unchanged one. */
guint64 ir_graph_fingerprint(const IrGraph *graph);
/* The node's own line only (no blocks, no newline, subgraphs as Subgraph=<Graph>): what
 * verifier messages and inspectors show. */
void ir_node_print_line(GString *out, const IrNode *node);
/* PyTorch's IValue repr of a double ("1.", "0.5", "1.0000000000000001e-05", "inf", "nan"),
 * as constants print and prim::Print writes floats. */
void ir_format_double(GString *out, double d);

/* A graph file: one or more graphs (PyTorch's old expect files hold several), and the
 * parser's warnings ("FILE:LINE:COL: warning: ..."), one per op it kept opaque. */
typedef struct {
  GPtrArray *graphs;   /* IrGraph*, in text order, at least one */
  GPtrArray *warnings; /* char* */
} IrParsedFile;

/* Parses every graph of a file. `filename` is only used in messages. On error returns NULL
 * and sets *error. The trailers' bodies become the Subgraph attributes of the nodes named
 * prim::FusionGroup_N / prim::DifferentiableGraph_N. Schema ops resolve their overload; an
 * op outside the table, a Python op (`^f()`) or a node matching no overload becomes a
 * prim::Opaque node (ir_node_kind_name gives its text back) with a warning. */
IrParsedFile *ir_file_parse(const char *text, gsize length, const char *filename, GError **error);
void ir_parsed_file_free(IrParsedFile *file);
/* Takes graph `index` out of the file (its slot becomes NULL). */
IrGraph *ir_parsed_file_steal_graph(IrParsedFile *file, guint index);

/* The first graph of ir_file_parse, warnings dropped. */
IrGraph *ir_graph_parse(const char *text, gsize length, const char *filename, GError **error);

/* Parses one type in the text format's syntax (what ir_type_print writes, plus the early-2019
 * spellings), e.g. for command-line input specs. Errors as ir_graph_parse, file "<type>". */
const IrType *ir_type_parse(const char *text, gsize length, GError **error);

#endif
