/* `kladder tune`: the wisdom file of this machine (tune.c). */
#ifndef KL_CLI_TUNE_H
#define KL_CLI_TUNE_H

/* argv[0] is "tune": the command's exit code. */
int tune_main(int argc, char **argv);

#endif
