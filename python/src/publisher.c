/* zcast.Publisher: loans (untyped or typed) and publish.
 *
 * A zcast_pub is used by one thread at a time (C contract), and the GIL is released inside every
 * call, so each publisher has a lock that its calls take. Typed publishers lay loans out with the
 * CDR writer (zcast_cdr_layout) and compact them once at publish (zcast_cdr_compact): a publish
 * that fails (QueueFull) leaves the loan compacted, and a retry publishes it as it is. */
#include <limits.h>

#include "pyzcast.h"

static int lock(PzPublisher *p)
{
	if (!PyThread_acquire_lock(p->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(p->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	if (!p->pub) {
		PyThread_release_lock(p->lock);
		pz_raisef(ZCAST_ESTALE, "publisher is closed");
		return -1;
	}
	return 0;
}

static void unlock(PzPublisher *p)
{
	PyThread_release_lock(p->lock);
}

int pz_u32(PyObject *o, void *out)
{
	unsigned long x = PyLong_Check(o) ? PyLong_AsUnsignedLong(o) : 0;
	if (!PyLong_Check(o) || PyErr_Occurred() || x > UINT32_MAX) {
		PyErr_Clear();
		PyErr_Format(PyExc_ValueError, "expected an integer in 0..%u, got %R", UINT32_MAX, o);
		return 0;
	}
	*(uint32_t *)out = (uint32_t)x;
	return 1;
}

int pz_u64(PyObject *o, void *out)
{
	unsigned long long x = PyLong_Check(o) ? PyLong_AsUnsignedLongLong(o) : 0;
	if (!PyLong_Check(o) || PyErr_Occurred()) {
		PyErr_Clear();
		PyErr_Format(PyExc_ValueError, "expected an integer in 0..%llu, got %R",
			     (unsigned long long)UINT64_MAX, o);
		return 0;
	}
	*(uint64_t *)out = (uint64_t)x;
	return 1;
}

/* Keyword arguments of zcast_topic_opts, shared with Subscriber. */
int pz_topic_opts(PyObject *kw, zcast_topic_opts *t)
{
	static const char *const names[] = {"max_publishers",  "max_subscribers",
					    "max_queue_depth", "history_capacity",
					    "retain",	       "mode"};
	uint32_t *dst[] = {&t->max_publishers,
			   &t->max_subscribers,
			   &t->max_queue_depth,
			   &t->history_capacity,
			   NULL,
			   &t->mode};
	zcast_topic_opts_init(t);
	for (int i = 0; kw && i < 6; i++) {
		PyObject *v = PyDict_GetItemString(kw, names[i]);
		if (!v)
			continue;
		if (!dst[i]) {
			t->retain = PyObject_IsTrue(v);
		} else {
			if (!pz_u32(v, dst[i])) {
				PyErr_Format(PyExc_ValueError, "%s must be an integer in 0..%u, got %R",
					     names[i], UINT32_MAX, v);
				return -1;
			}
		}
		if (PyDict_DelItemString(kw, names[i]) < 0)
			return -1;
	}
	return 0;
}

static int pub_init(PzPublisher *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"topic",     "type",	    "bounds",	     "domain",
				 "slot_size", "slot_count", "history_depth", NULL};
	const char *topic, *domain = NULL;
	PyObject *type = Py_None, *bounds = Py_None;
	Py_ssize_t slot_size = 0;
	uint32_t slot_count = 0, history = 0;
	PyObject *kw = kwargs ? PyDict_Copy(kwargs) : NULL;
	zcast_topic_opts topts;
	if ((kwargs && !kw) || pz_topic_opts(kw, &topts) < 0 ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "s|OOznO&O&", kwlist, &topic, &type, &bounds,
					 &domain, &slot_size, pz_u32, &slot_count, pz_u32,
					 &history)) {
		Py_XDECREF(kw);
		return -1;
	}
	Py_XDECREF(kw);
	if (self->pub) {
		PyErr_SetString(PyExc_RuntimeError, "Publisher already initialized");
		return -1;
	}
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	o.domain = domain;
	if (slot_size > 0)
		o.slot_size = (size_t)slot_size;
	if (slot_count)
		o.slot_count = slot_count;
	o.history_depth = history;
	o.topic = topts;
	if (type != Py_None) {
		const zcast_cdr_type *t = pz_type_lookup(type);
		if (!t)
			return -1;
		uint32_t *b = PyMem_Calloc(t->n_bounds ? t->n_bounds : 1, 4);
		if (!b) {
			PyErr_NoMemory();
			return -1;
		}
		size_t max;
		int e = 0;
		if (pz_bounds_from(t, bounds, b) < 0 ||
		    (e = zcast_cdr_bound_size(t, b, &max)) < 0) {
			if (!PyErr_Occurred())
				pz_raise(e);
			PyMem_Free(b);
			return -1;
		}
		o.type_name = t->name;
		memcpy(o.type_hash, t->hash, ZCAST_TYPE_HASH_SIZE);
		if (o.slot_size < ZCAST_TYPED_PREFIX + max) /* every loan fits at these bounds */
			o.slot_size = ZCAST_TYPED_PREFIX + max;
		self->type = t, self->bounds = b, self->max_size = max;
	} else if (bounds != Py_None) {
		PyErr_SetString(PyExc_ValueError, "bounds are for typed publishers (give type=)");
		return -1;
	}
	zcast_pub *pub;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_pub_open(topic, &o, &pub);
	Py_END_ALLOW_THREADS
	if (e < 0) {
		pz_raise(e);
		return -1;
	}
	self->pub = pub;
	return 0;
}

static PyObject *pub_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
	(void)args, (void)kw;
	PzPublisher *self = (PzPublisher *)cls->tp_alloc(cls, 0);
	if (!self)
		return NULL;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	return (PyObject *)self;
}

