/* GET .../tables/{table}/changes: the changefeed plan of one table for the
 * window (from_snapshot, to_snapshot]: the data files and deletion vectors
 * appended inside it, one page at a time. Compaction outputs are left out
 * (they rewrite rows the feed already delivered), and a window that
 * crosses a TRUNCATE is refused with 409 reconciliation_required: the
 * truncate removed rows the feed cannot express, so the consumer must
 * re-read the table. Each vector carries its target data file and the
 * vector it superseded, so that a reader can tell which rows the window
 * deleted: the target's newest vector in the window minus the vector its
 * oldest one there superseded. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/catalog/files.h"
#include "server/http/handlers.h"
#include "server/store/snapshots.h"

/* The plan is paged as two listings, one after the other: the data files
 * in (begin_snapshot, row_id_start, data_file_id) order, then the
 * deletion vectors in (begin_snapshot, delete_file_id) order. A page holds
 * at most `limit` entries of both together; the token's variant says
 * which listing it resumes. */
enum { PHASE_FILES = 0, PHASE_VECTORS = 1 };

/* What the page reads: the catalog, the window and its table. */
struct window {
    struct catalog_row cat;
    int64_t from, to;
    struct table_ref ref;
};

/* The window as the store reads it. */
static struct store_window store_window(const struct window *w)
{
    return (struct store_window){w->cat.id, w->ref.table_id, w->from, w->to};
}

/* A token must resume one of the two listings with a whole key (or, for
 * the vectors, none: their listing from its start). */
static int check_resume(const struct page *pg, struct api_error *err)
{
    if (!pg->resumed)
        return 0;
    if (pg->from.variant == PHASE_VECTORS && pg->from.nkeys == 0)
        return 0;
    return page_expect_keys(pg, pg->from.variant, pg->from.variant == PHASE_FILES ? 3 : 2, err);
}

/* The window's bounds as asked: from is required, to defaults to the
 * head (has_to false). */
static int parse_window(struct srv_req *req, struct window *w, bool *has_to, struct api_error *err)
{
    bool has_from;
    if (req_arg_i64(req, "from_snapshot", &has_from, &w->from, err) != 0 ||
        req_arg_i64(req, "to_snapshot", has_to, &w->to, err) != 0)
        return -1;
    if (!has_from)
        return api_bad_request(err, "query parameter 'from_snapshot' is required");
    return 0;
}

/* Checks the window against the catalog (a resumed page reads the
 * window's end the first page resolved), then finds its table. */
static int open_window(struct srv_req *req, const struct page *pg, bool has_to, struct window *w,
                       struct api_error *err)
{
    if (catalog_load(req, req->params[0], &w->cat, err) != 0)
        return -1;
    struct catalog_row *cat = &w->cat;
    int64_t pinned = cat->head;
    if (pg->resumed && page_pinned_snapshot(pg, cat, &pinned, err) != 0)
        return -1;
    if (pg->resumed && has_to && pinned != w->to)
        return api_bad_request(err, "page_token was issued for another window");
    if (!has_to)
        w->to = pinned;
    if (w->from < 0 || w->to < 0)
        return api_validation(err, "from_snapshot and to_snapshot must be >= 0, got (%lld, %lld]",
                              (long long)w->from, (long long)w->to);
    if (w->to > cat->head)
        return api_validation(err, "to_snapshot %lld is after the head %lld of catalog '%s'",
                              (long long)w->to, (long long)cat->head, cat->name);
    if (w->from > w->to)
        return api_validation(err, "from_snapshot %lld is after to_snapshot %lld",
                              (long long)w->from, (long long)w->to);
    if (w->from < cat->earliest)
        return timetravel_expired(err, cat, w->from, "from_snapshot");
    /* The table is the one visible at the window's end. */
    int64_t ns_id;
    if (namespace_resolve(req, cat, req->params[1], w->to, has_to, &ns_id, err) != 0 ||
        table_resolve(req, cat, req->params[1], ns_id, req->params[2], w->to, has_to, &w->ref,
                      err) != 0)
        return -1;
    return page_check_table(pg, w->ref.table_id, err);
}

static int refuse_truncated(struct srv_req *req, const struct window *w, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    int64_t truncated;
    struct error dberr;
    int found = store_snapshots_find_truncate(db, w->cat.id, w->ref.table_id, w->from, w->to,
                                              &truncated, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "truncate check");
    if (!found)
        return 0;
    return api_conflict(err, "reconciliation_required",
                        "table '%.200s.%.200s' was truncated at snapshot %lld, inside the "
                        "window (%lld, %lld]; re-read the table at snapshot %lld and resume "
                        "the changefeed from there",
                        req->params[1], req->params[2], (long long)truncated, (long long)w->from,
                        (long long)w->to, (long long)truncated);
}

/* One page of the plan: its rows (at most limit in all) and where the next
 * page resumes. */
struct changes_page {
    struct store_file_rows files;
    struct store_dv_rows dvs;
    int nfiles, ndvs; /* rows the page keeps */
    bool more;
    struct page_token next;
};

/* The next page resumes after the page's last file. */
static void resume_after_files(struct changes_page *cp)
{
    cp->more = true;
    cp->next.variant = PHASE_FILES;
    cp->next.nkeys = 3;
    struct store_data_file last;
    store_file_row(&cp->files, cp->nfiles - 1, &last);
    data_file_page_key(&last, cp->next.keys);
}

