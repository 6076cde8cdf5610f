/* Adding and removing executor entries while it spins, from another thread and from callbacks,
 * single-threaded and with a pool: a removed entry's callback never runs after the remove returned
 * (checked by a flag the callback asserts, set right after remove), an entry removed from its own
 * callback gets no further call, entries added while spinning are served. Runs under TSan. */
#include <pthread.h>

#include "harness.h"
#include "zcast/executor.h"

struct ent {
	_Atomic int calls, inside, gone;
	int self_remove; /* remove (and close) our own subscription in the first callback */
	zcast_executor *ex;
	zcast_sub *sub;
};

static void on_msg(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	struct ent *e = ctx;
	CHECK(!atomic_load(&e->gone));
	atomic_fetch_add(&e->inside, 1);
	CHECK_EQ(zcast_msg_sequence(m) > 0, 1);
	if (e->self_remove) {
		CHECK_EQ(zcast_executor_remove_sub(e->ex, sub),
			 0);			   /* from its own callback: at once */
		CHECK_EQ(zcast_sub_close(sub), 0); /* our borrowed message stays valid */
		CHECK(zcast_msg_data(m) != NULL);
	} else {
		struct timespec ts = {0, 200000}; /* widen the window for a racing remove */
		nanosleep(&ts, NULL);
	}
	atomic_fetch_sub(&e->inside, 1);
	atomic_fetch_add(&e->calls, 1);
}

static zcast_sub *open_sub(const char *topic)
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.policy = ZCAST_POLICY_DROP_OLD; /* removed subscriptions never hold the publisher back */
	o.queue_depth = 16;
	zcast_sub *s;
	CHECK_EQ(zcast_sub_open(topic, &o, &s), 0);
	return s;
}

static void publish(zcast_pub *p, int n)
{
	for (int i = 0; i < n; i++) {
		zcast_msg *m;
		CHECK_EQ(zcast_loan(p, 8, &m), 0);
		memset(zcast_msg_data(m), i, 8);
		CHECK_EQ(zcast_publish(p, m), 0);
	}
}

static void *spinner(void *arg)
{
	CHECK_EQ(zcast_executor_spin(arg), 0);
	return NULL;
}

/* Another thread adds a subscription, sees it served, removes it while callbacks may run. */
static void from_another_thread(zcast_executor *ex, zcast_pub *p, const char *topic)
{
	for (int r = 0; r < 20; r++) {
		struct ent e = {.ex = ex};
		e.sub = open_sub(topic);
		CHECK_EQ(zcast_executor_add_sub(ex, e.sub, on_msg, &e, 0), 0);
		CHECK_EQ(zcast_executor_add_sub(ex, e.sub, on_msg, &e, 0), ZCAST_EBUSY);
		publish(p, 3);
		ZT_EVENTUALLY(atomic_load(&e.calls) == 3);
		publish(p, 4); /* callbacks run while we remove */
		CHECK_EQ(zcast_executor_remove_sub(ex, e.sub), 0);
		CHECK_EQ(atomic_load(&e.inside), 0);
		atomic_store(&e.gone, 1);
		int calls = atomic_load(&e.calls);
		publish(p, 2);
		zt_sleep_ms(2);
		CHECK_EQ(atomic_load(&e.calls), calls);
		CHECK_EQ(zcast_executor_remove_sub(ex, e.sub), ZCAST_ENOENT);
		CHECK_EQ(zcast_sub_close(e.sub), 0);
	}
}

/* A callback that adds the next subscription and removes the previous one; one that removes
 * itself. */
struct chain {
	zcast_executor *ex;
	zcast_sub *subs[8];
	struct ent ents[8];
	_Atomic int step;
};

static void on_chain(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	(void)m;
	struct chain *c = ctx;
	int i = atomic_load(&c->step);
	if (i >= 8)
		return;
	CHECK_EQ(zcast_executor_add_sub(c->ex, c->subs[i], on_msg, &c->ents[i], 0), 0);
	if (i > 0) {
		CHECK_EQ(zcast_executor_remove_sub(c->ex, c->subs[i - 1]), 0);
		atomic_store(&c->ents[i - 1].gone, 1);
	}
	atomic_store(&c->step, i + 1);
}

