/* zcast.Client and zcast.Server (the native halves; zcast/_service.py adds calls with values):
 * services (docs/SERVICES.md) of .srv types (docs/TYPED.md "Services"). Requests and responses are
 * zcast.Message objects over the payload after the service header: loans are typed writers laid
 * out at bounds (compacted once when sent), received ones validated typed readers. A client or
 * server is used by one thread at a time (as in C). */
#include <zcast/service.h>
#include <zcast/typed_service.h>
#include <zcast/types.h>

#include "pyzcast.h"
#include "zcast_shipped_types.h" /* ZCAST_SHIPPED_SERVICES (tools/msggen/shipped_types.py) */

static const zcast_service_type *const shipped_services[] = {ZCAST_SHIPPED_SERVICES NULL};

/* The service type named `name` (pkg/srv/Name or pkg/Name): shipped, else a type library's. */
static const zcast_service_type *service_lookup(const char *name)
{
	for (size_t i = 0; shipped_services[i]; i++)
		if (zcast_service_name_is(shipped_services[i]->name, name))
			return shipped_services[i];
	const zcast_service_type *s;
	if (zcast_services_find(name, NULL, &s) == 0)
		return s;
	pz_raisef(ZCAST_EINVAL, "unknown service type %s (shipped, or in a type library on %s)", name,
		  zcast_types_path());
	return NULL;
}

typedef struct {
	PyObject_HEAD zcast_client *cli; /* NULL once closed (for a Server: srv) */
	zcast_server *srv;
	const zcast_service_type *type;
	const zcast_cdr_type *side; /* what this end loans: request (client), response (server) */
	uint32_t *bounds;	    /* the endpoint's bounds of `side` */
	size_t max_size;	    /* CDR size of `side` at them */
	int in_use; /* calls running without the GIL (call, wait): close refuses while any runs */
} PzEnd;

/* Common constructor part: the type, the bounds of `side`, the options. */
static int end_setup(PzEnd *self, const char *type, PyObject *bounds, const char *domain,
		     uint32_t slots, int client, zcast_service_opts *o)
{
	if (self->cli || self->srv) {
		PyErr_SetString(PyExc_RuntimeError, "already initialized");
		return -1;
	}
	if (!(self->type = service_lookup(type)))
		return -1;
	self->side = client ? self->type->request : self->type->response;
	self->bounds = PyMem_Calloc(self->side->n_bounds ? self->side->n_bounds : 1, 4);
	if (!self->bounds) {
		PyErr_NoMemory();
		return -1;
	}
	int e = 0;
	if (pz_bounds_from(self->side, bounds, self->bounds) < 0 ||
	    (e = zcast_cdr_bound_size(self->side, self->bounds, &self->max_size)) < 0) {
		if (!PyErr_Occurred())
			pz_raise(e);
		return -1;
	}
	zcast_service_opts_init(o);
	o->domain = domain;
	if (slots && client)
		o->slot_count = slots;
	else if (slots)
		o->queue_depth = slots;
	zcast_typed_service_opts(o, self->type);
	size_t need = ZCAST_TYPED_PREFIX + self->max_size;
	size_t *cap = client ? &o->request_size : &o->response_size;
	if (*cap < need)
		*cap = need;
	return 0;
}

static int client_init(PzEnd *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"service", "type", "bounds", "domain", "slot_count", NULL};
	const char *service, *type, *domain = NULL;
	PyObject *bounds = Py_None;
	uint32_t slots = 0;
	zcast_service_opts o;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|OzO&", kwlist, &service, &type, &bounds,
					 &domain, pz_u32, &slots) ||
	    end_setup(self, type, bounds, domain, slots, 1, &o) < 0)
		return -1;
	int e = zcast_client_open(service, &o, &self->cli);
	return e < 0 ? (pz_raise(e), -1) : 0;
}

