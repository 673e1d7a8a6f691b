/* The C scans of parse/fastscan.py: the bulk path's fast lane (rows_summary) and the byte
   pass's marks of a block (block_marks: its newlines, usage lines and banners, without the GIL).

   The fast lane: is every line of a block a serving row in its plainest form?

   parse/bulk.py splits a block of lines with one joined regex, a list entry per row group.
   For a block in which every line is a batch or access row as SGLang and uvicorn print them
   (the serving middle of a long run), `rows_summary` answers at C speed what folding those
   rows into a run needs -- how many, the first and last header time, whether the times are in
   order, which alternatives occur and which one comes last -- without an object per line.

   It accepts a strict subset of what the regex accepts, each accepted line with the same
   alternative and the same time text; any other line makes it return None, and the block goes
   through the regex as before. tests/test_rowscan.py checks the subset property against the
   regex itself, on generated lines and on every fixture log. Only blocks the regex reads in
   its fast layout are passed (ASCII without CR, ESC or NUL: parse/bulk.py checks), where
   the rest of a row's line is not looked at.

   The grammar (bytes, ASCII):
     line    := [outer] "[" time ranks "] " message
     outer   := D4 "-" D2 "-" D2 ("T"|" ") D2 ":" D2 ":" D2 [("."|",") D{1,9}] ["Z"] " "
     time    := valid date " " hh:mm:ss ["." D{1,6}]        -- the time text returned
     ranks   := (" " [A-Z] [A-Z_]{0,15} ["-"] D{1,6})*
     message := PREFIX ("," | ".") rest                      -- a batch alternative
              | "INFO:" WS{1,10} D client{0,99} ' - "' [A-Z]{1,10} " " S{1,4096}
                " HTTP/" [0-9.]{1,5} '" ' D3 rest            -- the access alternative
*/
/* The stable ABI (abi3) of CPython 3.10: one built module serves every CPython from 3.10 on,
   so one wheel per platform (pyproject.toml tags it cp310-abi3). Only bytes are read: their
   storage is immutable while the GIL is released (the limited API of 3.10 has no buffers). */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>

#define MAX_BATCH 8

/* A bytes object's storage (the Py_buffer of the full API, for bytes only). */
typedef struct {
    const char *buf;
    Py_ssize_t len;
} View;

static int view_of(PyObject *data, View *view) {
    char *buf;
    if (PyBytes_AsStringAndSize(data, &buf, &view->len) < 0) return 0;
    view->buf = buf;
    return 1;
}

/* A part of a line: [at, to). */
typedef struct {
    const unsigned char *at, *to;
} Span;

/* The access line's groups: client, method, path, http, status. */
#define ACCESS_GROUPS 5

typedef struct {
    const char *text;
    Py_ssize_t len;
    int alt;
} Batch;

typedef struct {
    Batch batch[MAX_BATCH];
    int n_batch;
    int access_alt; /* -1: no access alternative */
} Table;

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }

/* n digits at p (p + n <= end) */
static int digits(const unsigned char *p, const unsigned char *end, int n) {
    if (end - p < n) return 0;
    for (int i = 0; i < n; i++)
        if (!is_digit(p[i])) return 0;
    return 1;
}

static int num2(const unsigned char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }

/* The outer (wrapper's) time and its space; NULL when the line has none that fits. */
static const unsigned char *outer_time(const unsigned char *p, const unsigned char *end) {
    if (!digits(p, end, 4) || end - p < 19) return NULL;
    if (p[4] != '-' || !digits(p + 5, end, 2) || p[7] != '-' || !digits(p + 8, end, 2))
        return NULL;
    if ((p[10] != 'T' && p[10] != ' ') || !digits(p + 11, end, 2) || p[13] != ':') return NULL;
    if (!digits(p + 14, end, 2) || p[16] != ':' || !digits(p + 17, end, 2)) return NULL;
    p += 19;
    if (p < end && (*p == '.' || *p == ',')) {
        const unsigned char *q = p + 1;
        int n = 0;
        while (q < end && n < 9 && is_digit(*q)) q++, n++;
        if (n == 0) return NULL;
        p = q;
    }
    if (p < end && *p == 'Z') p++;
    if (p >= end || *p != ' ') return NULL;
    return p + 1;
}

