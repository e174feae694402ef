/* The text in columns (src/results/results.h): kl__machine_cut keeps what
 * tells two machines apart at the widths the command cuts them to (the
 * history's machine column, the report's history labels), and
 * kl__cut_text and kl__wrap_text (list's lines) stay within their widths. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "results.h"

/* The widths machines' names are cut to: history's column (18), the
 * report's history labels (17, 26), and a few more. */
static const int widths[] = {12, 17, 18, 26, 40};
enum { WIDTHS = sizeof widths / sizeof *widths };

/* a and b cut differ, and each within its width, at every width. */
static void apart(const char *a, const char *b) {
  for (int i = 0; i < WIDTHS; i++) {
    char ca[128], cb[128];
    kl__machine_cut(a, widths[i], ca, sizeof ca);
    kl__machine_cut(b, widths[i], cb, sizeof cb);
    EXPECT(kl__text_columns(ca) <= widths[i] &&
           kl__text_columns(cb) <= widths[i]);
    if (strcmp(ca, cb) == 0)
      printf("at %d: '%s' and '%s' both '%s'\n", widths[i], a, b, ca);
    EXPECT(strcmp(ca, cb) != 0);
  }
}

static void words_are(const char *name, const char *want) {
  char got[256];
  kl__machine_words(name, got, sizeof got);
  if (strcmp(got, want) != 0)
    printf("'%s': '%s', not '%s'\n", name, got, want);
  EXPECT(strcmp(got, want) == 0);
}

static void cut_is(const char *name, int width, const char *want) {
  char got[256];
  kl__machine_cut(name, width, got, sizeof got);
  if (strcmp(got, want) != 0)
    printf("'%s' at %d: '%s', not '%s'\n", name, width, got, want);
  EXPECT(strcmp(got, want) == 0);
}

int main(void) {
  /* Machines that differ in their GPU alone, as the history names them
   * ("HOST: CPU / GPU") and with " | ". */
  apart("vm: Intel(R) Xeon(R) Platinum 8480+ | NVIDIA H100 80GB HBM3",
        "vm: Intel(R) Xeon(R) Platinum 8480+ | NVIDIA H200");
  apart("vm: Intel(R) Xeon(R) Processor / NVIDIA H100 80GB HBM3",
        "vm: Intel(R) Xeon(R) Processor / NVIDIA H200");
  apart("2 ranks of vm: Intel(R) Xeon(R) Processor / NVIDIA H100 80GB HBM3",
        "2 ranks of vm: Intel(R) Xeon(R) Processor / NVIDIA H200");
  /* A GPU and none; two CPUs. */
  apart("vm: Intel(R) Xeon(R) Processor / NVIDIA H100 80GB HBM3",
        "vm: Intel(R) Xeon(R) Processor");
  apart("node-1: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
        "node-1: AMD EPYC 7763 64-Core Processor");
  /* Devices alone, as list shows them. */
  apart("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe");

  words_are("vm: Intel(R) Xeon(R) Platinum 8480+ | NVIDIA H100 80GB HBM3",
            "H100 80GB HBM3 / vm: Platinum 8480+");
  words_are("vm: Intel(R) Xeon(R) Processor / NVIDIA H200", "H200 / vm: Xeon");
  words_are("Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz", "i7-8700K");
  words_are("AMD EPYC 7763 64-Core Processor", "EPYC 7763 64-Core");
  words_are("NVIDIA H200", "H200");
  words_are("4 ranks of ci: Test CPU", "4 ranks, ci: Test");
  words_are("Intel(R) CPU", "Intel CPU");
  words_are("", "");
  /* As it is where it fits; the cut marked, not ending on a separator. */
  cut_is("ci: Test CPU", 18, "ci: Test CPU");
  cut_is("vm: Intel(R) Xeon(R) Processor / NVIDIA H100 80GB HBM3", 18,
         "H100 80GB HBM3~");
  cut_is("vm: Intel(R) Xeon(R) Processor / NVIDIA H200", 18, "H200 / vm: Xeon");
  cut_is("vm: Intel(R) Xeon(R) Processor / NVIDIA H200", 12, "H200 / vm~");
  cut_is("NVIDIA H100 80GB HBM3", 12, "H100 80GB H~");

  char out[64];
  kl__cut_text("bandwidth ceiling", 9, out, sizeof out);
  EXPECT(strcmp(out, "bandwidt~") == 0);
  kl__cut_text("copy", 9, out, sizeof out);
  EXPECT(strcmp(out, "copy") == 0);
  kl__cut_text("\xc3\xa9t\xc3\xa9 long", 3, out, sizeof out); /* "été long" */
  EXPECT(strcmp(out, "\xc3\xa9t~") == 0);

  /* Wrapped: every line within the width, the words all there. */
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  EXPECT(f != NULL);
  if (f) {
    kl__wrap_text(f, "    serial-copy   serial  one loop over every element of "
                  "the three arrays, then a second pass, a-very-long-word-that-"
                  "fills-more-than-one-line-by-itself-and-more end", 40, 10);
    fclose(f);
    int lines = 0, words = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
      lines++;
      EXPECT(kl__text_columns(line) <= 40);
      if (lines > 1) EXPECT(strncmp(line, "          ", 10) == 0);
      words += strstr(line, "end") != NULL;
    }
    EXPECT(lines >= 4 && words == 1);
    free(text);
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
