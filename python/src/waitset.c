/* zcast.WaitSet and zcast.Guard: wait for many subscribers (and guards, timers) in one call.
 * The wait set keeps a reference to each attached object and marks attached subscribers, so none
 * is closed while attached (C: attached handles must stay open). */
#include <limits.h>

#include "pyzcast.h"

typedef struct {
	PyObject_HEAD zcast_guard *g;
} PzGuard;

typedef struct {
	PyObject_HEAD zcast_waitset *ws;
	PyObject *entries; /* id -> attached object (Subscriber, Guard) or None for a timer */
	int busy;	   /* a wait runs without the GIL: one thread at a time */
} PzWaitSet;

/* ---- Guard ---- */

static PyObject *guard_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
	if (!PyArg_ParseTuple(args, "") || (kw && PyDict_Size(kw)))
		return PyErr_Format(PyExc_TypeError, "Guard() takes no arguments");
	PzGuard *g = (PzGuard *)cls->tp_alloc(cls, 0);
	if (!g)
		return NULL;
	int e = zcast_guard_create(&g->g);
	if (e < 0) {
		Py_DECREF(g);
		return pz_raise(e);
	}
	return (PyObject *)g;
}

static void guard_dealloc(PzGuard *g)
{
	if (g->g)
		zcast_guard_destroy(g->g); /* wait sets hold a reference while attached */
	Py_TYPE(g)->tp_free((PyObject *)g);
}

static PyObject *guard_trigger(PzGuard *g, PyObject *unused)
{
	(void)unused;
	int e = zcast_guard_trigger(g->g);
	return e < 0 ? pz_raise(e) : Py_NewRef(Py_None);
}

static PyMethodDef guard_methods[] = {
    {"trigger", (PyCFunction)guard_trigger, METH_NOARGS,
     "Wakes every wait set the guard is attached to (from any thread)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject PzGuard_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Guard",
    .tp_basicsize = sizeof(PzGuard),
    .tp_dealloc = (destructor)guard_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A user trigger that wakes wait sets: Guard(); ws.add(guard); guard.trigger().",
    .tp_methods = guard_methods,
    .tp_new = guard_new,
};

/* ---- WaitSet ---- */

static PyObject *ws_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
	if (!PyArg_ParseTuple(args, "") || (kw && PyDict_Size(kw)))
		return PyErr_Format(PyExc_TypeError, "WaitSet() takes no arguments");
	PzWaitSet *w = (PzWaitSet *)cls->tp_alloc(cls, 0);
	if (!w)
		return NULL;
	if (!(w->entries = PyDict_New())) {
		Py_DECREF(w);
		return NULL;
	}
	int e = zcast_waitset_create(&w->ws);
	if (e < 0) {
		Py_DECREF(w);
		return pz_raise(e);
	}
	return (PyObject *)w;
}

static void detach(PyObject *obj)
{
	if (PyObject_TypeCheck(obj, &PzSubscriber_Type))
		((PzSubscriber *)obj)->attached--;
}

static void ws_dealloc(PzWaitSet *w)
{
	if (w->ws)
		zcast_waitset_destroy(w->ws);
	if (w->entries) {
		PyObject *k, *v;
		Py_ssize_t pos = 0;
		while (PyDict_Next(w->entries, &pos, &k, &v))
			detach(v);
		Py_DECREF(w->entries);
	}
	Py_TYPE(w)->tp_free((PyObject *)w);
}

static int check_idle(PzWaitSet *w)
{
	if (w->busy) {
		pz_raisef(ZCAST_EBUSY, "the wait set is waiting in another thread");
		return -1;
	}
	return 0;
}

static PyObject *remember(PzWaitSet *w, int id, PyObject *obj)
{
	PyObject *key = PyLong_FromLong(id);
	if (!key || PyDict_SetItem(w->entries, key, obj) < 0) {
		Py_XDECREF(key);
		zcast_waitset_remove(w->ws, id);
		return NULL;
	}
	Py_DECREF(key);
	if (PyObject_TypeCheck(obj, &PzSubscriber_Type))
		((PzSubscriber *)obj)->attached++;
	return PyLong_FromLong(id);
}