static void close_pub(PzPublisher *self)
{
	zcast_pub *pub = self->pub;
	self->pub = NULL;
	if (pub) {
		Py_BEGIN_ALLOW_THREADS
		zcast_pub_close(pub);
		Py_END_ALLOW_THREADS
	}
}

static void pub_dealloc(PzPublisher *self)
{
	close_pub(self); /* loans still alive stay valid (C keeps the pool), unpublishable */
	if (self->lock)
		PyThread_free_lock(self->lock);
	PyMem_Free(self->bounds);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *pub_close(PzPublisher *self, PyObject *unused)
{
	(void)unused;
	if (self->pub && lock(self) == 0) {
		close_pub(self);
		unlock(self);
	}
	Py_RETURN_NONE;
}

struct loan_ctx {
	zcast_pub *pub;
	size_t size;
	zcast_msg *m;
};

static int loan_wait(void *c, int64_t timeout_ns)
{
	struct loan_ctx *l = c;
	return zcast_loan_wait(l->pub, l->size, timeout_ns, &l->m);
}

/* A raw loan of `size` bytes; timeout as Publisher.loan. */
static zcast_msg *do_loan(PzPublisher *self, size_t size, PyObject *timeout)
{
	struct loan_ctx l = {self->pub, size, NULL};
	int e;
	if (timeout && timeout != Py_None && PyObject_Not(timeout) == 1) {
		Py_BEGIN_ALLOW_THREADS
		e = zcast_loan(l.pub, size, &l.m);
		Py_END_ALLOW_THREADS
	} else {
		e = pz_wait_sliced(loan_wait, &l, timeout);
	}
	if (e == INT_MIN)
		return NULL;
	if (e < 0) {
		pz_raise(e);
		return NULL;
	}
	return l.m;
}

static PyObject *pub_loan(PzPublisher *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"size", "timeout", NULL};
	Py_ssize_t size = -1;
	PyObject *timeout = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|nO", kwlist, &size, &timeout))
		return NULL;
	if (!timeout)
		timeout = PyLong_FromLong(0);
	else
		Py_INCREF(timeout);
	if (self->type) {
		Py_DECREF(timeout);
		return pz_raisef(ZCAST_EINVAL, "a typed publisher loans with loan_typed()");
	}
	if (size < 0) {
		Py_DECREF(timeout);
		return pz_raisef(ZCAST_EINVAL, "loan: give the size in bytes");
	}
	if (lock(self) < 0) {
		Py_DECREF(timeout);
		return NULL;
	}
	zcast_msg *m = do_loan(self, (size_t)size, timeout);
	unlock(self);
	Py_DECREF(timeout);
	return m ? pz_message_new(m, 1, (PyObject *)self) : NULL;
}

