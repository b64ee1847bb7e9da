/* mutate_schema.c: mutations that change the schema or replace a whole
 * version: overwrite, add_columns (a Merge), alter_columns (track, rename
 * and nullability are Projects; cast is a Merge with Transfers),
 * drop_columns (a Project), restore, clone, create_index and
 * update_config. Spec 05§4, 05§6-8, 05§15-17;
 * 08-nested-and-ids.md FA-NEST-4, FA-NEST-6, FA-ID-*; Lance's side:
 * 02§8.4, 02§8.5 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutate_internal.h"
#include "lfa/pb_types.h"

/* ---- shared ------------------------------------------------------------------ */

/* Every mutation here but overwrite changes an existing dataset. */
static lfa_status need_dataset(const mut *m) {
  if (m->r->version == 0) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "there is no dataset: create it first");
  return LFA_OK;
}

/* The field of R that request.field names (TRACK, RENAME, CAST, SET_NULLABLE);
 * `rule`: the requirement an unknown name breaks, if any. */
static lfa_status named_field(const lfa_field **out, const mut *m, const char *rule) {
  const char *path = m->req->field;
  *out = path ? mut_field(m->r, path) : NULL;
  if (path == NULL) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no field named (request.field)");
  if (*out == NULL) return lfa_fail(m->err, LFA_ERR_USAGE, rule, "unknown field '%s'", path);
  return LFA_OK;
}

/* Where f sits in R's field list, which is where mut_schema_pb puts it. */
static size_t position(const mut *m, const lfa_field *f) { return (size_t)(f - m->r->fields); }

static const char *assignment_name(lfa_assignment a) {
  return a == LFA_ASSIGNED ? "assigned" : a == LFA_UNASSIGNED ? "unassigned" : "untracked";
}

