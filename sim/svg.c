/*
 * svg.c - escaping, values with units, the page frame and the SVG charts
 * of svg.h.  Text widths are estimated (no font metrics): a character of
 * the 11-pixel sans-serif labels is taken as 6.2 pixels, which holds for
 * digits and most lower-case names; labels that would not fit are cut.
 */
#include "svg.h"

#include "common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CHAR_W 6.2  /* an 11 px character */
#define SMALL_W 5.6 /* a 10 px character (ticks) */
#define VAL_W 5.2   /* a 9 px character (bar values) */

/* Writes the character at s escaped; returns the bytes it took.  Bytes
 * that are not UTF-8 and control characters (which XML cannot hold)
 * become U+FFFD. */
static size_t esc_one(FILE *f, const char *s)
{
    size_t n = l2_utf8_len(s);
    if (n == 0) {
        fputs("\xef\xbf\xbd", f);
        return 1;
    }
    if (n > 1) {
        fwrite(s, 1, n, f);
        return n;
    }
    switch (*s) {
    case '&':
        fputs("&amp;", f);
        break;
    case '<':
        fputs("&lt;", f);
        break;
    case '>':
        fputs("&gt;", f);
        break;
    case '"':
        fputs("&quot;", f);
        break;
    case '\'':
        fputs("&#39;", f);
        break;
    default:
        if ((unsigned char)*s < 0x20 && *s != '\t')
            fputs("\xef\xbf\xbd", f);
        else
            fputc(*s, f);
    }
    return 1;
}

void l2_html_escape(FILE *f, const char *s)
{
    while (*s)
        s += esc_one(f, s);
}

/* Characters (code points, an invalid byte counting as one) of s. */
static size_t nchars(const char *s)
{
    size_t n = 0;
    while (*s) {
        size_t k = l2_utf8_len(s);
        s += k ? k : 1;
        n++;
    }
    return n;
}

void l2_html_escape_cut(FILE *f, const char *s, size_t max)
{
    if (max < 5)
        max = 5;
    size_t n = nchars(s);
    if (n <= max) {
        l2_html_escape(f, s);
        return;
    }
    size_t head = (max - 2) / 2, tail = max - 3 - head;
    for (size_t i = 0; i < head; i++)
        s += esc_one(f, s);
    fputs("...", f);
    for (size_t i = head; i < n - tail; i++) { /* skip to the tail */
        size_t k = l2_utf8_len(s);
        s += k ? k : 1;
    }
    l2_html_escape(f, s);
}

/* x with three significant digits (at least the integer part), or
 * with `exact` its exact value where three decimals give it (31.25). */
static void sig3(char *buf, size_t n, double x, const char *unit, int exact)
{
    double a = fabs(x);
    int d = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    if (exact)
        for (int k = 0; k <= 3; k++)
            if (x * pow(10, k) == round(x * pow(10, k))) {
                d = k;
                break;
            }
    snprintf(buf, n, "%.*f%s%s", d, x, *unit ? " " : "", unit);
}

const char *l2_fmt_value(double v, enum l2_unit u, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "n/a");
        return buf;
    }
    double a = fabs(v);
    switch (u) {
    case L2_UNIT_BYTES:
        if (a >= 1073741824.0)
            sig3(buf, n, v / 1073741824.0, "GiB", 1);
        else if (a >= 1048576.0)
            sig3(buf, n, v / 1048576.0, "MiB", 1);
        else if (a >= 1024.0)
            sig3(buf, n, v / 1024.0, "KiB", 1);
        else
            snprintf(buf, n, "%.0f B", v);
        break;
    case L2_UNIT_RATE:
        snprintf(buf, n, "%.2f%%", 100 * v);
        break;
    case L2_UNIT_NS:
        sig3(buf, n, v / 1000, "us", 0);
        break;
    default:
        if (a < 1e15 && v == floor(v))
            snprintf(buf, n, "%.0f", v);
        else
            snprintf(buf, n, "%.4g", v);
    }
    return buf;
}

