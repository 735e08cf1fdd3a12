/* cr-step-card.c — one backward step as the chain rule written out: what
 * arrives (∂L/∂out, blue), any hook that changed it on the way, the node's
 * local gradients (∂out/∂in, purple) and their product sent on to each input
 * (green), with the sum over broadcast dims when an input was broadcast, and
 * the real numbers under the symbols. Everything is read from the run
 * record's CrRecordStep; the content is rebuilt on every step and the card
 * keeps no pointer to the record. The card before the first step is built
 * in cr-step-card-intro.c, its error section in cr-step-card-error.c. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-soft-breaks.h"
#include "cr-formula-flow.h"
#include "cr-record-text.h"
#include "cr-step-text.h"
#include "cr-tensor-view.h"
#include "cr-widget-same.h"

#include <math.h>
#include <string.h>

struct _CrStepCard
{
  GtkWidget  parent_instance;
  GtkWidget *content;
  CrStepCardPractice *practice;   /* owned; NULL until practice is first turned on */
};

G_DEFINE_FINAL_TYPE (CrStepCard, cr_step_card, GTK_TYPE_WIDGET)

typedef CrStepCardCtx Ctx;

/* ---- pieces ---------------------------------------------------------- */

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
  flow_add (flow, cr_card_fraction_new (name ? name : "?", role), FALSE);
  flow_add (flow, term ("=", value (snapshot, role)), FALSE);
}

static GtkWidget *
mono_label (const char *text)
{
  GtkWidget *label = cr_card_label_new (text, "monospace");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

static gboolean
is_scalar (const CrTensorSnapshot *s)
{
  return !s || s->numel <= 1;
}

/* ---- one step ---------------------------------------------------------- */

static GtkWidget *
build_header (const Ctx          *c,
              const CrRecordStep *step)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  const CrRecordOp *op = step->kind == CR_RECORD_STEP_NODE ? cr_step_card_record_op (c, step->op) : NULL;
  gboolean accumulate = step->kind == CR_RECORD_STEP_ACCUMULATE;
  const char *symbol = op && op->symbol ? op->symbol : (accumulate ? "+=" : NULL);
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
  g_autofree char *count = cr_step_text_count (step->index, c->backward->steps->len);
  GtkWidget *count_label = cr_card_label_new (count, "caption-heading");
  gtk_widget_add_css_class (count_label, "dim-label");
  gtk_box_append (GTK_BOX (titles), count_label);
  const char *title = step->title ? step->title : op ? op->grad_fn : "?";
  /* A grad_fn name wraps between its words, never inside one (H8). */
  GtkWidget *title_label = cr_card_label_new (NULL, "title-3");
  cr_soft_breaks_set_name (GTK_LABEL (title_label), title);
  g_object_set_data_full (G_OBJECT (title_label), "cr-text", g_strdup (title), g_free);
  gtk_box_append (GTK_BOX (titles), title_label);
  g_autofree char *caption = cr_step_text_step_caption (c->record, step);
  if (caption)
    {
      GtkWidget *cap = cr_card_label_new (caption, "monospace");
      /* torch.nn.functional.binary_cross_entropy_with_logits wraps between
       * its names, not anywhere (H8). */
      cr_soft_breaks_set_name (GTK_LABEL (cap), caption);
      g_object_set_data_full (G_OBJECT (cap), "cr-text", g_strdup (caption), g_free);
      gtk_widget_add_css_class (cap, "dim-label");
      gtk_box_append (GTK_BOX (titles), cap);
    }
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (header), titles);
  return header;
}

/* Whether after is before times one number (every entry), and which. */
static gboolean
uniform_factor (const CrTensorSnapshot *before,
                const CrTensorSnapshot *after,
                double                 *factor)
{
  if (!before || !after || before->numel != after->numel || before->numel == 0
      || before->n_values < before->numel || after->n_values < after->numel)
    return FALSE;
  double f = 0;
  gboolean have = FALSE;
  for (gint64 i = 0; i < before->numel; i++)
    {
      double b = before->values[i], a = after->values[i];
      if (b == 0)
        {
          if (a != 0)
            return FALSE;
          continue;
        }
      double r = a / b;
      if (!have)
        {
          f = r;
          have = TRUE;
        }
      else if (fabs (r - f) > 1e-6 * MAX (1.0, fabs (f)))
        return FALSE;
    }
  *factor = f;
  return have;
}

