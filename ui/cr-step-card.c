/* cr-step-card.c — one backward step as the chain rule written out: what
 * arrives (∂L/∂out, blue), the node's local gradients (∂out/∂in, purple) and
 * their product sent on to each input (green), with the real numbers under
 * the symbols. The content is rebuilt from the model on every step; the card
 * keeps no pointer to the model. */
#include "cr-config.h"
#include "cr-step-card.h"

#include "cr-card-style.h"
#include "cr-formula-flow.h"
#include "cr-tensor-view.h"

#include <string.h>

struct _CrStepCard
{
  GtkWidget  parent_instance;
  GtkWidget *content;
};

G_DEFINE_FINAL_TYPE (CrStepCard, cr_step_card, GTK_TYPE_WIDGET)

/* ---- pieces ---------------------------------------------------------- */

/* The step record, looked up directly: a model handed over by the worker
 * may be read here without calling into the model's code. */
static const CrGraphStep *
model_step (const CrGraphModel *model,
            int                 step)
{
  if (!model || !model->steps || step < 0 || (guint) step >= model->steps->len)
    return NULL;
  return g_ptr_array_index (model->steps, step);
}

static GtkWidget *
op_label (const char *op)
{
  GtkWidget *label = gtk_label_new (op);
  gtk_widget_add_css_class (label, "cr-op");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

/* An operator with its operand: the unit a formula wraps by, so a line
 * never ends in a dangling "×". */
static GtkWidget *
term (const char *op,
      GtkWidget  *operand)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  if (op)
    gtk_box_append (GTK_BOX (box), op_label (op));
  gtk_box_append (GTK_BOX (box), operand);
  return box;
}

static GtkWidget *
value (const CrTensorSnapshot *snapshot,
       const char             *role)
{
  GtkWidget *view = cr_tensor_view_new (snapshot);
  if (role)
    gtk_widget_add_css_class (view, role);
  return view;
}

static GtkWidget *
section_new (GtkWidget  *parent,
             const char *title,
             const char *role)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (box, "cr-section");
  gtk_box_append (GTK_BOX (box), cr_card_heading_new (title, role));
  gtk_box_append (GTK_BOX (parent), box);
  return box;
}

static GtkWidget *
flow_new (GtkWidget *section)
{
  GtkWidget *flow = cr_formula_flow_new ();
  gtk_box_append (GTK_BOX (section), flow);
  return flow;
}

static void
flow_add (GtkWidget *flow,
          GtkWidget *child,
          gboolean   break_before)
{
  cr_formula_flow_append (CR_FORMULA_FLOW (flow), child, break_before);
}

/* "name = value" in flow, both in role's colour. */
static void
flow_add_equals (GtkWidget              *flow,
                 const char             *name,
                 const CrTensorSnapshot *snapshot,
                 const char             *role)
{
  flow_add (flow, cr_card_fraction_new (name, role), FALSE);
  flow_add (flow, term ("=", value (snapshot, role)), FALSE);
}

static gboolean
is_scalar (const CrTensorSnapshot *s)
{
  return !s || s->numel <= 1;
}

/* "b = w1*a, line 13" → "b = w1*a · line 13". */
static char *
pretty_caption (const char *caption)
{
  if (!caption)
    return NULL;
  const char *at = g_strrstr (caption, ", line ");
  if (!at)
    return g_strdup (caption);
  return g_strdup_printf ("%.*s · line %s", (int) (at - caption), caption, at + strlen (", line "));
}

/* ---- before the first step --------------------------------------------- */

static GtkWidget *
status_box (const char *icon,
            const char *title,
            const char *subtitle)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  GtkWidget *image = gtk_image_new_from_icon_name (icon);
  gtk_widget_add_css_class (image, "cr-big-icon");
  gtk_widget_set_margin_top (image, 12);
  gtk_box_append (GTK_BOX (box), image);
  GtkWidget *t = cr_card_label_new (title, "title-3");
  gtk_label_set_xalign (GTK_LABEL (t), 0.5);
  gtk_label_set_justify (GTK_LABEL (t), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (box), t);
  if (subtitle)
    {
      GtkWidget *s = cr_card_label_new (subtitle, "dim-label");
      gtk_widget_add_css_class (s, "monospace");
      gtk_label_set_xalign (GTK_LABEL (s), 0.5);
      gtk_label_set_justify (GTK_LABEL (s), GTK_JUSTIFY_CENTER);
      gtk_box_append (GTK_BOX (box), s);
    }
  return box;
}