static PyObject *pub_loan_typed(PzPublisher *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"bounds", "timeout", NULL};
	PyObject *bounds = Py_None, *timeout = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &bounds, &timeout))
		return NULL;
	const zcast_cdr_type *t = self->type;
	if (!t)
		return pz_raisef(ZCAST_EINVAL, "loan_typed: the publisher is untyped (give type=)");
	uint32_t n = t->n_bounds ? t->n_bounds : 1;
	uint32_t *b = PyMem_Calloc(n, 4);
	if (!b)
		return PyErr_NoMemory();
	size_t size = self->max_size;
	int e = 0;
	if (bounds == Py_None) {
		memcpy(b, self->bounds, 4ull * t->n_bounds);
	} else if (pz_bounds_from(t, bounds, b) < 0) {
		PyMem_Free(b);
		return NULL;
	} else {
		for (uint32_t i = 0; i < t->n_bounds && !e; i++)
			if (b[i] > self->bounds[i])
				e = ZCAST_EINVAL;
		if (e)
			pz_raisef(e, "%s: loan bounds above the publisher's (entry values %s)",
				  t->name, "must each be at most the publisher's");
		else if ((e = zcast_cdr_bound_size(t, b, &size)) < 0)
			pz_raise(e);
	}
	PyObject *tmo = timeout ? Py_NewRef(timeout) : PyLong_FromLong(0);
	zcast_msg *m = NULL;
	if (!e && lock(self) == 0) {
		m = do_loan(self, ZCAST_TYPED_PREFIX + size, tmo);
		unlock(self);
	}
	Py_XDECREF(tmo);
	PzMessage *msg = m ? (PzMessage *)pz_message_new(m, 1, (PyObject *)self) : NULL;
	if (!msg) {
		PyMem_Free(b);
		return NULL;
	}
	if (pz_message_lay_out(msg, t, b, size) < 0) {
		Py_DECREF(msg);
		return NULL;
	}
	return (PyObject *)msg;
}

struct publish_ctx {
	zcast_pub *pub;
	zcast_msg *m;
};

static int publish_wait(void *c, int64_t timeout_ns)
{
	struct publish_ctx *p = c;
	return zcast_publish_wait(p->pub, p->m, timeout_ns);
}

static PyObject *pub_publish(PzPublisher *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"msg", "timeout", NULL};
	PyObject *obj, *timeout = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|O", kwlist, &PzMessage_Type, &obj, &timeout))
		return NULL;
	PzMessage *msg = (PzMessage *)obj;
	if (pz_message_check(msg) < 0)
		return NULL;
	if (!msg->loan || msg->owner != (PyObject *)self)
		return pz_raisef(ZCAST_EINVAL,
				 "publish: the message is not a loan of this publisher");
	if (msg->exports)
		return PyErr_Format(
		    pz_BufferExported,
		    "publish refused: %zd buffer(s) of the message (memoryview, numpy "
		    "array) are still alive and could write into the published slot; "
		    "release them first (del the array, memoryview.release())",
		    msg->exports);
	if (msg->type && !msg->compacted) {
		size_t size;
		int e = zcast_cdr_compact(msg->type, msg->bounds, msg->base, &size);
		if (e < 0 || (e = zcast_msg_resize(msg->m, ZCAST_TYPED_PREFIX + size)) < 0) {
			pz_raise(e); /* a count above its bound; the loan is partly compacted */
			pz_message_release(msg);
			return NULL;
		}
		msg->compacted = 1;
		msg->size = ZCAST_TYPED_PREFIX + size;
	}
	if (lock(self) < 0)
		return NULL;
	struct publish_ctx p = {self->pub, msg->m};
	msg->state = PZ_BUSY; /* other threads: hands off while the GIL is released */
	int e;
	if (!timeout || (timeout != Py_None && PyObject_Not(timeout) == 1)) { /* None: forever */
		Py_BEGIN_ALLOW_THREADS
		e = zcast_publish(p.pub, p.m);
		Py_END_ALLOW_THREADS
	} else {
		e = pz_wait_sliced(publish_wait, &p, timeout);
	}
	unlock(self);
	if (e == 0) {
		msg->state = PZ_PUBLISHED;
		msg->m = NULL; /* consumed */
		msg->data = NULL;
		Py_RETURN_NONE;
	}
	msg->state = PZ_LIVE;
	return e == INT_MIN ? NULL : pz_raise(e);
}

