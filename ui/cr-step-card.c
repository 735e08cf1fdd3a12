/* cr-step-card.c — one backward step as the chain rule written out: what
 * arrives (∂L/∂out, blue), any hook that changed it on the way, the node's
 * local gradients (∂out/∂in, purple) and their product sent on to each input
 * (green), with the sum over broadcast dims when an input was broadcast, and
 * the real numbers under the symbols. What a step says is core's
 * (cr_step_text_new(), which the handout prints too), laid out by
 * cr-step-card-layout.c; the content is rebuilt on every step and the card
 * keeps no pointer to the record. The card before the first step is built
 * in cr-step-card-intro.c. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-step-text.h"
#include "cr-widget-same.h"

struct _CrStepCard
{
  GtkWidget  parent_instance;
  GtkWidget *content;
  CrStepCardPractice *practice;   /* owned; NULL until practice is first turned on */
};

G_DEFINE_FINAL_TYPE (CrStepCard, cr_step_card, GTK_TYPE_WIDGET)

typedef CrStepCardCtx Ctx;

/* ---- one step ---------------------------------------------------------- */

static GtkWidget *
build_step (const Ctx *c,
            int        index)
{
  const CrRecordStep *step = g_ptr_array_index (c->backward->steps, index);
  /* Practice: the step asks for what it computes instead of showing it. */
  if (cr_step_card_practice_asks (c, step))
    return cr_step_card_practice_build (c, step);
  g_autoptr (CrStepText) text = cr_step_text_new (c->record, c->backward_index, index);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), cr_step_card_layout_header (text));
  cr_step_card_practice_add_outcome (box, c, step);
  cr_step_card_layout_sections (box, text);
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
    return build_step (&c, step);
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
