// A zcast service in C++ (docs/CPP.md "Services"): std_srvs/SetBool on /example/switch.
//
//   example_cpp_service serve N   answer N requests, then exit
//   example_cpp_service           call it three ways: blocking, a future, a callback
//
// Start the server first (a call waits up to its timeout for one). Each response says whether the
// switch was on before.
#include <zcast/zcast.hpp>

// The generated headers are C (zcast-msggen); their casts are C casts.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <std_srvs/srv/SetBool.h>
#pragma GCC diagnostic pop

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace std::chrono_literals;
static const char *const service = "/example/switch";

static int serve(int n)
{
	std_srvs_srv_SetBool_Response_bounds bounds{};
	bounds.message = 16; // the longest message this server sends
	zcast::server srv(service, std_srvs_srv_SetBool_SERVICE, &bounds);
	bool on = false;
	int served = 0;
	while (served < n) {
		if (!srv.wait(10s))
			return 1;
		auto req = srv.take();
		std_srvs_srv_SetBool_Request_reader r;
		if (!req || std_srvs_srv_SetBool_request_read(&r, req->get()) != 0)
			continue; // nothing, or not a valid SetBool request
		std_srvs_srv_SetBool_Response_writer w;
		zcast::loan resp = srv.loan_response(*req, &bounds, w);
		std_srvs_srv_SetBool_Response_w_success_set(&w, true);
		std_srvs_srv_SetBool_Response_w_message_set(&w, on ? "was on" : "was off");
		on = std_srvs_srv_SetBool_Request_data(&r);
		if (srv.respond(resp, w))
			served++;
	}
	std::printf("served %d requests\n", served);
	return 0;
}

static zcast::loan request(zcast::client &cli, bool data)
{
	std_srvs_srv_SetBool_Request_writer w;
	zcast::loan l = cli.loan_request(nullptr, w); // SetBool's request has no strings: no bounds
	std_srvs_srv_SetBool_Request_w_data_set(&w, data);
	cli.finish(l, w); // compacts the typed request for sending
	return l;
}

static void print(const char *how, const zcast::message &m)
{
	std_srvs_srv_SetBool_Response_reader r;
	if (std_srvs_srv_SetBool_response_read(&r, m.get()) != 0)
		return;
	zcast_cdr_str s = std_srvs_srv_SetBool_Response_message(&r);
	std::printf("%s: success %d (%.*s)\n", how, std_srvs_srv_SetBool_Response_success(&r),
		    static_cast<int>(s.len), s.data);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !std::strcmp(argv[1], "serve"))
		return serve(std::atoi(argv[2]));
	zcast::client cli(service, std_srvs_srv_SetBool_SERVICE, nullptr);
	zcast::loan l = request(cli, true);
	print("set true", cli.call(l, 10s)); // blocking

	zcast::loan l2 = request(cli, true);
	std::future<zcast::message> f = cli.send(l2); // settled by process()
	while (f.wait_for(0s) != std::future_status::ready)
		cli.process(1s);
	print("future", f.get());

	zcast::loan l3 = request(cli, false);
	bool done = false;
	cli.send(l3, [&](zcast::message m, int err) {
		if (err == 0)
			print("callback", m);
		done = true;
	});
	while (!done)
		cli.process(1s);
	return 0;
}
