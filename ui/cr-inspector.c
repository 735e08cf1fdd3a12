/* cr-inspector.c — one node of the graph, every property a PyTorch user would
 * ask the tensor for, as libadwaita boxed lists: value, .grad, .grad_fn,
 * .is_leaf, .requires_grad, .retains_grad, shape, dtype, device, and for an
 * op the tensors it saved for backward. All of it read from the run record
 * as of the stepper's step: .grad is None until the step that writes it, a
 * saved tensor is "freed" only from the step after which backward freed it,
 * and one changed in place after it was saved says so and where. */
#include "cr-config.h"
#include "cr-inspector.h"

#include "cr-card-style.h"
#include "cr-inspector-edit.h"
#include "cr-inspector-group.h"
#include "cr-inspector-paths.h"
#include "cr-inspector-scalars.h"
#include "cr-run-record.h"
#include "cr-record-text.h"
#include "cr-tensor-view.h"

#include <adwaita.h>

struct _CrInspector
{
  GtkWidget     parent_instance;
  GtkWidget    *content;

  /* Owned */
  CrGraphModel *model;     /* what node_id is a node of (a reference), or NULL */
  int           node_id;
  int           step;      /* the stepper's step: the state shown is as of it */
  CrInspectorLeafEditFunc leaf_edit;   /* a scalar leaf's value edited, or NULL */
  gpointer      leaf_edit_data;
  int           hidden_step; /* practice: the step whose answer waits (-1: none) */
  int           hidden_op;   /* practice: the forward op whose result waits (-1: none) */
};

G_DEFINE_FINAL_TYPE (CrInspector, cr_inspector, GTK_TYPE_WIDGET)

static const char *
py_bool (gboolean value)
{
  return value ? "True" : "False";
}

/* A row with a short value at its end: "requires_grad   True". */
static GtkWidget *
text_row (const char *title,
          const char *text,
          const char *tooltip)
{
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  GtkWidget *label = gtk_label_new (text ? text : "None");
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_widget_add_css_class (label, "monospace");
  if (!text)
    gtk_widget_add_css_class (label, "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  if (tooltip)
    gtk_widget_set_tooltip_text (row, tooltip);
  return row;
}

/* An AdwPreferencesRow, so the group puts it in its boxed list, titled
 * title (for assistive technologies) and holding a padded vertical box for
 * the caller to fill (*box, borrowed). */
static GtkWidget *
box_row_new (const char  *title,
             GtkWidget  **box)
{
  GtkWidget *row = adw_preferences_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (*box, 12);
  gtk_widget_set_margin_end (*box, 12);
  gtk_widget_set_margin_top (*box, 10);
  gtk_widget_set_margin_bottom (*box, 10);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), *box);
  return row;
}

/* A row with a title (and optional badge) over a tensor view. */
static GtkWidget *
tensor_row (const char             *title,
            const char             *subtitle,
            GtkWidget              *badge,
            const CrTensorSnapshot *value,
            gboolean                show_value,
            const char             *role)
{
  GtkWidget *box;
  GtkWidget *row = box_row_new (title, &box);

  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (titles), cr_card_label_new (title, NULL));
  if (subtitle)
    {
      GtkWidget *sub = cr_card_label_new (subtitle, "dim-label");
      gtk_widget_add_css_class (sub, "caption");
      gtk_box_append (GTK_BOX (titles), sub);
    }
  gtk_box_append (GTK_BOX (top), titles);
  if (badge)
    gtk_box_append (GTK_BOX (top), badge);
  gtk_box_append (GTK_BOX (box), top);

  if (show_value)
    {
      GtkWidget *view = cr_tensor_view_new (value);
      if (role)
        gtk_widget_add_css_class (view, role);
      gtk_box_append (GTK_BOX (box), view);
    }
  return row;
}

static GtkWidget *
badge_new (const char *text,
           const char *kind)
{
  GtkWidget *badge = gtk_label_new (text);
  gtk_widget_add_css_class (badge, "cr-badge");
  if (kind)
    gtk_widget_add_css_class (badge, kind);
  gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
  return badge;
}