static int valid_date(const unsigned char *p) {
    int year = num2(p) * 100 + num2(p + 2), month = num2(p + 5), day = num2(p + 8);
    if (year == 1900 || year == 0 || month < 1 || month > 12 || day < 1) return 0;
    if (day <= 28) return 1;
    if (month == 2) {
        int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        return day == 29 && leap;
    }
    if (day <= 30) return 1;
    return day == 31 && (month == 1 || month == 3 || month == 5 || month == 7 || month == 8 ||
                         month == 10 || month == 12);
}

/* The header time after "[": its end, or NULL. */
static const unsigned char *header_time(const unsigned char *p, const unsigned char *end) {
    if (end - p < 19 || !digits(p, end, 4) || p[4] != '-' || !digits(p + 5, end, 2)) return NULL;
    if (p[7] != '-' || !digits(p + 8, end, 2) || p[10] != ' ' || !digits(p + 11, end, 2))
        return NULL;
    if (p[13] != ':' || !digits(p + 14, end, 2) || p[16] != ':' || !digits(p + 17, end, 2))
        return NULL;
    if (!valid_date(p) || num2(p + 11) > 23 || num2(p + 14) > 59 || num2(p + 17) > 59)
        return NULL;
    const unsigned char *q = p + 19;
    if (q < end && *q == '.') {
        const unsigned char *r = q + 1;
        int n = 0;
        while (r < end && n < 6 && is_digit(*r)) r++, n++;
        if (n == 0) return NULL;
        q = r;
    }
    return q;
}

/* " TP0 DP1 ..." then "] ": the message start, or NULL. */
static const unsigned char *ranks_close(const unsigned char *p, const unsigned char *end) {
    while (p < end && *p == ' ') {
        const unsigned char *q = p + 1;
        if (q >= end || !is_upper(*q)) return NULL;
        q++;
        int n = 0;
        while (q < end && n < 15 && (is_upper(*q) || *q == '_')) q++, n++;
        if (q < end && *q == '-') q++;
        n = 0;
        while (q < end && n < 6 && is_digit(*q)) q++, n++;
        if (n == 0) return NULL;
        p = q;
    }
    if (end - p < 2 || p[0] != ']' || p[1] != ' ') return NULL;
    return p + 2;
}

