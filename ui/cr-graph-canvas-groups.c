/* cr-graph-canvas-groups.c — module code on the canvas: the run's model
 * grouped by module call (render/cr-graph-groups.h), shown collapsed so
 * that about CR_GRAPH_CANVAS_GROUP_NODES nodes show; a click on a closed
 * group opens it. Which groups are open is kept by key, so a re-run of an
 * edited script keeps what the person opened. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

/* The first view of a graph too big to read whole shows about this many. */
#define CR_GRAPH_CANVAS_GROUP_NODES 40
/* The height of an open group's title strip at the top of its box, in
 * layout points (cr-graph-clusters.c leaves room for an 8.5 pt title). */
#define CR_GRAPH_CANVAS_TITLE_STRIP 18.0

void
cr_graph_canvas_groups_clear (CrGraphCanvas *self)
{
  g_clear_pointer (&self->collapse, cr_graph_collapse_free);
  g_clear_pointer (&self->groups, cr_graph_groups_free);
  g_clear_pointer (&self->groups_open, g_free);
  g_clear_pointer (&self->groups_open_at_level, g_free);
  g_clear_pointer (&self->full_model, cr_graph_model_unref);
  g_clear_pointer (&self->offered_groups, cr_graph_groups_free);
}

void
cr_graph_canvas_offer_groups (CrGraphCanvas *self,
                              CrGraphGroups *groups)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  g_clear_pointer (&self->offered_groups, cr_graph_groups_free);
  self->offered_groups = groups;
}

CrGraphModel *
cr_graph_canvas_groups_take (CrGraphCanvas *self,
                             CrGraphModel  *full)
{
  /* Groups made on the run's worker, when they are this model's. */
  CrGraphGroups *offered = g_steal_pointer (&self->offered_groups);
  /* The groups opened in the last graph, by key. */
  g_autoptr (GHashTable) was_open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; self->groups && i < self->groups->groups->len; i++)
    if (self->groups_open[i])
      g_hash_table_add (was_open,
                        g_strdup (((CrGraphGroup *) g_ptr_array_index (self->groups->groups, i))->key));
  gboolean had_groups = self->groups && self->groups->groups->len > 0;
  cr_graph_canvas_groups_clear (self);
  if (offered && (!full || offered->model != full))
    g_clear_pointer (&offered, cr_graph_groups_free);
  if (!full)
    return NULL;

  self->full_model = full;
  self->groups = offered ? offered : cr_graph_groups_new (full);
  if (self->groups->groups->len == 0)
    return cr_graph_model_ref (full);

  /* A repeated block shows once ("Block × 3"); the rest opens as deep as
   * about 40 nodes allow. */
  self->groups_open = cr_graph_groups_open_first_view (self->groups, CR_GRAPH_CANVAS_GROUP_NODES,
                                                       &self->groups_level);
  /* The depth control shows the level of the shallowest closed group
   * shown, so that "−" closes more and "+" opens it. */
  for (guint i = 0; i < self->groups->groups->len; i++)
    {
      const CrGraphGroup *g = g_ptr_array_index (self->groups->groups, i);
      if (!self->groups_open[i] && (g->parent < 0 || self->groups_open[g->parent]))
        self->groups_level = MIN (self->groups_level, g->level);
    }
  self->groups_open_at_level = g_memdup2 (self->groups_open,
                                          self->groups->groups->len * sizeof (gboolean));
  if (had_groups)
    for (guint i = 0; i < self->groups->groups->len; i++)
      {
        const CrGraphGroup *g = g_ptr_array_index (self->groups->groups, i);
        self->groups_open[i] = g_hash_table_contains (was_open, g->key);
      }
  self->collapse = cr_graph_collapse_new (self->groups, self->groups_open);
  return cr_graph_model_ref (self->collapse->model);
}

guint
cr_graph_canvas_get_group_height (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), 0);
  return self->groups ? self->groups->height : 0;
}