static void
add_role_line (GtkWidget  *box,
               const char *role,
               const char *what,
               const char *symbol)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *heading = cr_card_heading_new (what, role);
  GtkWidget *label = gtk_widget_get_last_child (heading);
  gtk_widget_remove_css_class (label, "heading");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_hexpand (heading, TRUE);
  gtk_box_append (GTK_BOX (row), heading);
  gtk_box_append (GTK_BOX (row), cr_card_fraction_new (symbol, role));
  gtk_box_append (GTK_BOX (box), row);
}

static void
add_key_row (GtkGrid     *grid,
             int          row,
             const char  *const *keys,
             const char  *what)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  for (int i = 0; keys[i]; i++)
    gtk_box_append (GTK_BOX (box), cr_card_key_new (keys[i]));
  gtk_grid_attach (grid, box, 0, row, 1, 1);
  GtkWidget *label = cr_card_label_new (what, NULL);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  gtk_grid_attach (grid, label, 1, row, 1, 1);
}

static GtkWidget *
build_intro (const CrGraphModel *model)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);

  if (!model)
    {
      gtk_box_append (GTK_BOX (box), status_box ("system-run-symbolic", "No graph yet", NULL));
      gtk_box_append (GTK_BOX (box), cr_card_label_new (
        "Run a script that makes a tensor with requires_grad=True and computes with it: "
        "its graph appears on the canvas, and after a .backward() call you can step "
        "through the chain rule here.", NULL));
      return box;
    }
  if (model->n_steps == 0)
    {
      gtk_box_append (GTK_BOX (box), status_box ("media-playback-start-symbolic",
                                                 "No backward pass", model->title));
      gtk_box_append (GTK_BOX (box), cr_card_label_new (
        "This script builds a graph but never calls .backward(), so there are no steps "
        "to go through. The canvas shows the forward graph: every op that will take part "
        "in the chain rule.", NULL));
      gtk_box_append (GTK_BOX (box), cr_card_label_new (
        "Add a call such as L.backward() on a scalar result to follow its gradient back "
        "to the leaves, one node at a time.", "dim-label"));
      return box;
    }

  const CrGraphStep *first = model_step (model, 0);
  const char *root = first && first->root ? first->root : "L";
  gtk_box_append (GTK_BOX (box), status_box ("go-next-symbolic", "Step through backward",
                                             model->title));

  g_autofree char *intro = g_strdup_printf (
    "The backward pass takes %u step%s. Each step is one node of the graph applying "
    "the chain rule:", model->n_steps, model->n_steps == 1 ? "" : "s");
  gtk_box_append (GTK_BOX (box), cr_card_label_new (intro, NULL));

  GtkWidget *roles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  g_autofree char *in = g_strdup_printf ("∂%s/∂out", root);
  g_autofree char *out = g_strdup_printf ("∂%s/∂in", root);
  add_role_line (roles, CR_ROLE_IN, "the gradient that arrives", in);
  add_role_line (roles, CR_ROLE_LOCAL, "times the node's local gradient", "∂out/∂in");
  add_role_line (roles, CR_ROLE_OUT, "is sent on to each input", out);
  gtk_widget_add_css_class (roles, "card");
  gtk_widget_add_css_class (roles, "cr-section");
  gtk_box_append (GTK_BOX (box), roles);

  GtkWidget *keys = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (keys), 8);
  gtk_grid_set_column_spacing (GTK_GRID (keys), 12);
  static const char *const next[] = { "Space", "→", "PgDn", NULL };
  static const char *const back[] = { "←", "PgUp", NULL };
  static const char *const ends[] = { "Home", "End", NULL };
  add_key_row (GTK_GRID (keys), 0, next, "next step");
  add_key_row (GTK_GRID (keys), 1, back, "previous step");
  add_key_row (GTK_GRID (keys), 2, ends, "start / last step");
  gtk_box_append (GTK_BOX (box), cr_card_heading_new ("Keys", NULL));
  gtk_box_append (GTK_BOX (box), keys);

  if (!model->succeeded)
    {
      g_autofree char *note = g_strdup_printf (
        "The backward call stopped with an error after %u step%s.",
        model->n_steps, model->n_steps == 1 ? "" : "s");
      GtkWidget *warn = cr_card_label_new (note, "error");
      gtk_box_append (GTK_BOX (box), warn);
    }
  return box;
}

