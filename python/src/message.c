/* zcast.Message: one zcast_msg reference, and the buffer protocol over its payload.
 *
 * Buffer rule: exported buffers (memoryview, numpy arrays, member arrays of typed messages) are
 * counted. Their pointer into shared memory cannot be revoked, so a message with a live export is
 * never published (zcast.BufferExported) and never dropped: release() then defers the drop to the
 * last export's release. After publish or release every access through the message raises. */
#include "pyzcast.h"

static const char *state_text(const PzMessage *msg)
{
	switch (msg->state) {
	case PZ_BUSY:
		return "message is being published by another thread";
	case PZ_PUBLISHED:
		return "message was published: it belongs to the topic now";
	default:
		return "message was released";
	}
}

/* A received or loaned message holds m; a recorded one its own bytes. */
static int holds(const PzMessage *msg)
{
	return msg->m || msg->own;
}

int pz_message_check(PzMessage *msg)
{
	if (msg->state == PZ_LIVE && holds(msg))
		return 0;
	pz_raisef(ZCAST_ESTALE, "%s", state_text(msg));
	return -1;
}

int pz_members_check(PzMessage *msg)
{
	if (pz_message_check(msg) < 0)
		return -1;
	if (msg->compacted) {
		pz_raisef(ZCAST_ESTALE, "the typed loan was compacted for a publish that failed: "
					"publish it again or release it (its members moved)");
		return -1;
	}
	return 0;
}

/* Drops our reference: the last drop of a received message releases the hold, of a loan returns
 * the slot. */
static void drop_now(PzMessage *msg)
{
	zcast_msg *m = msg->m;
	msg->m = NULL;
	msg->data = NULL;
	PyMem_Free(msg->own);
	msg->own = NULL;
	if (m)
		zcast_msg_drop(m);
}

void pz_message_release(PzMessage *msg)
{
	if (msg->state == PZ_LIVE)
		msg->state = PZ_RELEASED;
	if (msg->exports == 0)
		drop_now(msg);
}

static PzMessage *message_alloc(void)
{
	PzMessage *msg = PyObject_New(PzMessage, &PzMessage_Type);
	if (!msg)
		return NULL;
	msg->m = NULL;
	msg->own = NULL;
	msg->loan = 0;
	msg->state = PZ_LIVE;
	msg->exports = 0;
	msg->data = NULL;
	msg->size = 0;
	msg->owner = NULL;
	msg->type = NULL;
	msg->base = NULL;
	msg->off = msg->aux = msg->bounds = NULL;
	msg->compacted = 0;
	memset(&msg->w, 0, sizeof msg->w);
	memset(&msg->r, 0, sizeof msg->r);
	return msg;
}

PyObject *pz_message_new(zcast_msg *m, int loan, PyObject *owner)
{
	PzMessage *msg = message_alloc();
	if (!msg) {
		zcast_msg_drop(m);
		return NULL;
	}
	msg->m = m;
	msg->loan = loan;
	msg->data = zcast_msg_data(m);
	msg->size = zcast_msg_size(m);
	msg->owner = owner;
	Py_XINCREF(owner);
	return (PyObject *)msg;
}

/* The copy starts 4 bytes into an allocation (PyMem: 16-byte aligned), so a CDR origin 4 bytes
 * after the encapsulation header is 8-byte aligned, as in a typed zcast slot. */
#define PZ_RECORDED_LEAD 4

PyObject *pz_message_recorded(size_t n, uint8_t **dst)
{
	PzMessage *msg = message_alloc();
	uint8_t *own = msg ? PyMem_Malloc(n + PZ_RECORDED_LEAD) : NULL;
	if (!own) {
		Py_XDECREF(msg);
		return msg ? PyErr_NoMemory() : NULL;
	}
	msg->own = own;
	msg->data = own + PZ_RECORDED_LEAD;
	msg->size = n;
	*dst = msg->data;
	return (PyObject *)msg;
}

