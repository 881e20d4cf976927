/* The Table object as libhoglake reads it (lake/tableinfo.c does the
 * reading). */
#include <stdio.h>
#include <string.h>

#include "client/tableinfo.h"
#include "lake/tableinfo.h"

hl_status client_table_from_info(const json_t *info, struct lake_table *t, struct hl_error *err)
{
    struct error lerr = {0};
    if (lake_table_from_info(info, t, &lerr) == 0)
        return HL_OK;
    if (lerr.code == ERR_NOMEM)
        return client_nomem(err);
    return client_fail(err, HL_ERR_PROTOCOL, "protocol", "%s", lerr.msg);
}