/* ---- the page ---- */

static const char *const STYLE =
    "body{font:14px/1.45 \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;color:#222;max-width:1168px;"
    "margin:0 auto;padding:8px 16px 40px}\n"
    "h1{font-size:21px;margin:14px 0 6px;overflow-wrap:anywhere}\n"
    "h2{font-size:17px;margin:30px 0 8px;padding-bottom:3px;border-bottom:1px solid #ddd}\n"
    "p{margin:6px 0}\n"
    ".note{color:#555}\n"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#f3f3f3}\n"
    "td.num,th.num{text-align:right;white-space:nowrap}\n"
    "td.name{overflow-wrap:anywhere;max-width:420px}\n"
    ".better{color:#1a7f37}\n"
    ".worse{color:#c62828}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px 16px;align-items:flex-start;margin:8px 0}\n"
    "svg.chart{border:1px solid #e2e2e2;background:#fff;max-width:100%;height:auto}\n"
    "svg text{font-family:\"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;font-size:11px;fill:#333}\n"
    "svg .title{font-size:13px;font-weight:bold}\n"
    "svg .tick{font-size:10px;fill:#555}\n"
    "svg .val{font-size:9px;fill:#444}\n"
    "svg .axis{stroke:#888;stroke-width:1}\n"
    "svg .grid{stroke:#ebebeb;stroke-width:1}\n"
    "svg .band{fill:#f7f7f7}\n";

void l2_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    l2_html_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", STYLE);
    l2_html_escape(f, title);
    fputs("</h1>\n", f);
}

void l2_html_end(FILE *f)
{
    fputs("</body>\n</html>\n", f);
}

/* ---- axes ---- */

/* A nice step (1, 2, 2.5 or 5 times a power of ten) for about 5 ticks
 * over `span` (> 0). */
static double nice_step(double span)
{
    double raw = span / 5, mag = pow(10, floor(log10(raw))), norm = raw / mag;
    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
}

void l2_axis_init(struct l2_axis *a, double min, double max, enum l2_unit u, int zoom, int exact)
{
    double m = isnan(max) || max < 0 ? 0 : max;
    switch (u) {
    case L2_UNIT_BYTES:
        a->scale = m >= 1073741824.0 ? 1 / 1073741824.0 : m >= 1048576.0 ? 1 / 1048576.0 : m >= 1024.0 ? 1 / 1024.0 : 1;
        a->unit = m >= 1073741824.0 ? "GiB" : m >= 1048576.0 ? "MiB" : m >= 1024.0 ? "KiB" : "B";
        break;
    case L2_UNIT_RATE:
        a->scale = 100;
        a->unit = "%";
        break;
    case L2_UNIT_NS:
        a->scale = 1e-3;
        a->unit = "us";
        break;
    default:
        a->scale = m >= 1e6 ? 1e-6 : m >= 1e4 ? 1e-3 : 1;
        a->unit = m >= 1e6 ? "millions" : m >= 1e4 ? "thousands" : "";
    }
    /* in shown units from here */
    double hi = m * a->scale, lo = 0;
    if (u == L2_UNIT_RATE && !(hi > 0))
        hi = 100;
    if (zoom && !isnan(min) && min > 0.5 * m && min < m)
        lo = min * a->scale;
    if (!(hi > 0)) {
        hi = 1;
        exact = 0;
    }
    double step = nice_step(hi - lo);
    if (lo > 0) { /* a margin, then the ends on ticks */
        double pad = (hi - lo) * 0.08;
        lo = floor((lo - pad) / step) * step;
        hi += pad;
        step = nice_step(hi - lo);
        lo = floor(lo / step + 1e-9) * step;
        if (lo < 0)
            lo = 0;
    }
    if (!exact)
        hi = ceil(hi / step - 1e-9) * step;
    if (u == L2_UNIT_RATE && hi > 100 && m <= 1)
        hi = 100;
    a->decimals = 0;
    for (double p = step; a->decimals < 6 && fabs(p - round(p)) > 1e-6 * p; p *= 10)
        a->decimals++;
    a->step = step / a->scale;
    a->lo = lo / a->scale;
    a->hi = hi / a->scale;
}

