/* cr-example-gallery.c — the page a person sees when choosing an example: a
 * title and a grid of cards, one per example, each with a thumbnail of the
 * example's graph, its title and its purpose.
 *
 * Thumbnails are made lazily, the first time the gallery is mapped. Each
 * example runs on a GTask worker thread, one after the other (the machine
 * the app runs on may have two cores, and the person may be typing); each
 * finished run's model comes back to the main thread, where a tick callback
 * lays out one graph a frame (graphviz is not thread-safe, and one layout
 * per frame keeps the page responsive; while the gallery is hidden the
 * layouts wait for it to show again). A card draws its graph from
 * the layout, scaled to fit, into a cached surface at the widget's scale
 * factor and light/dark style; a style or size change only redraws it. */
#include "cr-config.h"
#include "cr-example-gallery.h"

#include "cr-examples.h"
#include "cr-graph-layout.h"
#include "cr-graph-model.h"
#include "cr-graph-render.h"
#include "cr-script-run.h"

#include <adwaita.h>

/* The thumbnail's size in logical pixels, the room kept around the graph in
 * it, and the largest zoom: a two-node graph should not fill the card. */
#define THUMB_WIDTH     280
#define THUMB_HEIGHT    150
#define THUMB_PADDING   12.0
#define THUMB_MAX_SCALE 0.8
/* Between cards, and around the page. */
#define SPACING         18
#define PAGE_MARGIN     24

typedef struct _Card Card;

struct _CrExampleGallery
{
  GtkWidget     parent_instance;

  /* Owned */
  GPtrArray    *examples;       /* of CrExample*, in card order */
  GPtrArray    *cards;          /* of Card*, borrowed from the flow box children */
  GCancellable *cancellable;    /* cancelled when the gallery goes */
  GQueue        to_lay_out;     /* of Card*: runs finished, layout pending */
  guint         layout_tick_id;
  guint         next_run;       /* the next card whose example to run */
  gint         *cancel_flag;    /* the running job's (shared with it), or NULL */
  gboolean      started;
  gboolean      loading;

  /* Widgets (built in code) */
  GtkWidget    *scroller;
  GtkFlowBox   *flow_box;
};

G_DEFINE_FINAL_TYPE (CrExampleGallery, cr_example_gallery, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_LOADING,
  N_PROPS
};

enum {
  SIGNAL_EXAMPLE_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* One card: what its thumbnail needs. Owned by its flow box child. */
struct _Card
{
  const CrExample *example;     /* borrowed from the gallery */
  GtkWidget       *child;       /* the GtkFlowBoxChild (borrowed) */
  GtkStack        *stack;       /* "loading", "thumbnail", "none" */
  GtkWidget       *area;        /* the GtkDrawingArea */
  CrGraphModel    *model;
  CrGraphLayout   *layout;
  cairo_surface_t *cache;       /* the drawing for the size, scale and style below */
  int              cache_width, cache_height, cache_scale;
  gboolean         cache_dark;
};

static void
card_free (gpointer data)
{
  Card *card = data;
  g_clear_pointer (&card->cache, cairo_surface_destroy);
  g_clear_pointer (&card->layout, cr_graph_layout_free);
  g_clear_pointer (&card->model, cr_graph_model_unref);
  g_free (card);
}

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

/* The graph scaled to fit a width × height surface at the given scale factor
 * (new surface, device scale set, transparent where there is no graph). */
static cairo_surface_t *
render_thumbnail (const Card *card,
                  int         width,
                  int         height,
                  int         scale_factor,
                  gboolean    dark)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         width * scale_factor,
                                                         height * scale_factor);
  cairo_surface_set_device_scale (surface, scale_factor, scale_factor);
  cairo_t *cr = cairo_create (surface);

  double avail_w = MAX (width - 2 * THUMB_PADDING, 1.0);
  double avail_h = MAX (height - 2 * THUMB_PADDING, 1.0);
  double scale = MIN (avail_w / MAX (card->layout->width, 1.0),
                      avail_h / MAX (card->layout->height, 1.0));
  scale = MIN (scale, THUMB_MAX_SCALE);
  cairo_translate (cr, (width - card->layout->width * scale) / 2.0,
                   (height - card->layout->height * scale) / 2.0);
  cairo_scale (cr, scale, scale);

  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.style = dark ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  options.current_step = -1;
  /* The thumbnail's own background (the view colour, as on the canvas)
   * shows through. */
  options.draw_background = FALSE;
  cr_graph_render (cr, card->model, card->layout, &options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static void
draw_thumbnail (GtkDrawingArea *area,
                cairo_t        *cr,
                int             width,
                int             height,
                gpointer        user_data)
{
  Card *card = user_data;
  if (!card->model || !card->layout || width <= 0 || height <= 0)
    return;

  int scale_factor = gtk_widget_get_scale_factor (GTK_WIDGET (area));
  gboolean dark = is_dark ();
  if (!card->cache || card->cache_width != width || card->cache_height != height
      || card->cache_scale != scale_factor || card->cache_dark != dark)
    {
      g_clear_pointer (&card->cache, cairo_surface_destroy);
      card->cache = render_thumbnail (card, width, height, scale_factor, dark);
      card->cache_width = width;
      card->cache_height = height;
      card->cache_scale = scale_factor;
      card->cache_dark = dark;
    }
  cairo_set_source_surface (cr, card->cache, 0, 0);
  cairo_paint (cr);
}

/* A card's left-aligned label, wrapped to at most lines lines. */
static GtkWidget *
card_label_new (const char *text,
                const char *css_class,
                int         lines)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_widget_add_css_class (label, css_class);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (label), lines);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  /* Narrow natural widths: the thumbnail sets the card's width, and the
   * flow box fits as many cards on a line as their natural widths allow. */
  gtk_label_set_max_width_chars (GTK_LABEL (label), 10);
  return label;
}

