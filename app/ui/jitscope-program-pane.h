/* JitscopeProgramPane: the program's graph text with a line-number gutter, open (file
 * chooser), paste from the clipboard, drag and drop of files or text, recent files
 * (GtkRecentManager), and parse errors shown at their line (red gutter number, underlined
 * line, the message under the text). Edits are parsed 300 ms after the last keystroke.
 *
 * Actions (program.*): open, paste (Ctrl+Shift+V), open-recent(s: URI), goto-error (Ctrl+G).
 * Signal "program-changed": after every parse (the workspace holds the graph or the error).
 * Signal "program-loaded": after "program-changed" when a whole new program came in (set,
 * opened, pasted, dropped), not after edits.
 * Signal "message" (s): something to tell the user (a file that cannot be opened). */
#ifndef JITSCOPE_PROGRAM_PANE_H
#define JITSCOPE_PROGRAM_PANE_H

#include <gtk/gtk.h>

#include "workspace.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_PROGRAM_PANE (jitscope_program_pane_get_type())
G_DECLARE_FINAL_TYPE(JitscopeProgramPane, jitscope_program_pane, JITSCOPE, PROGRAM_PANE, GtkBox)

/* The workspace whose program the pane edits (borrowed; it must outlive the pane's use). */
void jitscope_program_pane_set_workspace(JitscopeProgramPane *self, AppWorkspace *ws);
void jitscope_program_pane_set_program(JitscopeProgramPane *self, const char *text,
                                       const char *filename);
/* FALSE (and "message" with the reason) when the file cannot be read; the program stays. */
gboolean jitscope_program_pane_open_file(JitscopeProgramPane *self, const char *path);
/* Parses pending edits now. */
void jitscope_program_pane_flush(JitscopeProgramPane *self);
/* The parse error as shown, or NULL. */
const char *jitscope_program_pane_get_error(JitscopeProgramPane *self);

G_END_DECLS

#endif
