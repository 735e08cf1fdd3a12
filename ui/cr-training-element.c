/* cr-training-element.c — the Training page's element picker
 * (cr-training-element.h). */
#include "cr-training-element.h"

#include "cr-training.h"
#include "cr-training-rules.h"

#include <math.h>
#include <string.h>

/* A grid of cells for a parameter of up to MAX_GRID_CELLS elements: a
 * vector wraps into rows of VECTOR_COLUMNS, a matrix (or a tensor, its
 * last dimension across) keeps its rows. Four cells of "-0.7841" fit the
 * sidebar's narrowest (305 px at 1366x768), which the page must not widen:
 * a wider or taller grid scrolls, with its column and row indices beside
 * it, and the focused cell scrolled into view (arrow keys move the focus
 * from cell to cell). */
#define VECTOR_COLUMNS 4
#define MAX_GRID_CELLS 256
/* Rows shown before the grid scrolls, in rows of cells. */
#define VISIBLE_ROWS 8

struct _CrTrainingElement
{
  GtkBox       parent_instance;

  /* Owned */
  CrRunRecord *record;
  GPtrArray   *params;      /* of CrTrainingParam* */
  GArray      *elements;    /* of gint64: each parameter's element */
  GHashTable  *kept;        /* name → KeptElement*: the picks of the record before */
  char        *kept_param;  /* the parameter picked before a re-run */
  guint        param;
  int          chosen;      /* backward call */
  gboolean     updating;    /* setting the widgets, not a person */

  /* Borrowed (children) */
  GtkWidget   *dropdown;
  GtkWidget   *index_label;
  GtkWidget   *spin_box;    /* a flow box: the spins wrap in a narrow sidebar */
  GPtrArray   *spins;       /* GtkSpinButton*, one a dimension */
  GtkWidget   *grid_scroller; /* scrolls a grid wider or taller than the sidebar */
  GtkWidget   *grid;
  GPtrArray   *cells;       /* GtkToggleButton*, row-major; empty: no grid */
  GtkWidget   *note;
};

/* A parameter's element as it was, and its size then. */
typedef struct {
  gint64 numel;
  gint64 element;
} KeptElement;

G_DEFINE_FINAL_TYPE (CrTrainingElement, cr_training_element, GTK_TYPE_BOX)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

/* ---- the parameter ------------------------------------------------------------ */

static const CrRecordUpdate *
update_at (CrTrainingElement     *self,
           const CrTrainingParam *param,
           guint                  k)
{
  return g_ptr_array_index (self->record->updates, g_array_index (param->updates, guint, k));
}

/* The parameter's shape: its first update's value. */
static const CrTensorSnapshot *
shape_of (CrTrainingElement *self,
          guint              p)
{
  if (!self->params || p >= self->params->len)
    return NULL;
  const CrTrainingParam *param = g_ptr_array_index (self->params, p);
  if (param->updates->len == 0)
    return NULL;
  const CrRecordUpdate *first = update_at (self, param, 0);
  return first->after ? first->after : first->before;
}

static gint64
numel_of (CrTrainingElement *self,
          guint              p)
{
  const CrTensorSnapshot *s = shape_of (self, p);
  return s ? MAX (s->numel, 1) : 1;
}

/* What the cells show: the value after the update that followed the
 * chosen call, else after the last update before it, else before the first. */
static const CrTensorSnapshot *
values_at_chosen (CrTrainingElement *self,
                  guint              p)
{
  const CrTrainingParam *param = g_ptr_array_index (self->params, p);
  const CrTensorSnapshot *shown = NULL;
  for (guint k = 0; k < param->updates->len; k++)
    {
      const CrRecordUpdate *u = update_at (self, param, k);
      if (u->backward > self->chosen)
        break;
      shown = u->after;
    }
  if (!shown && param->updates->len > 0)
    shown = update_at (self, param, 0)->before;
  return shown;
}

/* ---- the cells ---------------------------------------------------------------- */