static const char *
kind_text (const CrGraphNode *node)
{
  switch (node->kind)
    {
    case CR_GRAPH_NODE_LEAF:       return "Leaf tensor: gradients stop here and land in its .grad";
    case CR_GRAPH_NODE_OP:         return "Operation: the grad_fn that backward runs for it";
    case CR_GRAPH_NODE_ACCUMULATE: return "AccumulateGrad: adds the gradient into a leaf's .grad";
    case CR_GRAPH_NODE_OUTPUT:     return "Output: where backward starts";
    case CR_GRAPH_NODE_CONSTANT:   return "Constant: gets no gradient";
    case CR_GRAPH_NODE_NO_GRAD:    return "Made under torch.no_grad(): gets no gradient";
    case CR_GRAPH_NODE_DETACHED:   return "Detached: cut from the graph, gets no gradient";
    case CR_GRAPH_NODE_GROUP:      return "Module call, closed: open it to see its ops";
    default:                       return NULL;
    }
}

static GtkWidget *
build_empty (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  GtkWidget *image = gtk_image_new_from_icon_name ("find-location-symbolic");
  gtk_widget_add_css_class (image, "cr-big-icon");
  gtk_widget_set_margin_top (image, 24);
  gtk_box_append (GTK_BOX (box), image);
  GtkWidget *title = cr_card_label_new ("Click a node to inspect it", "title-3");
  gtk_label_set_xalign (GTK_LABEL (title), 0.5);
  gtk_label_set_justify (GTK_LABEL (title), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (box), title);
  GtkWidget *body = cr_card_label_new ("Its value, gradient, grad_fn and the tensors it saved "
                                       "for backward appear here.", "dim-label");
  gtk_label_set_xalign (GTK_LABEL (body), 0.5);
  gtk_label_set_justify (GTK_LABEL (body), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (box), body);
  return box;
}

/* What one node is shown from: the record as of (backward, step). */
typedef struct {
  const CrRunRecord      *record;     /* NULL: a model built by hand */
  const CrRecordBackward *backward;   /* NULL: a forward graph */
  int                     backward_index;
  int                     step;
  const CrGraphModel     *model;      /* the node's (a closed group's lookups) */
  CrInspectorLeafEditFunc leaf_edit;
  gpointer                leaf_edit_data;
  int                     hidden_step; /* practice: what this step writes is not shown */
  int                     hidden_op;   /* practice: this forward op's result is not shown */
} Ctx;

/* Whether the step shown asks a practice question not yet answered. */
static gboolean
step_hidden (const Ctx *c)
{
  return c->hidden_step >= 0 && c->hidden_step == c->step;
}

/* A row saying that what it would show is the question's answer. */
static GtkWidget *
hidden_row (const char *title,
            const char *why)
{
  GtkWidget *row = text_row (title, "?", why);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "hidden until you answer");
  gtk_widget_add_css_class (row, "cr-practice-hidden");
  return row;
}

static const CrRecordOp *
record_op (const Ctx *c,
           int        op)
{
  if (!c->record || op < 0 || (guint) op >= c->record->ops->len)
    return NULL;
  return g_ptr_array_index (c->record->ops, op);
}

static const CrRecordTensor *
record_tensor (const Ctx *c,
               int        tensor)
{
  if (!c->record || tensor < 0 || (guint) tensor >= c->record->tensors->len)
    return NULL;
  return g_ptr_array_index (c->record->tensors, tensor);
}

/* The step of the backward call shown that writes tensor's .grad (an
 * AccumulateGrad of a leaf, a retain_grad hook of a non-leaf): the first
 * after `after`, or the last at or before it (before: TRUE); -1: none. */
