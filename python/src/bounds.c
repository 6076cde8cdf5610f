/* Bounds from Python: a dict keyed by member name, nested like the message, giving the uint32
 * entries of the generated bounds struct (include/zcast/cdr.h):
 *   string, string[N]: max bytes          T[] / T[<=N] of a primitive: max elements
 *   string[] : (max elements, max bytes)  message[] : (max elements, {nested bounds}) or max
 * elements message, message[N]: {nested bounds} A member left out takes its declared bound
 * (string<=N, T[<=N]); an unbounded one left out is an error naming it. Unknown member names are
 * errors too (a typo would otherwise be a silent 0). */
#include "pyzcast.h"

static int fill(const zcast_cdr_type *t, PyObject *spec, uint32_t *out, const char *path);

static int to_u32(PyObject *v, uint32_t *out, const char *path, const char *name)
{
	unsigned long long x = PyLong_AsUnsignedLongLong(v);
	if (PyErr_Occurred() || x > UINT32_MAX) {
		PyErr_Clear();
		pz_raisef(ZCAST_EINVAL, "bounds: %s%s must be an integer in 0..%u", path, name,
			  UINT32_MAX);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

static int declared(uint32_t bound, uint32_t *out, const char *path, const char *name,
		    const char *what)
{
	if (!bound) {
		pz_raisef(ZCAST_EINVAL, "bounds: %s%s is unbounded: give its %s", path, name, what);
		return -1;
	}
	*out = bound;
	return 0;
}

static int nested(const zcast_cdr_field *f, PyObject *v, uint32_t *out, const char *path)
{
	if (!f->type->n_bounds)
		return 0;
	char sub[256];
	PyOS_snprintf(sub, sizeof sub, "%s%s.", path, f->name);
	return fill(f->type, v, out, sub);
}

/* 0, or non-zero with an error set. */
static int field(const zcast_cdr_field *f, PyObject *v, uint32_t *b, const char *path)
{
	int seq = f->shape == ZCAST_CDR_SEQUENCE;
	if (f->kind == ZCAST_CDR_STRING && !seq) {
		if (v)
			return to_u32(v, b, path, f->name);
		return declared(f->string_bound, b, path, f->name, "most bytes");
	}
	if (f->kind == ZCAST_CDR_STRING) {
		if (!v)
			return declared(f->count, &b[0], path, f->name,
					"(most elements, most bytes)") ||
			       declared(f->string_bound, &b[1], path, f->name,
					"(most elements, most bytes)");
		PyObject *c, *l;
		if (!PyArg_ParseTuple(v, "OO", &c, &l)) {
			PyErr_Clear();
			pz_raisef(ZCAST_EINVAL, "bounds: %s%s needs (most elements, most bytes)",
				  path, f->name);
			return -1;
		}
		return to_u32(c, &b[0], path, f->name) || to_u32(l, &b[1], path, f->name);
	}
	if (f->kind != ZCAST_CDR_STRUCT)
		return !seq ? 0
		       : v  ? to_u32(v, b, path, f->name)
			    : declared(f->count, b, path, f->name, "most elements");
	if (!seq)
		return nested(f, v, b, path);
	PyObject *count = v, *inner = NULL;
	if (v && PyTuple_Check(v) && !PyArg_ParseTuple(v, "OO", &count, &inner))
		return -1;
	if (count ? to_u32(count, b, path, f->name)
		  : declared(f->count, b, path, f->name, "(most elements, {bounds})"))
		return -1;
	return nested(f, inner, b + 1, path);
}

static int fill(const zcast_cdr_type *t, PyObject *spec, uint32_t *out, const char *path)
{
	if (spec && spec != Py_None && !PyDict_Check(spec)) {
		pz_raisef(ZCAST_EINVAL, "bounds of %s%s must be a dict", path, t->name);
		return -1;
	}
	Py_ssize_t used = 0;
	for (uint32_t i = 0; i < t->n_fields; i++) {
		const zcast_cdr_field *f = &t->fields[i];
		PyObject *v = spec && spec != Py_None ? PyDict_GetItemString(spec, f->name) : NULL;
		used += v != NULL;
		if (field(f, v, out + f->bounds_index, path) != 0)
			return -1;
	}
	if (spec && spec != Py_None && used != PyDict_Size(spec)) {
		PyObject *key;
		Py_ssize_t pos = 0;
		while (PyDict_Next(spec, &pos, &key, NULL)) {
			const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
			int known = 0;
			for (uint32_t i = 0; k && i < t->n_fields; i++)
				known |= !strcmp(t->fields[i].name, k);
			if (!known) {
				PyErr_Clear();
				PyObject *r = PyObject_Repr(key);
				pz_raisef(ZCAST_EINVAL, "bounds: %s has no member %s%s", t->name,
					  path, r ? PyUnicode_AsUTF8(r) : "?");
				Py_XDECREF(r);
				return -1;
			}
		}
	}
	return 0;
}

int pz_bounds_from(const zcast_cdr_type *t, PyObject *spec, uint32_t *out)
{
	return fill(t, spec, out, "");
}
