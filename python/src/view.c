/* Typed views: members of a typed message read and written in place through the generated
 * introspection table (zcast_cdr_type).
 *
 * A view is (message, type, off[], aux[], bounds): off/aux are the flat member offsets and
 * lengths (received: validated by zcast_cdr_read) or offsets and capacities (loans: laid out by
 * zcast_cdr_layout); bounds is the loan's bounds block of this (nested) type. Nested single
 * messages share their parent's flat arrays; elements of message arrays get their own.
 *
 * Received payloads are hostile: only validated offsets and lengths are used. A loan's counts and
 * string lengths are the writer's own (it may scribble through a memoryview), so each is read once
 * and clamped to its capacity. */
#include "pyzcast.h"

typedef struct {
	PzMessage *msg;
	const zcast_cdr_type *t;
	const uint32_t *off, *aux, *bounds;
} vctx;

/* zcast.MessageView: a nested message or an element. */
typedef struct {
	PyObject_HEAD PzMessage *msg;
	const zcast_cdr_type *t;
	uint32_t *off, *aux;	/* owned, t->n_flat entries */
	const uint32_t *bounds; /* inside msg->bounds (loans), or NULL */
} PzView;

static PyObject *view_new(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds)
{
	PzView *v = PyObject_New(PzView, &PzView_Type);
	if (!v)
		return NULL;
	size_t n = t->n_flat ? t->n_flat : 1;
	v->off = PyMem_Calloc(n, sizeof(uint32_t));
	v->aux = PyMem_Calloc(n, sizeof(uint32_t));
	Py_INCREF(msg);
	v->msg = msg, v->t = t, v->bounds = bounds;
	if (!v->off || !v->aux) {
		Py_DECREF(v);
		return PyErr_NoMemory();
	}
	memcpy(v->off, off, t->n_flat * sizeof(uint32_t));
	memcpy(v->aux, aux, t->n_flat * sizeof(uint32_t));
	return (PyObject *)v;
}

/* Member `name` of t: its field and flat index (members of nested single messages expanded). */
static const zcast_cdr_field *find(const zcast_cdr_type *t, PyObject *name, uint32_t *k)
{
	const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
	uint32_t flat = 0;
	for (uint32_t i = 0; s && i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		if (!strcmp(f->name, s)) {
			*k = flat;
			return f;
		}
		flat +=
		    f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE ? f->type->n_flat : 1;
	}
	PyErr_Clear();
	PyErr_Format(PyExc_AttributeError, "%s has no member %R", t->name, name);
	return NULL;
}

static uint32_t load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void store32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* ---- primitives ---- */

static PyObject *get_prim(int kind, const uint8_t *p)
{
	zcast_cdr_value v = zcast_cdr_value_at(kind, p);
	switch (v.type) {
	case ZCAST_CDR_VALUE_BOOL:
		return PyBool_FromLong(v.u != 0);
	case ZCAST_CDR_VALUE_INT:
		return PyLong_FromLongLong(v.i);
	case ZCAST_CDR_VALUE_FLOAT:
		return PyFloat_FromDouble(v.f);
	default:
		return PyLong_FromUnsignedLongLong(v.u);
	}
}

