/* expr_substrait.c: is_assigned(field) as a Substrait ExtendedExpression
 * (lfa/expr.h, 07§3): the extension function
 * `is_assigned` of urn:lance:extension:functions with one direct field
 * reference [FA-EXPR-12], or, read only, the Int32 literal field id of
 * upstream's later iteration [FA-EXPR-13]. The messages are our own text
 * with upstream's field numbers (proto/substrait_is_assigned.proto).
 *
 * Decoding refuses everything it does not understand, with what it found
 * and a rule: FA-EXPR-12 for the envelope (the function, its declaration,
 * the schema), FA-EXPR-4 for the argument. A field reference's struct field
 * positions index the expression's base_schema, whose names give a path of
 * literal field names; the path then resolves against the snapshot like
 * any reference [FA-EXPR-3], so a producer may describe as much or as
 * little of the table as it likes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/arena.h"
#include "lfa/escape.h"
#include "lfa/expr.h"
#include "lfa/pb.h"
#include "substrait_is_assigned.pb-c.h"

typedef Substrait__ExtendedExpression ExtendedExpression;
typedef Substrait__Expression Expression;
typedef Substrait__Expression__ScalarFunction ScalarFunction;
typedef Substrait__Expression__FieldReference FieldReference;
typedef Substrait__Expression__ReferenceSegment ReferenceSegment;
typedef Substrait__SimpleExtensionDeclaration__ExtensionFunction ExtensionFunction;
typedef Substrait__Type Type;
typedef Substrait__Type__Struct TypeStruct;

/* How much of a hostile name a message quotes. */
enum { SHOWN_BYTES_MAX = LFA_TEXT_SHOWN_MAX };

/* A reference of L struct fields nests its last StructField message at
 * depth 6 + 2L below the ExtendedExpression (referred expression,
 * expression, function, argument, expression, field reference, then a
 * segment and a struct field per level): paths deeper than this cannot be
 * decoded within LFA_SUBSTRAIT_DEPTH_MAX. */
enum { PATH_LEVELS_MAX = (LFA_SUBSTRAIT_DEPTH_MAX - 6) / 2 };

/* A short, escaped quotation of hostile input (lfa/escape.h). */
static void shown(char out[SHOWN_BYTES_MAX + 4], const char *s) {
  lfa_text_shown(out, SHOWN_BYTES_MAX + 4, s ? s : "", s ? strlen(s) : 0);
}

/* ---- nesting, before protobuf-c unpacks by recursion ---------------------------- */

static bool read_varint(const uint8_t *data, size_t len, size_t *pos, uint64_t *out) {
  *out = 0;
  for (unsigned shift = 0; shift < 64 && *pos < len; shift += 7) {
    uint8_t byte = data[(*pos)++];
    *out |= (uint64_t)(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

/* Walks the wire bytes of a `desc` message and of every message field
 * declared in it, and refuses nesting past LFA_SUBSTRAIT_DEPTH_MAX (the
 * outer message is at depth 0). A truncated varint or length ends the walk
 * quietly: protobuf-c refuses the message that holds it before unpacking
 * any of its fields. A wire type the walk cannot skip is refused here. */
static lfa_status check_depth(const uint8_t *data, size_t len, const ProtobufCMessageDescriptor *desc,
                              unsigned depth, lfa_error *err) {
  if (depth > LFA_SUBSTRAIT_DEPTH_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "Substrait messages nest deeper than %u levels",
                    (unsigned)LFA_SUBSTRAIT_DEPTH_MAX);
  size_t pos = 0;
  while (pos < len) {
    uint64_t key, n;
    if (!read_varint(data, len, &pos, &key)) return LFA_OK;
    switch (key & 7) {
      case 0:
        if (!read_varint(data, len, &pos, &n)) return LFA_OK;
        break;
      case 1:
        pos += 8;
        break;
      case 5:
        pos += 4;
        break;
      case 2: {
        if (!read_varint(data, len, &pos, &n) || n > len - pos) return LFA_OK;
        const ProtobufCFieldDescriptor *f =
            key >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3)) : NULL;
        if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE) {
          lfa_status st = check_depth(data + pos, (size_t)n, f->descriptor, depth + 1, err);
          if (st != LFA_OK) return st;
        }
        pos += (size_t)n;
        break;
      }
      default: /* groups (3, 4) and the unassigned 6, 7: not walked, so refused */
        return lfa_fail(err, LFA_ERR_PROTO, "FA-EXPR-12", "wire type %u at byte %zu of a Substrait message",
                        (unsigned)(key & 7), pos);
    }
  }
  return LFA_OK;
}

