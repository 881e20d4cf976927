/* Partition transforms: names, parameters and which source types each one
 * accepts (Iceberg semantics; the gates match the shared transform vectors). */
#ifndef HL_LAKE_TRANSFORM_H
#define HL_LAKE_TRANSFORM_H

#include <stdbool.h>

#include "lake/types.h"

enum lake_transform {
    LTR_IDENTITY,
    LTR_BUCKET,
    LTR_TRUNCATE,
    LTR_YEAR,
    LTR_MONTH,
    LTR_DAY,
    LTR_HOUR,
    LTR__COUNT
};

const char *lake_transform_name(enum lake_transform t);
/* Case-insensitive. */
bool lake_transform_parse(const char *name, enum lake_transform *out);
/* bucket[N] and truncate[W] take a positive integer parameter; no other does. */
bool lake_transform_takes_param(enum lake_transform t);
/* Whether the transform can be applied to a column of this type. */
bool lake_transform_accepts(enum lake_transform t, enum lake_type source);
/* A comma-separated list of the accepted type names, for messages. */
const char *lake_transform_accepted_types(enum lake_transform t);

#endif