guint
cr_graph_canvas_get_group_level (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), 0);
  return self->collapse ? self->groups_level : cr_graph_canvas_get_group_height (self);
}

/* After a change of what is open, the current step stays in sight: its
 * node, or the closed group that holds it. Without a step, what changed
 * does: the group just opened (its box) or closed (its node); after a new
 * depth (changed: -1), the selected node. */
static void
keep_in_view (CrGraphCanvas *self,
              int            changed)
{
  const CrGraphCollapse *collapse = self->collapse;
  const CrGraphLayout *layout = self->layout;
  if (!collapse || !layout)
    return;
  if (self->step >= 0 && (guint) self->step < collapse->n_steps)
    {
      guint node = collapse->step_node[self->step];
      if (node != G_MAXUINT && node < layout->n_nodes)
        {
          cr_graph_canvas_scroll_to_box (self, &layout->nodes[node]);
          return;
        }
    }
  if (changed < 0)
    {
      if (self->selected >= 0 && (guint) self->selected < layout->n_nodes)
        cr_graph_canvas_scroll_to_box (self, &layout->nodes[self->selected]);
      return;
    }
  if (layout->n_clusters == collapse->boxes->len)
    for (guint i = 0; i < collapse->boxes->len; i++)
      if (((CrGraphGroupBox *) g_ptr_array_index (collapse->boxes, i))->group == changed)
        {
          cr_graph_canvas_scroll_to_box (self, &layout->clusters[i]);
          return;
        }
  for (guint n = 0; n < collapse->model->nodes->len && n < layout->n_nodes; n++)
    if (collapse->group_of[n] == changed)
      {
        cr_graph_canvas_scroll_to_box (self, &layout->nodes[n]);
        return;
      }
}

/* Shows the groups as self->groups_open says; changed: the group opened or
 * closed (-1: a new level), kept in sight when no step is. */
static void
show_open (CrGraphCanvas *self,
           int            changed)
{
  CrGraphCollapse *collapse = cr_graph_collapse_new (self->groups, self->groups_open);
  CrGraphModel *shown = cr_graph_model_ref (collapse->model);
  /* The old collapse goes after the canvas has let go of its model. */
  CrGraphCollapse *old = self->collapse;
  self->collapse = collapse;
  cr_graph_canvas_show_collapsed (self, shown);
  cr_graph_collapse_free (old);
  keep_in_view (self, changed);
}

void
cr_graph_canvas_set_group_level (CrGraphCanvas *self,
                                 guint          level)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  if (!self->collapse)
    return;
  level = MIN (level, self->groups->height);
  g_free (self->groups_open);
  self->groups_open = cr_graph_groups_open_to_level (self->groups, level);
  self->groups_level = level;
  g_free (self->groups_open_at_level);
  self->groups_open_at_level = g_memdup2 (self->groups_open,
                                          self->groups->groups->len * sizeof (gboolean));
  show_open (self, -1);
}

/* Whether group i shows open under open: it and every group around it. */
static gboolean
shows_open (const CrGraphGroups *groups,
            const gboolean      *open,
            int                  i)
{
  for (; i >= 0; i = cr_graph_groups_get (groups, (guint) i)->parent)
    if (!open[i])
      return FALSE;
  return TRUE;
}

gboolean
cr_graph_canvas_get_group_level_mixed (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  if (!self->collapse || !self->groups_open_at_level)
    return FALSE;
  for (guint i = 0; i < self->groups->groups->len; i++)
    if (shows_open (self->groups, self->groups_open, (int) i)
        != shows_open (self->groups, self->groups_open_at_level, (int) i))
      return TRUE;
  return FALSE;
}

int
cr_graph_canvas_step_unit (CrGraphCanvas *self,
                           int            direction)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  int n = (int) cr_graph_canvas_get_n_steps (self);
  int step = cr_graph_canvas_get_step (self);
  int next = self->collapse ? cr_graph_collapse_next_step (self->collapse, step, direction)
                            : step + (direction >= 0 ? 1 : -1);
  return CLAMP (next, -1, n - 1);
}