static void
update_cells (CrTrainingElement *self)
{
  if (self->cells->len == 0)
    return;
  const CrTensorSnapshot *values = values_at_chosen (self, self->param);
  const CrTrainingParam *param = g_ptr_array_index (self->params, self->param);
  const CrTensorSnapshot *shape = shape_of (self, self->param);
  gint64 picked = g_array_index (self->elements, gint64, self->param);
  self->updating = TRUE;
  for (guint i = 0; i < self->cells->len; i++)
    {
      GtkWidget *cell = g_ptr_array_index (self->cells, i);
      double v = cr_training_value_at (values, i);
      char number[G_ASCII_DTOSTR_BUF_SIZE] = "?";
      if (!isnan (v))
        g_ascii_formatd (number, sizeof number, "%.3g", v);
      gtk_button_set_label (GTK_BUTTON (cell), number);
      g_autofree char *index = cr_training_index_text (shape, i);
      g_autofree char *tip = g_strdup_printf ("%s%s = %s: follow this element", param->name, index, number);
      gtk_widget_set_tooltip_text (cell, tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (cell), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (cell), (gint64) i == picked);
    }
  self->updating = FALSE;
}

static void set_element (CrTrainingElement *self,
                         gint64             element);

static void
cell_toggled (GtkToggleButton   *cell,
              CrTrainingElement *self)
{
  if (self->updating || !gtk_toggle_button_get_active (cell))
    return;
  guint i;
  if (g_ptr_array_find (self->cells, cell, &i))
    set_element (self, i);
}

/* Rows and columns of the grid of a parameter of shape s: FALSE when it
 * gets none (one number, or more than MAX_GRID_CELLS). */
static gboolean
grid_shape (const CrTensorSnapshot *s,
            gint64                 *rows,
            gint64                 *columns)
{
  if (!s || s->numel <= 1 || s->numel > MAX_GRID_CELLS || s->ndim < 1)
    return FALSE;
  *columns = s->ndim == 1 ? MIN (s->numel, VECTOR_COLUMNS) : MAX (s->shape[s->ndim - 1], 1);
  *rows = (s->numel + *columns - 1) / *columns;
  return TRUE;
}

/* An index heading the grid's columns or rows: dim, small. */
static GtkWidget *
index_label (const char *text,
             float       xalign)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "cr-training-index");
  return label;
}

/* The cell that gets the focus scrolls into view: GtkViewport's own
 * scroll-to-focus follows the focus child of its direct child only. */
static void
scroll_to_cell (CrTrainingElement *self,
                GtkWidget         *cell)
{
  graphene_rect_t bounds;
  if (!gtk_widget_compute_bounds (cell, self->grid, &bounds))
    return;
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (self->grid_scroller);
  GtkAdjustment *adjustments[2] = {
    gtk_scrolled_window_get_hadjustment (scroller), gtk_scrolled_window_get_vadjustment (scroller),
  };
  double from[2] = { bounds.origin.x, bounds.origin.y };
  double size[2] = { bounds.size.width, bounds.size.height };
  for (guint i = 0; i < 2; i++)
    {
      double value = gtk_adjustment_get_value (adjustments[i]);
      double page = gtk_adjustment_get_page_size (adjustments[i]);
      if (from[i] < value)
        gtk_adjustment_set_value (adjustments[i], from[i]);
      else if (from[i] + size[i] > value + page)
        gtk_adjustment_set_value (adjustments[i], from[i] + size[i] - page);
    }
}

static void
cell_focused (GtkEventControllerFocus *focus,
              CrTrainingElement       *self)
{
  scroll_to_cell (self, gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (focus)));
}

/* A taller grid shows VISIBLE_ROWS rows and scrolls: as tall as that many
 * cells at the type in use (presentation's is larger). */
static void
fit_grid_height (CrTrainingElement *self)
{
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (self->grid_scroller);
  int height = -1;
  if (self->cells->len > 0)
    {
      int cell = 0, spacing = gtk_grid_get_row_spacing (GTK_GRID (self->grid));
      gtk_widget_measure (g_ptr_array_index (self->cells, 0), GTK_ORIENTATION_VERTICAL, -1,
                          NULL, &cell, NULL, NULL);
      /* The column indices' row and a horizontal scrollbar's room too. */
      height = (VISIBLE_ROWS + 1) * (cell + spacing) + cell / 2;
    }
  gtk_scrolled_window_set_max_content_height (scroller, height);
}

