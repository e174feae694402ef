/* The results files' POSIX side: where a file is written, checked before
 * the run, and written beside its destination so that a failed run leaves
 * nothing behind. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char *copy_text(const char *text, const char *suffix) {
  char *copy = malloc(strlen(text) + strlen(suffix) + 1);
  if (copy) strcat(strcpy(copy, text), suffix);
  return copy;
}

/* Whether the directory a path names its file in exists. */
static int directory_exists(const char *path) {
  char *dir = copy_text(path, "");
  if (!dir) return 1;
  char *slash = strrchr(dir, '/');
  if (!slash) strcpy(dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  struct stat info;
  const int yes = stat(dir, &info) == 0 && S_ISDIR(info.st_mode);
  free(dir);
  return yes;
}

/* A regular file: a temporary one beside it, with the mode the file would
 * have had, renamed into place when complete. */
static int open_beside(const char *path, mode_t mode, FILE **f, char **temp,
                       char *why, size_t why_size) {
  *temp = copy_text(path, ".tmp-XXXXXX");
  if (!*temp) {
    snprintf(why, why_size, "out of host memory");
    return 0;
  }
  int fd = mkstemp(*temp);
  if (fd < 0) {
    /* The file is written beside its name first: a directory that takes
     * no new file (/proc) refuses that, whatever the file's own state. */
    snprintf(why, why_size, "its directory takes no new file (%s)",
             strerror(errno));
    free(*temp);
    *temp = NULL;
    return 0;
  }
  if (fchmod(fd, mode) != 0 || !(*f = fdopen(fd, "w"))) {
    snprintf(why, why_size, "%s", strerror(errno));
    close(fd);
    remove(*temp);
    free(*temp);
    *temp = NULL;
    return 0;
  }
  return 1;
}

/* A device or a pipe is written directly; a pipe with no reader yet is
 * refused rather than waited for. */
static int open_direct(const char *path, int fifo, FILE **f, char *why,
                       size_t why_size) {
  int fd = open(path, O_WRONLY | (fifo ? O_NONBLOCK : 0));
  if (fd >= 0 && fifo) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0 || !(*f = fdopen(fd, "w"))) {
    snprintf(why, why_size, "%s", fifo && errno == ENXIO
                                      ? "a pipe with no reader"
                                      : strerror(errno));
    if (fd >= 0) close(fd);
    return 0;
  }
  return 1;
}

kl_status kl__output_file(const char *path, FILE **f, char **dest,
                          char **temp, char *why, size_t why_size) {
  *f = NULL;
  *temp = NULL;
  *dest = copy_text(path, "");
  if (!*dest) {
    snprintf(why, why_size, "out of host memory");
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  struct stat info;
  int ok;
  if (stat(path, &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      snprintf(why, why_size, "it is a directory");
      ok = 0;
    } else if (S_ISREG(info.st_mode)) {
      ok = access(path, W_OK) == 0;
      if (!ok) snprintf(why, why_size, "%s", strerror(errno));
      else ok = open_beside(path, info.st_mode & 07777, f, temp, why, why_size);
    } else {
      ok = open_direct(path, S_ISFIFO(info.st_mode), f, why, why_size);
    }
  } else if (errno == ENOENT) {
    /* A new file: the mode the process's umask gives. */
    mode_t mask = umask(0);
    umask(mask);
    ok = open_beside(path, 0666 & ~mask, f, temp, why, why_size);
    if (!ok && !directory_exists(path))
      snprintf(why, why_size, "its directory does not exist");
  } else {
    snprintf(why, why_size, "%s", strerror(errno));
    ok = 0;
  }
  return ok ? KL_OK : KL_USAGE;
}

/* One whole text written to a path as every output is (kl__output_file):
 * a regular file or a new path through a temporary renamed into place, a
 * device or a pipe (or a link to one) in place, "-" to standard output;
 * a failure leaves no file and no temporary behind. */
kl_status kl__file_write(const char *path, const void *data, size_t len) {
  if (strcmp(path, "-") == 0) {
    if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0)
      return kl__usage(KL_IO, "writing to standard output failed: %s",
                       strerror(errno ? errno : EIO));
    return KL_OK;
  }
  FILE *f = NULL;
  char *dest = NULL, *temp = NULL, why[160] = "";
  kl_status st = kl__output_file(path, &f, &dest, &temp, why, sizeof why);
  if (st != KL_OK) {
    free(dest);
    return kl__usage(st, "cannot write " KL_Q ": %s", KL_CLIP(path), why);
  }
  int err = 0;
  if (len && fwrite(data, 1, len, f) != len) err = errno ? errno : EIO;
  if (fflush(f) != 0 && !err) err = errno ? errno : EIO;
  if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (!err && temp && rename(temp, dest) != 0) err = errno;
  if (err && temp) remove(temp);
  free(temp);
  free(dest);
  return err ? kl__usage(KL_IO, "writing " KL_Q " failed: %s", KL_CLIP(path),
                         strerror(err))
             : KL_OK;
}

/* ---- input files --------------------------------------------------------
 * A workload's input file (--input FILE) is read in pieces of at most
 * this many bytes: never in one call, which Linux caps at 2 GiB and which
 * would need the whole file in one buffer. */
