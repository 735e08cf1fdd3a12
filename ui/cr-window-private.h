/* cr-window-private.h — what the window's files share: the instance struct
 * and the entry points of cr-window-run.c (the worker, the debounce and the
 * error display) and cr-window-stepper.c (the stepper, its keys, play and the
 * test state file). Not installed; only ui/cr-window*.c include it. */
#pragma once

#include "cr-window.h"
#include "cr-graph-model.h"

G_BEGIN_DECLS

struct _CrWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwHeaderBar         *header_bar;
  AdwWindowTitle       *title;
  GtkToggleButton      *gallery_button;
  GtkToggleButton      *editor_button;
  GtkDropDown          *device_dropdown;
  GtkDropDown          *call_dropdown;
  GtkMenuButton        *menu_button;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *main_stack;
  GtkScrolledWindow    *gallery_scroller;
  GtkPaned             *outer_paned;
  GtkPaned             *inner_paned;
  GtkWidget            *editor_column;
  GtkWidget            *editor_switcher_bar;
  GtkStack             *editor_stack;
  GtkSourceView        *source_view;
  GtkRevealer          *error_revealer;
  GtkLabel             *error_label;
  GtkBox               *expression_box;
  GtkToggleButton      *output_toggle;
  GtkImage             *output_arrow;
  GtkRevealer          *output_revealer;
  GtkWidget            *output_scroller;
  GtkTextView          *output_view;
  CrGraphCanvas        *canvas;
  GtkWidget            *empty_page;
  GtkWidget            *stepper_bar;
  GtkWidget            *zoom_bar;         /* in the stepper's bar */
  GtkWidget            *depth_bar;        /* the depth control's, top right */
  GtkWidget            *stepper_buttons;
  GtkButton            *play_button;
  GtkMenuButton        *speed_button;
  GtkLabel             *step_label;
  GtkButton            *zoom_fit_button;
  GtkRevealer          *hint_revealer;
  GtkWidget            *present_header;  /* presentation: the step's label, the hint */
  GtkRevealer          *running_revealer;
  GtkSpinner           *running_spinner;
  GtkWidget            *sidebar;
  GtkStack             *sidebar_stack;
  GtkScrolledWindow    *step_scroller;
  GtkScrolledWindow    *node_scroller;

  /* Made in code (the other helpers' widgets) */
  GtkWidget            *gallery;
  GtkWidget            *expression_panel;
  GtkWidget            *step_card;
  GtkWidget            *inspector;

  /* Owned */
  GFile                *file;
  GSettings            *settings;
  GPtrArray            *models;          /* of CrGraphModel* from the last shown run, one per
                                          * backward call (or its forward graph); NULL until
                                          * shown: built from run_record when picked */
  guint                 model_index;     /* the one on the canvas */
  CrRunRecord          *run_record;      /* the last shown run's record, or NULL */
  GtkCssProvider       *scale_css;       /* the editor's text zoom, presentation's scale */
  double                editor_zoom;     /* 1.0 = the editor's normal text size */
  char                 *pending_open;    /* an example to open once unsaved changes are settled */
  char                 *pending_script;  /* an expression's script, likewise */

  /* The run (cr-window-run.c) */
  guint                 run_timeout_id;
  gboolean              running;
  gboolean              rerun;
  gint                 *cancel_flag;     /* the running job's; shared with it */
  GCancellable         *cancellable;     /* cancelled when the window goes */
  gint64                run_started_us;
  guint                 run_limit_id;    /* ends the run when it takes too long */
  guint                 run_time_limit_s; /* how long (tests shorten it) */
  gint64                last_run_us;     /* how long the last run took, to pace the next */
  gint64                last_edit_us;
  gboolean              model_from_editor; /* spans refer to the editor's text */
  gint64                scroll_until;     /* the editor's scroll to a line follows its
                                           * lines' measures until then (cr-window.c) */
  gboolean              scroll_follows;   /* watching them */
  gboolean              in_error;        /* the error of the latest run is shown */
  guint                  n_runs_shown;   /* results shown so far (the state file says it) */
  guint                 error_timeout_id;
  guint                 busy_timeout_id;  /* shows "Running…" when a run is slow */
  gpointer              pending_error;   /* RunJob* in error, waiting to be shown */

  /* The stepper (cr-window-stepper.c) */
  guint                 play_timeout_id;
  guint                 hint_timeout_id;
  gboolean              output_was_open; /* before presentation mode */
  gboolean              editor_was_hidden; /* likewise */
  gboolean              syncing;         /* guards editor <-> graph feedback */

  /* The panes follow the window's size until the person drags a handle. */
  int                   outer_set, inner_set;   /* the positions we gave them */
  gboolean              outer_moved, inner_moved;
  /* Their max-position when we set them: a position that changes with the
   * max-position is GTK's resize (an outer handle that moved), not a drag. */
  int                   outer_max_set, inner_max_set;
  /* The sidebar's width as the person dragged it: it comes back after a
   * card wider than that has widened the sidebar for its step. */
  int                   sidebar_dragged;

  /* A leaf's paths walked on the graph (cr-window-paths.c; owned) */
  struct _CrWindowPaths *paths;

  /* The sidebar's Training page (cr-window-training.c; a CrTrainingView, borrowed) */
  GtkWidget            *training_view;

  /* Ctrl+drag on a number in the editor (cr-editor-scrub.h; owned). While
   * it drags, a run goes on to its result and the latest text runs after
   * it (run_again) rather than cancelling it: the graph follows the drag. */
  struct _CrEditorScrub *scrub;
  gboolean              scrubbing;
  gboolean              run_again;
};

