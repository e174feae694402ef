/* maxrss PROGRAM [ARGS...]: runs PROGRAM and prints its peak resident set
 * size in KiB ("maxrss N"), then exits with its exit status (125 where it
 * did not run or did not exit). tests/cli/module.sh measures `kladder
 * --version` with it, where /usr/bin/time may be missing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: maxrss PROGRAM [ARGS...]\n");
    return 125;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("maxrss: fork");
    return 125;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror("maxrss: exec");
    _exit(125);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) {
    perror("maxrss: waitpid");
    return 125;
  }
  /* The largest child waited for: the only one. Linux counts in KiB. */
  struct rusage usage;
  if (getrusage(RUSAGE_CHILDREN, &usage) != 0) {
    perror("maxrss: getrusage");
    return 125;
  }
  printf("maxrss %ld\n", (long)usage.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}