/* ---- the envelope [FA-EXPR-12] --------------------------------------------------- */

/* A refusal quoting `what` (hostile: shortened) between two fixed texts. */
static lfa_status envelope(lfa_error *err, const char *before, const char *what, const char *after) {
  char w[SHOWN_BYTES_MAX + 4];
  shown(w, what);
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "%s'%s'%s", before, w, after);
}

/* A compound function name is `name:signature`; the name is matched
 * without regard to case [FA-EXPR-1]. */
static bool names_is_assigned(const char *name) {
  const char *want = LFA_EXPR_FUNCTION;
  for (; name != NULL && *want != '\0'; name++, want++) {
    char c = *name >= 'A' && *name <= 'Z' ? (char)(*name + 32) : *name;
    if (c != *want) return false;
  }
  return name != NULL && (*name == '\0' || *name == ':');
}

/* The extension function declared under `anchor`; exactly one must be. */
static lfa_status find_declaration(const ExtensionFunction **out, const ExtendedExpression *x, uint32_t anchor,
                                   lfa_error *err) {
  *out = NULL;
  for (size_t i = 0; i < x->n_extensions; i++) {
    const Substrait__SimpleExtensionDeclaration *d = x->extensions[i];
    if (d->mapping_type_case != SUBSTRAIT__SIMPLE_EXTENSION_DECLARATION__MAPPING_TYPE_EXTENSION_FUNCTION ||
        d->extension_function->function_anchor != anchor)
      continue;
    if (*out != NULL)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "function anchor %" PRIu32 " is declared twice", anchor);
    *out = d->extension_function;
  }
  if (*out == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12",
                    "function_reference %" PRIu32 " names no declared extension function", anchor);
  return LFA_OK;
}

/* The URN the declaration names: through extension_urns, or through the
 * deprecated extension_uris when the expression lists no URN. */
static lfa_status find_urn(const char **out, const ExtendedExpression *x, const ExtensionFunction *f, lfa_error *err) {
  *out = NULL;
  bool urns = x->n_extension_urns > 0;
  uint32_t ref = urns ? f->extension_urn_reference : f->extension_uri_reference;
  size_t n = urns ? x->n_extension_urns : x->n_extension_uris;
  for (size_t i = 0; i < n; i++) {
    uint32_t anchor = urns ? x->extension_urns[i]->extension_urn_anchor : x->extension_uris[i]->extension_uri_anchor;
    if (anchor != ref) continue;
    if (*out != NULL)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "extension %s anchor %" PRIu32 " is declared twice",
                      urns ? "URN" : "URI", ref);
    *out = urns ? x->extension_urns[i]->urn : x->extension_uris[i]->uri;
  }
  if (*out == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12",
                    "the function names extension %s %" PRIu32 ", which is not declared", urns ? "URN" : "URI", ref);
  return LFA_OK;
}

/* [FA-EXPR-12] the call is to `is_assigned` of LFA_EXPR_URN. */
static lfa_status check_function(const ExtendedExpression *x, const ScalarFunction *call, lfa_error *err) {
  const ExtensionFunction *f;
  const char *urn;
  lfa_status st = find_declaration(&f, x, call->function_reference, err);
  if (st == LFA_OK && !names_is_assigned(f->name))
    st = envelope(err, "the function is ", f->name, ", not is_assigned");
  if (st == LFA_OK) st = find_urn(&urn, x, f, err);
  if (st == LFA_OK && (urn == NULL || strcmp(urn, LFA_EXPR_URN) != 0))
    st = envelope(err, "is_assigned is declared by ", urn, ", not by " LFA_EXPR_URN);
  return st;
}

/* [FA-EXPR-1] the result is a non-nullable Boolean. */
static bool non_nullable_boolean(const Type *t) {
  return t->kind_case == SUBSTRAIT__TYPE__KIND_BOOLEAN &&
         t->boolean->nullability == SUBSTRAIT__TYPE__NULLABILITY__NULLABILITY_REQUIRED;
}

/* ---- the argument: a field reference [FA-EXPR-12, FA-EXPR-2] ----------------------- */

static lfa_status not_a_field(lfa_error *err, const char *why) {
  return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned requires a direct field reference (FA-EXPR-2): %s",
                  why);
}

static size_t names_in_struct(const TypeStruct *s);

/* How many names a type holds in depth-first order: a struct one per
 * field and those of each field's type, a list those of its element, a
 * map those of its key then its value, anything else none. */