static int server_init(PzEnd *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"service", "type", "bounds", "domain", "queue_depth", NULL};
	const char *service, *type, *domain = NULL;
	PyObject *bounds = Py_None;
	uint32_t depth = 0;
	zcast_service_opts o;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|OzO&", kwlist, &service, &type, &bounds,
					 &domain, pz_u32, &depth) ||
	    end_setup(self, type, bounds, domain, depth, 0, &o) < 0)
		return -1;
	int e = zcast_server_open(service, &o, &self->srv);
	return e < 0 ? (pz_raise(e), -1) : 0;
}

static int end_open(PzEnd *self)
{
	if (self->cli || self->srv)
		return 0;
	pz_raisef(ZCAST_ESTALE, "the %s is closed", Py_TYPE(self)->tp_name);
	return -1;
}

static PyObject *end_close(PzEnd *self, PyObject *unused)
{
	(void)unused;
	if (self->in_use) /* the handle must outlive the calls that use it (service.h) */
		return pz_raisef(ZCAST_EBUSY, "close: another thread is calling or waiting on the %s",
				 Py_TYPE(self)->tp_name);
	int e = 0;
	if (self->cli)
		e = zcast_client_close(self->cli);
	if (self->srv)
		e = zcast_server_close(self->srv);
	self->cli = NULL, self->srv = NULL;
	return e < 0 ? pz_raise(e) : Py_NewRef(Py_None);
}

static void end_dealloc(PzEnd *self)
{
	if (self->cli)
		zcast_client_close(self->cli);
	if (self->srv)
		zcast_server_close(self->srv);
	PyMem_Free(self->bounds);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *end_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *end_exit(PzEnd *self, PyObject *args)
{
	(void)args;
	return end_close(self, NULL);
}

/* A typed loan over m's service payload, laid out at b (the endpoint's when NULL). */
static PyObject *typed_loan(PzEnd *self, zcast_msg *m, const uint32_t *b, size_t size)
{
	uint32_t n = self->side->n_bounds ? self->side->n_bounds : 1;
	uint32_t *copy = PyMem_Calloc(n, 4);
	PzMessage *msg = (PzMessage *)pz_message_new(m, 1, (PyObject *)self);
	if (!msg || !copy) {
		PyMem_Free(copy);
		Py_XDECREF(msg);
		return msg ? PyErr_NoMemory() : NULL;
	}
	memcpy(copy, b, 4ull * self->side->n_bounds);
	msg->data = zcast_service_data(m);
	msg->size = ZCAST_TYPED_PREFIX + size;
	if (pz_message_lay_out(msg, self->side, copy, size) < 0) {
		Py_DECREF(msg);
		return NULL;
	}
	return (PyObject *)msg;
}

/* Bounds of a loan: the endpoint's (None) or a dict; *size the CDR size at them. */
static uint32_t *loan_bounds(PzEnd *self, PyObject *bounds, uint32_t *tmp, size_t *size)
{
	*size = self->max_size;
	if (bounds == Py_None)
		return self->bounds;
	int e = 0;
	if (pz_bounds_from(self->side, bounds, tmp) < 0 ||
	    (e = zcast_cdr_bound_size(self->side, tmp, size)) < 0) {
		if (!PyErr_Occurred())
			pz_raise(e);
		return NULL;
	}
	return tmp;
}

/* A received request or response as a validated typed reader (owns m). */
static PyObject *typed_received(const zcast_cdr_type *t, zcast_msg *m)
{
	PzMessage *msg = (PzMessage *)pz_message_new(m, 0, NULL);
	if (!msg)
		return NULL;
	msg->data = zcast_service_data(m);
	msg->size = zcast_service_size(m);
	msg->off = PyMem_Calloc(t->n_flat ? t->n_flat : 1, 4);
	msg->aux = PyMem_Calloc(t->n_flat ? t->n_flat : 1, 4);
	int e = msg->off && msg->aux ? zcast_typed_service_read(t, m, &msg->r, msg->off, msg->aux)
				     : ZCAST_ENOMEM;
	if (e < 0) {
		Py_DECREF(msg);
		return pz_raise(e);
	}
	msg->type = t;
	msg->base = (uint8_t *)msg->r.base;
	return (PyObject *)msg;
}

/* The loan `obj` of this endpoint, compacted (once) for sending; NULL with an error otherwise. */
static PzMessage *sendable(PzEnd *self, PyObject *obj)
{
	if (!PyObject_TypeCheck(obj, &PzMessage_Type) || ((PzMessage *)obj)->owner != (PyObject *)self)
		return (PzMessage *)pz_raisef(ZCAST_EINVAL, "not a loan of this %s",
					      Py_TYPE(self)->tp_name);
	PzMessage *msg = (PzMessage *)obj;
	if (pz_message_check(msg) < 0)
		return NULL;
	if (msg->exports)
		return (PzMessage *)pz_raisef(ZCAST_EBUSY, "%zd buffer(s) of the message still "
						"exported", msg->exports);
	if (!msg->compacted) {
		size_t size;
		int e = zcast_cdr_compact(msg->type, msg->w.bounds, msg->w.base, &size);
		if (e < 0 || (e = zcast_service_resize(msg->m, ZCAST_TYPED_PREFIX + size)) < 0)
			return (PzMessage *)pz_raise(e);
		msg->compacted = 1;
	}
	return msg;
}

/* The message was handed to the library: every access raises from now on. */
static void sent(PzMessage *msg)
{
	msg->m = NULL;
	msg->data = NULL;
	msg->state = PZ_PUBLISHED;
}

static PyObject *client_loan(PzEnd *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"bounds", NULL};
	PyObject *bounds = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &bounds) || end_open(self) < 0)
		return NULL;
	uint32_t tmp[256];
	size_t size;
	if (self->side->n_bounds > 256)
		return pz_raisef(ZCAST_EINVAL, "%s: too many bounds", self->side->name);
	const uint32_t *b = loan_bounds(self, bounds, tmp, &size);
	zcast_msg *m;
	int e = b ? zcast_request_loan(self->cli, ZCAST_TYPED_PREFIX + size, &m) : 0;
	if (!b || e < 0)
		return b ? pz_raise(e) : NULL;
	return typed_loan(self, m, b, size);
}