static int set_prim(const zcast_cdr_field *f, uint8_t *p, PyObject *value)
{
	int kind = f->kind;
	if (kind == ZCAST_CDR_FLOAT32 || kind == ZCAST_CDR_FLOAT64) {
		double d = PyFloat_AsDouble(value);
		if (d == -1.0 && PyErr_Occurred())
			return -1;
		float x = (float)d;
		if (kind == ZCAST_CDR_FLOAT32)
			memcpy(p, &x, 4);
		else
			memcpy(p, &d, 8);
		return 0;
	}
	PyObject *i = PyNumber_Index(value); /* ints and bools, not floats */
	if (!i)
		return -1;
	static const long long lo[] = {0, 0, 0, -128, 0, -32768, 0, -2147483648LL, 0, INT64_MIN};
	static const unsigned long long hi[] = {
	    1, 255, 255, 127, 255, 32767, 65535, 2147483647, 4294967295ULL, INT64_MAX, UINT64_MAX};
	int overflow = 0;
	long long s = PyLong_AsLongLongAndOverflow(i, &overflow);
	unsigned long long u = 0;
	int bad = 0;
	if (kind == ZCAST_CDR_UINT64) {
		u = PyLong_AsUnsignedLongLong(i);
		bad = PyErr_Occurred() != NULL;
		PyErr_Clear();
	} else {
		bad = overflow || s < lo[kind] || (s > 0 && (unsigned long long)s > hi[kind]);
		u = (unsigned long long)s;
	}
	Py_DECREF(i);
	if (bad) {
		PyErr_Format(PyExc_OverflowError, "member %s: value out of range for %s", f->name,
			     zcast_cdr_kind_name(kind));
		return -1;
	}
	memcpy(p, &u, zcast_cdr_kind_size(kind)); /* little endian host */
	return 0;
}

/* ---- arrays of primitives: numpy views of the message's memory ---- */

static const char *const dtypes[] = {"?",   "u1",  "u1",  "i1",	 "u1",	"<i2", "<u2",
				     "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"};
static const char *const formats[] = {"?", "B", "B", "b", "B", "h", "H",
				      "i", "I", "q", "Q", "f", "d"};

static PyObject *numpy_module(void)
{
	static PyObject *np;
	static int tried;
	if (!tried) {
		tried = 1;
		np = PyImport_ImportModule("numpy");
		if (!np)
			PyErr_Clear(); /* without numpy: typed memoryviews */
	}
	return np;
}

/* n values of kind at CDR offset `off`: a numpy array (or a memoryview without numpy) over the
 * message's memory, counted as an export of the message. */
static PyObject *values_view(const vctx *c, uint32_t off, uint32_t n, int kind)
{
	size_t es = zcast_cdr_kind_size(kind);
	size_t at = (size_t)(c->msg->base - c->msg->data) + off;
	PyObject *span = pz_span_new(c->msg, at, (size_t)n * es);
	if (!span)
		return NULL;
	PyObject *np = numpy_module(), *r;
	if (np) {
		r = PyObject_CallMethod(np, "frombuffer", "Os", span, dtypes[kind]);
	} else {
		PyObject *mv = PyMemoryView_FromObject(span);
		r = mv ? PyObject_CallMethod(mv, "cast", "s", formats[kind]) : NULL;
		Py_XDECREF(mv);
	}
	Py_DECREF(span);
	return r;
}

/* Copies `value` (anything numpy.asarray takes) into n (or at most n, seq) values at dst. Returns
 * the element count or -1. */
static Py_ssize_t copy_values(const zcast_cdr_field *f, uint8_t *dst, uint32_t n, int seq,
			      PyObject *value)
{
	PyObject *np = numpy_module();
	/* bytes-likes are raw bytes of the member's type; anything else is values numpy converts */
	int raw = PyBytes_Check(value) || PyByteArray_Check(value) || PyMemoryView_Check(value);
	PyObject *arr = !np ? Py_NewRef(value)
			    : PyObject_CallMethod(np, raw ? "frombuffer" : "ascontiguousarray",
						  "Os", value, dtypes[f->kind]);
	if (!arr)
		return -1;
	Py_buffer b;
	if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS) < 0) {
		Py_DECREF(arr);
		return -1;
	}
	size_t es = zcast_cdr_kind_size(f->kind);
	Py_ssize_t count = b.len / (Py_ssize_t)es, r = count;
	if (b.len % (Py_ssize_t)es || (seq ? count > (Py_ssize_t)n : count != (Py_ssize_t)n)) {
		pz_raisef(ZCAST_EINVAL, "member %s: %zd values, %s %u", f->name, count,
			  seq ? "its bound is" : "it has", n);
		r = -1;
	} else {
		memmove(dst, b.buf, (size_t)b.len); /* the source may be this message */
	}
	PyBuffer_Release(&b);
	Py_DECREF(arr);
	return r;
}

/* ---- strings ---- */

