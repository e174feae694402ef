/* `kladder report` and `kladder run --html`: one self-contained HTML file
 * (inline CSS and SVG, one small script that checks the page; no network)
 * drawn from results files (kladder run --json). */
#ifndef KL_CLI_REPORT_HTML_H
#define KL_CLI_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "history.h"

/* kladder report FILE.json [FILE.json ...] -o OUT.html: the exit code. */
int report_main(int argc, char **argv);

/* Writes the report of the results files `inputs` to `out` (through a
 * temporary file beside it, renamed into place when whole). 0 on success;
 * else 2 with one line in err naming the file at fault, and nothing
 * written. */
int report_write(const char *out, const char *const *inputs, int count,
                 char *err, size_t errlen);
/* The same with each rung's history in db (NULL: none) beside its
 * ladder. */
int report_write_db(const char *out, const char *const *inputs, int count,
                    history_db *db, char *err, size_t errlen);

/* The page of `inputs` written to f, with `extra` (where not NULL) called
 * to write a section of its own after the header (compare's comparison).
 * 0, or 2 with one line in err. */
typedef void (*report_extra)(FILE *f, const void *ctx);
int report_page(FILE *f, const char *const *inputs, int count,
                report_extra extra, const void *ctx, char *err,
                size_t errlen);

#endif
