/* The embedded log's record framing in C (``ksqlpy.log.framing``): the same bytes as ``record_codec``'s
 * Python packing, and the same columns as ``embedded._decode``'s split, without a Python object per
 * header or per joined record. Built by setup.py when a compiler is there (optional); the Python code
 * is the fallback and the reference. The layout is little-endian: framing.py loads this module only on
 * little-endian machines, where a native int's bytes are the layout's. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "ksqlpy_long.h" /* as_ll */
#include <stdint.h>
#include <string.h>

#define HEADER_SIZE 18

/* the size of record i (header + key + value), or -1 with an exception set */
static Py_ssize_t record_size(PyObject *k, PyObject *v) {
    if (!PyBytes_CheckExact(k) || !PyBytes_CheckExact(v)) {
        PyErr_SetString(PyExc_TypeError, "keys and values must be bytes");
        return -1;
    }
    Py_ssize_t kl = PyBytes_GET_SIZE(k), vl = PyBytes_GET_SIZE(v);
    if (kl > INT32_MAX || vl > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a key or value too long for the record header");
        return -1;
    }
    return HEADER_SIZE + kl + vl;
}

/* one chunk of the records at rows[a..b) (rows: the record numbers, or NULL for a..b themselves) */
static PyObject *one_chunk(PyObject **keys, PyObject **values, PyObject **tss, PyObject **rows,
                           Py_ssize_t a, Py_ssize_t b, Py_ssize_t data_bytes) {
    Py_ssize_t n = b - a;
    Py_ssize_t head = 4 + 4 * (n + 1);
    if (data_bytes > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a chunk too large for its positions");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, head + data_bytes);
    if (out == NULL)
        return NULL;
    char *buf = PyBytes_AS_STRING(out);
    uint32_t count = (uint32_t)n, p = 0;
    memcpy(buf, &count, 4);
    char *pos = buf + 4, *data = buf + head;
    for (Py_ssize_t j = a; j < b; j++) {
        Py_ssize_t i = j;
        if (rows != NULL) {
            i = PyLong_AsSsize_t(rows[j]);
            if (i == -1 && PyErr_Occurred()) {
                Py_DECREF(out);
                return NULL;
            }
        }
        PyObject *k = keys[i], *v = values[i];
        long long ts = as_ll(tss[i]);
        if (ts == -1 && PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        int64_t ts64 = (int64_t)ts;
        int32_t kl = (int32_t)PyBytes_GET_SIZE(k), vl = (int32_t)PyBytes_GET_SIZE(v);
        uint16_t hc = 0;
        memcpy(pos, &p, 4);
        pos += 4;
        memcpy(data, &ts64, 8);
        memcpy(data + 8, &kl, 4);
        memcpy(data + 12, &vl, 4);
        memcpy(data + 16, &hc, 2);
        memcpy(data + HEADER_SIZE, PyBytes_AS_STRING(k), (size_t)kl);
        memcpy(data + HEADER_SIZE + kl, PyBytes_AS_STRING(v), (size_t)vl);
        data += HEADER_SIZE + kl + vl;
        p += (uint32_t)(HEADER_SIZE + kl + vl);
    }
    memcpy(pos, &p, 4);
    return out;
}

/* chunks(keys, values, timestamps, rows, max_records, max_bytes) -> [(index of the first record, chunk)]
 * The records (all of them, or those numbered in ``rows`` in that order) cut as record_codec.build_chunks
 * cuts them: a chunk ends before the record that would take it past max_records or max_bytes; a record
 * larger than max_bytes is a chunk of its own. */
static PyObject *chunks(PyObject *self, PyObject *args) {
    PyObject *okeys, *ovalues, *otss, *orows;
    Py_ssize_t max_records, max_bytes;
    if (!PyArg_ParseTuple(args, "OOOOnn", &okeys, &ovalues, &otss, &orows, &max_records, &max_bytes))
        return NULL;
    PyObject *fk = NULL, *fv = NULL, *ft = NULL, *fr = NULL, *out = NULL, *sizes = NULL;
    fk = PySequence_Fast(okeys, "keys must be a sequence");
    fv = fk ? PySequence_Fast(ovalues, "values must be a sequence") : NULL;
    ft = fv ? PySequence_Fast(otss, "timestamps must be a sequence") : NULL;
    if (ft == NULL)
        goto done;
    Py_ssize_t nrec = PySequence_Fast_GET_SIZE(fk);
    if (PySequence_Fast_GET_SIZE(fv) != nrec || PySequence_Fast_GET_SIZE(ft) != nrec) {
        PyErr_SetString(PyExc_ValueError, "keys, values and timestamps differ in length");
        goto done;
    }
    PyObject **keys = PySequence_Fast_ITEMS(fk), **values = PySequence_Fast_ITEMS(fv),
             **tss = PySequence_Fast_ITEMS(ft), **rows = NULL;
    Py_ssize_t n = nrec;
    if (orows != Py_None) {
        fr = PySequence_Fast(orows, "rows must be a sequence");
        if (fr == NULL)
            goto done;
        rows = PySequence_Fast_ITEMS(fr);
        n = PySequence_Fast_GET_SIZE(fr);
    }
    if (max_records < 1 || max_bytes < 0) {
        PyErr_SetString(PyExc_ValueError, "bad chunk limits");
        goto done;
    }
    /* each record's size, checked once */
    sizes = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(Py_ssize_t));
    if (sizes == NULL)
        goto done;
    Py_ssize_t *size = (Py_ssize_t *)PyBytes_AS_STRING(sizes);
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t i = j;
        if (rows != NULL) {
            i = PyLong_AsSsize_t(rows[j]);
            if (i == -1 && PyErr_Occurred())
                goto done;
            if (i < 0 || i >= nrec) {
                PyErr_SetString(PyExc_IndexError, "a row number out of range");
                goto done;
            }
        }
        size[j] = record_size(keys[i], values[i]);
        if (size[j] < 0)
            goto done;
    }
    out = PyList_New(0);
    if (out == NULL)
        goto done;
    Py_ssize_t start = 0;
    while (start < n) {
        Py_ssize_t end = start, bytes = 0;
        while (end < n && end - start < max_records && bytes + size[end] <= max_bytes) {
            bytes += size[end];
            end++;
        }
        if (end == start) { /* a record alone larger than max_bytes */
            bytes = size[start];
            end = start + 1;
        }
        PyObject *c = one_chunk(keys, values, tss, rows, start, end, bytes);
        if (c == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyObject *item = Py_BuildValue("(nN)", start, c);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(item);
        start = end;
    }
done:
    Py_XDECREF(sizes);
    Py_XDECREF(fr);
    Py_XDECREF(ft);
    Py_XDECREF(fv);
    Py_XDECREF(fk);
    return out;
}

static int append_new(PyObject *list, PyObject *item) {
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* split(data, base, positions, i0, i1, keys, values, timestamps) -> [(index, byte offset, count)]
 * Records i0..i1-1 of a chunk appended to the three lists, as embedded._decode does: record i starts at
 * data[base + positions[i]]. Returns, for the records with headers, (their index in ``timestamps``,
 * where their headers start in ``data``, how many), for the caller to decode. */
static PyObject *split(PyObject *self, PyObject *args) {
    Py_buffer b, pb;
    Py_ssize_t base, i0, i1;
    PyObject *keys, *values, *tss;
    if (!PyArg_ParseTuple(args, "y*ny*nnO!O!O!", &b, &base, &pb, &i0, &i1, &PyList_Type, &keys, &PyList_Type,
                          &values, &PyList_Type, &tss))
        return NULL;
    PyObject *with_headers = PyList_New(0);
    const char *c = (const char *)b.buf, *pp = (const char *)pb.buf;
    Py_ssize_t len = b.len;
    if (with_headers == NULL)
        goto fail;
    if (i0 < 0 || i1 < i0 || i1 * 4 > pb.len) {
        PyErr_SetString(PyExc_IndexError, "records out of the chunk's positions");
        goto fail;
    }
    for (Py_ssize_t i = i0; i < i1; i++) {
        uint32_t p;
        memcpy(&p, pp + 4 * i, 4);
        Py_ssize_t s = base + (Py_ssize_t)p;
        if (s < 0 || s + HEADER_SIZE > len)
            goto bad;
        int64_t ts;
        int32_t kl, vl;
        uint16_t hc;
        memcpy(&ts, c + s, 8);
        memcpy(&kl, c + s + 8, 4);
        memcpy(&vl, c + s + 12, 4);
        memcpy(&hc, c + s + 16, 2);
        s += HEADER_SIZE;
        if (append_new(tss, PyLong_FromLongLong((long long)ts)) < 0)
            goto fail;
        if (kl >= 0) {
            if (s + kl > len)
                goto bad;
            if (append_new(keys, PyBytes_FromStringAndSize(c + s, kl)) < 0)
                goto fail;
            s += kl;
        } else if (PyList_Append(keys, Py_None) < 0) {
            goto fail;
        }
        if (vl >= 0) {
            if (s + vl > len)
                goto bad;
            if (append_new(values, PyBytes_FromStringAndSize(c + s, vl)) < 0)
                goto fail;
            s += vl;
        } else if (PyList_Append(values, Py_None) < 0) {
            goto fail;
        }
        if (hc && append_new(with_headers, Py_BuildValue("(nnn)", PyList_GET_SIZE(tss) - 1, s, (Py_ssize_t)hc)) < 0)
            goto fail;
    }
    PyBuffer_Release(&pb);
    PyBuffer_Release(&b);
    return with_headers;
bad:
    PyErr_SetString(PyExc_ValueError, "a record runs past its chunk");
fail:
    Py_XDECREF(with_headers);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&b);
    return NULL;
}


/* Kafka's Utils.murmur2 (the default partitioner's hash), on unsigned 32-bit words */
static uint32_t murmur2(const unsigned char *data, Py_ssize_t length) {
    const uint32_t m = 0x5bd1e995;
    uint32_t h = 0x9747b28cu ^ (uint32_t)length;
    Py_ssize_t n4 = length / 4;
    for (Py_ssize_t i = 0; i < n4; i++) {
        const unsigned char *d = data + 4 * i;
        uint32_t k = (uint32_t)d[0] | ((uint32_t)d[1] << 8) | ((uint32_t)d[2] << 16) | ((uint32_t)d[3] << 24);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    const unsigned char *tail = data + (length & ~(Py_ssize_t)3);
    switch (length & 3) {
    case 3:
        h ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        h ^= (uint32_t)tail[0];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

/* partitions(keys, n) -> [partition of each key]: Kafka's default partitioner, toPositive(murmur2(key)) % n */
static PyObject *partitions(PyObject *self, PyObject *args) {
    PyObject *okeys;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "On", &okeys, &n))
        return NULL;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "no partitions");
        return NULL;
    }
    PyObject *fk = PySequence_Fast(okeys, "keys must be a sequence");
    if (fk == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fk);
    PyObject **keys = PySequence_Fast_ITEMS(fk);
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        Py_DECREF(fk);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyBytes_CheckExact(keys[i])) {
            PyErr_SetString(PyExc_TypeError, "keys must be bytes");
            Py_DECREF(out);
            Py_DECREF(fk);
            return NULL;
        }
        uint32_t h = murmur2((const unsigned char *)PyBytes_AS_STRING(keys[i]), PyBytes_GET_SIZE(keys[i]));
        PyObject *q = PyLong_FromSsize_t((Py_ssize_t)((h & 0x7fffffffu) % (uint64_t)n));
        if (q == NULL) {
            Py_DECREF(out);
            Py_DECREF(fk);
            return NULL;
        }
        PyList_SET_ITEM(out, i, q);
    }
    Py_DECREF(fk);
    return out;
}

static PyMethodDef methods[] = {
    {"chunks", chunks, METH_VARARGS, "Plain records packed into chunks (see record_codec.build_chunks)."},
    {"split", split, METH_VARARGS, "A chunk's records appended to key, value and timestamp lists."},
    {"partitions", partitions, METH_VARARGS, "Kafka's default partitioner for each key of a batch."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_framing", NULL, -1, methods};

PyMODINIT_FUNC PyInit__framing(void) { return PyModule_Create(&module); }