static int
grad_write_step (const Ctx *c,
                 int        tensor,
                 int        after,
                 gboolean   before)
{
  if (!c->backward)
    return -1;
  int found = -1;
  for (guint k = 0; k < c->backward->steps->len; k++)
    {
      const CrRecordStep *s = g_ptr_array_index (c->backward->steps, k);
      gboolean writes = s->kind == CR_RECORD_STEP_ACCUMULATE && s->leaf == tensor;
      for (guint h = 0; !writes && s->hooks && h < s->hooks->len; h++)
        {
          const CrRecordHookCall *hook = g_ptr_array_index (s->hooks, h);
          writes = hook->kind == CR_RECORD_HOOK_RETAIN_GRAD && hook->tensor == tensor;
        }
      if (!writes)
        continue;
      if (!before && (int) s->index > after)
        return (int) s->index;
      if (before && (int) s->index <= after)
        found = (int) s->index;
    }
  return found;
}

static GtkWidget *
build_header (const Ctx         *c,
              const CrGraphNode *node)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  const char *kind = kind_text (node);
  if (kind)
    {
      GtkWidget *k = cr_card_label_new (kind, "caption");
      gtk_widget_add_css_class (k, "dim-label");
      gtk_box_append (GTK_BOX (box), k);
    }
  gtk_box_append (GTK_BOX (box), cr_card_label_new (node->title ? node->title : "?", "title-3"));
  GString *caption = g_string_new (node->caption);
  if (node->span.line > 0)
    {
      /* A notebook's line by its cell, as its traceback says it. */
      g_autofree char *where = cr_run_record_line_text (c->record, node->span.line, FALSE);
      g_string_append_printf (caption, "%s%s", caption->len ? " · " : "", where);
    }
  const CrRecordOp *op = node->kind == CR_GRAPH_NODE_OP ? record_op (c, node->op) : NULL;
  g_autofree char *iteration = op ? cr_record_iteration_text (op->loop_path, op->loop_depth) : NULL;
  if (iteration)
    g_string_append_printf (caption, "%s%s", caption->len ? " · " : "", iteration);
  if (caption->len)
    {
      GtkWidget *cap = cr_card_label_new (caption->str, "monospace");
      gtk_widget_add_css_class (cap, "dim-label");
      gtk_box_append (GTK_BOX (box), cap);
    }
  g_string_free (caption, TRUE);
  if (node->step >= 0)
    {
      /* Future tense until the stepper gets there: nothing is given away.
       * A step that raised did not run its node (cr_run_record_op_ran_at). */
      const CrRecordStep *step = c->backward && (guint) node->step < c->backward->steps->len
                                 ? g_ptr_array_index (c->backward->steps, node->step) : NULL;
      gboolean failed = step && step->failed;
      g_autofree char *ran = node->step > c->step
                             ? g_strdup_printf ("Backward %s it at step %d", failed ? "reaches" : "runs",
                                                node->step + 1)
                             : failed
                             ? g_strdup_printf ("Backward stopped at it at step %d: it raised",
                                                node->step + 1)
                             : g_strdup_printf ("Backward ran it at step %d", node->step + 1);
      GtkWidget *r = cr_card_label_new (ran, "caption");
      gtk_widget_add_css_class (r, "dim-label");
      gtk_box_append (GTK_BOX (box), r);
    }
  return box;
}

/* The errors of the run that name this node's op or tensor. */
static GtkWidget *
build_error_group (const Ctx         *c,
                   const CrGraphNode *node)
{
  if (!c->record)
    return NULL;
  GtkWidget *group = NULL;
  for (guint i = 0; i < c->record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (c->record->errors, i);
      gboolean here = (node->kind == CR_GRAPH_NODE_OP && node->op >= 0 && e->op == node->op)
                      || (node->kind != CR_GRAPH_NODE_OP
                          && cr_record_error_names_tensor (e, node->tensor));
      if (!here)
        continue;
      if (!group)
        {
          group = adw_preferences_group_new ();
          adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Error");
          gtk_widget_add_css_class (group, "cr-error-group");
        }
      GtkWidget *box;
      GtkWidget *row = box_row_new ("error", &box);
      g_autofree char *text = g_strdup_printf ("%s: %s", e->type ? e->type : "Error",
                                               e->message ? e->message : "");
      GtkWidget *label = cr_card_label_new (text, "error");
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (box), label);
      if (e->span.line > 0)
        {
          g_autofree char *line = cr_run_record_line_text (c->record, e->span.line, FALSE);
          g_autofree char *where = g_strdup_printf ("raised at %s", line);
          gtk_box_append (GTK_BOX (box), cr_card_label_new (where, "cr-footnote"));
        }
      if (e->culprit_span.line > 0)
        {
          g_autofree char *line = cr_run_record_line_text (c->record, e->culprit_span.line, FALSE);
          g_autofree char *culprit = g_strdup_printf (
            "a tensor it saved was modified in place at %s", line);
          gtk_box_append (GTK_BOX (box), cr_card_label_new (culprit, "cr-footnote"));
        }
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  return group;
}

