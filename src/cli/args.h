/* The command line of every command (args.c): each command declares its
 * options as a table, and one parser reads them by the GNU conventions:
 * -n 5, -n5, --size 5, --size=5, any unambiguous prefix of a long name
 * (--si 5), flags together (-qv), options and operands in any order, --
 * ending the options. Its rules, the same for every command: a value is
 * never empty; an option of one value is given once (two names of one
 * slot are one option); a flag takes no value; -h and --help print the
 * command's help. A mistake is one line on stderr, "kladder: error: ...
 * (see `kladder COMMAND --help`)", exit code 2. */
#ifndef KL_CLI_ARGS_H
#define KL_CLI_ARGS_H

#include "text.h"

typedef enum arg_kind {
  ARG_FLAG,  /* no value: *(int *)slot = 1, and may be repeated */
  ARG_VALUE, /* one value, once: *(const char **)slot */
  ARG_LIST   /* repeatable, the values adding up: *(char **)slot, a comma
              * list the command frees */
} arg_kind;

typedef struct arg_option {
  const char *name; /* the long name without "--"; NULL: none */
  char letter;      /* the short one; 0: none */
  arg_kind kind;
  void *slot;
  /* Each value checked as it is read (NULL: none): 0, or the exit code
   * of the mistake it reported. */
  int (*check)(const char *command, const char *value);
  char given; /* the parser's: 0, or how first given: 's' short, 'l' long */
} arg_option;

/* A command's arguments: what the command declares, and the operands the
 * parser found. */
typedef struct args {
  const char *command; /* "run" */
  const char *usage;   /* the help text */
  arg_option *options; /* ended by an entry of no name and no letter */
  const char **operands;
  int max_operands;    /* operands room */
  const char *operands_are; /* what the operands may be, said where there
                             * are too many; NULL: "COMMAND takes options
                             * only" */
  int count;           /* the operands found */
} args;

/* Reads argv[1..argc) into a's slots and operands: -1 to go on, 0 after
 * the help was printed, else the exit code of the mistake (reported). */
int args_parse(args *a, int argc, char **argv);
/* Option o's name as it was given first: "-i", or "--input". */
const char *args_name(const arg_option *o, char dst[64]);
/* A mistake in the use of command (NULL: kladder itself): one line, the
 * formatted text, and where the command's help is; returns 2. */
PRINTF_LIKE(2, 3)
int args_error(const char *command, const char *fmt, ...);
/* text as a whole number from min to max (decimal digits, an optional
 * '+'): 1, and *out; else 0. */
int args_count(const char *text, unsigned long long min,
               unsigned long long max, unsigned long long *out);
/* text as a finite decimal number (percent: "0.5%" too, as 0.005): 1,
 * and *out; else 0. */
int args_real(const char *text, int percent, double *out);

#endif