int pz_message_read_typed(PzMessage *msg, const zcast_cdr_type *t)
{
	msg->off = PyMem_Calloc(t->n_flat ? t->n_flat : 1, sizeof(uint32_t));
	msg->aux = PyMem_Calloc(t->n_flat ? t->n_flat : 1, sizeof(uint32_t));
	if (!msg->off || !msg->aux) {
		PyErr_NoMemory();
		return -1;
	}
	int e = msg->m ? zcast_typed_read(t, msg->m, &msg->r, msg->off, msg->aux)
		       : zcast_cdr_read(t, msg->data, msg->size, &msg->r, msg->off, msg->aux);
	if (e < 0) {
		pz_raise(e);
		return -1;
	}
	msg->type = t;
	msg->base = (uint8_t *)msg->r.base;
	return 0;
}

int pz_message_lay_out(PzMessage *msg, const zcast_cdr_type *t, uint32_t *b, size_t size)
{
	msg->bounds = b;
	msg->off = PyMem_Calloc(t->n_flat ? t->n_flat : 1, 4);
	msg->aux = PyMem_Calloc(t->n_flat ? t->n_flat : 1, 4);
	if (!msg->off || !msg->aux) {
		PyErr_NoMemory();
		return -1;
	}
	uint8_t *d = msg->data;
	memset(d, 0, ZCAST_TYPED_HEADER_OFFSET);
	d[4] = 0, d[5] = 1, d[6] = 0, d[7] = 0; /* little-endian plain CDR */
	msg->type = t;
	msg->base = d + ZCAST_TYPED_PREFIX;
	msg->w.base = msg->base;
	msg->w.bounds = b;
	msg->w.size = (uint32_t)size;
	zcast_cdr_layout(t, b, msg->base, msg->off, msg->aux);
	return 0;
}

static void message_dealloc(PzMessage *msg)
{
	drop_now(msg); /* exports hold a reference, so none is alive here */
	Py_XDECREF(msg->owner);
	PyMem_Free(msg->off);
	PyMem_Free(msg->aux);
	PyMem_Free(msg->bounds);
	PyObject_Free(msg);
}

/* ---- buffers ---- */

static int export(PzMessage *msg, PyObject *exporter, Py_buffer *view, size_t off, size_t len,
		  int flags)
{
	if (pz_message_check(msg) < 0) {
		view->obj = NULL;
		return -1;
	}
	if (msg->compacted && (flags & PyBUF_WRITABLE)) {
		view->obj = NULL;
		pz_raisef(ZCAST_ESTALE, "typed message was compacted for publish: read-only now");
		return -1;
	}
	int readonly = !msg->loan || msg->compacted;
	if (PyBuffer_FillInfo(view, exporter, msg->data + off, (Py_ssize_t)len, readonly, flags) <
	    0)
		return -1;
	msg->exports++;
	return 0;
}

static void unexport(PzMessage *msg)
{
	if (--msg->exports == 0 && msg->state == PZ_RELEASED)
		drop_now(msg);
}

static int message_getbuffer(PzMessage *msg, Py_buffer *view, int flags)
{
	return export(msg, (PyObject *)msg, view, 0, msg->size, flags);
}

static void message_releasebuffer(PzMessage *msg, Py_buffer *view)
{
	(void)view;
	unexport(msg);
}

static PyBufferProcs message_as_buffer = {
    (getbufferproc)message_getbuffer,
    (releasebufferproc)message_releasebuffer,
};

/* ---- Span: a member's bytes, exported on behalf of the message ---- */

typedef struct {
	PyObject_HEAD PzMessage *msg;
	size_t off, len;
} PzSpan;

PyObject *pz_span_new(PzMessage *msg, size_t off, size_t len)
{
	PzSpan *s = PyObject_New(PzSpan, &PzSpan_Type);
	if (!s)
		return NULL;
	Py_INCREF(msg);
	s->msg = msg, s->off = off, s->len = len;
	return (PyObject *)s;
}

static void span_dealloc(PzSpan *s)
{
	Py_DECREF(s->msg);
	PyObject_Free(s);
}

static int span_getbuffer(PzSpan *s, Py_buffer *view, int flags)
{
	return export(s->msg, (PyObject *)s, view, s->off, s->len, flags);
}

