/* bench-window.c — how fast an edit shows as a redrawn graph in the window.
 *
 * For every example: open it in a CrWindow, wait for its run, then make small
 * edits (a space appended to a line, then taken away again) and time, from
 * the buffer change, (a) the window's "run-finished" (the result is shown,
 * the canvas has its new model) and (b) the end of the canvas's next frame
 * (its frame clock's "after-paint" after run-finished: the new graph is on
 * screen), and the window's main thread's CPU time over (b), which a machine
 * busy with other work stretches less than the wall time. The script's own
 * work (parse, run, graph models, in process) and the crash guard's run of
 * it (a child forked by the guard's server runs it and sends its record
 * back, ui/cr-script-guard.h) are timed alone too, so the rest is the
 * window's overhead. Also per script:
 * "open", from opening the file to the first frame with its graph, and
 * "pan", the mean and worst time the window takes to lay out and paint a
 * frame (its frame clock's before-paint to after-paint) while the canvas
 * pans 12 pixels a frame for 60 frames, as a drag does. Of that, "canvas"
 * is the canvas's own part: its snapshot (making its render nodes, and
 * painting any tile not painted yet) plus, under GSK's Cairo renderer,
 * painting those nodes alone with Cairo into an image the canvas's size as
 * that renderer does (under GL the GPU's share is not told apart); the rest
 * of a frame is the window's (other widgets, the renderer, the X server).
 *
 *   xvfb-run -a build/tests/ui/bench-window [N_EDITS] [EXAMPLE.py...]
 *
 * With no scripts: every example, then tests/data/micrograd-mlp.py (a
 * 5,000-node scalar MLP). A graph with module code opens collapsed; a row
 * "every group open" times opening all of it (open: to the first frame)
 * and panning it.
 *
 * On a machine busy with other work (a shared build machine's load of 20)
 * the wall times say more about the load than about the window: run it at
 * real-time priority, `chrt -f 10 xvfb-run ...`, which its server and
 * children inherit, for what a quiet machine of the same cores gives.
 *
 * Under Xvfb GTK draws with GL through Mesa's software rasterizer (llvmpipe),
 * which makes every frame of the whole window cost 50-200 ms on a loaded
 * machine; GSK_RENDERER=cairo is closer to what a desktop with a GPU sees.
 * The renderer in use is printed first.
 *
 * The window runs scripts in the crash guard's children, as `chainrule`
 * does: CHAINRULE_RUNNER names the runner, and when it is not set this
 * build's app/chainrule is used.
 *
 * Not a test: it prints a table and fails only when the window never
 * finishes a run. */
#include "cr-config.h"
#include "cr-window.h"
#include "cr-examples.h"
#include "cr-graph-model.h"
#include "cr-script-run.h"
#include "cr-script-guard.h"
#include "cr-graph-canvas-private.h"
#include "ui-test-util.h"

#include <gtksourceview/gtksource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_EDITS 7
#define WAIT_S        30

typedef struct {
  gint64   edit_us;
  gint64   finished_us;
  gint64   painted_us;
  gint64   edit_cpu_us;   /* the main thread's CPU time at the edit */
  gint64   painted_cpu_us;
  gboolean armed;        /* an edit is being timed */
  gboolean finished;
  gboolean painted;
} Probe;

/* This thread's CPU time (µs). */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;
  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
on_run_finished (CrWindow *window,
                 Probe    *probe)
{
  if (!probe->armed || probe->finished)
    return;
  probe->finished_us = g_get_monotonic_time ();
  probe->finished = TRUE;
}

static void
on_after_paint (GdkFrameClock *clock,
                Probe         *probe)
{
  if (!probe->armed || !probe->finished || probe->painted)
    return;
  probe->painted_us = g_get_monotonic_time ();
  probe->painted_cpu_us = thread_cpu_us ();
  probe->painted = TRUE;
}

/* Panning: the canvas moves PAN_STEP pixels at each frame's start, and each
 * frame's layout + paint is timed. */
#define PAN_FRAMES 60
#define PAN_STEP   12.0

typedef struct {
  CrGraphCanvas *canvas;
  int            frame;
  gint64         before_us;
  double         total_ms, worst_ms;
  int            timed;
  double         dx;
} Pan;

/* The canvas's own part of each frame (see above), while `on`. */
static struct {
  gboolean  on;
  gboolean  paint;               /* the renderer is Cairo: paint the nodes too */
  void    (*snapshot) (GtkWidget *, GtkSnapshot *);
  double    total_ms, worst_ms;
  int       n;
} canvas_part;