/* cr-window-run.c */
void     cr_window_run_init          (CrWindow   *self);
void     cr_window_run_dispose       (CrWindow   *self);
/* The editor or the expression changed: run again after a pause. */
void     cr_window_schedule_run      (CrWindow   *self);
/* Shows model `index` of the last run on the canvas. */
void     cr_window_show_model        (CrWindow   *self,
                                      guint       index);

/* cr-window-stepper.c */
void     cr_window_stepper_init      (CrWindow   *self);
void     cr_window_stepper_dispose   (CrWindow   *self);
/* Whether the focused widget takes the arrow keys itself: text (the
 * editor, an entry), a range or a slider (the Training page's loss
 * curve), a grid of cells (its element picker). The window's own uses of
 * them (stepping, a path walk, Practice's reveal) give way to it. */
gboolean cr_window_focus_takes_arrows (CrWindow  *self);
/* Whether the focus is in a popover (a leaf's editor on the graph): its
 * Escape closes it and "." is typed. */
gboolean cr_window_focus_in_popover   (CrWindow  *self);
/* Enabled states, the step label, the step card and the editor's step line. */
void     cr_window_update_step       (CrWindow   *self);
void     cr_window_write_state       (CrWindow   *self);
void     cr_window_stop_playing      (CrWindow   *self);
/* The backward-call picker's row for model: "#3 · loss.backward() · line 23
 * · iteration 3" (new string). */
char    *cr_window_call_title        (const CrGraphModel *model);

/* cr-window-errors.c */
/* Marks the lines of the shown run's errors in the editor (the raising line,
 * an in-place error's culprit statement); clears them when there are none. */
void     cr_window_pin_errors        (CrWindow   *self);
/* The mistakes coach's findings of the run shown: lines tinted, the bar
 * under the editor with the fix (cr-window-coach.c). */
void     cr_window_pin_findings      (CrWindow   *self);
/* Whether the coach's bar shows a finding; its Fix button, for tests. */
gboolean cr_window_coach_shown        (CrWindow   *self);
void     cr_window_coach_apply_fix    (CrWindow   *self);
/* Its Compare button: the shown finding's fix run in the background, the
 * script left as it is, then shown beside the original (for tests). */
void     cr_window_coach_compare_fix  (CrWindow   *self);

/* The stepper's label, "Backward 3 of 12 · AddBackward0" (and the card's part). */
void     cr_window_update_step_label (CrWindow   *self);