static void span_releasebuffer(PzSpan *s, Py_buffer *view)
{
	(void)view;
	unexport(s->msg);
}

static PyBufferProcs span_as_buffer = {
    (getbufferproc)span_getbuffer,
    (releasebufferproc)span_releasebuffer,
};

PyTypeObject PzSpan_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast._Span",
    .tp_basicsize = sizeof(PzSpan),
    .tp_dealloc = (destructor)span_dealloc,
    .tp_as_buffer = &span_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes of one member of a typed message (exported as the message's buffer).",
};

/* ---- methods ---- */

static PyObject *message_release_m(PzMessage *msg, PyObject *unused)
{
	(void)unused;
	if (msg->state == PZ_BUSY)
		return pz_raisef(ZCAST_EBUSY, "%s", state_text(msg));
	pz_message_release(msg);
	Py_RETURN_NONE;
}

static PyObject *message_enter(PzMessage *msg, PyObject *unused)
{
	(void)unused;
	if (pz_message_check(msg) < 0)
		return NULL;
	Py_INCREF(msg);
	return (PyObject *)msg;
}

static PyObject *message_exit(PzMessage *msg, PyObject *args)
{
	(void)args;
	if (msg->state != PZ_BUSY)
		pz_message_release(msg);
	Py_RETURN_FALSE;
}

static PyStructSequence_Field info_fields[] = {
    {"sequence", "per topic, from 1"},
    {"publish_time_ns", "CLOCK_MONOTONIC at publish"},
    {"publisher_id", "member id of the publisher"},
    {"slot", "slot index in the pool"},
    {"generation", "slot generation"},
    {"pool_dev", "device of the pool file (zero-copy proof: same in every process)"},
    {"pool_ino", "inode of the pool file"},
    {"pool_offset", "offset of the payload in the pool file"},
    {NULL, NULL},
};
static PyStructSequence_Desc info_desc = {
    "zcast.MessageInfo", "Where a message came from and where it lives.", info_fields, 8};
static PyTypeObject *info_type;

static PyObject *message_info(PzMessage *msg, PyObject *unused)
{
	(void)unused;
	if (pz_message_check(msg) < 0)
		return NULL;
	if (!msg->m)
		return pz_raisef(ZCAST_EINVAL, "info: a recorded message has no pool (its times "
					       "and sequence come with it from the recording)");
	zcast_msg_info in;
	int e = zcast_msg_info_get(msg->m, &in);
	if (e < 0)
		return pz_raise(e);
	PyObject *t = PyStructSequence_New(info_type);
	if (!t)
		return NULL;
	unsigned long long v[8] = {in.sequence,	    (unsigned long long)in.publish_time_ns,
				   in.publisher_id, in.slot,
				   in.generation,   in.pool_dev,
				   in.pool_ino,	    in.pool_offset};
	for (int i = 0; i < 8; i++) {
		PyObject *x = i == 1 ? PyLong_FromLongLong(in.publish_time_ns)
				     : PyLong_FromUnsignedLongLong(v[i]);
		if (!x) {
			Py_DECREF(t);
			return NULL;
		}
		PyStructSequence_SetItem(t, i, x);
	}
	return t;
}

static PyObject *message_resize(PzMessage *msg, PyObject *arg)
{
	if (pz_message_check(msg) < 0)
		return NULL;
	if (!msg->loan || msg->type)
		return pz_raisef(ZCAST_EINVAL, "resize: only untyped loans can be resized");
	if (msg->exports)
		return pz_raisef(ZCAST_EBUSY, "resize: %zd buffer(s) of the message still exported",
				 msg->exports);
	Py_ssize_t n = PyLong_AsSsize_t(arg);
	if (n == -1 && PyErr_Occurred())
		return NULL;
	int e = n < 0 ? ZCAST_EINVAL : zcast_msg_resize(msg->m, (size_t)n);
	if (e < 0)
		return n < 0 ? pz_raisef(e, "resize: negative size") : pz_raise(e);
	msg->size = (size_t)n;
	Py_RETURN_NONE;
}

