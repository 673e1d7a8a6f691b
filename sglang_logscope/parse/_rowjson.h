/* json_lines: `logscope events -f jsonl` of a block of plain serving rows, written here
   (parse/bulk_json.py), included by _rowscan.c (one module, one abi3 build).

   The Python writer lays out each *shape* of a spec's rows once -- the row's JSON line as
   literal text and slots -- and checks it on the shape's first row against the reference
   (Event.to_dict through to_json). It hands those checked plans here; a row is written from
   the plan of the first shape it fits, and a row that fits none (or holds a byte outside
   ASCII) is a *miss*: the caller writes it the reference way. So a row
   written here is written as the reference writes it, or not at all.

   A plan, per alternative: None (its rows are not asked for: skipped) or shapes, each
     (literals, points, pieces)
   literals: the rest of the line (after the batch prefix and its "," or ".") around its
   value numbers: literal NUM literal ... NUM literal (an access shape has none: any row of
   the alternative fits); points: a byte per number, 1 where it has a point (the float slot
   of shapes.JSON_SLOTS), 0 for an int; pieces: bytes written as they are, or a slot --
     >= 0   that value number's JSON text (its text: an int without a leading zero; a
            float's without the trailing zeros repr drops: the slots' own rules below)
     -1     the line number         -2  the header time as datetime.isoformat(sep) writes it
     -3     the ranks' JSON (ranks[text], bytes: a mapping the caller fills on demand)
     -4     the message as a JSON string (json.dumps, ensure_ascii)
     -10-g  access group g as a JSON string, -20-g as an int (g: client, method, path,
            http, status). */

#define MAX_LANE_SHAPES 16
#define MAX_PLAN_PIECES 400
#define SLOT_LINE (-1)
#define SLOT_TIME (-2)
#define SLOT_RANK (-3)
#define SLOT_MESSAGE (-4)
#define SLOT_GROUP_TEXT (-10)
#define SLOT_GROUP_INT (-20)
#define ROW_MISS (-1)
/* A value number whose text is its JSON: shapes.py's bounds of the same names, one place
   (tests/test_lane_json.py holds these equal to them). */
#define INT_DIGITS 18
#define WHOLE_DIGITS 9
#define KEPT_DIGITS 6
#define SMALL_ZEROS 3
#define SMALL_DIGITS 3
#define TRAILING_ZEROS 12

/* The output: a growing C buffer (lines joined by \n). */
typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} Text;

static int grow(Text *o, Py_ssize_t more) {
    if (o->len + more <= o->cap) return 1;
    Py_ssize_t cap = o->cap ? o->cap : 1 << 16;
    while (cap < o->len + more) cap *= 2;
    char *buf = realloc(o->buf, (size_t)cap);
    if (buf == NULL) return 0;
    o->buf = buf;
    o->cap = cap;
    return 1;
}

static int put(Text *o, const void *p, Py_ssize_t n) {
    if (!grow(o, n)) return 0;
    memcpy(o->buf + o->len, p, (size_t)n);
    o->len += n;
    return 1;
}

/* [p, end) as json.dumps writes a str of it (ensure_ascii): 1, 0 out of memory, ROW_MISS
   for a byte outside ASCII (the caller's reference decodes it). */
static int put_string(Text *o, const unsigned char *p, const unsigned char *end) {
    static const char hex[] = "0123456789abcdef";
    if (!grow(o, 2 + 6 * (end - p))) return 0;
    char *w = o->buf + o->len;
    *w++ = '"';
    for (; p < end; p++) {
        unsigned char c = *p;
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            *w++ = (char)c;
            continue;
        }
        if (c >= 0x80) return ROW_MISS;
        *w++ = '\\';
        switch (c) {
            case '"': *w++ = '"'; break;
            case '\\': *w++ = '\\'; break;
            case '\n': *w++ = 'n'; break;
            case '\r': *w++ = 'r'; break;
            case '\t': *w++ = 't'; break;
            case '\b': *w++ = 'b'; break;
            case '\f': *w++ = 'f'; break;
            default:
                memcpy(w, "u00", 3);
                w[3] = hex[c >> 4];
                w[4] = hex[c & 15];
                w += 5;
        }
    }
    *w++ = '"';
    o->len = w - o->buf;
    return 1;
}