/* A Project: `schema` replaces R's, nothing else changes (§7). */
static lfa_status project(mut *m, SchemaField **schema, size_t n) {
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Project *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (t != NULL && op != NULL && schema != NULL) {
    lance__table__transaction__project__init(op);
    op->schema = schema;
    op->n_schema = n;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_PROJECT;
    t->project = op;
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

static bool in_schema(SchemaField *const *schema, size_t n, int32_t id) {
  for (size_t i = 0; i < n; i++)
    if (schema[i] != NULL && schema[i]->id == id) return true;
  return false;
}

/* Lance's cast keeps only the data files that still list a field of the
 * new schema (schema_evolution.rs, alter_columns). */
static void prune_files(DataFragment *pb, SchemaField *const *schema, size_t n_schema) {
  size_t kept = 0;
  for (size_t k = 0; k < pb->n_files; k++) {
    bool any = false;
    for (size_t j = 0; j < pb->files[k]->n_fields; j++) any |= in_schema(schema, n_schema, pb->files[k]->fields[j]);
    if (any) pb->files[kept++] = pb->files[k];
  }
  pb->n_files = kept;
}

static void add_file(mut *m, DataFragment *pb, Lance__Table__DataFile *added) {
  Lance__Table__DataFile **files = lfa_arena_array(&m->change->arena, pb->n_files + 1, sizeof *files);
  if (files == NULL || added == NULL) return; /* the arena records the failure */
  if (pb->n_files) memcpy(files, pb->files, pb->n_files * sizeof *files);
  files[pb->n_files++] = added;
  pb->files = files;
}

/* A Merge of `schema` that restates every fragment of R (Lance validates
 * that none is left out, 02§8.4) and creates none, so it
 * needs no FragmentState (FA-TXN-14). With n > 0 every fragment gains one
 * data file listing `ids` on all its rows. [FA-MERGE-1] that file writes
 * the carried fields it lists; callers list only ids new in this commit,
 * which are initialized or transferred or untracked, never carried, so
 * the file changes no state. `prune`: see prune_files. */
static lfa_status merge(mut *m, SchemaField **schema, size_t n_schema, const int32_t *ids, size_t n, bool prune) {
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Merge *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  DataFragment **list = lfa_arena_array(&m->change->arena, m->r->n_fragments + 1, sizeof *list);
  if (t == NULL || op == NULL || list == NULL || schema == NULL) return lfa_arena_check(&m->change->arena, m->err);
  lance__table__transaction__merge__init(op);
  op->schema = schema;
  op->n_schema = n_schema;
  op->fragments = list;
  for (size_t i = 0; i < m->r->n_fragments; i++) {
    DataFragment *pb = mut_fragment_pb(m, &m->r->fragments[i]);
    if (pb == NULL) break;
    if (prune) prune_files(pb, schema, n_schema);
    if (n > 0) add_file(m, pb, mut_file_pb(m, mut_file_name(m), ids, n));
    list[op->n_fragments++] = pb;
  }
  t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_MERGE;
  t->merge = op;
  return lfa_arena_check(&m->change->arena, m->err);
}

/* ---- §4 overwrite -------------------------------------------------------------- */

/* [FA-OVERWRITE-1] [FA-TXN-16] Nothing of R survives an Overwrite: not its
 * rows, and no tracking by id (its schema is numbered afresh from 0). So
 * it is built exactly as mut_create builds a first version (schema, rows,
 * an Initialization for each new field with an assignment, no RowChange,
 * no Transfer), against an empty snapshot; only the read version names R.
 * FA-OVERWRITE-3 (a SHOULD: keep tracking a field whose name path and
 * type survive, assigned where stored) is not applied on its own: the
 * request's assignments alone say what is tracked. The row-id mode stays
 * the dataset's: the commit keeps P's. Without a dataset, an overwrite
 * creates one, as Lance's overwrite mode does (FA-OVERWRITE-2). */
lfa_status mut_overwrite(mut *m) {
  static const lfa_table NOTHING = {0};
  if (m->req->n_new_fields == 0) return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "an overwrite needs a schema (new_fields)");
  mut fresh = *m;
  fresh.r = &NOTHING;
  lfa_status st = mut_create(&fresh);
  m->files = fresh.files;
  if (st == LFA_OK && m->change->txn != NULL) m->change->txn->read_version = m->r->version;
  return st;
}

/* ---- §6 merge: add_columns ------------------------------------------------------ */

/* Checks the request's new fields, which `s` holds after R's, in order.
 * [FA-MERGE-3] Without data the columns are all NULL, so they must be
 * nullable.
 * [FA-NEST-6] a tracked struct passes its assignment to its descendants:
 * every child listed under a new tracked struct must carry the same one.
 * We refuse a mismatch (an untracked child included) rather than fix it
 * silently: the request states each field's assignment explicitly. */
static lfa_status check_new_fields(const mut *m, const lfa_table *s) {
  const lfa_request *q = m->req;
  size_t base = m->r->n_fields;
  for (size_t k = 0; k < q->n_new_fields; k++) {
    const lfa_new_field *nf = &q->new_fields[k];
    if (!q->with_data && !nf->nullable)
      return lfa_fail(m->err, LFA_ERR_USAGE, "FA-MERGE-3",
                      "field '%s': a column added without data is all NULL and must be nullable", nf->path);
    for (size_t j = 0; j < k; j++) { /* its struct, when this request adds it too */
      const lfa_new_field *parent = &q->new_fields[j];
      if (s->fields[base + j].id != s->fields[base + k].parent_id || parent->assignment == LFA_UNTRACKED) continue;
      if (nf->assignment != parent->assignment)
        return lfa_fail(m->err, LFA_ERR_USAGE, "FA-NEST-6", "field '%s' is added %s under struct '%s', which is added %s: "
                        "a tracked struct's descendants take its assignment", nf->path, assignment_name(nf->assignment),
                        parent->path, assignment_name(parent->assignment));
    }
  }
  return LFA_OK;
}

/* [FA-MERGE-2] New fields (ids from Lance's max_field_id() + 1, §6) start
 * untracked, or initialized to the state the request gives them, whatever
 * the Merge stores for them: `with_data` (a computed column: one new file
 * per fragment) or not (AllNulls: no file anywhere). The new file lists
 * the new ids only: a new child of an existing struct does not list the
 * struct, which would, tracked, be written on every row (FA-MERGE-1). */
lfa_status mut_add_columns(mut *m) {
  const lfa_request *q = m->req;
  lfa_status st = need_dataset(m);
  if (st == LFA_OK && q->n_new_fields == 0) st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no fields to add (new_fields)");
  if (st != LFA_OK) return st;
  lfa_table s;
  int32_t *ids = calloc(q->n_new_fields, sizeof *ids);
  st = mut_schema_with(&s, m, m->r, q->new_fields, q->n_new_fields);
  if (st == LFA_OK && ids == NULL) st = lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK) st = check_new_fields(m, &s);
  for (size_t k = 0; st == LFA_OK && k < q->n_new_fields; k++) ids[k] = s.fields[m->r->n_fields + k].id;
  if (st == LFA_OK) st = merge(m, mut_schema_pb(m, &s), s.n_fields, ids, q->with_data ? q->n_new_fields : 0, false);
  for (size_t k = 0; st == LFA_OK && k < q->n_new_fields; k++)
    if (q->new_fields[k].assignment != LFA_UNTRACKED) mut_add_initialization(m, ids[k], q->new_fields[k].assignment);
  free(ids);
  lfa_table_free(&s);
  return st == LFA_OK ? lfa_arena_check(&m->change->arena, m->err) : st;
}

