/*
 * html_page.c - the frame of every cuprof HTML page (html_page.h).
 */
#include "formats/html_page.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* formats/html/, built in (formats.mk: html_assets.S) */
extern const char cuprof_html_uplot_js[], cuprof_html_uplot_css[];
extern const char cuprof_html_page_css[], cuprof_html_common_js[];
extern const char cuprof_html_report_js[], cuprof_html_compare_js[], cuprof_html_merged_js[];

static void puts_(cuprof_html_put put, void *ctx, const char *s)
{
    put(ctx, s, strlen(s));
}

void cuprof_html_page(cuprof_html_put put, void *ctx, cuprof_html_kind kind, const char *title,
                      const char *json, size_t len)
{
    puts_(put, ctx, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    for (const char *c = title ? title : "cuprof"; *c; c++)
        if (*c == '<')
            puts_(put, ctx, "&lt;");
        else if (*c == '&')
            puts_(put, ctx, "&amp;");
        else
            put(ctx, c, 1);
    puts_(put, ctx, "</title>\n<style>\n");
    puts_(put, ctx, cuprof_html_uplot_css);
    puts_(put, ctx, "\n");
    puts_(put, ctx, cuprof_html_page_css);
    puts_(put, ctx, "</style></head>\n<body><div id=\"app\"></div>\n"
                    "<script id=\"cuprof-data\" type=\"application/json\">");
    size_t from = 0;
    for (size_t i = 0; i < len; i++)
        if (json[i] == '<') {
            put(ctx, json + from, i - from);
            puts_(put, ctx, "\\u003c");
            from = i + 1;
        }
    put(ctx, json + from, len - from);
    puts_(put, ctx, "</script>\n<script>\n");
    puts_(put, ctx, cuprof_html_uplot_js);
    puts_(put, ctx, "\n</script>\n<script>\n");
    puts_(put, ctx, cuprof_html_common_js);
    puts_(put, ctx, "\n</script>\n<script>\n");
    puts_(put, ctx, kind == CUPROF_HTML_COMPARE  ? cuprof_html_compare_js
                    : kind == CUPROF_HTML_MERGED ? cuprof_html_merged_js
                                                 : cuprof_html_report_js);
    puts_(put, ctx, "\n</script>\n</body></html>\n");
}

typedef struct file_ctx {
    FILE *f;
    int bad;
} file_ctx;

static void put_file(void *ctx, const char *s, size_t n)
{
    file_ctx *fc = ctx;
    if (n && fwrite(s, 1, n, fc->f) != n)
        fc->bad = 1;
}

int cuprof_html_page_file(const char *path, cuprof_html_kind kind, const char *title, const char *json,
                          size_t len, char *err, size_t errlen)
{
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        snprintf(err, errlen, "the path %.64s... is too long", path);
        return -1;
    }
    file_ctx fc = {fopen(tmp, "w"), 0};
    if (!fc.f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    cuprof_html_page(put_file, &fc, kind, title, json, len);
    int e = fc.bad || ferror(fc.f) ? (errno ? errno : EIO) : 0;
    if (fclose(fc.f) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        remove(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}