static PyObject *client_send(PzEnd *self, PyObject *obj)
{
	PzMessage *msg = end_open(self) < 0 ? NULL : sendable(self, obj);
	if (!msg)
		return NULL;
	uint64_t seq = 0;
	int e = zcast_request_send(self->cli, msg->m, &seq);
	if (e < 0)
		return pz_raise(e);
	sent(msg);
	return PyLong_FromUnsignedLongLong(seq);
}

/* A refused call: zcast.Refused raised, its .seq the call. */
static PyObject *raise_refused(uint64_t seq)
{
	PyObject *type, *value, *tb;
	pz_raise(ZCAST_EREFUSED);
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	PyObject *s = PyLong_FromUnsignedLongLong(seq);
	if (value && s)
		(void)PyObject_SetAttrString(value, "seq", s);
	Py_XDECREF(s);
	PyErr_Restore(type, value, tb);
	return NULL;
}

/* (seq, response) or (seq, None) when the server of that call is gone; None when nothing is ready;
 * zcast.Refused (with .seq) when a server refused that call's request. */
static PyObject *client_take(PzEnd *self, PyObject *unused)
{
	(void)unused;
	if (end_open(self) < 0)
		return NULL;
	zcast_msg *resp = NULL;
	uint64_t seq = 0;
	int e = zcast_response_take(self->cli, &resp, &seq);
	if (e == ZCAST_EAGAIN)
		Py_RETURN_NONE;
	if (e == ZCAST_EREFUSED)
		return raise_refused(seq);
	if (e < 0 && e != ZCAST_ESRVGONE)
		return pz_raise(e);
	PyObject *r = resp ? typed_received(self->type->response, resp) : Py_NewRef(Py_None);
	if (!r)
		return NULL;
	PyObject *t = Py_BuildValue("(KN)", (unsigned long long)seq, r);
	return t;
}