static void
timed_canvas_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  if (!canvas_part.on)
    {
      canvas_part.snapshot (widget, snapshot);
      return;
    }
  gint64 start = g_get_monotonic_time ();
  GtkSnapshot *own = gtk_snapshot_new ();
  canvas_part.snapshot (widget, own);
  GskRenderNode *node = gtk_snapshot_free_to_node (own);
  if (node && canvas_part.paint)
    {
      int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (w, 1), MAX (h, 1));
      cairo_t *cr = cairo_create (surface);
      gsk_render_node_draw (node, cr);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }
  if (node)
    {
      gtk_snapshot_append_node (snapshot, node);
      gsk_render_node_unref (node);
    }
  double ms = (g_get_monotonic_time () - start) / 1000.0;
  canvas_part.total_ms += ms;
  canvas_part.worst_ms = MAX (canvas_part.worst_ms, ms);
  canvas_part.n++;
}

/* Times the canvas's part of frames from now on (once per process). */
static void
watch_canvas_part (void)
{
  GtkWidgetClass *klass = g_type_class_ref (CR_TYPE_GRAPH_CANVAS);
  canvas_part.snapshot = klass->snapshot;
  klass->snapshot = timed_canvas_snapshot;
  g_type_class_unref (klass);
}

static void
on_pan_before_paint (GdkFrameClock *clock,
                     Pan           *pan)
{
  pan->before_us = g_get_monotonic_time ();
}

static void
on_pan_after_paint (GdkFrameClock *clock,
                    Pan           *pan)
{
  if (pan->frame <= 0 || pan->before_us == 0)
    return;
  double ms = (g_get_monotonic_time () - pan->before_us) / 1000.0;
  pan->total_ms += ms;
  pan->worst_ms = MAX (pan->worst_ms, ms);
  pan->timed++;
}

static gboolean
pan_tick (GtkWidget     *widget,
          GdkFrameClock *clock,
          gpointer       data)
{
  Pan *pan = data;
  if (pan->frame >= PAN_FRAMES)
    return G_SOURCE_REMOVE;
  /* Back and forth, so the graph stays on screen. */
  double dx = (pan->frame / 20) % 2 == 0 ? -PAN_STEP : PAN_STEP;
  cr_graph_canvas_move_to (pan->canvas, pan->canvas->tx + dx, pan->canvas->ty);
  pan->frame++;
  return G_SOURCE_CONTINUE;
}

/* Mean and worst paint of PAN_FRAMES panning frames (ms): the window's
 * whole frame, and the canvas's part of it. */
static void
measure_pan (CrGraphCanvas *canvas,
             GdkFrameClock *clock,
             double        *mean,
             double        *worst,
             double        *canvas_mean,
             double        *canvas_worst)
{
  Pan pan = { .canvas = canvas };
  canvas_part.total_ms = canvas_part.worst_ms = 0;
  canvas_part.n = 0;
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (canvas));
  GskRenderer *renderer = native ? gtk_native_get_renderer (native) : NULL;
  canvas_part.paint = renderer && GSK_IS_CAIRO_RENDERER (renderer);
  canvas_part.on = TRUE;
  gulong before = g_signal_connect (clock, "before-paint", G_CALLBACK (on_pan_before_paint), &pan);
  gulong after = g_signal_connect (clock, "after-paint", G_CALLBACK (on_pan_after_paint), &pan);
  gtk_widget_add_tick_callback (GTK_WIDGET (canvas), pan_tick, &pan, NULL);
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (pan.frame < PAN_FRAMES && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  cr_ui_test_spin (50);
  g_signal_handler_disconnect (clock, before);
  g_signal_handler_disconnect (clock, after);
  canvas_part.on = FALSE;
  *mean = pan.timed ? pan.total_ms / pan.timed : NAN;
  *worst = pan.worst_ms;
  *canvas_mean = canvas_part.n ? canvas_part.total_ms / canvas_part.n : NAN;
  *canvas_worst = canvas_part.worst_ms;
}

/* Stepping: the canvas's part of the frame after each of the first
 * STEP_FRAMES backward steps (mean ms, as the pan's "canvas"), keeping
 * the tiles a step leaves alone (kept), and with every tile dropped first
 * (all: what each step cost when the tiles were keyed by step; the
 * drawing's items are made either way). Without animation: one frame a
 * step. */
#define STEP_FRAMES 12