/* A run of digits at p: its end. */
static const unsigned char *digits_end(const unsigned char *p, const unsigned char *end) {
    while (p < end && is_digit(*p)) p++;
    return p;
}

/* The int slot, shapes._PLAIN_INT: (0|[1-9][0-9]{0,INT_DIGITS-1})(?![0-9.]): its end (the
   JSON is the text), or NULL. */
static const unsigned char *int_slot(const unsigned char *p, const unsigned char *end) {
    const unsigned char *q = digits_end(p, end);
    Py_ssize_t n = q - p;
    if (n == 0 || n > INT_DIGITS || (n > 1 && *p == '0') || (q < end && *q == '.')) return NULL;
    return q;
}

/* The float slot, shapes._PLAIN_POINT then 0{0,TRAILING_ZEROS}, before a literal that starts
   with no digit: its end, and the end of its JSON text (the number without the trailing
   zeros repr drops, one kept after the point) in *json; NULL when it does not fit. */
static const unsigned char *float_slot(const unsigned char *p, const unsigned char *end,
                                       const unsigned char **json) {
    const unsigned char *point = digits_end(p, end);
    Py_ssize_t whole = point - p;
    if (whole == 0 || whole > WHOLE_DIGITS || (whole > 1 && *p == '0')) return NULL;
    if (point >= end || *point != '.') return NULL;
    const unsigned char *f = point + 1, *q = digits_end(f, end), *e = q;
    if (q == f) return NULL;
    while (e > f && e[-1] == '0') e--;
    Py_ssize_t kept = e - f, zeros = q - e;
    if (kept == 0) { /* x.0: "0" then at most TRAILING_ZEROS more zeros */
        *json = f + 1;
        return zeros - 1 <= TRAILING_ZEROS ? q : NULL;
    }
    if (zeros > TRAILING_ZEROS) return NULL;
    if (whole == 1 && *p == '0') { /* 0.(0{0,SMALL_ZEROS}(1-SMALL_DIGITS digits, the first not 0)) */
        const unsigned char *s = f;
        while (s < e && *s == '0') s++;
        if (s - f > SMALL_ZEROS || e - s > SMALL_DIGITS) return NULL;
    } else if (kept > KEPT_DIGITS) {
        return NULL;
    }
    *json = e;
    return q;
}

/* One shape of an alternative (see the plan at the top). */
typedef struct {
    View lits[MAX_SHAPE_NUMBERS + 1];
    char points[MAX_SHAPE_NUMBERS];
    int numbers; /* -1: no literals (an access shape) */
    View text[MAX_PLAN_PIECES];
    int slot[MAX_PLAN_PIECES]; /* INT_MIN: text[i] */
    int pieces;
} Shape;

/* Whether the rest [p, end) fits the shape: each number's JSON span into num. */
static int fits(const Shape *s, const unsigned char *p, const unsigned char *end, Span *num) {
    if (s->numbers < 0) return 1;
    for (int i = 0;; i++) {
        Py_ssize_t n = s->lits[i].len;
        if (end - p < n || memcmp(p, s->lits[i].buf, (size_t)n) != 0) return 0;
        p += n;
        if (i == s->numbers) return p == end;
        const unsigned char *json = NULL, *q;
        q = s->points[i] ? float_slot(p, end, &json) : int_slot(p, end);
        if (q == NULL) return 0;
        num[i] = (Span){p, s->points[i] ? json : q};
        p = q;
    }
}

/* The header time's JSON, as datetime.isoformat(sep) writes it (microseconds in six digits,
   none when zero). */