double l2_axis_pos(const struct l2_axis *a, double v)
{
    return a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0;
}

/* Tick i (from 0) of a, or NAN past the end. */
static double axis_tick(const struct l2_axis *a, unsigned i)
{
    double v = (ceil(a->lo / a->step - 1e-9) + i) * a->step;
    return v <= a->hi + 1e-9 * a->step ? v : NAN;
}

/* Characters of the widest tick label of a. */
static size_t axis_label_chars(const struct l2_axis *a)
{
    char b[48];
    size_t w = 1;
    double v;
    for (unsigned i = 0; !isnan(v = axis_tick(a, i)); i++) {
        size_t k = (size_t)snprintf(b, sizeof b, "%.*f", (int)a->decimals, v * a->scale);
        w = k > w ? k : w;
    }
    return w;
}

/* The axis title with its unit. */
static void axis_title(FILE *f, const char *title, const struct l2_axis *a)
{
    l2_html_escape(f, title);
    if (*a->unit) {
        fputs(" (", f);
        l2_html_escape(f, a->unit);
        fputc(')', f);
    }
}

void l2_svg_axis(FILE *f, const struct l2_axis *a, int vertical, double x0, double y0, double x1, double y1,
                 const char *title)
{
    double v;
    for (unsigned i = 0; !isnan(v = axis_tick(a, i)); i++) {
        double t = l2_axis_pos(a, v);
        char lab[48];
        snprintf(lab, sizeof lab, "%.*f", (int)a->decimals, v * a->scale);
        if (vertical) {
            double y = y1 - t * (y1 - y0);
            if (t > 1e-9)
                fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y, x1, y);
            fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0 - 4, y, x0, y);
            fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 7, y + 3.5,
                    lab);
        } else {
            double x = x0 + t * (x1 - x0);
            if (t > 1e-9)
                fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y0, x, y1);
            fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y1, x, y1 + 4);
            fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, y1 + 16,
                    lab);
        }
    }
    if (vertical) {
        fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0, x0, y1);
        double tx = x0 - 7 - (double)axis_label_chars(a) * SMALL_W - 10, ty = (y0 + y1) / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">", tx, ty,
                tx, ty);
    } else {
        fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y1, x1, y1);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x0 + x1) / 2, y1 + 33);
    }
    axis_title(f, title, a);
    fputs("</text>\n", f);
}

/* ---- charts ---- */

const char *l2_svg_color(unsigned i)
{
    static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                          "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};
    return palette[i % (sizeof palette / sizeof *palette)];
}

static const char *series_color(const struct l2_series *s, unsigned i)
{
    return s->color ? s->color : l2_svg_color(i);
}

/* <svg ...>, its <title> and the chart title. */
static void svg_open(FILE *f, const char *id, const char *title, double w, double h)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"");
    if (id) {
        fputs(" id=\"", f);
        l2_html_escape(f, id);
        fputc('"', f);
    }
    fprintf(f, " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n<title>", w, h, w, h);
    l2_html_escape(f, title);
    fputs("</title>\n<text class=\"title\" x=\"10\" y=\"19\">", f);
    l2_html_escape_cut(f, title, (size_t)((w - 20) / 7.4));
    fputs("</text>\n", f);
}

/* The largest (or with `least`, the smallest) value of the series (NAN
 * ignored), or NAN when none has one. */
static double series_ext(const struct l2_series *s, unsigned ns, unsigned nv, int least)
{
    double m = NAN;
    for (unsigned j = 0; j < ns; j++)
        for (unsigned i = 0; i < nv; i++)
            if (!isnan(s[j].v[i]) && (isnan(m) || (least ? s[j].v[i] < m : s[j].v[i] > m)))
                m = s[j].v[i];
    return m;
}