/* Hooks ran on the gradient before this node used it: each as one line,
 * "hook double_it (line 4): [2, 4, 6] → [20, 40, 60]". */
static void
build_hooks (GtkWidget          *box,
             const Ctx          *c,
             const CrRecordStep *step)
{
  CrRecordHookSummary did;
  if (!cr_record_step_hook_summary (step, &did))
    return;
  GtkWidget *section = section_new (box, cr_step_text_hooks_heading (step), CR_ROLE_IN);
  gtk_widget_add_css_class (section, "cr-hooks");
  for (guint i = 0; i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      const char *label = cr_record_tensor_label (c->record, h->tensor, NULL);
      g_autofree char *head = cr_record_hook_title (h, label);
      GtkWidget *flow = flow_new (section);
      if (i > 0)
        gtk_widget_set_margin_top (flow, 8);
      if (h->kind == CR_RECORD_HOOK_RETAIN_GRAD)
        {
          /* "y.grad = [...]": what retain_grad() keeps. */
          g_autofree char *name = g_strdup_printf ("%s.grad", label ? label : "t");
          flow_add (flow, mono_label (name), FALSE);
          flow_add (flow, term ("=", value (h->after ? h->after : h->before, CR_ROLE_OUT)), FALSE);
          continue;
        }
      g_autofree char *colon = g_strdup_printf ("%s:", head);
      flow_add (flow, mono_label (colon), FALSE);
      flow_add (flow, value (h->before, CR_ROLE_IN), FALSE);
      if (h->after)
        {
          flow_add (flow, term ("→", value (h->after, CR_ROLE_IN)), FALSE);
          double factor;
          if (uniform_factor (h->before, h->after, &factor))
            {
              g_autofree char *what = cr_step_text_hook_factor (factor);
              GtkWidget *note = cr_card_label_new (what, "cr-footnote");
              gtk_box_append (GTK_BOX (section), note);
            }
        }
      else if (h->raised)
        {
          const CrRecordError *error = cr_record_backward_error (c->record, (int) c->backward_index);
          g_autofree char *raised = g_strdup_printf ("raised %s",
                                                     error && error->type ? error->type : "an error");
          flow_add (flow, term ("→", mono_label (raised)), FALSE);
        }
      else
        flow_add (flow, term ("→", mono_label ("None (unchanged)")), FALSE);
    }
  if (did.raised || did.tensor_hook)
    gtk_box_append (GTK_BOX (section), cr_card_label_new (
      cr_step_text_hooks_note (did.raised, did.changed), "cr-footnote"));
  if (did.retain)
    gtk_box_append (GTK_BOX (section), cr_card_label_new (CR_STEP_TEXT_RETAIN_NOTE, "cr-footnote"));
}

static void
build_incoming (GtkWidget          *box,
                const CrRecordStep *step)
{
  if (!step->incoming || step->incoming->len == 0)
    return;
  GtkWidget *section = section_new (box, step->incoming->len == 1 ? "Incoming gradient"
                                                                  : "Incoming gradients",
                                    CR_ROLE_IN);
  for (guint i = 0; i < step->incoming->len; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      GtkWidget *flow = flow_new (section);
      flow_add_equals (flow, g->name, g->value, CR_ROLE_IN);
    }
}

/* A backward call given the same root twice (torch.autograd.backward([y, y],
 * ...)) adds its gradients up before any step runs: shown on the first step
 * that takes that sum in, before its hooks. */