static PyObject *decode(const uint8_t *p, uint32_t n)
{
	return PyUnicode_DecodeUTF8((const char *)p, n, "strict");
}

/* A loan's string whose length prefix is at p (cap: most bytes). */
static PyObject *get_wstring(const uint8_t *p, uint32_t cap)
{
	uint32_t n = load32(p); /* read once: the writer may have scribbled */
	n = n ? n - 1 : 0;
	return decode(p + 4, n > cap ? cap : n);
}

static int set_wstring(const char *member, uint8_t *p, uint32_t cap, PyObject *value)
{
	const char *s;
	Py_ssize_t n;
	if (PyUnicode_Check(value)) {
		if (!(s = PyUnicode_AsUTF8AndSize(value, &n)))
			return -1;
	} else if (PyBytes_Check(value)) {
		s = PyBytes_AS_STRING(value), n = PyBytes_GET_SIZE(value);
	} else {
		PyErr_Format(PyExc_TypeError, "member %s: a str or bytes is needed", member);
		return -1;
	}
	if ((size_t)n > cap) {
		pz_raisef(ZCAST_EINVAL, "member %s: %zd bytes, its bound is %u", member, n, cap);
		return -1;
	}
	memcpy(p + 4, s, (size_t)n);
	store32(p, (uint32_t)n + 1);
	p[4 + n] = 0;
	return 0;
}

/* ---- members ---- */

/* Elements of an array or sequence of a loan: count (read once, clamped) and capacity. */
static uint32_t w_count(const vctx *c, const zcast_cdr_field *f, uint32_t k, uint32_t *cap)
{
	*cap = c->aux[k];
	if (f->shape != ZCAST_CDR_SEQUENCE)
		return *cap;
	uint32_t n = load32(c->msg->base + c->off[k]);
	return n > *cap ? *cap : n;
}

static const uint32_t *member_bounds(const vctx *c, const zcast_cdr_field *f)
{
	return c->bounds ? c->bounds + f->bounds_index : NULL;
}

/* Element i of an array/sequence of messages, as a view. */
static PyObject *element(const vctx *c, const zcast_cdr_field *f, uint32_t k, uint32_t i)
{
	const zcast_cdr_type *et = f->type;
	size_t n = et->n_flat ? et->n_flat : 1;
	uint32_t *eoff = PyMem_Calloc(n, 4), *eaux = PyMem_Calloc(n, 4);
	PyObject *r = NULL;
	int seq = f->shape == ZCAST_CDR_SEQUENCE;
	const uint32_t *eb = c->bounds ? member_bounds(c, f) + seq : NULL;
	if (!eoff || !eaux) {
		PyErr_NoMemory();
	} else if (c->msg->loan) {
		zcast_cdr_writer_element(&c->msg->w, et, eb, c->off[k] + 4 * (uint32_t)seq, i, eoff,
					 eaux);
		r = view_new(c->msg, et, eoff, eaux, eb);
	} else {
		zcast_cdr_reader er;
		int e = zcast_cdr_element(&c->msg->r, et, c->off[k], c->aux[k], i, &er, eoff, eaux);
		r = e < 0 ? pz_raise(e) : view_new(c->msg, et, eoff, eaux, NULL);
	}
	PyMem_Free(eoff);
	PyMem_Free(eaux);
	return r;
}

/* String element i of an array/sequence of strings. */
static PyObject *string_element(const vctx *c, const zcast_cdr_field *f, uint32_t k, uint32_t i)
{
	if (!c->msg->loan) {
		const char *s;
		uint32_t n;
		int e = zcast_cdr_string_element(&c->msg->r, c->off[k], c->aux[k], i, &s, &n);
		return e < 0 ? pz_raise(e) : decode((const uint8_t *)s, n);
	}
	int seq = f->shape == ZCAST_CDR_SEQUENCE;
	uint32_t bound = member_bounds(c, f)[seq];
	uint32_t first = c->off[k] + 4 * (uint32_t)seq;
	return get_wstring(c->msg->base + zcast_cdr_string_slot(first, bound, i), bound);
}

