// Helpers of the C++ tests (tests/test_cpp.cpp, tests/typed/test_cpp_typed.cpp): a check that ends
// the test naming the line, and a zcast domain of the test's own, removed at the end.
#ifndef ZT_CPP_H
#define ZT_CPP_H

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,      \
				     #cond);                                                       \
			std::exit(1);                                                              \
		}                                                                                  \
	} while (0)

#define FAIL(why)                                                                                  \
	do {                                                                                       \
		std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, why);                      \
		std::exit(1);                                                                      \
	} while (0)

// A domain named after the test and its pid, set as $ZCAST_DOMAIN for this process and children.
static inline std::string zt_cpp_domain(const char *test)
{
	std::string d = std::string(test) + "-" + std::to_string(getpid());
	setenv("ZCAST_DOMAIN", d.c_str(), 1);
	return d;
}

// Removes the domain's segments from /dev/shm.
static inline void zt_cpp_remove_segments(const std::string &domain)
{
	std::string prefix = "zcast." + domain + ".";
	if (DIR *d = opendir("/dev/shm")) {
		while (dirent *e = readdir(d))
			if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
				unlink((std::string("/dev/shm/") + e->d_name).c_str());
		closedir(d);
	}
}

#endif