static PyObject *client_call(PzEnd *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"request", "timeout", NULL};
	PyObject *obj, *timeout = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &obj, &timeout))
		return NULL;
	int64_t ns = pz_timeout_ns(timeout);
	PzMessage *msg = ns == -2 || end_open(self) < 0 ? NULL : sendable(self, obj);
	if (!msg)
		return NULL;
	zcast_msg *resp = NULL, *m = msg->m;
	int e;
	self->in_use++;
	Py_BEGIN_ALLOW_THREADS e = zcast_client_call(self->cli, m, ns, &resp);
	Py_END_ALLOW_THREADS
	self->in_use--;
	sent(msg); /* consumed whatever the outcome (zcast_client_call) */
	return e < 0 ? pz_raise(e) : typed_received(self->type->response, resp);
}

static int client_wait_fn(void *c, int64_t ns)
{
	return zcast_client_wait(c, ns);
}

static int server_wait_fn(void *c, int64_t ns)
{
	return zcast_server_wait(c, ns);
}

/* True when something is ready, False after timeout (None: forever). */
static PyObject *end_wait(PzEnd *self, PyObject *args)
{
	PyObject *timeout = Py_None;
	if (!PyArg_ParseTuple(args, "|O", &timeout) || end_open(self) < 0)
		return NULL;
	self->in_use++;
	int e = self->cli ? pz_wait_sliced(client_wait_fn, self->cli, timeout)
			  : pz_wait_sliced(server_wait_fn, self->srv, timeout);
	self->in_use--;
	if (e == INT_MIN)
		return NULL;
	if (e == ZCAST_ETIMEDOUT)
		Py_RETURN_FALSE;
	return e < 0 ? pz_raise(e) : Py_NewRef(Py_True);
}

static PyObject *end_fileno(PzEnd *self, PyObject *unused)
{
	(void)unused;
	int fd = -1;
	int e = end_open(self) < 0 ? 1
		: self->cli	   ? zcast_client_fd(self->cli, &fd)
				   : zcast_server_fd(self->srv, &fd);
	if (e > 0)
		return NULL;
	return e < 0 ? pz_raise(e) : PyLong_FromLong(fd);
}

static PyObject *client_pending(PzEnd *self, void *unused)
{
	(void)unused;
	return end_open(self) < 0 ? NULL : PyLong_FromLong(zcast_client_pending(self->cli));
}

static PyObject *end_type(PzEnd *self, void *unused)
{
	(void)unused;
	return PyUnicode_FromString(self->type ? self->type->name : "");
}

static PyObject *server_take(PzEnd *self, PyObject *unused)
{
	(void)unused;
	if (end_open(self) < 0)
		return NULL;
	zcast_msg *req = NULL;
	int e = zcast_request_take(self->srv, &req);
	if (e == ZCAST_EAGAIN)
		Py_RETURN_NONE;
	return e < 0 ? pz_raise(e) : typed_received(self->type->request, req);
}

/* The request message `obj` (taken from this server and not released). */
static zcast_msg *taken(PyObject *obj)
{
	if (!PyObject_TypeCheck(obj, &PzMessage_Type))
		return pz_raisef(ZCAST_EINVAL, "not a request"), NULL;
	return pz_message_check((PzMessage *)obj) < 0 ? NULL : ((PzMessage *)obj)->m;
}

static PyObject *server_loan(PzEnd *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"request", "bounds", NULL};
	PyObject *obj, *bounds = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &obj, &bounds) ||
	    end_open(self) < 0)
		return NULL;
	zcast_msg *req = taken(obj), *m;
	uint32_t tmp[256];
	size_t size;
	if (self->side->n_bounds > 256)
		return pz_raisef(ZCAST_EINVAL, "%s: too many bounds", self->side->name);
	const uint32_t *b = req ? loan_bounds(self, bounds, tmp, &size) : NULL;
	int e = b ? zcast_response_loan(self->srv, req, ZCAST_TYPED_PREFIX + size, &m) : 0;
	if (!b || e < 0)
		return b ? pz_raise(e) : NULL;
	return typed_loan(self, m, b, size);
}