/* ---- one step ---------------------------------------------------------- */

static GtkWidget *
build_header (const CrGraphModel *model,
              const CrGraphStep  *step)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  const CrGraphNode *node = model->nodes && step->node < model->nodes->len
                            ? g_ptr_array_index (model->nodes, step->node) : NULL;
  gboolean accumulate = node ? node->kind == CR_GRAPH_NODE_ACCUMULATE : step->leaf_name != NULL;
  const char *symbol = node && node->symbol ? node->symbol : (accumulate ? "+=" : NULL);
  if (symbol)
    {
      GtkWidget *disc = gtk_label_new (symbol);
      gtk_widget_add_css_class (disc, "cr-step-symbol");
      if (accumulate)
        gtk_widget_add_css_class (disc, "cr-accumulate");
      if (g_utf8_strlen (symbol, -1) > 2)
        gtk_widget_add_css_class (disc, "cr-long");
      gtk_widget_set_valign (disc, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (header), disc);
    }

  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *count = g_strdup_printf ("Step %u of %u", step->index + 1, model->n_steps);
  GtkWidget *count_label = cr_card_label_new (count, "caption-heading");
  gtk_widget_add_css_class (count_label, "dim-label");
  gtk_box_append (GTK_BOX (titles), count_label);
  gtk_box_append (GTK_BOX (titles), cr_card_label_new (step->title ? step->title : "?", "title-3"));
  g_autofree char *caption = pretty_caption (step->caption);
  if (caption)
    {
      GtkWidget *c = cr_card_label_new (caption, "monospace");
      gtk_widget_add_css_class (c, "dim-label");
      gtk_box_append (GTK_BOX (titles), c);
    }
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (header), titles);
  return header;
}

static const CrGraphGrad *
find_incoming (const CrGraphStep *step,
               const char        *name)
{
  if (!step->incoming || step->incoming->len == 0)
    return NULL;
  for (guint i = 0; name && i < step->incoming->len; i++)
    {
      const CrGraphGrad *g = g_ptr_array_index (step->incoming, i);
      if (g->name && strcmp (g->name, name) == 0)
        return g;
    }
  return g_ptr_array_index (step->incoming, 0);
}

/* "∂L/∂w1 = ∂L/∂b × ∂b/∂w1" → its three names. */
static gboolean
split_product (const char *product,
               char      **lhs,
               char      **t1,
               char      **t2)
{
  if (!product)
    return FALSE;
  const char *eq = strstr (product, " = ");
  if (!eq)
    return FALSE;
  const char *times = strstr (eq + 3, " × ");
  if (!times)
    return FALSE;
  *lhs = g_strndup (product, eq - product);
  *t1 = g_strndup (eq + 3, times - (eq + 3));
  *t2 = g_strdup (times + strlen (" × "));
  return TRUE;
}

static void
build_incoming (GtkWidget         *box,
                const CrGraphStep *step)
{
  if (!step->incoming || step->incoming->len == 0)
    return;
  GtkWidget *section = section_new (box, step->incoming->len == 1 ? "Incoming gradient"
                                                                  : "Incoming gradients",
                                    CR_ROLE_IN);
  for (guint i = 0; i < step->incoming->len; i++)
    {
      const CrGraphGrad *g = g_ptr_array_index (step->incoming, i);
      GtkWidget *flow = flow_new (section);
      flow_add_equals (flow, g->name, g->value, CR_ROLE_IN);
    }
}