static void from_callbacks(zcast_executor *ex, zcast_pub *p, const char *topic,
			   const char *ctl_topic)
{
	struct chain c = {.ex = ex};
	for (int i = 0; i < 8; i++) {
		c.subs[i] = open_sub(topic);
		c.ents[i].ex = ex;
	}
	zcast_pub *ctl = zt_open_pub(ctl_topic, 64, 64);
	zcast_sub *ctl_sub = open_sub(ctl_topic);
	CHECK_EQ(zcast_executor_add_sub(ex, ctl_sub, on_chain, &c, 0), 0);
	for (int i = 0; i < 8; i++) {
		publish(ctl, 1);
		ZT_EVENTUALLY(atomic_load(&c.step) == i + 1);
		publish(p, 1);
		ZT_EVENTUALLY(atomic_load(&c.ents[i].calls) >= 1);
	}
	CHECK_EQ(zcast_executor_remove_sub(ex, c.subs[7]), 0);
	atomic_store(&c.ents[7].gone, 1);
	CHECK_EQ(zcast_executor_remove_sub(ex, ctl_sub), 0);

	/* Self-removal: 5 messages queued, exactly one callback. */
	struct ent self = {.ex = ex, .self_remove = 1};
	self.sub = open_sub(topic);
	publish(p, 5); /* queued before the entry exists */
	CHECK_EQ(zcast_executor_add_sub(ex, self.sub, on_msg, &self, 0), 0);
	ZT_EVENTUALLY(atomic_load(&self.calls) == 1);
	zt_sleep_ms(5);
	CHECK_EQ(atomic_load(&self.calls), 1);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(zcast_sub_close(c.subs[i]), 0);
	CHECK_EQ(zcast_sub_close(ctl_sub), 0);
	CHECK_EQ(zcast_pub_close(ctl), 0);
}

/* Timers and guards added and removed by another thread. */
static _Atomic int ticks, guard_calls;
static void on_tick(zcast_timer *t, uint64_t missed, void *ctx)
{
	(void)t;
	(void)missed;
	CHECK(!atomic_load((_Atomic int *)ctx));
	atomic_fetch_add(&ticks, 1);
}
static void on_guard(zcast_guard *g, void *ctx)
{
	(void)g;
	CHECK(!atomic_load((_Atomic int *)ctx));
	atomic_fetch_add(&guard_calls, 1);
}

static void timers_and_guards(zcast_executor *ex)
{
	for (int r = 0; r < 10; r++) {
		_Atomic int gone = 0;
		zcast_timer *t;
		atomic_store(&ticks, 0);
		CHECK_EQ(zcast_executor_add_timer2(ex, 500000, 0, on_tick, &gone, &t), 0);
		ZT_EVENTUALLY(atomic_load(&ticks) >= 2);
		CHECK_EQ(zcast_timer_remove(t), 0);
		atomic_store(&gone, 1);
		int n = atomic_load(&ticks);
		zt_sleep_ms(3);
		CHECK_EQ(atomic_load(&ticks), n);

		_Atomic int ggone = 0;
		zcast_guard *g;
		CHECK_EQ(zcast_guard_create(&g), 0);
		atomic_store(&guard_calls, 0);
		CHECK_EQ(zcast_executor_add_guard(ex, g, on_guard, &ggone), 0);
		CHECK_EQ(zcast_guard_trigger(g), 0);
		ZT_EVENTUALLY(atomic_load(&guard_calls) == 1);
		CHECK_EQ(zcast_executor_remove_guard(ex, g), 0);
		atomic_store(&ggone, 1);
		CHECK_EQ(zcast_guard_trigger(g), 0);
		zt_sleep_ms(2);
		CHECK_EQ(atomic_load(&guard_calls), 1);
		zcast_guard_destroy(g);
	}
}

