/* The commands over results files, each its arguments read (args.c) and
 * the results layer called (src/results/results.h): argv[0] is the
 * command's name; each returns the command's exit code. */
#ifndef KL_CLI_COMMANDS_H
#define KL_CLI_COMMANDS_H

/* kladder compare BASE.json NEW.json (compare.c): 0 no regression, 1 a
 * pair slower beyond the threshold or a new failure, 2 bad usage, input
 * or output. */
int compare_main(int argc, char **argv);
/* kladder history --db FILE ... (history.c): 0 done, 1 --check found a
 * regression, 2 bad usage or input. */
int history_main(int argc, char **argv);
/* kladder report FILE.json [...] -o OUT.html (report.c): 0 written, 2 bad
 * usage or a file that cannot be read or written. */
int report_main(int argc, char **argv);

#endif
