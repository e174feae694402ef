/* The command's own text: one-line messages, numbers as the user writes
 * them, and the catching of the signals that stop a command. The text it
 * shares with the results layer (arguments shown in messages, text cut or
 * wrapped to a width, machines' names in short) is results.h's. */
#ifndef KL_CLI_TEXT_H
#define KL_CLI_TEXT_H

#include <stdarg.h>
#include <stdio.h>

#include "../results/results.h"

/* A message on one line: a control character in it (a newline in a name
 * the user typed) is written \xNN. */
void one_line(FILE *f, const char *text);
/* An error on one line of stderr, "kladder: error: " and the message,
 * with "(see `kladder COMMAND --help`)" after it where hint_command is
 * not NULL ("": the command's own --help); returns 2, bad usage's exit
 * code. */
int error_vline(const char *hint_command, const char *fmt, va_list ap);
/* The same without the hint: a mistake or a failure of the command's own
 * (a file that cannot be read or written). */
PRINTF_LIKE(1, 2)
int error_line(const char *fmt, ...);
/* Whether s is written as a decimal number: an optional sign, then a
 * digit (or a point and a digit); no leading space, no hexadecimal, no
 * "nan" or "inf". strtod and strtol take more than the user means. */
int plain_number(const char *s);
/* fn the handler of SIGINT and SIGTERM, the signals that stop a run or a
 * tune after the repetition in progress. */
void catch_stop_signals(void (*fn)(int));

#endif