static size_t names_in(const Type *t) {
  switch (t->kind_case) {
    case SUBSTRAIT__TYPE__KIND_STRUCT_TYPE:
      return names_in_struct(t->struct_type);
    case SUBSTRAIT__TYPE__KIND_LIST:
      return t->list->type ? names_in(t->list->type) : 0;
    case SUBSTRAIT__TYPE__KIND_MAP:
      return (t->map->key ? names_in(t->map->key) : 0) + (t->map->value ? names_in(t->map->value) : 0);
    default:
      return 0;
  }
}

static size_t names_in_struct(const TypeStruct *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->n_types; i++) n += 1 + names_in(s->types[i]);
  return n;
}

/* The names a direct reference walks through base_schema: at each level,
 * the struct field at the given position, whose name is the one after
 * those of the fields before it. */
static lfa_status reference_names(const char **path, size_t *n, const Substrait__NamedStruct *schema,
                                  const ReferenceSegment *seg, lfa_error *err) {
  const TypeStruct *s = schema->struct_type;
  size_t first_name = 0; /* index of the name of s's first field */
  *n = 0;
  for (; seg != NULL; seg = seg->struct_field->child) {
    if (seg->reference_type_case != SUBSTRAIT__EXPRESSION__REFERENCE_SEGMENT__REFERENCE_TYPE_STRUCT_FIELD)
      return not_a_field(err, "a map key or list element is not a field");
    if (s == NULL) return not_a_field(err, "a struct field of a field that is not a struct");
    int32_t at = seg->struct_field->field;
    if (at < 0 || (size_t)at >= s->n_types)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "struct field %" PRId32 " is not one of the %zu in base_schema",
                      at, s->n_types);
    if (*n == PATH_LEVELS_MAX)
      return lfa_fail(err, LFA_ERR_LIMIT, NULL, "a field reference deeper than %d levels", (int)PATH_LEVELS_MAX);
    size_t name = first_name;
    for (int32_t i = 0; i < at; i++) name += 1 + names_in(s->types[i]);
    path[(*n)++] = schema->names[name]; /* within n_names: checked against the total below */
    const Type *t = s->types[at];
    s = t->kind_case == SUBSTRAIT__TYPE__KIND_STRUCT_TYPE ? t->struct_type : NULL;
    first_name = name + 1;
  }
  return LFA_OK;
}

static lfa_status plan_reference(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                 const Substrait__NamedStruct *schema, const FieldReference *r, lfa_error *err) {
  if (r->root_type_case == SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__ROOT_TYPE_OUTER_REFERENCE)
    return not_a_field(err, "an outer reference is a column of another relation");
  if (r->root_type_case != SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__ROOT_TYPE_ROOT_REFERENCE)
    return not_a_field(err, "the reference does not start at the scanned relation's record (root_reference)");
  if (r->reference_type_case != SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__REFERENCE_TYPE_DIRECT_REFERENCE)
    return not_a_field(err, "a masked reference selects a subtree, not one field");
  if (schema == NULL || schema->struct_type == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "a field reference needs base_schema to name its field");
  size_t want = names_in_struct(schema->struct_type);
  if (want != schema->n_names)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "base_schema lists %zu names for a struct that has %zu",
                    schema->n_names, want);
  const char *path[PATH_LEVELS_MAX];
  size_t n;
  lfa_status st = reference_names(path, &n, schema, r->direct_reference, err);
  return st == LFA_OK ? lfa_expr_plan_path(out, dataset, snap, path, n, err) : st;
}

/* [FA-EXPR-4] items 1 and 2: one value argument, a field reference or
 * (FA-EXPR-13) an Int32 literal field id. */
static lfa_status plan_argument(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                const ExtendedExpression *x, const ScalarFunction *call, lfa_error *err) {
  if (call->n_args > 0)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "the call uses the deprecated `args`; give `arguments`");
  if (call->n_arguments != 1)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "is_assigned takes exactly one argument (FA-EXPR-1), got %zu",
                    call->n_arguments);
  const Substrait__FunctionArgument *a = call->arguments[0];
  if (a->arg_type_case != SUBSTRAIT__FUNCTION_ARGUMENT__ARG_TYPE_VALUE)
    return not_a_field(err, "an enum or type argument is not a field");
  const Expression *v = a->value;
  switch (v->rex_type_case) {
    case SUBSTRAIT__EXPRESSION__REX_TYPE_SELECTION:
      return plan_reference(out, dataset, snap, x->base_schema, v->selection, err);
    case SUBSTRAIT__EXPRESSION__REX_TYPE_LITERAL:
      /* [FA-EXPR-13] upstream's later form: the stable field id itself */
      if (v->literal->literal_type_case == SUBSTRAIT__EXPRESSION__LITERAL__LITERAL_TYPE_I32)
        return lfa_expr_plan_field_id(out, dataset, snap, v->literal->i32, err);
      return not_a_field(err, "a literal other than an Int32 field id is not a field");
    case SUBSTRAIT__EXPRESSION__REX_TYPE_SCALAR_FUNCTION:
      return not_a_field(err, "a function expression is not a field");
    default:
      return not_a_field(err, "an expression of another kind is not a field");
  }
}