/* ---- §7 project: track, rename, nullability, drop -------------------------------- */

/* [FA-PROJECT-4] Tracking an existing field is a Project that keeps the
 * schema, with an Initialization: every row gets the initial state.
 * [FA-TXN-8] a tracked field cannot be initialized again. [FA-NEST-6] a
 * struct's untracked descendants start with it; tracked ones keep their
 * state. (A cast cannot start tracking in the same request: the request
 * names one operation, FA-PROJECT-4.) */
lfa_status mut_track(mut *m) {
  const lfa_request *q = m->req;
  const lfa_field *f = NULL;
  lfa_status st = need_dataset(m);
  if (st == LFA_OK) st = named_field(&f, m, "FA-TXN-8"); /* an Initialization names a field of N's schema */
  if (st == LFA_OK && lfa_table_tracked(m->r, f->id) != NULL)
    st = lfa_fail(m->err, LFA_ERR_USAGE, "FA-TXN-8", "field '%s' (stable field id %d) is already tracked: a field "
                  "cannot be tracked twice", q->field, f->id);
  if (st == LFA_OK && q->assignment != LFA_ASSIGNED && q->assignment != LFA_UNASSIGNED)
    st = lfa_fail(m->err, LFA_ERR_USAGE, "FA-PROJECT-4", "tracking '%s' needs an assignment: assigned or unassigned",
                  q->field);
  if (st == LFA_OK) st = project(m, mut_schema_pb(m, m->r), m->r->n_fields);
  for (size_t i = 0; st == LFA_OK && i < m->r->n_fields; i++) {
    int32_t id = m->r->fields[i].id;
    if (mut_in_subtree(m->r, id, f->id) && lfa_table_tracked(m->r, id) == NULL) mut_add_initialization(m, id, q->assignment);
  }
  return st == LFA_OK ? lfa_arena_check(&m->change->arena, m->err) : st;
}

/* A new name for f: one path segment, not taken by a sibling. */
static lfa_status check_name(const mut *m, const lfa_field *f, const char *name) {
  if (name == NULL || name[0] == '\0' || strchr(name, '.') != NULL)
    return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "'%s' cannot be renamed to '%s': a name is one non-empty path segment",
                    m->req->field, name ? name : "");
  for (size_t i = 0; i < m->r->n_fields; i++) {
    const lfa_field *g = &m->r->fields[i];
    if (g != f && g->parent_id == f->parent_id && strcmp(g->name, name) == 0)
      return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "'%s' cannot be renamed to '%s': a field of that name exists",
                      m->req->field, name);
  }
  return LFA_OK;
}

