/* Text the command's files share: arguments shown in one-line messages,
 * text escaped for HTML, a file written whole, text cut or wrapped to a
 * width and machines' names in short; and the catching of the signals
 * that stop a command. */
#ifndef KL_CLI_TEXT_H
#define KL_CLI_TEXT_H

#include <stdarg.h>
#include <stdio.h>

/* A function whose argument f is a printf format, its arguments from a. */
#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Arguments echoed in messages are cut to this many bytes: a 100 kB
 * argument must not push the reason out of sight. */
#define SHOWN_BYTES 40
#define SHOWN_SIZE (4 * SHOWN_BYTES + 8)

/* arg as a message shows it: cut at a character boundary and marked with
 * "...", control characters written \xNN so the message stays one line. */
const char *shown(const char *arg, char dst[SHOWN_SIZE]);
/* A message on one line: a control character in it (a newline in a name
 * the user typed) is written \xNN. */
void one_line(FILE *f, const char *text);
/* An error on one line of stderr, "kladder: error: " and the message,
 * with "(see `kladder COMMAND --help`)" after it where hint_command is
 * not NULL ("": the command's own --help); returns 2, bad usage's exit
 * code. */
int error_vline(const char *hint_command, const char *fmt, va_list ap);
/* Whether name is an item of the comma-separated list, exactly (NULL:
 * any name is). */
int in_list(const char *list, const char *name);
/* s with & < > " ' written as HTML's entities; NULL writes nothing. */
void html_escape(FILE *f, const char *s);
/* A message into dst (size bytes, cut to fit), printf-like; returns
 * `code`, so that a function refusing its input says why and returns its
 * failure in one statement. */
PRINTF_LIKE(4, 5)
int said(int code, char *dst, size_t size, const char *fmt, ...);
/* Field id's JSON key, as the library's field table names it (the
 * command's own outputs name a field by it, never by a text of their
 * own). */
const char *field_key(int id);
/* Whether `name` is an item of `list`, a results file's flags
 * ("ceiling,vendor"; items apart by ',', ';' or a space). */
int listed(const char *list, const char *name);
/* s as a CSV field: as it is, or quoted (quotes doubled) where it holds a
 * comma, a quote or a line break. */
void csv_text(FILE *f, const char *s);
/* v in its shortest form of 15 to 17 significant digits that reads back
 * exactly (strtod). */
void exact_number(double v, char *dst, size_t size);
/* The columns s takes in a terminal: one a character (UTF-8). */
int text_columns(const char *s);
/* s in at most width columns: as it is, or cut and its last column '~'. */
void cut_text(const char *s, int width, char *dst, size_t size);
/* text on f in lines of at most width columns, broken at spaces (a word
 * longer than a line where the line ends), the lines after the first
 * indented by indent; the first keeps its spaces, so that its columns
 * stay where they were. */
void wrap_text(FILE *f, const char *text, int width, int indent);
/* A machine's or a device's name in its short form, the part that tells
 * machines apart first: a GPU's model before the host and its CPU, the
 * makers' words, trademarks' marks and the clock left out. "vm: Intel(R)
 * Xeon(R) Platinum 8480+ / NVIDIA H100 80GB HBM3" (the history's "HOST:
 * CPU / GPU"; " | " too) is "H100 80GB HBM3 / vm: Platinum 8480+",
 * "NVIDIA H200" "H200"; "P ranks of " is "P ranks, " in front. */
void machine_words(const char *name, char *dst, size_t size);
/* name in at most width columns: as it is where it fits, else its short
 * form (machine_words), cut with '~' where that is still too long, so
 * that a cut keeps what differs between two machines rather than the
 * prefix they share. */
void machine_cut(const char *name, int width, char *dst, size_t size);
/* Whether s is written as a decimal number: an optional sign, then a
 * digit (or a point and a digit); no leading space, no hexadecimal, no
 * "nan" or "inf". strtod and strtol take more than the user means. */
int plain_number(const char *s);
/* fn the handler of SIGINT and SIGTERM, the signals that stop a run or a
 * tune after the repetition in progress. */
void catch_stop_signals(void (*fn)(int));

#endif
