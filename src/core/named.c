/* A workload's named files (kl_options.files, the command's --NAME FILE):
 * which of them a workload takes, into its instance and so its plan; and
 * the files a run writes, opened before any rung runs, written from the
 * first rung whose check passed, and put in place, whole, once the run
 * completes. The names are the workloads' (cg's rhs and solution): this
 * file knows them only as text, and what a file holds only through the
 * workload's hooks. It calls files.c alone. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

/* A sentence appended to a run's notes: each followed by a space (one is
 * put after a last sentence that was trimmed of it). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void add_note(char *note, size_t size, const char *fmt, ...) {
  size_t used = strlen(note);
  if (used > 0 && note[used - 1] != ' ' && used + 1 < size) {
    note[used++] = ' ';
    note[used] = '\0';
  }
  if (used + 1 >= size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note + used, size - used, fmt, ap);
  va_end(ap);
}

/* The workload's file of that name, and its index; NULL: none. */
static const kl_named_file *file_of(const kl_workload *w, const char *name,
                                    int *index) {
  const kl_named_file *f = w->input ? w->input->files : NULL;
  for (int i = 0; f && f[i].name && i < KL_MAX_FILES; i++)
    if (strcmp(f[i].name, name) == 0) {
      *index = i;
      return &f[i];
    }
  return NULL;
}

kl_status kl__named_files_apply(const kl_workload *w, const kl_options *o,
                                int named, kl__instance *in, char *note,
                                size_t note_size) {
  const kl_named_path *given = o->files;
  for (int i = 0; i < KL_MAX_FILES; i++) {
    if (!given[i].name) continue;
    if (!*given[i].name || !given[i].path)
      return kl__usage(KL_USAGE, "named file %d: %s", i,
                       !*given[i].name ? "its name is empty"
                                       : "it has no path");
    for (int j = 0; j < i; j++)
      if (given[j].name && strcmp(given[j].name, given[i].name) == 0)
        return kl__usage(KL_USAGE, "the %s file is given twice (--%s)",
                         given[i].name, given[i].name);
  }
  for (int i = 0; i < KL_MAX_FILES; i++) {
    if (!given[i].name) continue;
    const char *name = given[i].name, *path = given[i].path;
    int k = 0;
    const kl_named_file *f = file_of(w, name, &k);
    if (!f) {
      if (named)
        return kl__usage(KL_USAGE, "workload %s takes no %.40s file (--%.40s)",
                         w->name, name, name);
      add_note(note, note_size, "%s: skipped, it takes no %.40s file. ",
               w->name, name);
      return KL_UNAVAILABLE;
    }
    if (f->role == KL_IN) {
      int64_t bytes = 0;
      kl_status st = kl__input_size(path, &bytes);
      if (st != KL_OK) return st;
    } else {
      /* Written in place at the end: it may not be read by the run. */
      if (!*path)
        return kl__usage(KL_USAGE, "the %s file's name is empty", name);
      const char *read =
          in->input_file && kl__same_file(in->input_file, path) ? "input" : NULL;
      for (int j = 0; j < KL_MAX_FILES && !read; j++) {
        int kj = 0;
        const kl_named_file *g =
            given[j].name ? file_of(w, given[j].name, &kj) : NULL;
        if (g && g->role == KL_IN && kl__same_file(given[j].path, path))
          read = g->name;
      }
      if (read)
        return kl__usage(KL_USAGE, "%s: the %s file " KL_Q " is the %s file "
                         "too: the run reads it", w->name, name,
                         KL_CLIP(path), read);
    }
    in->files[k] = path;
  }
  return KL_OK;
}

/* ---- the files a run writes ------------------------------------------------ */

static void entry_discard(kl__output_entry *e) {
  if (e->f) fclose(e->f);
  if (e->temp) remove(e->temp);
  free(e->temp);
  free(e->dest);
  e->f = NULL;
  e->temp = e->dest = NULL;
}

static void outputs_discard(kl__outputs *outs) {
  for (int i = 0; i < outs->count; i++) entry_discard(&outs->items[i]);
  outs->count = 0;
}

