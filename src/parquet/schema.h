/* A Parquet schema as a tree, with the facts the codec needs per node:
 * definition and repetition levels, the Arrow shape a node reads as (leaf,
 * struct, list or map, after Parquet's list/map compatibility rules), and
 * each leaf's column index.
 *
 * Two constructors: from a file's footer (reading), and from a catalog
 * table definition (writing: the 27 column types mapped to physical and
 * logical types, field ids on every element, Iceberg's element/key/value
 * names). Everything is allocated from the caller's arena. */
#ifndef HL_PARQUET_SCHEMA_H
#define HL_PARQUET_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "lake/schema.h"
#include "parquet/meta.h"

enum pq_node_kind { PQN_LEAF, PQN_STRUCT, PQN_LIST, PQN_MAP };

struct pq_node {
    const struct pq_schema_element *el;
    struct pq_node *parent; /* NULL for the root */
    struct pq_node **children;
    int nchildren;
    /* The children by name (then by position): pq_node_child_named finds
     * one in log time, so matching a wide table's columns against a wide
     * footer is not their product. */
    struct pq_node **by_name;
    int16_t def_level; /* non-REQUIRED nodes from the root's child down to this one */
    int16_t rep_level; /* REPEATED nodes likewise */
    const char *path;  /* dotted path_in_schema; "" for the root */
    int leaf_index;    /* leaves: the column chunk index; -1 for groups */
    int first_leaf, nleaves;

    /* The Arrow view. A LIST or MAP node is the group that holds the
     * repeated node; for a bare repeated field (no LIST annotation) the
     * repeated node is both the list and its element. */
    enum pq_node_kind kind;
    struct pq_node *element; /* LIST: the element node; MAP: the key_value node */
    bool arrow_nullable;     /* the node's Arrow slots can be null */
    int16_t null_def;        /* a slot is valid iff its entry's def >= this */
    int16_t list_rep;        /* LIST/MAP: repetition level of the repeated node */
    int16_t elem_def;        /* LIST/MAP: an element exists iff def >= this */
    /* Where this node's Arrow slots open: an entry opens a slot iff its
     * rep <= slot_rep and its def >= slot_def (the enclosing list's
     * repetition level and element definition level; 0 and 0 at top). */
    int16_t slot_rep;
    int16_t slot_def;
};

/* A column's Parquet annotation that its catalog type does not carry: a
 * GEOMETRY or GEOGRAPHY binary. A writer given it (pq_write_options) puts
 * it back. */
struct pq_column_logical {
    int64_t field_id;
    struct pq_logical logical;
};

struct pq_schema {
    const struct pq_schema_element *elements;
    size_t nelements;
    struct pq_node *root;
    struct pq_node **leaves;
    int nleaves;
    struct pq_node **top_by_id; /* the root's children with field ids, by id then position */
    int ntop_by_id;
    int16_t max_depth;
};

/* Builds the tree of a file's schema, checking that the flattened element
 * list is a well-formed tree (child counts, leaves typed, names present,
 * depth bounded) and that list and map groups have a shape this reader
 * understands. */
int pq_schema_from_file(const struct pq_file_meta *m, struct arena *a, struct pq_schema *out,
                        struct error *err);

/* Builds the Parquet schema for a catalog table. A variant column must
 * carry its storage fields as children (parquet/variant_layout.h), written
 * under a VARIANT(1) group without field ids. */
int pq_schema_from_table(const struct lake_table *t, struct arena *a, struct pq_schema *out,
                         struct error *err);

/* Width in bytes of the smallest FIXED_LEN_BYTE_ARRAY holding any decimal
 * of this precision (1..38). */
int pq_decimal_bytes(int precision);

/* Whether path (a column chunk's path_in_schema: names from the root's
 * child down) names this node. */
bool pq_node_is_path(const struct pq_node *node, const char *const *path, size_t npath);

/* The first child of node (NULL: none) with this name, or NULL. */
struct pq_node *pq_node_child_named(const struct pq_node *node, const char *name);

/* The first top-level node with this name or field id, or NULL. */
struct pq_node *pq_schema_find_top(const struct pq_schema *s, const char *name);
struct pq_node *pq_schema_find_top_by_id(const struct pq_schema *s, int32_t field_id);

#endif