static void
build_roots (GtkWidget          *box,
             const Ctx          *c,
             const CrRecordStep *step)
{
  const GPtrArray *sums = c->backward->root_accumulations;
  g_autoptr (GArray) told = cr_record_step_root_sums (c->backward, step);
  if (told->len == 0)
    return;
  GtkWidget *section = section_new (box, "Roots added up", CR_ROLE_IN);
  for (guint t = 0; t < told->len; t++)
    {
      guint i = g_array_index (told, guint, t);
      const CrRecordAccumulation *acc = g_ptr_array_index (sums, i);
      /* The first root's gradient, which the others are added to. */
      const GPtrArray *roots = c->backward->root_grads;
      gboolean first = TRUE;
      for (guint k = 0; k < i && first; k++)
        first = ((const CrRecordAccumulation *) g_ptr_array_index (sums, k))->tensor != acc->tensor;
      for (guint k = 0; first && roots && k < roots->len; k++)
        {
          const CrRecordGrad *g = g_ptr_array_index (roots, k);
          if (g->tensor != acc->tensor)
            continue;
          flow_add_equals (flow_new (section), g->name, g->value, CR_ROLE_IN);
          break;
        }
      GtkWidget *flow = flow_new (section);
      flow_add (flow, cr_card_fraction_new (acc->name ? acc->name : "?", CR_ROLE_IN), FALSE);
      flow_add (flow, term ("+=", value (acc->contribution, CR_ROLE_IN)), FALSE);
      GtkWidget *sum = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      gtk_box_append (GTK_BOX (sum), cr_card_label_new ("sum so far", "cr-footnote"));
      gtk_box_append (GTK_BOX (sum), value (acc->sum, CR_ROLE_IN));
      flow_add (flow, term ("=", sum), TRUE);
    }
  gtk_box_append (GTK_BOX (section), cr_card_label_new (CR_STEP_TEXT_ROOTS_NOTE, "cr-footnote"));
}

static void
build_leaf_grad (GtkWidget          *box,
                 const Ctx          *c,
                 const CrRecordStep *step)
{
  const char *leaf = cr_record_tensor_label (c->record, step->leaf,
                                             step->caption ? step->caption : "leaf");
  g_autofree char *title = g_strdup_printf ("%s.grad", leaf);
  GtkWidget *section = section_new (box, title, CR_ROLE_OUT);
  GtkWidget *flow = flow_new (section);
  g_autofree char *name_text = g_strdup_printf ("%s:", title);
  flow_add (flow, mono_label (name_text), FALSE);
  flow_add (flow, value (step->grad_before, NULL), FALSE);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  if (step->grad_before && incoming)
    {
      /* .grad already held a gradient: the step adds to it. */
      flow_add (flow, term ("+", value (incoming->value, CR_ROLE_IN)), FALSE);
      flow_add (flow, term ("=", value (step->grad_after, CR_ROLE_OUT)), FALSE);
    }
  else
    flow_add (flow, term ("→", value (step->grad_after, CR_ROLE_OUT)), FALSE);
  g_autofree char *note = cr_step_text_leaf_note (leaf, step->grad_before != NULL);
  gtk_box_append (GTK_BOX (section), cr_card_label_new (note, "cr-footnote"));
}

/* A custom autograd.Function: its own backward ran, with the incoming
 * gradient as grad_output; what it returned is what each input gets. */
static void
build_custom (GtkWidget          *box,
              const Ctx          *c,
              const CrRecordStep *step)
{
  GtkWidget *section = section_new (box, "Your backward", CR_ROLE_LOCAL);
  gtk_widget_add_css_class (section, "cr-custom");
  g_autofree char *head = step->custom_span.line > 0
                          ? g_strdup_printf ("%s · line %d", step->custom_backward,
                                             step->custom_span.line)
                          : g_strdup (step->custom_backward);
  gtk_box_append (GTK_BOX (section), cr_card_label_new (head, "monospace"));
  GtkWidget *flow = flow_new (section);
  guint n_in = step->incoming ? step->incoming->len : 0;
  for (guint i = 0; i < n_in; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      g_autofree char *name = n_in == 1 ? g_strdup ("grad_output")
                                        : g_strdup_printf ("grad_outputs[%u]", i);
      flow_add (flow, mono_label (name), i > 0);
      flow_add (flow, term ("=", value (g->value, CR_ROLE_IN)), FALSE);
    }
  GtkWidget *ret = flow_new (section);
  flow_add (ret, mono_label ("returns"), FALSE);
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      flow_add (ret, term (i > 0 ? "," : NULL, value (in->outgoing.value, CR_ROLE_OUT)), FALSE);
    }
  if (step->inputs->len == 0)
    flow_add (ret, mono_label ("nothing"), FALSE);
  gtk_box_append (GTK_BOX (section), cr_card_label_new (CR_STEP_TEXT_CUSTOM_NOTE, "cr-footnote"));
}

