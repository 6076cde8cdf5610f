/* A user's own message types for zcast.load_types() (tests/python/test_typed.py): the tables of
 * tests/typed/msg's zcast_test package, exported as the NULL-terminated array Python looks up. */
#include <zcast_test/msg/Corner.h>
#include <zcast_test/msg/Fixed.h>
#include <zcast_test/msg/Nested.h>

__attribute__((visibility("default"))) const zcast_cdr_type *const zcast_types[] = {
    &zcast_test_msg_Corner_TYPE,
    &zcast_test_msg_Fixed_TYPE,
    &zcast_test_msg_Nested_TYPE,
    NULL,
};
