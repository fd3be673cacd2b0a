/* A batch of JSON object values decoded straight into a join's blocks (ksqlpy/serde/json_blocks.py).
 *
 * Why: msgspec builds a struct per record, Python then builds the block tuple from it by a generated
 * lambda; for q8's 80,000 persons and auctions that was a fifth of the drain. Here one C loop parses
 * each object and writes the block (the value columns - NULL for those the query does not read -, the
 * timestamp, partition, offset and the key columns) with no object in between.
 *
 * It takes only what serde/json_fast.py's typed decode takes, with the same values: an object whose keys
 * are all of one spelling (layout) of the columns, each at most once and unescaped, whose values are
 * null or of the column's primitive type (BOOLEAN true/false; INTEGER/DATE integers within 32 bits;
 * BIGINT/TIMESTAMP within 64; TIME within a day; DOUBLE any finite number; STRING strings). Anything
 * else - malformed JSON, a tombstone, another key, a fraction for an integer column, a lone surrogate -
 * and the whole call answers None: the caller decodes the batch the generic way, which reports each bad
 * record in the processing log with its own text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "ksqlpy_long.h" /* as_ll */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_COLS 256

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
} Cur;

static inline void skip_ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* c->p at the opening quote: the raw span between the quotes; flags 1 = escapes, 2 = non-ASCII */
static int scan_string(Cur *c, const unsigned char **s, Py_ssize_t *len, int *flags) {
    const unsigned char *p = c->p + 1, *e = c->end;
    int f = 0;
    for (;;) {
#ifdef __SSE2__
        /* sixteen bytes at a time: straight to the first quote, backslash, control character or
         * non-ASCII byte (a signed compare below 0x20 takes both of the last two) */
        {
            const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                          space = _mm_set1_epi8(0x20);
            while (e - p >= 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)p);
                int m = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                                                    _mm_cmpeq_epi8(v, bslash)),
                                                       _mm_cmplt_epi8(v, space)));
                if (m) {
                    p += __builtin_ctz((unsigned)m);
                    break;
                }
                p += 16;
            }
        }
#endif
        /* eight plain bytes at a time: none a quote, a backslash, a control character or non-ASCII */
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
            uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
            if ((((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w) & high)
                break;
            p += 8;
        }
        if (p >= e)
            return -1;
        unsigned char ch = *p;
        if (ch == '"')
            break;
        if (ch == '\\') {
            f |= 1;
            p += 2;
            continue;
        }
        if (ch < 0x20)
            return -1;
        if (ch >= 0x80)
            f |= 2;
        p++;
    }
    if (p >= e)
        return -1;
    *s = c->p + 1;
    *len = p - (c->p + 1);
    *flags = f;
    c->p = p + 1;
    return 0;
}