static void
build_cells (CrTrainingElement *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (self->grid)))
    gtk_grid_remove (GTK_GRID (self->grid), child);
  g_ptr_array_set_size (self->cells, 0);
  const CrTensorSnapshot *s = shape_of (self, self->param);
  gint64 rows = 0, columns = 0;
  gboolean shown = grid_shape (s, &rows, &columns);
  gtk_widget_set_visible (self->grid_scroller, shown);
  if (!shown)
    return;
  /* A grid that scrolls, or a tensor's, says which index each cell has. */
  gboolean indices = columns > VECTOR_COLUMNS || rows > VISIBLE_ROWS || s->ndim > 2;
  int top = indices ? 1 : 0, left = indices ? 1 : 0;
  for (gint64 c = 0; indices && c < columns; c++)
    {
      char text[24];
      g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, c);
      gtk_grid_attach (GTK_GRID (self->grid), index_label (text, 0.5), (int) c + left, 0, 1, 1);
    }
  for (gint64 r = 0; indices && r < rows; r++)
    {
      /* Row r's index: every dimension but the last. */
      g_autofree char *full = cr_training_index_text (s, r * columns);
      g_autofree char *text = s->ndim == 1 ? g_strdup_printf ("%" G_GINT64_FORMAT, r * columns)
                                           : g_strndup (full + 1, strlen (full) - 1);
      char *comma = s->ndim > 1 ? strrchr (text, ',') : NULL;
      if (comma)
        *comma = '\0';
      gtk_grid_attach (GTK_GRID (self->grid), index_label (text, 1), 0, (int) r + top, 1, 1);
    }
  GtkWidget *first = NULL;
  for (gint64 i = 0; i < s->numel; i++)
    {
      GtkWidget *cell = gtk_toggle_button_new ();
      gtk_widget_add_css_class (cell, "flat");
      gtk_widget_add_css_class (cell, "cr-training-cell");
      if (first)
        gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (cell), GTK_TOGGLE_BUTTON (first));
      else
        first = cell;
      g_signal_connect (cell, "toggled", G_CALLBACK (cell_toggled), self);
      GtkEventController *focus = gtk_event_controller_focus_new ();
      g_signal_connect (focus, "enter", G_CALLBACK (cell_focused), self);
      gtk_widget_add_controller (cell, focus);
      gtk_grid_attach (GTK_GRID (self->grid), cell, (int) (i % columns) + left, (int) (i / columns) + top,
                       1, 1);
      g_ptr_array_add (self->cells, cell);
    }
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->grid_scroller),
                                  columns > VECTOR_COLUMNS ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER,
                                  rows > VISIBLE_ROWS ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER);
  fit_grid_height (self);
}

/* ---- the index spins --------------------------------------------------------------- */

static void
update_spins (CrTrainingElement *self)
{
  const CrTensorSnapshot *s = shape_of (self, self->param);
  gint64 element = g_array_index (self->elements, gint64, self->param);
  self->updating = TRUE;
  for (int d = s ? s->ndim - 1 : -1; d >= 0 && (guint) d < self->spins->len; d--)
    {
      gint64 size = MAX (s->shape[d], 1);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->spins->pdata[d]), (double) (element % size));
      element /= size;
    }
  self->updating = FALSE;
}

static void
spin_changed (GtkSpinButton     *spin,
              CrTrainingElement *self)
{
  if (self->updating)
    return;
  const CrTensorSnapshot *s = shape_of (self, self->param);
  gint64 element = 0;
  for (guint d = 0; s && d < self->spins->len && (int) d < s->ndim; d++)
    element = element * s->shape[d] + gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->spins->pdata[d]));
  set_element (self, element);
}

static void
build_spins (CrTrainingElement *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (self->spin_box)))
    gtk_flow_box_remove (GTK_FLOW_BOX (self->spin_box), child);
  g_ptr_array_set_size (self->spins, 0);
  const CrTensorSnapshot *s = shape_of (self, self->param);
  const CrTrainingParam *param = g_ptr_array_index (self->params, self->param);
  int ndim = s && s->numel > 1 ? s->ndim : 0;
  gtk_widget_set_visible (self->index_label, ndim > 0);
  gtk_widget_set_visible (self->spin_box, ndim > 0);
  for (int d = 0; d < ndim; d++)
    {
      GtkWidget *spin = gtk_spin_button_new_with_range (0, (double) MAX (s->shape[d] - 1, 0), 1);
      gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
      gtk_editable_set_width_chars (GTK_EDITABLE (spin), 2);
      g_autofree char *tip = g_strdup_printf ("Index of %s in dimension %d (size %" G_GINT64_FORMAT ")",
                                              param->name, d, s->shape[d]);
      gtk_widget_set_tooltip_text (spin, tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
      g_signal_connect (spin, "value-changed", G_CALLBACK (spin_changed), self);
      gtk_flow_box_insert (GTK_FLOW_BOX (self->spin_box), spin, -1);
      /* The spin takes the focus, not the flow box's child around it. */
      gtk_widget_set_focusable (gtk_widget_get_parent (spin), FALSE);
      g_ptr_array_add (self->spins, spin);
    }
}