/* Why .grad is None as of the step (NULL: it is not). */
static char *
why_no_grad (const Ctx            *c,
             const CrRecordTensor *t,
             gboolean              is_leaf)
{
  if (!t->requires_grad)
    return g_strdup ("requires_grad is False: no gradient is computed for it");
  if (!is_leaf && !t->retains_grad)
    return g_strdup ("Only leaves keep .grad; call .retain_grad() to keep this one's");
  int later = grad_write_step (c, (int) t->id, c->step, FALSE);
  if (later >= 0)
    return g_strdup_printf ("None so far: backward writes it at step %d", later + 1);
  return g_strdup (c->backward ? "This backward call does not reach it"
                               : "No backward call has reached it");
}

static GtkWidget *
build_tensor_group (const Ctx            *c,
                    const CrGraphNode    *node,
                    const CrRecordTensor *t)
{
  GtkWidget *group = adw_preferences_group_new ();
  const char *label = t->label ? t->label : t->name;
  g_autofree char *title = label ? g_strdup_printf ("Tensor %s", label) : g_strdup ("Tensor");
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (node->kind == CR_GRAPH_NODE_OP)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                           "The tensor this op made.");
  else if (t->origin == CR_RECORD_TENSOR_NO_GRAD)
    {
      const CrRecordRegion *region = t->region >= 0 && (guint) t->region < c->record->regions->len
                                     ? g_ptr_array_index (c->record->regions, t->region) : NULL;
      g_autofree char *block = region && region->span.line > 0
                               ? cr_run_record_line_text (c->record, region->span.line, FALSE)
                               : NULL;
      g_autofree char *why = block
        ? g_strdup_printf ("Made under torch.no_grad() (the block at %s): the graph stops "
                           "here.", block)
        : g_strdup ("Made under torch.no_grad(): the graph stops here.");
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), why);
    }
  else if (t->origin == CR_RECORD_TENSOR_DETACHED)
    {
      const char *from = cr_record_tensor_label (c->record, t->source, NULL);
      g_autofree char *why = from
        ? g_strdup_printf ("Detached from %s: the same values, cut from the graph.", from)
        : g_strdup ("Detached: the same values, cut from the graph.");
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), why);
    }
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  gboolean is_leaf = t->origin != CR_RECORD_TENSOR_RESULT;

  if (c->hidden_op >= 0 && t->origin == CR_RECORD_TENSOR_RESULT && t->op == c->hidden_op)
    /* Practice: the forward step shown asks what this value is. */
    adw_preferences_group_add (g, hidden_row ("value", "Hidden until you answer this forward "
                                                       "step's question"));
  else
    adw_preferences_group_add (g, tensor_row ("value", NULL, NULL, t->value, TRUE, NULL));
  if (c->leaf_edit && t->origin == CR_RECORD_TENSOR_LEAF && t->value && t->value->numel == 1)
    adw_preferences_group_add (g, cr_inspector_leaf_edit_row_new (t, c->leaf_edit, c->leaf_edit_data));

  const CrTensorSnapshot *grad = c->backward
    ? cr_run_record_grad_at (c->record, (int) t->id, c->backward_index, c->step) : NULL;
  g_autofree char *sub = NULL;
  if (grad && step_hidden (c) && grad_write_step (c, (int) t->id, c->step, TRUE) == c->step)
    /* Practice: this step's own write into .grad is what the card asks. */
    {
      g_autofree char *why = g_strdup_printf ("Hidden until you answer step %d's question",
                                              c->step + 1);
      adw_preferences_group_add (g, hidden_row (".grad", why));
    }
  else if (!grad)
    sub = why_no_grad (c, t, is_leaf);
  else
    {
      int at = grad_write_step (c, (int) t->id, c->step, TRUE);
      sub = at >= 0 ? g_strdup_printf ("as of step %d, which wrote it", at + 1)
                    : g_strdup ("from an earlier backward call");
    }
  if (sub)
    adw_preferences_group_add (g, tensor_row (".grad", sub, NULL, grad, TRUE,
                                              grad ? CR_ROLE_OUT : NULL));
  /* A non-leaf keeps no .grad, but backward did compute its gradient: the
   * one its grad_fn received, once the stepper has reached that step. */
  const CrRecordGrad *reached = NULL;
  int reached_at = -1;
  if (!is_leaf && c->backward)
    for (guint k = 0; k < c->backward->steps->len && (int) k <= c->step && !reached; k++)
      {
        const CrRecordStep *step = g_ptr_array_index (c->backward->steps, k);
        if (step->kind != CR_RECORD_STEP_NODE || step->op != t->op || !step->incoming)
          continue;
        for (guint i = 0; i < step->incoming->len && !reached; i++)
          {
            const CrRecordGrad *in = g_ptr_array_index (step->incoming, i);
            if (in->tensor == (int) t->id || (in->tensor < 0 && i == t->output_nr))
              {
                reached = in;
                reached_at = (int) step->index;
              }
          }
      }
  if (reached)
    {
      g_autofree char *when = g_strdup_printf ("%s, reached it at step %d%s",
                                               reached->name ? reached->name : "its gradient",
                                               reached_at + 1,
                                               t->retains_grad ? "" : " (not kept in .grad)");
      adw_preferences_group_add (g, tensor_row ("gradient", when, NULL, reached->value, TRUE,
                                                CR_ROLE_IN));
    }

  const CrRecordOp *op = t->origin == CR_RECORD_TENSOR_RESULT ? record_op (c, t->op) : NULL;
  g_autofree char *grad_fn = op ? g_strdup_printf ("<%s>", op->grad_fn) : NULL;
  adw_preferences_group_add (g, text_row (".grad_fn", grad_fn,
                                          "The function backward runs to pass the gradient on"));
  adw_preferences_group_add (g, text_row (".is_leaf", py_bool (is_leaf), NULL));
  adw_preferences_group_add (g, text_row (".requires_grad", py_bool (t->requires_grad), NULL));
  adw_preferences_group_add (g, text_row (".retains_grad", py_bool (t->retains_grad), NULL));
  g_autofree char *shape = cr_record_shape_text (t->shape, t->ndim);
  adw_preferences_group_add (g, text_row (".shape", shape, NULL));
  adw_preferences_group_add (g, text_row (".dtype", t->dtype, NULL));
  adw_preferences_group_add (g, text_row (".device", t->device, NULL));
  return group;
}