static int put_time(Text *o, const Row *r, char sep) {
    char w[40];
    const unsigned char *t = r->ts;
    int n = 0;
    w[n++] = '"';
    memcpy(w + n, t, 10);
    n += 10;
    w[n++] = sep;
    memcpy(w + n, t + 11, 8);
    n += 8;
    if (r->ts_len > 20) {
        char micro[6] = {'0', '0', '0', '0', '0', '0'};
        memcpy(micro, t + 20, (size_t)(r->ts_len - 20));
        if (memcmp(micro, "000000", 6) != 0) {
            w[n++] = '.';
            memcpy(w + n, micro, 6);
            n += 6;
        }
    }
    w[n++] = '"';
    return put(o, w, n);
}

/* The ranks' JSON: the last one looked up, or ranks[text] (bytes); 0 with an exception. */
typedef struct {
    PyObject *map, *last_json;
    const unsigned char *last;
    Py_ssize_t last_len;
} Ranks;

static int put_rank(Text *o, const Row *r, Ranks *k) {
    if (k->last_json == NULL || k->last_len != r->ranks_len ||
        memcmp(k->last, r->ranks, (size_t)r->ranks_len) != 0) {
        PyObject *key = PyBytes_FromStringAndSize((const char *)r->ranks, r->ranks_len);
        PyObject *json = key ? PyObject_GetItem(k->map, key) : NULL;
        Py_XDECREF(key);
        if (json == NULL) return 0;
        if (!PyBytes_Check(json)) {
            Py_DECREF(json);
            PyErr_SetString(PyExc_TypeError, "ranks: JSON text as bytes");
            return 0;
        }
        Py_XDECREF(k->last_json);
        k->last_json = json;
        k->last = r->ranks;
        k->last_len = r->ranks_len;
    }
    View v;
    return view_of(k->last_json, &v) && put(o, v.buf, v.len);
}

/* An int group's JSON: its digits without leading zeros. */
static int put_int(Text *o, Span s) {
    while (s.to - s.at > 1 && *s.at == '0') s.at++;
    return put(o, s.at, s.to - s.at);
}

/* One row by its shape's pieces: 1, 0 with an exception, or ROW_MISS. */
static int put_row(Text *o, const Shape *s, const Row *r, const Span *num, long long line,
                   char sep, Ranks *k) {
    for (int i = 0; i < s->pieces; i++) {
        int slot = s->slot[i], ok;
        if (slot == INT_MIN) {
            ok = put(o, s->text[i].buf, s->text[i].len);
        } else if (slot >= 0) {
            ok = put(o, num[slot].at, num[slot].to - num[slot].at);
        } else if (slot == SLOT_LINE) {
            char digits[24];
            ok = put(o, digits, snprintf(digits, sizeof digits, "%lld", line));
        } else if (slot == SLOT_TIME) {
            ok = put_time(o, r, sep);
        } else if (slot == SLOT_RANK) {
            ok = put_rank(o, r, k);
        } else if (slot == SLOT_MESSAGE) {
            ok = put_string(o, r->msg, r->end);
        } else if (slot <= SLOT_GROUP_INT) {
            ok = put_int(o, r->groups[SLOT_GROUP_INT - slot]);
        } else {
            ok = put_string(o, r->groups[SLOT_GROUP_TEXT - slot].at,
                            r->groups[SLOT_GROUP_TEXT - slot].to);
        }
        if (ok != 1) {
            if (ok == 0 && !PyErr_Occurred()) PyErr_NoMemory();
            return ok;
        }
    }
    return 1;
}

/* One shape from its (literals, points, pieces) tuple (access: of the access alternative,
   the only one whose groups a slot may name); 0 with an exception. */
