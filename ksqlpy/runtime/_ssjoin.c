/* A stream-stream join's batch of runs in C (``ksqlpy.runtime.join_native``): the loop of
 * ``StreamStreamJoin._runs`` with ``WindowStore.fetch`` and ``WindowStore.adder``'s indexing inlined -
 * each record probes the other side's window index, each matched pair's joined row is built, checked by
 * the pair prefilter and emitted, and the record is indexed into its own side's store and kept back for
 * ``write_puts``. The same results, in the same order, and the same store state as the Python loop, which
 * stays the fallback and the reference. Only plain cases come here: ``runs`` returns NotImplemented,
 * before touching anything, for a batch it does not take (a timestamp beyond +-2**61, an event not shaped
 * as the channels build them). A probe reaching below the index (``cached_from``) calls the store's
 * ``_fetch_below``. When the join's output is the task's stream result (``join_task.ResultRows``), each
 * result is built once as the result row itself - the key columns, then both blocks, one tuple - and appended
 * with its timestamp and headers to the sink's lists (such a join has no pair prefilter: the WHERE after it
 * decides). Built by setup.py when a compiler is there (optional). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "ksqlpy_long.h" /* as_ll */
#include <marshal.h>
#include <stdint.h>
#include <string.h>

#define LIMIT (1LL << 61)

static PyObject *heappush;     /* heapq.heappush */
static PyObject *str_index, *str_buckets, *str_heap, *str_bucket, *str_observed, *str_seq, *str_cached,
    *str_retention, *str_cached_from, *str_puts, *str_fetch_below;

/* one window store as the loop reads and writes it */
typedef struct {
    PyObject *store;
    PyObject *index;   /* kb -> [(ts, seq, row)] in (ts, seq) order */
    PyObject *buckets; /* time bucket -> {kb} */
    PyObject *heap;    /* the buckets, a heap */
    PyObject *pkb, *pts, *pseq, *prow; /* records kept back for write_puts */
    long long width, observed, seq, cached, retention, cached_from;
} Store;

