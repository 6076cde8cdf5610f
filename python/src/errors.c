/* Exceptions: one class per ZCAST_E* code under zcast.Error, each carrying zcast_last_error()'s
 * detailed text and the code (exc.code). */
#include <limits.h>
#include <stdarg.h>

#include "pyzcast.h"

struct pz_exc {
	int code;
	const char *name; /* class name in module zcast */
	PyObject **also;  /* a builtin base as well (so `except TimeoutError` works), or NULL */
	PyObject *cls;
};

static struct pz_exc excs[] = {
    {ZCAST_EINVAL, "InvalidArgument", &PyExc_ValueError, NULL},
    {ZCAST_ENOMEM, "NoMemory", &PyExc_MemoryError, NULL},
    {ZCAST_EAGAIN, "QueueFull", NULL, NULL},
    {ZCAST_ENOSLOT, "NoSlot", NULL, NULL},
    {ZCAST_ETIMEDOUT, "Timeout", &PyExc_TimeoutError, NULL},
    {ZCAST_ETYPE, "TypeMismatch", NULL, NULL},
    {ZCAST_ELIMIT, "LimitExceeded", NULL, NULL},
    {ZCAST_ECORRUPT, "Corrupt", NULL, NULL},
    {ZCAST_ESTALE, "Stale", NULL, NULL},
    {ZCAST_EPERM, "PermissionDenied", &PyExc_PermissionError, NULL},
    {ZCAST_ENOENT, "NoSuchTopic", NULL, NULL},
    {ZCAST_ELAYOUT, "LayoutMismatch", NULL, NULL},
    {ZCAST_ESYS, "SystemFailure", &PyExc_OSError, NULL},
    {ZCAST_EBUSY, "Busy", NULL, NULL},
    {ZCAST_ENOSERVER, "NoServer", NULL, NULL},
    {ZCAST_ESRVGONE, "ServerGone", NULL, NULL},
    {ZCAST_EREFUSED, "Refused", NULL, NULL},
};

static PyObject *pz_Error;
PyObject *pz_BufferExported;

int pz_errors_init(PyObject *module)
{
	pz_Error = PyErr_NewExceptionWithDoc("zcast.Error",
					     "Base of every zcast failure: .code is the ZCAST_E* "
					     "code, str() the library's detailed message.",
					     NULL, NULL);
	if (!pz_Error || PyModule_AddObjectRef(module, "Error", pz_Error) < 0)
		return -1;
	for (size_t i = 0; i < sizeof excs / sizeof excs[0]; i++) {
		char qual[64];
		PyOS_snprintf(qual, sizeof qual, "zcast.%s", excs[i].name);
		PyObject *bases = excs[i].also ? PyTuple_Pack(2, pz_Error, *excs[i].also)
					       : PyTuple_Pack(1, pz_Error);
		if (!bases)
			return -1;
		excs[i].cls = PyErr_NewException(qual, bases, NULL);
		Py_DECREF(bases);
		if (!excs[i].cls || PyModule_AddObjectRef(module, excs[i].name, excs[i].cls) < 0)
			return -1;
	}
	/* Not a library code: publish or drop refused while a memoryview / numpy array of the
	 * message is alive (its pointer cannot be revoked). */
	PyObject *bases = PyTuple_Pack(2, pz_Error, PyExc_BufferError);
	if (!bases)
		return -1;
	pz_BufferExported = PyErr_NewException("zcast.BufferExported", bases, NULL);
	Py_DECREF(bases);
	if (!pz_BufferExported ||
	    PyModule_AddObjectRef(module, "BufferExported", pz_BufferExported) < 0)
		return -1;
	return 0;
}

static PyObject *class_of(int err)
{
	for (size_t i = 0; i < sizeof excs / sizeof excs[0]; i++)
		if (excs[i].code == err)
			return excs[i].cls;
	return pz_Error;
}

static PyObject *raise_text(PyObject *cls, int err, const char *text)
{
	PyObject *exc = PyObject_CallFunction(cls, "s", text);
	if (!exc)
		return NULL;
	PyObject *code = PyLong_FromLong(err);
	if (!code || PyObject_SetAttrString(exc, "code", code) < 0) {
		Py_XDECREF(code);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(code);
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *pz_raise(int err)
{
	const char *detail = zcast_last_error(); /* this thread's, read before anything else */
	char text[512];
	if (detail && *detail)
		PyOS_snprintf(text, sizeof text, "%s", detail);
	else
		PyOS_snprintf(text, sizeof text, "%s", zcast_strerror(err));
	return raise_text(class_of(err), err, text);
}

PyObject *pz_raisef(int err, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	PyOS_vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return raise_text(class_of(err), err, text);
}

int64_t pz_timeout_ns(PyObject *timeout)
{
	if (!timeout || timeout == Py_None)
		return -1;
	double s = PyFloat_AsDouble(timeout);
	if (s == -1.0 && PyErr_Occurred())
		return -2;
	if (!(s >= 0) || s > 9e9) {
		PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
		return -2;
	}
	return (int64_t)(s * 1e9);
}

/* Long waits are cut in 100 ms slices: between them the GIL is taken back briefly so a signal
 * handler (KeyboardInterrupt) can run. A slice costs one futex timeout, only when idle. */
#define PZ_SLICE_NS 100000000LL

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int pz_wait_sliced(pz_wait_fn fn, void *ctx, PyObject *timeout)
{
	int64_t t = pz_timeout_ns(timeout);
	if (t == -2)
		return INT_MIN;
	int64_t deadline = t < 0 ? INT64_MAX : now_ns() + t;
	for (;;) {
		int64_t left = t < 0 ? PZ_SLICE_NS : deadline - now_ns();
		if (left < 0)
			left = 0;
		int64_t slice = left > PZ_SLICE_NS ? PZ_SLICE_NS : left;
		int e;
		Py_BEGIN_ALLOW_THREADS
		e = fn(ctx, slice);
		Py_END_ALLOW_THREADS
		if (e != ZCAST_ETIMEDOUT || (t >= 0 && slice == left))
			return e;
		if (PyErr_CheckSignals() < 0)
			return INT_MIN;
	}
}
