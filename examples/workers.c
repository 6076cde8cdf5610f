/* Worker group: subscribers with policy BALANCE_RR and one group name share the messages: each
 * message goes to one member, round robin (skipping a member whose queue is full).
 *
 *   example_workers NAME      one worker of group "crunchers" on /example/jobs
 *   (start two, then: example_publisher /example/jobs 20 2)
 *
 * Each worker prints the jobs it got and ends when the publisher has come and gone.
 * Build: cc workers.c $(pkg-config --cflags --libs zcast) */
#include <stdio.h>
#include <zcast/waitset.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "worker";
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	o.type_name = "example/Text";
	o.policy = ZCAST_POLICY_BALANCE_RR;
	o.group =
	    "crunchers"; /* members of one group share; other subscribers still get everything */
	zcast_sub *sub;
	if (zcast_sub_open("/example/jobs", &o, &sub) < 0) {
		fprintf(stderr, "%s: %s\n", name, zcast_last_error());
		return 1;
	}
	int jobs = 0, heard = 0;
	for (int idle = 0; idle < 100;) { /* 10 s without a job ends it */
		int publishers = zcast_sub_matched(sub),
		    gone = heard && publishers == 0; /* see subscriber.c */
		heard |= publishers > 0;
		zcast_msg *m;
		int got = 0;
		while (zcast_take(sub, &m) == 0) {
			printf("%s: %s\n", name, (const char *)zcast_msg_data(m));
			zcast_msg_drop(m);
			jobs++;
			got = heard = 1;
		}
		if (gone)
			break;
		idle = got ? 0 : idle + 1;
		zcast_wait(sub, 100000000);
	}
	printf("%s: %d jobs\n", name, jobs);
	zcast_sub_close(sub);
	return 0;
}
