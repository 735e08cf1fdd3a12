/* cr-export-command.c — `chainrule export FILE.py -o out.{png,svg,pdf}
 * [--step N] [--all-steps] [--handout [--practice] [--calls LIST]] [--dark]`:
 * run a script headless, recording it, and draw from its run record the
 * graph of its last backward call (or, when none ran, the forward graph of
 * its newest result) the way the window draws it; with --handout, lecture
 * notes (render/cr-handout.h): a title page with the code, then for each
 * backward call a page per forward op and per step with the graph and the
 * step card's text; --practice puts a question page before each step that
 * asks. Needs no display. The script
 * runs under a time limit, as `chainrule run --timeout` does (60 s unless
 * told), so a script that never ends cannot hang a batch of exports. */
#include "cr-config.h"
#include "cr-export-command.h"
#include "cr-cli-options.h"
#include "cr-script-load.h"
#include "cr-time-limit.h"

#include "cr-interp.h"
#include "cr-interp-cells.h"
#include "cr-storage.h"
#include "cr-graph-model.h"
#include "cr-graph-groups.h"
#include "cr-graph-layout.h"
#include "cr-graph-render.h"
#include "cr-handout.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_S 60

typedef enum { FORMAT_PNG, FORMAT_SVG, FORMAT_PDF } Format;

/* Set from signal handlers (cr-time-limit.h): 1 on Ctrl-C, 2 at the deadline. */
static gint cancel_flag;

void
cr_export_command_usage (FILE *out)
{
  fputs ("Usage: chainrule export [OPTIONS] FILE.py -o OUT.png|OUT.svg|OUT.pdf\n"
         "\n"
         "Options:\n"
         "  -o, --output FILE   where to write; the extension picks the format\n"
         "  --step N            highlight backward step N (1 is the first)\n"
         "  --all-steps         one PDF page per step, or OUT-01.png, OUT-02.png, ...\n"
         "  --handout           lecture notes (PDF): the code, then a page per step with\n"
         "                      the graph and the step explained, for every backward\n"
         "                      call (a loop's: the first two and the last)\n"
         "  --practice          with --handout: a question page before each step (its\n"
         "                      answers hidden, choices lettered), the answer after it\n"
         "  --calls LIST        with --handout: the backward calls to tell, 1 the first:\n"
         "                      \"1,3\", \"2-4\", \"last\" or \"all\"\n"
         "  --dark              the dark style\n"
         "  --timeout SECONDS   stop the script after this long (default 60)\n"
         "  --help              show this help\n", out);
}

static void
discard_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  if (is_stderr)
    fputs (text, stderr);
}

/* One drawing to one file: cr_graph_render_to_file picks the format (PNGs
 * at twice the point size, so slides stay sharp). */