/* cr-window-present.c: presentation with a clicker */
/* The page-forward and page-back actions (Page Down / Page Up): in
 * presentation they read the step card in parts before they step. */
void     cr_window_present_init      (CrWindow   *self);
/* Appends " · part 2 of 3" to text in presentation when the card is long. */
void     cr_window_append_card_part  (CrWindow   *self,
                                      GString    *text);
/* Scrolls the step card to its top (a new step is read from there). */
void     cr_window_show_card_top     (CrWindow   *self);
/* A clicker's blank screen (b, period): black until pressed again, a step
 * or the end of presentation. Only in presentation. */
gboolean cr_window_get_blanked       (CrWindow   *self);
void     cr_window_set_blanked       (CrWindow   *self,
                                      gboolean    blanked);

/* cr-window-check.c: "Check Gradients Numerically" (`chainrule check` in a
 * child, its table in a window). */
void     cr_window_check_init        (CrWindow   *self);

/* cr-window-handout.c: "Export Handout…" (win.export-handout), the
 * handout PDF of the call shown (render/cr-handout.h). */
void     cr_window_handout_init      (CrWindow   *self);
/* Writes it to path; FALSE with error (no graph, a file not written). */
gboolean cr_window_export_handout    (CrWindow   *self,
                                      const char *path,
                                      guint      *n_pages,
                                      GError    **error);
/* The same with the dialog's choices: every_call, the backward calls
 * cr_handout_default_calls picks (FALSE: the call shown); practice, a
 * question page before each step that asks. */
gboolean cr_window_export_handout_full (CrWindow   *self,
                                        const char *path,
                                        gboolean    every_call,
                                        gboolean    practice,
                                        guint      *n_pages,
                                        GError    **error);

/* cr-window-scalars.c: "Inside one tensor op", its scalar graph over the
 * graph (cr-scalar-view.h). */
void     cr_window_scalars_init      (CrWindow   *self);
/* Opens op (index in the shown record's ops) as scalars; FALSE with why. */
gboolean cr_window_open_scalars      (CrWindow   *self,
                                      int         op,
                                      GError    **error);
/* The view, NULL until first opened (a CrScalarView). */
struct _CrScalarView *cr_window_get_scalar_view (CrWindow *self);

/* cr-window-practice.c: Practice, predict then reveal (win.practice,
 * win.practice-harder), the score in the header, the clicker's reveal. */
void     cr_window_practice_init     (CrWindow   *self);

/* cr-window-paths.c: a leaf element's paths to the loss lit on the graph
 * one by one, then all with their sum (win.paths-walk "(ix)": leaf record
 * tensor, element; paths-next, paths-back, paths-close). */
typedef struct _CrWindowPaths CrWindowPaths;
void     cr_window_paths_init        (CrWindow   *self);
void     cr_window_paths_dispose     (CrWindow   *self);
/* Starts the walk on the model shown; FALSE with error (no backward call,
 * a path through an op the record cannot split into elements ...). */
gboolean cr_window_paths_walk        (CrWindow   *self,
                                      int         leaf,
                                      gint64      element,
                                      GError    **error);
void     cr_window_paths_close       (CrWindow   *self);
/* While walking: the stepper's keys go from path to path (TRUE: taken). */
gboolean cr_window_paths_key         (CrWindow        *self,
                                      guint            keyval,
                                      GdkModifierType  state);
/* The walk shown, or NULL (for tests). */
const struct _CrPathTour *cr_window_paths_get_tour (CrWindow *self);

/* cr-window-training.c: the sidebar's Training page, for a run that
 * trains: the loss curve picks a backward call. */
void     cr_window_training_init     (CrWindow   *self);
/* After a run or a call is shown: the page's loop and its marked call. */
void     cr_window_training_update   (CrWindow   *self);

/* cr-window.c */
void     cr_window_highlight_lines   (CrWindow   *self,
                                      const char *tag_name,
                                      const CrGraphNode *node,
                                      gboolean    scroll);
void     cr_window_update_title      (CrWindow   *self);
void     cr_window_set_presentation  (CrWindow   *self,
                                      gboolean    presentation);

G_END_DECLS