static GtkWidget *
card_new (const CrExample *example,
          Card           **out_card)
{
  Card *card = g_new0 (Card, 1);
  card->example = example;

  GtkWidget *child = gtk_flow_box_child_new ();
  card->child = child;
  gtk_widget_add_css_class (child, "card");
  gtk_widget_add_css_class (child, "activatable");
  gtk_widget_add_css_class (child, "cr-example-card");
  /* The thumbnail's corners follow the card's rounded ones. */
  gtk_widget_set_overflow (child, GTK_OVERFLOW_HIDDEN);
  g_object_set_data_full (G_OBJECT (child), "cr-card", card, card_free);
  gtk_accessible_update_property (GTK_ACCESSIBLE (child),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, example->title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, example->purpose,
                                  -1);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_flow_box_child_set_child (GTK_FLOW_BOX_CHILD (child), box);

  /* The thumbnail: a spinner until the graph is laid out, then the graph, or
   * an icon when the example has no graph to show. */
  card->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_set_transition_type (card->stack, GTK_STACK_TRANSITION_TYPE_CROSSFADE);
  gtk_widget_add_css_class (GTK_WIDGET (card->stack), "cr-example-thumbnail");
  gtk_widget_set_size_request (GTK_WIDGET (card->stack), THUMB_WIDTH, THUMB_HEIGHT);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (card->stack));

  GtkWidget *spinner = gtk_spinner_new ();
  gtk_spinner_set_spinning (GTK_SPINNER (spinner), TRUE);
  gtk_widget_set_size_request (spinner, 24, 24);
  gtk_widget_set_halign (spinner, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (spinner, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (spinner, "dim-label");
  gtk_stack_add_named (card->stack, spinner, "loading");

  card->area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (card->area), THUMB_WIDTH);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (card->area), THUMB_HEIGHT);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (card->area), draw_thumbnail, card, NULL);
  gtk_stack_add_named (card->stack, card->area, "thumbnail");

  GtkWidget *none = gtk_image_new_from_icon_name ("text-x-generic-symbolic");
  gtk_image_set_pixel_size (GTK_IMAGE (none), 48);
  gtk_widget_add_css_class (none, "dim-label");
  gtk_stack_add_named (card->stack, none, "none");
  gtk_stack_set_visible_child_name (card->stack, "loading");

  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (text, 16);
  gtk_widget_set_margin_end (text, 16);
  gtk_widget_set_margin_top (text, 12);
  gtk_widget_set_margin_bottom (text, 16);
  gtk_box_append (GTK_BOX (box), text);

  gtk_box_append (GTK_BOX (text), card_label_new (example->title, "heading", 2));

  GtkWidget *purpose = card_label_new (example->purpose, "dim-label", 3);
  gtk_label_set_yalign (GTK_LABEL (purpose), 0.0);
  gtk_widget_set_vexpand (purpose, TRUE);
  gtk_widget_set_valign (purpose, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (text), purpose);

  *out_card = card;
  return child;
}

