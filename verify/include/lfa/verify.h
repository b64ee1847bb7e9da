/* verify.h: the verifier (spec/10-verifier.md). It audits a dataset
 * directory from its metadata only [FA-VERIFY-1]: every version on its own
 * (static rules), and every commit from its parent P to the version N it
 * made, driven by N's transaction T (transition rules).
 *
 * It reports every finding, not just the first: a finding names the
 * requirement it breaks, a severity (a broken MUST is an error, a broken
 * SHOULD a warning [FA-VERIFY-2]; "info" says what could not be decided and
 * why [FA-VERIFY-5]), the version, the file, the field and fragment when
 * there is one, and up to LFA_FINDING_ROWS_MAX example row offsets.
 *
 *   findings.c    the finding list: add, sort by version, count, free
 *   static.c      the rules of one version (manifest, objects, state)
 *   transition.c  the rules of one commit (P, T -> N) and of rewrites
 *   update_rows.c FA-UPDATE-6 on the rows a row-rewriting update moves
 *   report.c      text, JSON and JUnit renderings
 *   verify.c      the walk over `_versions/`, loading objects through one
 *                 object cache per run (lfa/objects.h; none with `full`)
 *   state.c       what a run resumed from an earlier one checks and keeps
 *                 (lfa_verify_state, 10§5)
 */
#ifndef LFA_VERIFY_H
#define LFA_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lfa/document.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/objects.h"
#include "lfa/table.h"

typedef enum lfa_severity {
  LFA_SEVERITY_ERROR = 0, /* a MUST is broken: the exit status says so */
  LFA_SEVERITY_WARNING,   /* a SHOULD is broken, or a check could not run where state is at stake */
  LFA_SEVERITY_INFO       /* a check could not run and no assignment state is at stake */
} lfa_severity;

enum { LFA_FINDING_ROWS_MAX = 5 };

/* One finding. Strings are owned and hold printable UTF-8 only (control
 * bytes and invalid sequences from hostile files become '?'), so every
 * report can print them as they are. */
typedef struct lfa_finding {
  const char *rule; /* requirement id, static storage */
  lfa_severity severity;
  uint64_t version;
  char *file; /* relative to the dataset directory; NULL when none */
  bool has_field;
  int32_t field_id;
  char *field_name; /* NULL when the schema has no such field */
  bool has_fragment;
  uint64_t fragment_id;
  size_t n_rows;
  uint64_t rows[LFA_FINDING_ROWS_MAX]; /* example physical offsets in the fragment */
  char *message;
  size_t seq; /* order of discovery, kept among findings of one version */
} lfa_finding;

/* OWNERSHIP: the list owns its findings; lfa_findings_free releases them.
 * An allocation failure while adding sets `lost` instead of failing the
 * caller: the verifier then reports out of memory rather than a clean run. */
typedef struct lfa_findings {
  size_t count, cap;
  lfa_finding *items;
  bool lost;
} lfa_findings;

/* Where a finding is. Every member is optional (0 / NULL / false). */
typedef struct lfa_where {
  uint64_t version;
  const char *file;
  bool has_field;
  int32_t field_id;
  const char *field_name;
  bool has_fragment;
  uint64_t fragment_id;
  size_t n_rows;
  const uint64_t *rows; /* the first LFA_FINDING_ROWS_MAX are kept */
} lfa_where;

