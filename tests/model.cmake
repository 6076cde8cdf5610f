# The SPIN model of the slot / ring / reclaim / wake-up protocol, with its must-fail mutants.
add_test(NAME spin_model COMMAND bash ${PROJECT_SOURCE_DIR}/model/check.sh)
set_tests_properties(spin_model PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