static PyObject *pub_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *pub_exit(PzPublisher *self, PyObject *args)
{
	(void)args;
	PyObject *r = pub_close(self, NULL);
	Py_XDECREF(r);
	if (!r)
		return NULL;
	Py_RETURN_FALSE;
}

/* Probes the liveness of every subscriber record (a syscall each): under the publisher's lock (a
 * zcast_pub is used by one thread at a time), the GIL released, as every call into the publisher.
 * It waits for a publish another thread is making (test python_pub_threads). */
static PyObject *pub_matched(PzPublisher *self, void *c)
{
	(void)c;
	if (lock(self) < 0)
		return NULL;
	int n;
	Py_BEGIN_ALLOW_THREADS
	n = zcast_pub_matched(self->pub);
	Py_END_ALLOW_THREADS
	unlock(self);
	return n < 0 ? pz_raise(n) : PyLong_FromLong(n);
}

static PyObject *pub_id(PzPublisher *self, void *c)
{
	(void)c;
	if (!self->pub)
		return pz_raisef(ZCAST_ESTALE, "publisher is closed");
	return PyLong_FromUnsignedLongLong(zcast_pub_id(self->pub));
}

/* Takes the topic lock (a holder may keep it up to its timeout): under the publisher's lock, the
 * GIL released, as every call that may wait. */
static PyObject *pub_last_mark(PzPublisher *self, void *c)
{
	(void)c;
	if (lock(self) < 0)
		return NULL;
	uint32_t mark = 0;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_pub_last_mark(self->pub, &mark);
	Py_END_ALLOW_THREADS
	unlock(self);
	return e < 0 ? pz_raise(e) : PyLong_FromUnsignedLong(mark);
}

static PyObject *pub_type(PzPublisher *self, void *c)
{
	(void)c;
	return self->type ? pz_msgtype_new(self->type) : Py_NewRef(Py_None);
}

static PyObject *pub_closed(PzPublisher *self, void *c)
{
	(void)c;
	return PyBool_FromLong(!self->pub);
}

static PyMethodDef pub_methods[] = {
    {"loan", (PyCFunction)(void (*)(void))pub_loan, METH_VARARGS | METH_KEYWORDS,
     "loan(size, timeout=0): a writable Message of size bytes in a free slot. timeout: 0 = "
     "NoSlot at once, seconds, or None = wait forever."},
    {"loan_typed", (PyCFunction)(void (*)(void))pub_loan_typed, METH_VARARGS | METH_KEYWORDS,
     "loan_typed(bounds=None, timeout=0): a typed loan laid out at bounds (each at most the "
     "publisher's; None: the publisher's)."},
    {"publish", (PyCFunction)(void (*)(void))pub_publish, METH_VARARGS | METH_KEYWORDS,
     "publish(msg, timeout=0): delivers a loan; afterwards every access through msg raises. "
     "timeout: 0 = QueueFull at once when a FULL queue has no room, seconds, or None."},
    {"close", (PyCFunction)pub_close, METH_NOARGS, "Leaves the topic."},
    {"__enter__", pub_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)pub_exit, METH_VARARGS, "close()"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pub_getset[] = {
    {"matched", (getter)pub_matched, NULL, "active subscribers of the topic", NULL},
    {"id", (getter)pub_id, NULL, "member id (never reused within the topic)", NULL},
    {"last_mark", (getter)pub_last_mark, NULL,
     "the mark of the topic's newest marked publish that reached somebody (0: none), a dead "
     "publisher's included (takes the topic lock)",
     NULL},
    {"msg_type", (getter)pub_type, NULL, "zcast.MsgType, or None when untyped", NULL},
    {"closed", (getter)pub_closed, NULL, "True after close()", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject PzPublisher_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Publisher",
    .tp_basicsize = sizeof(PzPublisher),
    .tp_dealloc = (destructor)pub_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Publisher(topic, type=None, bounds=None, domain=None, slot_size=0, slot_count=0,\n"
	      "          history_depth=0, max_publishers=0, max_subscribers=0, max_queue_depth=0,\n"
	      "          history_capacity=0, retain=False, mode=0)",
    .tp_methods = pub_methods,
    .tp_getset = pub_getset,
    .tp_init = (initproc)pub_init,
    .tp_new = pub_new,
};