/* ---- what is picked ---------------------------------------------------------------- */

static void
update_note (CrTrainingElement *self)
{
  const CrTensorSnapshot *s = shape_of (self, self->param);
  const CrTrainingParam *param = g_ptr_array_index (self->params, self->param);
  g_autofree char *text = NULL;
  if (!s || s->numel <= 1)
    text = g_strdup_printf ("%s is one number.", param->name);
  else if (s->n_values < s->numel)
    text = g_strdup_printf ("The record keeps the first %" G_GINT64_FORMAT " of %s's %" G_GINT64_FORMAT
                            " values: elements after them show \"?\".", s->n_values, param->name,
                            s->numel);
  gtk_label_set_text (GTK_LABEL (self->note), text ? text : "");
  gtk_widget_set_visible (self->note, text != NULL);
}

static void
set_element (CrTrainingElement *self,
             gint64             element)
{
  element = CLAMP (element, 0, numel_of (self, self->param) - 1);
  gint64 *slot = &g_array_index (self->elements, gint64, self->param);
  if (*slot == element)
    return;
  *slot = element;
  update_spins (self);
  update_cells (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
show_param (CrTrainingElement *self)
{
  build_spins (self);
  build_cells (self);
  update_spins (self);
  update_cells (self);
  update_note (self);
}

static void
param_selected (GObject           *dropdown,
                GParamSpec        *pspec,
                CrTrainingElement *self)
{
  guint p = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));
  if (self->updating || !self->params || p >= self->params->len || p == self->param)
    return;
  self->param = p;
  show_param (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* The picks of the record going away, by name, for the one coming. */
static void
keep_picks (CrTrainingElement *self)
{
  if (!self->params)
    return;
  for (guint p = 0; p < self->params->len; p++)
    {
      const CrTrainingParam *param = g_ptr_array_index (self->params, p);
      KeptElement *kept = g_new (KeptElement, 1);
      kept->numel = numel_of (self, p);
      kept->element = g_array_index (self->elements, gint64, p);
      g_hash_table_replace (self->kept, g_strdup (param->name), kept);
    }
  if (self->param < self->params->len)
    {
      g_free (self->kept_param);
      self->kept_param = g_strdup (((const CrTrainingParam *) g_ptr_array_index (self->params, self->param))->name);
    }
}

void
cr_training_element_set_params (CrTrainingElement *self,
                                CrRunRecord       *record,
                                GPtrArray         *params)
{
  g_return_if_fail (CR_IS_TRAINING_ELEMENT (self));
  keep_picks (self);
  g_clear_pointer (&self->record, cr_run_record_unref);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_array_set_size (self->elements, 0);
  self->param = 0;
  gboolean any = record && params && params->len > 0;
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);
  if (any)
    {
      self->record = cr_run_record_ref (record);
      self->params = g_ptr_array_ref (params);
      for (guint p = 0; p < params->len; p++)
        {
          const CrTrainingParam *param = g_ptr_array_index (params, p);
          gtk_string_list_append (names, param->name);
          const KeptElement *kept = g_hash_table_lookup (self->kept, param->name);
          gint64 element = kept && kept->numel == numel_of (self, p) ? kept->element : 0;
          g_array_append_val (self->elements, element);
          if (g_strcmp0 (param->name, self->kept_param) == 0)
            self->param = p;
        }
    }
  self->updating = TRUE;
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->dropdown), G_LIST_MODEL (names));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->dropdown), self->param);
  self->updating = FALSE;
  gtk_widget_set_visible (self->dropdown, any && params->len > 1);
  if (any)
    show_param (self);
  /* Parameters of one number each have no element to pick. */
  gboolean several = FALSE;
  for (guint p = 0; any && p < params->len && !several; p++)
    several = numel_of (self, p) > 1;
  gtk_widget_set_visible (GTK_WIDGET (self), several);
}

void
cr_training_element_set_chosen (CrTrainingElement *self,
                                int                backward)
{
  g_return_if_fail (CR_IS_TRAINING_ELEMENT (self));
  self->chosen = backward;
  if (self->params)
    update_cells (self);
}

guint
cr_training_element_get_param (CrTrainingElement *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_ELEMENT (self), 0);
  return self->param;
}