/* ---- the depth control ------------------------------------------------------ */

typedef struct {
  CrGraphCanvas *canvas;   /* weak */
  GtkSpinButton *spin;
  gboolean       updating;
  GtkWidget     *mixed;    /* "mixed": shown when no one depth shows the view (groups
                            * opened or closed by hand); the spin keeps the depth last
                            * set, that − and + step from */
} DepthControl;

static void
depth_control_update (DepthControl *d,
                      GtkWidget    *box)
{
  guint height = d->canvas ? cr_graph_canvas_get_group_height (d->canvas) : 0;
  d->updating = TRUE;
  gtk_spin_button_set_range (d->spin, 0, MAX (height, 1));
  gtk_spin_button_set_value (d->spin, d->canvas ? cr_graph_canvas_get_group_level (d->canvas) : 0);
  gtk_widget_set_visible (d->mixed, d->canvas && cr_graph_canvas_get_group_level_mixed (d->canvas));
  d->updating = FALSE;
  if (gtk_widget_get_visible (box) == (height > 0))
    return;
  gtk_widget_set_visible (box, height > 0);
  /* Where it floats over the graph, the first view keeps clear of it. */
  if (d->canvas)
    cr_graph_canvas_refit_if_auto (d->canvas);
}

static void
on_canvas_changed (GObject    *canvas,
                   GParamSpec *pspec,
                   gpointer    box)
{
  depth_control_update (g_object_get_data (box, "cr-depth-control"), box);
}

static void
on_depth_changed (GtkSpinButton *spin,
                  gpointer       data)
{
  DepthControl *d = data;
  if (d->updating || !d->canvas)
    return;
  cr_graph_canvas_set_group_level (d->canvas, (guint) gtk_spin_button_get_value_as_int (spin));
}

static void
depth_control_free (gpointer data)
{
  DepthControl *d = data;
  g_clear_weak_pointer (&d->canvas);
  g_free (d);
}

GtkWidget *
cr_graph_depth_control_new (CrGraphCanvas *canvas)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (canvas), NULL);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  gtk_widget_set_tooltip_text (box, "Depth: the groups (module calls, loop iterations, "
                                    "repeats) nested deeper than this show as one node each "
                                    "([ and ] change it; a click or O opens one, C closes the "
                                    "one around the selection)");
  GtkWidget *label = gtk_label_new ("Depth");
  gtk_widget_set_margin_start (label, 6);
  gtk_box_append (GTK_BOX (box), label);
  GtkWidget *spin = gtk_spin_button_new_with_range (0, 1, 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 0);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  /* Never the keyboard's: a focused spin's text would take the stepper's
   * keys (Space, the arrows, O, C, [ ]) and the window often focuses the
   * first widget it can. [ and ] change the depth from the keyboard. */
  gtk_editable_set_editable (GTK_EDITABLE (spin), FALSE);
  gtk_widget_set_can_focus (spin, FALSE);
  for (GtkWidget *c = gtk_widget_get_first_child (spin); c; c = gtk_widget_get_next_sibling (c))
    gtk_widget_set_focusable (c, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Module depth", -1);
  gtk_box_append (GTK_BOX (box), spin);

  GtkWidget *mixed = gtk_label_new ("mixed");
  gtk_widget_add_css_class (mixed, "dim-label");
  gtk_widget_set_margin_end (mixed, 4);
  gtk_widget_set_tooltip_text (mixed, "Groups opened or closed by hand: no one depth shows "
                                      "the graph. − and + set one depth again, from the one "
                                      "last set");
  gtk_box_append (GTK_BOX (box), mixed);

  DepthControl *d = g_new0 (DepthControl, 1);
  g_set_weak_pointer (&d->canvas, canvas);
  d->spin = GTK_SPIN_BUTTON (spin);
  d->mixed = mixed;
  g_object_set_data_full (G_OBJECT (box), "cr-depth-control", d, depth_control_free);
  g_signal_connect (spin, "value-changed", G_CALLBACK (on_depth_changed), d);
  /* A new model (n-steps is notified with each) or a level set elsewhere. */
  g_signal_connect_object (canvas, "notify::n-steps", G_CALLBACK (on_canvas_changed), box, 0);
  g_signal_connect_object (canvas, "notify::step", G_CALLBACK (on_canvas_changed), box, 0);
  depth_control_update (d, box);
  return box;
}