static lfa_status plan_extended(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                const ExtendedExpression *x, lfa_error *err) {
  if (x->n_referred_expr != 1)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "the expression holds %zu referred expressions, not one",
                    x->n_referred_expr);
  if (x->advanced_extensions != NULL && x->advanced_extensions->enhancement != NULL)
    return envelope(err, "an advanced extension enhancement ", x->advanced_extensions->enhancement->type_url,
                    " changes semantics lfa does not know");
  const Substrait__ExpressionReference *r = x->referred_expr[0];
  if (r->expr_type_case != SUBSTRAIT__EXPRESSION_REFERENCE__EXPR_TYPE_EXPRESSION)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "the referred expression is not a scalar expression");
  if (r->expression->rex_type_case != SUBSTRAIT__EXPRESSION__REX_TYPE_SCALAR_FUNCTION)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-12", "the referred expression is not a call of is_assigned");
  const ScalarFunction *call = r->expression->scalar_function;
  lfa_status st = check_function(x, call, err);
  if (st == LFA_OK && call->n_options > 0)
    st = envelope(err, "is_assigned has no options, got ", call->options[0]->name, "");
  if (st == LFA_OK && call->output_type != NULL && !non_nullable_boolean(call->output_type))
    st = lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-1",
                  "is_assigned returns a non-nullable Boolean, not the output type given");
  return st == LFA_OK ? plan_argument(out, dataset, snap, x, call, err) : st;
}

lfa_status lfa_expr_plan_substrait(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                   const uint8_t *data, size_t len, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (len > LFA_SUBSTRAIT_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "a Substrait expression of %zu bytes exceeds %u", len,
                    (unsigned)LFA_SUBSTRAIT_BYTES_MAX);
  ExtendedExpression *x = NULL;
  lfa_status st = check_depth(data, len, &substrait__extended_expression__descriptor, 0, err);
  if (st == LFA_OK)
    st = lfa_pb_unpack((ProtobufCMessage **)&x, &substrait__extended_expression__descriptor, data, len,
                       "Substrait ExtendedExpression", err);
  if (st == LFA_ERR_PROTO && err != NULL && err->rule == NULL) err->rule = "FA-EXPR-12";
  if (st == LFA_OK) st = plan_extended(out, dataset, snap, x, err);
  lfa_pb_free(x);
  return st;
}

/* ---- encoding [FA-EXPR-12] ---------------------------------------------------------- */

/* Lance logical types with a Substrait counterpart here. A struct maps to
 * a struct of its children, a list or large_list to a list of its one
 * child, `fixed_size_list:<T>:<n>` to a list of T (Substrait has no
 * fixed-size list); any other type is refused when encoding. */
static const struct {
  const char *lance;
  Substrait__Type__KindCase kind;
} SCALARS[] = {
    {"bool", SUBSTRAIT__TYPE__KIND_BOOLEAN},   {"int8", SUBSTRAIT__TYPE__KIND_I8},
    {"int16", SUBSTRAIT__TYPE__KIND_I16},      {"int32", SUBSTRAIT__TYPE__KIND_I32},
    {"int64", SUBSTRAIT__TYPE__KIND_I64},      {"float", SUBSTRAIT__TYPE__KIND_FP32},
    {"double", SUBSTRAIT__TYPE__KIND_FP64},    {"string", SUBSTRAIT__TYPE__KIND_STRING},
    {"large_string", SUBSTRAIT__TYPE__KIND_STRING}, {"binary", SUBSTRAIT__TYPE__KIND_BINARY},
    {"large_binary", SUBSTRAIT__TYPE__KIND_BINARY},
};

static Substrait__Type__KindCase scalar_kind(const char *lance, size_t len) {
  for (size_t i = 0; i < sizeof SCALARS / sizeof SCALARS[0]; i++)
    if (strlen(SCALARS[i].lance) == len && strncmp(SCALARS[i].lance, lance, len) == 0) return SCALARS[i].kind;
  return SUBSTRAIT__TYPE__KIND__NOT_SET;
}