gint64
cr_training_element_get_element (CrTrainingElement *self,
                                 guint              param)
{
  g_return_val_if_fail (CR_IS_TRAINING_ELEMENT (self), 0);
  return param < self->elements->len ? g_array_index (self->elements, gint64, param) : 0;
}

void
cr_training_element_pick (CrTrainingElement *self,
                          guint              param,
                          gint64             element)
{
  g_return_if_fail (CR_IS_TRAINING_ELEMENT (self));
  if (!self->params || param >= self->params->len)
    return;
  if (param != self->param)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->dropdown), param);
  set_element (self, element);
}

GtkWidget *
cr_training_element_get_cell (CrTrainingElement *self,
                              gint64             element)
{
  g_return_val_if_fail (CR_IS_TRAINING_ELEMENT (self), NULL);
  return element >= 0 && element < self->cells->len ? g_ptr_array_index (self->cells, element) : NULL;
}

/* ---- the widget ------------------------------------------------------------------- */

static void
cr_training_element_dispose (GObject *object)
{
  CrTrainingElement *self = CR_TRAINING_ELEMENT (object);
  g_clear_pointer (&self->record, cr_run_record_unref);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_pointer (&self->elements, g_array_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->kept_param, g_free);
  g_clear_pointer (&self->spins, g_ptr_array_unref);
  g_clear_pointer (&self->cells, g_ptr_array_unref);
  G_OBJECT_CLASS (cr_training_element_parent_class)->dispose (object);
}

/* Presentation's larger type: the grid's rows are taller. */
static void
cr_training_element_css_changed (GtkWidget         *widget,
                                 GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (cr_training_element_parent_class)->css_changed (widget, change);
  CrTrainingElement *self = CR_TRAINING_ELEMENT (widget);
  if (self->grid_scroller && gtk_widget_get_visible (self->grid_scroller))
    fit_grid_height (self);
}

static void
cr_training_element_class_init (CrTrainingElementClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cr_training_element_dispose;
  GTK_WIDGET_CLASS (klass)->css_changed = cr_training_element_css_changed;
  /* changed: the parameter or its element was picked. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cr_training_element_init (CrTrainingElement *self)
{
  self->elements = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->spins = g_ptr_array_new ();
  self->cells = g_ptr_array_new ();
  self->chosen = -1;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 4);

  self->spin_box = gtk_flow_box_new ();
  gtk_widget_add_css_class (self->spin_box, "cr-training-spins");
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->spin_box), GTK_SELECTION_NONE);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (self->spin_box), 4);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (self->spin_box), 4);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->spin_box), 8);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->dropdown = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->dropdown, "The parameter whose element is followed");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Parameter", -1);
  g_signal_connect (self->dropdown, "notify::selected", G_CALLBACK (param_selected), self);
  gtk_box_append (GTK_BOX (row), self->dropdown);
  gtk_box_append (GTK_BOX (self), row);
  /* "index" then a spin a dimension. */
  GtkWidget *index_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->index_label = gtk_label_new ("index");
  gtk_widget_add_css_class (self->index_label, "dim-label");
  gtk_box_append (GTK_BOX (index_row), self->index_label);
  gtk_widget_set_hexpand (self->spin_box, TRUE);
  gtk_box_append (GTK_BOX (index_row), self->spin_box);
  gtk_box_append (GTK_BOX (self), index_row);

  /* A grid to assistive technologies, and to the window's keys: its arrow
   * keys move from cell to cell (cr_window_focus_takes_arrows). */
  self->grid = g_object_new (GTK_TYPE_GRID, "accessible-role", GTK_ACCESSIBLE_ROLE_GRID, NULL);
  gtk_widget_set_halign (self->grid, GTK_ALIGN_START);
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 2);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 2);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->grid), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "The parameter's values: click one to follow it, or move "
                                  "with the arrow keys and press Space", -1);
  self->grid_scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->grid_scroller), TRUE);
  gtk_widget_set_hexpand (self->grid_scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->grid_scroller), self->grid);
  gtk_box_append (GTK_BOX (self), self->grid_scroller);

  self->note = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->note), 0);
  gtk_label_set_wrap (GTK_LABEL (self->note), TRUE);
  gtk_widget_add_css_class (self->note, "dim-label");
  gtk_box_append (GTK_BOX (self), self->note);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
cr_training_element_new (void)
{
  return g_object_new (CR_TYPE_TRAINING_ELEMENT, NULL);
}