static PyObject *get_member(const vctx *c, const zcast_cdr_field *f, uint32_t k)
{
	uint8_t *base = c->msg->base;
	int loan = c->msg->loan;
	if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE)
		return view_new(c->msg, f->type, c->off + k, c->aux + k,
				c->bounds ? member_bounds(c, f) : NULL);
	if (f->shape == ZCAST_CDR_ONE)
		return f->kind != ZCAST_CDR_STRING ? get_prim(f->kind, base + c->off[k])
		       : loan			   ? get_wstring(base + c->off[k], c->aux[k])
						   : decode(base + c->off[k], c->aux[k]);
	uint32_t cap, n = loan ? w_count(c, f, k, &cap) : c->aux[k];
	uint32_t es = zcast_cdr_kind_size(f->kind);
	if (es) {
		uint32_t at = c->off[k];
		if (loan && f->shape == ZCAST_CDR_SEQUENCE)
			at = zcast_cdr_align_(at + 4, es);
		return values_view(c, at, n, f->kind);
	}
	PyObject *list = PyList_New(n);
	for (uint32_t i = 0; list && i < n; i++) {
		PyObject *x =
		    f->kind == ZCAST_CDR_STRING ? string_element(c, f, k, i) : element(c, f, k, i);
		if (!x)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, x);
	}
	return list;
}

static int set_fields_from_dict(PyObject *view, PyObject *dict, const char *member)
{
	if (!PyDict_Check(dict)) {
		PyErr_Format(PyExc_TypeError, "member %s: a message is set from a dict", member);
		return -1;
	}
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(dict, &pos, &key, &value))
		if (PyObject_SetAttr(view, key, value) < 0)
			return -1;
	return 0;
}

static int set_member(const vctx *c, const zcast_cdr_field *f, uint32_t k, PyObject *value)
{
	uint8_t *base = c->msg->base;
	if (f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE) {
		PyObject *v = get_member(c, f, k);
		int e = v ? set_fields_from_dict(v, value, f->name) : -1;
		Py_XDECREF(v);
		return e;
	}
	if (f->shape == ZCAST_CDR_ONE)
		return f->kind == ZCAST_CDR_STRING
			   ? set_wstring(f->name, base + c->off[k], c->aux[k], value)
			   : set_prim(f, base + c->off[k], value);
	int seq = f->shape == ZCAST_CDR_SEQUENCE;
	uint32_t cap = c->aux[k], es = zcast_cdr_kind_size(f->kind);
	if (es) {
		uint32_t at = seq ? zcast_cdr_align_(c->off[k] + 4, es) : c->off[k];
		Py_ssize_t n = copy_values(f, base + at, cap, seq, value);
		if (n < 0)
			return -1;
		if (seq)
			store32(base + c->off[k], (uint32_t)n);
		return 0;
	}
	/* strings and messages: from a sequence of str / dict */
	PyObject *items = PySequence_Fast(value, "a list is needed");
	if (!items)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
	int e = 0;
	if (seq ? n > (Py_ssize_t)cap : n != (Py_ssize_t)cap) {
		pz_raisef(ZCAST_EINVAL, "member %s: %zd elements, %s %u", f->name, n,
			  seq ? "its bound is" : "it has", cap);
		e = -1;
	}
	if (!e && seq)
		store32(base + c->off[k], (uint32_t)n);
	for (Py_ssize_t i = 0; !e && i < n; i++) {
		PyObject *x = PySequence_Fast_GET_ITEM(items, i);
		if (f->kind == ZCAST_CDR_STRING) {
			uint32_t bound = member_bounds(c, f)[seq];
			uint32_t at = zcast_cdr_string_slot(c->off[k] + 4 * (uint32_t)seq, bound,
							    (uint32_t)i);
			e = set_wstring(f->name, base + at, bound, x);
		} else {
			PyObject *v = element(c, f, k, (uint32_t)i);
			e = v ? set_fields_from_dict(v, x, f->name) : -1;
			Py_XDECREF(v);
		}
	}
	Py_DECREF(items);
	return e;
}

