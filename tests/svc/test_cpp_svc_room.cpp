// The C++ layer's room entries of a server and a client (zcast.hpp, executor::add_room /
// want_room / remove_room): one callback per want, when the refused response or request would
// find room.
#include <zcast/zcast.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace std::chrono_literals;

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
			std::exit(1);                                                              \
		}                                                                                  \
	} while (0)

static zcast_service_opts opts(uint32_t slots, uint32_t depth)
{
	zcast_service_opts o = zcast::service_options();
	o.slot_count = slots;
	o.queue_depth = depth;
	return o;
}

static zcast::message take(zcast::server &srv)
{
	CHECK(srv.wait(5s));
	std::optional<zcast::message> req = srv.take();
	CHECK(req.has_value());
	return *req;
}

// A server with one response slot per client: the second response waits until the client drops
// the first one.
static void server_room()
{
	zcast::server srv("/cpp/svc_room", opts(1, 0));
	zcast::client cli("/cpp/svc_room");
	zcast::executor ex;
	int rooms = 0;
	ex.add_room(srv, [&] { rooms++; });
	zcast::message held, second;
	zcast::loan l = cli.loan_request(8);
	cli.send(l, [&](zcast::message m, int err) {
		CHECK(err == 0);
		held = std::move(m);
	});
	zcast::loan r = srv.loan_response(take(srv), 8);
	CHECK(srv.respond(r));
	CHECK(cli.process(5s) == 1 && held.get());

	l = cli.loan_request(8);
	cli.send(l, [&](zcast::message m, int err) {
		CHECK(err == 0);
		second = std::move(m);
	});
	zcast::message req = take(srv);
	try {
		srv.loan_response(req, 8);
		CHECK(!"the loan found room");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_ENOSLOT);
	}
	ex.want_room(srv);
	CHECK(!ex.spin_once(0ms) && rooms == 0);
	held = zcast::message(); // the slot comes back
	CHECK(ex.spin_once(5s) && rooms == 1);
	r = srv.loan_response(req, 8);
	CHECK(srv.respond(r));
	CHECK(cli.process(5s) == 1 && second.get());
	ex.remove_room(srv);
	bool threw = false;
	try {
		ex.want_room(srv);
	} catch (const zcast::error &e) {
		threw = e.code() == ZCAST_ENOENT;
	}
	CHECK(threw);
}

// A server with a queue of one: the second send waits until the server takes.
static void client_room()
{
	zcast::server srv("/cpp/cli_room", opts(0, 1));
	zcast::client cli("/cpp/cli_room");
	zcast::executor ex;
	int rooms = 0;
	ex.add_room(cli, [&] { rooms++; });
	zcast::loan l = cli.loan_request(8);
	uint64_t seq;
	CHECK(zcast_request_send(cli.get(), l.get(), &seq) == 0);
	l.release();
	l = cli.loan_request(8);
	CHECK(zcast_request_send(cli.get(), l.get(), &seq) == ZCAST_EAGAIN);
	ex.want_room(cli);
	CHECK(!ex.spin_once(0ms) && rooms == 0);
	zcast::message req = take(srv);
	CHECK(ex.spin_once(5s) && rooms == 1);
	CHECK(zcast_request_send(cli.get(), l.get(), &seq) == 0);
	l.release();
	ex.remove_room(cli);
}

int main()
{
	setenv("ZCAST_DOMAIN", ("tcppsvcroom" + std::to_string(getpid())).c_str(), 1);
	server_room();
	client_room();
	std::printf("PASS cpp_svc_room\n");
	return 0;
}