static int client_char(unsigned char c) {
    return is_digit(c) || is_upper(c) || (c >= 'a' && c <= 'z') || c == '_' || c == '.' ||
           c == ':' || c == '[' || c == ']' || c == '%' || c == '-';
}

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The access line after "INFO:" (see the grammar): where its status code ends, or NULL; the
   spans of its groups (client, method, path, http, status: the regex's) into span. */
static const unsigned char *access_line(const unsigned char *p, const unsigned char *end,
                                        Span *span) {
    int n = 0;
    while (p < end && n < 10 && (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f')) p++, n++;
    if (n == 0 || p >= end || !is_digit(*p)) return NULL;
    span[0].at = p;
    n = 0;
    while (p < end && n < 100 && client_char(*p)) p++, n++;
    span[0].to = p;
    if (end - p < 4 || memcmp(p, " - \"", 4) != 0) return NULL;
    p += 4;
    span[1].at = p;
    n = 0;
    while (p < end && n < 10 && is_upper(*p)) p++, n++;
    span[1].to = p;
    if (n == 0 || p >= end || *p != ' ') return NULL;
    span[2].at = ++p;
    n = 0;
    while (p < end && n < 4096 && !is_space(*p)) p++, n++;
    span[2].to = p;
    if (n == 0 || end - p < 6 || memcmp(p, " HTTP/", 6) != 0) return NULL;
    span[3].at = p += 6;
    n = 0;
    while (p < end && n < 5 && (is_digit(*p) || *p == '.')) p++, n++;
    span[3].to = p;
    if (n == 0 || end - p < 5 || p[0] != '"' || p[1] != ' ') return NULL;
    span[4] = (Span){p + 2, p + 5};
    return digits(p + 2, end, 3) ? p + 5 : NULL;
}

/* One row's parts as the regex's groups take them: the header time, the ranks (between the
   time and "]"), the rest of the line after the alternative's own text, and its end; where
   its message starts (after "] ", or at the access line's client) and an access line's
   groups. */
typedef struct {
    const unsigned char *ts, *ranks, *rest, *end, *msg;
    Py_ssize_t ts_len, ranks_len;
    int alt;
    Span groups[ACCESS_GROUPS];
} Row;

/* The alternative of one line (in row->alt, also returned), or -1. */
static int classify(const Table *t, const unsigned char *p, const unsigned char *end, Row *row) {
    if (p < end && is_digit(*p)) {
        p = outer_time(p, end);
        if (p == NULL) return -1;
    }
    if (p >= end || *p != '[') return -1;
    const unsigned char *time = p + 1, *after = header_time(time, end);
    if (after == NULL) return -1;
    const unsigned char *msg = ranks_close(after, end);
    if (msg == NULL) return -1;
    row->ts = time;
    row->ranks = after;
    row->rest = NULL;
    row->end = end;
    row->msg = msg;
    row->ts_len = after - time;
    row->ranks_len = msg - 2 - after;
    row->alt = -1;
    for (int i = 0; i < t->n_batch; i++) {
        const Batch *b = &t->batch[i];
        if (end - msg > b->len && memcmp(msg, b->text, (size_t)b->len) == 0) {
            unsigned char c = msg[b->len];
            if (c != ',' && c != '.') return -1;
            row->rest = msg + b->len + 1;
            return row->alt = b->alt;
        }
    }
    if (t->access_alt >= 0 && end - msg >= 5 && memcmp(msg, "INFO:", 5) == 0) {
        row->rest = access_line(msg + 5, end, row->groups);
        if (row->rest == NULL) return -1;
        row->msg = row->groups[0].at;
        return row->alt = t->access_alt;
    }
    return -1;
}

static int compare(const unsigned char *a, Py_ssize_t la, const unsigned char *b,
                   Py_ssize_t lb) {
    int c = memcmp(a, b, (size_t)(la < lb ? la : lb));
    return c != 0 ? c : (la > lb) - (la < lb);
}

static int read_table(PyObject *batch, int access_alt, Table *t) {
    if (!PyTuple_Check(batch) || PyTuple_Size(batch) > MAX_BATCH) {
        PyErr_SetString(PyExc_ValueError, "batch: a tuple of at most 8 (prefix, alt) pairs");
        return 0;
    }
    t->n_batch = (int)PyTuple_Size(batch);
    t->access_alt = access_alt;
    for (int i = 0; i < t->n_batch; i++) {
        PyObject *pair = PyTuple_GetItem(batch, i);
        char *text;
        Py_ssize_t len;
        int alt;
        PyObject *prefix;
        /* no '#' format (here or in Py_BuildValue): a module built with 3.13's headers, which
           no longer map them to the _SizeT calls, then works on 3.10 too (one abi3 module) */
        if (!PyArg_ParseTuple(pair, "O!i", &PyBytes_Type, &prefix, &alt)) return 0;
        if (PyBytes_AsStringAndSize(prefix, &text, &len) < 0) return 0;
        if (len < 1 || alt < 0 || alt > 30) {
            PyErr_SetString(PyExc_ValueError, "batch: a non-empty prefix, alt 0-30");
            return 0;
        }
        t->batch[i] = (Batch){text, len, alt};
    }
    if (access_alt < -1 || access_alt > 30) {
        PyErr_SetString(PyExc_ValueError, "access_alt: -1 or 0-30");
        return 0;
    }
    return 1;
}

typedef struct {
    Py_ssize_t rows;
    const unsigned char *first, *last;
    Py_ssize_t first_len, last_len;
    long mask;
    int last_alt, ordered;
} Summary;

/* Every line of data[0:n] (lines joined by \n, no last newline); 0 at the first misfit. */
static int scan(const Table *t, const unsigned char *data, Py_ssize_t n, Summary *s) {
    const unsigned char *p = data, *end = data + n;
    *s = (Summary){0, NULL, NULL, 0, 0, 0, -1, 1};
    while (1) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *stop = nl ? nl : end;
        Row row;
        int alt = classify(t, p, stop, &row);
        if (alt < 0) return 0;
        const unsigned char *ts = row.ts;
        Py_ssize_t ts_len = row.ts_len;
        if (s->rows == 0) {
            s->first = ts;
            s->first_len = ts_len;
        } else if (s->ordered && compare(s->last, s->last_len, ts, ts_len) > 0) {
            s->ordered = 0;
        }
        s->last = ts;
        s->last_len = ts_len;
        s->mask |= 1L << alt;
        s->last_alt = alt;
        s->rows++;
        if (nl == NULL) return 1;
        p = nl + 1;
    }
}

PyDoc_STRVAR(rows_summary_doc,
             "rows_summary(data, batch, access_alt)\n--\n\n"
             "For a block in which every line is a serving row in its plainest form:\n"
             "(rows, first_time, last_time, in_order, alternatives_mask, last_alternative);\n"
             "None as soon as one line is not. ``batch``: (prefix, alternative) pairs.");

static PyObject *rows_summary(PyObject *self, PyObject *args) {
    View view;
    PyObject *data;
    PyObject *batch;
    int access_alt;
    Table t;
    Summary s;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!i", &PyBytes_Type, &data, &PyTuple_Type, &batch, &access_alt) ||
        !view_of(data, &view))
        return NULL;
    if (!read_table(batch, access_alt, &t)) {
        return NULL;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = view.len > 0 && scan(&t, (const unsigned char *)view.buf, view.len, &s);
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (!ok) {
        out = Py_None;
        Py_INCREF(out);
    } else {
        PyObject *first = PyBytes_FromStringAndSize((const char *)s.first, s.first_len);
        PyObject *last = PyBytes_FromStringAndSize((const char *)s.last, s.last_len);
        if (first != NULL && last != NULL)
            out = Py_BuildValue("(nOOOli)", s.rows, first, last, s.ordered ? Py_True : Py_False,
                                s.mask, s.last_alt);
        Py_XDECREF(first);
        Py_XDECREF(last);
    }
    return out;
}

typedef struct {
    Py_ssize_t *at;
    Py_ssize_t n, cap;
} Offsets;

/* Needs no GIL (the C heap); 0 when out of memory. */
static int push(Offsets *o, Py_ssize_t offset) {
    if (o->n == o->cap) {
        Py_ssize_t cap = o->cap ? 2 * o->cap : 16;
        Py_ssize_t *at = realloc(o->at, (size_t)cap * sizeof(Py_ssize_t));
        if (at == NULL) return 0;
        o->at = at;
        o->cap = cap;
    }
    o->at[o->n++] = offset;
    return 1;
}

/* Lines starting "usage: " (offsets of their starts, after a newline) and the newlines from
   skip on; banners by their '=' (rare in serving lines: memchr runs at memory speed). Runs
   without the GIL; 0 when out of memory. */
static int marks(const unsigned char *p, Py_ssize_t n, Py_ssize_t skip, Py_ssize_t *newlines,
                 Offsets *usage, Offsets *banners) {
    const unsigned char *end = p + n, *at = p;
    Py_ssize_t count = 0;
    while ((at = memchr(at, '\n', (size_t)(end - at))) != NULL) {
        if (at - p >= skip) count++;
        if (end - at > 7 && at[1] == 'u' && memcmp(at + 1, "usage: ", 7) == 0 &&
            !push(usage, at + 1 - p))
            return 0;
        at++;
    }
    *newlines = count;
    for (at = p; (at = memchr(at, '=', (size_t)(end - at))) != NULL; at++) {
        if (at - p >= 11 && memcmp(at - 11, "server_args", 11) == 0 && !push(banners, at - 11 - p))
            return 0;
    }
    return 1;
}

static PyObject *offset_list(const Offsets *o) {
    PyObject *list = PyList_New(o->n);
    for (Py_ssize_t i = 0; list != NULL && i < o->n; i++) {
        PyObject *value = PyLong_FromSsize_t(o->at[i]);
        if (value == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, i, value);  /* steals; cannot fail here */
    }
    return list;
}

PyDoc_STRVAR(block_marks_doc,
             "block_marks(data, skip)\n--\n\n"
             "What the byte pass over a big log needs of one block: (newlines in data[skip:],\n"
             "offsets just after each b'\\nusage: ' newline, offsets of each b'server_args=').");

static PyObject *block_marks(PyObject *self, PyObject *args) {
    View view;
    PyObject *data;
    Py_ssize_t skip, newlines = 0;
    Offsets usage = {NULL, 0, 0}, banners = {NULL, 0, 0};
    (void)self;
    if (!PyArg_ParseTuple(args, "O!n", &PyBytes_Type, &data, &skip) || !view_of(data, &view))
        return NULL;
    if (skip < 0 || skip > view.len) {
        PyErr_SetString(PyExc_ValueError, "skip: 0 to len(data)");
        return NULL;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = marks((const unsigned char *)view.buf, view.len, skip, &newlines, &usage, &banners);
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (!ok) {
        PyErr_NoMemory();
    } else {
        PyObject *u = offset_list(&usage), *b = offset_list(&banners);
        if (u != NULL && b != NULL) out = Py_BuildValue("(nOO)", newlines, u, b);
        Py_XDECREF(u);
        Py_XDECREF(b);
    }
    free(usage.at);
    free(banners.at);
    return out;
}

/* Every line of data[0:n] classified into rows (a malloc array, *count of them); NULL with
   *count 0 at the first misfit, NULL with *count -1 when out of memory. No GIL needed. */
static Row *rows_of(const Table *t, const unsigned char *data, Py_ssize_t n, Py_ssize_t *count) {
    const unsigned char *p = data, *end = data + n;
    Py_ssize_t size = 0, cap = 0;
    Row *rows = NULL;
    *count = 0;
    while (n > 0) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        if (size == cap) {
            Py_ssize_t more = cap ? 2 * cap : 256;
            Row *grown = realloc(rows, (size_t)more * sizeof(Row));
            if (grown == NULL) {
                free(rows);
                *count = -1;
                return NULL;
            }
            rows = grown;
            cap = more;
        }
        if (classify(t, p, nl ? nl : end, &rows[size]) < 0) {
            free(rows);
            return NULL;
        }
        size++;
        if (nl == NULL) break;
        p = nl + 1;
    }
    *count = size;
    return rows;
}

/* The series layout's columns of the rows, in lists: time, ranks, each alternative's witness
   (b"" where the row is of it, else None), rest. */
static PyObject *columns_of(const Row *rows, Py_ssize_t count, int alts) {
    PyObject *ts = PyList_New(count), *ranks = PyList_New(count), *rest = PyList_New(count);
    PyObject *witness = PyTuple_New(alts), *empty = PyBytes_FromStringAndSize(NULL, 0);
    PyObject *out = NULL;
    if (!ts || !ranks || !rest || !witness || !empty) goto done;
    for (int a = 0; a < alts; a++) {
        PyObject *column = PyList_New(count);
        if (column == NULL) goto done;
        PyTuple_SetItem(witness, a, column);
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const Row *r = &rows[i];
        PyObject *t = PyBytes_FromStringAndSize((const char *)r->ts, r->ts_len);
        PyObject *k = PyBytes_FromStringAndSize((const char *)r->ranks, r->ranks_len);
        PyObject *e = PyBytes_FromStringAndSize((const char *)r->rest, r->end - r->rest);
        if (!t || !k || !e) {
            Py_XDECREF(t);
            Py_XDECREF(k);
            Py_XDECREF(e);
            goto done;
        }
        PyList_SetItem(ts, i, t);
        PyList_SetItem(ranks, i, k);
        PyList_SetItem(rest, i, e);
        for (int a = 0; a < alts; a++) {
            PyObject *mark = a == r->alt ? empty : Py_None;
            Py_INCREF(mark);
            PyList_SetItem(PyTuple_GetItem(witness, a), i, mark);
        }
    }
    out = Py_BuildValue("(OOOO)", ts, ranks, witness, rest);
done:
    Py_XDECREF(ts);
    Py_XDECREF(ranks);
    Py_XDECREF(rest);
    Py_XDECREF(witness);
    Py_XDECREF(empty);
    return out;
}

PyDoc_STRVAR(series_columns_doc,
             "series_columns(data, batch, access_alt, alternatives)\n--\n\n"
             "For a block in which every line is a serving row in its plainest form: the\n"
             "series layout's columns (times, ranks, a witness list per alternative, rests),\n"
             "as the regex's split gives them; None as soon as one line is not.");

static PyObject *series_columns(PyObject *self, PyObject *args) {
    View view;
    PyObject *data;
    PyObject *batch;
    int access_alt, alts;
    Table t;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!ii", &PyBytes_Type, &data, &PyTuple_Type, &batch, &access_alt,
                          &alts) ||
        !view_of(data, &view))
        return NULL;
    if (!read_table(batch, access_alt, &t) || alts < 1 || alts > 31 ||
        t.access_alt >= alts) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "alternatives: 1-31, above each");
        return NULL;
    }
    for (int i = 0; i < t.n_batch; i++) {
        if (t.batch[i].alt >= alts) {
            PyErr_SetString(PyExc_ValueError, "alternatives: 1-31, above each");
            return NULL;
        }
    }
    Py_ssize_t count;
    Row *rows;
    Py_BEGIN_ALLOW_THREADS
    rows = rows_of(&t, (const unsigned char *)view.buf, view.len, &count);
    Py_END_ALLOW_THREADS
    PyObject *out;
    if (rows == NULL) {
        out = count < 0 ? PyErr_NoMemory() : Py_NewRef(Py_None);
    } else {
        out = columns_of(rows, count, alts);
    }
    free(rows);
    return out;
}