static PyObject *ws_add(PzWaitSet *w, PyObject *obj)
{
	if (check_idle(w) < 0)
		return NULL;
	int id, e;
	if (PyObject_TypeCheck(obj, &PzSubscriber_Type)) {
		PzSubscriber *s = (PzSubscriber *)obj;
		if (!s->sub)
			return pz_raisef(ZCAST_ESTALE, "subscriber is closed");
		e = zcast_waitset_add_sub(w->ws, s->sub, NULL, &id);
	} else if (PyObject_TypeCheck(obj, &PzGuard_Type)) {
		e = zcast_waitset_add_guard(w->ws, ((PzGuard *)obj)->g, NULL, &id);
	} else {
		return PyErr_Format(PyExc_TypeError, "add: a Subscriber or a Guard is needed");
	}
	return e < 0 ? pz_raise(e) : remember(w, id, obj);
}

static PyObject *ws_add_timer(PzWaitSet *w, PyObject *arg)
{
	if (check_idle(w) < 0)
		return NULL;
	double s = PyFloat_AsDouble(arg);
	if (s == -1.0 && PyErr_Occurred())
		return NULL;
	if (!(s >= 1e-9 && s <= 9e9)) /* a double beyond int64 ns would wrap: refused, as timeouts */
		return pz_raisef(ZCAST_EINVAL, "add_timer: the period must be 1e-9 .. 9e9 seconds");
	int id, e = zcast_waitset_add_timer(w->ws, (int64_t)(s * 1e9), NULL, &id);
	return e < 0 ? pz_raise(e) : remember(w, id, Py_None);
}

static PyObject *ws_remove(PzWaitSet *w, PyObject *arg)
{
	if (check_idle(w) < 0)
		return NULL;
	long id = PyLong_AsLong(arg);
	if (id == -1 && PyErr_Occurred())
		return NULL;
	PyObject *obj = PyDict_GetItem(w->entries, arg); /* borrowed */
	if (!obj)
		return pz_raisef(ZCAST_EINVAL, "remove: no entry %ld", id);
	int e = zcast_waitset_remove(w->ws, (int)id);
	if (e < 0)
		return pz_raise(e);
	detach(obj);
	if (PyDict_DelItem(w->entries, arg) < 0)
		return NULL;
	Py_RETURN_NONE;
}

struct ws_ctx {
	zcast_waitset *ws;
	zcast_ws_event ev[64];
};

static int ws_wait_fn(void *c, int64_t timeout_ns)
{
	struct ws_ctx *x = c;
	return zcast_waitset_wait(x->ws, timeout_ns, x->ev, 64);
}

/* The ready entries: attached objects (Subscriber, Guard), or the id of a timer. */
static PyObject *ws_wait(PzWaitSet *w, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"timeout", NULL};
	PyObject *timeout = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &timeout) || check_idle(w) < 0)
		return NULL;
	struct ws_ctx *x = PyMem_Malloc(sizeof *x);
	if (!x)
		return PyErr_NoMemory();
	x->ws = w->ws;
	w->busy = 1;
	int n = pz_wait_sliced(ws_wait_fn, x, timeout);
	w->busy = 0;
	PyObject *list = NULL;
	if (n == ZCAST_ETIMEDOUT)
		list = PyList_New(0);
	else if (n < 0 && n != INT_MIN)
		pz_raise(n);
	else if (n >= 0)
		list = PyList_New(0);
	for (int i = 0; list && i < n; i++) {
		PyObject *key = PyLong_FromLong(x->ev[i].id);
		PyObject *obj = key ? PyDict_GetItem(w->entries, key) : NULL;
		PyObject *item = obj == Py_None ? Py_NewRef(key) : Py_XNewRef(obj);
		Py_XDECREF(key);
		if (!item || PyList_Append(list, item) < 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	PyMem_Free(x);
	return list;
}

static PyMethodDef ws_methods[] = {
    {"add", (PyCFunction)ws_add, METH_O,
     "add(subscriber_or_guard) -> id. The wait set keeps it (a subscriber cannot be closed "
     "while attached)."},
    {"add_timer", (PyCFunction)ws_add_timer, METH_O,
     "add_timer(period_seconds) -> id; wait() reports the id at each expiry."},
    {"remove", (PyCFunction)ws_remove, METH_O, "remove(id)"},
    {"wait", (PyCFunction)(void (*)(void))ws_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(timeout=None) -> list of ready Subscribers, Guards and timer ids ([] on timeout)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject PzWaitSet_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.WaitSet",
    .tp_basicsize = sizeof(PzWaitSet),
    .tp_dealloc = (destructor)ws_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Waits for many subscribers, guards and timers at once (GIL released).",
    .tp_methods = ws_methods,
    .tp_new = ws_new,
};
