// The C++ layer (zcast/zcast.hpp): a typed payload written in place, a lambda per message.
//
//   example_cpp publish    waits for a subscriber, publishes 10 readings, leaves
//   example_cpp            prints the readings from an executor callback until the publisher left
//
// Build: c++ -std=c++17 chatter.cpp $(pkg-config --cflags --libs zcast)
#include <zcast/zcast.hpp>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace std::chrono_literals;

struct reading { // viewed in place: trivially copyable, alignment <= 64
	uint32_t index;
	double celsius;
};

static zcast_pub_opts pub_opts()
{
	auto o = zcast::pub_options();
	o.type_name = "example/Reading";
	o.slot_size = sizeof(reading);
	return o;
}

static zcast_sub_opts sub_opts()
{
	auto o = zcast::sub_options();
	o.type_name = "example/Reading";
	return o;
}

static void publish()
{
	zcast::publisher pub("/example/readings", pub_opts());
	for (int i = 0; pub.matched() == 0; i++) { // nobody listens yet: wait (at most 10 s)
		if (i == 1000)
			throw std::runtime_error("no subscriber came");
		std::this_thread::sleep_for(10ms);
	}
	for (uint32_t i = 0; i < 10; i++) {
		auto loan =
		    pub.try_loan(sizeof(reading), 1s); // std::nullopt: no free slot within 1 s
		if (!loan)
			throw std::runtime_error("no free slot");
		*loan->as<reading>() = reading{i, 20.0 + i / 2.0};
		if (!pub.publish(std::move(*loan), 2s)) // false: a full queue refused it, loan kept
			throw std::runtime_error("the subscriber does not keep up");
	}
} // ~publisher leaves the topic

static void subscribe()
{
	zcast::subscriber sub("/example/readings", sub_opts());
	zcast::executor ex;
	std::atomic<int> got{0};
	ex.add(sub, [&](const zcast::message &m) { // m is a counted reference: copy it to keep it
		const reading *r = m.as<reading>();
		std::printf("reading %u: %.1f C (#%llu)\n", r->index, r->celsius,
			    static_cast<unsigned long long>(m.info().sequence));
		got++;
	});
	ex.add_timer(100ms, [&] { // the publisher came and went, everything is taken: stop
		if (got > 0 && sub.matched() == 0 && sub.queued() == 0)
			ex.stop();
	});
	ex.stop_on_signals();
	ex.spin();
	std::printf("received %d readings\n", got.load());
}

int main(int argc, char **argv)
{
	try {
		if (argc > 1 && std::strcmp(argv[1], "publish") == 0)
			publish();
		else
			subscribe();
	} catch (const std::exception &e) { // zcast::error says what failed and why
		std::fprintf(stderr, "example_cpp: %s\n", e.what());
		return 1;
	}
	return 0;
}
