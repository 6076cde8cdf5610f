/* zcast.BagFile: one MCAP file of a recording (docs/RECORDING.md), read through the zcast tool's
 * own reader (tools/bag: every record checked, zstd / lz4 chunks, bad input as "file: offset:
 * what"). Iterating yields (channel id, sequence, log time, publish time, zcast.Message): each
 * message a read-only copy of its recorded bytes (read from the file straight into the message's
 * buffer: one copy), typed (members, numpy arrays) for the channels set_type() named. A failure of
 * the system (no such file, a read error) raises the OSError of its errno, bad content (also a
 * file cut shorter while it is read) zcast.Corrupt. zcast.Bag (python/zcast/bag.py) walks the
 * files of a recording with it. */
#include <fnmatch.h>

#include "bag.h"
#include "pyzcast.h"

typedef struct {
	PyObject_HEAD struct bag_reader r;
	PyObject *path;		      /* bytes (the reader keeps a pointer to them) */
	int open;		      /* r is open (bag_open ran) */
	const zcast_cdr_type **types; /* by channel id (ntypes entries): set_type() */
	size_t ntypes;
} PzBag;

static int bag_live(PzBag *b)
{
	if (b->open)
		return 0;
	pz_raisef(ZCAST_ESTALE, "the recording file is closed");
	return -1;
}

/* The reader's error: the OSError subclass of its errno (FileNotFoundError, ...) when the system
 * failed, zcast.Corrupt when the file's content is bad. */
static PyObject *bag_raise(PzBag *b)
{
	if (!b->r.err_errno)
		return pz_raisef(ZCAST_ECORRUPT, "%s", b->r.err.text);
	PyObject *name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(b->path));
	PyObject *args = name ? Py_BuildValue("(isN)", b->r.err_errno, b->r.err.text, name) : NULL;
	if (args) /* OSError(errno, ...) is made the subclass of that errno */
		PyErr_SetObject(PyExc_OSError, args);
	Py_XDECREF(args);
	return NULL;
}

static void bag_shut(PzBag *b)
{
	if (b->open)
		bag_close(&b->r);
	b->open = 0;
}

static void bag_dealloc(PzBag *b)
{
	bag_shut(b);
	Py_XDECREF(b->path);
	PyMem_Free(b->types);
	Py_TYPE(b)->tp_free((PyObject *)b);
}

static int bag_init(PzBag *b, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", NULL};
	PyObject *path = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, PyUnicode_FSConverter, &path))
		return -1;
	bag_shut(b);
	Py_XSETREF(b->path, path);
	/* The GIL stays held while the reader works: no other thread can close it meanwhile. */
	b->open = 1;
	if (bag_open(PyBytes_AS_STRING(path), &b->r) != 0) {
		bag_raise(b);
		bag_shut(b);
		return -1;
	}
	int top = 0;
	for (int i = 0; i < b->r.nchannels; i++)
		top = b->r.channels[i].id > top ? b->r.channels[i].id : top;
	PyMem_Free(b->types);
	b->ntypes = (size_t)top + 1;
	b->types = PyMem_Calloc(b->ntypes, sizeof *b->types);
	if (!b->types) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