/* Two threads churn entries while messages flow; a third removes whatever it finds of theirs
 * (racing their adds: either may win, neither may crash or leak). */
struct churn {
	zcast_executor *ex;
	const char *topic;
	zcast_sub *sub;
	_Atomic int stop;
};

static void on_any(zcast_sub *sub, zcast_msg *m, void *ctx)
{
	(void)sub;
	(void)m;
	(void)ctx;
}

static void on_any_tick(zcast_timer *t, uint64_t missed, void *ctx)
{
	(void)t;
	(void)missed;
	(void)ctx;
}

static void *churner(void *arg)
{
	struct churn *c = arg;
	for (int i = 0; i < 150; i++) {
		int r = zcast_executor_add_sub(c->ex, c->sub, on_any, NULL, 0);
		CHECK(r == 0 || r == ZCAST_ENOENT); /* ENOENT: the racer removed it mid-add */
		zcast_timer *t;
		CHECK_EQ(zcast_executor_add_timer2(c->ex, 100000, 0, on_any_tick, NULL, &t), 0);
		r = zcast_executor_remove_sub(c->ex, c->sub);
		CHECK(r == 0 || r == ZCAST_ENOENT);
		CHECK_EQ(zcast_timer_remove(t), 0);
	}
	return NULL;
}

static void *racer(void *arg)
{
	struct churn *c = arg;
	while (!atomic_load(&c[0].stop))
		for (int k = 0; k < 2; k++) {
			int r = zcast_executor_remove_sub(c[k].ex, c[k].sub);
			CHECK(r == 0 || r == ZCAST_ENOENT);
		}
	return NULL;
}

static void churn(zcast_executor *ex, zcast_pub *p, const char *topic)
{
	struct churn c[2] = {{ex, topic, open_sub(topic), 0}, {ex, topic, open_sub(topic), 0}};
	pthread_t th[3];
	CHECK_EQ(pthread_create(&th[0], NULL, churner, &c[0]), 0);
	CHECK_EQ(pthread_create(&th[1], NULL, churner, &c[1]), 0);
	CHECK_EQ(pthread_create(&th[2], NULL, racer, c), 0);
	for (int i = 0; i < 200; i++)
		publish(p, 1);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	atomic_store(&c[0].stop, 1);
	pthread_join(th[2], NULL);
	CHECK_EQ(zcast_executor_remove_sub(ex, c[0].sub), ZCAST_ENOENT);
	CHECK_EQ(zcast_sub_close(c[0].sub), 0);
	CHECK_EQ(zcast_sub_close(c[1].sub), 0);
}

static void run(uint32_t threads)
{
	char topic[64], ctl[64];
	snprintf(topic, sizeof topic, "/dyn/data%u", threads);
	snprintf(ctl, sizeof ctl, "/dyn/ctl%u", threads);
	zcast_executor_opts eo;
	zcast_executor_opts_init(&eo);
	eo.threads = threads;
	zcast_executor *ex;
	CHECK_EQ(zcast_executor_create(&eo, &ex), 0);
	zcast_pub *p = zt_open_pub(topic, 64, 64);
	pthread_t th;
	CHECK_EQ(pthread_create(&th, NULL, spinner, ex), 0);
	from_another_thread(ex, p, topic);
	from_callbacks(ex, p, topic, ctl);
	timers_and_guards(ex);
	churn(ex, p, topic);
	CHECK_EQ(zcast_executor_stop(ex), 0);
	pthread_join(th, NULL);
	zcast_executor_destroy(ex);
	CHECK_EQ(zcast_pub_close(p), 0);
}

static void single_threaded(void)
{
	run(1);
}

static void pool_of_three(void)
{
	run(3);
}

int main(void)
{
	zt_setup("exec_dynamic", 240);
	RUN(single_threaded);
	RUN(pool_of_three);
	return 0;
}
