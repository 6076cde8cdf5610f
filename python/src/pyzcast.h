/* The zcast CPython extension (module zcast._zcast): shared declarations. docs/PYTHON.md. */
#ifndef PYZCAST_H
#define PYZCAST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <zcast/cdr.h>
#include <zcast/typed.h>
#include <zcast/waitset.h>
#include <zcast/zcast.h>

/* ---- errors (errors.c) ---- */
int pz_errors_init(PyObject *module);
/* Raises the exception class of `err` with zcast_last_error()'s text; returns NULL. */
PyObject *pz_raise(int err);
/* Raises class `err` with a message of ours (printf format). */
PyObject *pz_raisef(int err, const char *fmt, ...);
extern PyObject *pz_BufferExported;

/* Blocking calls: the GIL is released, long waits are cut in slices so Ctrl-C works. */
typedef int (*pz_wait_fn)(void *ctx, int64_t timeout_ns);
/* timeout: None = forever, else seconds (>= 0). Returns the call's result, or INT_MIN when a
 * signal handler raised (the Python error is set). */
int pz_wait_sliced(pz_wait_fn fn, void *ctx, PyObject *timeout);
/* Converts a timeout argument: None -> -1 (forever), seconds -> ns. -2 with an error set if bad. */
int64_t pz_timeout_ns(PyObject *timeout);

/* A PyArg "O&" converter to uint32_t that refuses what does not fit ("I" wraps -1 and 2**32 + 1
 * silently, so history=2**32 + 1 became history 1). publisher.c. */
int pz_u32(PyObject *o, void *out);
/* The same for uint64_t ("K" wraps -1 to 2**64 - 1). */
int pz_u64(PyObject *o, void *out);

/* ---- types (types.c): the introspection tables Python can reach ---- */
extern PyTypeObject PzMsgType_Type; /* zcast.MsgType: a wrapper of one zcast_cdr_type */
typedef struct {
	PyObject_HEAD const zcast_cdr_type *type;
} PzMsgType;
/* The table for a MsgType, or a name ("sensor_msgs/msg/Image" or "sensor_msgs/Image"). */
const zcast_cdr_type *pz_type_lookup(PyObject *spec);
int pz_types_init(PyObject *module);
PyObject *pz_msgtype_new(const zcast_cdr_type *t);

/* ---- bounds (bounds.c): a Python dict -> the uint32 bounds struct ---- */
/* Fills out (t->n_bounds entries) from a dict; members missing take their declared bound, an
 * unbounded member missing is an error naming it. */
int pz_bounds_from(const zcast_cdr_type *t, PyObject *spec, uint32_t *out);

/* ---- messages (message.c) ---- */
enum pz_msg_state {
	PZ_LIVE,      /* usable */
	PZ_BUSY,      /* being published by another thread (the GIL is released) */
	PZ_PUBLISHED, /* handed to the topic: every access raises */
	PZ_RELEASED,  /* released by the user: the hold goes with the last exported buffer */
};

typedef struct PzMessage {
	PyObject_HEAD zcast_msg *m; /* our reference; NULL once dropped or published */
	int loan;		    /* 1: a loan (writable), 0: received (read-only) */
	int state;		    /* enum pz_msg_state */
	Py_ssize_t exports;	    /* buffers exported and not yet released */
	uint8_t *data;		    /* payload (cached at creation) */
	size_t size;		    /* payload bytes */
	PyObject *owner;	    /* the Publisher of a loan (publish checks it), else NULL */
	/* typed messages: the type and its validated reader or laid-out writer */
	const zcast_cdr_type *type;
	uint8_t *base;	  /* CDR origin */
	uint32_t *off;	  /* type->n_flat entries */
	uint32_t *aux;	  /* reader: len[]; writer: cap[] */
	uint32_t *bounds; /* writer: the bounds the loan was laid out at (owned copy) */
	zcast_cdr_writer w;
	zcast_cdr_reader r;
	int compacted; /* writer: compacted for publish (fields can no longer be written) */
	uint8_t *own;  /* a recorded message (bag.c): its bytes, ours (PyMem); m is NULL */
} PzMessage;