static void
build_local (GtkWidget          *box,
             const CrRecordStep *step)
{
  gboolean any_local = FALSE;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
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
      g_autoptr (GPtrArray) parts = cr_step_text_split_rule (step->rule);
      for (guint i = 0; i < parts->len; i++)
        {
          GtkWidget *label = cr_card_label_new (g_ptr_array_index (parts, i), CR_ROLE_LOCAL);
          gtk_box_append (GTK_BOX (rules), label);
        }
      gtk_box_append (GTK_BOX (section), rules);
      if (!any_local)
        {
          const CrRecordGrad *g = cr_record_step_first_incoming (step);
          g_autofree char *note = cr_step_text_rule_note (step->rule, g ? g->name : NULL);
          gtk_box_append (GTK_BOX (section), cr_card_label_new (note, "cr-footnote"));
        }
    }
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (!in->local || !in->local_name)
        continue;
      GtkWidget *flow = flow_new (section);
      flow_add_equals (flow, in->local_name, in->local, CR_ROLE_LOCAL);
    }
}

/* The input's name as the card writes it: its record label ("y₃"), else
 * the step's own name for it. */
static const char *
input_label (const Ctx               *c,
             const CrRecordStepInput *in)
{
  return cr_record_tensor_label (c->record, in->tensor, in->name ? in->name : "the input");
}

static void
build_sent (GtkWidget          *box,
            const Ctx          *c,
            const CrRecordStep *step)
{
  if (step->inputs->len == 0)
    return;
  GtkWidget *section = section_new (box, "Sent on", CR_ROLE_OUT);
  gboolean elementwise = FALSE;
  const CrRecordStepInput *broadcast = NULL;
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);

  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      GtkWidget *flow = flow_new (section);
      if (i > 0)
        gtk_widget_set_margin_top (flow, 8);

      if (in->local && incoming && incoming->name && in->local_name)
        {
          const CrTensorSnapshot *in_value = incoming->value;
          const char *lhs = in->outgoing.name ? in->outgoing.name : input_label (c, in);
          flow_add (flow, cr_card_fraction_new (lhs, CR_ROLE_OUT), FALSE);
          flow_add (flow, term ("=", cr_card_fraction_new (incoming->name, CR_ROLE_IN)), FALSE);
          flow_add (flow, term ("×", cr_card_fraction_new (in->local_name, CR_ROLE_LOCAL)), FALSE);
          flow_add (flow, term ("=", value (in_value, CR_ROLE_IN)), TRUE);
          flow_add (flow, term ("×", value (in->local, CR_ROLE_LOCAL)), FALSE);
          if (in->reduction)
            {
              /* The product has the broadcast shape; its own line sums it
               * back to the input's shape. */
              flow_add (flow, term ("=", value (in->product, CR_ROLE_OUT)), FALSE);
              g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (c, in));
              GtkWidget *sum_line = flow_new (section);
              gtk_widget_add_css_class (sum_line, "cr-reduction");
              GtkWidget *how_label = cr_card_label_new (how, "cr-reduction-text");
              gtk_widget_set_valign (how_label, GTK_ALIGN_CENTER);
              flow_add (sum_line, term ("Σ", how_label), FALSE);
              flow_add (sum_line, term ("=", value (in->outgoing.value, CR_ROLE_OUT)), TRUE);
              broadcast = in;
            }
          else
            flow_add (flow, term ("=", value (in->outgoing.value, CR_ROLE_OUT)), FALSE);
          if (!is_scalar (in_value) || !is_scalar (in->local))
            elementwise = TRUE;
        }
      else
        {
          const char *name = in->outgoing.name ? in->outgoing.name : input_label (c, in);
          flow_add_equals (flow, name, in->outgoing.value, CR_ROLE_OUT);
          if (in->reduction)
            {
              g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (c, in));
              GtkWidget *note = cr_card_label_new (how, "cr-reduction-text");
              gtk_widget_add_css_class (note, "cr-footnote");
              gtk_box_append (GTK_BOX (section), note);
              broadcast = in;
            }
        }
      if (in->to_op < 0 && in->to_leaf < 0 && !in->outgoing.value)
        gtk_box_append (GTK_BOX (section),
                        cr_card_label_new (CR_STEP_TEXT_NO_GRADIENT_NOTE, "cr-footnote"));
    }
  if (elementwise)
    gtk_box_append (GTK_BOX (section), cr_card_label_new (CR_STEP_TEXT_ELEMENTWISE_NOTE,
                                                          "cr-footnote"));
  if (broadcast)
    {
      g_autofree char *from = cr_record_shape_text (broadcast->reduction->from_shape,
                                                    broadcast->reduction->from_ndim);
      g_autofree char *note = cr_step_text_broadcast_note (input_label (c, broadcast), from);
      gtk_box_append (GTK_BOX (section), cr_card_label_new (note, "cr-footnote"));
    }
}