/* ---- thumbnails: runs on a worker, layouts on the main thread ---- */

typedef struct {
  char         *path;
  gint         *cancel_flag;    /* owned: the gallery's pointer is cleared before it is freed */
  CrGraphModel *model;
} RunJob;

static void
run_job_free (gpointer data)
{
  RunJob *job = data;
  g_free (job->path);
  g_free (job->cancel_flag);
  g_clear_pointer (&job->model, cr_graph_model_unref);
  g_free (job);
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunJob *job = task_data;
  g_autofree char *source = NULL;
  gsize length = 0;
  if (!g_file_get_contents (job->path, &source, &length, NULL))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* Output is discarded (NULL); a script that stops with an error still
   * shows the graph it built up to there, as the window does. */
  CrInterpOptions options = { .cancel_flag = job->cancel_flag };
  CrScriptRun run;
  cr_script_run (source, (gssize) length, job->path, &options, FALSE, &run);
  if (run.models && run.models->len > 0)
    job->model = g_ptr_array_steal_index (run.models, 0);
  cr_script_run_clear (&run);
  g_task_return_boolean (task, TRUE);
}

static void
set_loading (CrExampleGallery *self,
             gboolean          loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
check_done (CrExampleGallery *self)
{
  if (self->next_run >= self->cards->len && !self->cancel_flag
      && g_queue_is_empty (&self->to_lay_out))
    set_loading (self, FALSE);
}

/* A tick callback rather than an idle one: an idle at a priority below
 * redrawing starves while anything animates (the cards' spinners do), and
 * one above it would hold off every frame until all graphs are laid out.
 * One layout per frame keeps both going. */
static gboolean
lay_out_one (GtkWidget     *widget,
             GdkFrameClock *frame_clock,
             gpointer       user_data)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (widget);
  Card *card = g_queue_pop_head (&self->to_lay_out);
  if (card)
    {
      g_autoptr (GError) error = NULL;
      if (card->model)
        card->layout = cr_graph_render_layout (card->model, &error);
      if (card->layout)
        {
          gtk_stack_set_visible_child_name (card->stack, "thumbnail");
          gtk_widget_queue_draw (card->area);
        }
      else
        {
          if (error)
            g_debug ("%s: no thumbnail: %s", card->example->path, error->message);
          g_clear_pointer (&card->model, cr_graph_model_unref);
          gtk_stack_set_visible_child_name (card->stack, "none");
        }
    }
  if (!g_queue_is_empty (&self->to_lay_out))
    return G_SOURCE_CONTINUE;
  self->layout_tick_id = 0;
  check_done (self);
  return G_SOURCE_REMOVE;
}

static void start_next_run (CrExampleGallery *self);

static void
run_done (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;   /* The gallery is gone. */

  CrExampleGallery *self = user_data;
  RunJob *job = g_task_get_task_data (G_TASK (result));
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (result), "cr-index"));
  self->cancel_flag = NULL;
  if (index < self->cards->len)
    {
      Card *card = g_ptr_array_index (self->cards, index);
      card->model = g_steal_pointer (&job->model);
      g_queue_push_tail (&self->to_lay_out, card);
      if (!self->layout_tick_id)
        self->layout_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), lay_out_one,
                                                             NULL, NULL);
    }
  start_next_run (self);
}