PyObject *pz_view_getattr(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds, PyObject *name)
{
	vctx c = {msg, t, off, aux, bounds};
	uint32_t k;
	const zcast_cdr_field *f = find(t, name, &k);
	return f ? get_member(&c, f, k) : NULL;
}

int pz_view_setattr(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
		    const uint32_t *aux, const uint32_t *bounds, PyObject *name, PyObject *value)
{
	vctx c = {msg, t, off, aux, bounds};
	uint32_t k;
	const zcast_cdr_field *f = find(t, name, &k);
	if (!f)
		return -1;
	if (!value) {
		PyErr_Format(PyExc_AttributeError, "members of %s cannot be deleted", t->name);
		return -1;
	}
	if (!msg->loan || msg->compacted) {
		pz_raisef(ZCAST_EINVAL, "member %s: %s", f->name,
			  msg->loan ? "the loan was compacted for publish"
				    : "a received message is read-only");
		return -1;
	}
	return set_member(&c, f, k, value);
}

PyObject *pz_view_set_len(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds, PyObject *args)
{
	PyObject *name;
	unsigned int n;
	if (!PyArg_ParseTuple(args, "OI", &name, &n))
		return NULL;
	vctx c = {msg, t, off, aux, bounds};
	uint32_t k;
	const zcast_cdr_field *f = find(t, name, &k);
	if (!f)
		return NULL;
	if (!msg->loan || msg->compacted)
		return pz_raisef(ZCAST_EINVAL, "set_len: the message is not a writable loan");
	if (f->shape != ZCAST_CDR_SEQUENCE)
		return pz_raisef(ZCAST_EINVAL, "set_len: member %s is not a sequence", f->name);
	if (n > aux[k])
		return pz_raisef(ZCAST_EINVAL, "set_len: member %s: %u elements, its bound is %u",
				 f->name, n, aux[k]);
	store32(msg->base + off[k], n);
	return get_member(&c, f, k);
}

/* The bytes of a string or of an array/sequence of primitives, as a memoryview of the message's
 * memory (zero copy; writable on loans — a string's length does not change through it). */
PyObject *pz_view_raw(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
		      const uint32_t *aux, const uint32_t *bounds, PyObject *name)
{
	vctx c = {msg, t, off, aux, bounds};
	uint32_t k;
	const zcast_cdr_field *f = find(t, name, &k);
	if (!f)
		return NULL;
	uint32_t at = off[k], n = aux[k], es = zcast_cdr_kind_size(f->kind);
	if (f->kind == ZCAST_CDR_STRING && f->shape == ZCAST_CDR_ONE) {
		if (msg->loan) {
			uint32_t len = load32(msg->base + at); /* read once, clamped */
			len = len ? len - 1 : 0;
			n = len > aux[k] ? aux[k] : len;
			at += 4;
		}
		es = 1;
	} else if (!es || f->shape == ZCAST_CDR_ONE) {
		return pz_raisef(ZCAST_EINVAL,
				 "raw: member %s is not a string or an array of "
				 "primitives",
				 f->name);
	} else if (msg->loan) {
		uint32_t cap;
		n = w_count(&c, f, k, &cap);
		if (f->shape == ZCAST_CDR_SEQUENCE)
			at = zcast_cdr_align_(at + 4, es);
	}
	PyObject *span = pz_span_new(msg, (size_t)(msg->base - msg->data) + at, (size_t)n * es);
	PyObject *mv = span ? PyMemoryView_FromObject(span) : NULL;
	Py_XDECREF(span);
	return mv;
}

PyObject *pz_view_dir(const zcast_cdr_type *t)
{
	PyObject *list = PyList_New(t->n_fields);
	for (uint32_t i = 0; list && i < t->n_fields; i++) {
		PyObject *s = PyUnicode_FromString(t->fields[i].name);
		if (!s)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, s);
	}
	return list;
}

