/* The syntax tree's memory (contract in ast.h): one owner for every node of a file. */
#include "script/ast.h"

ScriptTree *script_tree_new(void) {
  ScriptTree *tree = g_new0(ScriptTree, 1);
  tree->allocated = g_ptr_array_new_with_free_func(g_free);
  tree->arrays = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  tree->strings = g_string_chunk_new(1024);
  tree->defs = script_tree_array(tree);
  return tree;
}

void script_tree_free(ScriptTree *tree) {
  if (tree == NULL)
    return;
  g_ptr_array_unref(tree->allocated);
  g_ptr_array_unref(tree->arrays);
  g_string_chunk_free(tree->strings);
  g_free(tree);
}

gpointer script_tree_alloc(ScriptTree *tree, gsize size) {
  gpointer p = g_malloc0(size);
  g_ptr_array_add(tree->allocated, p);
  return p;
}

GPtrArray *script_tree_array(ScriptTree *tree) {
  GPtrArray *a = g_ptr_array_new();
  g_ptr_array_add(tree->arrays, a);
  return a;
}

const char *script_tree_intern(ScriptTree *tree, const char *text) {
  return g_string_chunk_insert_const(tree->strings, text);
}
