/* `kladder report --markdown` (report-md.c): the performance page of a
 * set of results files. */
#ifndef KL_CLI_REPORT_MD_H
#define KL_CLI_REPORT_MD_H

#include <stddef.h>

/* The page of inputs[0 .. count - 1] into out ("-": standard output);
 * machines and backends: comma-separated names (the columns, in order, and
 * rows every table has), or NULL. 0, or 2 with one line in err. */
int report_markdown(const char *out, const char *const *inputs, int count,
                    const char *machines, const char *backends, char *err,
                    size_t errlen);

#endif