static void
start_next_run (CrExampleGallery *self)
{
  if (self->next_run >= self->cards->len)
    {
      check_done (self);
      return;
    }
  guint index = self->next_run++;
  Card *card = g_ptr_array_index (self->cards, index);

  RunJob *job = g_new0 (RunJob, 1);
  job->path = g_strdup (card->example->path);
  job->cancel_flag = g_new0 (gint, 1);
  self->cancel_flag = job->cancel_flag;

  /* No source object: a run in progress must not keep the gallery alive;
   * run_done checks the cancellable before it touches the gallery. */
  g_autoptr (GTask) task = g_task_new (NULL, self->cancellable, run_done, self);
  g_task_set_task_data (task, job, run_job_free);
  g_task_set_source_tag (task, start_next_run);
  g_object_set_data (G_OBJECT (task), "cr-index", GUINT_TO_POINTER (index));
  g_task_run_in_thread (task, run_thread);
}

/* ---- the widget ---- */

static void
on_child_activated (GtkFlowBox       *flow_box,
                    GtkFlowBoxChild  *child,
                    CrExampleGallery *self)
{
  Card *card = g_object_get_data (G_OBJECT (child), "cr-card");
  if (card)
    g_signal_emit (self, signals[SIGNAL_EXAMPLE_ACTIVATED], 0, card->example->path);
}

static void
on_dark_changed (AdwStyleManager  *manager,
                 GParamSpec       *pspec,
                 CrExampleGallery *self)
{
  for (guint i = 0; i < self->cards->len; i++)
    {
      Card *card = g_ptr_array_index (self->cards, i);
      gtk_widget_queue_draw (card->area);
    }
}

static void
cr_example_gallery_map (GtkWidget *widget)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (widget);

  GTK_WIDGET_CLASS (cr_example_gallery_parent_class)->map (widget);
  /* Thumbnails cost a run each: make them when the gallery is first seen. */
  if (!self->started)
    {
      self->started = TRUE;
      set_loading (self, TRUE);
      start_next_run (self);
    }
}

/* Focus goes to the first card, so the arrow keys and Enter work at once
 * when the page is shown. */
static gboolean
cr_example_gallery_grab_focus (GtkWidget *widget)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (widget);
  GtkFlowBoxChild *first = self->flow_box ? gtk_flow_box_get_child_at_index (self->flow_box, 0) : NULL;
  if (first)
    return gtk_widget_grab_focus (GTK_WIDGET (first));
  return FALSE;
}

/* A few rules the stock style has no class for, once per display. */
static void
ensure_css (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  if (g_object_get_data (G_OBJECT (display), "cr-example-gallery-css"))
    return;
  g_autoptr (GtkCssProvider) provider = gtk_css_provider_new ();
  static const char css[] =
    "flowbox > flowboxchild.cr-example-card { padding: 0; }\n"
    ".cr-example-thumbnail { background-color: @view_bg_color;"
    " border-bottom: 1px solid alpha(currentColor, 0.08); }\n"
    ".cr-example-gallery-header .title-1 { margin-bottom: 6px; }\n";
  gtk_css_provider_load_from_data (provider, css, -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "cr-example-gallery-css",
                          g_steal_pointer (&provider), g_object_unref);
}

static void
cr_example_gallery_root (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (cr_example_gallery_parent_class)->root (widget);
  ensure_css (widget);
}

static void
cr_example_gallery_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_example_gallery_dispose (GObject *object)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (object);

  g_cancellable_cancel (self->cancellable);
  if (self->cancel_flag)
    g_atomic_int_set (self->cancel_flag, 1);
  self->cancel_flag = NULL;
  if (self->layout_tick_id)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->layout_tick_id);
  self->layout_tick_id = 0;
  g_queue_clear (&self->to_lay_out);
  if (self->cards)
    g_ptr_array_set_size (self->cards, 0);
  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  self->flow_box = NULL;

  G_OBJECT_CLASS (cr_example_gallery_parent_class)->dispose (object);
}

static void
cr_example_gallery_finalize (GObject *object)
{
  CrExampleGallery *self = CR_EXAMPLE_GALLERY (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->cards, g_ptr_array_unref);
  g_clear_pointer (&self->examples, g_ptr_array_unref);

  G_OBJECT_CLASS (cr_example_gallery_parent_class)->finalize (object);
}

static void
cr_example_gallery_class_init (CrExampleGalleryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = cr_example_gallery_get_property;
  object_class->dispose = cr_example_gallery_dispose;
  object_class->finalize = cr_example_gallery_finalize;
  widget_class->map = cr_example_gallery_map;
  widget_class->root = cr_example_gallery_root;
  widget_class->grab_focus = cr_example_gallery_grab_focus;

  /* TRUE from the first map until every card has its thumbnail (or knows it
   * has none). */
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_EXAMPLE_ACTIVATED] =
    g_signal_new ("example-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "examplegallery");
}