/* The next page resumes after the page's last vector, or at the first one
 * when the files filled the page. */
static void resume_after_vectors(struct changes_page *cp)
{
    cp->more = true;
    cp->next.variant = PHASE_VECTORS;
    cp->next.nkeys = cp->ndvs > 0 ? 2 : 0;
    if (cp->ndvs > 0) {
        struct store_changed_dv last;
        store_dv_row(&cp->dvs, cp->ndvs - 1, &last);
        cp->next.keys[0] = last.dv.begin_snapshot;
        cp->next.keys[1] = last.dv.delete_file_id;
    }
}

/* Reads the page: the data files after the token's key (or from the
 * start), then, when they end within the page's entries and bytes, the
 * vectors to fill it. When the files used it all, the vectors' statement
 * still reads one row, which tells whether the next page starts at them. */
static int read_page(struct srv_req *req, const struct window *w, const struct page *pg,
                     struct changes_page *cp, struct api_error *err)
{
    page_token_next(&cp->next, pg, PAGE_CHANGES, w->cat.id, w->ref.table_id, w->to);
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_window sw = store_window(w);
    struct error dberr;
    struct store_window_page wp = {.limit = pg->limit, .budget_bytes = pg->budget_bytes};
    bool vectors_only = pg->resumed && pg->from.variant == PHASE_VECTORS;
    if (!vectors_only) {
        wp.after = pg->resumed ? pg->from.keys : NULL;
        if (store_files_page_changed(db, &sw, &wp, &cp->files, &dberr) != 0)
            return api_from_error(err, &dberr, "changed files");
        cp->nfiles = store_file_rows_page_length(&cp->files, wp.limit);
        if (cp->nfiles < store_file_rows_count(&cp->files)) {
            resume_after_files(cp);
            return 0;
        }
        wp.limit -= cp->nfiles;
        wp.budget_bytes -= store_file_rows_weight(&cp->files, cp->nfiles);
        if (wp.budget_bytes <= 0)
            wp.limit = 0;
    }
    wp.after = vectors_only && pg->from.nkeys == 2 ? pg->from.keys : NULL;
    if (store_files_page_changed_dvs(db, &sw, &wp, &cp->dvs, &dberr) != 0)
        return api_from_error(err, &dberr, "changed deletion vectors");
    cp->ndvs = store_dv_rows_page_length(&cp->dvs, wp.limit);
    if (cp->ndvs < store_dv_rows_count(&cp->dvs))
        resume_after_vectors(cp);
    return 0;
}

/* A DataFile object, as `files` and a vector's `data_file` render it. */
static void data_file_object(struct page_text *w, const char *key, const struct store_data_file *f)
{
    pt_open(w, key, '{');
    data_file_members(w, f);
    pt_close(w, '}');
}

/* A vector of the window: the DeleteFile, its target, and the vector it
 * superseded (null for the target's first). */
static void changed_dv_object(struct page_text *w, const struct store_changed_dv *c)
{
    pt_open(w, NULL, '{');
    delete_file_members(w, &c->dv);
    data_file_object(w, "data_file", &c->target);
    if (c->has_superseded)
        delete_file_object(w, "superseded_delete_file", &c->superseded);
    else
        pt_null(w, "superseded_delete_file");
    pt_close(w, '}');
}

/* The ChangesPlan page: the window, its files, its vectors, the token. */
static void changes_page_text(struct page_text *w, const struct window *win,
                              const struct changes_page *cp)
{
    pt_open(w, NULL, '{');
    pt_str(w, "table_uuid", win->ref.table_uuid);
    pt_i64(w, "from_snapshot", win->from);
    pt_i64(w, "to_snapshot", win->to);
    pt_open(w, "files", '[');
    for (int i = 0; i < cp->nfiles && !w->bad; i++) {
        struct store_data_file f;
        store_file_row(&cp->files, i, &f);
        data_file_object(w, NULL, &f);
    }
    pt_close(w, ']');
    pt_open(w, "delete_files", '[');
    for (int i = 0; i < cp->ndvs && !w->bad; i++) {
        struct store_changed_dv c;
        store_dv_row(&cp->dvs, i, &c);
        changed_dv_object(w, &c);
    }
    pt_close(w, ']');
    page_token_member(w, cp->more ? &cp->next : NULL);
    pt_close(w, '}');
}

int h_table_changes(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct page pg;
    struct window w;
    bool has_to;
    if (parse_window(req, &w, &has_to, err) != 0 || page_parse(req, PAGE_CHANGES, &pg, err) != 0 ||
        check_resume(&pg, err) != 0 || open_window(req, &pg, has_to, &w, err) != 0 ||
        refuse_truncated(req, &w, err) != 0)
        return -1;
    struct changes_page cp;
    memset(&cp, 0, sizeof cp);
    int rc = read_page(req, &w, &pg, &cp, err);
    if (rc == 0) {
        struct page_text text;
        /* A vector's entry holds a data file and up to two vectors. */
        pt_init(&text, (size_t)(cp.nfiles + 2 * cp.ndvs) * PAGE_TEXT_PER_FILE);
        changes_page_text(&text, &w, &cp);
        rc = pt_respond(&text, res, err);
    }
    store_file_rows_free(&cp.files);
    store_dv_rows_free(&cp.dvs);
    return rc;
}