static PyObject *message_set_mark(PzMessage *msg, PyObject *arg)
{
	if (pz_message_check(msg) < 0)
		return NULL;
	if (!msg->loan)
		return pz_raisef(ZCAST_EINVAL, "set_mark: only a loan can be marked");
	unsigned long long mark = PyLong_AsUnsignedLongLong(arg);
	if (mark == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (mark > UINT32_MAX)
		return pz_raisef(ZCAST_EINVAL, "set_mark: %llu does not fit 32 bits", mark);
	int e = zcast_msg_set_mark(msg->m, (uint32_t)mark);
	if (e < 0)
		return pz_raise(e);
	Py_RETURN_NONE;
}

static PyObject *message_set_len(PzMessage *msg, PyObject *args)
{
	if (pz_members_check(msg) < 0)
		return NULL;
	if (!msg->type || !msg->loan || msg->compacted)
		return pz_raisef(ZCAST_EINVAL,
				 "set_len: only loans of typed messages have lengths");
	return pz_view_set_len(msg, msg->type, msg->off, msg->aux, msg->bounds, args);
}

static PyObject *message_to_dict(PzMessage *msg, PyObject *unused)
{
	(void)unused;
	if (pz_members_check(msg) < 0)
		return NULL;
	if (!msg->type)
		return pz_raisef(ZCAST_EINVAL, "to_dict: the message is untyped");
	return pz_view_to_dict(msg, msg->type, msg->off, msg->aux, msg->bounds);
}

static PyObject *message_raw(PzMessage *msg, PyObject *name)
{
	if (pz_members_check(msg) < 0)
		return NULL;
	if (!msg->type)
		return pz_raisef(ZCAST_EINVAL, "raw: the message is untyped (use memoryview(msg))");
	return pz_view_raw(msg, msg->type, msg->off, msg->aux, msg->bounds, name);
}

static PyObject *message_dir(PzMessage *msg, PyObject *unused)
{
	(void)unused;
	PyObject *names = PyObject_Dir((PyObject *)Py_TYPE(msg));
	if (!names || !msg->type)
		return names;
	PyObject *fields = pz_view_dir(msg->type);
	if (!fields) {
		Py_DECREF(names);
		return NULL;
	}
	PyObject *all = PySequence_Concat(names, fields);
	Py_DECREF(names);
	Py_DECREF(fields);
	return all;
}

static PyMethodDef message_methods[] = {
    {"release", (PyCFunction)message_release_m, METH_NOARGS,
     "Drops this message now (a loan returns to the pool); deferred while a buffer is exported."},
    {"__enter__", (PyCFunction)message_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)message_exit, METH_VARARGS, "release()"},
    {"info", (PyCFunction)message_info, METH_NOARGS,
     "zcast.MessageInfo: sequence, publish time, publisher, slot and the pool location."},
    {"resize", (PyCFunction)message_resize, METH_O,
     "Untyped loans: sets the size to publish (at most the capacity)."},
    {"set_mark", (PyCFunction)message_set_mark, METH_O,
     "Loans: set_mark(mark) leaves mark (32 bits, 0: none) in the topic when the publish reaches "
     "somebody (Publisher.last_mark)."},
    {"set_len", (PyCFunction)message_set_len, METH_VARARGS,
     "Typed loans: set_len(member, n) sets a sequence's length (at most its bound) and returns "
     "the member."},
    {"to_dict", (PyCFunction)message_to_dict, METH_NOARGS,
     "Typed messages: every member as a dict (arrays as numpy copies)."},
    {"raw", (PyCFunction)message_raw, METH_O,
     "Typed messages: raw(member) is the bytes of a string or primitive array member, as a "
     "memoryview of the message (no copy)."},
    {"__dir__", (PyCFunction)message_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyObject *get_size(PzMessage *msg, void *c)
{
	(void)c;
	if (pz_message_check(msg) < 0)
		return NULL;
	return PyLong_FromSize_t(msg->size);
}

static PyObject *get_capacity(PzMessage *msg, void *c)
{
	(void)c;
	if (pz_message_check(msg) < 0)
		return NULL;
	return PyLong_FromSize_t(msg->m ? zcast_msg_capacity(msg->m) : msg->size);
}

static PyObject *get_is_loan(PzMessage *msg, void *c)
{
	(void)c;
	return PyBool_FromLong(msg->loan);
}

static PyObject *get_alive(PzMessage *msg, void *c)
{
	(void)c;
	return PyBool_FromLong(msg->state == PZ_LIVE && holds(msg));
}

static PyObject *get_exports(PzMessage *msg, void *c)
{
	(void)c;
	return PyLong_FromSsize_t(msg->exports);
}

static PyObject *get_msg_type(PzMessage *msg, void *c)
{
	(void)c;
	if (!msg->type)
		Py_RETURN_NONE;
	return pz_msgtype_new(msg->type);
}

static PyGetSetDef message_getset[] = {
    {"size", (getter)get_size, NULL, "payload bytes", NULL},
    {"capacity", (getter)get_capacity, NULL, "slot capacity", NULL},
    {"is_loan", (getter)get_is_loan, NULL, "True for a loan (writable)", NULL},
    {"alive", (getter)get_alive, NULL, "False once published or released", NULL},
    {"exports", (getter)get_exports, NULL, "buffers exported and not yet released", NULL},
    {"msg_type", (getter)get_msg_type, NULL, "zcast.MsgType of a typed message, else None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static int field_named(const zcast_cdr_type *t, PyObject *name)
{
	const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
	if (!s) {
		PyErr_Clear();
		return 0;
	}
	for (uint32_t i = 0; i < t->n_fields; i++)
		if (!strcmp(t->fields[i].name, s))
			return 1;
	return 0;
}

/* Typed messages: members come first (a member named like a method hides it; the method stays
 * reachable as zcast.Message.<name>(msg)). */
static PyObject *message_getattro(PzMessage *msg, PyObject *name)
{
	if (msg->type && field_named(msg->type, name)) {
		if (pz_members_check(msg) < 0)
			return NULL;
		return pz_view_getattr(msg, msg->type, msg->off, msg->aux, msg->bounds, name);
	}
	return PyObject_GenericGetAttr((PyObject *)msg, name);
}

static int message_setattro(PzMessage *msg, PyObject *name, PyObject *value)
{
	if (msg->type && field_named(msg->type, name)) {
		if (pz_members_check(msg) < 0)
			return -1;
		return pz_view_setattr(msg, msg->type, msg->off, msg->aux, msg->bounds, name,
				       value);
	}
	return PyObject_GenericSetAttr((PyObject *)msg, name, value);
}

static PyObject *message_repr(PzMessage *msg)
{
	const char *kind = msg->loan ? "loan" : "message";
	if (msg->state != PZ_LIVE || !holds(msg))
		return PyUnicode_FromFormat("<zcast %s (%s)>", kind,
					    msg->state == PZ_PUBLISHED ? "published" : "released");
	return PyUnicode_FromFormat("<zcast %s %s%zu bytes>", kind,
				    msg->type ? msg->type->name : "", msg->size);
}

PyTypeObject PzMessage_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Message",
    .tp_basicsize = sizeof(PzMessage),
    .tp_dealloc = (destructor)message_dealloc,
    .tp_repr = (reprfunc)message_repr,
    .tp_getattro = (getattrofunc)message_getattro,
    .tp_setattro = (setattrofunc)message_setattro,
    .tp_as_buffer = &message_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A loan being written (Publisher.loan) or a received message (read-only).\n"
	      "memoryview(msg) and numpy.frombuffer(msg) see the shared memory itself.",
    .tp_methods = message_methods,
    .tp_getset = message_getset,
};

int pz_message_types_init(PyObject *module)
{
	info_type = PyStructSequence_NewType(&info_desc);
	if (!info_type || PyModule_AddObjectRef(module, "MessageInfo", (PyObject *)info_type) < 0)
		return -1;
	if (PyType_Ready(&PzMessage_Type) < 0 || PyType_Ready(&PzSpan_Type) < 0)
		return -1;
	return PyModule_AddObjectRef(module, "Message", (PyObject *)&PzMessage_Type);
}