kl_status kl__outputs_open(kl__outputs *outs, kl__jobs *jobs) {
  memset(outs, 0, sizeof *outs);
  for (size_t j = 0; j < jobs->count; j++) {
    kl__job *job = &jobs->items[j];
    const kl_named_file *f = job->w->input ? job->w->input->files : NULL;
    for (int k = 0; f && f[k].name && k < KL_MAX_FILES; k++) {
      const char *path = job->in.files[k];
      if (f[k].role != KL_OUT || !path) continue;
      job->outputs = outs;
      int have = 0;
      for (int i = 0; i < outs->count && !have; i++)
        have = strcmp(outs->items[i].path, path) == 0;
      if (have) continue;
      if (outs->count == KL_MAX_FILES) {
        outputs_discard(outs);
        return kl__usage(KL_USAGE, "more than %d named files to write",
                         KL_MAX_FILES);
      }
      kl__output_entry *e = &outs->items[outs->count++];
      e->w = job->w;
      e->file = &f[k];
      e->path = path;
      char why[160] = "";
      kl_status st = kl__output_file(path, &e->f, &e->dest, &e->temp, why,
                                     sizeof why);
      if (st != KL_OK) {
        outputs_discard(outs);
        return kl__usage(st, "cannot write the %s file " KL_Q ": %s",
                         f[k].name, KL_CLIP(path), why);
      }
    }
  }
  return KL_OK;
}

void kl__outputs_write(kl__outputs *outs, const kl__job *job,
                       const kl_plan *p, const kl_verdict *v,
                       void *const *out) {
  for (int i = 0; i < outs->count; i++) {
    kl__output_entry *e = &outs->items[i];
    if (e->w != job->w || e->by || e->status != KL_OK || !e->f) continue;
    int mine = 0;
    for (int k = 0; k < KL_MAX_FILES && !mine; k++)
      mine = job->in.files[k] && strcmp(job->in.files[k], e->path) == 0;
    if (!mine) continue;
    errno = 0;
    kl_status st = e->file->write ? e->file->write(p, job->r, v, out, e->f)
                                  : kl__usage(KL_USAGE, "%s writes no %s "
                                              "file", job->w->name,
                                              e->file->name);
    if (st == KL_OK && (fflush(e->f) != 0 || ferror(e->f)))
      st = kl__usage(KL_IO, "writing the %s file " KL_Q " failed: %s",
                     e->file->name, KL_CLIP(e->path),
                     strerror(errno ? errno : EIO));
    e->by = job->r;
    e->status = st;
    if (st != KL_OK)
      snprintf(e->error, sizeof e->error, "%s", kl_last_error());
  }
}

kl_status kl__outputs_finish(kl__outputs *outs, int keep, char *note,
                             size_t note_size) {
  kl_status worst = KL_OK;
  for (int i = 0; i < outs->count; i++) {
    kl__output_entry *e = &outs->items[i];
    kl_status st = e->status;
    if (keep && st == KL_OK && e->by) {
      int err = 0;
      if (fflush(e->f) != 0 || ferror(e->f)) err = errno ? errno : EIO;
      if (fclose(e->f) != 0 && !err) err = errno;
      e->f = NULL;
      if (!err && e->temp && rename(e->temp, e->dest) != 0) err = errno;
      if (!err) {
        free(e->temp);
        e->temp = NULL;
        add_note(note, note_size, "%s: %s file " KL_Q " written from rung "
                 "%s. ", e->w->name, e->file->name, KL_CLIP(e->path),
                 e->by->name);
      } else {
        st = kl__usage(KL_IO, "writing the %s file " KL_Q " failed: %s",
                       e->file->name, KL_CLIP(e->path), strerror(err));
        snprintf(e->error, sizeof e->error, "%s", kl_last_error());
      }
    } else if (keep && st == KL_OK) {
      add_note(note, note_size, "%s: no rung passed its check, so the %s "
               "file " KL_Q " was not written. ", e->w->name, e->file->name,
               KL_CLIP(e->path));
    }
    /* A run stopped by an error has its own message. */
    if (keep && st != KL_OK && worst == KL_OK) {
      worst = st;
      kl__usage(st, "%s", e->error);
    }
    entry_discard(e);
  }
  outs->count = 0;
  return worst;
}