void l2_svg_line_chart(FILE *f, const struct l2_line_chart *c)
{
    double w = c->width ? c->width : 570, h = c->height ? c->height : 340;
    struct l2_axis ax, ay;
    l2_axis_init(&ax, 0, c->nx ? c->x[c->nx - 1] : 0, c->xunit, 0, 1);
    double ymin = series_ext(c->s, c->ns, c->nx, 1), ymax = series_ext(c->s, c->ns, c->nx, 0);
    if (c->ref_name && !isnan(c->ref)) {
        ymin = isnan(ymin) || c->ref < ymin ? c->ref : ymin;
        ymax = isnan(ymax) || c->ref > ymax ? c->ref : ymax;
    }
    l2_axis_init(&ay, ymin, ymax, c->yunit, 1, 0);
    double x0 = 7 + (double)axis_label_chars(&ay) * SMALL_W + 30, x1 = w - 18, y0 = 34, y1 = h - 46;
    unsigned nleg = c->ns + (c->ref_name != NULL);
    double total = h + 18.0 * nleg + 6;
    svg_open(f, c->id, c->title, w, total);
    l2_svg_axis(f, &ax, 0, x0, y0, x1, y1, c->xname);
    l2_svg_axis(f, &ay, 1, x0, y0, x1, y1, c->yname);
#define PX(v) (x0 + l2_axis_pos(&ax, v) * (x1 - x0))
#define PY(v) (y1 - l2_axis_pos(&ay, v) * (y1 - y0))
    char b1[32], b2[32];
    if (c->ref_name && !isnan(c->ref)) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"1.5\" "
                   "stroke-dasharray=\"6 4\"><title>",
                x0, PY(c->ref), x1, PY(c->ref));
        l2_html_escape(f, c->ref_name);
        fprintf(f, ": %s</title></line>\n", l2_fmt_value(c->ref, c->yunit, b1, sizeof b1));
    }
    for (unsigned j = 0; j < c->ns; j++) {
        const struct l2_series *s = &c->s[j];
        const char *col = series_color(s, j);
        double wide = 2.0 * (c->ns - 1 - j), r = 3.5 + wide / 2; /* earlier series wider */
        /* one polyline per run of points with values */
        for (unsigned i = 0; i < c->nx;) {
            while (i < c->nx && isnan(s->v[i]))
                i++;
            unsigned start = i;
            while (i < c->nx && !isnan(s->v[i]))
                i++;
            if (i - start < 2)
                continue;
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.0f\" points=\"", col, 2 + wide);
            for (unsigned k = start; k < i; k++)
                fprintf(f, "%s%.1f,%.1f", k > start ? " " : "", PX(c->x[k]), PY(s->v[k]));
            fputs("\"/>\n", f);
        }
        for (unsigned i = 0; i < c->nx; i++) {
            if (isnan(s->v[i]))
                continue;
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>", PX(c->x[i]), PY(s->v[i]), r,
                    col);
            l2_html_escape(f, s->name);
            fputs(": ", f);
            l2_html_escape(f, c->xname);
            fprintf(f, " %s, ", l2_fmt_value(c->x[i], c->xunit, b1, sizeof b1));
            l2_html_escape(f, c->yname);
            fprintf(f, " %s</title></circle>\n", l2_fmt_value(s->v[i], c->yunit, b2, sizeof b2));
        }
    }
#undef PX
#undef PY
    /* the legend, one entry a line */
    size_t cut = (size_t)((w - 60) / CHAR_W);
    for (unsigned j = 0; j < nleg; j++) {
        double y = h + 18.0 * j;
        int ref = j == c->ns;
        const char *col = ref ? "#555" : series_color(&c->s[j], j);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>", x0,
                y, x0 + 26, y, col, ref ? " stroke-dasharray=\"6 4\"" : "");
        if (!ref)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>", x0 + 13, y, col);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x0 + 34, y + 4);
        const char *name = ref ? c->ref_name : c->s[j].name;
        l2_html_escape_cut(f, name, cut);
        if (nchars(name) > cut) {
            fputs("<title>", f);
            l2_html_escape(f, name);
            fputs("</title>", f);
        }
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