static int hex4(const unsigned char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            v |= ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            v |= ch - 'A' + 10;
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* the string's value (a new reference), or NULL with no exception set when the text is not a valid
 * JSON string (a bad escape, a lone surrogate, invalid UTF-8) */
static PyObject *make_string(const unsigned char *s, Py_ssize_t n, int flags) {
    PyObject *r;
    if (!flags)
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, s, n);
    if (!(flags & 1)) {
        r = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
        if (r == NULL)
            PyErr_Clear();
        return r;
    }
    /* the unescaped UTF-8 is never longer than the escaped text */
    unsigned char *buf = PyMem_Malloc(n ? (size_t)n : 1);
    if (buf == NULL)
        return NULL;
    Py_ssize_t o = 0, i = 0;
    while (i < n) {
        unsigned char ch = s[i];
        if (ch != '\\') {
            buf[o++] = ch;
            i++;
            continue;
        }
        if (i + 1 >= n)
            goto bad;
        ch = s[i + 1];
        i += 2;
        switch (ch) {
        case '"': buf[o++] = '"'; break;
        case '\\': buf[o++] = '\\'; break;
        case '/': buf[o++] = '/'; break;
        case 'b': buf[o++] = '\b'; break;
        case 'f': buf[o++] = '\f'; break;
        case 'n': buf[o++] = '\n'; break;
        case 'r': buf[o++] = '\r'; break;
        case 't': buf[o++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (i + 4 > n || hex4(s + i, &cp) < 0)
                goto bad;
            i += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                goto bad;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u' || hex4(s + i + 2, &lo) < 0
                    || lo < 0xDC00 || lo > 0xDFFF)
                    goto bad;
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp < 0x80) {
                buf[o++] = (unsigned char)cp;
            } else if (cp < 0x800) {
                buf[o++] = (unsigned char)(0xC0 | (cp >> 6));
                buf[o++] = (unsigned char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                buf[o++] = (unsigned char)(0xE0 | (cp >> 12));
                buf[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                buf[o++] = (unsigned char)(0x80 | (cp & 0x3F));
            } else {
                buf[o++] = (unsigned char)(0xF0 | (cp >> 18));
                buf[o++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                buf[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                buf[o++] = (unsigned char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            goto bad;
        }
    }
    r = PyUnicode_DecodeUTF8((const char *)buf, o, NULL);
    if (r == NULL)
        PyErr_Clear();
    PyMem_Free(buf);
    return r;
bad:
    PyMem_Free(buf);
    return NULL;
}

/* a JSON number at c->p: *is_int when it has no fraction and no exponent; *iv its value when it fits
 * 64 bits (*fits); the token's span for a double. -1: not a JSON number */
static int scan_number(Cur *c, const unsigned char **tok, Py_ssize_t *toklen, int *is_int, int *fits,
                       int64_t *iv) {
    const unsigned char *p = c->p, *e = c->end, *start = p;
    int neg = 0;
    uint64_t acc = 0;
    int ok = 1;
    if (p < e && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= e)
        return -1;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        const unsigned char *digits = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p - digits > 19) {
            ok = 0;  /* beyond 64 bits */
        } else {
            for (const unsigned char *q = digits; q < p; q++)  /* 19 digits fit 64 unsigned bits */
                acc = acc * 10 + (unsigned)(*q - '0');
        }
    } else {
        return -1;
    }
    int integral = 1;
    if (p < e && *p == '.') {
        integral = 0;
        p++;
        if (p >= e || *p < '0' || *p > '9')
            return -1;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        integral = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || *p < '0' || *p > '9')
            return -1;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    *tok = start;
    *toklen = p - start;
    *is_int = integral;
    *fits = 0;
    if (integral && ok) {
        if (!neg && acc <= (uint64_t)INT64_MAX) {
            *iv = (int64_t)acc;
            *fits = 1;
        } else if (neg && acc <= (uint64_t)INT64_MAX + 1) {
            *iv = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
            *fits = 1;
        }
    }
    c->p = p;
    return 0;
}

static PyObject *number_as_double(const unsigned char *tok, Py_ssize_t len, int is_int, int fits, int64_t iv) {
    double d;
    if (is_int && fits) {
        d = (double)iv; /* as float(int): round half to even */
    } else {
        char buf[512];
        if (len >= (Py_ssize_t)sizeof(buf))
            return NULL;
        memcpy(buf, tok, len);
        buf[len] = 0;
        char *endp;
        d = PyOS_string_to_double(buf, &endp, NULL);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return NULL;
        }
        if (endp != buf + len)
            return NULL;
    }
    /* not finite, or a negative zero: ksqlDB reads the literal -0.0 as the BigDecimal 0 (0.0) but an underflow
     * (-1e-400) as -0.0; the generic reader tells them apart */
    if (!isfinite(d) || (d == 0.0 && signbit(d)))
        return NULL;
    return PyFloat_FromDouble(d);
}

/* one JSON value for a column of type t at c->p into *out (a new reference; Py_None for null). -1: the
 * value is not one the typed decode takes. `keep` 0: checked only (*out is None) */
static int parse_value(Cur *c, char t, int keep, PyObject **out) {
    const unsigned char *p = c->p, *e = c->end;
    if (p >= e)
        return -1;
    unsigned char ch = *p;
    if (ch == 'n') {
        if (e - p < 4 || memcmp(p, "null", 4) != 0)
            return -1;
        c->p = p + 4;
        *out = Py_NewRef(Py_None);
        return 0;
    }
    switch (t) {
    case 'b':
        if (ch == 't' && e - p >= 4 && memcmp(p, "true", 4) == 0) {
            c->p = p + 4;
            *out = Py_NewRef(keep ? Py_True : Py_None);
            return 0;
        }
        if (ch == 'f' && e - p >= 5 && memcmp(p, "false", 5) == 0) {
            c->p = p + 5;
            *out = Py_NewRef(keep ? Py_False : Py_None);
            return 0;
        }
        return -1;
    case 's': {
        if (ch != '"')
            return -1;
        const unsigned char *s;
        Py_ssize_t n;
        int flags;
        if (scan_string(c, &s, &n, &flags) < 0)
            return -1;
        if (!keep && !flags) {
            *out = Py_NewRef(Py_None);
            return 0;
        }
        PyObject *v = make_string(s, n, flags);
        if (v == NULL)
            return -1;
        if (!keep) {
            Py_DECREF(v);
            v = Py_NewRef(Py_None);
        }
        *out = v;
        return 0;
    }
    case 'i': case 'l': case 't': case 'd': {
        if (ch != '-' && (ch < '0' || ch > '9'))
            return -1;
        const unsigned char *tok;
        Py_ssize_t len;
        int is_int, fits;
        int64_t iv = 0;
        if (scan_number(c, &tok, &len, &is_int, &fits, &iv) < 0)
            return -1;
        if (t == 'd') {
            PyObject *v = number_as_double(tok, len, is_int, fits, iv);
            if (v == NULL)
                return -1;
            if (!keep) {
                Py_DECREF(v);
                v = Py_NewRef(Py_None);
            }
            *out = v;
            return 0;
        }
        if (!is_int || !fits)
            return -1;
        if (t == 'i' && (iv < INT32_MIN || iv > INT32_MAX))
            return -1;
        if (t == 't' && (iv < 0 || iv > 86400000))
            return -1;
        *out = keep ? PyLong_FromLongLong(iv) : Py_NewRef(Py_None);
        return *out == NULL ? -1 : 0;
    }
    default:
        return -1;
    }
}

static inline int is_atomic(PyObject *x) {
    return x == Py_None || PyLong_CheckExact(x) || PyUnicode_CheckExact(x) || PyFloat_CheckExact(x)
           || PyBool_Check(x) || PyBytes_CheckExact(x);
}

typedef struct {
    Py_ssize_t ncols;
    const char *types;
    const char *read;
    const char *names[MAX_COLS];
    Py_ssize_t lens[MAX_COLS];
} Layout;

/* the column whose name the key is: the expected position first (keys come in column order) */
static inline Py_ssize_t find_col(const Layout *L, const unsigned char *k, Py_ssize_t n, Py_ssize_t guess) {
    if (guess < L->ncols && L->lens[guess] == n && memcmp(L->names[guess], k, n) == 0)
        return guess;
    for (Py_ssize_t i = 0; i < L->ncols; i++)
        if (L->lens[i] == n && memcmp(L->names[i], k, n) == 0)
            return i;
    return -1;
}

static void clear_vals(PyObject **vals, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        Py_CLEAR(vals[i]);
}

/* one object into vals (new references, NULL for a missing key). -1: not taken (vals cleared) */
static int parse_object(const Layout *L, const unsigned char *data, Py_ssize_t size, PyObject **vals,
                        Py_ssize_t ts_col) {
    Cur c = {data, data + size};
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return -1;
    c.p++;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') {
        c.p++;
        goto done;
    }
    Py_ssize_t guess = 0;
    for (;;) {
        if (c.p >= c.end || *c.p != '"')
            goto fail;
        const unsigned char *k;
        Py_ssize_t kn;
        int kflags;
        if (scan_string(&c, &k, &kn, &kflags) < 0 || (kflags & 1))
            goto fail;
        Py_ssize_t col = find_col(L, k, kn, guess);
        if (col < 0 || vals[col] != NULL)
            goto fail;  /* another key, or a key twice */
        guess = col + 1;
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ':')
            goto fail;
        c.p++;
        skip_ws(&c);
        if (parse_value(&c, L->types[col], L->read[col] || col == ts_col, &vals[col]) < 0)
            goto fail;
        skip_ws(&c);
        if (c.p >= c.end)
            goto fail;
        if (*c.p == ',') {
            c.p++;
            skip_ws(&c);
            continue;
        }
        if (*c.p == '}') {
            c.p++;
            break;
        }
        goto fail;
    }
done:
    skip_ws(&c);
    if (c.p != c.end)
        goto fail;
    return 0;
fail:
    clear_vals(vals, L->ncols);
    return -1;
}