/* The message tree of one ExtendedExpression, allocated from one arena;
 * strings are borrowed from the snapshot's manifest. */
typedef struct encoder {
  lfa_arena arena;
  const lfa_snapshot *snap;
  const char **names; /* depth first, as NamedStruct wants them */
  size_t n_names, cap_names;
  lfa_error *err;
} encoder;

static void *new_message(encoder *e, const ProtobufCMessageDescriptor *desc) {
  void *m = lfa_arena_alloc(&e->arena, desc->sizeof_message);
  if (m != NULL) protobuf_c_message_init(desc, m);
  return m;
}

static lfa_status no_memory(encoder *e) { return lfa_fail(e->err, LFA_ERR_NOMEM, NULL, "out of memory"); }

static Substrait__Type__Nullability nullability(bool nullable) {
  return nullable ? SUBSTRAIT__TYPE__NULLABILITY__NULLABILITY_NULLABLE
                  : SUBSTRAIT__TYPE__NULLABILITY__NULLABILITY_REQUIRED;
}

static lfa_status add_name(encoder *e, const char *name) {
  if (e->n_names == e->cap_names) {
    size_t cap = e->cap_names ? 2 * e->cap_names : 8;
    const char **grown = lfa_arena_array(&e->arena, cap, sizeof *grown);
    if (grown == NULL) return no_memory(e);
    if (e->n_names > 0) memcpy(grown, e->names, e->n_names * sizeof *grown);
    e->names = grown, e->cap_names = cap;
  }
  e->names[e->n_names++] = name ? name : "";
  return LFA_OK;
}

/* One case per scalar kind: the kinds are distinct messages with the same
 * two fields. */
#define SCALAR(KIND, member, desc)       \
  case KIND:                             \
    t->member = new_message(e, &desc);   \
    if (t->member == NULL) return NULL;  \
    t->member->nullability = n;          \
    break

static Type *scalar_type(encoder *e, Substrait__Type__KindCase kind, bool nullable) {
  Type *t = new_message(e, &substrait__type__descriptor);
  Substrait__Type__Nullability n = nullability(nullable);
  if (t == NULL) return NULL;
  t->kind_case = kind;
  switch (kind) {
    SCALAR(SUBSTRAIT__TYPE__KIND_BOOLEAN, boolean, substrait__type__boolean__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_I8, i8, substrait__type__i8__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_I16, i16, substrait__type__i16__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_I32, i32, substrait__type__i32__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_I64, i64, substrait__type__i64__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_FP32, fp32, substrait__type__fp32__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_FP64, fp64, substrait__type__fp64__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_STRING, string, substrait__type__string__descriptor);
    SCALAR(SUBSTRAIT__TYPE__KIND_BINARY, binary, substrait__type__binary__descriptor);
    default:
      return NULL;
  }
  return t;
}
#undef SCALAR

static Type *list_of(encoder *e, Type *element, bool nullable) {
  Type *t = new_message(e, &substrait__type__descriptor);
  Substrait__Type__List *l = new_message(e, &substrait__type__list__descriptor);
  if (t == NULL || l == NULL) return NULL;
  l->type = element;
  l->nullability = nullability(nullable);
  t->kind_case = SUBSTRAIT__TYPE__KIND_LIST, t->list = l;
  return t;
}

static Type *struct_of(encoder *e, Type **types, size_t n, bool nullable) {
  Type *t = new_message(e, &substrait__type__descriptor);
  TypeStruct *s = new_message(e, &substrait__type__struct__descriptor);
  if (t == NULL || s == NULL) return NULL;
  s->n_types = n, s->types = types;
  s->nullability = nullability(nullable);
  t->kind_case = SUBSTRAIT__TYPE__KIND_STRUCT_TYPE, t->struct_type = s;
  return t;
}

/* The fields whose parent is `id`, in manifest order (at most `cap`). */
static size_t children(const Lance__File__Field **out, size_t cap, const lfa_snapshot *snap, int32_t id) {
  const Lance__Table__Manifest *m = snap->file.manifest;
  size_t n = 0;
  for (size_t i = 0; i < m->n_fields; i++)
    if (m->fields[i]->parent_id == id) {
      if (n < cap) out[n] = m->fields[i];
      n++;
    }
  return n;
}

static lfa_status field_type(Type **out, encoder *e, const Lance__File__Field *f, unsigned depth);

