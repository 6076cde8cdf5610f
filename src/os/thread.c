/* Library threads. */
#include <signal.h>
#include <string.h>

#include "os_internal.h"

int zc_thread_start(void *(*fn)(void *), void *arg, pthread_t *th, bool detached)
{
	sigset_t all, old;
	sigfillset(&all);
	/* The new thread inherits the creator's mask: block everything around the create. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (detached)
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	int r = pthread_create(th, &a, fn, arg);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r == 0 ? 0 : zc_err(ZCAST_ESYS, "cannot start a zcast thread: %s", strerror(r));
}