static gboolean
write_page (const CrGraphModel         *model,
            const CrGraphLayout        *layout,
            const CrGraphRenderOptions *options,
            const char                 *path)
{
  g_autoptr (GError) error = NULL;
  if (!cr_graph_render_to_file (model, layout, options, path, &error))
    {
      fprintf (stderr, "chainrule export: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

/* "out.png" and step 3 of 12 -> "out-03.png". */
static char *
numbered_path (const char *path,
               guint       number,
               guint       count)
{
  const char *dot = strrchr (path, '.');
  const char *slash = strrchr (path, '/');
  if (!dot || (slash && dot < slash))
    dot = path + strlen (path);
  int digits = count >= 100 ? (count >= 1000 ? 4 : 3) : 2;
  return g_strdup_printf ("%.*s-%0*u%s", (int) (dot - path), path, digits, number, dot);
}

/* What --handout writes: the calls to tell (NULL: as cr_handout_default_calls
 * picks), and whether for practice. */
typedef struct {
  const char   *name;        /* the script's name; NULL: no handout */
  const GArray *calls;
  gboolean      practice;
} HandoutRequest;

static int
write_graph (const CrGraphModel   *model,
             const char           *out_path,
             Format                format,
             int                   step,
             gboolean              all_steps,
             const HandoutRequest *handout_request,
             CrGraphStyle          style)
{
  g_autoptr (GError) error = NULL;
  /* Module code: each module call (and loop body) drawn as a box around
   * its nodes, every one open (cr-graph-groups.h). */
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new ((CrGraphModel *) model);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
  g_autoptr (CrGraphCollapse) collapse = groups->groups->len > 0 ? cr_graph_collapse_new (groups, open)
                                                                 : NULL;
  if (collapse)
    model = collapse->model;
  if (handout_request->name)
    {
      g_autoptr (GArray) default_calls = handout_request->calls ? NULL
                                         : cr_handout_default_calls (model->record);
      CrHandout handout = {
        .model = model, .collapse = collapse,
        .script_name = handout_request->name, .style = style,
        .calls = handout_request->calls ? handout_request->calls : default_calls,
        .practice = handout_request->practice,
      };
      if (!cr_handout_write_pdf (&handout, out_path, NULL, &error))
        {
          fprintf (stderr, "chainrule export: %s\n", error->message);
          return 1;
        }
      return 0;
    }
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, &error);
  if (!layout)
    {
      fprintf (stderr, "chainrule export: %s\n", error->message);
      return 1;
    }
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.collapse = collapse;
  options.style = style;
  options.current_step = step;

  if (!all_steps || model->n_steps == 0)
    return write_page (model, layout, &options, out_path) ? 0 : 1;

  if (format == FORMAT_PDF)
    {
      /* All steps in one PDF, a page each. */
      cairo_surface_t *surface = cairo_pdf_surface_create (out_path, MAX (layout->width, 1.0),
                                                           MAX (layout->height, 1.0));
      cairo_t *cr = cairo_create (surface);
      for (guint s = 0; s < model->n_steps; s++)
        {
          options.current_step = (int) s;
          cr_graph_render (cr, model, layout, &options);
          cairo_show_page (cr);
        }
      cairo_destroy (cr);
      cairo_surface_finish (surface);
      cairo_status_t status = cairo_surface_status (surface);
      cairo_surface_destroy (surface);
      if (status != CAIRO_STATUS_SUCCESS)
        {
          fprintf (stderr, "chainrule export: cannot write '%s': %s\n", out_path,
                   cairo_status_to_string (status));
          return 1;
        }
      return 0;
    }
  for (guint s = 0; s < model->n_steps; s++)
    {
      g_autofree char *path = numbered_path (out_path, s + 1, model->n_steps);
      options.current_step = (int) s;
      if (!write_page (model, layout, &options, path))
        return 1;
    }
  return 0;
}

/* What the window shows first: the run's last backward call, or when none
 * ran, the forward graph of its newest result; drawn from the run record. */
static CrGraphModel *
model_of_run (CrInterp *interp)
{
  g_autoptr (CrRunRecord) record = cr_interp_get_run_record (interp);
  if (!record)
    return NULL;
  return cr_graph_model_new_from_run_record (record, (int) record->backwards->len - 1);
}

static const CrCliCommand command = { "chainrule export", cr_export_command_usage };

/* --calls: "all", "last", or numbers and ranges from 1 ("1,3", "2-4"), as
 * indices into the record's n backward calls (new array, in the order
 * given); NULL when text is none of those or names a call past n. */
static GArray *
parse_calls (const char *text,
             guint       n)
{
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (guint));
  if (g_strcmp0 (text, "all") == 0)
    {
      for (guint i = 0; i < n; i++)
        g_array_append_val (calls, i);
      return g_steal_pointer (&calls);
    }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (char **p = parts; *p; p++)
    {
      const char *part = g_strstrip (*p);
      guint64 from, to;
      if (strcmp (part, "last") == 0 && n > 0)
        from = to = n;
      else
        {
          char *end = NULL;
          from = g_ascii_strtoull (part, &end, 10);
          to = from;
          if (end != part && *end == '-')
            {
              const char *second = end + 1;
              to = g_ascii_strtoull (second, &end, 10);
              if (end == second)
                return NULL;
            }
          if (end == part || *end != '\0')
            return NULL;
        }
      if (from < 1 || to < from || to > n)
        return NULL;
      for (guint64 i = from; i <= to; i++)
        {
          guint index = (guint) (i - 1);
          g_array_append_val (calls, index);
        }
    }
  return calls->len > 0 ? g_steal_pointer (&calls) : NULL;
}

/* --step: a step's number from 1, kept from 0. */
static gboolean
parse_step (const char *value,
            gpointer    out)
{
  char *end = NULL;
  long n = strtol (value, &end, 10);
  if (end == value || *end != '\0' || n < 1 || n > G_MAXINT)
    return FALSE;
  *(int *) out = (int) n - 1;
  return TRUE;
}

int
cr_export_command (int    argc,
                   char **argv)
{
  const char *file = NULL, *out_path = NULL;
  int step = -1;
  double timeout = DEFAULT_TIMEOUT_S;
  gboolean all_steps = FALSE, handout = FALSE, practice = FALSE, dark = FALSE;
  const char *calls_text = NULL;
  const CrCliOption options[] = {
    { "--output", "-o", cr_cli_parse_text, &out_path, NULL },
    { "--step", NULL, parse_step, &step, "--step needs a step number (1 is the first)" },
    { "--all-steps", NULL, NULL, &all_steps, NULL },
    { "--handout", NULL, NULL, &handout, NULL },
    { "--practice", NULL, NULL, &practice, NULL },
    { "--calls", NULL, cr_cli_parse_text, &calls_text, NULL },
    { "--dark", NULL, NULL, &dark, NULL },
    CR_CLI_TIMEOUT_OPTION (&timeout),
    { NULL },
  };
  int status = cr_cli_parse (&command, argc, argv, options, &file);
  if (status >= 0)
    return status;
  CrGraphStyle style = dark ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  if (!out_path)
    return cr_cli_usage_error (&command, "no output file given (-o OUT.png, OUT.svg or OUT.pdf)");
  Format format;
  g_autofree char *lower = g_ascii_strdown (out_path, -1);
  if (g_str_has_suffix (lower, ".png"))
    format = FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    format = FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    format = FORMAT_PDF;
  else
    return cr_cli_usage_error (&command, "the output must end in .png, .svg or .pdf");
  if (handout && format != FORMAT_PDF)
    return cr_cli_usage_error (&command, "--handout writes a PDF: the output must end in .pdf");
  if ((practice || calls_text) && !handout)
    return cr_cli_usage_error (&command, "%s is for a handout: add --handout",
                               practice ? "--practice" : "--calls");

  g_auto (CrScriptText) text = { 0 };
  if (!cr_script_text_read (&text, command.name, file, NULL))
    return 1;
  /* From before parsing: a pathological text is as slow as an endless loop. */
  cr_time_limit_arm (&cancel_flag, timeout);
  CrSpan span = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) cells = NULL;
  g_autoptr (CrAstModule) module = cr_script_text_parse (&text, &cancel_flag, &cells, &span,
                                                         &error);
  if (!module)
    {
      cr_time_limit_disarm ();
      if (g_atomic_int_get (&cancel_flag) == 2)
        fprintf (stderr, "chainrule export: TimeoutError: %s\n", error->message);
      else
        fprintf (stderr, "chainrule export: %s, line %d: %s\n", file, span.line, error->message);
      return 1;
    }
  CrInterpOptions io = {
    .output = discard_output,
    .record_backward = TRUE,
    .cancel_flag = &cancel_flag,
    /* As the window: the coach's findings are ringed on the graph. */
    .coach = TRUE,
  };
  CrInterp *interp = cr_interp_new (&io);
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->data, cells->len);
  CrScriptError *script_error = NULL;
  gboolean ran = cr_interp_run (interp, module, &script_error);
  cr_time_limit_disarm ();
  if (!ran && g_atomic_int_get (&cancel_flag) != 0)
    {
      /* Out of time (or Ctrl-C): the script never got to its graph. */
      fprintf (stderr, "chainrule export: %s",
               script_error && script_error->traceback ? script_error->traceback : "stopped\n");
      cr_script_error_free (script_error);
      cr_interp_free (interp);
      return 1;
    }
  if (!ran)
    {
      /* The graph up to the error is still worth drawing: say what failed, go on. */
      guint n_failed = cr_interp_n_failed_cells (interp);
      if (script_error && script_error->reported)   /* a notebook's cells went on */
        fprintf (stderr, "chainrule export: %u cell%s failed (above); the graph is the run's\n",
                 n_failed, n_failed == 1 ? "" : "s");
      else
        fprintf (stderr, "chainrule export: the script stopped: %s",
                 script_error && script_error->traceback ? script_error->traceback : "an error\n");
      cr_script_error_free (script_error);
    }
  g_autoptr (CrGraphModel) model = model_of_run (interp);
  status = 0;
  if (!model)
    {
      fprintf (stderr, "chainrule export: %s builds no autograd graph (no tensor requires grad)\n", file);
      status = 1;
    }
  else if (step >= 0 && (guint) step >= model->n_steps)
    {
      fprintf (stderr, "chainrule export: --step %d: the backward call has %u step%s\n",
               step + 1, model->n_steps, model->n_steps == 1 ? "" : "s");
      status = 2;
    }
  else
    {
      g_autofree char *name = g_path_get_basename (file);
      guint n_calls = model->record ? model->record->backwards->len : 0;
      g_autoptr (GArray) calls = calls_text ? parse_calls (calls_text, n_calls) : NULL;
      HandoutRequest request = { handout ? name : NULL, calls, practice };
      if (calls_text && !calls)
        {
          fprintf (stderr, "chainrule export: --calls %s: the script made %u backward call%s "
                   "(give numbers from 1, ranges like 2-4, \"last\" or \"all\")\n", calls_text,
                   n_calls, n_calls == 1 ? "" : "s");
          status = 2;
        }
      else
        status = write_graph (model, out_path, format, step, all_steps, &request, style);
    }
  g_clear_pointer (&model, cr_graph_model_unref);
  cr_interp_free (interp);
  return status;
}