/* A struct's type names its children depth first. */
static lfa_status struct_type(Type **out, encoder *e, const Lance__File__Field *f, unsigned depth) {
  size_t n = children(NULL, 0, e->snap, f->id);
  const Lance__File__Field **kids = lfa_arena_array(&e->arena, n ? n : 1, sizeof *kids);
  Type **types = lfa_arena_array(&e->arena, n ? n : 1, sizeof *types);
  if (kids == NULL || types == NULL) return no_memory(e);
  children(kids, n, e->snap, f->id);
  for (size_t i = 0; i < n; i++) {
    lfa_status st = add_name(e, kids[i]->name);
    if (st == LFA_OK) st = field_type(&types[i], e, kids[i], depth + 1);
    if (st != LFA_OK) return st;
  }
  *out = struct_of(e, types, n, f->nullable);
  return *out != NULL ? LFA_OK : no_memory(e);
}

/* A list's element is its one child field, which Substrait leaves unnamed. */
static lfa_status list_type(Type **out, encoder *e, const Lance__File__Field *f, unsigned depth) {
  const Lance__File__Field *item;
  if (children(&item, 1, e->snap, f->id) != 1)
    return lfa_fail(e->err, LFA_ERR_USAGE, NULL, "list field %d does not have exactly one child", f->id);
  Type *element;
  lfa_status st = field_type(&element, e, item, depth + 1);
  if (st != LFA_OK) return st;
  *out = list_of(e, element, f->nullable);
  return *out != NULL ? LFA_OK : no_memory(e);
}

static lfa_status field_type(Type **out, encoder *e, const Lance__File__Field *f, unsigned depth) {
  const char *lt = f->logical_type ? f->logical_type : "";
  static const char FIXED[] = "fixed_size_list:";
  if (depth > LFA_SUBSTRAIT_DEPTH_MAX / 2)
    return lfa_fail(e->err, LFA_ERR_LIMIT, NULL, "field %d nests deeper than %u levels", f->id,
                    (unsigned)LFA_SUBSTRAIT_DEPTH_MAX / 2);
  if (strcmp(lt, "struct") == 0) return struct_type(out, e, f, depth);
  if (strcmp(lt, "list") == 0 || strcmp(lt, "large_list") == 0) return list_type(out, e, f, depth);
  Substrait__Type__KindCase kind = scalar_kind(lt, strlen(lt));
  if (kind != SUBSTRAIT__TYPE__KIND__NOT_SET) {
    *out = scalar_type(e, kind, f->nullable);
    return *out != NULL ? LFA_OK : no_memory(e);
  }
  const char *element = lt + sizeof FIXED - 1, *last = strrchr(lt, ':');
  if (strncmp(lt, FIXED, sizeof FIXED - 1) == 0 && last != NULL && last > element) {
    kind = scalar_kind(element, (size_t)(last - element));
    if (kind != SUBSTRAIT__TYPE__KIND__NOT_SET) { /* Arrow's list items are nullable */
      Type *item = scalar_type(e, kind, true);
      *out = item != NULL ? list_of(e, item, f->nullable) : NULL;
      return *out != NULL ? LFA_OK : no_memory(e);
    }
  }
  char n[SHOWN_BYTES_MAX + 4], t[SHOWN_BYTES_MAX + 4];
  shown(n, f->name);
  shown(t, lt);
  return lfa_fail(e->err, LFA_ERR_USAGE, NULL, "field '%s' has Lance type '%s', which lfa does not map to Substrait", n,
                  t);
}

