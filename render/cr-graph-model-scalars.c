/* cr-graph-model-scalars.c — a small op's scalar graph as a graph model
 * (cr-graph-model-scalars.h). */
#include "cr-graph-model-scalars.h"

#include <math.h>

CrGraphModel *
cr_graph_model_new_from_op_scalars (const CrOpScalars *scalars,
                                    const CrRunRecord *record,
                                    guint              sub_step)
{
  CrGraphModel *model = cr_graph_model_new ();
  model->title = g_strdup (scalars->title);
  gboolean have_grads = scalars->step >= 0;
  guint n = scalars->nodes->len;
  /* The pills and input cards first, keeping the scalar nodes' indices. */
  for (guint i = 0; i < n; i++)
    {
      const CrScalarNode *s = scalars->nodes->pdata[i];
      CrGraphNode *node;
      if (s->kind == CR_SCALAR_NODE_INPUT)
        {
          const CrRecordTensor *t = record->tensors->pdata[s->tensor];
          /* The value in the title's large type, the gradient so far under it. */
          g_autofree char *title = g_strdup_printf ("%s = %.4g", s->label, s->value);
          node = cr_graph_model_add_node (model, t->requires_grad ? CR_GRAPH_NODE_LEAF
                                                                  : CR_GRAPH_NODE_CONSTANT,
                                          title);
          double grad = cr_op_scalars_grad_upto (scalars, s->tensor, s->element, sub_step);
          node->preview = have_grads && t->requires_grad && !isnan (grad)
                          ? g_strdup_printf ("grad %.4g", grad == 0 ? 0 : grad) : NULL;
          node->key = g_strdup_printf ("scalar:in:%d:%" G_GINT64_FORMAT, s->tensor, s->element);
        }
      else
        {
          /* The pill says the numbers ("1·5 + 2·7 = 19"), its caption the
           * equation in names; a copy ("=" in its circle) just its value. */
          g_autofree char *title = s->numbers ? g_strdup_printf ("%s = %.4g", s->numbers, s->value)
                                   : g_strcmp0 (s->operation, "=") == 0 ? g_strdup_printf ("%.4g", s->value)
                                   : g_strdup_printf ("%s = %.4g", s->operation, s->value);
          node = cr_graph_model_add_node (model, CR_GRAPH_NODE_OP, title);
          node->symbol = g_strdup (s->operation);
          node->caption = g_strdup (s->kind == CR_SCALAR_NODE_INNER ? s->label : s->equation);
          node->step = (int) s->sub_step;
          node->key = g_strdup_printf ("scalar:op:%u", i);
        }
    }
  /* Each output element's card after its pill. */
  for (guint i = 0; i < n; i++)
    {
      const CrScalarNode *s = scalars->nodes->pdata[i];
      if (s->kind != CR_SCALAR_NODE_OUTPUT)
        continue;
      g_autofree char *title = g_strdup_printf ("%s = %.4g", s->label, s->value);
      CrGraphNode *card = cr_graph_model_add_node (model, CR_GRAPH_NODE_OUTPUT, title);
      card->step = (int) s->sub_step;
      gboolean reached = have_grads && s->sub_step < sub_step && !isnan (s->grad);
      /* The same lines before and after, so the card keeps its size. */
      card->preview = !have_grads ? NULL
                      : reached ? g_strdup_printf ("grad %.4g", s->grad == 0 ? 0 : s->grad)
                      : g_strdup ("grad ·");
      card->key = g_strdup_printf ("scalar:out:%d:%" G_GINT64_FORMAT, s->tensor, s->element);
      cr_graph_model_add_edge (model, i, card->id, NULL);
    }
  for (guint i = 0; i < scalars->edges->len; i++)
    {
      const CrScalarEdge *e = scalars->edges->pdata[i];
      cr_graph_model_add_edge (model, e->from, e->to, g_strdup_printf ("%.3g", e->local));
    }
  return model;
}