static void
cr_example_gallery_init (CrExampleGallery *self)
{
  self->cancellable = g_cancellable_new ();
  self->examples = cr_examples_list ();
  self->cards = g_ptr_array_new ();
  g_queue_init (&self->to_lay_out);

  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));

  /* Four cards a little wider than their thumbnails, their spacing and the
   * page's margins, no wider: on a wide screen the cards stay cards. */
  GtkWidget *clamp = adw_clamp_new ();
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp),
                              4 * (THUMB_WIDTH + 20) + 3 * SPACING + 2 * PAGE_MARGIN);
  /* No tightening: below the maximum the flow box takes all the width
   * there is, so four cards fit as soon as they can. */
  adw_clamp_set_tightening_threshold (ADW_CLAMP (clamp),
                                      4 * (THUMB_WIDTH + 20) + 3 * SPACING + 2 * PAGE_MARGIN);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), clamp);

  GtkWidget *page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  gtk_widget_set_margin_start (page, PAGE_MARGIN);
  gtk_widget_set_margin_end (page, PAGE_MARGIN);
  gtk_widget_set_margin_top (page, 36);
  gtk_widget_set_margin_bottom (page, 36);
  adw_clamp_set_child (ADW_CLAMP (clamp), page);

  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (header, "cr-example-gallery-header");
  gtk_box_append (GTK_BOX (page), header);
  GtkWidget *title = gtk_label_new ("Examples");
  gtk_widget_add_css_class (title, "title-1");
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (title),
                                  GTK_ACCESSIBLE_PROPERTY_LEVEL, 1, -1);
  gtk_box_append (GTK_BOX (header), title);
  GtkWidget *subtitle = gtk_label_new ("Pick an example to explore its graph");
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_label_set_wrap (GTK_LABEL (subtitle), TRUE);
  gtk_label_set_justify (GTK_LABEL (subtitle), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (header), subtitle);

  self->flow_box = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_homogeneous (self->flow_box, TRUE);
  gtk_flow_box_set_selection_mode (self->flow_box, GTK_SELECTION_NONE);
  gtk_flow_box_set_activate_on_single_click (self->flow_box, TRUE);
  gtk_flow_box_set_min_children_per_line (self->flow_box, 2);
  gtk_flow_box_set_max_children_per_line (self->flow_box, 4);
  gtk_flow_box_set_column_spacing (self->flow_box, SPACING);
  gtk_flow_box_set_row_spacing (self->flow_box, SPACING);
  gtk_widget_set_valign (GTK_WIDGET (self->flow_box), GTK_ALIGN_START);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->flow_box),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, "Examples", -1);
  g_signal_connect (self->flow_box, "child-activated", G_CALLBACK (on_child_activated), self);
  gtk_box_append (GTK_BOX (page), GTK_WIDGET (self->flow_box));

  for (guint i = 0; i < self->examples->len; i++)
    {
      Card *card = NULL;
      GtkWidget *child = card_new (g_ptr_array_index (self->examples, i), &card);
      gtk_flow_box_append (self->flow_box, child);
      g_ptr_array_add (self->cards, card);
    }

  /* An installation without its examples says so rather than show nothing. */
  if (self->examples->len == 0)
    {
      g_autofree char *text = g_strdup_printf ("No examples were found in %s", cr_examples_dir ());
      GtkWidget *empty = gtk_label_new (text);
      gtk_widget_add_css_class (empty, "dim-label");
      gtk_label_set_wrap (GTK_LABEL (empty), TRUE);
      gtk_box_append (GTK_BOX (page), empty);
    }

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, 0);
}

GtkWidget *
cr_example_gallery_new (void)
{
  return g_object_new (CR_TYPE_EXAMPLE_GALLERY, NULL);
}

gboolean
cr_example_gallery_get_loading (CrExampleGallery *self)
{
  g_return_val_if_fail (CR_IS_EXAMPLE_GALLERY (self), FALSE);
  return self->loading;
}