extern PyTypeObject PzMessage_Type;
PyObject *pz_message_new(zcast_msg *m, int loan, PyObject *owner);
/* Adds Message and MessageInfo to the module. */
int pz_message_types_init(PyObject *module);
/* 0 if the message may be used; else raises (published, released, busy) and returns -1. */
int pz_message_check(PzMessage *msg);
/* As pz_message_check, and the members of a typed loan are where they were laid out (not
 * compacted by a publish that then failed). */
int pz_members_check(PzMessage *msg);
/* Drops the hold (or defers it to the last exported buffer). */
void pz_message_release(PzMessage *msg);
/* A read-only message of n recorded bytes, which the caller puts at *dst (the reader reads them
 * from the file straight there; a typed one: CDR from its encapsulation header, the origin
 * 8-byte aligned as zcast_cdr_read wants). bag.c. */
PyObject *pz_message_recorded(size_t n, uint8_t **dst);
/* Typed loan: lays the payload (msg->data) out for t at bounds b (owned by msg from here on, also
 * on failure) with a CDR size of `size`: header, defaults, writer. 0 or raises. */
int pz_message_lay_out(PzMessage *msg, const zcast_cdr_type *t, uint32_t *b, size_t size);
/* Typed: sets up the reader (received) view; 0 or raises. */
int pz_message_read_typed(PzMessage *msg, const zcast_cdr_type *t);

/* Span (message.c): a buffer over [off, off + len) of a message's payload, counted as an export
 * of the message, so numpy arrays of members keep the rules of the message. */
PyObject *pz_span_new(PzMessage *msg, size_t off, size_t len);
extern PyTypeObject PzSpan_Type;

/* ---- typed views (view.c) ---- */
extern PyTypeObject PzView_Type; /* a nested message (or element) of a typed message */
PyObject *pz_view_getattr(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds, PyObject *name);
int pz_view_setattr(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
		    const uint32_t *aux, const uint32_t *bounds, PyObject *name, PyObject *value);
PyObject *pz_view_set_len(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds, PyObject *args);
PyObject *pz_view_raw(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
		      const uint32_t *aux, const uint32_t *bounds, PyObject *name);
PyObject *pz_view_dir(const zcast_cdr_type *t);
PyObject *pz_view_to_dict(PzMessage *msg, const zcast_cdr_type *t, const uint32_t *off,
			  const uint32_t *aux, const uint32_t *bounds);

/* ---- endpoints ---- */
extern PyTypeObject PzPublisher_Type;
extern PyTypeObject PzSubscriber_Type;
extern PyTypeObject PzWaitSet_Type;
extern PyTypeObject PzGuard_Type;
extern PyTypeObject PzClient_Type; /* service.c */
extern PyTypeObject PzServer_Type;

typedef struct {
	PyObject_HEAD zcast_pub *pub; /* NULL once closed */
	const zcast_cdr_type *type;   /* typed publishers: the type, */
	uint32_t *bounds;	      /* its bounds (n_bounds entries) */
	size_t max_size;	      /* and the worst-case CDR size at them */
	PyThread_type_lock lock;      /* a publisher is used by one thread at a time (C contract) */
} PzPublisher;

typedef struct {
	PyObject_HEAD zcast_sub *sub; /* NULL once closed */
	const zcast_cdr_type *type;
	int in_use;   /* calls running with the GIL released (close must not race them) */
	int attached; /* wait sets holding it */
} PzSubscriber;

/* zcast_topic_opts from keyword arguments (removed from kw). */
int pz_topic_opts(PyObject *kw, zcast_topic_opts *t);

/* ---- recordings (bag.c): zcast._BagFile, one MCAP file read through tools/bag ---- */
int pz_bag_init(PyObject *module);

/* topic-level functions (admin.c) */
extern PyMethodDef pz_admin_methods[];

#endif