static void
build_leaf_grad (GtkWidget         *box,
                 const CrGraphStep *step)
{
  g_autofree char *title = g_strdup_printf ("%s.grad", step->leaf_name);
  GtkWidget *section = section_new (box, title, CR_ROLE_OUT);
  GtkWidget *flow = flow_new (section);
  g_autofree char *name_text = g_strdup_printf ("%s:", title);
  GtkWidget *name = cr_card_label_new (name_text, "monospace");
  gtk_widget_set_valign (name, GTK_ALIGN_CENTER);
  flow_add (flow, name, FALSE);
  flow_add (flow, value (step->grad_before, NULL), FALSE);
  const CrGraphGrad *incoming = find_incoming (step, NULL);
  if (step->grad_before && incoming)
    {
      /* .grad already held a gradient: the step adds to it. */
      flow_add (flow, term ("+", value (incoming->value, CR_ROLE_IN)), FALSE);
      flow_add (flow, term ("=", value (step->grad_after, CR_ROLE_OUT)), FALSE);
    }
  else
    flow_add (flow, term ("→", value (step->grad_after, CR_ROLE_OUT)), FALSE);
  g_autofree char *note = g_strdup_printf (
    step->grad_before
      ? "AccumulateGrad adds the incoming gradient to what %s.grad already held."
      : "AccumulateGrad stores the incoming gradient in the leaf's .grad: %s.grad was None.",
    step->leaf_name);
  gtk_box_append (GTK_BOX (section), cr_card_label_new (note, "cr-footnote"));
}

/* "∂C/∂A = G·Bᵀ,  ∂C/∂B = Aᵀ·G" → its formulas, split at the commas
 * outside parentheses. */
static GPtrArray *
split_rule (const char *rule)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  const char *start = rule;
  int depth = 0;
  for (const char *p = rule; *p; p++)
    {
      if (*p == '(' || *p == '[')
        depth++;
      else if ((*p == ')' || *p == ']') && depth > 0)
        depth--;
      else if (*p == ',' && depth == 0 && p[1] == ' ')
        {
          g_ptr_array_add (parts, g_strstrip (g_strndup (start, p - start)));
          start = p + 1;
        }
    }
  g_ptr_array_add (parts, g_strstrip (g_strdup (start)));
  return parts;
}

static void
build_local (GtkWidget         *box,
             const CrGraphStep *step)
{
  gboolean any_local = FALSE;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrGraphStepInput *in = g_ptr_array_index (step->inputs, i);
      any_local |= in->local != NULL;
    }
  if (!any_local && !step->rule)
    return;

  GtkWidget *section = section_new (box, step->inputs->len == 1 ? "Local gradient"
                                                                : "Local gradients",
                                    CR_ROLE_LOCAL);
  if (step->rule)
    {
      /* One formula a line, in the local gradients' colour: for an op such
       * as matmul the rule is all there is to show. */
      GtkWidget *rules = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      g_autoptr (GPtrArray) parts = split_rule (step->rule);
      for (guint i = 0; i < parts->len; i++)
        {
          GtkWidget *label = cr_card_label_new (g_ptr_array_index (parts, i), CR_ROLE_LOCAL);
          gtk_box_append (GTK_BOX (rules), label);
        }
      gtk_box_append (GTK_BOX (section), rules);
      if (!any_local)
        {
          const CrGraphGrad *g = find_incoming (step, NULL);
          g_autofree char *note = g_strdup_printf (
            "Not elementwise: the rule turns the incoming gradient%s%s into each input's "
            "gradient.", g && g->name && strchr (step->rule, 'G') ? " G = " : "",
            g && g->name && strchr (step->rule, 'G') ? g->name : "");
          gtk_box_append (GTK_BOX (section), cr_card_label_new (note, "cr-footnote"));
        }
    }
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrGraphStepInput *in = g_ptr_array_index (step->inputs, i);
      if (!in->local || !in->local_name)
        continue;
      GtkWidget *flow = flow_new (section);
      flow_add_equals (flow, in->local_name, in->local, CR_ROLE_LOCAL);
    }
}