static int read_lane_shape(PyObject *item, int access, Shape *s) {
    PyObject *literals, *points, *pieces;
    if (!PyArg_ParseTuple(item, "O!O!O!", &PyTuple_Type, &literals, &PyBytes_Type, &points,
                          &PyTuple_Type, &pieces))
        return 0;
    Py_ssize_t n_lits = PyTuple_Size(literals), n_pieces = PyTuple_Size(pieces);
    if (n_lits > MAX_SHAPE_NUMBERS + 1 || PyBytes_Size(points) != (n_lits ? n_lits - 1 : 0) ||
        n_pieces > MAX_PLAN_PIECES) {
        PyErr_SetString(PyExc_ValueError, "a shape: at most 65 literals, a point each number");
        return 0;
    }
    s->numbers = (int)n_lits - 1;
    const char *point = PyBytes_AsString(points);
    for (Py_ssize_t i = 0; i < n_lits; i++) {
        PyObject *lit = PyTuple_GetItem(literals, i);
        if (!PyBytes_Check(lit)) return PyErr_SetString(PyExc_TypeError, "literals: bytes"), 0;
        view_of(lit, &s->lits[i]);
        if (i < s->numbers) s->points[i] = point[i];
    }
    s->pieces = (int)n_pieces;
    for (Py_ssize_t i = 0; i < n_pieces; i++) {
        PyObject *piece = PyTuple_GetItem(pieces, i);
        if (PyBytes_Check(piece)) {
            view_of(piece, &s->text[i]);
            s->slot[i] = INT_MIN;
            continue;
        }
        long slot = PyLong_AsLong(piece);
        if (slot == -1 && PyErr_Occurred()) return 0;
        int group = slot <= SLOT_GROUP_TEXT && slot > SLOT_GROUP_TEXT - ACCESS_GROUPS;
        group |= slot <= SLOT_GROUP_INT && slot > SLOT_GROUP_INT - ACCESS_GROUPS;
        group &= access; /* only an access row has its groups read */
        int header = slot >= SLOT_MESSAGE && slot < 0, number = slot >= 0 && slot < s->numbers;
        if (!header && !number && !group) {
            PyErr_SetString(PyExc_ValueError, "pieces: bytes, or a slot of the shape");
            return 0;
        }
        s->slot[i] = (int)slot;
    }
    return 1;
}

/* The plans of every alternative (see the top): shapes in one malloc array, first[a] the
   index of alternative a's first, first[a + 1] past its last, wanted[a] whether asked for;
   NULL with an exception. */
static Shape *read_plans(PyObject *plans, int alts, int access_alt, int *first, char *wanted) {
    Py_ssize_t total = 0;
    if (PyTuple_Size(plans) != alts) {
        PyErr_SetString(PyExc_ValueError, "plans: one entry per alternative");
        return NULL;
    }
    for (int a = 0; a < alts; a++) {
        PyObject *entry = PyTuple_GetItem(plans, a);
        wanted[a] = entry != Py_None;
        if (wanted[a] && (!PyTuple_Check(entry) || PyTuple_Size(entry) > MAX_LANE_SHAPES)) {
            PyErr_SetString(PyExc_ValueError, "plans: None or a tuple of at most 16 shapes");
            return NULL;
        }
        first[a] = (int)total;
        total += wanted[a] ? PyTuple_Size(entry) : 0;
    }
    first[alts] = (int)total;
    Shape *shapes = malloc(sizeof(Shape) * (size_t)(total + 1));
    if (shapes == NULL) return (Shape *)PyErr_NoMemory();
    for (int a = 0; a < alts; a++) {
        for (int j = first[a]; j < first[a + 1]; j++) {
            PyObject *shape = PyTuple_GetItem(PyTuple_GetItem(plans, a), j - first[a]);
            if (!read_lane_shape(shape, a == access_alt, &shapes[j])) {
                free(shapes);
                return NULL;
            }
        }
    }
    return shapes;
}

/* Row i's line from the first shape of its alternative that it fits: 1, 0 with an
   exception, ROW_MISS. */
static int lane_row(Text *o, const Row *r, const Shape *shapes, int from, int to,
                    long long line, char sep, Ranks *k) {
    Span num[MAX_SHAPE_NUMBERS];
    for (int j = from; j < to; j++) {
        if (fits(&shapes[j], r->rest, r->end, num)) {
            Py_ssize_t mark = o->len;
            int ok = put_row(o, &shapes[j], r, num, line, sep, k);
            if (ok == ROW_MISS) o->len = mark;
            return ok;
        }
    }
    return ROW_MISS;
}

