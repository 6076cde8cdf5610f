/* zcast.Subscriber: take, wait (GIL released), iteration, async iteration through the pollable
 * descriptor (zcast/_aio.py), typed views of received messages.
 *
 * Several threads may take and wait at once (C contract); close must not race them, so calls
 * that run without the GIL are counted and close refuses while any runs (zcast.Busy). */
#include <limits.h>

#include "pyzcast.h"

static int enter(PzSubscriber *s)
{
	if (!s->sub) {
		pz_raisef(ZCAST_ESTALE, "subscriber is closed");
		return -1;
	}
	s->in_use++;
	return 0;
}

static void leave(PzSubscriber *s)
{
	s->in_use--;
}

static int sub_init(PzSubscriber *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = {"topic",	"type",	   "domain",   "policy",  "group",
				 "queue_depth", "history", "max_held", "spin_ns", NULL};
	const char *topic, *domain = NULL, *group = NULL;
	PyObject *type = Py_None;
	int policy = ZCAST_POLICY_FULL;
	uint32_t depth = 0, history = 0, max_held = 0;
	uint64_t spin = 0;
	PyObject *kw = kwargs ? PyDict_Copy(kwargs) : NULL;
	zcast_topic_opts topts;
	if ((kwargs && !kw) || pz_topic_opts(kw, &topts) < 0 ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "s|OzizO&O&O&O&", kwlist, &topic, &type, &domain,
					 &policy, &group, pz_u32, &depth, pz_u32, &history, pz_u32,
					 &max_held, pz_u64, &spin)) {
		Py_XDECREF(kw);
		return -1;
	}
	Py_XDECREF(kw);
	if (self->sub) {
		PyErr_SetString(PyExc_RuntimeError, "Subscriber already initialized");
		return -1;
	}
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.domain = domain;
	o.policy = policy;
	o.group = group;
	if (depth)
		o.queue_depth = depth;
	o.history = history;
	o.max_held = max_held;
	o.spin_ns = spin;
	o.topic = topts;
	if (type != Py_None) {
		const zcast_cdr_type *t = pz_type_lookup(type);
		if (!t)
			return -1;
		zcast_typed_sub_opts(&o, t);
		self->type = t;
	}
	zcast_sub *sub;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_sub_open(topic, &o, &sub);
	Py_END_ALLOW_THREADS
	if (e < 0) {
		pz_raise(e);
		return -1;
	}
	self->sub = sub;
	return 0;
}

static void close_sub(PzSubscriber *self)
{
	zcast_sub *sub = self->sub;
	self->sub = NULL;
	if (sub) {
		Py_BEGIN_ALLOW_THREADS
		zcast_sub_close(sub); /* messages still held stay valid */
		Py_END_ALLOW_THREADS
	}
}

static void sub_dealloc(PzSubscriber *self)
{
	close_sub(self); /* nothing runs on it: a running call holds a reference */
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *sub_close(PzSubscriber *self, PyObject *unused)
{
	(void)unused;
	if (self->in_use)
		return pz_raisef(ZCAST_EBUSY, "close: another thread is waiting on the subscriber");
	if (self->attached)
		return pz_raisef(ZCAST_EBUSY,
				 "close: the subscriber is in %d wait set(s); remove it "
				 "first",
				 self->attached);
	close_sub(self);
	Py_RETURN_NONE;
}

/* One message, or None when nothing is queued. */
static PyObject *sub_take(PzSubscriber *self, PyObject *unused)
{
	(void)unused;
	if (enter(self) < 0)
		return NULL;
	zcast_msg *m;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_take(self->sub, &m);
	Py_END_ALLOW_THREADS
	leave(self);
	if (e == ZCAST_EAGAIN)
		Py_RETURN_NONE;
	if (e < 0)
		return pz_raise(e);
	PyObject *msg = pz_message_new(m, 0, NULL);
	if (msg && self->type && pz_message_read_typed((PzMessage *)msg, self->type) < 0)
		Py_CLEAR(msg); /* drops the malformed message */
	return msg;
}

static int wait_fn(void *c, int64_t timeout_ns)
{
	return zcast_wait(c, timeout_ns);
}

/* 0 queued, ZCAST_ETIMEDOUT, INT_MIN (signal) or another error. */
static int do_wait(PzSubscriber *self, PyObject *timeout)
{
	if (enter(self) < 0)
		return INT_MIN;
	int e = pz_wait_sliced(wait_fn, self->sub, timeout);
	leave(self);
	if (e < 0 && e != ZCAST_ETIMEDOUT && e != INT_MIN)
		pz_raise(e);
	return e;
}

static PyObject *sub_wait(PzSubscriber *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"timeout", NULL};
	PyObject *timeout = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &timeout))
		return NULL;
	int e = do_wait(self, timeout);
	if (e == 0 || e == ZCAST_ETIMEDOUT)
		return PyBool_FromLong(e == 0);
	return NULL;
}

static PyObject *receive(PzSubscriber *self, PyObject *timeout)
{
	for (;;) {
		PyObject *msg = sub_take(self, NULL);
		if (msg != Py_None)
			return msg;
		Py_DECREF(msg);
		int e = do_wait(self, timeout);
		if (e == ZCAST_ETIMEDOUT)
			Py_RETURN_NONE;
		if (e != 0)
			return NULL;
	}
}

static PyObject *sub_receive(PzSubscriber *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"timeout", NULL};
	PyObject *timeout = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &timeout))
		return NULL;
	return receive(self, timeout);
}

/* For `with sub.next_message(timeout) as m:`: a timeout is an exception (zcast.Timeout, also a
 * TimeoutError), since `with` cannot take receive()'s None. */
