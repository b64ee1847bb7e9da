/* writer_of.c: the writer a version names, as every finding that blames a
 * writer quotes it (static, transition and not-checked rules alike): the
 * manifest's writer_version, its library and version, or that it has none.
 * Its own file, so that the rule files share it without calling each other. */
#include <stdio.h>

#include "internal.h"

void vf_writer_of(char *out, size_t cap, const Lance__Table__Manifest *m) {
  const Lance__Table__Manifest__WriterVersion *wv = m->writer_version;
  if (wv == NULL) snprintf(out, cap, "no writer_version");
  else snprintf(out, cap, "writer_version %s %s", wv->library ? wv->library : "?", wv->version ? wv->version : "?");
}