/* A key/value list of the reader as a dict of str (bytes that are not UTF-8 are replaced). */
static PyObject *kv_dict(char *const *kv, int n)
{
	PyObject *d = PyDict_New();
	for (int i = 0; d && i < n; i++) {
		PyObject *v = PyUnicode_DecodeUTF8(kv[2 * i + 1], (Py_ssize_t)strlen(kv[2 * i + 1]),
						   "replace");
		if (!v || PyDict_SetItemString(d, kv[2 * i], v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *channel_dict(const struct bag_reader *r, const struct bag_channel *c)
{
	const struct bag_schema *s = c->schema_id ? bag_schema_get(r, c->schema_id) : NULL;
	PyObject *meta = kv_dict(c->meta, c->nmeta);
	if (!meta)
		return NULL;
	return Py_BuildValue("{s:i,s:s,s:s,s:z,s:z,s:y#,s:N,s:K}", "id", c->id, "topic", c->topic,
			     "message_encoding", c->encoding, "schema_name", s ? s->name : NULL,
			     "schema_encoding", s ? s->encoding : NULL, "schema",
			     s ? (const char *)s->data : "", (Py_ssize_t)(s ? s->len : 0),
			     "metadata", meta, "messages", (unsigned long long)c->count);
}

static PyObject *get_channels(PzBag *b, void *c)
{
	(void)c;
	if (bag_live(b) < 0)
		return NULL;
	PyObject *list = PyList_New(b->r.nchannels);
	for (int i = 0; list && i < b->r.nchannels; i++) {
		PyObject *d = channel_dict(&b->r, &b->r.channels[i]);
		if (!d)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, d);
	}
	return list;
}

static PyObject *get_metadata(PzBag *b, void *c)
{
	(void)c;
	if (bag_live(b) < 0)
		return NULL;
	PyObject *d = PyDict_New();
	for (int i = 0; d && i < b->r.nmetadata; i++) {
		PyObject *kv = kv_dict(b->r.metadata[i].meta, b->r.metadata[i].nmeta);
		if (!kv || PyDict_SetItemString(d, b->r.metadata[i].name, kv) < 0)
			Py_CLEAR(d);
		Py_XDECREF(kv);
	}
	return d;
}

static PyObject *get_summary(PzBag *b, void *c)
{
	(void)c;
	if (bag_live(b) < 0)
		return NULL;
	const struct bag_reader *r = &b->r;
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:O,s:s,s:s}", "messages",
			     (unsigned long long)r->messages, "chunks", (unsigned long long)r->chunks,
			     "start_time", (unsigned long long)r->start_time, "end_time",
			     (unsigned long long)r->end_time, "truncated",
			     r->truncated ? Py_True : Py_False, "compression", r->compression,
			     "profile", r->profile ? r->profile : "");
}

static PyObject *bag_set_type(PzBag *b, PyObject *args)
{
	int id;
	PyObject *t;
	if (!PyArg_ParseTuple(args, "iO!", &id, &PzMsgType_Type, &t) || bag_live(b) < 0)
		return NULL;
	if (id < 0 || (size_t)id >= b->ntypes || !bag_channel_get(&b->r, (uint16_t)id))
		return pz_raisef(ZCAST_EINVAL, "set_type: the file has no channel %d", id);
	b->types[id] = ((PzMsgType *)t)->type;
	Py_RETURN_NONE;
}

static PyObject *bag_rewind_m(PzBag *b, PyObject *unused)
{
	(void)unused;
	if (bag_live(b) < 0)
		return NULL;
	bag_rewind(&b->r);
	Py_RETURN_NONE;
}

static PyObject *bag_close_m(PzBag *b, PyObject *unused)
{
	(void)unused;
	bag_shut(b);
	Py_RETURN_NONE;
}

static PyObject *bag_enter(PzBag *b, PyObject *unused)
{
	(void)unused;
	Py_INCREF(b);
	return (PyObject *)b;
}

static PyObject *bag_exit(PzBag *b, PyObject *args)
{
	(void)args;
	bag_shut(b);
	Py_RETURN_FALSE;
}

static PyObject *bag_iter(PzBag *b)
{
	if (bag_live(b) < 0)
		return NULL;
	Py_INCREF(b);
	return (PyObject *)b;
}

/* A message typed for its channel: its CDR validated (a bad one raises naming file and offset). */
static PyObject *typed(PzBag *b, PyObject *msg, const struct bag_message *m)
{
	const zcast_cdr_type *t = m->channel < b->ntypes ? b->types[m->channel] : NULL;
	if (!t || pz_message_read_typed((PzMessage *)msg, t) == 0)
		return msg;
	PyObject *type, *value, *tb;
	PyErr_Fetch(&type, &value, &tb);
	PyObject *why = value ? PyObject_Str(value) : NULL;
	const char *text = why ? PyUnicode_AsUTF8(why) : NULL;
	pz_raisef(ZCAST_ECORRUPT, "%s: %llu: message of %s: %s", b->r.path,
		  (unsigned long long)m->offset, t->name, text ? text : "bad CDR");
	Py_XDECREF(why);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
	Py_DECREF(msg);
	return NULL;
}

static PyObject *bag_iternext(PzBag *b)
{
	if (bag_live(b) < 0)
		return NULL;
	struct bag_message m;
	int k = bag_next_lazy(&b->r, &m);
	if (k < 0)
		return bag_raise(b);
	if (k == 0)
		return NULL; /* StopIteration */
	uint8_t *dst;
	PyObject *msg = pz_message_recorded(m.len, &dst);
	if (msg && bag_message_read(&b->r, &m, dst) < 0) {
		Py_DECREF(msg);
		return bag_raise(b);
	}
	if (!msg || !(msg = typed(b, msg, &m)))
		return NULL;
	return Py_BuildValue("(iKKKN)", m.channel, (unsigned long long)m.sequence,
			     (unsigned long long)m.log_time, (unsigned long long)m.publish_time, msg);
}

/* The match of zcast record's TOPIC_PATTERNs and zcast play --topics (POSIX fnmatch, no flags):
 * Python's fnmatch differs ([^a] is not a negation there, '\\' no escape). */
static PyObject *bag_topic_matches(PyObject *unused, PyObject *args)
{
	(void)unused;
	const char *pattern, *topic;
	if (!PyArg_ParseTuple(args, "ss", &pattern, &topic))
		return NULL;
	return PyBool_FromLong(fnmatch(pattern, topic, 0) == 0);
}

static PyMethodDef bag_methods[] = {
    {"topic_matches", (PyCFunction)bag_topic_matches, METH_VARARGS | METH_STATIC,
     "topic_matches(pattern, topic): True when the shell glob matches the topic as zcast record "
     "and zcast play --topics match it."},
    {"set_type", (PyCFunction)bag_set_type, METH_VARARGS,
     "set_type(channel_id, MsgType): that channel's messages come typed (validated CDR)."},
    {"rewind", (PyCFunction)bag_rewind_m, METH_NOARGS, "Starts the messages over."},
    {"close", (PyCFunction)bag_close_m, METH_NOARGS, "Closes the file (messages stay valid)."},
    {"__enter__", (PyCFunction)bag_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)bag_exit, METH_VARARGS, "close()"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef bag_getset[] = {
    {"channels", (getter)get_channels, NULL,
     "list of dicts: id, topic, message_encoding, schema_name, schema_encoding, schema (bytes), "
     "metadata (dict), messages",
     NULL},
    {"metadata", (getter)get_metadata, NULL, "the file's Metadata records: name -> dict", NULL},
    {"summary", (getter)get_summary, NULL,
     "dict: messages, chunks, start_time, end_time (ns), truncated (no footer: its recorder "
     "died), compression, profile",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PzBag_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.BagFile",
    .tp_basicsize = sizeof(PzBag),
    .tp_dealloc = (destructor)bag_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BagFile(path): one MCAP file, checked as it opens; iterating yields (channel, "
	      "sequence, log_time_ns, publish_time_ns, Message). zcast.Bag reads recordings.",
    .tp_iter = (getiterfunc)bag_iter,
    .tp_iternext = (iternextfunc)bag_iternext,
    .tp_methods = bag_methods,
    .tp_getset = bag_getset,
    .tp_init = (initproc)bag_init,
    .tp_new = PyType_GenericNew,
};

int pz_bag_init(PyObject *module)
{
	if (PyType_Ready(&PzBag_Type) < 0)
		return -1;
	return PyModule_AddObjectRef(module, "BagFile", (PyObject *)&PzBag_Type);
}
