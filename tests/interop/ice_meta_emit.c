/* Writes Iceberg table metadata made by src/iceberg/metadata for
 * icebird_metadata.mjs to read: under DIR, for format versions 2 and 3,
 *   v<F>_empty/metadata/v1.metadata.json + version-hint.text ("1"): a new
 *     table, day-partitioned and sorted, with no snapshot;
 *   v<F>_two/metadata/v1..v3.metadata.json + version-hint.text ("3"): the
 *     same table after two appends (metadata only: the manifest lists named
 *     in it are not written).
 * Prints what the reader must find as one JSON object per table:
 *   {"table":"v3_two","location":...,"format":3,"snapshots":[id,...],
 *    "next_row_id":N,"sequence":N}
 * Usage: ice_meta_emit DIR */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iceberg/metadata.h"
#include "lake/schema.h"
#include "util/arena.h"

static const char *const COLUMNS =
    "[{\"name\":\"session_id\",\"type\":\"string\",\"nullable\":false},"
    " {\"name\":\"conversation_id\",\"type\":\"string\"},"
    " {\"name\":\"message_created_at\",\"type\":\"timestamptz\"},"
    " {\"name\":\"n\",\"type\":\"uint64\"},"
    " {\"name\":\"tags\",\"type\":\"list\",\"children\":[{\"name\":\"element\","
    "   \"type\":\"string\"}]}]";

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "ice_meta_emit: %s: %s\n", what, detail);
    exit(1);
}

static void mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            die(buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        die(buf, strerror(errno));
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        die(dir, "path too long");
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0)
        die(path, strerror(errno));
}

static void write_version(const struct ice_meta *m, const char *metadir, int version)
{
    char name[64], hint[16];
    char *text = ice_meta_dumps(m);
    if (!text)
        die("dump", "out of memory");
    snprintf(name, sizeof name, "v%d.metadata.json", version);
    write_text(metadir, name, text);
    free(text);
    snprintf(hint, sizeof hint, "%d", version);
    write_text(metadir, "version-hint.text", hint);
}

static void emit(const char *root, int format, int appends)
{
    struct arena arena;
    struct lake_table t;
    struct error lerr;
    struct error err;
    arena_init(&arena, 0);
    lake_table_init(&t, &arena);
    json_t *cols = json_loads(COLUMNS, 0, NULL);
    if (!cols || lake_table_add_columns(&t, cols, &lerr) != 0)
        die("columns", lerr.msg);
    json_decref(cols);

    char table[32], dir[4096], metadir[4200], location[4200];
    snprintf(table, sizeof table, "v%d_%s", format, appends ? "two" : "empty");
    snprintf(dir, sizeof dir, "%s/%s", root, table);
    snprintf(metadir, sizeof metadir, "%s/metadata", dir);
    snprintf(location, sizeof location, "file://%s", dir);
    mkdirs(metadir);

    const struct lake_sort_field key[] = {{1, false, true}, {2, false, true}};
    json_t *schema = ice_schema_json(&t, format, 0, NULL, &err);
    json_t *spec = schema ? ice_partition_spec_json(&t, 3, &err) : NULL;
    json_t *order = spec ? ice_sort_order_json(&t, key, 2, &err) : NULL;
    if (!order)
        die("mapping", err.msg);
    struct ice_new_table in = {
        format,       "0f1e2d3c-4b5a-4697-8877-665544332211", location, schema, spec, order, NULL,
        1760000000000};
    struct ice_meta m;
    if (ice_meta_create(&m, &in, &err) != 0)
        die("create", err.msg);
    write_version(&m, metadir, 1);

    int64_t ids[2] = {0, 0};
    for (int i = 0; i < appends; i++) {
        char list[4400], prev[4400], to[16];
        if (ice_meta_pick_snapshot_id(&m, &ids[i], &err) != 0)
            die("snapshot id", err.msg);
        snprintf(list, sizeof list, "%s/metadata/snap-%lld-1-x.avro", location, (long long)ids[i]);
        snprintf(prev, sizeof prev, "%s/metadata/v%d.metadata.json", location, i + 1);
        snprintf(to, sizeof to, "%d", 10 * (i + 1));
        const struct ice_summary_kv extra[] = {{"hoglake.source-snapshot-to", to}};
        struct ice_snapshot_add a = {0};
        a.snapshot_id = ids[i];
        a.timestamp_ms = 1760000001000 + i;
        a.manifest_list = list;
        a.operation = ICE_OP_APPEND;
        a.added_data_files = 2;
        a.added_records = 100 + i;
        a.added_files_size = 5000;
        a.changed_partition_count = 2;
        a.added_rows = 100 + i;
        a.previous_metadata_file = prev;
        a.extra = extra;
        a.nextra = 1;
        if (ice_meta_add_snapshot(&m, &a, &err) != 0)
            die("add snapshot", err.msg);
        write_version(&m, metadir, i + 2);
    }
    printf("{\"table\":\"%s\",\"location\":\"%s\",\"format\":%d,\"snapshots\":[", table, location,
           format);
    for (int i = 0; i < appends; i++)
        printf("%s%lld", i ? "," : "", (long long)ids[i]);
    printf("],\"next_row_id\":%lld,\"sequence\":%lld}\n", (long long)m.next_row_id,
           (long long)m.last_sequence_number);
    ice_meta_free(&m);
    json_decref(schema);
    json_decref(spec);
    json_decref(order);
    lake_table_release(&t);
    arena_free(&arena);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] != '/')
        die("usage", "ice_meta_emit /absolute/dir");
    for (int format = 2; format <= 3; format++) {
        emit(argv[1], format, 0);
        emit(argv[1], format, 2);
    }
    return 0;
}