static void
build_accumulations (GtkWidget          *box,
                     const CrRecordStep *step)
{
  if (!step->accumulations || step->accumulations->len == 0)
    return;
  GtkWidget *section = section_new (box, "Accumulated", CR_ROLE_OUT);
  for (guint i = 0; i < step->accumulations->len; i++)
    {
      const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, i);
      GtkWidget *flow = flow_new (section);
      if (i > 0)
        gtk_widget_set_margin_top (flow, 8);
      flow_add (flow, cr_card_fraction_new (acc->name ? acc->name : "?", CR_ROLE_OUT), FALSE);
      flow_add (flow, term ("+=", value (acc->contribution, CR_ROLE_OUT)), FALSE);
      GtkWidget *sum = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *sum_label = cr_card_label_new ("sum so far", "cr-footnote");
      gtk_box_append (GTK_BOX (sum), sum_label);
      gtk_box_append (GTK_BOX (sum), value (acc->sum, CR_ROLE_OUT));
      flow_add (flow, term ("=", sum), TRUE);
    }
  gtk_box_append (GTK_BOX (section), cr_card_label_new (CR_STEP_TEXT_ACCUMULATED_NOTE,
                                                        "cr-footnote"));
}

static GtkWidget *
build_step (const Ctx          *c,
            const CrRecordStep *step)
{
  /* Practice: the step asks for what it computes instead of showing it. */
  if (cr_step_card_practice_asks (c, step))
    return cr_step_card_practice_build (c, step);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), build_header (c, step));
  cr_step_card_practice_add_outcome (box, c, step);
  build_roots (box, c, step);
  build_hooks (box, c, step);
  build_incoming (box, step);
  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    build_leaf_grad (box, c, step);
  else if (step->custom_backward)
    {
      build_custom (box, c, step);
      build_sent (box, c, step);
    }
  else if (step->inputs)
    {
      build_local (box, step);
      build_sent (box, c, step);
    }
  build_accumulations (box, step);
  if (!c->backward->succeeded && step->index + 1 == c->backward->steps->len)
    cr_step_card_add_error (box, c, cr_step_card_step_error (c), CR_STEP_TEXT_STOPPED_LEAD);
  return box;
}

/* ---- the widget -------------------------------------------------------- */

static void
cr_step_card_dispose (GObject *object)
{
  CrStepCard *self = CR_STEP_CARD (object);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  g_clear_pointer (&self->practice, cr_step_card_practice_free);
  G_OBJECT_CLASS (cr_step_card_parent_class)->dispose (object);
}

static void
cr_step_card_class_init (CrStepCardClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cr_step_card_dispose;
  cr_step_card_practice_class_init (G_OBJECT_CLASS (klass));
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
  cr_step_card_show_record_step (CR_STEP_CARD (self), NULL, -1, -1);
  return self;
}