/* [FA-PROJECT-1] A rename is a Project that keeps every id: descriptor,
 * state and objects stay with the id. */
lfa_status mut_rename(mut *m) {
  const lfa_field *f = NULL;
  lfa_status st = need_dataset(m);
  if (st == LFA_OK) st = named_field(&f, m, "FA-PROJECT-6");
  if (st == LFA_OK) st = check_name(m, f, m->req->new_name);
  if (st != LFA_OK) return st;
  SchemaField **schema = mut_schema_pb(m, m->r);
  if (schema != NULL && schema[position(m, f)] != NULL)
    schema[position(m, f)]->name = lfa_arena_strdup(&m->change->arena, m->req->new_name);
  return project(m, schema, m->r->n_fields);
}

/* [FA-PROJECT-3] Nullability is schema only and changes no state.
 * [FA-PROJECT-5] a nullable field cannot be made non-nullable (Lance would
 * have to check every value; schema_evolution.rs, alter_columns).
 * [FA-PROJECT-6] an unknown field is refused, as for rename, cast, drop. */
lfa_status mut_set_nullable(mut *m) {
  const lfa_field *f = NULL;
  lfa_status st = need_dataset(m);
  if (st == LFA_OK) st = named_field(&f, m, "FA-PROJECT-6");
  if (st == LFA_OK && f->nullable && !m->req->nullable)
    st = lfa_fail(m->err, LFA_ERR_USAGE, "FA-PROJECT-5", "field '%s' is nullable and cannot be made non-nullable",
                  m->req->field);
  if (st != LFA_OK) return st;
  SchemaField **schema = mut_schema_pb(m, m->r);
  if (schema != NULL && schema[position(m, f)] != NULL) schema[position(m, f)]->nullable = m->req->nullable;
  return project(m, schema, m->r->n_fields);
}

/* Which fields of R survive dropping `dropped`: those outside every
 * dropped subtree, except a struct left with no child (Lance's
 * Schema::exclude drops it too). R lists parents before children, so a
 * reverse walk decides the children first. Returns how many are kept. */
static size_t kept_fields(bool *keep, const lfa_table *r, const int32_t *dropped, size_t n) {
  size_t count = 0;
  for (size_t i = r->n_fields; i-- > 0;) {
    int32_t id = r->fields[i].id;
    size_t children = 0, kept = 0;
    keep[i] = true;
    for (size_t d = 0; keep[i] && d < n; d++) keep[i] = !mut_in_subtree(r, id, dropped[d]);
    for (size_t j = i + 1; j < r->n_fields; j++)
      if (r->fields[j].parent_id == id) children++, kept += keep[j] ? 1u : 0u;
    if (children > 0 && kept == 0) keep[i] = false;
    count += keep[i] ? 1u : 0u;
  }
  return count;
}

/* [FA-PROJECT-2] [FA-NEST-4] Dropping is a Project without the dropped
 * fields and their subtrees; their tracking ends by FA-OP-1 (no sidecar).
 * Data files that still list the ids change nothing. */
lfa_status mut_drop(mut *m) {
  const lfa_request *q = m->req;
  size_t n = m->r->n_fields, kept = 0;
  int32_t *ids = calloc(q->fields.count + 1, sizeof *ids);
  bool *keep = calloc(n + 1, sizeof *keep);
  lfa_status st = need_dataset(m);
  if (st == LFA_OK && (ids == NULL || keep == NULL)) st = lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && q->fields.count == 0) st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "no fields to drop (fields)");
  if (st == LFA_OK) st = mut_fields(ids, m, &q->fields, "FA-PROJECT-6");
  if (st == LFA_OK && kept_fields(keep, m->r, ids, q->fields.count) == 0) /* as Lance refuses */
    st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "cannot drop every field of the schema");
  SchemaField **all = st == LFA_OK ? mut_schema_pb(m, m->r) : NULL;
  SchemaField **schema = st == LFA_OK ? lfa_arena_array(&m->change->arena, n + 1, sizeof *schema) : NULL;
  for (size_t i = 0; all != NULL && schema != NULL && i < n; i++)
    if (keep[i]) schema[kept++] = all[i];
  if (st == LFA_OK) st = project(m, schema, kept);
  free(ids);
  free(keep);
  return st;
}

