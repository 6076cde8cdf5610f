/* zcast._zcast: the native module behind `import zcast` (docs/PYTHON.md). */
#include "pyzcast.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "zcast._zcast",
    .m_doc = "Zero-copy publish/subscribe between processes (the zcast C library).",
    .m_size = -1,
    .m_methods = pz_admin_methods,
};

PyMODINIT_FUNC PyInit__zcast(void);
PyMODINIT_FUNC PyInit__zcast(void)
{
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	struct {
		const char *name;
		PyTypeObject *type;
	} types[] = {{"Publisher", &PzPublisher_Type},
		     {"Subscriber", &PzSubscriber_Type},
		     {"WaitSet", &PzWaitSet_Type},
		     {"Guard", &PzGuard_Type},
		     {"MessageView", &PzView_Type},
		     {"Client", &PzClient_Type},
		     {"Server", &PzServer_Type}};
	if (pz_errors_init(m) < 0 || pz_types_init(m) < 0 || pz_message_types_init(m) < 0 ||
	    pz_bag_init(m) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (PyType_Ready(types[i].type) < 0 ||
		    PyModule_AddObjectRef(m, types[i].name, (PyObject *)types[i].type) < 0)
			goto fail;
	if (PyModule_AddIntConstant(m, "FULL", ZCAST_POLICY_FULL) < 0 ||
	    PyModule_AddIntConstant(m, "DROP_OLD", ZCAST_POLICY_DROP_OLD) < 0 ||
	    PyModule_AddIntConstant(m, "BALANCE_RR", ZCAST_POLICY_BALANCE_RR) < 0 ||
	    PyModule_AddIntConstant(m, "TYPED_PREFIX", ZCAST_TYPED_PREFIX) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