/* The report's decode values (log/series.py): a line shape is its literal parts with numbers
   between them; shape_values reads, for each line of a block, whether it is of the shape and
   the numbers it picks, as the shape's regex would:
     ^LIT0 NUM LIT1 NUM ... LITk$      NUM := [0-9]{1,18}+(?:\.[0-9]{1,12}+)?+
   (possessive: nothing is given back, so one pass decides). Each picked number is converted
   as float() converts it (PyOS_string_to_double). */
#define MAX_SHAPE_NUMBERS 64

/* The end of NUM at p, NULL if none starts there. */
static const unsigned char *number_end(const unsigned char *p, const unsigned char *end) {
    const unsigned char *q = p;
    while (q < end && q - p < 18 && is_digit(*q)) q++;
    if (q == p) return NULL;
    if (end - q >= 2 && *q == '.' && is_digit(q[1])) {
        const unsigned char *f = q + 1;
        while (f < end && f - (q + 1) < 12 && is_digit(*f)) f++;
        q = f;
    }
    return q;
}

/* Whether the line [p, end) is of the shape; each number's span into at/to. */
static int of_shape(const unsigned char *p, const unsigned char *end, const View *lits, int numbers,
                    const unsigned char **at, const unsigned char **to) {
    for (int i = 0;; i++) {
        Py_ssize_t n = lits[i].len;
        if (end - p < n || memcmp(p, lits[i].buf, (size_t)n) != 0) return 0;
        p += n;
        if (i == numbers) return p == end;
        const unsigned char *q = number_end(p, end);
        if (q == NULL) return 0;
        at[i] = p;
        to[i] = q;
        p = q;
    }
}

