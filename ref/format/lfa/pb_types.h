/* pb_types.h: the short names lfa's own code gives the generated Lance
 * messages, declared once here instead of in every file that uses them.
 *
 * Not installed (CMakeLists.txt): an installed header names nothing
 * without the lfa_ prefix, and the public headers spell the generated
 * names in full. Include it from .c files and private headers only.
 */
#ifndef LFA_PB_TYPES_H
#define LFA_PB_TYPES_H

#include "rowids.pb-c.h"
#include "table.pb-c.h"
#include "transaction.pb-c.h"

/* The manifest and what it lists. */
typedef Lance__Table__Manifest Manifest;
typedef Lance__Table__DataFragment DataFragment;
typedef Lance__Table__DataFile DataFile;
typedef Lance__File__Field SchemaField;
typedef Lance__Table__FieldAssignmentState Descriptor;
typedef Lance__Table__FieldAssignmentFile AssignmentFile;

/* The transaction, its update operation and its field-assignment sidecar. */
typedef Lance__Table__Transaction Txn;
typedef Lance__Table__Transaction__Update Update;
typedef Lance__Table__Transaction__FieldAssignmentTransaction Sidecar;
typedef Lance__Table__Transaction__FieldAssignmentTransaction__RowChange RowChange;
typedef Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState FragmentState;

/* Row id sequences (a fragment's stable row ids). */
typedef Lance__Table__RowIdSequence RowIdSequence;
typedef Lance__Table__U64Segment U64Segment;
typedef Lance__Table__EncodedU64Array EncodedU64Array;

#endif