/* ---- §8 cast --------------------------------------------------------------------- */

/* [FA-CAST-4] Gives f and its descendants new ids in `schema` (R's, in R's order),
 * from Lance's max_field_id() + 1 in schema order, as alter_columns does
 * (02§8.4, 02§8.5); parents follow their new ids. old_ids[k] becomes
 * new_ids[k]; returns how many. */
static size_t renumber_subtree(int32_t *old_ids, int32_t *new_ids, SchemaField **schema, const mut *m,
                               const lfa_field *f) {
  int32_t next = mut_next_field_id(m->r);
  size_t n = 0;
  for (size_t i = 0; i < m->r->n_fields; i++) {
    const lfa_field *g = &m->r->fields[i];
    if (!mut_in_subtree(m->r, g->id, f->id) || schema[i] == NULL) continue;
    old_ids[n] = g->id;
    new_ids[n] = next++;
    schema[i]->id = new_ids[n];
    for (size_t k = 0; k < n; k++)
      if (old_ids[k] == g->parent_id) schema[i]->parent_id = new_ids[k];
    n++;
  }
  return n;
}

/* [FA-CAST-1] A cast stores the field under a new id (a Merge: every
 * fragment gains a file with the new ids; the old id leaves the schema)
 * and carries tracking with Transfer(old, new) in the same commit.
 * [FA-CAST-2] [FA-NEST-4] a struct's whole subtree gets new ids and each
 * tracked descendant is transferred to the field of the same name path.
 * The request gives one new type, the named field's: the descendants keep
 * their names, types and nullability, so every one has its counterpart and
 * FA-CAST-2's refusal (a tracked descendant with no counterpart) cannot
 * arise from this API. */
lfa_status mut_cast(mut *m) {
  const lfa_request *q = m->req;
  const lfa_field *f = NULL;
  size_t n = m->r->n_fields, n_sub = 0;
  int32_t *old_ids = calloc(n + 1, sizeof *old_ids), *new_ids = calloc(n + 1, sizeof *new_ids);
  lfa_status st = need_dataset(m);
  if (st == LFA_OK) st = named_field(&f, m, "FA-PROJECT-6");
  if (st == LFA_OK && (q->new_type == NULL || q->new_type[0] == '\0'))
    st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "casting '%s' needs a type (new_type)", q->field);
  if (st == LFA_OK && (old_ids == NULL || new_ids == NULL)) st = lfa_fail(m->err, LFA_ERR_NOMEM, NULL, "out of memory");
  SchemaField **schema = st == LFA_OK ? mut_schema_pb(m, m->r) : NULL;
  if (schema != NULL) {
    n_sub = renumber_subtree(old_ids, new_ids, schema, m, f);
    if (schema[position(m, f)] != NULL)
      schema[position(m, f)]->logical_type = lfa_arena_strdup(&m->change->arena, q->new_type);
  }
  /* [FA-CAST-4] the one new file per fragment lists the new ids only, so
   * no carried field is written (FA-MERGE-1) */
  if (st == LFA_OK) st = merge(m, schema, n, new_ids, n_sub, true);
  for (size_t k = 0; st == LFA_OK && k < n_sub; k++)
    if (lfa_table_tracked(m->r, old_ids[k]) != NULL) mut_add_transfer(m, old_ids[k], new_ids[k]);
  free(old_ids);
  free(new_ids);
  return st == LFA_OK ? lfa_arena_check(&m->change->arena, m->err) : st;
}

/* ---- §15 restore, §16 clone ---------------------------------------------------------- */

/* [FA-RESTORE-1] [FA-TXN-15] Restore{version}, no sidecar: the commit
 * takes the restored version's table, state, fragment ids and next_row_id
 * included (lfa_commit's `restored`, which the history provides;
 * FA-RESTORE-3). */