static void
build_sent (GtkWidget         *box,
            const CrGraphStep *step)
{
  if (step->inputs->len == 0)
    return;
  GtkWidget *section = section_new (box, "Sent on", CR_ROLE_OUT);
  const char *elementwise_example = NULL;

  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrGraphStepInput *in = g_ptr_array_index (step->inputs, i);
      GtkWidget *flow = flow_new (section);
      g_autofree char *lhs = NULL, *t1 = NULL, *t2 = NULL;
      if (i > 0)
        gtk_widget_set_margin_top (flow, 8);

      if (in->local && split_product (in->product, &lhs, &t1, &t2))
        {
          const CrGraphGrad *incoming = find_incoming (step, t1);
          const CrTensorSnapshot *in_value = incoming ? incoming->value : NULL;
          flow_add (flow, cr_card_fraction_new (lhs, CR_ROLE_OUT), FALSE);
          flow_add (flow, term ("=", cr_card_fraction_new (t1, CR_ROLE_IN)), FALSE);
          flow_add (flow, term ("×", cr_card_fraction_new (t2, CR_ROLE_LOCAL)), FALSE);
          flow_add (flow, term ("=", value (in_value, CR_ROLE_IN)), TRUE);
          flow_add (flow, term ("×", value (in->local, CR_ROLE_LOCAL)), FALSE);
          flow_add (flow, term ("=", value (in->outgoing.value, CR_ROLE_OUT)), FALSE);
          if (!is_scalar (in_value) || !is_scalar (in->local))
            elementwise_example = in->product;
        }
      else
        {
          const char *name = in->outgoing.name ? in->outgoing.name : in->input_name;
          flow_add_equals (flow, name, in->outgoing.value, CR_ROLE_OUT);
        }
      if (in->to_node == G_MAXUINT && !in->outgoing.value)
        gtk_box_append (GTK_BOX (section),
                        cr_card_label_new ("This input needs no gradient.", "cr-footnote"));
    }
  if (elementwise_example)
    gtk_box_append (GTK_BOX (section), cr_card_label_new (
      "× is elementwise here: each entry of the incoming gradient times the entry of the "
      "local gradient in the same place.", "cr-footnote"));
}

static void
build_accumulations (GtkWidget         *box,
                     const CrGraphStep *step)
{
  if (!step->accumulations || step->accumulations->len == 0)
    return;
  GtkWidget *section = section_new (box, "Accumulated", CR_ROLE_OUT);
  for (guint i = 0; i < step->accumulations->len; i++)
    {
      const CrGraphAccumulation *acc = g_ptr_array_index (step->accumulations, i);
      GtkWidget *flow = flow_new (section);
      if (i > 0)
        gtk_widget_set_margin_top (flow, 8);
      flow_add (flow, cr_card_fraction_new (acc->name, CR_ROLE_OUT), FALSE);
      flow_add (flow, term ("+=", value (acc->contribution, CR_ROLE_OUT)), FALSE);
      GtkWidget *sum = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *sum_label = cr_card_label_new ("sum so far", "cr-footnote");
      gtk_box_append (GTK_BOX (sum), sum_label);
      gtk_box_append (GTK_BOX (sum), value (acc->sum, CR_ROLE_OUT));
      flow_add (flow, term ("=", sum), TRUE);
    }
  gtk_box_append (GTK_BOX (section), cr_card_label_new (
    "Gradient reaches this tensor along more than one path; the contributions add up.",
    "cr-footnote"));
}

static GtkWidget *
build_step (const CrGraphModel *model,
            const CrGraphStep  *step)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), build_header (model, step));
  build_incoming (box, step);
  if (step->leaf_name)
    build_leaf_grad (box, step);
  else if (step->inputs)
    {
      build_local (box, step);
      build_sent (box, step);
    }
  build_accumulations (box, step);
  if (!model->succeeded && step->index + 1 == model->n_steps)
    gtk_box_append (GTK_BOX (box), cr_card_label_new (
      "The backward call stopped with an error after this step.", "error"));
  return box;
}

/* ---- the widget -------------------------------------------------------- */

static void
cr_step_card_dispose (GObject *object)
{
  CrStepCard *self = CR_STEP_CARD (object);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  G_OBJECT_CLASS (cr_step_card_parent_class)->dispose (object);
}

static void
cr_step_card_class_init (CrStepCardClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cr_step_card_dispose;
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cr-step-card");
}

static void
cr_step_card_init (CrStepCard *self)
{
  cr_card_style_ensure ();
}

GtkWidget *
cr_step_card_new (void)
{
  GtkWidget *self = g_object_new (CR_TYPE_STEP_CARD, NULL);
  cr_step_card_set_step (CR_STEP_CARD (self), NULL, -1);
  return self;
}

void
cr_step_card_set_step (CrStepCard         *self,
                       const CrGraphModel *model,
                       int                 step)
{
  g_return_if_fail (CR_IS_STEP_CARD (self));

  const CrGraphStep *s = model_step (model, step);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  self->content = s ? build_step (model, s) : build_intro (model);
  gtk_widget_set_parent (self->content, GTK_WIDGET (self));
}
