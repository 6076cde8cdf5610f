/* epoll: a zcast subscriber inside an ordinary event loop, beside a signalfd.
 *
 *   example_epoll        subscribes to /example/chatter  (publish with: example_publisher)
 *
 * zcast_sub_fd gives a descriptor that is readable while messages are queued. The rule that
 * keeps it exact: when it is readable, take until ZCAST_EAGAIN (that EAGAIN re-arms it).
 * Signals arrive through a signalfd, so they must be blocked in every thread: block them before
 * the first zcast call, because zcast's helper threads inherit the mask they are created with.
 * Build: cc epoll.c $(pkg-config --cflags --libs zcast) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <zcast/waitset.h>

int main(void)
{
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL); /* first, before zcast starts any thread */
	int sfd = signalfd(-1, &stop, SFD_CLOEXEC);

	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	zcast_sub *sub;
	int zfd, ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || ep < 0 || zcast_sub_open("/example/chatter", &o, &sub) < 0 ||
	    zcast_sub_fd(sub, &zfd) < 0) {
		fprintf(stderr, "epoll example: %s\n", zcast_last_error());
		return 1;
	}
	struct epoll_event add = {.events = EPOLLIN, .data.fd = zfd};
	epoll_ctl(ep, EPOLL_CTL_ADD, zfd, &add);
	add.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &add);

	int received = 0, done = 0, idle = 0;
	while (!done && idle < 100) { /* 10 s without events ends it */
		int publishers =
		    zcast_sub_matched(sub); /* read before draining, see subscriber.c */
		struct epoll_event ev[2];
		int n = epoll_wait(ep, ev, 2, 100);
		idle = n > 0 ? 0 : idle + 1;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == sfd) {
				printf("signal: stopping\n");
				done = 1;
				continue;
			}
			zcast_msg *m;
			while (zcast_take(sub, &m) ==
			       0) { /* until EAGAIN: that re-arms the descriptor */
				printf("epoll: %s\n", (const char *)zcast_msg_data(m));
				zcast_msg_drop(m);
				received++;
			}
		}
		if (n == 0 && received > 0 && publishers == 0 && zcast_sub_queued(sub) == 0)
			done = 1; /* the publisher has come and gone and everything was taken */
	}
	printf("received %d messages\n", received);
	zcast_sub_close(sub); /* closes zfd too: it belongs to the subscriber */
	close(ep);
	close(sfd);
	return 0;
}
