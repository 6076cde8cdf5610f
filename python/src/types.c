/* zcast.MsgType and the type registry: how Python reaches the generated introspection tables.
 *
 * The extension is built with the headers zcast-msggen generates for the types zcast ships
 * (msg/), so those are always known. Types of a user's own packages come from a shared library
 * the user builds with zcast_generate_messages (docs/PYTHON.md): it exports
 *   const zcast_cdr_type *const zcast_types[] = {&my_pkg_msg_Pose_TYPE, ..., NULL};
 * and zcast.load_types(path) adds them. Lookup is by ROS 2 name ("sensor_msgs/msg/Image") or its
 * short form ("sensor_msgs/Image"). */
#include <dlfcn.h>

#include <zcast/types.h>

#include "pyzcast.h"

#include "zcast_shipped_types.h" /* every type of msg/ (tools/msggen/shipped_types.py) */

static const zcast_cdr_type *const shipped[] = {ZCAST_SHIPPED_TYPES NULL};

/* Registered types: the shipped ones, then every load_types() library's (kept loaded). */
static const zcast_cdr_type **reg;
static size_t n_reg, cap_reg;

static int reg_add(const zcast_cdr_type *t)
{
	for (size_t i = 0; i < n_reg; i++)
		if (!strcmp(reg[i]->name, t->name)) {
			if (memcmp(reg[i]->hash, t->hash, ZCAST_TYPE_HASH_SIZE)) {
				pz_raisef(ZCAST_ETYPE,
					  "type %s is already known with another RIHS01 hash",
					  t->name);
				return -1;
			}
			return 0;
		}
	if (n_reg == cap_reg) {
		size_t cap = cap_reg ? 2 * cap_reg : 32;
		const zcast_cdr_type **r = PyMem_Realloc(reg, cap * sizeof *r);
		if (!r) {
			PyErr_NoMemory();
			return -1;
		}
		reg = r, cap_reg = cap;
	}
	reg[n_reg++] = t;
	return 0;
}

const zcast_cdr_type *pz_type_lookup(PyObject *spec)
{
	if (PyObject_TypeCheck(spec, &PzMsgType_Type))
		return ((PzMsgType *)spec)->type;
	const char *name = PyUnicode_Check(spec) ? PyUnicode_AsUTF8(spec) : NULL;
	if (!name) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "type must be a name or a zcast.MsgType");
		return NULL;
	}
	for (size_t i = 0; i < n_reg; i++)
		if (zcast_type_name_is(reg[i]->name, name))
			return reg[i];
	const zcast_cdr_type *t; /* a type library on the search path (include/zcast/types.h) */
	if (zcast_types_find(name, NULL, &t) == 0 && reg_add(t) == 0)
		return t;
	pz_raisef(ZCAST_EINVAL,
		  "unknown message type %s (zcast.types() lists the known ones; type libraries are "
		  "searched on %s; zcast.load_types() adds one)",
		  name, zcast_types_path());
	return NULL;
}

/* ---- zcast.MsgType ---- */

PyObject *pz_msgtype_new(const zcast_cdr_type *t)
{
	PzMsgType *o = PyObject_New(PzMsgType, &PzMsgType_Type);
	if (o)
		o->type = t;
	return (PyObject *)o;
}

static PyObject *msgtype_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
	(void)cls;
	static char *kwlist[] = {"name", NULL};
	PyObject *name;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &name))
		return NULL;
	const zcast_cdr_type *t = pz_type_lookup(name);
	return t ? pz_msgtype_new(t) : NULL;
}

static void msgtype_dealloc(PyObject *o)
{
	PyObject_Free(o);
}

static PyObject *msgtype_name(PzMsgType *o, void *c)
{
	(void)c;
	return PyUnicode_FromString(o->type->name);
}

