/*
 * html_page.h - the frame of every cuprof HTML page (NAME.report.html, the
 * compare page, the merged page): one self-contained file, no request of
 * any kind. It holds, in this order: uPlot's CSS and the pages' CSS, the
 * data as JSON in <script id="cuprof-data" type="application/json">,
 * uPlot's code, formats/html/common.js and the page's own script. The
 * assets come into the binary at build time (.incbin: formats.mk).
 *
 * Every '<' in the JSON is written \u003c (JSON has '<' only inside
 * strings, where the escape means the same), so no kernel name or argument
 * can end the script element. Prefix cuprof_html_.
 */
#ifndef CUPROF_HTML_PAGE_H
#define CUPROF_HTML_PAGE_H

#include <stddef.h>

typedef enum cuprof_html_kind {
    CUPROF_HTML_REPORT,    /* report.js: {"summary": ..., "timeline": ...} */
    CUPROF_HTML_COMPARE,   /* compare.js: {"compare": ..., "summaries": [...]} */
    CUPROF_HTML_MERGED,    /* merged.js: {"merged": ..., "ranks": [...]} */
} cuprof_html_kind;

/* Where the page goes: put(ctx, bytes, n). */
typedef void (*cuprof_html_put)(void *ctx, const char *s, size_t n);

/* Writes the page: title (plain text; escaped here) and json (len bytes,
 * one JSON value) for the page of kind. */
void cuprof_html_page(cuprof_html_put put, void *ctx, cuprof_html_kind kind, const char *title,
                      const char *json, size_t len);

/* The same into path (written as path.tmp, then renamed). 0, or -1 with
 * one line in err. */
int cuprof_html_page_file(const char *path, cuprof_html_kind kind, const char *title, const char *json,
                          size_t len, char *err, size_t errlen);

#endif /* CUPROF_HTML_PAGE_H */