static void
measure_steps (CrGraphCanvas *canvas,
               double        *kept,
               double        *all)
{
  *kept = *all = NAN;
  guint n_steps = MIN (cr_graph_canvas_get_n_steps (canvas), STEP_FRAMES);
  if (n_steps == 0)
    return;
  gboolean animate = canvas->animate;
  cr_graph_canvas_set_animate (canvas, FALSE);
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (canvas));
  GskRenderer *renderer = native ? gtk_native_get_renderer (native) : NULL;
  canvas_part.paint = renderer && GSK_IS_CAIRO_RENDERER (renderer);
  for (int pass = 0; pass < 2; pass++)
    {
      cr_graph_canvas_set_step (canvas, -1);
      cr_ui_test_spin (100);
      canvas_part.total_ms = canvas_part.worst_ms = 0;
      canvas_part.n = 0;
      canvas_part.on = TRUE;
      for (guint s = 0; s < n_steps; s++)
        {
          if (pass == 1 && canvas->tiles)
            cr_graph_tiles_clear (canvas->tiles);
          int before = canvas_part.n;
          cr_graph_canvas_set_step (canvas, (int) s);
          gtk_widget_queue_draw (GTK_WIDGET (canvas));
          gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
          while (canvas_part.n == before && g_get_monotonic_time () < end)
            g_main_context_iteration (NULL, TRUE);
          /* The tiles around the view painted ahead, as between a
           * person's presses. */
          cr_ui_test_spin (60);
        }
      canvas_part.on = FALSE;
      double mean = canvas_part.n ? canvas_part.total_ms / canvas_part.n : NAN;
      *(pass == 0 ? kept : all) = mean;
    }
  cr_graph_canvas_set_step (canvas, -1);
  cr_graph_canvas_set_animate (canvas, animate);
  cr_ui_test_spin (100);
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *values,
        guint   n)
{
  if (n == 0)
    return NAN;
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* The script's own work, as the window's worker does it (ms, best of 3). */
static double
work_ms (const char *path)
{
  g_autofree char *source = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &source, &length, NULL))
    return NAN;
  double best = INFINITY;
  for (int i = 0; i < 3; i++)
    {
      gint64 start = g_get_monotonic_time ();
      CrInterpOptions options = { 0 };
      CrScriptRun run;
      cr_script_run (source, (gssize) length, path, &options, TRUE, &run);
      cr_script_run_clear (&run);
      best = MIN (best, (g_get_monotonic_time () - start) / 1000.0);
    }
  return best;
}

/* The line an edit touches: the first assignment that is not a comment. */
static int
edit_line (GtkTextBuffer *buffer)
{
  int n = gtk_text_buffer_get_line_count (buffer);
  for (int line = 0; line < n; line++)
    {
      GtkTextIter start, end;
      gtk_text_buffer_get_iter_at_line (buffer, &start, line);
      end = start;
      gtk_text_iter_forward_to_line_end (&end);
      g_autofree char *text = gtk_text_iter_get_text (&start, &end);
      if (text[0] != '#' && strchr (text, '='))
        return line;
    }
  return 0;
}

/* Appends a space to line (add) or takes the one appended away. */
static void
edit (GtkTextBuffer *buffer,
      int            line,
      gboolean       add)
{
  GtkTextIter end;
  gtk_text_buffer_get_iter_at_line (buffer, &end, line);
  gtk_text_iter_forward_to_line_end (&end);
  if (add)
    gtk_text_buffer_insert (buffer, &end, " ", 1);
  else
    {
      GtkTextIter before = end;
      gtk_text_iter_backward_char (&before);
      gtk_text_buffer_delete (buffer, &before, &end);
    }
}

/* The crash guard's run of the script, as the window's worker makes it,
 * its graph model built from the record the child sent (ms, best of 3);
 * NAN without a guard. */
static double
guard_ms (const char *path)
{
  g_autofree char *source = NULL;
  if (!cr_script_guard_get_runner () || !g_file_get_contents (path, &source, NULL, NULL))
    return NAN;
  double best = INFINITY;
  for (int i = 0; i < 3; i++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr (CrOutputTail) output = cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES,
                                                            CR_OUTPUT_TAIL_MAX_BYTES);
      g_autofree char *dropped = NULL;
      CrScriptRun run = { 0 };
      CrScriptGuardVerdict verdict = cr_script_guard_run (source, path, CR_DEVICE_CPU, 60, NULL,
                                                          output, &dropped, &run);
      if (verdict == CR_SCRIPT_GUARD_RAN)
        cr_script_run_build_models (&run, FALSE);
      cr_script_run_clear (&run);
      if (verdict != CR_SCRIPT_GUARD_RAN)
        return NAN;
      best = MIN (best, (g_get_monotonic_time () - start) / 1000.0);
    }
  return best;
}