PyDoc_STRVAR(shape_values_doc,
             "shape_values(texts, literals, picks)\n--\n\n"
             "For each line of texts (a list of bytes): whether it is the literals with a\n"
             "number between each two (b'\\x01' per line of the shape, b'\\x00' otherwise), and\n"
             "the numbers at picks of each line of it, as float64 bytes (len(picks) a line).");

/* A shape's literals (1 to 65 bytes objects) and picks (number indices) into lits and pick;
   0 with an exception set when they are not. */
static int read_shape(PyObject *literals, PyObject *picks, View *lits, int *pick, int *numbers,
                      Py_ssize_t *n_picks) {
    Py_ssize_t n_lits = PyTuple_Size(literals);
    *n_picks = PyTuple_Size(picks);
    if (n_lits < 1 || n_lits > MAX_SHAPE_NUMBERS + 1 || *n_picks > n_lits - 1) {
        PyErr_SetString(PyExc_ValueError, "literals: 1-65; picks: at most one a number");
        return 0;
    }
    *numbers = (int)n_lits - 1;
    for (Py_ssize_t i = 0; i < n_lits; i++) {
        PyObject *lit = PyTuple_GetItem(literals, i);
        if (!PyBytes_Check(lit) || !view_of(lit, &lits[i])) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "literals: bytes");
            return 0;
        }
    }
    for (Py_ssize_t i = 0; i < *n_picks; i++) {
        long k = PyLong_AsLong(PyTuple_GetItem(picks, i));
        if (k == -1 && PyErr_Occurred()) return 0;
        if (k < 0 || k >= *numbers) {
            PyErr_SetString(PyExc_ValueError, "picks: number indices of the shape");
            return 0;
        }
        pick[i] = (int)k;
    }
    return 1;
}