static void
set_content (CrStepCard *self,
             GtkWidget  *content)
{
  /* A card that shows what this one does (the same step after a re-run of
   * an edit that changed nothing it shows) is dropped: the one on screen is
   * measured and shaped already, a new one would be again in the next frame,
   * which was most of what showing the re-run's result cost. */
  if (self->content && cr_widget_same (self->content, content))
    {
      g_object_ref_sink (content);
      g_object_unref (content);
      return;
    }
  g_clear_pointer (&self->content, gtk_widget_unparent);
  self->content = content;
  gtk_widget_set_parent (self->content, GTK_WIDGET (self));
}

static GtkWidget *
build (const CrRunRecord  *record,
       int                 backward,
       int                 step,
       const char         *forward_title,
       CrStepCardPractice *practice)
{
  if (practice)
    cr_step_card_practice_showing (practice, record, backward, step);
  if (!record)
    return cr_step_card_build_no_graph ();
  if (backward < 0 || (guint) backward >= record->backwards->len)
    {
      for (guint i = 0; i < record->errors->len; i++)
        {
          const CrRecordError *error = g_ptr_array_index (record->errors, i);
          if (error->backward < 0)
            return cr_step_card_build_forward_error (record, error, forward_title);
        }
      return cr_step_card_build_forward_intro (forward_title);
    }
  Ctx c = {
    .record = record,
    .backward = g_ptr_array_index (record->backwards, backward),
    .backward_index = backward,
    .practice = practice,
  };
  if (step >= 0 && (guint) step < c.backward->steps->len)
    return build_step (&c, g_ptr_array_index (c.backward->steps, step));
  return cr_step_card_build_intro (&c);
}

void
cr_step_card_set_step (CrStepCard         *self,
                       const CrGraphModel *model,
                       int                 step)
{
  g_return_if_fail (CR_IS_STEP_CARD (self));

  if (!model)
    set_content (self, cr_step_card_build_no_graph ());
  else if (!model->record)
    set_content (self, cr_step_card_build_forward_intro (model->title));
  else
    set_content (self, build (model->record, model->backward, step, model->title,
                              self->practice));
}

void
cr_step_card_show_record_step (CrStepCard        *self,
                               const CrRunRecord *record,
                               int                backward,
                               int                step)
{
  g_return_if_fail (CR_IS_STEP_CARD (self));
  set_content (self, build (record, backward, step, NULL, self->practice));
}

/* ---- for practice (cr-step-card-practice.c) ------------------------------ */

GtkWidget *
cr_step_card_build_header (const Ctx          *c,
                           const CrRecordStep *step)
{
  return build_header (c, step);
}

void
cr_step_card_add_incoming (GtkWidget          *box,
                           const CrRecordStep *step)
{
  build_incoming (box, step);
}

void
cr_step_card_add_local (GtkWidget          *box,
                        const CrRecordStep *step)
{
  build_local (box, step);
}

CrStepCardPractice *
cr_step_card_get_practice_state (CrStepCard *self)
{
  g_return_val_if_fail (CR_IS_STEP_CARD (self), NULL);
  if (!self->practice)
    self->practice = cr_step_card_practice_new (self);
  return self->practice;
}

void
cr_step_card_show_record_forward (CrStepCard        *self,
                                  const CrRunRecord *record,
                                  int                op,
                                  guint              index,
                                  guint              n,
                                  gboolean           has_backward)
{
  g_return_if_fail (CR_IS_STEP_CARD (self));
  /* Practice asks what the op computes before the card tells it. */
  GtkWidget *asks = self->practice
    ? cr_step_card_practice_forward (self->practice, record, op, index, n, has_backward)
    : NULL;
  if (asks)
    {
      set_content (self, asks);
      return;
    }
  GtkWidget *box = cr_step_card_build_forward_step (record, op, index, n, has_backward);
  cr_step_card_practice_add_forward_outcome (box, self->practice);
  set_content (self, box);
}

void
cr_step_card_set_forward (CrStepCard         *self,
                          const CrGraphModel *model,
                          int                 op,
                          guint               index,
                          guint               n)
{
  g_return_if_fail (CR_IS_STEP_CARD (self));
  if (!model || !model->record)
    set_content (self, cr_step_card_build_no_graph ());
  else
    cr_step_card_show_record_forward (self, model->record, op, index, n, model->backward >= 0);
}