lfa_status mut_restore(mut *m) {
  uint64_t v = m->req->version;
  lfa_status st = need_dataset(m);
  /* Lance restores whichever version is checked out, the latest included */
  if (st == LFA_OK && (v == 0 || v > m->r->version))
    st = lfa_fail(m->err, LFA_ERR_USAGE, NULL, "cannot restore version %" PRIu64 ": only versions 1 to the "
                  "read version %" PRIu64 " exist", v, m->r->version);
  if (st != LFA_OK) return st;
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Restore *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (t != NULL && op != NULL) {
    lance__table__transaction__restore__init(op);
    op->version = v;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_RESTORE;
    t->restore = op;
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

/* [FA-CLONE-1] [FA-CLONE-2] [FA-TXN-15] The first commit of a new dataset
 * that equals R, state included: the commit copies R (`restored` = R, no
 * parent). Shallow or deep only changes where the objects live; committed
 * into R's own dataset (a history step) it is R's manifest as the next
 * version, bases unchanged and nothing copied [FA-CLONE-6]. */
lfa_status mut_clone(mut *m) {
  lfa_status st = need_dataset(m);
  if (st != LFA_OK) return st;
  Txn *t = mut_txn(m);
  Lance__Table__Transaction__Clone *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
  if (t != NULL && op != NULL) {
    lance__table__transaction__clone__init(op);
    op->is_shallow = !m->req->deep;
    op->ref_version = m->r->version;
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_CLONE;
    t->clone = op;
  }
  return lfa_arena_check(&m->change->arena, m->err);
}

/* ---- §17 create_index, update_config ----------------------------------------------------- */

/* UpdateConfig with one config upsert, `lfa.config_version` = N: the
 * request carries no key, and this one shows which commit set it. */
static Lance__Table__Transaction__UpdateConfig *config_upsert(mut *m) {
  lfa_arena *a = &m->change->arena;
  Lance__Table__Transaction__UpdateConfig *op = lfa_arena_alloc(a, sizeof *op);
  Lance__Table__Transaction__UpdateMap *map = lfa_arena_alloc(a, sizeof *map);
  Lance__Table__Transaction__UpdateMapEntry *e = lfa_arena_alloc(a, sizeof *e);
  Lance__Table__Transaction__UpdateMapEntry **entries = lfa_arena_array(a, 1, sizeof *entries);
  char value[24];
  if (op == NULL || map == NULL || e == NULL || entries == NULL) return NULL;
  lance__table__transaction__update_config__init(op);
  lance__table__transaction__update_map__init(map);
  lance__table__transaction__update_map_entry__init(e);
  snprintf(value, sizeof value, "%" PRIu64, m->version);
  e->key = lfa_arena_strdup(a, "lfa.config_version");
  e->_value_case = LANCE__TABLE__TRANSACTION__UPDATE_MAP_ENTRY___VALUE_VALUE;
  e->value = lfa_arena_strdup(a, value);
  entries[0] = e;
  map->update_entries = entries;
  map->n_update_entries = 1;
  op->config_updates = map; /* replace = false: an upsert */
  return op;
}

/* [FA-META-1] CreateIndex (with no index: the model has none) and
 * UpdateConfig carry no sidecar and copy nothing else: no state changes. */
lfa_status mut_metadata(mut *m) {
  lfa_status st = need_dataset(m);
  if (st != LFA_OK) return st;
  Txn *t = mut_txn(m);
  if (t != NULL && m->req->op == LFA_OP_CREATE_INDEX) {
    Lance__Table__Transaction__CreateIndex *op = lfa_arena_alloc(&m->change->arena, sizeof *op);
    if (op != NULL) lance__table__transaction__create_index__init(op);
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_CREATE_INDEX;
    t->create_index = op;
  } else if (t != NULL) {
    t->operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_CONFIG;
    t->update_config = config_upsert(m);
  }
  return lfa_arena_check(&m->change->arena, m->err);
}