static GtkWidget *
build_saved_group (const Ctx        *c,
                   const CrRecordOp *op)
{
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Saved for backward");

  guint n = op->saved ? op->saved->len : 0;
  gboolean any_freed = FALSE, any_modified = FALSE;
  for (guint i = 0; i < n; i++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op->saved, i);
      gboolean freed = c->backward
        && cr_run_record_saved_freed_at (c->record, (int) op->id, i, c->backward_index, c->step);
      gboolean modified = saved->modified_span.line > 0;
      GtkWidget *badge = NULL;
      if (modified)
        {
          /* The culprit of an in-place error: changed, not freed. */
          g_autofree char *line = cr_run_record_line_text (c->record, saved->modified_span.line,
                                                           FALSE);
          g_autofree char *text = g_strdup_printf ("modified in place (%s)", line);
          badge = badge_new (text, "cr-alert");
          any_modified = TRUE;
        }
      else if (freed)
        {
          badge = badge_new ("freed", NULL);
          any_freed = TRUE;
        }
      g_autofree char *shape = cr_record_shape_text (saved->shape, saved->ndim);
      const char *of = cr_record_tensor_label (c->record, saved->tensor, NULL);
      g_autofree char *sub = of ? g_strdup_printf ("%s · %s", of, shape) : g_strdup (shape);
      adw_preferences_group_add (g, tensor_row (saved->name ? saved->name : "?", sub, badge,
                                                saved->value, !freed, CR_ROLE_LOCAL));
    }
  if (n == 0)
    adw_preferences_group_set_description (g, "This op's backward needs no saved tensors.");
  else if (any_modified)
    adw_preferences_group_set_description (
      g, "An in-place statement changed a tensor after this op saved it, so backward "
         "through this op fails: the values it would need are gone.");
  else if (any_freed)
    adw_preferences_group_set_description (
      g, "Backward freed these after using them; calling backward through this op "
         "again needs retain_graph=True.");
  else
    adw_preferences_group_set_description (
      g, "The inputs or outputs its local gradient is computed from.");
  return group;
}

