/* Type libraries carry services: a library made from .srv files (zcast_add_type_library) exports
 * zcast_services; zcast_services_find finds a service by its full or short name, with its request
 * and response tables, and refuses another hash naming both. argv[1]: the library's directory. */
#include "../harness.h"

#include <stdlib.h>

#include <zcast/types.h>
#include <zcast_test/srv/Config.h>

static void test_find(void)
{
	const zcast_service_type *s = NULL;
	CHECK_EQ(zcast_services_find("zcast_test/srv/Config", NULL, &s), 0);
	CHECK(s != &zcast_test_srv_Config_SERVICE); /* the library's copy, not this program's */
	CHECK(!strcmp(s->name, "zcast_test/srv/Config"));
	CHECK(!memcmp(s->hash, zcast_test_srv_Config_TYPE_HASH, ZCAST_TYPE_HASH_SIZE));
	CHECK(!strcmp(s->request->name, "zcast_test/srv/Config_Request"));
	CHECK_EQ(s->request->n_fields, zcast_test_srv_Config_Request_TYPE.n_fields);
	CHECK(!strcmp(s->response->fields[2].name, "codes"));
	CHECK(!strcmp(s->text, zcast_test_srv_Config_SRV_TEXT));
	const zcast_service_type *t = NULL;
	CHECK_EQ(zcast_services_find("zcast_test/Config", zcast_test_srv_Config_TYPE_HASH, &t), 0);
	CHECK(t == s);
	/* the request is a type of the library too, by its full name */
	const zcast_cdr_type *req;
	CHECK_EQ(zcast_types_find("zcast_test/srv/Config_Request", NULL, &req), 0);
	CHECK(req == s->request);
}

static void test_refused(void)
{
	const zcast_service_type *s = NULL;
	uint8_t other[ZCAST_TYPE_HASH_SIZE];
	memcpy(other, zcast_test_srv_Config_TYPE_HASH, sizeof other);
	other[0] ^= 1;
	CHECK_EQ(zcast_services_find("zcast_test/srv/Config", other, &s), ZCAST_ETYPE);
	char want[ZCAST_TYPE_HASH_STR_SIZE];
	zcast_type_hash_str(other, want);
	CHECK(strstr(zcast_last_error(), want) != NULL);
	CHECK(strstr(zcast_last_error(), zcast_test_srv_Config_TYPE_HASH_STR) != NULL);
	CHECK_EQ(zcast_services_find("zcast_test/srv/Missing", NULL, &s), ZCAST_ENOENT);
	CHECK(strstr(zcast_last_error(), "zcast_test/srv/Missing") != NULL);
	/* a message type is no service */
	CHECK_EQ(zcast_services_find("builtin_interfaces/Time", NULL, &s), ZCAST_ENOENT);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	setenv("ZCAST_TYPE_PATH", argv[1], 1); /* before the first look-up scans */
	zt_setup("typed_srv_lib", 60);
	RUN(test_find);
	RUN(test_refused);
	return 0;
}