static int load_layout(Layout *L, PyObject *names, const char *types, const char *read, Py_ssize_t ncols) {
    if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != ncols) {
        PyErr_SetString(PyExc_ValueError, "a layout names every column once");
        return -1;
    }
    L->ncols = ncols;
    L->types = types;
    L->read = read;
    for (Py_ssize_t i = 0; i < ncols; i++) {
        PyObject *b = PyTuple_GET_ITEM(names, i);
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "column names are bytes");
            return -1;
        }
        L->names[i] = PyBytes_AS_STRING(b);
        L->lens[i] = PyBytes_GET_SIZE(b);
    }
    return 0;
}

/* blocks(values, names, types, read, keys, timestamps, ts_col, partition, offsets, lo, hi)
 *   -> (blocks, timestamps) | None
 * values[lo:hi] decoded with the column names `names` (a tuple of bytes: one layout); `types` and
 * `read` bytes, one per column; keys: the records' key tuples (None: no key columns); ts_col >= 0: the
 * record's timestamp is that column (NULL or negative: None), else timestamps[i]. */
static PyObject *blocks(PyObject *self, PyObject *args) {
    PyObject *values, *names, *keys, *timestamps, *partition, *offsets;
    const char *types, *read;
    Py_ssize_t ntypes, nread, ts_col, lo, hi;
    if (!PyArg_ParseTuple(args, "O!O!y#y#OO!nOO!nn", &PyList_Type, &values, &PyTuple_Type, &names, &types,
                          &ntypes, &read, &nread, &keys, &PyList_Type, &timestamps, &ts_col, &partition,
                          &PyList_Type, &offsets, &lo, &hi))
        return NULL;
    if (ntypes != nread || ntypes > MAX_COLS || ts_col >= ntypes) {
        PyErr_SetString(PyExc_ValueError, "types and read name every column once");
        return NULL;
    }
    if (keys != Py_None && !PyList_Check(keys)) {
        PyErr_SetString(PyExc_TypeError, "keys is a list or None");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(values);
    if (lo < 0 || hi > n || lo > hi || PyList_GET_SIZE(timestamps) < hi || PyList_GET_SIZE(offsets) < hi
        || (keys != Py_None && PyList_GET_SIZE(keys) < hi)) {
        PyErr_SetString(PyExc_ValueError, "lists shorter than the range");
        return NULL;
    }
    Layout L;
    if (load_layout(&L, names, types, read, ntypes) < 0)
        return NULL;
    PyObject *out = PyList_New(hi - lo), *tss = PyList_New(hi - lo);
    if (out == NULL || tss == NULL)
        goto error;
    PyObject *vals[MAX_COLS];
    memset(vals, 0, sizeof(PyObject *) * ntypes);
    for (Py_ssize_t i = lo; i < hi; i++) {
        PyObject *v = PyList_GET_ITEM(values, i);
        if (!PyBytes_Check(v))
            goto refuse;
        PyObject *key = NULL;
        Py_ssize_t nk = 0;
        if (keys != Py_None) {
            key = PyList_GET_ITEM(keys, i);
            if (!PyTuple_Check(key))
                goto refuse;
            nk = PyTuple_GET_SIZE(key);
        }
        if (parse_object(&L, (const unsigned char *)PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v), vals, ts_col) < 0)
            goto refuse;
        PyObject *ts;
        if (ts_col >= 0) {
            ts = vals[ts_col];
            if (ts == NULL || ts == Py_None || as_ll(ts) < 0) {
                clear_vals(vals, ntypes);
                goto refuse;
            }
            Py_INCREF(ts);
        } else {
            ts = Py_NewRef(PyList_GET_ITEM(timestamps, i));
        }
        PyObject *b = PyTuple_New(ntypes + 3 + nk);
        if (b == NULL) {
            Py_DECREF(ts);
            clear_vals(vals, ntypes);
            goto error;
        }
        for (Py_ssize_t j = 0; j < ntypes; j++) {
            PyObject *x = vals[j];
            vals[j] = NULL;
            if (x == NULL || !read[j]) {
                Py_XDECREF(x);
                x = Py_NewRef(Py_None);
            }
            PyTuple_SET_ITEM(b, j, x);
        }
        PyList_SET_ITEM(tss, i - lo, Py_NewRef(ts));
        PyTuple_SET_ITEM(b, ntypes, ts);
        PyTuple_SET_ITEM(b, ntypes + 1, Py_NewRef(partition));
        PyTuple_SET_ITEM(b, ntypes + 2, Py_NewRef(PyList_GET_ITEM(offsets, i)));
        int atomic = 1;
        for (Py_ssize_t j = 0; j < nk; j++) {
            PyObject *x = PyTuple_GET_ITEM(key, j);
            atomic &= is_atomic(x);
            PyTuple_SET_ITEM(b, ntypes + 3 + j, Py_NewRef(x));
        }
        /* a block of atomic values only (every value column is; the keys mostly): untracked by the cyclic GC
         * now, as CPython's collector would untrack it at its first scan - the young collections after a
         * batch no longer scan each block once */
        if (atomic && is_atomic(ts) && is_atomic(partition) && is_atomic(PyTuple_GET_ITEM(b, ntypes + 2)))
            PyObject_GC_UnTrack(b);
        PyList_SET_ITEM(out, i - lo, b);
    }
    PyObject *r = PyTuple_Pack(2, out, tss);
    Py_DECREF(out);
    Py_DECREF(tss);
    return r;
refuse:
    Py_XDECREF(out);
    Py_XDECREF(tss);
    Py_RETURN_NONE;
error:
    Py_XDECREF(out);
    Py_XDECREF(tss);
    return NULL;
}

static PyMethodDef methods[] = {
    {"blocks", blocks, METH_VARARGS, "A batch of JSON objects into join blocks, or None (json_blocks.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_jsonblocks", NULL, -1, methods};

PyMODINIT_FUNC PyInit__jsonblocks(void) { return PyModule_Create(&module); }