/* NUM's value where the fast path is exact: at most 15 digits in all (the mantissa below
   2^53, so exact), divided by an exact power of ten (at most 12 decimals): one correctly
   rounded division, the correctly rounded value float() gives. -1 where it does not apply. */
static double exact_value(const unsigned char *p, const unsigned char *end) {
    static const double tens[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
                                  1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    int64_t m = 0;
    int n = 0, decimals = -1;
    for (; p < end; p++) {
        if (*p == '.') {
            decimals = 0;
            continue;
        }
        if (++n > 15) return -1.0;
        m = m * 10 + (*p - '0');
        if (decimals >= 0) decimals++;
    }
    return decimals > 0 ? (double)m / tens[decimals] : (double)m;
}

/* The picked numbers of a line of the shape into out, as float() reads them; 0 on error. */
static int picked_values(const unsigned char **at, const unsigned char **to, const int *pick,
                         Py_ssize_t n_picks, double *out) {
    for (Py_ssize_t i = 0; i < n_picks; i++) {
        double fast = exact_value(at[pick[i]], to[pick[i]]);
        if (fast >= 0.0) {
            out[i] = fast;
            continue;
        }
        char digits[40]; /* at most 18 + 1 + 12 characters */
        size_t n = (size_t)(to[pick[i]] - at[pick[i]]);
        memcpy(digits, at[pick[i]], n);
        digits[n] = '\0';
        double v = PyOS_string_to_double(digits, NULL, NULL);
        if (v == -1.0 && PyErr_Occurred()) return 0;
        out[i] = v;
    }
    return 1;
}

static PyObject *shape_values(PyObject *self, PyObject *args) {
    PyObject *texts, *literals, *picks;
    View lits[MAX_SHAPE_NUMBERS + 1];
    int pick[MAX_SHAPE_NUMBERS], numbers;
    Py_ssize_t n_picks;
    const unsigned char *at[MAX_SHAPE_NUMBERS], *to[MAX_SHAPE_NUMBERS];
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &texts, &PyTuple_Type, &literals,
                          &PyTuple_Type, &picks) ||
        !read_shape(literals, picks, lits, pick, &numbers, &n_picks))
        return NULL;
    Py_ssize_t count = PyList_Size(texts), hits = 0;
    PyObject *flags = PyBytes_FromStringAndSize(NULL, count);
    double *values = malloc(sizeof(double) * (size_t)(count * n_picks + 1));
    if (flags == NULL || values == NULL) {
        Py_XDECREF(flags);
        free(values);
        return PyErr_NoMemory();
    }
    char *flag = PyBytes_AsString(flags);
    for (Py_ssize_t j = 0; j < count; j++) {
        View line;
        PyObject *text = PyList_GetItem(texts, j);
        if (!PyBytes_Check(text) || !view_of(text, &line)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "texts: a list of bytes");
            goto fail;
        }
        const unsigned char *p = (const unsigned char *)line.buf;
        flag[j] = (char)of_shape(p, p + line.len, lits, numbers, at, to);
        if (!flag[j]) continue;
        if (!picked_values(at, to, pick, n_picks, values + hits * n_picks)) goto fail;
        hits++;
    }
    PyObject *column = PyBytes_FromStringAndSize((const char *)values,
                                                 (Py_ssize_t)sizeof(double) * hits * n_picks);
    free(values);
    if (column == NULL) {
        Py_DECREF(flags);
        return NULL;
    }
    PyObject *out = Py_BuildValue("(OO)", flags, column);
    Py_DECREF(flags);
    Py_DECREF(column);
    return out;