/* The lines of the rows asked for, and the misses: (row, line number in the text). */
static PyObject *write_lines(const Row *rows, Py_ssize_t count, const Shape *shapes,
                             const int *first, const char *wanted, long long first_line,
                             char sep, PyObject *ranks) {
    Text o = {NULL, 0, 0};
    Ranks k = {ranks, NULL, NULL, 0};
    PyObject *misses = PyList_New(0), *out = NULL;
    Py_ssize_t entries = 0;
    if (misses == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        const Row *r = &rows[i];
        if (!wanted[r->alt]) continue;
        if (entries++ && !put(&o, "\n", 1)) goto oom;
        int ok = lane_row(&o, r, shapes, first[r->alt], first[r->alt + 1], first_line + i, sep,
                          &k);
        if (ok == 0) goto done;
        if (ok == ROW_MISS) {
            PyObject *miss = Py_BuildValue("(nn)", i, entries - 1);
            int failed = miss == NULL || PyList_Append(misses, miss) < 0;
            Py_XDECREF(miss);
            if (failed) goto done;
        }
    }
    PyObject *text = PyUnicode_DecodeUTF8(o.buf ? o.buf : "", o.len, "strict");
    if (text != NULL) out = Py_BuildValue("(OnO)", text, entries, misses);
    Py_XDECREF(text);
    goto done;
oom:
    PyErr_NoMemory();
done:
    free(o.buf);
    Py_XDECREF(k.last_json);
    Py_DECREF(misses);
    return out;
}

PyDoc_STRVAR(json_lines_doc,
             "json_lines(data, batch, access_alt, first_line, sep, plans, ranks)\n--\n\n"
             "For a block in which every line is a serving row in its plainest form: the JSON\n"
             "lines of its rows asked for, written from their shapes' plans (see _rowjson.h),\n"
             "as (text: lines joined by newlines, a miss's line empty; lines; misses: (row,\n"
             "line) pairs); None as soon as one line is not a plain row.");

static PyObject *json_lines(PyObject *self, PyObject *args) {
    View view, sep;
    PyObject *data, *batch, *plans, *ranks, *sep_bytes, *out = NULL;
    int access_alt, first[32];
    char wanted[31];
    long long first_line;
    Py_ssize_t count;
    Table t;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!iLO!O!O", &PyBytes_Type, &data, &PyTuple_Type, &batch,
                          &access_alt, &first_line, &PyBytes_Type, &sep_bytes, &PyTuple_Type,
                          &plans, &ranks) ||
        !view_of(data, &view) || !view_of(sep_bytes, &sep) || !read_table(batch, access_alt, &t))
        return NULL;
    Py_ssize_t alts = PyTuple_Size(plans);
    if (sep.len != 1 || alts < 1 || alts > 31 || t.access_alt >= alts) {
        PyErr_SetString(PyExc_ValueError, "sep: one byte; plans: 1-31, above each alternative");
        return NULL;
    }
    for (int i = 0; i < t.n_batch; i++) {
        if (t.batch[i].alt >= alts) {
            PyErr_SetString(PyExc_ValueError, "plans: one entry per alternative");
            return NULL;
        }
    }
    Shape *shapes = read_plans(plans, (int)alts, t.access_alt, first, wanted);
    if (shapes == NULL) return NULL;
    Row *rows;
    Py_BEGIN_ALLOW_THREADS
    rows = rows_of(&t, (const unsigned char *)view.buf, view.len, &count);
    Py_END_ALLOW_THREADS
    if (rows == NULL) {
        out = count < 0 ? PyErr_NoMemory() : Py_NewRef(Py_None);
    } else {
        out = write_lines(rows, count, shapes, first, wanted, first_line, sep.buf[0], ranks);
    }
    free(rows);
    free(shapes);
    return out;
}