/* A node the record has no item for (a group, a model built by hand): what
 * the canvas shows. */
static GtkWidget *
build_plain_group (const CrGraphNode *node)
{
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, node->kind == CR_GRAPH_NODE_OP ? "Operation"
                                      : node->kind == CR_GRAPH_NODE_GROUP ? "Module call" : "Tensor");
  if (CR_GRAPH_NODE_KIND_IS_CONSTANT (node->kind))
    adw_preferences_group_set_description (
      g, "It does not require grad, so backward sends it no gradient.");
  if (node->preview)
    {
      GtkWidget *box;
      GtkWidget *row = box_row_new ("value", &box);
      gtk_box_append (GTK_BOX (box), cr_card_label_new ("value", NULL));
      GtkWidget *text = cr_card_label_new (node->preview, "monospace");
      gtk_label_set_selectable (GTK_LABEL (text), TRUE);
      gtk_box_append (GTK_BOX (box), text);
      adw_preferences_group_add (g, row);
    }
  if (node->shape)
    adw_preferences_group_add (g, text_row (".shape", node->shape, NULL));
  if (node->device)
    adw_preferences_group_add (g, text_row (".device", node->device, NULL));
  return group;
}

static GtkWidget *
build_node (const Ctx         *c,
            const CrGraphNode *node)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_box_append (GTK_BOX (box), build_header (c, node));
  GtkWidget *error = build_error_group (c, node);
  if (error)
    gtk_box_append (GTK_BOX (box), error);

  const CrRecordOp *op = node->kind == CR_GRAPH_NODE_OP ? record_op (c, node->op) : NULL;
  int tensor = node->tensor;
  if (op && op->outputs->len > 0)
    tensor = g_array_index (op->outputs, int, 0);
  const CrRecordTensor *t = record_tensor (c, tensor);

  if (t)
    gtk_box_append (GTK_BOX (box), build_tensor_group (c, node, t));
  else if (op)
    {
      GtkWidget *group = adw_preferences_group_new ();
      adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Operation");
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                             "The script did not name the tensor it made.");
      g_autofree char *grad_fn = g_strdup_printf ("<%s>", op->grad_fn);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                                 text_row ("grad_fn", grad_fn, NULL));
      gtk_box_append (GTK_BOX (box), group);
    }
  else if (node->kind == CR_GRAPH_NODE_GROUP)
    /* A closed module call: its ops, steps and parameters. */
    gtk_box_append (GTK_BOX (box), cr_inspector_group_new (c->model, node, c->step));
  else if (node->shape || node->preview || node->kind == CR_GRAPH_NODE_OP)
    gtk_box_append (GTK_BOX (box), build_plain_group (node));
  /* A leaf of a .backward() call: the chain rule as a sum over its paths. */
  /* Practice: the paths sum the whole backward call's gradients, and the
   * scalar graph of the step's op carries its gradients: both wait. */
  GtkWidget *paths = t && c->backward && c->backward->kind == CR_RECORD_BACKWARD_CALL
                     && !step_hidden (c)
                     ? cr_inspector_paths_new (c->record, c->backward_index, (int) t->id) : NULL;
  if (paths)
    gtk_box_append (GTK_BOX (box), paths);
  /* A small op: its scalar graph, one click away. */
  GtkWidget *scalars = op && !(step_hidden (c) && node->step == c->step)
                       ? cr_inspector_scalars_new (c->record, (int) op->id) : NULL;
  if (scalars)
    gtk_box_append (GTK_BOX (box), scalars);
  if (op)
    gtk_box_append (GTK_BOX (box), build_saved_group (c, op));
  return box;
}