/* A plain copy of a member value: views become dicts, arrays copies (no export stays alive). */
static PyObject *plain(PyObject *v)
{
	if (PyObject_TypeCheck(v, &PzView_Type)) {
		PzView *x = (PzView *)v;
		PyObject *d = pz_view_to_dict(x->msg, x->t, x->off, x->aux, x->bounds);
		Py_DECREF(v);
		return d;
	}
	if (PyList_Check(v)) {
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++) {
			PyObject *e = plain(Py_NewRef(PyList_GET_ITEM(v, i)));
			if (!e) {
				Py_DECREF(v);
				return NULL;
			}
			PyList_SetItem(v, i, e);
		}
		return v;
	}
	if (PyObject_CheckBuffer(v) && !PyBytes_Check(v)) {
		PyObject *copy = PyObject_CallMethod(v, numpy_module() ? "copy" : "tolist", NULL);
		Py_DECREF(v);
		return copy;
	}
	return v;
}

PyObject *pz_view_to_dict(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds)
{
	vctx c = {msg, t, off, aux, bounds};
	PyObject *d = PyDict_New();
	uint32_t k = 0;
	for (uint32_t i = 0; d && i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		PyObject *v = get_member(&c, f, k);
		v = v ? plain(v) : NULL;
		if (!v || PyDict_SetItemString(d, f->name, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
		k += f->kind == ZCAST_CDR_STRUCT && f->shape == ZCAST_CDR_ONE ? f->type->n_flat : 1;
	}
	return d;
}

/* ---- zcast.MessageView ---- */

static void view_dealloc(PzView *v)
{
	Py_DECREF(v->msg);
	PyMem_Free(v->off);
	PyMem_Free(v->aux);
	PyObject_Free(v);
}

static PyObject *view_getattro(PzView *v, PyObject *name)
{
	uint32_t k;
	if (!find(v->t, name, &k)) {
		PyErr_Clear();
		return PyObject_GenericGetAttr((PyObject *)v, name);
	}
	if (pz_members_check(v->msg) < 0)
		return NULL;
	return pz_view_getattr(v->msg, v->t, v->off, v->aux, v->bounds, name);
}

static int view_setattro(PzView *v, PyObject *name, PyObject *value)
{
	if (pz_members_check(v->msg) < 0)
		return -1;
	return pz_view_setattr(v->msg, v->t, v->off, v->aux, v->bounds, name, value);
}

static PyObject *view_set_len(PzView *v, PyObject *args)
{
	if (pz_members_check(v->msg) < 0)
		return NULL;
	return pz_view_set_len(v->msg, v->t, v->off, v->aux, v->bounds, args);
}

static PyObject *view_to_dict(PzView *v, PyObject *unused)
{
	(void)unused;
	if (pz_members_check(v->msg) < 0)
		return NULL;
	return pz_view_to_dict(v->msg, v->t, v->off, v->aux, v->bounds);
}

static PyObject *view_raw(PzView *v, PyObject *name)
{
	if (pz_members_check(v->msg) < 0)
		return NULL;
	return pz_view_raw(v->msg, v->t, v->off, v->aux, v->bounds, name);
}

static PyObject *view_dir(PzView *v, PyObject *unused)
{
	(void)unused;
	return pz_view_dir(v->t);
}

static PyObject *view_repr(PzView *v)
{
	return PyUnicode_FromFormat("<zcast view of %s>", v->t->name);
}

static PyMethodDef view_methods[] = {
    {"set_len", (PyCFunction)view_set_len, METH_VARARGS,
     "set_len(member, n): sets a sequence's length on a loan; returns the member."},
    {"to_dict", (PyCFunction)view_to_dict, METH_NOARGS, "Every member as a dict (copies)."},
    {"raw", (PyCFunction)view_raw, METH_O,
     "raw(member): the bytes of a string or primitive array member, as a memoryview (no copy)."},
    {"__dir__", (PyCFunction)view_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject PzView_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.MessageView",
    .tp_basicsize = sizeof(PzView),
    .tp_dealloc = (destructor)view_dealloc,
    .tp_repr = (reprfunc)view_repr,
    .tp_getattro = (getattrofunc)view_getattro,
    .tp_setattro = (setattrofunc)view_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A nested message (or element) of a typed message, read and written in place.",
    .tp_methods = view_methods,
};