#define INPUT_PIECE_BYTES (INT64_C(64) << 20)

/* Input files up to this size are read whole to check their size. */
#define SMALL_INPUT ((off_t)1 << 20)

kl_status kl__input_size(const char *path, int64_t *size) {
  struct stat info;
  if (!*path) return kl__usage(KL_USAGE, "the input file's name is empty");
  if (stat(path, &info) != 0)
    return kl__usage(KL_USAGE, "cannot read input file " KL_Q ": %s",
                     KL_CLIP(path), strerror(errno));
  if (S_ISDIR(info.st_mode))
    return kl__usage(KL_USAGE, "input file " KL_Q " is a directory",
                     KL_CLIP(path));
  /* A pipe or a device has no size to plan the run by. */
  if (!S_ISREG(info.st_mode))
    return kl__usage(KL_USAGE, "input file " KL_Q " is not a regular file",
                     KL_CLIP(path));
  FILE *f = fopen(path, "rb");
  if (!f)
    return kl__usage(KL_USAGE, "cannot read input file " KL_Q ": %s",
                     KL_CLIP(path), strerror(errno));
  /* The size planned by must be the content's: a file of /proc says 0 and
   * one of /sys 4096 whatever they hold. A small file is read to its end
   * to see; where the two differ, the file is refused, saying so. */
  int64_t held = -1;
  if (info.st_size <= SMALL_INPUT) {
    char block[4096];
    size_t got;
    held = 0;
    while ((got = fread(block, 1, sizeof block, f)) > 0) held += (int64_t)got;
    if (ferror(f)) held = -1;
  }
  fclose(f);
  if (held >= 0 && held != (int64_t)info.st_size)
    return kl__usage(KL_USAGE, "input file " KL_Q " holds %lld bytes where "
                     "its size says %lld (a file of /proc or /sys): copy it "
                     "to a regular file", KL_CLIP(path), (long long)held,
                     (long long)info.st_size);
  if (info.st_size == 0)
    return kl__usage(KL_USAGE, "input file " KL_Q " is empty", KL_CLIP(path));
  *size = (int64_t)info.st_size;
  return KL_OK;
}

const char *kl__input_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

kl_status kl__input_read(const char *path, int64_t planned, int64_t offset,
                         void *dst, int64_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return kl__usage(KL_IO, "cannot read input file " KL_Q " again: %s",
                     KL_CLIP(path), strerror(errno));
  struct stat info;
  kl_status st = KL_OK;
  if (fstat(fileno(f), &info) != 0)
    st = kl__usage(KL_IO, "input file " KL_Q ": %s", KL_CLIP(path),
                   strerror(errno));
  else if ((int64_t)info.st_size != planned)
    st = kl__usage(KL_IO, "input file " KL_Q " changed size during the run: "
                   "%lld bytes when planned, %lld now", KL_CLIP(path),
                   (long long)planned, (long long)info.st_size);
  else if (fseeko(f, (off_t)offset, SEEK_SET) != 0)
    st = kl__usage(KL_IO, "input file " KL_Q ": cannot seek to byte %lld: %s",
                   KL_CLIP(path), (long long)offset, strerror(errno));
  for (int64_t done = 0; done < bytes && st == KL_OK;) {
    const int64_t want =
        bytes - done < INPUT_PIECE_BYTES ? bytes - done : INPUT_PIECE_BYTES;
    const size_t got = fread((char *)dst + done, 1, (size_t)want, f);
    done += (int64_t)got;
    if ((int64_t)got < want)
      st = ferror(f) ? kl__usage(KL_IO, "reading input file " KL_Q ": %s",
                                 KL_CLIP(path), strerror(errno))
                     : kl__usage(KL_IO, "input file " KL_Q " ended at byte "
                                 "%lld, before the %lld planned",
                                 KL_CLIP(path), (long long)(offset + done),
                                 (long long)planned);
  }
  fclose(f);
  return st;
}

/* A path made absolute: realpath where it exists, else its directory's
 * realpath and its name; NULL where neither resolves. */
static char *canonical(const char *path) {
  char *whole = realpath(path, NULL);
  if (whole) return whole;
  const char *slash = strrchr(path, '/');
  char *dir;
  if (!slash) dir = realpath(".", NULL);
  else if (slash == path) dir = realpath("/", NULL);
  else {
    char *head = malloc((size_t)(slash - path) + 1);
    if (!head) return NULL;
    memcpy(head, path, (size_t)(slash - path));
    head[slash - path] = '\0';
    dir = realpath(head, NULL);
    free(head);
  }
  if (!dir) return NULL;
  const char *name = slash ? slash + 1 : path;
  char *joined = malloc(strlen(dir) + strlen(name) + 2);
  if (joined) sprintf(joined, "%s/%s", dir, name);
  free(dir);
  return joined;
}

int kl__same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0) return 1;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return 0;
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char *ca = canonical(a), *cb = canonical(b);
  const int same = ca && cb && strcmp(ca, cb) == 0;
  free(ca);
  free(cb);
  return same;
}
