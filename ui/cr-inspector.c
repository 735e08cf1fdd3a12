/* cr-inspector.c — one node of the graph, every property a PyTorch user would
 * ask the tensor for, as libadwaita boxed lists: value, .grad, .grad_fn,
 * .is_leaf, .requires_grad, .retains_grad, shape, dtype, device, and for an
 * op the tensors it saved for backward (or that backward freed them). */
#include "cr-config.h"
#include "cr-inspector.h"

#include "cr-card-style.h"
#include "cr-tensor-view.h"

#include <adwaita.h>

struct _CrInspector
{
  GtkWidget  parent_instance;
  GtkWidget *content;
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
           gboolean    live)
{
  GtkWidget *badge = gtk_label_new (text);
  gtk_widget_add_css_class (badge, "cr-badge");
  if (live)
    gtk_widget_add_css_class (badge, "cr-live");
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

static GtkWidget *
build_header (const CrGraphNode *node)
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
    g_string_append_printf (caption, "%sline %d", caption->len ? " · " : "", node->span.line);
  if (caption->len)
    {
      GtkWidget *c = cr_card_label_new (caption->str, "monospace");
      gtk_widget_add_css_class (c, "dim-label");
      gtk_box_append (GTK_BOX (box), c);
    }
  g_string_free (caption, TRUE);
  if (node->step >= 0)
    {
      g_autofree char *ran = g_strdup_printf ("Backward ran it at step %d", node->step + 1);
      GtkWidget *r = cr_card_label_new (ran, "caption");
      gtk_widget_add_css_class (r, "dim-label");
      gtk_box_append (GTK_BOX (box), r);
    }
  return box;
}

static GtkWidget *
build_tensor_group (const CrGraphNode *node)
{
  const CrGraphNodeInfo *info = &node->info;
  GtkWidget *group = adw_preferences_group_new ();
  g_autofree char *title = info->name ? g_strdup_printf ("Tensor %s", info->name)
                                      : g_strdup ("Tensor");
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (node->kind == CR_GRAPH_NODE_OP)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                           "The tensor this op made.");
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);

  adw_preferences_group_add (g, tensor_row ("value", NULL, NULL, info->value, TRUE, NULL));
  const char *why_none = NULL;
  if (!info->grad)
    why_none = !info->requires_grad ? "requires_grad is False: no gradient is computed for it"
               : !info->is_leaf && !info->retains_grad
                 ? "Only leaves keep .grad; call .retain_grad() to keep this one's"
               : "No backward call has reached it";
  adw_preferences_group_add (g, tensor_row (".grad", why_none, NULL, info->grad, TRUE,
                                            info->grad ? CR_ROLE_OUT : NULL));
  adw_preferences_group_add (g, text_row (".grad_fn", info->grad_fn,
                                          "The function backward runs to pass the gradient on"));
  adw_preferences_group_add (g, text_row (".is_leaf", py_bool (info->is_leaf), NULL));
  adw_preferences_group_add (g, text_row (".requires_grad", py_bool (info->requires_grad), NULL));
  adw_preferences_group_add (g, text_row (".retains_grad", py_bool (info->retains_grad), NULL));

  g_autofree char *shape = info->value ? cr_graph_format_shape (info->value->shape,
                                                                info->value->ndim)
                                       : g_strdup (node->shape);
  if (shape)
    adw_preferences_group_add (g, text_row (".shape", shape, NULL));
  adw_preferences_group_add (g, text_row (".dtype", info->dtype, NULL));
  adw_preferences_group_add (g, text_row (".device", info->device, NULL));
  return group;
}

static GtkWidget *
build_saved_group (const CrGraphNode *node)
{
  const CrGraphNodeInfo *info = &node->info;
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Saved for backward");

  guint n = info->saved ? info->saved->len : 0;
  gboolean any_freed = FALSE;
  for (guint i = 0; i < n; i++)
    {
      const CrGraphSaved *saved = g_ptr_array_index (info->saved, i);
      any_freed |= saved->freed;
      GtkWidget *badge = saved->freed ? badge_new ("freed", FALSE) : NULL;
      adw_preferences_group_add (g, tensor_row (saved->name ? saved->name : "?", saved->shape,
                                                badge, saved->value,
                                                !saved->freed, CR_ROLE_LOCAL));
    }
  if (n == 0)
    adw_preferences_group_set_description (g, "This op's backward needs no saved tensors.");
  else if (any_freed)
    adw_preferences_group_set_description (
      g, "Backward freed these after using them; calling backward through this op "
         "again needs retain_graph=True.");
  else
    adw_preferences_group_set_description (
      g, "The inputs or outputs its local gradient is computed from.");
  return group;
}

/* A tensor the model kept no snapshot of (a constant): what the canvas shows. */
static GtkWidget *
build_plain_group (const CrGraphNode *node)
{
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Tensor");
  if (node->kind == CR_GRAPH_NODE_CONSTANT)
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
build_node (const CrGraphNode *node)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_box_append (GTK_BOX (box), build_header (node));
  if (node->info.has_tensor)
    gtk_box_append (GTK_BOX (box), build_tensor_group (node));
  else if (node->kind == CR_GRAPH_NODE_OP)
    {
      GtkWidget *group = adw_preferences_group_new ();
      adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Operation");
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                             "The script did not name the tensor it made.");
      g_autofree char *grad_fn = node->info.grad_fn ? g_strdup (node->info.grad_fn)
                                                    : g_strdup_printf ("<%s>", node->title);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                                 text_row ("grad_fn", grad_fn, NULL));
      gtk_box_append (GTK_BOX (box), group);
    }
  else if (node->shape || node->preview)
    gtk_box_append (GTK_BOX (box), build_plain_group (node));
  if (node->kind == CR_GRAPH_NODE_OP)
    gtk_box_append (GTK_BOX (box), build_saved_group (node));
  return box;
}

static void
cr_inspector_dispose (GObject *object)
{
  CrInspector *self = CR_INSPECTOR (object);
  g_clear_pointer (&self->content, gtk_widget_unparent);
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
}

GtkWidget *
cr_inspector_new (void)
{
  GtkWidget *self = g_object_new (CR_TYPE_INSPECTOR, NULL);
  cr_inspector_show_node (CR_INSPECTOR (self), NULL, -1);
  return self;
}

void
cr_inspector_show_node (CrInspector        *self,
                        const CrGraphModel *model,
                        int                 node_id)
{
  g_return_if_fail (CR_IS_INSPECTOR (self));

  const CrGraphNode *node = NULL;
  if (model && model->nodes && node_id >= 0 && (guint) node_id < model->nodes->len)
    node = g_ptr_array_index (model->nodes, node_id);
  g_clear_pointer (&self->content, gtk_widget_unparent);
  self->content = node ? build_node (node) : build_empty ();
  gtk_widget_set_parent (self->content, GTK_WIDGET (self));
}
