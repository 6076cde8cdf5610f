/* zcast_executor_stop_on_signals: SIGINT and SIGTERM stop the executors that asked for it, and the
 * previous handlers come back when the last of them is destroyed. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor_internal.h"

/* ---- signals ---- */

#define SIG_SLOTS 8
static zcast_executor *_Atomic sig_ex[SIG_SLOTS];
static pthread_mutex_t sig_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction sig_old_int, sig_old_term;
static int sig_users;
/* Handlers between loading an executor and leaving it: a destroy that cleared its slot waits for
 * them, or a handler in another thread would stop an executor already freed. */
static atomic_int sig_in_handler;

static void on_signal(int sig)
{
	(void)sig;
	/* SYNC: sig-handler: counted in (seq_cst) before loading a slot; partner ex_signals_forget's
	 * clear of the slot then its read of sig_in_handler. */
	atomic_fetch_add(&sig_in_handler, 1);
	for (int i = 0; i < SIG_SLOTS; i++) {
		zcast_executor *ex = atomic_load(&sig_ex[i]);
		if (ex) {
			ZC_PAUSE("signal:before-stop");
			zcast_executor_stop(ex);
		}
	}
	atomic_fetch_sub(&sig_in_handler, 1);
}

int zcast_executor_stop_on_signals(zcast_executor *ex)
{
	if (!ex)
		return zc_err(ZCAST_EINVAL, "executor is NULL");
	pthread_mutex_lock(&sig_mu);
	int r = zc_err(ZCAST_ELIMIT, "at most %d executors stop on signals", SIG_SLOTS);
	for (int i = 0; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_ex[i]) == ex) {
			r = 0;
			break;
		}
		if (!atomic_load(&sig_ex[i])) {
			atomic_store(&sig_ex[i], ex);
			if (sig_users++ == 0) {
				struct sigaction sa;
				memset(&sa, 0, sizeof sa);
				sa.sa_handler = on_signal;
				sigemptyset(&sa.sa_mask);
				sa.sa_flags = SA_RESTART;
				sigaction(SIGINT, &sa, &sig_old_int);
				sigaction(SIGTERM, &sa, &sig_old_term);
			}
			r = 0;
			break;
		}
	}
	pthread_mutex_unlock(&sig_mu);
	return r;
}

/* Gives `sig` its handler from before stop_on_signals back, unless the program installed one of
 * its own since: that one stays. */
static void give_back(int sig, const struct sigaction *old)
{
	struct sigaction now;
	if (sigaction(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
	    now.sa_handler == on_signal)
		sigaction(sig, old, NULL);
}

void ex_signals_forget(zcast_executor *ex)
{
	bool had_slot = false;
	pthread_mutex_lock(&sig_mu);
	for (int i = 0; i < SIG_SLOTS; i++) {
		if (atomic_load(&sig_ex[i]) == ex) {
			had_slot = true;
			atomic_store(&sig_ex[i], NULL);
			if (--sig_users == 0) {
				give_back(SIGINT, &sig_old_int);
				give_back(SIGTERM, &sig_old_term);
			}
		}
	}
	pthread_mutex_unlock(&sig_mu);
	/* The slot is cleared (seq_cst), so a handler that comes in now loads NULL; one that came in
	 * before may hold `ex` until it leaves. A handler never blocks, so this wait is short; in this
	 * thread no handler can be in the middle of its run. */
	/* SYNC: sig-handler; partner on_signal's count-in before its slot loads (both seq_cst). */
	while (had_slot && atomic_load(&sig_in_handler) > 0)
		sched_yield();
}
