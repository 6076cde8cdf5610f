/* Generator of the container workload (container_plan.h). The shape follows an Autoware-like graph:
 * topic popularity falls with its rank (subscribers ~ 35 / sqrt(rank + 1) for the upper 45 %, one
 * subscriber for the rest, so the median is 1 and the busiest topic has 35); the 20 most popular
 * topics carry small messages at 10 .. 50 Hz (tf, status, control); the others are 76 % small (128
 * B .. 1 KiB), 19 % medium (4 .. 64 KiB), 5 % large (256 KiB .. 4 MiB, at most 3 subscribers each,
 * like point clouds and images). Rates 1 .. 100 Hz. Publishers are the first three quarters of the
 * containers; every subscription goes to a container still below min_subs if there is one, else to
 * the one with the most room left below its own quota (min_subs .. min_subs + 20), preferring
 * containers that do not subscribe the topic yet. */
#include "container_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const cp_class_names[3] = {"small", "medium", "large"};

static uint64_t next(uint64_t *s) /* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int pick(uint64_t *s, const int *v, int n)
{
	return v[next(s) % (uint64_t)n];
}

int cp_class(uint32_t size)
{
	return size <= 1024 ? 0 : size <= 65536 ? 1 : 2;
}

void cp_free(cp_plan *p)
{
	free(p->topics);
	free(p->subs);
	memset(p, 0, sizeof *p);
}

int cp_generate(cp_plan *p, int ntopics, int ncont, int min_subs, uint64_t seed, char *why,
		size_t whylen)
{
	static const int small_sz[] = {128, 256, 256, 256, 512, 1024},
			 mid_sz[] = {4096, 16384, 65536},
			 big_sz[] = {256 << 10, 1 << 20, 2 << 20, 4 << 20};
	static const int hot_hz[] = {10, 20, 30, 50},
			 small_hz[] = {1, 5, 10, 10, 10, 20, 30, 50, 100},
			 mid_hz[] = {5, 10, 10, 20, 30}, big_hz[] = {1, 2, 5, 10, 10};
	memset(p, 0, sizeof *p);
	if (ntopics < 1 || ncont < 2 || min_subs < 1) {
		snprintf(
		    why, whylen,
		    "container plan: need >= 1 topic, >= 2 containers, >= 1 subscription each");
		return -1;
	}
	uint64_t s = seed ? seed : 1;
	p->ntopics = ntopics;
	p->ncont = ncont;
	p->topics = calloc((size_t)ntopics, sizeof *p->topics);
	int npub = ncont * 3 / 4 > 0 ? ncont * 3 / 4 : 1, total = 0;
	for (int r = 0; r < ntopics && p->topics; r++) {
		cp_topic *t = &p->topics[r];
		int n = 1;
		if (r < ntopics * 9 / 20) {
			n = (int)(CP_MAX_SUBS_PER_TOPIC / sqrt((double)r + 1) + 0.5);
			n = n < 1 ? 1 : n;
		}
		unsigned u = (unsigned)(next(&s) % 100);
		if (r < 20 || u < 76) {
			t->size = (uint32_t)pick(&s, small_sz, 6);
			t->rate_hz = r < 20 ? pick(&s, hot_hz, 4) : pick(&s, small_hz, 9);
		} else if (u < 95) {
			t->size = (uint32_t)pick(&s, mid_sz, 3);
			t->rate_hz = pick(&s, mid_hz, 5);
		} else {
			t->size = (uint32_t)pick(&s, big_sz, 4);
			t->rate_hz = pick(&s, big_hz, 5);
			n = n > 3 ? 3 : n;
		}
		t->nsubs = n;
		t->pub = (int)(next(&s) % (uint64_t)npub);
		t->phase_ns = (int64_t)(next(&s) % (uint64_t)(1000000000 / t->rate_hz));
		total += n;
		if (t->size > p->max_size)
			p->max_size = t->size;
	}
	/* too few subscriptions for min_subs per container: add more to the popular topics */
	for (int r = 0; p->topics && total < ncont * min_subs; r = (r + 1) % ntopics) {
		cp_topic *t = &p->topics[r];
		if (r == 0 && t->nsubs >= CP_MAX_SUBS_PER_TOPIC * 4) {
			snprintf(why, whylen,
				 "container plan: %d topics cannot carry %d x %d subscriptions",
				 ntopics, ncont, min_subs);
			free(p->topics);
			return -1;
		}
		if (cp_class(t->size) < 2) {
			t->nsubs++;
			total++;
		}
	}
	p->subs = calloc((size_t)total, sizeof *p->subs);
	int *quota = calloc((size_t)ncont, sizeof *quota),
	    *count = calloc((size_t)ncont, sizeof *count);
	int *has = calloc((size_t)ncont, sizeof *has);
	if (!p->topics || !p->subs || !quota || !count || !has) {
		snprintf(why, whylen, "container plan: out of memory");
		free(quota), free(count), free(has);
		cp_free(p);
		return -1;
	}
	for (int c = 0; c < ncont; c++)
		quota[c] = min_subs + (int)(next(&s) % 21);
	for (int r = 0; r < ntopics; r++) {
		cp_topic *t = &p->topics[r];
		t->first_sub = p->nsubs;
		memset(has, 0, (size_t)ncont * sizeof *has);
		for (int k = 0; k < t->nsubs; k++) {
			int best = -1, best_score = 0, start = (int)(next(&s) % (uint64_t)ncont);
			for (int i = 0; i < ncont; i++) {
				int c = (start + i) % ncont;
				if (c == t->pub)
					continue;
				int score = (count[c] < min_subs) * 10000 + quota[c] - count[c] -
					    has[c] * 1000;
				if (best < 0 || score > best_score)
					best = c, best_score = score;
			}
			has[best] = 1;
			count[best]++;
			p->subs[p->nsubs++] = (cp_sub){r, best};
		}
	}
	free(quota), free(count), free(has);
	return 0;
}

