/* Shared by ksqlpy's C extensions (log/_framing.c, runtime/_ssjoin.c, serde/_jsonblocks.c): include after
 * Python.h. setup.py puts this directory on each extension's include path and lists the header in its
 * depends (a change rebuilds all three); MANIFEST.in ships it in the sdist. */
#ifndef KSQLPY_LONG_H
#define KSQLPY_LONG_H

/* PyLong_AsLongLong's result and errors by PyLong_AsLongLongAndOverflow: CPython 3.11's PyLong_AsLongLong
 * takes every int of two or more digits (every epoch-millisecond timestamp) through _PyLong_AsByteArray,
 * ~190 instructions a call, where the overflow variant folds the digits in a short loop */
static inline long long as_ll(PyObject *v) {
    int overflow = 0;
    long long r = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "int too big to convert");
        return -1;
    }
    return r;
}

#endif
