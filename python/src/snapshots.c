/* hoglake._hoglake.Snapshots: the catalog's snapshot log as an iterator of
 * records, paging as it goes (each page fetched with the GIL released). */
#include "hlpy.h"

#include <string.h>

typedef struct {
    PyObject_HEAD hl_snapshot_iter *it;
    PyObject *catalog; /* the iterator borrows its catalog */
    /* The last snapshot handed out: hl_snapshot_iter_next clears what it
     * is given before filling it, so it is kept from call to call. */
    struct hl_snapshot cur;
    bool busy; /* a thread is fetching with the GIL released */
} HlSnapshots;

PyObject *hlpy_snapshots_new(hl_snapshot_iter *it, PyObject *catalog)
{
    HlSnapshots *self = PyObject_New(HlSnapshots, &HlSnapshots_Type);
    if (!self) {
        hl_snapshot_iter_free(it);
        return NULL;
    }
    self->it = it;
    memset(&self->cur, 0, sizeof self->cur);
    self->busy = false;
    self->catalog = Py_NewRef(catalog);
    return (PyObject *)self;
}

static void snapshots_dealloc(HlSnapshots *self)
{
    hl_snapshot_clear(&self->cur);
    hl_snapshot_iter_free(self->it);
    Py_DECREF(self->catalog);
    PyObject_Free(self);
}

static PyObject *snapshots_next(HlSnapshots *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the snapshot iterator is in use by another thread");
        return NULL;
    }
    bool done = false;
    struct hl_error err;
    hl_status st;
    self->busy = true;
    HLPY_UNLOCKED(st = hl_snapshot_iter_next(self->it, &self->cur, &done, &err));
    self->busy = false;
    if (st != HL_OK)
        return hlpy_raise(&err);
    if (done)
        return NULL; /* StopIteration */
    return hlpy_snapshot(&self->cur);
}

PyTypeObject HlSnapshots_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Snapshots",
    .tp_basicsize = sizeof(HlSnapshots),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The snapshot log, one Snapshot per snapshot, fetched a page at a time.",
    .tp_dealloc = (destructor)snapshots_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)snapshots_next,
};
