/* The messages the recorder has taken and not yet written, oldest first: a min-heap of at most
 * one message per topic (its "head"), keyed by publish time, ties broken by the order they were
 * taken. The take loop writes the oldest head and takes that topic's next message as its new head,
 * so messages of several topics go into the file in publish-time order (docs/RECORDING.md,
 * "Order"). Room for every topic's head is reserved when the topic is joined, so a push never
 * fails: a message taken is always written. */
#include <stdlib.h>

#include "rec.h"

static bool before(const struct rec_head *a, const struct rec_head *b)
{
	return a->key != b->key ? a->key < b->key : a->taken < b->taken;
}

static void swap(struct rec_head *a, struct rec_head *b)
{
	struct rec_head t = *a;
	*a = *b;
	*b = t;
}

static void sift_down(struct rec_heads *h, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && before(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && before(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			return;
		swap(&h->v[i], &h->v[m]);
		i = m;
	}
}

bool rec_heads_reserve(struct rec_heads *h, int n)
{
	if (n <= h->cap)
		return true;
	struct rec_head *v = realloc(h->v, (size_t)n * sizeof *v);
	if (!v)
		return false;
	h->v = v;
	h->cap = n;
	return true;
}

void rec_heads_push(struct rec_heads *h, void *owner, zcast_msg *m, int64_t key)
{
	int i = h->n++; /* within the room reserved: one head per topic */
	h->v[i] = (struct rec_head){key, h->count++, owner, m};
	while (i > 0 && before(&h->v[i], &h->v[(i - 1) / 2])) {
		swap(&h->v[i], &h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

const struct rec_head *rec_heads_top(const struct rec_heads *h)
{
	return h->n ? &h->v[0] : NULL;
}

struct rec_head rec_heads_pop(struct rec_heads *h)
{
	struct rec_head top = h->v[0];
	h->v[0] = h->v[--h->n];
	sift_down(h, 0);
	return top;
}

void rec_heads_clamp(struct rec_heads *h, int64_t limit)
{
	bool changed = false;
	for (int i = 0; i < h->n; i++)
		if (h->v[i].key > limit) {
			h->v[i].key = limit;
			changed = true;
		}
	for (int i = h->n / 2 - 1; changed && i >= 0; i--)
		sift_down(h, i);
}

void rec_heads_free(struct rec_heads *h)
{
	for (int i = 0; i < h->n; i++)
		zcast_msg_drop(h->v[i].m);
	free(h->v);
	*h = (struct rec_heads){0};
}