/* The fields from the top level down to `id`. */
static lfa_status field_chain(const Lance__File__Field **chain, size_t *n, const lfa_snapshot *snap, int32_t id,
                              lfa_error *err) {
  *n = 0;
  for (const Lance__File__Field *f = lfa_snapshot_field(snap, id); f != NULL;
       f = f->parent_id < 0 ? NULL : lfa_snapshot_field(snap, f->parent_id)) {
    if (*n == PATH_LEVELS_MAX)
      return lfa_fail(err, LFA_ERR_LIMIT, NULL, "field %d is nested deeper than %d levels", id, (int)PATH_LEVELS_MAX);
    chain[(*n)++] = f;
  }
  if (*n == 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-EXPR-4", "no field %d in the snapshot", id);
  for (size_t i = 0; i < *n / 2; i++) {
    const Lance__File__Field *x = chain[i];
    chain[i] = chain[*n - 1 - i], chain[*n - 1 - i] = x;
  }
  return LFA_OK;
}

/* base_schema: the path's structs, each holding only the next field, then
 * the field's own type; names depth first. */
static lfa_status base_schema(Substrait__NamedStruct **out, encoder *e, const Lance__File__Field **chain, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i + 1 < n && (chain[i]->logical_type == NULL || strcmp(chain[i]->logical_type, "struct") != 0)) {
      char a[SHOWN_BYTES_MAX + 4];
      shown(a, chain[i]->name);
      return lfa_fail(e->err, LFA_ERR_USAGE, NULL, "the path passes through '%s', which is not a struct", a);
    }
    lfa_status st = add_name(e, chain[i]->name);
    if (st != LFA_OK) return st;
  }
  Type *t;
  lfa_status st = field_type(&t, e, chain[n - 1], (unsigned)n);
  for (size_t i = n - 1; st == LFA_OK && i > 0; i--) {
    Type **one = lfa_arena_array(&e->arena, 1, sizeof *one);
    if (one == NULL) return no_memory(e);
    one[0] = t;
    if ((t = struct_of(e, one, 1, chain[i - 1]->nullable)) == NULL) return no_memory(e);
  }
  if (st != LFA_OK) return st;
  Type **top = lfa_arena_array(&e->arena, 1, sizeof *top);
  Substrait__NamedStruct *ns = new_message(e, &substrait__named_struct__descriptor);
  Type *record = top != NULL ? (top[0] = t, struct_of(e, top, 1, false)) : NULL;
  if (ns == NULL || record == NULL) return no_memory(e);
  ns->n_names = e->n_names, ns->names = (char **)e->names;
  ns->struct_type = record->struct_type;
  *out = ns;
  return LFA_OK;
}

/* The direct reference: struct field 0 at every level, from the root record. */
static Expression *field_reference(encoder *e, size_t levels) {
  ReferenceSegment *child = NULL;
  for (size_t i = levels; i > 0; i--) {
    ReferenceSegment *seg = new_message(e, &substrait__expression__reference_segment__descriptor);
    Substrait__Expression__ReferenceSegment__StructField *sf =
        new_message(e, &substrait__expression__reference_segment__struct_field__descriptor);
    if (seg == NULL || sf == NULL) return NULL;
    sf->field = 0, sf->child = child;
    seg->reference_type_case = SUBSTRAIT__EXPRESSION__REFERENCE_SEGMENT__REFERENCE_TYPE_STRUCT_FIELD;
    seg->struct_field = sf;
    child = seg;
  }
  FieldReference *r = new_message(e, &substrait__expression__field_reference__descriptor);
  Substrait__Expression__FieldReference__RootReference *root =
      new_message(e, &substrait__expression__field_reference__root_reference__descriptor);
  Expression *x = new_message(e, &substrait__expression__descriptor);
  if (r == NULL || root == NULL || x == NULL) return NULL;
  r->reference_type_case = SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__REFERENCE_TYPE_DIRECT_REFERENCE;
  r->direct_reference = child;
  r->root_type_case = SUBSTRAIT__EXPRESSION__FIELD_REFERENCE__ROOT_TYPE_ROOT_REFERENCE;
  r->root_reference = root;
  x->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_SELECTION, x->selection = r;
  return x;
}

/* The call is_assigned(argument): function anchor 1, a non-nullable
 * Boolean result [FA-EXPR-1]. */
static Substrait__ExpressionReference *call_of(encoder *e, Expression *argument, const char *output_name) {
  Substrait__FunctionArgument *a = new_message(e, &substrait__function_argument__descriptor);
  Substrait__FunctionArgument **args = lfa_arena_array(&e->arena, 1, sizeof *args);
  ScalarFunction *call = new_message(e, &substrait__expression__scalar_function__descriptor);
  Expression *x = new_message(e, &substrait__expression__descriptor);
  Substrait__ExpressionReference *r = new_message(e, &substrait__expression_reference__descriptor);
  char **names = lfa_arena_array(&e->arena, 1, sizeof *names);
  Type *boolean = scalar_type(e, SUBSTRAIT__TYPE__KIND_BOOLEAN, false);
  if (a == NULL || args == NULL || call == NULL || x == NULL || r == NULL || names == NULL || boolean == NULL)
    return NULL;
  a->arg_type_case = SUBSTRAIT__FUNCTION_ARGUMENT__ARG_TYPE_VALUE, a->value = argument;
  args[0] = a;
  call->function_reference = 1;
  call->n_arguments = 1, call->arguments = args;
  call->output_type = boolean;
  x->rex_type_case = SUBSTRAIT__EXPRESSION__REX_TYPE_SCALAR_FUNCTION, x->scalar_function = call;
  names[0] = lfa_arena_strdup(&e->arena, output_name);
  r->expr_type_case = SUBSTRAIT__EXPRESSION_REFERENCE__EXPR_TYPE_EXPRESSION, r->expression = x;
  r->n_output_names = names[0] != NULL ? 1 : 0, r->output_names = names;
  return r;
}

