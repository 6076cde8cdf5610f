// Typed messages in C++ (docs/CPP.md "Typed messages"): sensor_msgs/Image written member by member
// in its slot and read in place by a lambda, no copy on either side.
//
//   example_cpp_typed publish    waits for a subscriber, publishes 5 images of 64x48 rgb8, leaves
//   example_cpp_typed            prints each image from an executor callback until the publisher
//   left
//
// Build: zcast_generate_messages(camera TYPES sensor_msgs/Image) in CMake (docs/TYPED.md), or
//   zcast-msggen -I $(pkg-config --variable=msgdir zcast) -o gen sensor_msgs/Image
//   c++ -std=c++17 -Igen camera.cpp $(pkg-config --cflags --libs zcast)
#include <sensor_msgs/msg/Image.h> // generated; includes zcast/zcast.hpp in C++

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace std::chrono_literals;
using Image = sensor_msgs_msg_Image; // the generated C type names the C++ one
static const char *const topic = "/example/camera";
static const uint32_t width = 64, height = 48;

static void publish()
{
	sensor_msgs_msg_Image_bounds bounds{}; // the most each string and sequence takes
	bounds.header.frame_id = 16;
	bounds.encoding = 8;
	bounds.data = width * height * 3;
	zcast::typed_publisher<Image> pub(topic, bounds); // slots fit an image at these bounds
	for (int i = 0; pub.matched() == 0; i++) {	  // nobody listens yet: wait (at most 10 s)
		if (i == 1000)
			throw std::runtime_error("no subscriber came");
		std::this_thread::sleep_for(10ms);
	}
	for (uint8_t i = 0; i < 5; i++) {
		zcast::typed_loan<Image> img =
		    pub.loan(1s); // a free slot within 1 s (else throws), members at defaults
		img->header().stamp().sec() = 100 + i;
		img->header().frame_id() = "cam0"; // longer than its bound: zcast::error naming it
		img->width() = width;
		img->height() = height;
		img->encoding() = "rgb8";
		img->step() = width * 3;
		auto px = img->data(); // the pixels, in shared memory
		px.resize(width * height * 3);
		std::memset(px.data(), i, px.size()); // a camera driver would write here
		if (!pub.publish(std::move(img), 2s)) // false: a full queue refused it, loan kept
			throw std::runtime_error("the subscriber does not keep up");
	}
} // ~typed_publisher leaves the topic

static void subscribe()
{
	zcast::typed_subscriber<Image> sub(topic); // another type on the topic: zcast::error
	zcast::executor ex;
	std::atomic<int> got{0};
	ex.add(sub, [&](const zcast::typed_message<Image> &img) { // validated, read in place
		zcast::span<const uint8_t> px = img->data();
		std::string_view frame = img->header().frame_id();
		std::printf("image %d: %ux%u %.*s from %.*s, %zu bytes, first pixel %u (#%llu)\n",
			    img->header().stamp().sec(), img->width(), img->height(),
			    static_cast<int>(img->encoding().size()), img->encoding().data(),
			    static_cast<int>(frame.size()), frame.data(), px.size(),
			    unsigned{px[0]}, static_cast<unsigned long long>(img.info().sequence));
		got++;
	});
	ex.add_timer(100ms, [&] { // the publisher came and went, everything is taken: stop
		if (got > 0 && sub.matched() == 0 && sub.queued() == 0)
			ex.stop();
	});
	ex.stop_on_signals();
	ex.spin();
	std::printf("received %d images\n", got.load());
}

int main(int argc, char **argv)
{
	try {
		if (argc > 1 && std::strcmp(argv[1], "publish") == 0)
			publish();
		else
			subscribe();
	} catch (const std::exception &e) { // zcast::error says what failed and why
		std::fprintf(stderr, "example_cpp_typed: %s\n", e.what());
		return 1;
	}
	return 0;
}
