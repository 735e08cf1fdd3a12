/* cr-graph-png.c — a big opaque drawing written to a PNG band by band (see
 * the header). */
#include "cr-graph-png.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <png.h>
#include <string.h>

/* Rows drawn at a time: a band of a 16,000-pixel-wide image is 64 MiB. Each
 * band draws the whole graph again (clipped), so not too few rows either. */
#define BAND_PIXELS (4 * 1024 * 1024)
#define BAND_MIN_ROWS 256

typedef struct {
  FILE        *file;
  png_structp  png;
  png_infop    info;
  char        *message;   /* libpng's error, owned */
} Writer;

static void
on_png_error (png_structp         png,
              png_const_charp     message)
{
  Writer *w = png_get_error_ptr (png);
  g_free (w->message);
  w->message = g_strdup (message);
  png_longjmp (png, 1);
}

static void
on_png_warning (png_structp     png,
                png_const_charp message)
{
  (void) png;
  (void) message;
}

/* Writes rows [y0, y0 + n) of surface's data; FALSE when libpng failed
 * (w->message says why). Kept apart from its caller, whose locals then
 * need not survive the longjmp. */
static gboolean
write_rows (Writer        *w,
            unsigned char *data,
            int            stride,
            int            n)
{
  if (setjmp (png_jmpbuf (w->png)))
    return FALSE;
  for (int r = 0; r < n; r++)
    png_write_row (w->png, data + (gsize) r * (gsize) stride);
  return TRUE;
}

static gboolean
write_header (Writer *w,
              int     width,
              int     height)
{
  if (setjmp (png_jmpbuf (w->png)))
    return FALSE;
  png_init_io (w->png, w->file);
  png_set_IHDR (w->png, w->info, (png_uint_32) width, (png_uint_32) height, 8,
                PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                PNG_FILTER_TYPE_DEFAULT);
  /* A drawing is mostly flat colour: one cheap filter and fast zlib keep
   * the file within a few per cent of the hardest setting, in a fraction
   * of its time. */
  png_set_filter (w->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_set_compression_level (w->png, 1);
  png_write_info (w->png, w->info);
  /* Cairo's RGB24 pixel is a native-endian 0x00RRGGBB word. */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  png_set_bgr (w->png);
  png_set_filler (w->png, 0, PNG_FILLER_AFTER);
#else
  png_set_filler (w->png, 0, PNG_FILLER_BEFORE);
#endif
  return TRUE;
}

static gboolean
write_end (Writer *w)
{
  if (setjmp (png_jmpbuf (w->png)))
    return FALSE;
  png_write_end (w->png, NULL);
  return TRUE;
}

gboolean
cr_graph_png_write_opaque (const char      *path,
                           int              width,
                           int              height,
                           CrGraphPngDraw   draw,
                           gpointer         user_data,
                           GError         **error)
{
  g_return_val_if_fail (path != NULL && draw != NULL && width > 0 && height > 0, FALSE);

  int rows = MAX (BAND_MIN_ROWS, BAND_PIXELS / width);
  rows = MIN (rows, height);
  cairo_surface_t *band = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, rows);
  if (cairo_surface_status (band) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "Could not write %s: %s", path,
                   cairo_status_to_string (cairo_surface_status (band)));
      cairo_surface_destroy (band);
      return FALSE;
    }
  Writer w = { 0 };
  w.file = g_fopen (path, "wb");
  if (!w.file)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "Could not write %s: %s",
                   path, g_strerror (saved));
      cairo_surface_destroy (band);
      return FALSE;
    }
  w.png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &w, on_png_error, on_png_warning);
  w.info = w.png ? png_create_info_struct (w.png) : NULL;
  gboolean ok = w.info != NULL && write_header (&w, width, height);
  for (int y0 = 0; ok && y0 < height; y0 += rows)
    {
      int n = MIN (rows, height - y0);
      cairo_t *cr = cairo_create (band);
      cairo_rectangle (cr, 0, 0, width, n);
      cairo_clip (cr);
      /* An opaque image would get subpixel (coloured) text: the same grey
       * antialiasing as a transparent one, as Cairo's own writer gives. */
      cairo_font_options_t *font = cairo_font_options_create ();
      cairo_font_options_set_antialias (font, CAIRO_ANTIALIAS_GRAY);
      cairo_set_font_options (cr, font);
      cairo_font_options_destroy (font);
      draw (cr, (double) y0, user_data);
      ok = cairo_status (cr) == CAIRO_STATUS_SUCCESS;
      cairo_destroy (cr);
      if (!ok)
        break;
      cairo_surface_flush (band);
      ok = write_rows (&w, cairo_image_surface_get_data (band),
                       cairo_image_surface_get_stride (band), n);
    }
  ok = ok && write_end (&w);
  if (w.png)
    png_destroy_write_struct (&w.png, w.info ? &w.info : NULL);
  if (fclose (w.file) != 0)
    ok = FALSE;
  cairo_surface_destroy (band);
  if (!ok)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Could not write %s: %s", path,
                   w.message ? w.message : "the drawing failed");
      g_remove (path);
    }
  g_free (w.message);
  return ok;
}