fail:
    Py_DECREF(flags);
    free(values);
    return NULL;
}

#define MAX_RANK_LABELS 256

PyDoc_STRVAR(decode_values_doc,
             "decode_values(data, batch, access_alt, alt, literals, picks)\n--\n\n"
             "For a block in which every line is a serving row in its plainest form, its rows of\n"
             "alternative alt: (minutes: 16 bytes each, the time cut to its minute; rank labels\n"
             "in the order first seen; each row's label index as int32 bytes; b'\\x01' per row\n"
             "of the shape (literals: none for no shape), b'\\x00' otherwise; the numbers at\n"
             "picks of each row of it as float64 bytes; the rest of line of each other row).\n"
             "None as soon as one line is not a plain row, or the rows carry over 256 labels.");

static PyObject *decode_values(PyObject *self, PyObject *args) {
    View view, lits[MAX_SHAPE_NUMBERS + 1], labels[MAX_RANK_LABELS];
    PyObject *data, *batch, *literals, *picks;
    int access_alt, alt, pick[MAX_SHAPE_NUMBERS], numbers = -1, n_labels = 0;
    Py_ssize_t n_picks = 0, count, m = 0, hits = 0;
    const unsigned char *at[MAX_SHAPE_NUMBERS], *to[MAX_SHAPE_NUMBERS];
    Table t;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!iiO!O!", &PyBytes_Type, &data, &PyTuple_Type, &batch,
                          &access_alt, &alt, &PyTuple_Type, &literals, &PyTuple_Type, &picks) ||
        !view_of(data, &view) || !read_table(batch, access_alt, &t))
        return NULL;
    if (PyTuple_Size(literals) > 0 &&
        !read_shape(literals, picks, lits, pick, &numbers, &n_picks))
        return NULL;
    Row *rows;
    Py_BEGIN_ALLOW_THREADS
    rows = rows_of(&t, (const unsigned char *)view.buf, view.len, &count);
    Py_END_ALLOW_THREADS
    if (rows == NULL) return count < 0 ? PyErr_NoMemory() : Py_NewRef(Py_None);
    for (Py_ssize_t i = 0; i < count; i++) m += rows[i].alt == alt;
    PyObject *minutes = PyBytes_FromStringAndSize(NULL, 16 * m);
    PyObject *index = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * m);
    PyObject *flags = PyBytes_FromStringAndSize(NULL, m), *misses = PyList_New(0);
    double *values = malloc(sizeof(double) * (size_t)(m * n_picks + 1));
    PyObject *out = NULL, *names = NULL, *column = NULL;
    if (!minutes || !index || !flags || !misses || !values) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    char *minute = PyBytes_AsString(minutes), *flag = PyBytes_AsString(flags);
    char *label = PyBytes_AsString(index);
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        const Row *r = &rows[i];
        if (r->alt != alt) continue;
        Py_ssize_t n = r->ts_len < 16 ? r->ts_len : 16;
        memset(minute + 16 * k, 0, 16);
        memcpy(minute + 16 * k, r->ts, (size_t)n);
        int found = 0;
        while (found < n_labels && (labels[found].len != r->ranks_len ||
                                    memcmp(labels[found].buf, r->ranks, (size_t)r->ranks_len)))
            found++;
        if (found == n_labels) {
            if (n_labels == MAX_RANK_LABELS) {
                out = Py_NewRef(Py_None);
                goto done;
            }
            labels[n_labels].buf = (const char *)r->ranks;
            labels[n_labels++].len = r->ranks_len;
        }
        int32_t which = found;
        memcpy(label + sizeof(int32_t) * k, &which, sizeof(int32_t));
        flag[k] = (char)(numbers >= 0 && of_shape(r->rest, r->end, lits, numbers, at, to));
        if (flag[k]) {
            if (!picked_values(at, to, pick, n_picks, values + hits * n_picks)) goto done;
            hits++;
        } else {
            PyObject *rest = PyBytes_FromStringAndSize((const char *)r->rest, r->end - r->rest);
            int failed = rest == NULL || PyList_Append(misses, rest) < 0;
            Py_XDECREF(rest);
            if (failed) goto done;
        }
        k++;
    }
    names = PyList_New(n_labels);
    column = PyBytes_FromStringAndSize((const char *)values,
                                       (Py_ssize_t)sizeof(double) * hits * n_picks);
    if (names == NULL || column == NULL) goto done;
    for (int i = 0; i < n_labels; i++) {
        PyObject *name = PyBytes_FromStringAndSize(labels[i].buf, labels[i].len);
        if (name == NULL) goto done;
        PyList_SetItem(names, i, name);
    }
    out = Py_BuildValue("(OOOOOO)", minutes, names, index, flags, column, misses);
done:
    Py_XDECREF(minutes);
    Py_XDECREF(index);
    Py_XDECREF(flags);
    Py_XDECREF(misses);
    Py_XDECREF(names);
    Py_XDECREF(column);
    free(values);
    free(rows);
    return out;
}

#include "_rowjson.h"

static PyMethodDef methods[] = {
    {"json_lines", json_lines, METH_VARARGS, json_lines_doc},
    {"series_columns", series_columns, METH_VARARGS, series_columns_doc},
    {"rows_summary", rows_summary, METH_VARARGS, rows_summary_doc},
    {"block_marks", block_marks, METH_VARARGS, block_marks_doc},
    {"shape_values", shape_values, METH_VARARGS, shape_values_doc},
    {"decode_values", decode_values, METH_VARARGS, decode_values_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_rowscan",
    .m_doc = "The bulk path's fast lane and the byte pass's marks (see _rowscan.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__rowscan(void) { return PyModule_Create(&module); }
