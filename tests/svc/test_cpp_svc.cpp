// The C++ service layer (zcast.hpp): a typed client and server of std_srvs/SetBool in one process,
// a blocking call, futures and callbacks settled by process(), a server closed with a call taken
// giving the future a zcast::error ZCAST_ESRVGONE, and a mismatched service type refused.
#include <zcast/zcast.hpp>

// The generated headers are C: their casts are C casts.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <std_srvs/srv/SetBool.h>
#include <std_srvs/srv/Trigger.h>
#pragma GCC diagnostic pop

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace std::chrono_literals;

static int failures;
#define EXPECT(c)                                                                                  \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #c); \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static std_srvs_srv_SetBool_Response_bounds response_bounds()
{
	std_srvs_srv_SetBool_Response_bounds b;
	b.message = 32;
	return b;
}

static zcast::loan request(zcast::client &c, bool data)
{
	std_srvs_srv_SetBool_Request_writer w;
	zcast::loan l = c.loan_request(nullptr, w);
	std_srvs_srv_SetBool_Request_w_data_set(&w, data);
	c.finish(l, w);
	return l;
}

// Answers one request: success = data, message "was on"/"was off" by the previous state.
static bool serve_one(zcast::server &s, bool &state)
{
	if (!s.wait(5s))
		return false;
	auto req = s.take();
	if (!req)
		return false;
	std_srvs_srv_SetBool_Request_reader r;
	if (std_srvs_srv_SetBool_request_read(&r, req->get()) != 0)
		return false;
	auto b = response_bounds();
	std_srvs_srv_SetBool_Response_writer w;
	zcast::loan l = s.loan_response(*req, &b, w);
	std_srvs_srv_SetBool_Response_w_success_set(&w, true);
	std_srvs_srv_SetBool_Response_w_message_set(&w, state ? "was on" : "was off");
	state = std_srvs_srv_SetBool_Request_data(&r);
	return s.respond(l, w);
}

static std::string message_of(const zcast::message &m)
{
	std_srvs_srv_SetBool_Response_reader r;
	if (std_srvs_srv_SetBool_response_read(&r, m.get()) != 0)
		return "(unreadable)";
	zcast_cdr_str s = std_srvs_srv_SetBool_Response_message(&r);
	return std::string(s.data, s.len);
}

int main()
{
	std::string dom = "tcppsvc-" + std::to_string(getpid());
	setenv("ZCAST_DOMAIN", dom.c_str(), 1);
	auto rb = response_bounds();
	bool state = false;
	{
		zcast::server srv("/cpp/switch", std_srvs_srv_SetBool_SERVICE, &rb);
		zcast::client cli("/cpp/switch", std_srvs_srv_SetBool_SERVICE, nullptr);

		zcast::loan l1 = request(cli, true);
		auto f = cli.send(l1); // a future
		EXPECT(!l1);
		EXPECT(serve_one(srv, state));
		EXPECT(cli.process(5s) == 1);
		EXPECT(message_of(f.get()) == "was off");

		std::string got;
		zcast::loan l2 = request(cli, false);
		cli.send(l2, [&](zcast::message m, int err) { got = err ? "error" : message_of(m); });
		EXPECT(serve_one(srv, state));
		EXPECT(cli.process(5s) == 1);
		EXPECT(got == "was on");
		EXPECT(cli.pending() == 0);

		// a mismatched service type is refused with both hashes
		try {
			zcast::client bad("/cpp/switch", std_srvs_srv_Trigger_SERVICE, nullptr);
			EXPECT(false);
		} catch (const zcast::error &e) {
			EXPECT(e.code() == ZCAST_ETYPE);
			EXPECT(std::strstr(e.what(), std_srvs_srv_SetBool_TYPE_HASH_STR) != nullptr);
			EXPECT(std::strstr(e.what(), std_srvs_srv_Trigger_TYPE_HASH_STR) != nullptr);
		}

		// a server closed with a call taken: the future fails with ZCAST_ESRVGONE
		zcast::loan l3 = request(cli, true);
		auto f3 = cli.send(l3);
		EXPECT(srv.wait(5s));
		auto taken = srv.take();
		EXPECT(taken.has_value());
		srv = zcast::server("/cpp/other");
		EXPECT(cli.process(5s) == 1);
		try {
			f3.get();
			EXPECT(false);
		} catch (const zcast::error &e) {
			EXPECT(e.code() == ZCAST_ESRVGONE);
		}
	}
	if (failures == 0)
		std::printf("cpp services: ok\n");
	return failures ? 1 : 0;
}