static PyObject *msgtype_hash_str(PzMsgType *o, void *c)
{
	(void)c;
	char s[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(o->type->hash, s);
	return PyUnicode_FromString(s);
}

static const char *shape_name(int shape)
{
	return shape == ZCAST_CDR_ONE ? "one" : shape == ZCAST_CDR_ARRAY ? "array" : "sequence";
}

/* Members as (name, kind, shape, count, string_bound, nested MsgType or None) tuples. */
static PyObject *msgtype_fields(PzMsgType *o, void *c)
{
	(void)c;
	const zcast_cdr_type *t = o->type;
	PyObject *list = PyList_New(t->n_fields);
	for (uint32_t i = 0; list && i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		PyObject *nested = f->type ? pz_msgtype_new(f->type) : Py_NewRef(Py_None);
		PyObject *item =
		    nested
			? Py_BuildValue("(sssIIN)", f->name,
					f->kind == ZCAST_CDR_STRUCT ? f->type->name
								    : zcast_cdr_kind_name(f->kind),
					shape_name(f->shape), f->count, f->string_bound, nested)
			: NULL;
		if (!item) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, i, item);
	}
	return list;
}

static PyObject *msgtype_repr(PzMsgType *o)
{
	return PyUnicode_FromFormat("zcast.MsgType('%s')", o->type->name);
}

static PyObject *msgtype_richcompare(PyObject *a, PyObject *b, int op)
{
	if (!PyObject_TypeCheck(b, &PzMsgType_Type) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	int eq = ((PzMsgType *)a)->type == ((PzMsgType *)b)->type;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t msgtype_hash(PzMsgType *o)
{
	return _Py_HashPointer((void *)o->type);
}

static PyGetSetDef msgtype_getset[] = {
    {"name", (getter)msgtype_name, NULL, "ROS 2 name, e.g. sensor_msgs/msg/Image", NULL},
    {"hash", (getter)msgtype_hash_str, NULL, "RIHS01 type hash", NULL},
    {"fields", (getter)msgtype_fields, NULL,
     "members: (name, kind, shape, count, string_bound, nested MsgType or None)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject PzMsgType_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.MsgType",
    .tp_basicsize = sizeof(PzMsgType),
    .tp_dealloc = msgtype_dealloc,
    .tp_repr = (reprfunc)msgtype_repr,
    .tp_hash = (hashfunc)msgtype_hash,
    .tp_richcompare = msgtype_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A generated message type: MsgType('sensor_msgs/Image').",
    .tp_getset = msgtype_getset,
    .tp_new = msgtype_new,
};

/* ---- module functions ---- */

static PyObject *types_list(PyObject *self, PyObject *unused)
{
	(void)self, (void)unused;
	PyObject *list = PyList_New((Py_ssize_t)n_reg);
	for (size_t i = 0; list && i < n_reg; i++) {
		PyObject *s = PyUnicode_FromString(reg[i]->name);
		if (!s) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

static PyObject *load_types(PyObject *self, PyObject *args)
{
	(void)self;
	const char *path, *symbol = "zcast_types";
	if (!PyArg_ParseTuple(args, "s|s", &path, &symbol))
		return NULL;
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* kept open: the tables live in it */
	if (!lib)
		return pz_raisef(ZCAST_EINVAL, "load_types: %s", dlerror());
	const zcast_cdr_type *const *list = dlsym(lib, symbol);
	if (!list) {
		dlclose(lib);
		return pz_raisef(ZCAST_EINVAL, "load_types: %s has no symbol %s", path, symbol);
	}
	PyObject *names = PyList_New(0);
	for (size_t i = 0; names && list[i]; i++) {
		PyObject *s = reg_add(list[i]) < 0 ? NULL : PyUnicode_FromString(list[i]->name);
		if (!s || PyList_Append(names, s) < 0) {
			Py_XDECREF(s);
			Py_CLEAR(names);
			break;
		}
		Py_DECREF(s);
	}
	return names;
}

static PyMethodDef types_methods[] = {
    {"types", types_list, METH_NOARGS, "Names of the message types zcast knows."},
    {"load_types", load_types, METH_VARARGS,
     "load_types(path, symbol='zcast_types'): adds the NULL-terminated zcast_cdr_type table "
     "array a shared library exports; returns the names added."},
    {NULL, NULL, 0, NULL},
};

int pz_types_init(PyObject *module)
{
	for (size_t i = 0; shipped[i]; i++)
		if (reg_add(shipped[i]) < 0)
			return -1;
	if (PyType_Ready(&PzMsgType_Type) < 0 ||
	    PyModule_AddObjectRef(module, "MsgType", (PyObject *)&PzMsgType_Type) < 0)
		return -1;
	return PyModule_AddFunctions(module, types_methods);
}