void lfa_findings_add(lfa_findings *list, const lfa_where *where, const char *rule, lfa_severity severity,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Stable sort by version. */
void lfa_findings_sort(lfa_findings *list);
size_t lfa_findings_count(const lfa_findings *list, lfa_severity severity);
/* The first finding with this rule and severity, or NULL. */
const lfa_finding *lfa_findings_find(const lfa_findings *list, const char *rule, lfa_severity severity);
void lfa_findings_free(lfa_findings *list);
/* "error", "warning", "info". */
const char *lfa_severity_name(lfa_severity severity);

/* What an incremental run keeps of the last one [FA-VERIFY-7] (10§5): the
 * newest version it verified and two digests (64-bit FNV-1a, lfa/hash.h: a
 * check against accident and tools, not against an adversary, who could
 * forge a file with the same digest):
 *   manifest: the bytes of that version's manifest file;
 *   listing:  the names of every `_versions/` entry up to that version, in
 *             version order, each followed by a NUL byte.
 * A later run checks only the versions after it, and first that both
 * digests still hold: a manifest rewritten, or a version removed or added
 * before it, is history changed under the state, an error finding. */
typedef struct lfa_verify_state {
  uint64_t version;
  uint64_t manifest_digest;
  uint64_t listing_digest;
} lfa_verify_state;

/* The state as text: "lfa-verify-state 1\n" then one "key value" line each
 * for version, manifest_fnv1a64 and listing_fnv1a64 (16 hex digits). At
 * most LFA_VERIFY_STATE_TEXT_MAX bytes with the NUL. */
enum { LFA_VERIFY_STATE_TEXT_MAX = 128 };
void lfa_verify_state_format(char out[LFA_VERIFY_STATE_TEXT_MAX], const lfa_verify_state *state);
/* Parses that text (exactly that: anything else is LFA_ERR_FORMAT). */
lfa_status lfa_verify_state_parse(lfa_verify_state *out, const char *text, size_t len, lfa_error *err);

typedef struct lfa_verify_options {
  bool has_from; /* check versions from `from` (and the commit that made it) */
  uint64_t from;
  bool has_to; /* ... up to `to` */
  uint64_t to;
  bool full; /* every snapshot from scratch: no object is reused from an
                earlier version (the default decodes each root, bitmap and
                deletion file once per run, keyed by path and size, while
                the cache's budget allows) */
  uint64_t cache_bytes; /* the cache's budget (0: LFA_OBJECT_CACHE_BYTES_MAX) */
  const lfa_fs *fs; /* where the dataset is read (lfa/fs.h): NULL is the POSIX
                       file system; an lfa_memfs verifies a dataset in memory.
                       Every file is read through it, a clone's source too. */
  const lfa_verify_state *since; /* resume after since->version (which replaces
                                    `from`): its digests are checked first
                                    [FA-VERIFY-7], and no version after it is
                                    no error (nothing new) */
  bool strict; /* FA-FLAG-2 at every version with the writer bit alone, not
                  only where that policy starts */
} lfa_verify_options;

typedef struct lfa_verify_result {
  size_t versions_checked;
  uint64_t *versions; /* the versions checked, ascending; owned */
  lfa_findings findings; /* sorted by version */
  uint64_t objects_decoded; /* roots, bitmaps and deletion files read and decoded */
  uint64_t objects_reused;  /* references answered by an object decoded earlier in the run */
  lfa_object_cache_stats cache; /* what the run's object cache did (zero with `full`) */
  /* The last version checked as the reader loads it (every load-time rule),
   * when it loaded: a caller comparing state needs no second read. */
  bool last_loaded;
  lfa_table last;
  /* The state to resume from next time: the last version checked (with
   * `since` and nothing new, since's version), when its manifest could be
   * read. Whether to keep it is the caller's choice: `lfa verify` keeps it
   * only after a run without error findings. */
  bool has_state;
  lfa_verify_state state;
  /* Whether the range left out versions, so the rules that need the whole
   * history (orphan objects, FA-CLEAN-10) were not decided (10§5). */
  bool ranged;
} lfa_verify_result;

/* Verifies the dataset at `dir`. Findings are not failures: the call
 * returns LFA_OK with them in out->findings. It fails only when the input
 * cannot be read at all (no `_versions/`, no version in the range, mixed
 * version naming) or memory runs out. `options` may be NULL (every version).
 * OWNERSHIP: free *out with lfa_verify_result_free, also after a failure. */
lfa_status lfa_verify_dataset(lfa_verify_result *out, const char *dir, const lfa_verify_options *options,
                              lfa_error *err);
void lfa_verify_result_free(lfa_verify_result *result);

/* Renderings (report.c), through the one document writer
 * (lfa/document.h). The JSON shape is documented in
 * docs/commands/verify.md and conformance/schema/verify.schema.json, and only grows.
 * JUnit: one test case per version checked, failed when that version has
 * an error finding. */
void lfa_verify_print_text(FILE *out, const lfa_verify_result *result, const char *dataset);
void lfa_verify_print_json(FILE *out, const lfa_verify_result *result, const char *dataset);
/* The members of the report's JSON object, into the object `w` has open
 * (for a caller that adds its own, like --stats). */
void lfa_verify_put_json(lfa_json_writer *w, const lfa_verify_result *result, const char *dataset);
/* The members of one finding's JSON object, into the flow object `w` has
 * open: rule, severity, version, file, field_id, field (its name), fragment_id,
 * rows (row offsets in the fragment), message. The one shape of a finding
 * in every lfa document (`lfa verify --json`, `lfa conformance --json`). */
void lfa_finding_put_json(lfa_json_writer *w, const lfa_finding *finding);
void lfa_verify_print_junit(FILE *out, const lfa_verify_result *result, const char *dataset);

#endif
