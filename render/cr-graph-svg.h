/* cr-graph-svg.h — the graph as an SVG file of a sane size.
 *
 * Cairo's SVG surface writes every coordinate with six decimals, every
 * colour as three percentages and a whole style on every element: a
 * 5,000-node graph came to 32 MB. The drawing is made by the same renderer
 * as the screen into an SVG in memory, then rewritten before it is saved
 * (cr_graph_svg_compact). */
#pragma once

#include <glib.h>

#include "cr-graph-render.h"

G_BEGIN_DECLS

/* Rewrites the SVG text that Cairo wrote (svg, NUL-terminated) smaller, to
 * draw the same: numbers to 1/100 pt (1/1000 in transforms and styles),
 * rgb(r%,g%,b%) as #rrggbb, each distinct style given once as a CSS class
 * in a <style> after the <svg> tag and referred to by class, glyph ids
 * shortened, no indentation. Returns the new text (owned). */
GString  *cr_graph_svg_compact (const char                 *svg);

/* Draws model as laid out to an SVG file at path, compacted. */
gboolean  cr_graph_svg_write   (const CrGraphModel         *model,
                                const CrGraphLayout        *layout,
                                const CrGraphRenderOptions *options,
                                const char                 *path,
                                GError                    **error);

G_END_DECLS