/* an int attribute: 0, 1 when it is beyond 64 bits (the loop does not take the batch), -1 on an error */
static int get_ll(PyObject *obj, PyObject *name, long long *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int overflow = 0;
    *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    Py_DECREF(v);
    if (overflow)
        return 1;
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static void store_clear(Store *s) {
    Py_CLEAR(s->index);
    Py_CLEAR(s->buckets);
    Py_CLEAR(s->heap);
    Py_CLEAR(s->pkb);
    Py_CLEAR(s->pts);
    Py_CLEAR(s->pseq);
    Py_CLEAR(s->prow);
}

/* 0, 1 for a store the loop does not take (see the end), -1 on an error */
static int store_load(Store *s, PyObject *store) {
    s->store = store;
    s->index = PyObject_GetAttr(store, str_index);
    s->buckets = PyObject_GetAttr(store, str_buckets);
    s->heap = PyObject_GetAttr(store, str_heap);
    if (s->index == NULL || s->buckets == NULL || s->heap == NULL)
        return -1;
    if (!PyDict_CheckExact(s->index) || !PyDict_CheckExact(s->buckets) || !PyList_CheckExact(s->heap)) {
        PyErr_SetString(PyExc_TypeError, "a window store's index, buckets and heap must be a dict, a dict, a list");
        return -1;
    }
    PyObject *puts = PyObject_GetAttr(store, str_puts);
    if (puts == NULL)
        return -1;
    if (!PyTuple_CheckExact(puts) || PyTuple_GET_SIZE(puts) != 4) {
        Py_DECREF(puts);
        PyErr_SetString(PyExc_TypeError, "a window store's kept-back records must be a tuple of 4 lists");
        return -1;
    }
    PyObject **cols[4] = {&s->pkb, &s->pts, &s->pseq, &s->prow};
    for (int i = 0; i < 4; i++) {
        PyObject *c = PyTuple_GET_ITEM(puts, i);
        if (!PyList_CheckExact(c)) {
            Py_DECREF(puts);
            PyErr_SetString(PyExc_TypeError, "a window store's kept-back records must be lists");
            return -1;
        }
        Py_INCREF(c);
        *cols[i] = c;
    }
    Py_DECREF(puts);
    PyObject *names[6] = {str_bucket, str_observed, str_seq, str_cached, str_retention, str_cached_from};
    long long *outs[6] = {&s->width, &s->observed, &s->seq, &s->cached, &s->retention, &s->cached_from};
    int wide = 0;
    for (int i = 0; i < 6; i++) {
        int r = get_ll(store, names[i], outs[i]);
        if (r < 0)
            return -1;
        wide |= r;
    }
    /* beyond what the loop's arithmetic holds (floor = observed - retention + 1, ts +- the window): the
     * Python loop takes the batch */
    if (wide || s->width <= 0 || s->retention < 0 || s->retention > LIMIT || s->observed < -2 * LIMIT
        || s->observed > LIMIT || s->seq < 0 || s->seq > LIMIT)
        return 1;
    return 0;
}

/* the counters back into the store object (also after an error: what was indexed is counted) */
static int store_save(Store *s) {
    long long vals[3] = {s->observed, s->seq, s->cached};
    PyObject *names[3] = {str_observed, str_seq, str_cached};
    for (int i = 0; i < 3; i++) {
        PyObject *v = PyLong_FromLongLong(vals[i]);
        if (v == NULL)
            return -1;
        int r = PyObject_SetAttr(s->store, names[i], v);
        Py_DECREF(v);
        if (r < 0)
            return -1;
    }
    return 0;
}

static long long floordiv(long long a, long long b) {
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* an index entry's (ts, seq); -1 with an exception set if it is not one */
static int entry_key(PyObject *e, long long *ts, long long *seq) {
    if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) < 3) {
        PyErr_SetString(PyExc_TypeError, "a window index entry must be (ts, seq, row)");
        return -1;
    }
    *ts = as_ll(PyTuple_GET_ITEM(e, 0));
    if (*ts == -1 && PyErr_Occurred())
        return -1;
    *seq = as_ll(PyTuple_GET_ITEM(e, 1));
    if (*seq == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* Untrack a tuple of atomic values (int, float, str, bytes, bool, None) from the cyclic GC, as CPython's own
 * collector does the first time it scans one (``_PyTuple_MaybeUntrack``): it can be in no cycle. Done as a
 * record enters the window index, where it lives for the retention - a young collection after each batch
 * need not scan it first. Returns whether the tuple is untracked. */
static int untrack_atomic(PyObject *t) {
    if (!PyTuple_CheckExact(t))
        return 0;
    if (!PyObject_GC_IsTracked(t))
        return 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        if (!(v == Py_None || PyLong_CheckExact(v) || PyUnicode_CheckExact(v) || PyFloat_CheckExact(v)
              || PyBytes_CheckExact(v) || PyBool_Check(v)))
            return 0;
    }
    PyObject_GC_UnTrack(t);
    return 1;
}

/* ``WindowStore.adder``'s ``add(kb, ts, row)``; ts_obj is ts as the event holds it */
static int store_add(Store *s, PyObject *kb, long long ts, PyObject *ts_obj, PyObject *row) {
    if (ts > s->observed)
        s->observed = ts;
    long long q = ++s->seq;
    s->cached++;
    PyObject *q_obj = PyLong_FromLongLong(q);
    if (q_obj == NULL)
        return -1;
    if (PyList_Append(s->pkb, kb) < 0 || PyList_Append(s->pts, ts_obj) < 0 || PyList_Append(s->pseq, q_obj) < 0
        || PyList_Append(s->prow, row) < 0) {
        Py_DECREF(q_obj);
        return -1;
    }
    PyObject *e = PyTuple_Pack(3, ts_obj, q_obj, row);
    Py_DECREF(q_obj);
    if (e == NULL)
        return -1;
    if (untrack_atomic(row))
        PyObject_GC_UnTrack(e); /* (ts, seq, row): ints and an untracked tuple */
    PyObject *entries = PyDict_GetItemWithError(s->index, kb); /* borrowed */
    if (entries == NULL) {
        if (PyErr_Occurred())
            goto fail;
        PyObject *lst = PyList_New(1);
        if (lst == NULL)
            goto fail;
        Py_INCREF(e);
        PyList_SET_ITEM(lst, 0, e);
        /* the key's list of entries lives for the retention and holds only (ts, seq, row) tuples of record
         * data, which refer to nothing outside the record: it can be in no cycle, so the cyclic GC need not
         * walk it (a young collection after a batch walked every new key's list once, and the middle
         * generation again: q8's ~9-15k a batch). The entries keep their own tracking. */
        PyObject_GC_UnTrack(lst);
        int r = PyDict_SetItem(s->index, kb, lst);
        Py_DECREF(lst);
        if (r < 0)
            goto fail;
    } else {
        if (!PyList_Check(entries)) {
            PyErr_SetString(PyExc_TypeError, "a window index value must be a list");
            goto fail;
        }
        Py_ssize_t n = PyList_GET_SIZE(entries);
        long long lts, lseq;
        if (n == 0) {
            if (PyList_Append(entries, e) < 0)
                goto fail;
        } else {
            if (entry_key(PyList_GET_ITEM(entries, n - 1), &lts, &lseq) < 0)
                goto fail;
            if (lts < ts || (lts == ts && lseq < q)) {
                if (PyList_Append(entries, e) < 0)
                    goto fail;
            } else { /* out of order: bisect_right(entries, (ts, q)) */
                Py_ssize_t lo = 0, hi = n;
                while (lo < hi) {
                    Py_ssize_t mid = (lo + hi) / 2;
                    long long mts, mseq;
                    if (entry_key(PyList_GET_ITEM(entries, mid), &mts, &mseq) < 0)
                        goto fail;
                    if (ts < mts || (ts == mts && q < mseq))
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                if (PyList_Insert(entries, lo, e) < 0)
                    goto fail;
            }
        }
    }
    Py_DECREF(e);
    PyObject *b = PyLong_FromLongLong(floordiv(ts, s->width));
    if (b == NULL)
        return -1;
    PyObject *keys = PyDict_GetItemWithError(s->buckets, b); /* borrowed */
    int r;
    if (keys == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(b);
            return -1;
        }
        PyObject *set = PySet_New(NULL);
        if (set == NULL || PySet_Add(set, kb) < 0) {
            Py_XDECREF(set);
            Py_DECREF(b);
            return -1;
        }
        r = PyDict_SetItem(s->buckets, b, set);
        Py_DECREF(set);
        if (r == 0) {
            PyObject *res = PyObject_CallFunctionObjArgs(heappush, s->heap, b, NULL);
            if (res == NULL)
                r = -1;
            Py_XDECREF(res);
        }
    } else {
        r = PySet_Add(keys, kb);
    }
    Py_DECREF(b);
    return r;
fail:
    Py_DECREF(e);
    return -1;
}

/* ``WindowStore.fetch(kb, lo, hi)``: a new reference to a list holding the entries at [*a, *b), or NULL
 * with an exception set; Py_None (a new reference) for none */
static PyObject *store_fetch(Store *s, PyObject *kb, long long lo, long long hi, Py_ssize_t *a, Py_ssize_t *b) {
    long long floor = s->observed - s->retention + 1;
    if (lo < floor)
        lo = floor;
    if (lo > hi)
        Py_RETURN_NONE;
    if (lo < s->cached_from) { /* below the index: the store's own reading of LMDB and the batch */
        PyObject *lo_obj = PyLong_FromLongLong(lo), *hi_obj = PyLong_FromLongLong(hi);
        PyObject *found = NULL;
        if (lo_obj != NULL && hi_obj != NULL)
            found = PyObject_CallMethodObjArgs(s->store, str_fetch_below, kb, lo_obj, hi_obj, NULL);
        Py_XDECREF(lo_obj);
        Py_XDECREF(hi_obj);
        if (found == NULL)
            return NULL;
        if (!PyList_Check(found)) {
            Py_DECREF(found);
            PyErr_SetString(PyExc_TypeError, "_fetch_below must return a list");
            return NULL;
        }
        *a = 0;
        *b = PyList_GET_SIZE(found);
        return found;
    }
    PyObject *entries = PyDict_GetItemWithError(s->index, kb); /* borrowed */
    if (entries == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    if (!PyList_Check(entries)) {
        PyErr_SetString(PyExc_TypeError, "a window index value must be a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(entries);
    if (n == 0)
        Py_RETURN_NONE;
    /* bisect_left(entries, (lo,)): the first ts >= lo; bisect_right(entries, (hi, _SEQ_END)): the first ts > hi */
    Py_ssize_t l = 0, h = n;
    long long ets, eseq;
    while (l < h) {
        Py_ssize_t mid = (l + h) / 2;
        if (entry_key(PyList_GET_ITEM(entries, mid), &ets, &eseq) < 0)
            return NULL;
        if (ets < lo)
            l = mid + 1;
        else
            h = mid;
    }
    *a = l;
    h = n;
    while (l < h) {
        Py_ssize_t mid = (l + h) / 2;
        if (entry_key(PyList_GET_ITEM(entries, mid), &ets, &eseq) < 0)
            return NULL;
        if (hi < ets)
            h = mid;
        else
            l = mid + 1;
    }
    *b = l;
    Py_INCREF(entries);
    return entries;
}

/* emit(key, row, None, ts, hdrs), or that tuple appended to ``final`` (``TaskContext.add_final``) */
static int do_emit(PyObject *emit, PyObject *final, PyObject *key, PyObject *row, long long ts, PyObject *hdrs) {
    PyObject *ts_obj = PyLong_FromLongLong(ts);
    if (ts_obj == NULL)
        return -1;
    if (final != Py_None) {
        PyObject *t = PyTuple_Pack(5, key, row, Py_None, ts_obj, hdrs);
        Py_DECREF(ts_obj);
        if (t == NULL)
            return -1;
        int r = PyList_Append(final, t);
        Py_DECREF(t);
        return r;
    }
    PyObject *argv[5] = {key, row, Py_None, ts_obj, hdrs};
    PyObject *res = PyObject_Vectorcall(emit, argv, 5, NULL);
    Py_DECREF(ts_obj);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    return 0;
}

/* a ++ b (two tuples) */
static PyObject *concat(PyObject *a, PyObject *b) {
    if (PyTuple_CheckExact(a) && PyTuple_CheckExact(b)) {
        Py_ssize_t na = PyTuple_GET_SIZE(a), nb = PyTuple_GET_SIZE(b);
        PyObject *t = PyTuple_New(na + nb);
        if (t == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < na; i++) {
            PyObject *v = PyTuple_GET_ITEM(a, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(t, i, v);
        }
        for (Py_ssize_t i = 0; i < nb; i++) {
            PyObject *v = PyTuple_GET_ITEM(b, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(t, na + i, v);
        }
        return t;
    }
    return PyNumber_Add(a, b);
}

/* the result sink of ``join_task.ResultRows.sink``: (rows, timestamps, headers, null_keys, nk) */
typedef struct {
    PyObject *rows, *tss, *hdrs, *null_keys;
    Py_ssize_t nk;
} Sink;

static int sink_load(Sink *k, PyObject *final) {
    if (!PyTuple_CheckExact(final) || PyTuple_GET_SIZE(final) != 5)
        return 0;
    k->rows = PyTuple_GET_ITEM(final, 0);
    k->tss = PyTuple_GET_ITEM(final, 1);
    k->hdrs = PyTuple_GET_ITEM(final, 2);
    k->null_keys = PyTuple_GET_ITEM(final, 3);
    if (!PyList_CheckExact(k->rows) || !PyList_CheckExact(k->tss) || !PyList_CheckExact(k->hdrs)
        || !PyList_CheckExact(k->null_keys) || !PyLong_CheckExact(PyTuple_GET_ITEM(final, 4)))
        return 0;
    k->nk = PyLong_AsSsize_t(PyTuple_GET_ITEM(final, 4));
    if (k->nk < 0) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* ``ResultRows.add(key, a ++ b, None, ts, hdrs)``: the row key[:nk] ++ a ++ b (NULL key columns for a NULL
 * key, its index noted in null_keys) */
static int sink_emit(Sink *k, PyObject *key, PyObject *a, PyObject *b, long long ts, PyObject *hdrs) {
    Py_ssize_t nk = k->nk;
    PyObject *t;
    if (PyTuple_CheckExact(a) && PyTuple_CheckExact(b) && (key == Py_None || (PyTuple_CheckExact(key)
                                                                             && PyTuple_GET_SIZE(key) >= nk))) {
        Py_ssize_t na = PyTuple_GET_SIZE(a), nb = PyTuple_GET_SIZE(b);
        t = PyTuple_New(nk + na + nb);
        if (t == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyObject *v = key == Py_None ? Py_None : PyTuple_GET_ITEM(key, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(t, i, v);
        }
        for (Py_ssize_t i = 0; i < na; i++) {
            PyObject *v = PyTuple_GET_ITEM(a, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(t, nk + i, v);
        }
        for (Py_ssize_t i = 0; i < nb; i++) {
            PyObject *v = PyTuple_GET_ITEM(b, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(t, nk + na + i, v);
        }
    } else { /* anything else as ``ResultRows.add`` builds it: key[:nk] + (a + b) */
        PyObject *joined = concat(a, b);
        if (joined == NULL)
            return -1;
        PyObject *head = key == Py_None ? PyTuple_New(nk) : PySequence_GetSlice(key, 0, nk);
        if (head != NULL && key == Py_None)
            for (Py_ssize_t i = 0; i < nk; i++) {
                Py_INCREF(Py_None);
                PyTuple_SET_ITEM(head, i, Py_None);
            }
        t = head == NULL ? NULL : PyNumber_Add(head, joined);
        Py_XDECREF(head);
        Py_DECREF(joined);
        if (t == NULL)
            return -1;
    }
    if (key == Py_None) {
        PyObject *at = PyLong_FromSsize_t(PyList_GET_SIZE(k->rows));
        int r = at == NULL ? -1 : PyList_Append(k->null_keys, at);
        Py_XDECREF(at);
        if (r < 0) {
            Py_DECREF(t);
            return -1;
        }
    }
    PyObject *ts_obj = PyLong_FromLongLong(ts);
    int r = ts_obj == NULL ? -1 : PyList_Append(k->rows, t);
    Py_DECREF(t);
    if (r == 0)
        r = PyList_Append(k->tss, ts_obj);
    Py_XDECREF(ts_obj);
    if (r == 0)
        r = PyList_Append(k->hdrs, hdrs);
    return r;
}

/* kb of key: memo[key] when the memo has it (a dict, or None for no memo) else key_bytes(key) */
static PyObject *key_bytes_of(PyObject *key_bytes, PyObject *memo, PyObject *key) {
    if (memo != Py_None) {
        PyObject *kb = PyDict_GetItemWithError(memo, key);
        if (kb != NULL) {
            Py_INCREF(kb);
            return kb;
        }
        if (PyErr_Occurred())
            return NULL;
    }
    PyObject *kb = PyObject_CallOneArg(key_bytes, key);
    if (kb != NULL && memo != Py_None && PyDict_SetItem(memo, key, kb) < 0)
        Py_CLEAR(kb);
    if (kb != NULL && !PyBytes_Check(kb)) {
        Py_DECREF(kb);
        PyErr_SetString(PyExc_TypeError, "key bytes must be bytes");
        return NULL;
    }
    return kb;
}

/* whether the batch is one ``runs`` takes: every event (ts, offset, (key, row, hdrs)) with |ts| <= 2**61,
 * every run's bounds within its events; 0 for no, -1 on an error */
static int takes(PyObject *schedule) {
    if (!PyList_CheckExact(schedule))
        return 0;
    for (Py_ssize_t r = 0; r < PyList_GET_SIZE(schedule); r++) {
        PyObject *run = PyList_GET_ITEM(schedule, r);
        if (!PyTuple_Check(run) || PyTuple_GET_SIZE(run) != 4 || !PyList_CheckExact(PyTuple_GET_ITEM(run, 1)))
            return 0;
        PyObject *events = PyTuple_GET_ITEM(run, 1);
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(run, 2)), j = PyLong_AsSsize_t(PyTuple_GET_ITEM(run, 3));
        if ((i == -1 || j == -1) && PyErr_Occurred())
            return -1;
        if (i < 0 || j > PyList_GET_SIZE(events))
            return 0;
        for (Py_ssize_t k = i; k < j; k++) {
            PyObject *ev = PyList_GET_ITEM(events, k);
            if (!PyTuple_Check(ev) || PyTuple_GET_SIZE(ev) != 3 || !PyLong_CheckExact(PyTuple_GET_ITEM(ev, 0)))
                return 0;
            PyObject *inner = PyTuple_GET_ITEM(ev, 2);
            if (!PyTuple_Check(inner) || PyTuple_GET_SIZE(inner) != 3)
                return 0;
            int overflow = 0;
            long long ts = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(ev, 0), &overflow);
            if (overflow || ts > LIMIT || ts < -LIMIT)
                return 0;
        }
    }
    return 1;
}

/* runs(schedule, this, other, before, after, left_outer, right_outer, lnull, rnull, emit, final, key_bytes,
 *      keep, memo, stream_time) -> the new stream time, or NotImplemented (nothing done)
 * ``StreamStreamJoin._runs`` with both sides stored by their adders: schedule is [(left, events, i, j)],
 * each record of events[i:j] probes the other side's store and goes into its own. ``final``: None (results
 * to ``emit``), the task's list of result tuples, or a result sink (``Sink``: rows built whole). */
static PyObject *runs(PyObject *self, PyObject *args) {
    PyObject *schedule, *this_obj, *other_obj, *lnull, *rnull, *emit, *final, *key_bytes, *keep, *memo;
    long long before, after, stream_time;
    int left_outer, right_outer;
    if (!PyArg_ParseTuple(args, "OOOLLppOOOOOOOL", &schedule, &this_obj, &other_obj, &before, &after, &left_outer,
                          &right_outer, &lnull, &rnull, &emit, &final, &key_bytes, &keep, &memo, &stream_time))
        return NULL;
    Sink sink = {0};
    int to_sink = 0;
    if (final != Py_None && !PyList_CheckExact(final)) {
        to_sink = sink_load(&sink, final);
        if (PyErr_Occurred())
            return NULL;
        if (!to_sink) {
            PyErr_SetString(PyExc_TypeError, "final must be a list, a result sink or None");
            return NULL;
        }
    }
    if (memo != Py_None && !PyDict_CheckExact(memo)) {
        PyErr_SetString(PyExc_TypeError, "memo must be a dict or None");
        return NULL;
    }
    int ok = takes(schedule);
    if (ok < 0)
        return NULL;
    if (!ok || before > LIMIT || before < -LIMIT || after > LIMIT || after < -LIMIT)
        Py_RETURN_NOTIMPLEMENTED;
    Store stores[2] = {{0}, {0}}; /* [0]: this (left), [1]: other (right) */
    int l0 = store_load(&stores[0], this_obj);
    int l1 = l0 < 0 ? 0 : store_load(&stores[1], other_obj);
    if (l0 != 0 || l1 != 0) {
        store_clear(&stores[0]);
        store_clear(&stores[1]);
        if (l0 < 0 || l1 < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    int failed = 0;
    for (Py_ssize_t r = 0; r < PyList_GET_SIZE(schedule) && !failed; r++) {
        PyObject *run = PyList_GET_ITEM(schedule, r);
        int left = PyObject_IsTrue(PyTuple_GET_ITEM(run, 0));
        if (left < 0) {
            failed = 1;
            break;
        }
        PyObject *events = PyTuple_GET_ITEM(run, 1);
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(run, 2)), j = PyLong_AsSsize_t(PyTuple_GET_ITEM(run, 3));
        long long b4 = left ? before : after, aft = left ? after : before;
        int outer = left ? left_outer : right_outer;
        PyObject *pad = left ? rnull : lnull;
        Store *mine = &stores[left ? 0 : 1], *theirs = &stores[left ? 1 : 0];
        Py_INCREF(events);
        for (Py_ssize_t k = i; k < j && k < PyList_GET_SIZE(events); k++) {
            PyObject *ev = PyList_GET_ITEM(events, k);
            PyObject *ts_obj = PyTuple_GET_ITEM(ev, 0), *inner = PyTuple_GET_ITEM(ev, 2);
            PyObject *key = PyTuple_GET_ITEM(inner, 0), *row = PyTuple_GET_ITEM(inner, 1), *hdrs = PyTuple_GET_ITEM(inner, 2);
            long long ts = as_ll(ts_obj);
            if (ts > stream_time)
                stream_time = ts;
            if (key == Py_None || row == Py_None) {
                if (key == Py_None && row != Py_None && outer) {
                    if (to_sink) {
                        if (sink_emit(&sink, Py_None, left ? row : pad, left ? pad : row, ts, hdrs) < 0)
                            failed = 1;
                    } else {
                        PyObject *joined = left ? concat(row, pad) : concat(pad, row);
                        if (joined == NULL || do_emit(emit, final, Py_None, joined, ts, hdrs) < 0)
                            failed = 1;
                        Py_XDECREF(joined);
                    }
                    if (failed)
                        break;
                }
                continue;
            }
            PyObject *kb = key_bytes_of(key_bytes, memo, key);
            if (kb == NULL) {
                failed = 1;
                break;
            }
            long long lo = ts - b4, hi = ts + aft;
            Py_ssize_t a = 0, b = 0;
            PyObject *found = store_fetch(theirs, kb, lo > 0 ? lo : 0, hi > 0 ? hi : 0, &a, &b);
            if (found == NULL) {
                Py_DECREF(kb);
                failed = 1;
                break;
            }
            int matched = 0;
            if (found != Py_None) {
                for (Py_ssize_t m = a; m < b && m < PyList_GET_SIZE(found); m++) {
                    PyObject *e = PyList_GET_ITEM(found, m);
                    long long other_ts, other_seq;
                    if (entry_key(e, &other_ts, &other_seq) < 0) {
                        failed = 1;
                        break;
                    }
                    matched = 1;
                    PyObject *other_row = PyTuple_GET_ITEM(e, 2);
                    if (to_sink) {
                        if (sink_emit(&sink, key, left ? row : other_row, left ? other_row : row,
                                      ts > other_ts ? ts : other_ts, hdrs) < 0) {
                            failed = 1;
                            break;
                        }
                        continue;
                    }
                    PyObject *joined = left ? concat(row, other_row) : concat(other_row, row);
                    if (joined == NULL) {
                        failed = 1;
                        break;
                    }
                    int keepit = 1;
                    if (keep != Py_None) { /* ``join_rows.kept``: a failing prefilter keeps the row */
                        PyObject *res = PyObject_CallOneArg(keep, joined);
                        if (res == NULL) {
                            PyErr_Clear();
                        } else {
                            keepit = PyObject_IsTrue(res);
                            Py_DECREF(res);
                            if (keepit < 0) {
                                Py_DECREF(joined);
                                failed = 1;
                                break;
                            }
                        }
                    }
                    if (keepit && do_emit(emit, final, key, joined, ts > other_ts ? ts : other_ts, hdrs) < 0)
                        failed = 1;
                    Py_DECREF(joined);
                    if (failed)
                        break;
                }
            }
            Py_DECREF(found);
            if (!failed && outer && !matched) {
                if (to_sink) {
                    if (sink_emit(&sink, key, left ? row : pad, left ? pad : row, ts, hdrs) < 0)
                        failed = 1;
                } else {
                    PyObject *joined = left ? concat(row, pad) : concat(pad, row);
                    if (joined == NULL || do_emit(emit, final, key, joined, ts, hdrs) < 0)
                        failed = 1;
                    Py_XDECREF(joined);
                }
            }
            if (!failed && store_add(mine, kb, ts, ts_obj, row) < 0)
                failed = 1;
            Py_DECREF(kb);
            if (failed)
                break;
        }
        Py_DECREF(events);
    }
    PyObject *exc_type = NULL, *exc_value = NULL, *exc_tb = NULL;
    if (failed)
        PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    int saved = store_save(&stores[0]) == 0 && store_save(&stores[1]) == 0;
    store_clear(&stores[0]);
    store_clear(&stores[1]);
    if (failed) {
        if (saved)
            PyErr_Restore(exc_type, exc_value, exc_tb);
        else {
            Py_XDECREF(exc_type);
            Py_XDECREF(exc_value);
            Py_XDECREF(exc_tb);
        }
        return NULL;
    }
    if (!saved)
        return NULL;
    return PyLong_FromLongLong(stream_time);
}

/* window_keys(kbs, tss, seqs, segment, off) -> [the LMDB key of each record], as ``WindowStore.write_puts``
 * builds them: b"\x01" + >Q(ts // segment + off) + >I(len(kb)) + kb + >Q(ts + off) + >I(seq) */
static void put_be64(unsigned char *p, uint64_t v) {
    for (int i = 7; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xFF);
        v >>= 8;
    }
}

static void put_be32(unsigned char *p, uint32_t v) {
    for (int i = 3; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xFF);
        v >>= 8;
    }
}

static PyObject *window_keys(PyObject *self, PyObject *args) {
    PyObject *kbs, *tss, *seqs;
    long long segment;
    if (!PyArg_ParseTuple(args, "O!O!O!L", &PyList_Type, &kbs, &PyList_Type, &tss, &PyList_Type, &seqs, &segment))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(kbs);
    if (PyList_GET_SIZE(tss) != n || PyList_GET_SIZE(seqs) != n) {
        PyErr_SetString(PyExc_ValueError, "window_keys: columns of different lengths");
        return NULL;
    }
    if (segment <= 0) {
        PyErr_SetString(PyExc_ValueError, "window_keys: the segment must be positive");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *kb = PyList_GET_ITEM(kbs, i);
        if (!PyBytes_Check(kb)) {
            PyErr_SetString(PyExc_TypeError, "window_keys: a key must be bytes");
            goto fail;
        }
        int overflow = 0;
        long long ts = PyLong_AsLongLongAndOverflow(PyList_GET_ITEM(tss, i), &overflow);
        if (overflow || ts > LIMIT || ts < -LIMIT) {
            PyErr_SetString(PyExc_OverflowError, "window_keys: a timestamp beyond 2**61");
            goto fail;
        }
        if (ts == -1 && PyErr_Occurred())
            goto fail;
        unsigned long long seq = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(seqs, i));
        if (seq == (unsigned long long)-1 && PyErr_Occurred())
            goto fail;
        if (seq > 0xFFFFFFFFULL) {
            PyErr_SetString(PyExc_OverflowError, "window_keys: a sequence beyond 32 bits");
            goto fail;
        }
        Py_ssize_t kl = PyBytes_GET_SIZE(kb);
        if (kl > 0xFFFFFFFFLL) {
            PyErr_SetString(PyExc_OverflowError, "window_keys: a key too long");
            goto fail;
        }
        PyObject *k = PyBytes_FromStringAndSize(NULL, 13 + kl + 12);
        if (k == NULL)
            goto fail;
        unsigned char *p = (unsigned char *)PyBytes_AS_STRING(k);
        const uint64_t off = (uint64_t)1 << 63;
        p[0] = 1;
        put_be64(p + 1, (uint64_t)floordiv(ts, segment) + off);
        put_be32(p + 9, (uint32_t)kl);
        memcpy(p + 13, PyBytes_AS_STRING(kb), (size_t)kl);
        put_be64(p + 13 + kl, (uint64_t)ts + off);
        put_be32(p + 13 + kl + 8, (uint32_t)seq);
        PyList_SET_ITEM(out, i, k);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* untrack(obj) -> obj: a list taken out of the cyclic GC (anything else given back as it is). For the state
 * records of a GROUP BY ([ts, key, acc...], runtime/accumulate.py): the stores and a batch's dicts refer to a
 * record, the record only to record data (its key, the accumulators its UDAFs returned, which never see the
 * record), so no cycle can pass through it and refcounting frees it; tracked, every young collection after a
 * batch walked each new record once, and the older generations again. */
static PyObject *untrack(PyObject *self, PyObject *o) {
    (void)self;
    if (PyList_CheckExact(o) && PyObject_GC_IsTracked(o)) {
        PyObject_GC_UnTrack(o);
        /* its key tuple too when it holds only untracked values, as the collector itself would untrack it the
         * first time it walked it (a record's key is new with the record: ~24k such tuples a young collection) */
        if (PyList_GET_SIZE(o) > 1) {
            PyObject *key = PyList_GET_ITEM(o, 1);
            if (PyTuple_CheckExact(key) && PyObject_GC_IsTracked(key)) {
                Py_ssize_t i, n = PyTuple_GET_SIZE(key);
                for (i = 0; i < n; i++) {
                    PyObject *v = PyTuple_GET_ITEM(key, i);
                    if (v == NULL || (PyObject_IS_GC(v) && PyObject_GC_IsTracked(v)))
                        break;
                }
                if (i == n)
                    PyObject_GC_UnTrack(key);
            }
        }
    }
    Py_INCREF(o);
    return o;
}


/* ------------------------------------------------------------------ marshal version 2, written directly
 * The payloads ``marshal.dumps(v, 2)`` gives, byte for byte, for the values store records and repartition
 * items are made of - None, bools, ints within 64 bits, floats, ASCII str, bytes, and tuples and lists of
 * those (nested up to MW_DEPTH) -, without marshal's per-call set-up (its output buffer grown from 50 bytes,
 * an audit hook, the generic dispatch per object). Any other value goes to marshal itself
 * (PyMarshal_WriteObjectToString, version 2), whose ValueError the caller turns into pickles. */

#define MW_DEPTH 8

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} MBuf;

static int mb_grow(MBuf *b, Py_ssize_t need) {
    if (b->len + need <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + need)
        cap *= 2;
    char *nb = PyMem_Realloc(b->buf, (size_t)cap);
    if (nb == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->buf = nb;
    b->cap = cap;
    return 0;
}

static inline void mb_u32(MBuf *b, uint32_t v) {
    unsigned char *q = (unsigned char *)b->buf + b->len;
    q[0] = (unsigned char)(v & 0xFF);
    q[1] = (unsigned char)((v >> 8) & 0xFF);
    q[2] = (unsigned char)((v >> 16) & 0xFF);
    q[3] = (unsigned char)((v >> 24) & 0xFF);
    b->len += 4;
}

/* 1 written, 0 a value this writer does not take (marshal decides), -1 an error */
static int mw_object(MBuf *b, PyObject *v, int depth) {
    if (v == Py_None || v == Py_True || v == Py_False) {
        if (mb_grow(b, 1) < 0)
            return -1;
        b->buf[b->len++] = v == Py_None ? 'N' : (v == Py_True ? 'T' : 'F');
        return 1;
    }
    if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow)
            return 0;
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (x >= -2147483647LL - 1 && x <= 2147483647LL) {
            if (mb_grow(b, 5) < 0)
                return -1;
            b->buf[b->len++] = 'i';
            mb_u32(b, (uint32_t)(int32_t)x);
            return 1;
        }
        /* TYPE_LONG: the count of 15-bit digits (negative for a negative int), then the digits, low first */
        unsigned long long a = x < 0 ? (unsigned long long)0 - (unsigned long long)x : (unsigned long long)x;
        int n = 0;
        unsigned short digits[5];
        while (a) {
            digits[n++] = (unsigned short)(a & 0x7FFF);
            a >>= 15;
        }
        if (mb_grow(b, 5 + 2 * n) < 0)
            return -1;
        b->buf[b->len++] = 'l';
        mb_u32(b, (uint32_t)(int32_t)(x < 0 ? -n : n));
        for (int i = 0; i < n; i++) {
            b->buf[b->len++] = (char)(digits[i] & 0xFF);
            b->buf[b->len++] = (char)(digits[i] >> 8);
        }
        return 1;
    }
    if (PyFloat_CheckExact(v)) {
        if (mb_grow(b, 9) < 0)
            return -1;
        b->buf[b->len++] = 'g';
        if (PyFloat_Pack8(PyFloat_AS_DOUBLE(v), b->buf + b->len, 1) < 0)
            return -1;
        b->len += 8;
        return 1;
    }
    if (PyUnicode_CheckExact(v)) {
        if (PyUnicode_READY(v) < 0)
            return -1;
        if (!PyUnicode_IS_ASCII(v))
            return 0; /* marshal's utf-8 with surrogatepass */
        Py_ssize_t n = PyUnicode_GET_LENGTH(v);
        if (n > 0x7FFFFFFF)
            return 0;
        if (mb_grow(b, 5 + n) < 0)
            return -1;
        b->buf[b->len++] = 'u';
        mb_u32(b, (uint32_t)n);
        memcpy(b->buf + b->len, PyUnicode_DATA(v), (size_t)n);
        b->len += n;
        return 1;
    }
    if (PyBytes_CheckExact(v)) {
        Py_ssize_t n = PyBytes_GET_SIZE(v);
        if (n > 0x7FFFFFFF)
            return 0;
        if (mb_grow(b, 5 + n) < 0)
            return -1;
        b->buf[b->len++] = 's';
        mb_u32(b, (uint32_t)n);
        memcpy(b->buf + b->len, PyBytes_AS_STRING(v), (size_t)n);
        b->len += n;
        return 1;
    }
    int tuple = PyTuple_CheckExact(v);
    if ((tuple || PyList_CheckExact(v)) && depth < MW_DEPTH) {
        Py_ssize_t n = tuple ? PyTuple_GET_SIZE(v) : PyList_GET_SIZE(v);
        if (n > 0x7FFFFFFF)
            return 0;
        if (mb_grow(b, 5) < 0)
            return -1;
        b->buf[b->len++] = tuple ? '(' : '[';
        mb_u32(b, (uint32_t)n);
        for (Py_ssize_t i = 0; i < n; i++) {
            /* a list's length is read each time: nothing here runs Python code, so it cannot change */
            PyObject *item = tuple ? PyTuple_GET_ITEM(v, i) : PyList_GET_ITEM(v, i);
            int r = mw_object(b, item, depth + 1);
            if (r <= 0)
                return r;
        }
        return 1;
    }
    return 0;
}

/* dumps_many(values): [marshal.dumps(v, 2) for v in values], the common values written here */
static PyObject *dumps_many(PyObject *self, PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "dumps_many takes a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    MBuf b = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(seq, i), *payload;
        b.len = 0;
        int r = mw_object(&b, v, 0);
        if (r < 0)
            goto fail;
        if (r == 1)
            payload = PyBytes_FromStringAndSize(b.buf, b.len);
        else
            payload = PyMarshal_WriteObjectToString(v, 2);
        if (payload == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, payload);
    }
    PyMem_Free(b.buf);
    Py_DECREF(seq);
    return out;
fail:
    PyMem_Free(b.buf);
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"runs", runs, METH_VARARGS, "A stream-stream join's batch of runs (StreamStreamJoin._runs with adders)."},
    {"window_keys", window_keys, METH_VARARGS, "A window store's LMDB keys of kept-back records."},
    {"dumps_many", dumps_many, METH_O, "[marshal.dumps(v, 2) for v in values]: the common values written directly."},
    {"untrack", untrack, METH_O, "A list taken out of the cyclic GC (a GROUP BY state record; its key tuple of untracked values too); returns it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ssjoin", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ssjoin(void) {
    PyObject *heapq = PyImport_ImportModule("heapq");
    if (heapq == NULL)
        return NULL;
    heappush = PyObject_GetAttrString(heapq, "heappush");
    Py_DECREF(heapq);
    if (heappush == NULL)
        return NULL;
#define INTERN(var, s) if ((var = PyUnicode_InternFromString(s)) == NULL) return NULL;
    INTERN(str_index, "index")
    INTERN(str_buckets, "_buckets")
    INTERN(str_heap, "_heap")
    INTERN(str_bucket, "bucket")
    INTERN(str_observed, "observed")
    INTERN(str_seq, "seq")
    INTERN(str_cached, "cached")
    INTERN(str_retention, "retention")
    INTERN(str_cached_from, "cached_from")
    INTERN(str_puts, "_puts")
    INTERN(str_fetch_below, "_fetch_below")
    PyObject *m = PyModule_Create(&module);
    /* ``runs`` takes a result sink as ``final`` (``join_task.ResultRows``) */
    if (m != NULL && PyModule_AddIntConstant(m, "RESULT_ROWS", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