/* The declaration of `is_assigned` under anchor 1, by URN (anchor 1) and,
 * for consumers that predate URNs, by URI (anchor 1): a consumer that
 * knows URNs takes the URN and ignores the rest. */
static lfa_status declare(ExtendedExpression *x, encoder *e) {
  Substrait__SimpleExtensionURN *urn = new_message(e, &substrait__simple_extension_urn__descriptor);
  Substrait__SimpleExtensionURI *uri = new_message(e, &substrait__simple_extension_uri__descriptor);
  Substrait__SimpleExtensionDeclaration *d = new_message(e, &substrait__simple_extension_declaration__descriptor);
  ExtensionFunction *f = new_message(e, &substrait__simple_extension_declaration__extension_function__descriptor);
  Substrait__Version *v = new_message(e, &substrait__version__descriptor);
  x->extension_urns = lfa_arena_array(&e->arena, 1, sizeof *x->extension_urns);
  x->extension_uris = lfa_arena_array(&e->arena, 1, sizeof *x->extension_uris);
  x->extensions = lfa_arena_array(&e->arena, 1, sizeof *x->extensions);
  if (urn == NULL || uri == NULL || d == NULL || f == NULL || v == NULL || x->extension_urns == NULL ||
      x->extension_uris == NULL || x->extensions == NULL)
    return no_memory(e);
  urn->extension_urn_anchor = 1, urn->urn = (char *)LFA_EXPR_URN;
  uri->extension_uri_anchor = 1, uri->uri = (char *)LFA_EXPR_URN;
  f->extension_urn_reference = 1, f->extension_uri_reference = 1;
  f->function_anchor = 1, f->name = (char *)LFA_EXPR_FUNCTION;
  d->mapping_type_case = SUBSTRAIT__SIMPLE_EXTENSION_DECLARATION__MAPPING_TYPE_EXTENSION_FUNCTION;
  d->extension_function = f;
  v->producer = (char *)"lfa";
  x->version = v;
  x->n_extension_urns = 1, x->extension_urns[0] = urn;
  x->n_extension_uris = 1, x->extension_uris[0] = uri;
  x->n_extensions = 1, x->extensions[0] = d;
  return LFA_OK;
}

lfa_status lfa_expr_to_substrait(lfa_buf *out, const lfa_expr_plan *plan, const char *dataset,
                                 const lfa_snapshot *snap, lfa_error *err) {
  lfa_status st = lfa_expr_same_snapshot(plan, dataset, snap, err);
  if (st != LFA_OK) return st;
  const Lance__File__Field *chain[PATH_LEVELS_MAX];
  size_t n;
  if ((st = field_chain(chain, &n, snap, plan->field_id, err)) != LFA_OK) return st;
  encoder e = {{NULL, false}, snap, NULL, 0, 0, err};
  ExtendedExpression *x = new_message(&e, &substrait__extended_expression__descriptor);
  Substrait__ExpressionReference **referred = lfa_arena_array(&e.arena, 1, sizeof *referred);
  char path[LFA_PATH_BYTES_MAX], output[LFA_PATH_BYTES_MAX + 16];
  lfa_expr_field_path(path, sizeof path, snap, plan->field_id);
  snprintf(output, sizeof output, "%s(%s)", LFA_EXPR_FUNCTION, path);
  st = x != NULL && referred != NULL ? base_schema(&x->base_schema, &e, chain, n) : no_memory(&e);
  if (st == LFA_OK) st = declare(x, &e);
  if (st == LFA_OK) {
    Expression *argument = field_reference(&e, n);
    referred[0] = argument != NULL ? call_of(&e, argument, output) : NULL;
    x->n_referred_expr = 1, x->referred_expr = referred;
    st = referred[0] != NULL ? LFA_OK : no_memory(&e);
  }
  if (st == LFA_OK) st = lfa_arena_check(&e.arena, err);
  size_t start = out->len;
  if (st == LFA_OK) st = lfa_pb_pack(out, &x->base, err);
  lfa_arena_free(&e.arena);
  /* what lfa_expr_plan_substrait would refuse is not written */
  if (st == LFA_OK)
    st = check_depth(out->data + start, out->len - start, &substrait__extended_expression__descriptor, 0, err);
  if (st != LFA_OK && out->len > start) out->len = start;
  return st;
}
