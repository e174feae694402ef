/* Text the command's files share: arguments shown in one-line messages,
 * and text escaped for HTML. */
#ifndef KL_CLI_TEXT_H
#define KL_CLI_TEXT_H

#include <stdio.h>

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
/* s with & < > " ' written as HTML's entities; NULL writes nothing. */
void html_escape(FILE *f, const char *s);

#endif
