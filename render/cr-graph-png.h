/* cr-graph-png.h — a big opaque drawing written to a PNG a band of rows at a
 * time, for `chainrule export`: Cairo's own writer needs the whole image in
 * memory and compresses it hard (zlib level 6 and every row filter tried),
 * which for a 5,000-node graph was most of the export's 18 s and 336 MB. */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

/* Draws the part of the image whose top row is y0 (in pixels) on cr, whose
 * origin is that band's top-left corner and whose clip is the band. */
typedef void (*CrGraphPngDraw) (cairo_t  *cr,
                                double    y0,
                                gpointer  user_data);

/* Writes a width × height pixel PNG (8-bit RGB, no alpha: the drawing is
 * opaque) to path, calling draw once per band of rows. FALSE with error
 * (G_FILE_ERROR) when the file cannot be written or the image not made. */
gboolean cr_graph_png_write_opaque (const char      *path,
                                    int              width,
                                    int              height,
                                    CrGraphPngDraw   draw,
                                    gpointer         user_data,
                                    GError         **error);

G_END_DECLS
