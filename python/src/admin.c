/* Topic-level functions for tools and tests: stat, list, gc, remove. */
#include "pyzcast.h"

static PyObject *topic_stat(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static char *kwlist[] = {"topic", "domain", NULL};
	const char *topic, *domain = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|z", kwlist, &topic, &domain))
		return NULL;
	zcast_topic_stat st;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = zcast_topic_stat_get(domain, topic, &st);
	Py_END_ALLOW_THREADS
	if (e < 0)
		return pz_raise(e);
	return Py_BuildValue(
	    "{sssIsIsIsIsKsIsKsKsKsK}", "type_name", st.type_name, "publishers", st.publishers,
	    "subscribers", st.subscribers, "history_len", st.history_len, "retain", st.retain,
	    "last_sequence", (unsigned long long)st.last_sequence, "pools", st.pools, "slots_total",
	    (unsigned long long)st.slots_total, "slots_free", (unsigned long long)st.slots_free,
	    "slots_loaned", (unsigned long long)st.slots_loaned, "slots_published",
	    (unsigned long long)st.slots_published);
}

static int add_name(const char *topic, void *ctx)
{
	PyObject *s = PyUnicode_FromString(topic);
	int e = !s || PyList_Append(ctx, s) < 0;
	Py_XDECREF(s);
	return e;
}

static PyObject *topic_list(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static char *kwlist[] = {"domain", NULL};
	const char *domain = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z", kwlist, &domain))
		return NULL;
	PyObject *list = PyList_New(0);
	if (!list)
		return NULL;
	int e = zcast_topic_list(domain, add_name, list);
	if (PyErr_Occurred() || e < 0) {
		Py_DECREF(list);
		return PyErr_Occurred() ? NULL : pz_raise(e);
	}
	return list;
}

static PyObject *topic_call(PyObject *args, PyObject *kw, int (*fn)(const char *, const char *))
{
	static char *kwlist[] = {"topic", "domain", NULL};
	const char *topic, *domain = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|z", kwlist, &topic, &domain))
		return NULL;
	int e;
	Py_BEGIN_ALLOW_THREADS
	e = fn(domain, topic);
	Py_END_ALLOW_THREADS
	return e < 0 ? pz_raise(e) : PyLong_FromLong(e);
}

static PyObject *topic_gc(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	return topic_call(args, kw, zcast_topic_gc);
}

static PyObject *topic_remove(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	return topic_call(args, kw, zcast_topic_remove);
}

PyMethodDef pz_admin_methods[] = {
    {"topic_stat", (PyCFunction)(void (*)(void))topic_stat, METH_VARARGS | METH_KEYWORDS,
     "topic_stat(topic, domain=None) -> dict: members, history and slot counts."},
    {"topic_list", (PyCFunction)(void (*)(void))topic_list, METH_VARARGS | METH_KEYWORDS,
     "topic_list(domain=None) -> topic names."},
    {"topic_gc", (PyCFunction)(void (*)(void))topic_gc, METH_VARARGS | METH_KEYWORDS,
     "topic_gc(topic, domain=None) -> dead members reclaimed."},
    {"topic_remove", (PyCFunction)(void (*)(void))topic_remove, METH_VARARGS | METH_KEYWORDS,
     "topic_remove(topic, domain=None): removes a topic without live members."},
    {NULL, NULL, 0, NULL},
};