static PyObject *sub_next_message(PzSubscriber *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"timeout", NULL};
	PyObject *timeout = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &timeout))
		return NULL;
	PyObject *msg = receive(self, timeout);
	if (msg != Py_None)
		return msg;
	Py_DECREF(msg);
	return pz_raisef(ZCAST_ETIMEDOUT, "no message within the timeout");
}

static PyObject *sub_iternext(PzSubscriber *self)
{
	return receive(self, Py_None);
}

static PyObject *sub_fileno(PzSubscriber *self, PyObject *unused)
{
	(void)unused;
	if (enter(self) < 0)
		return NULL;
	int fd, e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_sub_fd(self->sub, &fd);
	Py_END_ALLOW_THREADS
	leave(self);
	return e < 0 ? pz_raise(e) : PyLong_FromLong(fd);
}

static PyObject *sub_aiter(PyObject *self)
{
	PyObject *aio = PyImport_ImportModule("zcast._aio");
	if (!aio)
		return NULL;
	PyObject *it = PyObject_CallMethod(aio, "messages", "O", self);
	Py_DECREF(aio);
	return it;
}

static PyObject *sub_stat(PzSubscriber *self, PyObject *unused)
{
	(void)unused;
	if (!self->sub)
		return pz_raisef(ZCAST_ESTALE, "subscriber is closed");
	zcast_sub_stat st;
	int e = zcast_sub_stat_get(self->sub, &st);
	if (e < 0)
		return pz_raise(e);
	return Py_BuildValue("{sKsKsKsIsIsKsI}", "delivered", (unsigned long long)st.delivered,
			     "dropped", (unsigned long long)st.dropped, "rejected",
			     (unsigned long long)st.rejected, "queued", st.queued, "held", st.held,
			     "member_id", (unsigned long long)st.member_id, "history", st.history);
}

static PyObject *sub_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *sub_exit(PzSubscriber *self, PyObject *args)
{
	(void)args;
	PyObject *r = sub_close(self, NULL);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *sub_iter(PyObject *self)
{
	return Py_NewRef(self);
}

static PyObject *sub_matched(PzSubscriber *self, void *c)
{
	(void)c;
	if (!self->sub)
		return pz_raisef(ZCAST_ESTALE, "subscriber is closed");
	int n = zcast_sub_matched(self->sub);
	return n < 0 ? pz_raise(n) : PyLong_FromLong(n);
}

static PyObject *sub_queued(PzSubscriber *self, void *c)
{
	(void)c;
	if (!self->sub)
		return pz_raisef(ZCAST_ESTALE, "subscriber is closed");
	int n = zcast_sub_queued(self->sub);
	return n < 0 ? pz_raise(n) : PyLong_FromLong(n);
}

static PyObject *sub_id(PzSubscriber *self, void *c)
{
	(void)c;
	if (!self->sub)
		return pz_raisef(ZCAST_ESTALE, "subscriber is closed");
	return PyLong_FromUnsignedLongLong(zcast_sub_id(self->sub));
}

static PyObject *sub_type(PzSubscriber *self, void *c)
{
	(void)c;
	return self->type ? pz_msgtype_new(self->type) : Py_NewRef(Py_None);
}

static PyObject *sub_closed(PzSubscriber *self, void *c)
{
	(void)c;
	return PyBool_FromLong(!self->sub);
}

static PyMethodDef sub_methods[] = {
    {"take", (PyCFunction)sub_take, METH_NOARGS,
     "The next queued Message (read-only), or None when nothing is queued."},
    {"wait", (PyCFunction)(void (*)(void))sub_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(timeout=None): True when something is queued, False after timeout seconds."},
    {"receive", (PyCFunction)(void (*)(void))sub_receive, METH_VARARGS | METH_KEYWORDS,
     "receive(timeout=None): the next Message, waiting for it; None after timeout seconds."},
    {"next_message", (PyCFunction)(void (*)(void))sub_next_message, METH_VARARGS | METH_KEYWORDS,
     "next_message(timeout=None): the next Message, waiting for it; raises zcast.Timeout after "
     "timeout seconds (for `with sub.next_message(1.0) as m:`)."},
    {"fileno", (PyCFunction)sub_fileno, METH_NOARGS,
     "A descriptor readable while messages are queued (take until None re-arms it)."},
    {"stat", (PyCFunction)sub_stat, METH_NOARGS, "The subscriber's counters, as a dict."},
    {"close", (PyCFunction)sub_close, METH_NOARGS,
     "Leaves the topic; messages still held stay valid."},
    {"__enter__", sub_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)sub_exit, METH_VARARGS, "close()"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef sub_getset[] = {
    {"matched", (getter)sub_matched, NULL, "active publishers of the topic", NULL},
    {"queued", (getter)sub_queued, NULL, "messages queued now", NULL},
    {"id", (getter)sub_id, NULL, "member id (never reused within the topic)", NULL},
    {"msg_type", (getter)sub_type, NULL, "zcast.MsgType, or None when untyped", NULL},
    {"closed", (getter)sub_closed, NULL, "True after close()", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyAsyncMethods sub_async = {.am_aiter = sub_aiter};

PyTypeObject PzSubscriber_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Subscriber",
    .tp_basicsize = sizeof(PzSubscriber),
    .tp_dealloc = (destructor)sub_dealloc,
    .tp_as_async = &sub_async,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Subscriber(topic, type=None, domain=None, policy=FULL, group=None, queue_depth=0,\n"
	      "           history=0, max_held=0, spin_ns=0, + the topic limits of Publisher)\n"
	      "Iterating blocks for each next message; `async for` uses the event loop.",
    .tp_iter = sub_iter,
    .tp_iternext = (iternextfunc)sub_iternext,
    .tp_methods = sub_methods,
    .tp_getset = sub_getset,
    .tp_init = (initproc)sub_init,
    .tp_new = PyType_GenericNew,
};