double cp_deliveries_per_s(const cp_plan *p)
{
	double d = 0;
	for (int r = 0; r < p->ntopics; r++)
		d += (double)p->topics[r].rate_hz * p->topics[r].nsubs;
	return d;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void cp_describe(const cp_plan *p, FILE *f)
{
	int *n = calloc((size_t)p->ntopics, sizeof *n),
	    *per = calloc((size_t)p->ncont, sizeof *per);
	int *pubs = calloc((size_t)p->ncont, sizeof *pubs);
	if (!n || !per || !pubs)
		goto out;
	double dl[3] = {0}, bytes = 0;
	int topics[3] = {0};
	for (int r = 0; r < p->ntopics; r++) {
		const cp_topic *t = &p->topics[r];
		n[r] = t->nsubs;
		pubs[t->pub]++;
		topics[cp_class(t->size)]++;
		dl[cp_class(t->size)] += (double)t->rate_hz * t->nsubs;
		bytes += (double)t->rate_hz * t->nsubs * t->size;
	}
	for (int i = 0; i < p->nsubs; i++)
		per[p->subs[i].container]++;
	qsort(n, (size_t)p->ntopics, sizeof *n, cmp_int);
	qsort(per, (size_t)p->ncont, sizeof *per, cmp_int);
	int publishers = 0;
	for (int c = 0; c < p->ncont; c++)
		publishers += pubs[c] > 0;
	fprintf(f,
		"container plan: %d topics (small/medium/large %d/%d/%d), %d containers (%d "
		"publish), %d "
		"subscriptions; subscribers per topic median %d max %d; subscriptions per "
		"container min %d "
		"median %d max %d; deliveries/s small %.0f medium %.0f large %.0f; %.1f MB/s "
		"delivered\n",
		p->ntopics, topics[0], topics[1], topics[2], p->ncont, publishers, p->nsubs,
		n[p->ntopics / 2], n[p->ntopics - 1], per[0], per[p->ncont / 2], per[p->ncont - 1],
		dl[0], dl[1], dl[2], bytes / 1e6);
out:
	free(n), free(per), free(pubs);
}
