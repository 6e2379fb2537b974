/*
 * svg.h - the pieces of the HTML reports (advise --html, compare --html):
 * escaping, values with units, the page frame with its style sheet, and
 * inline SVG charts: an axis with ticks and grid lines, a line chart over
 * a numeric x axis, and grouped horizontal bars.  Points and bars carry a
 * <title> (the browser's tooltip, no script).
 *
 * Everything is written to a FILE*; nothing is kept between calls, and
 * the output depends on the arguments alone (no dates, no randomness), so
 * the same data give a byte-identical page.  Names are escaped here:
 * callers pass raw strings.  The SVG is well-formed XML.
 */
#ifndef L2SIM_SVG_H
#define L2SIM_SVG_H

#include <stddef.h>
#include <stdio.h>

/* How a value is shown. */
enum l2_unit {
    L2_UNIT_COUNT, /* a plain number */
    L2_UNIT_BYTES, /* bytes: B, KiB, MiB or GiB */
    L2_UNIT_RATE,  /* a fraction, shown in % */
    L2_UNIT_NS     /* nanoseconds, shown in us */
};

/* Writes s with & < > " ' escaped: fit for HTML text, attribute values
 * and SVG (XML) alike. */
void l2_html_escape(FILE *f, const char *s);
/* The same, cut to at most `max` (at least 5) characters, UTF-8
 * sequences kept whole: the head and the tail, "..." in place of the
 * middle (kernel names differ at either end). */
void l2_html_escape_cut(FILE *f, const char *s, size_t max);

/* A value with its unit, for tables and tooltips: "36.0 MiB", "512 B",
 * "45.67%", "12.3 us", "1234"; "n/a" for NAN.  buf needs 32 bytes. */
const char *l2_fmt_value(double v, enum l2_unit u, char *buf, size_t n);

/* The page: doctype, head (charset, title, the style sheet) and the body
 * up to an <h1> of the same title; l2_html_end closes body and html. */
void l2_html_begin(FILE *f, const char *title);
void l2_html_end(FILE *f);

/* A value axis: nice ticks, in the unit that suits its largest value
 * (bytes: KiB, MiB, GiB; rates: %; ns: us; counts: thousands, millions). */
struct l2_axis {
    double lo, hi;     /* the ends, in the value's own unit */
    double step;       /* between ticks, in the value's own unit */
    double scale;      /* shown = value * scale */
    unsigned decimals; /* of the tick labels */
    const char *unit;  /* of the shown numbers: "MiB", "%", "us", "" */
};

/* An axis for values in [min, max] (NAN ignored).  It starts at 0, or
 * with `zoom` at a tick under min when min is more than half of max (a
 * line chart of values that vary little); it ends at the first tick from
 * max, or with `exact` at max itself. */
void l2_axis_init(struct l2_axis *a, double min, double max, enum l2_unit u, int zoom, int exact);
/* Draws axis a along the plot rectangle (x0, y0)-(x1, y1), y growing
 * down: horizontal under the bottom edge (vertical grid lines) or
 * vertical left of the left edge (horizontal grid lines), with `title`
 * and the unit as the axis title: "DRAM bytes (MiB)". */
void l2_svg_axis(FILE *f, const struct l2_axis *a, int vertical, double x0, double y0, double x1, double y1,
                 const char *title);
/* Where value v lies between the ends of a: 0 at lo, 1 at hi. */
double l2_axis_pos(const struct l2_axis *a, double v);

/* A line, or a set of bars, of one series. */
struct l2_series {
    const char *name;  /* legend */
    const double *v;   /* a value per x (line chart) or per group (bars); NAN: none */
    const char *color; /* NULL: the palette's colour for the series' place */
};

/* The colour of series i (a palette of 10, repeated). */
const char *l2_svg_color(unsigned i);

struct l2_line_chart {
    const char *id, *title;
    const char *xname, *yname; /* axis titles; the unit is added */
    enum l2_unit xunit, yunit;
    const double *x; /* nx values, ascending */
    unsigned nx;
    const struct l2_series *s;
    unsigned ns;
    const char *ref_name; /* a dashed horizontal reference line at ref, or NULL */
    double ref;
    unsigned width, height; /* of the chart without its legend; 0: 570 x 340 */
};
/* A line chart: the x axis to the last x, the y axis zoomed to the
 * values (l2_axis_init), a line with a marker per point for every series
 * (earlier series drawn wider, so that lines that coincide stay
 * visible), the reference line, and a legend under the plot (one entry
 * a line). */
void l2_svg_line_chart(FILE *f, const struct l2_line_chart *c);

struct l2_bar_chart {
    const char *id, *title;
    const char *vname; /* the value axis' title; the unit is added */
    enum l2_unit unit;
    const char *const *group; /* ngroup category labels (rows) */
    unsigned ngroup;
    const struct l2_series *s; /* s[j].v[g]: series j in group g */
    unsigned ns;
    unsigned width; /* 0: 570 */
};
/* Grouped horizontal bars: a row of ns bars (class "bar") per group, the
 * group labels on the left (cut to fit, whole in the tooltip), the value
 * at each bar's end, the value axis under them and the legend above. */
void l2_svg_bar_chart(FILE *f, const struct l2_bar_chart *c);

#endif