static void
cr_inspector_dispose (GObject *object)
{
  CrInspector *self = CR_INSPECTOR (object);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  g_clear_pointer (&self->model, cr_graph_model_unref);
  G_OBJECT_CLASS (cr_inspector_parent_class)->dispose (object);
}

static void
cr_inspector_class_init (CrInspectorClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cr_inspector_dispose;
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cr-inspector");
}

static void
cr_inspector_init (CrInspector *self)
{
  cr_card_style_ensure ();
  self->node_id = -1;
  self->step = -1;
  self->hidden_step = -1;
  self->hidden_op = -1;
}

static void
rebuild (CrInspector *self)
{
  const CrGraphModel *model = self->model;
  const CrGraphNode *node = NULL;
  if (model && model->nodes && self->node_id >= 0 && (guint) self->node_id < model->nodes->len)
    node = g_ptr_array_index (model->nodes, self->node_id);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  if (node)
    {
      const CrRunRecord *record = model->record;
      Ctx c = { .record = record, .backward_index = -1, .step = self->step, .model = model,
                .leaf_edit = self->leaf_edit, .leaf_edit_data = self->leaf_edit_data,
                .hidden_step = self->hidden_step, .hidden_op = self->hidden_op };
      if (record && model->backward >= 0 && (guint) model->backward < record->backwards->len)
        {
          c.backward = g_ptr_array_index (record->backwards, model->backward);
          c.backward_index = model->backward;
        }
      self->content = build_node (&c, node);
    }
  else
    self->content = build_empty ();
  gtk_widget_set_parent (self->content, GTK_WIDGET (self));
}

GtkWidget *
cr_inspector_new (void)
{
  GtkWidget *self = g_object_new (CR_TYPE_INSPECTOR, NULL);
  rebuild (CR_INSPECTOR (self));
  return self;
}

void
cr_inspector_show_node (CrInspector        *self,
                        const CrGraphModel *model,
                        int                 node_id)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));

  if (model != self->model)
    {
      g_clear_pointer (&self->model, cr_graph_model_unref);
      self->model = model ? cr_graph_model_ref ((CrGraphModel *) model) : NULL;
    }
  self->node_id = node_id;
  rebuild (self);
}

void
cr_inspector_set_step (CrInspector *self,
                       int          step)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));

  if (step == self->step)
    return;
  self->step = step;
  if (self->model && self->node_id >= 0)
    rebuild (self);
}

void
cr_inspector_set_hidden_step (CrInspector *self,
                              int          step)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));

  if (step == self->hidden_step)
    return;
  self->hidden_step = step;
  if (self->model && self->node_id >= 0)
    rebuild (self);
}

void
cr_inspector_set_hidden_op (CrInspector *self,
                            int          op)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));

  if (op == self->hidden_op)
    return;
  self->hidden_op = op;
  if (self->model && self->node_id >= 0)
    rebuild (self);
}

int
cr_inspector_get_step (CrInspector *self)
{
  g_return_val_if_fail (CR_IS_INSPECTOR (self), -1);
  return self->step;
}

void
cr_inspector_set_leaf_editor (CrInspector             *self,
                              CrInspectorLeafEditFunc  func,
                              gpointer                 user_data)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));
  self->leaf_edit = func;
  self->leaf_edit_data = user_data;
  rebuild (self);
}