static PyObject *server_send(PzEnd *self, PyObject *obj)
{
	PzMessage *msg = end_open(self) < 0 ? NULL : sendable(self, obj);
	if (!msg)
		return NULL;
	int e = zcast_response_send(self->srv, msg->m);
	if (e < 0)
		return pz_raise(e);
	sent(msg);
	Py_RETURN_NONE;
}

static PyObject *server_seq(PzEnd *self, PyObject *obj)
{
	zcast_msg *req = end_open(self) < 0 ? NULL : taken(obj);
	return req ? PyLong_FromUnsignedLongLong(zcast_request_seq(self->srv, req)) : NULL;
}

#define END_METHODS                                                                                \
	{"wait", (PyCFunction)end_wait, METH_VARARGS,                                              \
	 "wait(timeout=None): True when something is ready, False after timeout seconds"},        \
	    {"fileno", (PyCFunction)end_fileno, METH_NOARGS,                                       \
	     "a descriptor that polls readable while something is ready (take until None)"},      \
	    {"close", (PyCFunction)end_close, METH_NOARGS, "ends it"},                              \
	    {"__enter__", end_enter, METH_NOARGS, NULL},                                           \
	    {"__exit__", (PyCFunction)end_exit, METH_VARARGS, "close()"},

static PyMethodDef client_methods[] = {
    {"loan", (PyCFunction)(void (*)(void))client_loan, METH_VARARGS | METH_KEYWORDS,
     "loan(bounds=None): a typed request loan at its declared defaults"},
    {"send", (PyCFunction)client_send, METH_O, "send(request): sends a loan; its call's seq"},
    {"take", (PyCFunction)client_take, METH_NOARGS,
     "(seq, response), (seq, None) when that call's server is gone, or None; raises zcast.Refused "
     "(.seq: the call) when a server refused that call's request"},
    {"_call", (PyCFunction)(void (*)(void))client_call, METH_VARARGS | METH_KEYWORDS,
     "_call(request, timeout=None): sends a loan and returns the response"},
    END_METHODS{NULL, NULL, 0, NULL},
};

static PyMethodDef server_methods[] = {
    {"take", (PyCFunction)server_take, METH_NOARGS, "a request (typed, read-only) or None"},
    {"loan", (PyCFunction)(void (*)(void))server_loan, METH_VARARGS | METH_KEYWORDS,
     "loan(request, bounds=None): a typed response loan for the client of `request`"},
    {"send", (PyCFunction)server_send, METH_O, "send(response): to the client that asked"},
    {"seq", (PyCFunction)server_seq, METH_O, "seq(request): the call's sequence number"},
    END_METHODS{NULL, NULL, 0, NULL},
};

static PyGetSetDef client_getset[] = {
    {"pending", (getter)client_pending, NULL, "calls sent and without outcome taken", NULL},
    {"service_type", (getter)end_type, NULL, "the service type's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyGetSetDef server_getset[] = {
    {"service_type", (getter)end_type, NULL, "the service type's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject PzClient_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Client",
    .tp_basicsize = sizeof(PzEnd),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Client(service, type, bounds=None, domain=None, slot_count=0): a client of a "
	      "service of a .srv type (docs/PYTHON.md)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)client_init,
    .tp_dealloc = (destructor)end_dealloc,
    .tp_methods = client_methods,
    .tp_getset = client_getset,
};

PyTypeObject PzServer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "zcast.Server",
    .tp_basicsize = sizeof(PzEnd),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Server(service, type, bounds=None, domain=None, queue_depth=0): a server of a "
	      "service of a .srv type (docs/PYTHON.md)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)server_init,
    .tp_dealloc = (destructor)end_dealloc,
    .tp_methods = server_methods,
    .tp_getset = server_getset,
};