/* This build's chainrule, beside this program's build folder. */
static void
use_this_builds_runner (void)
{
  if (g_getenv ("CHAINRULE_RUNNER"))
    return;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *folder = self ? g_path_get_dirname (self) : NULL;
  g_autofree char *runner = folder ? g_build_filename (folder, "..", "..", "app", "chainrule", NULL)
                                   : NULL;
  if (runner && g_file_test (runner, G_FILE_TEST_IS_EXECUTABLE))
    g_setenv ("CHAINRULE_RUNNER", runner, TRUE);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GTK_A11Y", "none", TRUE);
  use_this_builds_runner ();
  gtk_init ();
  adw_init ();
  gtk_source_init ();
  /* A blinking cursor paints frames of its own. */
  g_object_set (gtk_settings_get_default (), "gtk-cursor-blink", FALSE, NULL);

  int n_edits = DEFAULT_EDITS;
  int first_path = 1;
  if (argc > 1 && g_ascii_isdigit (argv[1][0]))
    {
      n_edits = MAX (atoi (argv[1]), 1);
      first_path = 2;
    }
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (int i = first_path; i < argc; i++)
    g_ptr_array_add (paths, g_canonicalize_filename (argv[i], NULL));
  if (paths->len == 0)
    {
      g_autoptr (GPtrArray) examples = cr_examples_list ();
      for (guint i = 0; i < examples->len; i++)
        g_ptr_array_add (paths, g_strdup (((CrExample *) g_ptr_array_index (examples, i))->path));
      g_autofree char *big = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "..", "..", "tests", "data",
                                               "micrograd-mlp.py", NULL);
      g_ptr_array_add (paths, g_canonicalize_filename (big, NULL));
    }

  CrWindow *window = cr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  gtk_window_present (GTK_WINDOW (window));
  Probe probe = { 0 };
  g_signal_connect (window, "run-finished", G_CALLBACK (on_run_finished), &probe);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  GdkFrameClock *clock = NULL;

  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_print ("Edit → redrawn graph in the window, median of %d edits per example (ms);\n"
           "renderer %s.\n"
           "  work:     parse + run + graph models, the script alone (best of 3)\n"
           "  guard:    the crash guard's run, as the window's worker makes it: a child\n"
           "            forked by the guard's server runs the script and sends its\n"
           "            record, which makes the graph model here (best of 3; runner %s)\n"
           "  finished: from the edit to the window's run-finished (guard + showing;\n"
           "            no pause: a run starts as soon as the edit is made)\n"
           "  redrawn:  from the edit to the end of the canvas's next frame after that\n"
           "  open:     from opening the file to the first frame with its graph\n"
           "  pan:      a panning frame's layout + paint, mean and worst of %d\n"
           "  canvas:   the canvas's own part of those frames (snapshot, + its nodes\n"
           "            painted with Cairo under the Cairo renderer), mean and worst\n"
           "  cpu:      the window's main thread's CPU time from the edit to the redrawn\n"
           "            frame (median): its own share of \"redrawn\", which a loaded\n"
           "            machine stretches less than the times above\n"
           "  step:     the canvas's part of the frame after a backward step (mean of\n"
           "            the first %d), its tiles kept where the step changes nothing\n"
           "  all:      the same with every tile in view painted again (tiles keyed\n"
           "            by step, as before)\n\n",
           n_edits, renderer ? G_OBJECT_TYPE_NAME (renderer) : "(none)",
           cr_script_guard_get_runner () ? cr_script_guard_get_runner () : "none", PAN_FRAMES,
           STEP_FRAMES);
  g_print ("%-30s %8s %8s %9s %9s %8s %6s %7s %6s %7s %6s %6s %6s %6s\n", "example", "work", "guard",
           "finished", "redrawn", "open", "nodes", "pan", "worst", "canvas", "worst", "cpu", "step",
           "all");
  watch_canvas_part ();

  double sum_work = 0, sum_finished = 0, sum_redrawn = 0, sum_guard = 0;
  guint n_rows = 0;
  int status = 0;
  for (guint p = 0; p < paths->len; p++)
    {
      const char *path = g_ptr_array_index (paths, p);
      g_autofree char *name = g_path_get_basename (path);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GError) error = NULL;

      probe = (Probe) { .armed = TRUE, .edit_us = g_get_monotonic_time () };
      if (!cr_window_open_file (window, file, &error))
        {
          g_print ("%-30s cannot open: %s\n", name, error->message);
          status = 1;
          continue;
        }
      if (!clock)
        {
          /* The canvas is realized once the workspace shows. */
          cr_ui_test_spin (50);
          clock = gtk_widget_get_frame_clock (GTK_WIDGET (canvas));
          if (!clock)
            {
              g_printerr ("bench-window: the canvas has no frame clock\n");
              return 1;
            }
          g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &probe);
        }
      if (!cr_ui_test_wait_for_flag (&probe.finished, WAIT_S)
          || !cr_ui_test_wait_for_flag (&probe.painted, WAIT_S))
        {
          g_print ("%-30s the first run did not finish in %d s\n", name, WAIT_S);
          status = 1;
          continue;
        }
      probe.armed = FALSE;
      double open_ms = (probe.painted_us - probe.edit_us) / 1000.0;
      cr_ui_test_spin (200);
      const CrGraphModel *shown = cr_graph_canvas_get_model (canvas);
      guint n_nodes = shown ? shown->nodes->len : 0;
      double pan_mean = NAN, pan_worst = NAN, own_mean = NAN, own_worst = NAN;
      if (shown)
        measure_pan (canvas, clock, &pan_mean, &pan_worst, &own_mean, &own_worst);

      double work = work_ms (path);
      int line = edit_line (buffer);
      g_autofree double *finished = g_new0 (double, n_edits);
      g_autofree double *redrawn = g_new0 (double, n_edits);
      g_autofree double *main_cpu = g_new0 (double, n_edits);
      guint n = 0;
      for (int e = 0; e < n_edits; e++)
        {
          probe = (Probe) { .armed = TRUE, .edit_us = g_get_monotonic_time (),
                            .edit_cpu_us = thread_cpu_us () };
          edit (buffer, line, e % 2 == 0);
          if (!cr_ui_test_wait_for_flag (&probe.finished, WAIT_S)
              || !cr_ui_test_wait_for_flag (&probe.painted, WAIT_S))
            {
              g_print ("%-30s edit %d: no result in %d s\n", name, e + 1, WAIT_S);
              status = 1;
              break;
            }
          finished[n] = (probe.finished_us - probe.edit_us) / 1000.0;
          redrawn[n] = (probe.painted_us - probe.edit_us) / 1000.0;
          main_cpu[n] = (probe.painted_cpu_us - probe.edit_cpu_us) / 1000.0;
          n++;
          probe.armed = FALSE;
          /* Let animations (the graph fading in) end, as a person pauses. */
          cr_ui_test_spin (150);
        }
      if (n == 0)
        continue;
      double row_finished = median (finished, n);
      double row_redrawn = median (redrawn, n);
      double row_cpu = median (main_cpu, n);
      double guard = guard_ms (path);
      double step_kept, step_all;
      measure_steps (canvas, &step_kept, &step_all);
      g_print ("%-30s %8.1f %8.1f %9.1f %9.1f %8.1f %6u %7.1f %6.1f %7.1f %6.1f %6.1f %6.1f %6.1f\n",
               name, work, guard, row_finished, row_redrawn, open_ms, n_nodes, pan_mean, pan_worst,
               own_mean, own_worst, row_cpu, step_kept, step_all);
      /* Module code opens collapsed: the whole graph too, every group open. */
      guint height = cr_graph_canvas_get_group_height (canvas);
      if (height > 0)
        {
          probe = (Probe) { .armed = TRUE, .finished = TRUE, .edit_us = g_get_monotonic_time () };
          cr_graph_canvas_set_group_level (canvas, height);
          gtk_widget_queue_draw (GTK_WIDGET (canvas));
          if (cr_ui_test_wait_for_flag (&probe.painted, WAIT_S))
            {
              double all_ms = (probe.painted_us - probe.edit_us) / 1000.0;
              probe.armed = FALSE;
              cr_ui_test_spin (300);
              shown = cr_graph_canvas_get_model (canvas);
              measure_pan (canvas, clock, &pan_mean, &pan_worst, &own_mean, &own_worst);
              measure_steps (canvas, &step_kept, &step_all);
              g_print ("%-30s %8s %8s %9s %9s %8.1f %6u %7.1f %6.1f %7.1f %6.1f %6s %6.1f %6.1f\n",
                       "  every group open", "", "", "", "", all_ms, shown ? shown->nodes->len : 0,
                       pan_mean, pan_worst, own_mean, own_worst, "", step_kept, step_all);
            }
          probe.armed = FALSE;
        }
      sum_work += work;
      sum_guard += guard;
      sum_finished += row_finished;
      sum_redrawn += row_redrawn;
      n_rows++;
    }
  if (n_rows)
    g_print ("%-30s %8.1f %8.1f %9.1f %9.1f\n", "mean", sum_work / n_rows, sum_guard / n_rows,
             sum_finished / n_rows, sum_redrawn / n_rows);

  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