void l2_svg_bar_chart(FILE *f, const struct l2_bar_chart *c)
{
    double w = c->width ? c->width : 570;
    size_t longest = 4;
    for (unsigned g = 0; g < c->ngroup; g++) {
        size_t k = nchars(c->group[g]);
        longest = k > longest ? k : longest;
    }
    size_t cut = longest < 32 ? longest : 32;
    struct l2_axis ax;
    l2_axis_init(&ax, 0, series_ext(c->s, c->ns, c->ngroup, 0), c->unit, 0, 0);
    double bh = c->ns <= 3 ? 13 : c->ns <= 6 ? 10 : 6, gap = 8, gh = c->ns * bh + gap;
    int values = bh >= 10; /* room for a value at each bar's end */
    size_t vchars = 0;
    char b[32];
    for (unsigned j = 0; values && j < c->ns; j++)
        for (unsigned g = 0; g < c->ngroup; g++) {
            size_t k = strlen(l2_fmt_value(c->s[j].v[g], c->unit, b, sizeof b));
            vchars = k > vchars ? k : vchars;
        }
    size_t tick = axis_label_chars(&ax);
    double right = values ? (double)vchars * VAL_W + 8 : 0, half_tick = (double)tick * SMALL_W / 2 + 4;
    double x0 = 10 + (double)cut * CHAR_W + 8, x1 = w - (right > half_tick ? right : half_tick) - 6;
    double y0 = 30 + 17.0 * c->ns + 6, y1 = y0 + gh * c->ngroup, h = y1 + 42;
    svg_open(f, c->id, c->title, w, h);
    /* legend above the plot */
    size_t lcut = (size_t)((w - 40) / CHAR_W);
    for (unsigned j = 0; j < c->ns; j++) {
        double y = 30 + 17.0 * j;
        fprintf(f, "<rect class=\"key\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>", x0, y,
                series_color(&c->s[j], j));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x0 + 20, y + 9);
        l2_html_escape_cut(f, c->s[j].name, lcut);
        if (nchars(c->s[j].name) > lcut) {
            fputs("<title>", f);
            l2_html_escape(f, c->s[j].name);
            fputs("</title>", f);
        }
        fputs("</text>\n", f);
    }
    for (unsigned g = 1; g < c->ngroup; g += 2)
        fprintf(f, "<rect class=\"band\" x=\"2\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", y0 + g * gh,
                x1 - 2, gh);
    l2_svg_axis(f, &ax, 0, x0, y0, x1, y1, c->vname);
    for (unsigned g = 0; g < c->ngroup; g++) {
        double gy = y0 + g * gh + gap / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 6, gy + c->ns * bh / 2 + 4);
        l2_html_escape_cut(f, c->group[g], cut);
        if (nchars(c->group[g]) > cut) {
            fputs("<title>", f);
            l2_html_escape(f, c->group[g]);
            fputs("</title>", f);
        }
        fputs("</text>\n", f);
        for (unsigned j = 0; j < c->ns; j++) {
            double v = c->s[j].v[g], len = isnan(v) || v <= 0 ? 0 : l2_axis_pos(&ax, v) * (x1 - x0), y = gy + j * bh;
            fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                    x0, y, len, bh - 1, series_color(&c->s[j], j));
            l2_html_escape(f, c->group[g]);
            fputs(" - ", f);
            l2_html_escape(f, c->s[j].name);
            fprintf(f, ": %s</title></rect>", l2_fmt_value(v, c->unit, b, sizeof b));
            if (values)
                fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%s</text>", x0 + len + 3, y + bh - 3,
                        l2_fmt_value(v, c->unit, b, sizeof b));
            fputc('\n', f);
        }
    }
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0, x0, y1);
    fputs("</svg>\n", f);
}