/* The open group whose box's title strip is at (x, y), widget
 * coordinates; -1: none. The innermost wins. */
static int
group_title_at (CrGraphCanvas *self,
                double         x,
                double         y)
{
  const CrGraphLayout *layout = self->layout;
  if (!layout || layout->n_clusters != self->collapse->boxes->len || self->zoom <= 0)
    return -1;
  double gx = (x - self->tx) / self->zoom, gy = (y - self->ty) / self->zoom;
  double strip = CR_GRAPH_CANVAS_TITLE_STRIP * (self->presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0);
  for (guint i = layout->n_clusters; i > 0; i--)
    {
      const CrGraphBox *b = &layout->clusters[i - 1];
      if (gx >= b->x && gx <= b->x + b->width && gy >= b->y && gy <= b->y + strip)
        return ((CrGraphGroupBox *) g_ptr_array_index (self->collapse->boxes, i - 1))->group;
    }
  return -1;
}

gboolean
cr_graph_canvas_groups_click (CrGraphCanvas *self,
                              int            node_id,
                              double         x,
                              double         y)
{
  if (!self->collapse)
    return FALSE;
  if (node_id < 0)
    {
      /* On an open group's title: it closes. */
      int open = group_title_at (self, x, y);
      if (open < 0)
        return FALSE;
      self->groups_open[open] = FALSE;
      show_open (self, open);
      return TRUE;
    }
  if ((guint) node_id >= self->collapse->model->nodes->len)
    return FALSE;
  int group = self->collapse->group_of[node_id];
  if (group < 0)
    return FALSE;
  self->groups_open[group] = TRUE;
  show_open (self, group);
  return TRUE;
}

/* ---- the keys ---------------------------------------------------------------- */

/* The node of the shown model the keys act on: the selected one, else the
 * one showing the current step; -1: none. */
static int
key_node (CrGraphCanvas *self)
{
  const CrGraphCollapse *collapse = self->collapse;
  if (self->selected >= 0 && (guint) self->selected < collapse->model->nodes->len)
    return self->selected;
  if (self->step >= 0 && (guint) self->step < collapse->n_steps)
    {
      guint node = collapse->step_node[self->step];
      return node == G_MAXUINT ? -1 : (int) node;
    }
  return -1;
}

gboolean
cr_graph_canvas_open_group (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  if (!self->collapse)
    return FALSE;
  int node = key_node (self);
  int group = node >= 0 ? self->collapse->group_of[node] : -1;
  if (group < 0)
    return FALSE;
  self->groups_open[group] = TRUE;
  show_open (self, group);
  return TRUE;
}

gboolean
cr_graph_canvas_close_group (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  if (!self->collapse)
    return FALSE;
  int node = key_node (self);
  if (node < 0)
    return FALSE;
  /* A closed group's node closes the open group around it; a node shown as
   * itself, the innermost group it is in (every group around it is open). */
  int group = self->collapse->group_of[node];
  if (group >= 0)
    group = cr_graph_groups_get (self->groups, group)->parent;
  else
    group = self->groups->node_group[self->collapse->full_node[node]];
  if (group < 0)
    return FALSE;
  self->groups_open[group] = FALSE;
  show_open (self, group);
  /* The keys go on from the group just closed: C again closes its parent. */
  for (guint i = 0; i < self->collapse->model->nodes->len; i++)
    if (self->collapse->group_of[i] == group)
      {
        cr_graph_canvas_set_selected (self, (int) i);
        break;
      }
  /* Selecting it may have moved the view: the step comes first. */
  keep_in_view (self, group);
  return TRUE;
}
